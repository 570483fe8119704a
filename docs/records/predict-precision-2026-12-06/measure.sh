#!/bin/bash
# A bf16 run of each method on 100 of TweetEval emotion's tweets (minilm, seed 1), kept with --save and
# scored on test.csv as it ended; then predict.py labels test.csv with the kept model, and the two
# accuracies are printed side by side. Run from the project's root: bash docs/records/predict-precision-2026-12-06/measure.sh
T=${T:-../shared/tasks/emotion}; OUT=${OUT:-/tmp/pp}; mkdir -p $OUT
for spec in "setfit-fast 0" "finetune 2" "lora 2" "probe 6" "bitfit 2"; do
  set -- $spec; m=$1; k=$2
  .venv/bin/python freeze_study.py --model minilm --method $m --freeze $k --size 100 --seed 1 --train-file $T/train.csv \
    --dev-file $T/dev.csv --test-file $T/test.csv --out $OUT/$m.json --cache-dir $OUT/cache --splits-dir $OUT/splits \
    --save $OUT/saved-$m --quiet --precision bf16 > $OUT/$m.log 2>&1
  .venv/bin/python predict.py --model $OUT/saved-$m --input $T/test.csv --out $OUT/$m-labelled.csv > /dev/null
  .venv/bin/python - $OUT $m <<'PY'
import csv, json, sys
out, m = sys.argv[1:]
rows = list(csv.DictReader(open(f"{out}/{m}-labelled.csv")))
acc = sum(r["prediction"] == r["label"] for r in rows) / len(rows)
run = json.load(open(f"{out}/{m}.json"))
print(m, "run's test accuracy", round(run["test_at_score"]["accuracy"], 4), "predict.py", round(acc, 4), "rows", len(rows))
PY
done
