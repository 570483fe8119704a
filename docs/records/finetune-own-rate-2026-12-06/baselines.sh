#!/bin/bash
# What a user would run alone on the searches' 50 examples: SetFit fast at its defaults (k = 0, its
# rate), seeds 1-5, each scoring test.csv as it ends; then the test mean of each.
#   bash baselines.sh OUT TREE
set -u
OUT=$1 TREE=$2
SHARED=${SHARED:-$(cd "$TREE/.." && pwd)/shared}
cd $TREE
for task in counterfactual emotion sst5; do
  T=$SHARED/tasks/$task
  for seed in 1 2 3 4 5; do
    out=$OUT/baselines/$task/freeze0_size50_seed${seed}_setfit-fast.json
    [ -e $out ] || .venv/bin/python freeze_study.py --model minilm --method setfit-fast --freeze 0 --size 50 --seed $seed \
      --train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv --text-column text --metric macro_f1 \
      --cache-dir $OUT/cache-after --splits-dir $OUT/splits-$task --out $out --quiet | tail -1
  done
  .venv/bin/python -c "
import glob, json, sys, numpy as np
s = [json.load(open(f))['test_at_score']['macro_f1'] for f in glob.glob('$OUT/baselines/$task/*.json')]
print('$task: SetFit fast defaults on test.csv %.3f +- %.3f (%d seeds)' % (np.mean(s), np.std(s, ddof=1) / len(s) ** 0.5, len(s)))"
done
