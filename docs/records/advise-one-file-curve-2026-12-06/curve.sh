#!/bin/bash
# For each search where the gain's pick and the margin's answer (SetFit fast's defaults) differed
# (records/advise-one-file-rules-2026-12-06, finals.txt): both cells' fold runs at four fifths and at
# three fifths of the rows (curve_run.py), folds 1-5, and their final models (--final, every label,
# seeds 1-3), each scored on test.csv too. Two runs at once, a thread each (as make advise -j 2).
# Data as that record's queue.sh made it, under /tmp/q/data; results under /tmp/lc/NAME-nN. Run from the project's root.
R=docs/records/advise-one-file-curve-2026-12-06
DEFAULTS="--method setfit-fast --freeze 0"
jobs() {  # name size metric pick-flags...
  name=$1; n=$2; metric=$3; shift 3; pick="$*"; T=/tmp/q/data/${name}; O=/tmp/lc/$name-n$n
  common="--model minilm --size $n --train-file $T/train.csv --test-file $T/test.csv --splits-dir $O/splits --cache-dir $O/cache --metric $metric --precision bf16 --quiet"  # bf16 named: a run measuring it beside another can find fp32 faster
  for which in pick defaults; do
    if [ $which = pick ]; then flags="$pick"; else flags="$DEFAULTS"; fi
    for fold in 1 2 3 4 5; do
      echo "$O/${which}_four_f$fold.json $flags $common --folds 5 --seed $fold"
      echo "$O/${which}_three_f$fold.json --drop-next-fold $flags $common --folds 5 --seed $fold"
    done
    for seed in 1 2 3; do
      echo "$O/final/${which}_final_s$seed.json $flags $common --seed $seed --final --evaluations last"  # a folder of its own: a cell's runs share their settings
    done
  done
}
{
  jobs sst2 50 accuracy --method lora --freeze 1 --lr 1e-2
  jobs counterfactual 50 macro_f1 --method probe --freeze 6
  jobs sst5 50 macro_f1 --method setfit-fast --freeze 2 --lr 5e-4
  jobs counterfactual-r2 100 macro_f1 --method setfit-fast --freeze 2 --lr 5e-4
  jobs sst5 100 macro_f1 --method setfit-fast --freeze 2 --lr 2e-4
} > /tmp/lc/jobs.txt
one() {  # out, then curve_run.py's options
  out=$1; shift; [ -f $out ] && return
  mkdir -p $(dirname $out)
  OMP_NUM_THREADS=1 .venv/bin/python $R/curve_run.py "$@" --out $out >> /tmp/lc/log 2>&1 || echo "failed: $out" >> /tmp/lc/failed.txt
}
export -f one; export R
xargs -P 2 -L 1 bash -c 'one "$@"' _ < /tmp/lc/jobs.txt
echo done >> /tmp/lc/failed.txt
