#!/bin/bash
# usage: run_advise.sh OUT TASKDIR SIZE METRIC [extra make vars...]
cd /work/main
OUT=$1; T=$2; SIZE=$3; METRIC=$4; shift 4
mkdir -p $OUT
date -u +%T > $OUT/clock.txt
make advise -j 2 DATASET=$(basename $T) MODEL=minilm TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv RUN_FLAGS="--text-column text" \
  SIZE=$SIZE BUDGET=2 METRIC=$METRIC TEST_FILE=$T/test.csv PRECISION=fp32 \
  RESULTS=$OUT/results CACHE_DIR=$OUT/cache SPLITS_DIR=$OUT/splits SAVE=$OUT/saved "$@" > $OUT/output.txt 2>&1
echo "rc $?" >> $OUT/clock.txt
date -u +%T >> $OUT/clock.txt
