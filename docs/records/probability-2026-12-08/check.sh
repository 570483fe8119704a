#!/usr/bin/env bash
# The record's figures: three models kept from the same 50 emotion tweets (the notebook journey of
# 2026-12-08's search: its pick, SetFit fast at k = 0 and 5e-4, seed 2, the model it kept; the
# best cell on its dev split, the fine-tune at k = 1 and 5e-4, seed 1; the probe), each labelling
# the test file with predict.py, read by quarters of probability.
# Run from the project's top level: bash docs/records/probability-2026-12-08/check.sh /tmp/prob
set -euo pipefail
W=${1:?a scratch folder}; T=../shared/tasks/emotion; HERE=docs/records/probability-2026-12-08
mkdir -p "$W"
while read -r name flags; do
  .venv/bin/python freeze_study.py --model minilm $flags --train-file $T/train.csv --dev-file $T/dev.csv \
    --test-file $T/test.csv --metric macro_f1 --size 50 --evaluations last --cache-dir "$W/cache" \
    --splits-dir "$W/splits" --save "$W/$name" --out "$W/$name.json" --quiet
  .venv/bin/python predict.py --model "$W/$name" --input $T/test.csv --label-column label --out "$W/$name.csv" --overwrite
  .venv/bin/python $HERE/quarters.py "$W/$name.csv"
done <<'RUNS'
setfit-fast --method setfit-fast --seed 2
finetune --freeze 1 --lr 5e-4 --seed 1
probe --method probe --seed 1
RUNS
