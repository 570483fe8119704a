#!/bin/bash
# make advise on mpnet, SST-5 at n = 50, from an empty folder: the search of setfit-alone-2026-12-06's
# mpnet-n50/search.sh (the same command line), run with rule-tried.patch applied: SetFit fast screened and
# anchored on mpnet at 1e-4.
#   bash docs/records/fast-rate-depth-2026-12-07/search.sh OUT     (from a worktree's root, ../shared beside it)
set -u
out=$1/sst5-mpnet-n50 T=../shared/tasks/sst5 began=$SECONDS
make advise -j 2 DATASET=sst5 MODEL=mpnet TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv TEST_FILE=$T/test.csv \
  RUN_FLAGS="--text-column text" SIZE=50 BUDGET=2 METRIC=macro_f1 RESULTS=$out/results CACHE_DIR=$out/cache \
  SPLITS_DIR=$out/splits SAVE=$out/saved > $out.log 2>&1
echo "sst5 mpnet n=50 rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)"
