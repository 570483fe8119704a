#!/bin/bash
# make advise on Amazon counterfactual at the default budget (minilm, n = 200, -j 2, its test.csv
# scored), from an empty folder, with this code and the code before (worktrees, .venv linked):
# what the new prices change in a search the budget does not stop. Output under OUT/<new|before>/.
#     git worktree add /tmp/newtree 2c6cd3a6 && ln -s $PWD/.venv /tmp/newtree/.venv  (and /tmp/oldtree at c0108653)
#     bash docs/records/expected-seconds-2026-12-06/counterfactual-default.sh /tmp/cfd /tmp/newtree /tmp/oldtree
OUT=$1; shift
T=$(cd ../shared/tasks/counterfactual && pwd)
for tree in "$@"; do
  name=$( [ "$(cd "$tree" && git rev-parse --short HEAD)" = c0108653 ] && echo before || echo new ); R=$OUT/$name
  rm -rf "$R"; mkdir -p "$R"
  start=$(date +%s)
  (cd "$tree" && make advise -j 2 MODEL=minilm SIZE=200 TRAIN_FILE=$T/train.csv DEV_FILE=$T/dev.csv TEST_FILE=$T/test.csv \
     RESULTS=$R/runs SAVE=$R/saved CACHE_DIR=$R/cache SPLITS_DIR=$R/splits) > "$R/output.txt" 2>&1
  echo "exit $?, $(( $(date +%s) - start )) s of wall clock" >> "$R/output.txt"
done
