#!/bin/bash
# n = 100: make advise with today's code from empty folders, then the library's SetFit alone and SetFit fast's
# defaults on the same 100 examples (setfit-alone's alone.sh), 5 seeds each. Run from a worktree's root.
set -u
root=/tmp/n100r
one() {  # name size metric folder-with-train/dev/test column
  local out=$root/$1-n$2 began=$SECONDS
  make advise -j 2 DATASET=$1 MODEL=minilm TRAIN_FILE=$4/train.csv DEV_FILE=$4/dev.csv TEST_FILE=$4/test.csv \
    RUN_FLAGS="--text-column $5" SIZE=$2 BUDGET=2 METRIC=$3 RESULTS=$out/results CACHE_DIR=$out/cache \
    SPLITS_DIR=$out/splits SAVE=$out/saved > $out.log 2>&1
  echo "$1 n=$2 rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)"
}
for task in emotion counterfactual sst5; do one $task 100 macro_f1 ../shared/tasks/$task text; done
R=docs/records/setfit-alone-2026-12-06
began=$SECONDS; bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" emotion counterfactual sst5; echo "library: $((SECONDS - began)) s"
began=$SECONDS; METHOD=setfit-fast bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" emotion counterfactual sst5; echo "fast: $((SECONDS - began)) s"
