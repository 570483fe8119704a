#!/bin/bash
# before the change (74a5c80): SetFit fast at its defaults on the N rows (3 seeds, scored on test.csv),
# then make advise given the same N as train-part and dev-part
S=/work/shared/tasks; F=/tmp/q/files; cd /tmp/q/base
for t in emotion:200:macro_f1 sst5:200:macro_f1 clinc150:750:accuracy; do
  name=${t%%:*}; rest=${t#*:}; n=${rest%%:*}; metric=${rest#*:}; out=/tmp/q/base-$name; mkdir -p $out/setfit
  for s in 1 2 3; do
    .venv/bin/python freeze_study.py --model minilm --train-file $F/$name/labelled$n.csv --dev-file $S/$name/test.csv \
      --text-column text --metric $metric --evaluations last --method setfit-fast --freeze 0 --size $n --seed $s \
      --splits-dir $out/splits --cache-dir /tmp/q/cache --out $out/setfit/seed$s.json --quiet | tail -1
  done > $out/setfit.txt 2>&1
  part=$((n*3/4))
  date -u +%T > $out/clock.txt
  make advise -j 2 DATASET=$name MODEL=minilm TRAIN_FILE=$F/$name/train-part.csv DEV_FILE=$F/$name/dev-part.csv \
    RUN_FLAGS="--text-column text" SIZE=$part BUDGET=2 METRIC=$metric TEST_FILE=$S/$name/test.csv \
    RESULTS=$out/results CACHE_DIR=/tmp/q/cache SPLITS_DIR=$out/splits SAVE=$out/saved > $out/output.txt 2>&1
  echo "rc $?" >> $out/clock.txt; date -u +%T >> $out/clock.txt
done
