#!/bin/bash
# make advise on Amazon counterfactual (minilm, n = 200, -j 2, its test.csv scored by every run) at
# two small budgets, with this code (TREE=.) and with the code before (a worktree at c087dd6, .venv
# linked): the budget a too-small BUDGET names, then a search at 0.05 h. Output under OUT/<name>/.
#     git worktree add /tmp/oldtree c087dd6 && ln -s $PWD/.venv /tmp/oldtree/.venv
#     bash docs/records/layer-seconds-2026-12-06/counterfactual-testfile.sh /tmp/cft . /tmp/oldtree
OUT=$1; shift
T=$(cd ../shared/tasks/counterfactual && pwd)
for tree in "$@"; do
  name=$( [ "$tree" = . ] && echo new || echo before ); R=$OUT/$name
  rm -rf "$R"; mkdir -p "$R"
  for budget in 0.01 0.05; do
    start=$(date +%s)
    (cd "$tree" && make advise -j 2 MODEL=minilm SIZE=200 BUDGET=$budget TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv \
       TEST_FILE=$T/test.csv RESULTS=$R/runs SAVE=$R/saved-$budget CACHE_DIR=$R/cache SPLITS_DIR=$R/splits) \
       > "$R/budget-$budget.txt" 2>&1
    echo "exit $?, $(( $(date +%s) - start )) s of wall clock" >> "$R/budget-$budget.txt"
  done
done
