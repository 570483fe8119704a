#!/bin/bash
# SetFit fast at its defaults (k = 0, its own rate at n), the anchor make advise keeps unless the best
# gains on dev, on the same examples and this machine as alone.sh's runs, each scoring test.csv.
#   bash fast.sh OUT TREE SIZE "SEEDS" [tasks...]      (RATE=2e-5: at that rate, not its own)
set -u
OUT=$1 TREE=$2 SIZE=$3 SEEDS=$4; shift 4
TASKS=${*:-sst5}
SHARED=${SHARED:-$(cd "$TREE/.." && pwd)/shared}
cd $TREE
export OMP_NUM_THREADS=1
for task in $TASKS; do
  T=$SHARED/tasks/$task
  for seed in $SEEDS; do
    out=$OUT/fast/$task/freeze0_size${SIZE}_seed${seed}${RATE:+_lr$RATE}_setfit-fast.json
    [ -e $out ] || echo .venv/bin/python freeze_study.py --model minilm --method setfit-fast ${RATE:+--lr $RATE} --freeze 0 --size $SIZE \
      --seed $seed --train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv --text-column text \
      --metric macro_f1 --cache-dir $OUT/cache --splits-dir $OUT/splits-$task --out $out --quiet
  done
done | xargs -P 2 -I{} sh -c '{} | tail -1'
