#!/bin/bash
# SetFit fast on mpnet, SST-2 n = 50, k = 6 (the library's second depth), three rates x seeds 1-3, 2 at once
cd /work/main
OUT=/tmp/q/mpnet50
mkdir -p $OUT
for lr in 5e-5 1e-4 2e-4; do for seed in 1 2 3; do
  echo ".venv/bin/python freeze_study.py --model mpnet --glue-dir ../shared/glue --dataset sst2 --size 50 --freeze 6 --seed $seed --method setfit-fast --lr $lr --precision fp32 --evaluations last --quiet --splits-dir $OUT/splits --cache-dir $OUT/cache --out $OUT/runs/k6_lr${lr}_seed$seed.json"
done; done > $OUT/commands.txt
date -u +"start %H:%M:%S"
OMP_NUM_THREADS=1 xargs -P 2 -I{} -d '\n' bash -c '{} > /dev/null 2>> '$OUT'/errors.txt' < $OUT/commands.txt
date -u +"end %H:%M:%S"
