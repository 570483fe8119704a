#!/bin/bash
# this session's queue, from a checkout at fee5ac9 (the default-precision fix; the search code as at 843622a): SST-5 and CLINC150 from one file, and CLINC150's baseline
S=/work/shared/tasks; F=/tmp/q/files; cd /tmp/q/code
one() {  # name n metric budget
  out=/tmp/q/one-$1; mkdir -p $out; date -u +%T > $out/clock.txt
  make advise -j 2 DATASET=$1 MODEL=minilm TRAIN_FILE=$F/$1/labelled$2.csv RUN_FLAGS="--text-column text" \
    SIZE=$2 BUDGET=$4 METRIC=$3 TEST_FILE=$S/$1/test.csv \
    RESULTS=$out/results CACHE_DIR=/tmp/q/cache SPLITS_DIR=$out/splits SAVE=$out/saved > $out/output.txt 2>&1
  echo "rc $?" >> $out/clock.txt; date -u +%T >> $out/clock.txt
}
one sst5 200 macro_f1 1
out=/tmp/q/base-clinc150; mkdir -p $out/setfit; date -u +%T > $out/clock.txt
for s in 1 2 3; do echo $s; done | xargs -P 2 -I{} sh -c "OMP_NUM_THREADS=1 .venv/bin/python freeze_study.py --model minilm --train-file $F/clinc150/labelled750.csv --dev-file $S/clinc150/test.csv \
      --text-column text --metric accuracy --evaluations last --method setfit-fast --freeze 0 --size 750 --seed {} \
      --splits-dir $out/splits --cache-dir /tmp/q/cache --out $out/setfit/seed{}.json --quiet > $out/setfit/seed{}.txt 2>&1"
date -u +%T >> $out/clock.txt
one clinc150 750 accuracy 1
