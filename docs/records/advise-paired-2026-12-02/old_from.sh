#!/bin/bash
# usage: old_from.sh NEW OLD TASKDIR SIZE METRIC: the search before the change, resumed on the new search's runs
NEW=$1; OLD=$2; shift 2
mkdir -p $OLD/results
cp $NEW/results/*.json $OLD/results/
cp -r $NEW/splits $OLD/splits; cp -r $NEW/cache $OLD/cache
/tmp/q/run_search.sh /tmp/q/old $OLD "$@"
