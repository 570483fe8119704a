#!/bin/bash
# after queue4.sh: the fast body at SST-2 n = 1000 (NUM_ITERATIONS=20, as the grid's library runs) at 5e-5 and 2e-5, seeds 1-3
cd /work/main
while pgrep -f /tmp/q/queue4.sh > /dev/null; do sleep 10; done
for lr in 5e-5 2e-5; do for seed in 1 2 3; do
  echo "$(date -u +%T) fast n=1000 lr=$lr seed=$seed"
  .venv/bin/python freeze_study.py --model minilm --cache-dir /tmp/q/cache --splits-dir /tmp/q/splits --quiet --precision fp32 \
    --glue-dir ../shared/glue --dataset sst2 --method setfit-fast --size 1000 --freeze 0 --seed $seed --num-iterations 20 --lr $lr \
    --out /tmp/q/runs/q9-fast-sst2-it20-lr$lr/freeze0_size1000_seed${seed}_lr${lr}_setfit-fast.json
done; done
echo "$(date -u +%T) done"
