#!/bin/bash
# after queue5.sh: CLINC150 n = 300 (2 per intent), k = 4, seeds 1-3, the fast body capped at 40 epochs
# (its row in findings-setfit-fast.md ran 70 epochs: 0.771 against the library's 0.765), scored on test.csv as that row was
cd /work/main
while pgrep -f /tmp/q/queue5.sh > /dev/null; do sleep 10; done
T=/work/shared/tasks/clinc150
for seed in 1 2 3; do
  echo "$(date -u +%T) clinc n=300 k=4 seed=$seed cap=40"
  .venv/bin/python /tmp/q/capped.py 40 --model minilm --method setfit-fast --dataset clinc150 --train-file $T/train.csv --dev-file $T/test.csv \
    --text-column text --size 300 --freeze 4 --seed $seed --lr 1e-5 --precision fp32 --cache-dir /tmp/q/clinc-cache \
    --splits-dir /tmp/q/clinc-splits --quiet --out /tmp/q/runs/q9-clinc300-cap40/freeze4_size300_seed${seed}_lr1e-5_setfit-fast.json
done
echo "$(date -u +%T) done"
