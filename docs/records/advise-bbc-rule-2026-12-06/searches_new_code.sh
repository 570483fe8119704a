#!/bin/bash
# with today's rule (main at 9cf8692): counterfactual at n = 50 again from an empty folder, then
# emotion, counterfactual and SST-5 at n = 300 (stopped after emotion). Run from the project's root
one() {  # name size metric folder column
  local out=/tmp/n300/$1-n$2 began=$SECONDS
  make advise -j 2 DATASET=$1 MODEL=minilm TRAIN_FILE=$4/train.csv DEV_FILE=$4/dev.csv TEST_FILE=$4/test.csv \
    RUN_FLAGS="--text-column $5" SIZE=$2 BUDGET=2 METRIC=$3 RESULTS=$out/results CACHE_DIR=$out/cache \
    SPLITS_DIR=$out/splits SAVE=$out/saved > $out.log 2>&1
  echo "$1 n=$2 rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)" >> /tmp/n300/done.txt
}
mkdir -p /tmp/n300
one counterfactual 50 macro_f1 ../shared/tasks/counterfactual text
for task in emotion counterfactual sst5; do one $task 300 macro_f1 ../shared/tasks/$task text; done
