#!/bin/bash
# make advise at n = 50 on three tasks as a user's CSVs, the code before (the fine-tune screened at
# the protocol's 5e-5) and after (at its line searches' 2e-4), each from an empty folder, the same
# 50 examples (one splits folder per task), every run scoring test.csv as it ends.
#   bash searches.sh OUT NEW_TREE OLD_TREE [tasks...]     (SIZE=100: from 100 examples)
set -u
OUT=$1 NEW=$2 OLD=$3; shift 3
TASKS=${*:-counterfactual emotion sst5}
SIZE=${SIZE:-50}
SHARED=${SHARED:-$(cd "$NEW/.." && pwd)/shared}
for task in $TASKS; do
  T=$SHARED/tasks/$task
  for side in after before; do
    tree=$NEW; [ $side = before ] && tree=$OLD
    dir=$OUT/$side/$task
    mkdir -p $dir
    began=$(date +%s)
    make -C $tree --no-print-directory advise -j 2 DATASET=$task MODEL=minilm SIZE=$SIZE METRIC=macro_f1 \
      TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv TEST_FILE=$T/test.csv RUN_FLAGS="--text-column text" \
      RESULTS=$dir/runs SAVE=$dir/saved CACHE_DIR=$OUT/cache-$side SPLITS_DIR=$OUT/splits-$task > $dir/output.txt 2>&1
    echo "$side $task: rc $?, $(( $(date +%s) - began )) s of wall clock" | tee -a $OUT/clock.txt
  done
done
