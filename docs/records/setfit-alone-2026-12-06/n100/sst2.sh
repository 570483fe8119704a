#!/bin/bash
# SST-2 as a user's CSV (text,label; bench/glue_as_csv.py's split, --test 1000) at n = 100: the search
# (advise-bbc-rule-2026-12-06's one()), then the library's defaults and SetFit fast's, 5 seeds each (alone.sh,
# SHARED=/tmp/n100r/shared). Run from a worktree's root.
set -u
root=/tmp/n100r
source docs/records/advise-bbc-rule-2026-12-06/searches.sh
one sst2-user 100 accuracy $root/shared/tasks/sst2-user text
R=docs/records/setfit-alone-2026-12-06
began=$SECONDS; SHARED=$root/shared bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" sst2-user; echo "library: $((SECONDS - began)) s"
began=$SECONDS; SHARED=$root/shared METHOD=setfit-fast bash $R/alone.sh $root/alone $PWD 100 "1 2 3 4 5" sst2-user; echo "fast: $((SECONDS - began)) s"
