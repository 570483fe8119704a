#!/bin/bash
# one CPU-heavy queue: the fast body at n = 500 and 1000 (NUM_ITERATIONS=20, as the grid's library runs), then the library on emotion seed 3
cd /work/main
run=".venv/bin/python freeze_study.py --model minilm --cache-dir /tmp/q/cache --splits-dir /tmp/q/splits --quiet --precision fp32"
for n in 500 1000; do for seed in 1 2 3; do
  echo "$(date -u +%T) fast n=$n seed=$seed"
  $run --glue-dir ../shared/glue --dataset sst2 --method setfit-fast --size $n --freeze 0 --seed $seed --num-iterations 20 \
    --out /tmp/q/runs/q9-fast-sst2-it20/freeze0_size${n}_seed${seed}_setfit-fast.json
done; done
T=../shared/tasks/emotion
echo "$(date -u +%T) library emotion seed 3"
$run --dataset emotion --train-file $T/train.csv --dev-file $T/test.csv --text-column text --metric macro_f1 \
  --method setfit --lr 1e-5 --freeze 0 --size 200 --seed 3 --evaluations last --splits-dir /tmp/q/emo-splits \
  --out /tmp/q/runs/q9-library-emotion/freeze0_size200_seed3_setfit.json
echo "$(date -u +%T) done"
