#!/usr/bin/env bash
# one search from an empty folder at a checkout, its wall clock in seconds
set -u
tree=$1; name=$2; T=/work/shared/tasks/counterfactual
cd $tree
start=$(date +%s)
make advise DATASET=cf-sbs MODEL=minilm TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv TEST_FILE=$T/test.csv \
  SIZE=100 METHODS="setfit-fast probe" RESULTS=/tmp/sbs/$name/res SAVE=/tmp/sbs/$name/saved \
  CACHE_DIR=/tmp/sbs/$name/cache SPLITS_DIR=/tmp/sbs/splits -j 2 > /tmp/sbs/$name.log 2>&1
echo "$name rc=$? seconds=$(( $(date +%s) - start ))" >> /tmp/sbs/times.txt
