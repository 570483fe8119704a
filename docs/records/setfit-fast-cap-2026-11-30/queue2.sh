#!/bin/bash
# after queue.sh: its runs that a shared folder refused (each variant now a folder of its own); then n = 500
# capped at 2e-5, n = 500 at 20 pairings at 2e-5 (the grids' setting there), CLINC150 n = 750 k = 4 capped
# (--num-iterations 34 -> 399 steps) at 2e-5 against 40 epochs at 1e-5 (today's default; seed 1 in
# records/setfit-fast-2026-11-29)
cd /work/main
while pgrep -f /tmp/q/cap/queue.sh > /dev/null; do sleep 10; done
T=/work/shared/tasks/clinc150
run() { v=$1; s=$2; shift 2; mkdir -p /tmp/q/cap/runs/$v; echo "$(date -u +%T) start $v-s$s"; OMP_NUM_THREADS=1 .venv/bin/python freeze_study.py --model minilm \
  --cache-dir /tmp/q/cap/cache --quiet --precision fp32 --method setfit-fast --evaluations last --seed $s "$@" \
  --out /tmp/q/cap/runs/$v/$v-s$s.json > /tmp/q/cap/runs/$v/$v-s$s.log 2>&1; echo "$(date -u +%T) end $v-s$s rc=$?"; }
sst() { run "$@" --glue-dir ../shared/glue --dataset sst2 --freeze 0; }
clinc() { run "$@" --dataset clinc150 --train-file $T/train.csv --dev-file $T/dev.csv --text-column text --size 750 \
  --freeze 4 --splits-dir /tmp/q/cap/clinc-splits; }
laneA() {
  sst n1000-e40-lr1e-5 3 --size 1000
  for s in 1 2 3; do sst n500-e40-lr1e-5 $s --size 500; done
  for s in 2 3; do clinc clinc-e40-lr1e-5 $s; done
}
laneB() {
  sst n1000-cap-lr1e-5 3 --size 1000 --num-iterations 26 --lr 1e-5
  for s in 1 2 3; do sst n500-it20-lr2e-5 $s --size 500 --num-iterations 20 --lr 2e-5; done
  for s in 1 2 3; do clinc clinc-cap-lr2e-5 $s --num-iterations 34 --lr 2e-5; done
  for s in 1 2 3; do sst n500-cap-lr2e-5 $s --size 500 --num-iterations 51 --lr 2e-5; done
}
laneA > /tmp/q/cap/laneA2.log 2>&1 &
laneB > /tmp/q/cap/laneB2.log 2>&1 &
wait
echo "$(date -u +%T) all done"
