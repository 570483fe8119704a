#!/bin/bash
# counterfactual and SST-5 at n = 300 with the answer's rule at fa74818 (emotion at n = 300 ran the
# session before: records/advise-bbc-rule-2026-12-06/searches_new_code.sh), each from an empty
# folder under $1 (minilm, every method, -j 2, BUDGET=2). Run from the project's root:
#
#     bash docs/records/advise-n300-final-2026-12-06/searches.sh /tmp/n300 > searches.txt
set -u
root=$1
one() {  # name size metric folder column
  local out=$root/$1-n$2 began=$SECONDS
  rm -rf $out; mkdir -p $out
  make advise -j 2 DATASET=$1 MODEL=minilm TRAIN_FILE=$4/train.csv DEV_FILE=$4/dev.csv TEST_FILE=$4/test.csv \
    RUN_FLAGS="--text-column $5" SIZE=$2 BUDGET=2 METRIC=$3 RESULTS=$out/results CACHE_DIR=$out/cache \
    SPLITS_DIR=$out/splits SAVE=$out/saved > $out.log 2>&1
  echo "$1 n=$2 rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)"
}
for task in counterfactual sst5; do one $task 300 macro_f1 ../shared/tasks/$task text; done
