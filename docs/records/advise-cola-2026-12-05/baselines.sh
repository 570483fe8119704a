#!/bin/bash
# usage: baselines.sh OUT: the defaults a user would run alone on CoLA's CSVs (bench/glue_as_csv),
# SetFit fast and the recipe's fine-tune at k = 0 (seeds 1-3) and the probe, each at its defaults,
# n = 200, scored on OUT/test.csv as they end; a run the search already made is not made again.
# Run from the project's top level.
OUT=$1
mkdir -p $OUT/baselines
run() {  # method freeze seed name
  [ -f $OUT/res/$4 ] && { echo "$4: the search's"; return; }
  [ -f $OUT/baselines/$4 ] && { echo "$4: made"; return; }
  .venv/bin/python freeze_study.py --model minilm --train-file $OUT/train.csv --dev-file $OUT/dev.csv \
    --test-file $OUT/test.csv --metric mcc --evaluations last --method $1 --freeze $2 --size 200 --seed $3 \
    --splits-dir $OUT/splits --cache-dir $OUT/cache --out $OUT/baselines/$4 --quiet | tail -1
}
for s in 1 2 3; do
  run setfit-fast 0 $s freeze0_size200_seed${s}_setfit-fast.json
  run finetune 0 $s freeze0_size200_seed${s}.json
done
run probe 6 1 freeze6_size200_seed1_probe.json
