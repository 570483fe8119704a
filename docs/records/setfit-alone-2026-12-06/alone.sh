#!/bin/bash
# What a user gets alone: one run of SetFit at the setfit library's own defaults (1.2.0: every pair,
# oversampled, one epoch, batch 16, body rate 2e-5, scikit-learn's LogisticRegression head; this
# tool's `--method setfit --lr 2e-5`, docs/protocol.md), k = 0, on the same examples make advise's
# searches drew (the subset at n is fixed by the file and n: data.make_subsets), each run scoring
# test.csv as it ends. Two at once, one thread each. METHOD=setfit-fast: SetFit fast at its own
# rate instead (the anchor make advise keeps unless the best gains on dev), or at RATE's. MODEL: the
# checkpoint (minilm unless set; mpnet's runs of 2026-12-07).
#   bash alone.sh OUT TREE SIZE "SEEDS" [tasks...]
set -u
OUT=$1 TREE=$2 SIZE=$3 SEEDS=$4; shift 4
TASKS=${*:-counterfactual emotion sst5}
METHOD=${METHOD:-setfit}
MODEL=${MODEL:-minilm}
if [ $METHOD = setfit ]; then RATE=${RATE:-2e-5} folder=alone; else RATE=${RATE:-} folder=fast; fi
SHARED=${SHARED:-$(cd "$TREE/.." && pwd)/shared}
cd $TREE
export OMP_NUM_THREADS=1
name() { echo freeze0_size${SIZE}_seed$1${RATE:+_lr$RATE}_$METHOD.json; }
for task in $TASKS; do
  T=$SHARED/tasks/$task
  for seed in $SEEDS; do
    out=$OUT/$folder/$task/$(name $seed)
    [ -e $out ] || echo .venv/bin/python freeze_study.py --model $MODEL --method $METHOD ${RATE:+--lr $RATE} --freeze 0 \
      --size $SIZE --seed $seed --train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv --text-column text \
      --metric macro_f1 --cache-dir $OUT/cache --splits-dir $OUT/splits-$task --out $out --quiet
  done
done | xargs -P 2 -I{} sh -c '{} | tail -1'
for task in $TASKS; do
  .venv/bin/python -c "
import json, sys, numpy as np
runs = [json.load(open('$OUT/$folder/$task/' + name)) for name in sys.argv[1:]]
s = [r['test_at_score']['macro_f1'] for r in runs]
print('$task n = $SIZE: $METHOD ${RATE:-at its own rate} on test.csv %.3f +- %.3f (%d seeds: %s), %.0f s a run' % (
    np.mean(s), np.std(s, ddof=1) / len(s) ** 0.5, len(s), ' '.join('%.3f' % x for x in s),
    np.median([r['seconds']['total'] for r in runs])))" $(for seed in $SEEDS; do name $seed; done)
done
