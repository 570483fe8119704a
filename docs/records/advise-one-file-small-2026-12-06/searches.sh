#!/bin/bash
# one-file searches at small n, then the pick and SetFit fast's defaults each trained on every label (seeds 1-5), scored on test.csv
# (run in a clone of the project at 5ef9995; emotion at n = 100 ran before, at fe20e4e, as run_one emotion 100 makes it)
cd "${PROJECT:-.}"
run_one() {  # task size
  task=$1; n=$2; T=/work/shared/tasks/$task; O=/tmp/of2/$task-n$n
  mkdir -p $O
  /usr/bin/time -f "%e s" make advise -j 2 DATASET=$task MODEL=minilm TRAIN_FILE=$T/train.csv TEST_FILE=$T/test.csv SIZE=$n METRIC=macro_f1 \
    RESULTS=$O/results CACHE_DIR=$O/cache SPLITS_DIR=$O/splits SAVE=$O/saved > $O/log 2>&1
  pick=$(.venv/bin/python -c "
import json;c=json.load(open('$O/saved.json'))['config']
flags=['--freeze',str(c['freeze'])]+(['--method',c['method']] if c['method']!='finetune' else [])+(['--lr',str(c['lr'])] if c.get('lr') else [])
print(' '.join(flags))")
  echo "$task n=$n pick: $pick" >> /tmp/of2/summary.txt
  for seed in 1 2 3 4 5; do
    for which in pick defaults; do
      if [ $which = pick ]; then flags="$pick"; else flags="--method setfit-fast --freeze 0"; fi
      .venv/bin/python freeze_study.py --model minilm $flags --size $n --seed $seed --final --evaluations last \
        --train-file $T/train.csv --test-file $T/test.csv --splits-dir $O/splits --cache-dir $O/cache --metric macro_f1 \
        --out $O/final/${which}_s$seed.json --quiet >> $O/final.log 2>&1
    done
  done
}
run_one counterfactual 100
run_one sst5 100
run_one emotion 50
run_one counterfactual 50
echo done >> /tmp/of2/summary.txt
