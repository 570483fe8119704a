#!/bin/bash
# the probe on CLINC150 at n = 750: the block preconditioner (5ff9bca) against the least-sure one (main), one after another
T=/work/shared/tasks/clinc150
OUT=/work/main/docs/records/probe-clinc-2026-11-28
mkdir -p $OUT
for round in 1 2; do
for which in /tmp/q/wt:block /work/main:least-sure; do
  dir=${which%%:*}; name=${which##*:}
  cd $dir
  /work/main/.venv/bin/python freeze_study.py --model minilm --method probe --freeze 6 --size 750 --seed 1 --precision fp32 \
    --train-file $T/train.csv --dev-file $T/dev.csv --dataset clinc150 --text-column text \
    --cache-dir /tmp/q/probe/cache --splits-dir /tmp/q/probe/splits --out $OUT/$name-round$round.json --quiet
  /work/main/.venv/bin/python -c "
import json; r = json.load(open('$OUT/$name-round$round.json'))
print('$name', 'round $round', 'train s', round(r['seconds']['train'], 1), 'total s', round(r['seconds']['total'], 1), 'dev accuracy', round(r['score'], 4), 'C', r['probe']['C'])
"
done
done
