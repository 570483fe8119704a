#!/bin/bash
# What a user gets alone: one run of SetFit at the setfit library's own defaults (1.2.0: every pair,
# oversampled, one epoch, batch 16, body rate 2e-5, scikit-learn's LogisticRegression head; this
# tool's `--method setfit --lr 2e-5`, docs/protocol.md), k = 0, on the same examples make advise's
# searches drew (the subset at n is fixed by the file and n: data.make_subsets), each run scoring
# test.csv as it ends. Two at once, one thread each.
#   bash alone.sh OUT TREE SIZE "SEEDS" [tasks...]
set -u
OUT=$1 TREE=$2 SIZE=$3 SEEDS=$4; shift 4
TASKS=${*:-counterfactual emotion sst5}
SHARED=${SHARED:-$(cd "$TREE/.." && pwd)/shared}
cd $TREE
export OMP_NUM_THREADS=1
for task in $TASKS; do
  T=$SHARED/tasks/$task
  for seed in $SEEDS; do
    out=$OUT/alone/$task/freeze0_size${SIZE}_seed${seed}_lr2e-5_setfit.json
    [ -e $out ] || echo .venv/bin/python freeze_study.py --model minilm --method setfit --lr 2e-5 --freeze 0 --size $SIZE \
      --seed $seed --train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv --text-column text \
      --metric macro_f1 --cache-dir $OUT/cache --splits-dir $OUT/splits-$task --out $out --quiet
  done
done | xargs -P 2 -I{} sh -c '{} | tail -1'
for task in $TASKS; do
  .venv/bin/python -c "
import glob, json, numpy as np
runs = [json.load(open(f)) for f in sorted(glob.glob('$OUT/alone/$task/*size${SIZE}_*.json'))]
s = [r['test_at_score']['macro_f1'] for r in runs]
print('$task n = $SIZE: SetFit at the library defaults on test.csv %.3f +- %.3f (%d seeds: %s), %.0f s a run' % (
    np.mean(s), np.std(s, ddof=1) / len(s) ** 0.5, len(s), ' '.join('%.3f' % x for x in s),
    np.median([r['seconds']['total'] for r in runs])))"
done
