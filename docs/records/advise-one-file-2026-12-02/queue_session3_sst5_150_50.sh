#!/bin/bash
# SST-5's 200 rows cut 150/50 (train-part, dev-part): the search given a dev file, code at fee5ac9
S=/work/shared/tasks; F=/tmp/q/files; cd /tmp/q/code
out=/tmp/q/base-sst5; mkdir -p $out; date -u +%T > $out/clock.txt
make advise -j 2 DATASET=sst5 MODEL=minilm TRAIN_FILE=$F/sst5/train-part.csv DEV_FILE=$F/sst5/dev-part.csv \
  RUN_FLAGS="--text-column text" SIZE=150 BUDGET=0.5 METRIC=macro_f1 TEST_FILE=$S/sst5/test.csv \
  RESULTS=$out/results CACHE_DIR=/tmp/q/cache SPLITS_DIR=$out/splits SAVE=$out/saved > $out/output.txt 2>&1
echo "rc $?" >> $out/clock.txt; date -u +%T >> $out/clock.txt
