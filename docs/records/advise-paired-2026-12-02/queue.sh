#!/bin/bash
S=/work/main/../shared/tasks
task() {  # name size metric
  /tmp/q/run_search.sh /tmp/q/new /tmp/q/$1-new $S/$1 $2 $3
  /tmp/q/baselines.sh /tmp/q/$1-new $S/$1 $2 $3 > /tmp/q/$1-new/baselines.txt 2>&1
  /tmp/q/old_from.sh /tmp/q/$1-new /tmp/q/$1-old $S/$1 $2 $3
}
task emotion 200 macro_f1
task sst5 200 macro_f1
task counterfactual 200 macro_f1
