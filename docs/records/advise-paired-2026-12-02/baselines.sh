#!/bin/bash
# usage: baselines.sh OUT TASKDIR SIZE METRIC: SetFit fast and the recipe at k = 0 (seeds 1-3) and the probe,
# each at its defaults, scored on the task's test file; a run the search already made is not made again
cd /tmp/q/new
OUT=$1; T=$2; SIZE=$3; METRIC=$4
mkdir -p $OUT/baselines
run() {  # method freeze seed name
  name=$4
  [ -f $OUT/results/$name ] && { echo "$name: the search's"; return; }
  [ -f $OUT/baselines/$name ] && { echo "$name: made"; return; }
  .venv/bin/python freeze_study.py --model minilm --train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv \
    --text-column text --metric $METRIC --evaluations last --method $1 --freeze $2 --size $SIZE --seed $3 \
    --splits-dir $OUT/splits --cache-dir $OUT/cache --out $OUT/baselines/$name --quiet | tail -1
}
export -f run
{
  for s in 1 2 3; do echo "setfit-fast 0 $s freeze0_size${SIZE}_seed${s}_setfit-fast.json"; echo "finetune 0 $s freeze0_size${SIZE}_seed${s}.json"; done
  echo "probe 6 1 freeze6_size${SIZE}_seed1_probe.json"
} | OUT=$OUT T=$T SIZE=$SIZE METRIC=$METRIC xargs -P 2 -L 1 bash -c 'OUT='$OUT' T='$T' SIZE='$SIZE' METRIC='$METRIC' run "$@"' _
