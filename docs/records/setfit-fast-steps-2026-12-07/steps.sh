#!/bin/bash
# SetFit fast with more body steps, on SST-5 (TASK) at n = 200 (minilm, k = 0): its share of the library's
# sentence passes 1 / SHARE instead of 1 / 8, and its caps (40 epochs, 400 steps) lifted, set for
# one run from outside (contrastive.FAST_SHARE, MOST_EPOCHS, MOST_STEPS: not options of the tool).
# The examples make advise's searches drew (alone.sh's OUT: its splits and cache); test.csv scored
# by each run as it ends. Two at once, one thread each. RATE: the run's rate (its own, 5e-5, if unset).
#   bash steps.sh OUT ALONE_OUT TREE SHARE "SEEDS"
set -u
OUT=$1 ALONE=$2 TREE=$3 SHARE=$4 SEEDS=$5
RATE=${RATE:-}
SHARED=${SHARED:-$(cd "$TREE/.." && pwd)/shared}
TASK=${TASK:-sst5}
T=$SHARED/tasks/$TASK
cd $TREE
export OMP_NUM_THREADS=1
patched="import contrastive, runpy, sys; contrastive.FAST_SHARE = $SHARE; contrastive.MOST_EPOCHS = contrastive.MOST_STEPS = 10 ** 9; \
sys.argv = ['freeze_study.py'] + sys.argv[1:]; runpy.run_path('freeze_study.py', run_name='__main__')"
for seed in $SEEDS; do
  out=$OUT/share$SHARE/freeze0_size200_seed$seed${RATE:+_lr$RATE}_setfit-fast.json
  [ -e $out ] || echo ".venv/bin/python -c \"$patched\" --model minilm --method setfit-fast ${RATE:+--lr $RATE} --freeze 0 \
--size 200 --seed $seed --train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv --text-column text \
--metric macro_f1 --cache-dir $ALONE/cache --splits-dir $ALONE/splits-$TASK --out $out --quiet"
done | xargs -P 2 -d '\n' -I{} bash -c '{} 2>&1 | tail -1'
