#!/bin/bash
# usage: run_search.sh CODE OUT TASKDIR SIZE METRIC: make advise from CODE's checkout, the machine's default precision
CODE=$1; OUT=$2; T=$3; SIZE=$4; METRIC=$5
cd $CODE
mkdir -p $OUT
date -u +%T > $OUT/clock.txt
make advise -j 2 DATASET=$(basename $T) MODEL=minilm TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv RUN_FLAGS="--text-column text" \
  SIZE=$SIZE BUDGET=2 METRIC=$METRIC TEST_FILE=$T/test.csv \
  RESULTS=$OUT/results CACHE_DIR=$OUT/cache SPLITS_DIR=$OUT/splits SAVE=$OUT/saved > $OUT/output.txt 2>&1
echo "rc $?" >> $OUT/clock.txt
date -u +%T >> $OUT/clock.txt
