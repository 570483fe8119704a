#!/usr/bin/env bash
# The record's figures: the kept model of the notebook journey of 2026-12-08 (SetFit fast, k = 0, its
# rate 5e-4, seed 2, 50 emotion tweets) trained again, then predict.py on the test file.
# Run from the project's top level: bash docs/records/probability-2026-12-08/check.sh /tmp/prob
set -euo pipefail
W=${1:?a scratch folder}; T=../shared/tasks/emotion; HERE=docs/records/probability-2026-12-08
mkdir -p "$W"
.venv/bin/python freeze_study.py --model minilm --method setfit-fast --train-file $T/train.csv --dev-file $T/dev.csv \
  --test-file $T/test.csv --metric macro_f1 --size 50 --seed 2 --evaluations last --cache-dir "$W/cache" \
  --splits-dir "$W/splits" --save "$W/saved" --out "$W/run.json" --quiet
.venv/bin/python predict.py --model "$W/saved" --input $T/test.csv --label-column label --out "$W/labelled.csv" --overwrite
.venv/bin/python $HERE/quarters.py "$W/labelled.csv"
