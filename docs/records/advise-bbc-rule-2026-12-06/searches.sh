#!/bin/bash
# The record's 8 new searches, one after another, each from an empty folder under $1 (minilm,
# every method, -j 2, BUDGET=2), as they ran at 5077e78 (the rule before: each printed that rule's
# answer; compare_rules.py replays both over their runs). SST-2 as CSVs: bench/glue_as_csv.py;
# CoLA's: the files of records/advise-cola-2026-12-05. Run from the project's root:
#
#     bash docs/records/advise-bbc-rule-2026-12-06/searches.sh /tmp/n100 > searches.txt
# Sourced (root set first), it defines one() alone: setfit-alone-2026-12-06's n100/ scripts use it.
set -u
one() {  # name size metric folder-with-train/dev/test column
  local out=$root/$1-n$2 began=$SECONDS
  make advise -j 2 DATASET=$1 MODEL=minilm TRAIN_FILE=$4/train.csv DEV_FILE=$4/dev.csv TEST_FILE=$4/test.csv \
    RUN_FLAGS="--text-column $5" SIZE=$2 BUDGET=2 METRIC=$3 RESULTS=$out/results CACHE_DIR=$out/cache \
    SPLITS_DIR=$out/splits SAVE=$out/saved > $out.log 2>&1
  echo "$1 n=$2 rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)"
}
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
root=$1
[ -d $root/sst2csv ] || .venv/bin/python -m bench.glue_as_csv ../shared/glue/SST-2 $root/sst2csv --test 1000
[ -d $root/cola ] || .venv/bin/python -m bench.glue_as_csv ../shared/glue/CoLA $root/cola --test 1000
for size in 100 50; do
  for task in emotion counterfactual sst5; do one $task $size macro_f1 ../shared/tasks/$task text; done
done
one sst2-user 100 accuracy $root/sst2csv sentence
one cola-user 100 mcc $root/cola sentence
