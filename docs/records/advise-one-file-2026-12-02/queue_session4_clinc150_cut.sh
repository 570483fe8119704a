#!/bin/bash
# CLINC150's 750 rows cut 562/188 (train-part, dev-part of make_files.py): the search given a dev file,
# beside the one-file search on all 750. Code at 5975ccb.
S=/work/shared/tasks; F=/tmp/q/files; cd /tmp/q/code
out=/tmp/q/cut-clinc150; mkdir -p $out; date -u +%T > $out/clock.txt
make advise -j 2 DATASET=clinc150 MODEL=minilm TRAIN_FILE=$F/clinc150/train-part.csv DEV_FILE=$F/clinc150/dev-part.csv \
  RUN_FLAGS="--text-column text" SIZE=562 BUDGET=1 METRIC=accuracy TEST_FILE=$S/clinc150/test.csv \
  RESULTS=$out/results CACHE_DIR=/tmp/q/cache SPLITS_DIR=$out/splits SAVE=$out/saved > $out/output.txt 2>&1
echo "rc $?" >> $out/clock.txt; date -u +%T >> $out/clock.txt
