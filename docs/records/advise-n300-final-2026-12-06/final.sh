#!/bin/bash
# FINAL=all beside the model make advise keeps without it, over finished searches' runs: each
# search's results folder copied twice, and the same make advise resumed in each copy (no search
# run is made again: the answer is decided), once as it keeps the pick (its seed best on dev,
# trained on the SIZE examples) and once with FINAL=all (the pick trained on the SIZE examples and
# dev.csv together). The code at 223f14f. Run from the project's root:
#
#     bash docs/records/advise-n300-final-2026-12-06/final.sh /tmp/final > final.txt
set -u
root=$1
one() {  # name task size the search's folder (results, cache, splits), its tasks' folder as the search named it
  local t=$5/$2
  for mode in keep all; do
    local out=$root/$1/$mode began=$SECONDS
    rm -rf $out; mkdir -p $out; cp -a $4/results $out/results
    make advise -j 2 DATASET=$2 MODEL=minilm TRAIN_FILE=$t/train.csv DEV_FILE=$t/dev.csv TEST_FILE=$t/test.csv \
      RUN_FLAGS="--text-column text" SIZE=$3 BUDGET=2 METRIC=macro_f1 RESULTS=$out/results CACHE_DIR=$4/cache \
      SPLITS_DIR=$4/splits SAVE=$out/saved $([ $mode = all ] && echo FINAL=all) > $out.log 2>&1
    echo "$1 $mode rc=$? $((SECONDS - began)) s: $(grep -h 'advise: decided' $out.log)"
  done
}
# the searches of records/advise-bbc-rule-2026-12-06 (their folders as they ran)
one emotion-n50 emotion 50 /tmp/n100/emotion-n50 ../shared/tasks
one counterfactual-n50 counterfactual 50 /tmp/n100/counterfactual-n50 ../shared/tasks
one emotion-n100 emotion 100 /tmp/n100/emotion ../shared/tasks
one counterfactual-n100 counterfactual 100 /tmp/n100/counterfactual ../shared/tasks
one emotion-n200 emotion 200 /tmp/emo200 /work/shared/tasks
one counterfactual-n200 counterfactual 200 /tmp/s_counterfactual /work/shared/tasks
