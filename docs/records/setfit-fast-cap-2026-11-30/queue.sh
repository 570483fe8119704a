#!/bin/bash
# SetFit fast at SST-2 n = 500 and 1000 (minilm, k = 0, fp32): today's 40 epochs against about 400 steps
# (set through --num-iterations, which fixes the fast body's steps: n=1000 26 -> 407 steps, n=500 51 -> 399),
# two lanes, one thread each, seeds 1-3 (seed 1 at n=1000 40 epochs 1e-5 is in records/setfit-fast-2026-11-29)
cd /work/main
run() { out=$1; shift; echo "$(date -u +%T) start $out"; OMP_NUM_THREADS=1 .venv/bin/python freeze_study.py --model minilm \
  --cache-dir /tmp/q/cap/cache --quiet --precision fp32 --glue-dir ../shared/glue --dataset sst2 --method setfit-fast \
  --freeze 0 --evaluations last "$@" --out /tmp/q/cap/runs/$out.json > /tmp/q/cap/runs/$out.log 2>&1; echo "$(date -u +%T) end $out rc=$?"; }
laneA() {
  for s in 2 3; do run n1000-e40-lr1e-5-s$s --size 1000 --seed $s; done
  for s in 1 2 3; do run n500-cap-lr1e-5-s$s --size 500 --seed $s --num-iterations 51; done
}
laneB() {
  for s in 1 2 3; do for lr in 1e-5 2e-5; do run n1000-cap-lr$lr-s$s --size 1000 --seed $s --num-iterations 26 --lr $lr; done; done
  for s in 1 2 3; do run n500-e40-lr1e-5-s$s --size 500 --seed $s; done
}
laneA > /tmp/q/cap/laneA.log 2>&1 &
laneB > /tmp/q/cap/laneB.log 2>&1 &
wait
echo "$(date -u +%T) all done"
