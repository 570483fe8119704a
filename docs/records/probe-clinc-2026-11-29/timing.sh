#!/bin/bash
# the probe on CLINC150 at n = 750: main before (fc13d21, conjugate gradients in the features' basis,
# 32 least-sure examples a class) against after (the whitened basis, 16), one after another, twice
T=/work/shared/tasks/clinc150
OUT=/work/main/docs/records/probe-clinc-2026-11-29
for round in 1 2; do
for which in /tmp/q/wt:before /work/main:after; do
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
