#!/bin/bash
# after the change (2d7df93): the one-file searches, then FINAL=all on emotion's 200 and its 374 dev rows
S=/work/shared/tasks; F=/tmp/q/files; cd $CODE (a checkout at 2d7df93)
one() {  # name n metric
  out=/tmp/q/one-$1; mkdir -p $out; date -u +%T > $out/clock.txt
  make advise -j 2 DATASET=$1 MODEL=minilm TRAIN_FILE=$F/$1/labelled$2.csv RUN_FLAGS="--text-column text" \
    SIZE=$2 BUDGET=2 METRIC=$3 TEST_FILE=$S/$1/test.csv \
    RESULTS=$out/results CACHE_DIR=/tmp/q/cache SPLITS_DIR=$out/splits SAVE=$out/saved > $out/output.txt 2>&1
  echo "rc $?" >> $out/clock.txt; date -u +%T >> $out/clock.txt
}
one emotion 200 macro_f1
out=/tmp/q/final-emotion; mkdir -p $out; date -u +%T > $out/clock.txt
make advise -j 2 DATASET=emotion MODEL=minilm TRAIN_FILE=$S/emotion/train.csv DEV_FILE=$S/emotion/dev.csv RUN_FLAGS="--text-column text" \
  SIZE=200 BUDGET=2 METRIC=macro_f1 TEST_FILE=$S/emotion/test.csv FINAL=all \
  RESULTS=$out/results CACHE_DIR=/tmp/q/cache SPLITS_DIR=$out/splits SAVE=$out/saved > $out/output.txt 2>&1
echo "rc $?" >> $out/clock.txt; date -u +%T >> $out/clock.txt
one sst5 200 macro_f1
