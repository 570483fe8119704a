#!/bin/bash
# SetFit fast at the tool's defaults (TIMES=1), or its body trained TIMES times its steps (contrastive.fast_steps
# wrapped for these runs only: not an option of the tool), on GLUE's DATASET at n = SIZE (minilm, k = 0), or a
# task of ../shared/tasks (TASK, read by accuracy, its test.csv scored too), at RATE (the method's own at n if
# unset); the dev split scored as each run ends. Two at once, a thread each.
#   DATASET=cola SIZE=200 [RATE=2e-5] bash fit.sh TREE OUT TIMES "SEEDS"
#   TASK=clinc150 SIZE=750 bash fit.sh TREE OUT TIMES "SEEDS"
set -u
TREE=$1 OUT=$2 TIMES=$3 SEEDS=$4
RATE=${RATE:-} SIZE=${SIZE:-500} DATASET=${DATASET:-sst2} TASK=${TASK:-}
SHARED=${SHARED:-$(cd "$TREE/.." && pwd)/shared}
files="--dataset $DATASET --glue-dir $SHARED/glue"
if [ -n "$TASK" ]; then
  T=$SHARED/tasks/$TASK DATASET=$TASK
  files="--train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv --text-column text --metric accuracy"
fi
cd $TREE
export OMP_NUM_THREADS=1
patched="import contrastive, runpy, sys; steps = contrastive.fast_steps; contrastive.fast_steps = lambda *a, **k: $TIMES * steps(*a, **k); \
sys.argv = ['freeze_study.py'] + sys.argv[1:]; runpy.run_path('freeze_study.py', run_name='__main__')"
for seed in $SEEDS; do
  out=$OUT/$DATASET/times$TIMES/freeze0_size${SIZE}_seed$seed${RATE:+_lr$RATE}_setfit-fast.json
  [ -e $out ] || echo ".venv/bin/python -c \"$patched\" --model minilm --method setfit-fast ${RATE:+--lr $RATE} --freeze 0 \
--size $SIZE --seed $seed $files --cache-dir $OUT/cache --splits-dir $OUT/splits --out $out --quiet"
done | xargs -P 2 -d '\n' -I{} bash -c '{} 2>&1 | tail -1'
