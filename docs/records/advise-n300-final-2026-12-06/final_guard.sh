#!/bin/bash
# counterfactual at n = 50 with FINAL=all again, with the final model's check (0f3ed7c,
# folds.unlearnt): a new copy of the search's results, the same command as final.sh's. Run from the
# project's root:
#
#     bash docs/records/advise-n300-final-2026-12-06/final_guard.sh /tmp/final > final_guard.txt
set -u
out=$1/counterfactual-n50/all-checked t=../shared/tasks/counterfactual src=/tmp/n100/counterfactual-n50
rm -rf $out; mkdir -p $out; cp -a $src/results $out/results
make advise -j 2 DATASET=counterfactual MODEL=minilm TRAIN_FILE=$t/train.csv DEV_FILE=$t/dev.csv TEST_FILE=$t/test.csv \
  RUN_FLAGS="--text-column text" SIZE=50 BUDGET=2 METRIC=macro_f1 RESULTS=$out/results CACHE_DIR=$src/cache \
  SPLITS_DIR=$src/splits SAVE=$out/saved FINAL=all > $out.log 2>&1
echo "rc=$?"; grep -h "^advise: \(The pick\|decided\)" $out.log
