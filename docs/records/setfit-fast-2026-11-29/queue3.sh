#!/bin/bash
# after queue.sh: CLINC150 n = 750, k = 4, seed 1, the fast body capped at 40 and 20 epochs; then the
# library body at SST-2 n = 500 seed 1 here, and the fast body's seed 1 again beside it
cd /work/main
while pgrep -f /tmp/q/queue.sh > /dev/null; do sleep 10; done
T=/work/shared/tasks/clinc150
for cap in 40 20; do
  echo "$(date -u +%T) clinc n=750 k=4 seed=1 cap=$cap"
  .venv/bin/python /tmp/q/capped.py $cap --model minilm --method setfit-fast --dataset clinc150 --train-file $T/train.csv --dev-file $T/dev.csv \
    --text-column text --size 750 --freeze 4 --seed 1 --precision fp32 --evaluations last --cache-dir /tmp/q/clinc-cache \
    --splits-dir /tmp/q/clinc-splits --quiet --out /tmp/q/runs/q9-clinc-cap$cap/freeze4_size750_seed1_setfit-fast.json
done
run=".venv/bin/python freeze_study.py --model minilm --cache-dir /tmp/q/cache --splits-dir /tmp/q/splits --quiet --precision fp32 --glue-dir ../shared/glue --dataset sst2 --size 500 --freeze 0 --seed 1 --num-iterations 20"
echo "$(date -u +%T) library n=500 seed=1"
$run --method setfit --lr 1e-5 --out /tmp/q/runs/q9-library-sst2-it20/freeze0_size500_seed1_setfit.json
echo "$(date -u +%T) fast n=500 seed=1 again"
$run --method setfit-fast --out /tmp/q/runs/q9-fast-sst2-it20-quiet/freeze0_size500_seed1_setfit-fast.json
echo "$(date -u +%T) done"
