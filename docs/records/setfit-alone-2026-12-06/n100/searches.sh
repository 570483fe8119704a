#!/bin/bash
# n = 100: make advise with today's code from empty folders (advise-bbc-rule-2026-12-06's one(): -j 2, minilm,
# every method, BUDGET=2), then the library's SetFit alone and SetFit fast's defaults on the same 100 examples
# (alone.sh), 5 seeds each. Run from a worktree's root.
set -u
root=/tmp/n100r
source docs/records/advise-bbc-rule-2026-12-06/searches.sh
for task in emotion counterfactual sst5; do one $task 100 macro_f1 ../shared/tasks/$task text; done
R=docs/records/setfit-alone-2026-12-06
began=$SECONDS; bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" emotion counterfactual sst5; echo "library: $((SECONDS - began)) s"
began=$SECONDS; METHOD=setfit-fast bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" emotion counterfactual sst5; echo "fast: $((SECONDS - began)) s"
