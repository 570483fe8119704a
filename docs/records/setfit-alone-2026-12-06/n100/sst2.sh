#!/bin/bash
# SST-2 as a user's CSV (text,label; bench/glue_as_csv.py's split, --test 1000) at n = 100: the search, then the
# library's defaults and SetFit fast's, 5 seeds each (alone.sh, SHARED=/tmp/n100r/shared). Run from a worktree's root.
set -u
root=/tmp/n100r T=/tmp/n100r/shared/tasks/sst2-user out=/tmp/n100r/sst2-user-n100 began=$SECONDS
make advise -j 2 DATASET=sst2-user MODEL=minilm TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv TEST_FILE=$T/test.csv \
  RUN_FLAGS="--text-column text" SIZE=100 BUDGET=2 METRIC=accuracy RESULTS=$out/results CACHE_DIR=$out/cache \
  SPLITS_DIR=$out/splits SAVE=$out/saved > $out.log 2>&1
echo "sst2-user n=100 rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)"
R=docs/records/setfit-alone-2026-12-06
began=$SECONDS; SHARED=$root/shared bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" sst2-user; echo "library: $((SECONDS - began)) s"
began=$SECONDS; SHARED=$root/shared METHOD=setfit-fast bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" sst2-user; echo "fast: $((SECONDS - began)) s"
