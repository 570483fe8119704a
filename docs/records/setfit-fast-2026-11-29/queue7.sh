#!/bin/bash
# after the fresh clone's CI: the fast body at SST-2 n = 1000 as make advise runs it (no --num-iterations:
# 40 epochs, 1,280 steps), seed 1, at its default rate 1e-5 and at 2e-5
cd /work/main
while ! grep -q "^rc " /tmp/q/ci.log; do sleep 10; done
run=".venv/bin/python freeze_study.py --model minilm --cache-dir /tmp/q/cache --splits-dir /tmp/q/splits --quiet --precision fp32 --glue-dir ../shared/glue --dataset sst2 --method setfit-fast --size 1000 --freeze 0 --seed 1"
echo "$(date -u +%T) fast n=1000 40 epochs, its default rate (1e-5), seed 1"
$run --out /tmp/q/runs/q9-fast-sst2-40epochs/freeze0_size1000_seed1_setfit-fast.json
echo "$(date -u +%T) fast n=1000 40 epochs lr=2e-5 seed=1"
$run --lr 2e-5 --out /tmp/q/runs/q9-fast-sst2-40epochs/freeze0_size1000_seed1_lr2e-5_setfit-fast.json
echo "$(date -u +%T) done"
