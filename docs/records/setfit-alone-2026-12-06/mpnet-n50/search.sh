#!/bin/bash
# mpnet at n = 50 on SST-5: the search from an empty folder, then the library's defaults and SetFit fast's, 5 seeds
# each, on the same 50 examples (alone.sh, MODEL=mpnet). Run from a worktree's root.
set -u
root=/tmp/n100r T=../shared/tasks/sst5 out=/tmp/n100r/sst5-mpnet-n50 began=$SECONDS
make advise -j 2 DATASET=sst5 MODEL=mpnet TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv TEST_FILE=$T/test.csv \
  RUN_FLAGS="--text-column text" SIZE=50 BUDGET=2 METRIC=macro_f1 RESULTS=$out/results CACHE_DIR=$out/cache \
  SPLITS_DIR=$out/splits SAVE=$out/saved > $out.log 2>&1
echo "sst5 mpnet n=50 rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)"
A=docs/records/setfit-alone-2026-12-06/alone.sh
began=$SECONDS; MODEL=mpnet bash $A $root/mpnet $PWD 50 "1 2 3 4 5" sst5; echo "library: $((SECONDS - began)) s"
began=$SECONDS; METHOD=setfit-fast MODEL=mpnet bash $A $root/mpnet $PWD 50 "1 2 3 4 5" sst5; echo "fast: $((SECONDS - began)) s"
