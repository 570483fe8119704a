#!/bin/bash
# Where the pick is not the defaults (emotion and counterfactual at n = 50), the defaults trained
# on every label too: SetFit fast at k = 0 and its rate at n = 50 (5e-4), seed 1, --final on the
# same 50 examples (the search's subsets) and dev.csv, scored on test.csv, as make advise's final
# model is trained. Run from the project's root after final.sh:
#
#     bash docs/records/advise-n300-final-2026-12-06/final_anchor.sh /tmp/final > final_anchor.txt
set -u
root=$1
for pair in emotion:/tmp/n100/emotion-n50 counterfactual:/tmp/n100/counterfactual-n50; do
  task=${pair%%:*} search=${pair#*:} t=../shared/tasks/${pair%%:*}
  mkdir -p $root/anchors/$task
  .venv/bin/python freeze_study.py --model minilm --train-file $t/train.csv --dev-file $t/dev.csv \
    --test-file $t/test.csv --text-column text --metric macro_f1 --size 50 --seed 1 --method setfit-fast \
    --freeze 0 --lr 5e-4 --final --evaluations last --splits-dir $search/splits --cache-dir $search/cache \
    --out $root/anchors/$task/n50.json --quiet | sed "s/^/$task n=50 the defaults, final: /"
done
