#!/bin/bash
# usage: bash baselines.sh OUT: the defaults a user runs alone, seeds 1-3, beside a make advise folder
# (OUT/results): SetFit fast and the recipe's fine-tune at k = 0, each at its own rate, scored on
# test.csv; a run the search made is read from OUT/results, the others made in OUT/baselines.
cd "$(dirname "$0")/../../.."
OUT=$1; T=${T:-../shared/tasks/clinc150}; SIZE=${SIZE:-300}
mkdir -p $OUT/baselines
for s in 1 2 3; do
  for method in setfit-fast finetune; do
    name=freeze0_size${SIZE}_seed${s}$([ $method = finetune ] || echo _$method).json
    [ -f $OUT/results/$name ] && continue
    echo "--method $method --seed $s --out $OUT/baselines/$name"
  done
done | xargs -P 2 -L 1 .venv/bin/python freeze_study.py --model minilm --train-file $T/train.csv --dev-file $T/dev.csv \
  --test-file $T/test.csv --text-column text --metric accuracy --evaluations last --freeze 0 --size $SIZE \
  --splits-dir $OUT/splits --cache-dir $OUT/cache --quiet
