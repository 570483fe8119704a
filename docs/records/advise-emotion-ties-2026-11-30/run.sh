cd /work/main
T=../shared/tasks/emotion; OUT=/tmp/q/emo17
date -u +%T > $OUT/clock.txt
make advise -j 2 DATASET=emotion MODEL=minilm TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv RUN_FLAGS="--text-column text" \
  SIZE=200 BUDGET=2 METRIC=macro_f1 TEST_FILE=$T/test.csv PRECISION=fp32 \
  RESULTS=$OUT/results CACHE_DIR=$OUT/cache SPLITS_DIR=$OUT/splits SAVE=$OUT/saved > $OUT/output.txt 2>&1
echo "rc $?" >> $OUT/clock.txt
date -u +%T >> $OUT/clock.txt
