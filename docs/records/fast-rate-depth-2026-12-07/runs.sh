#!/bin/bash
# SetFit fast on mpnet over its whole body (k = 0), rate by rate, on the examples make advise draws (the
# subset at n is fixed by the file and n), each run scoring test.csv as it ends: SST-5 and emotion at
# n = 50, SST-5 at n = 100; two at once, one thread each (setfit-alone-2026-12-06/alone.sh).
#   bash docs/records/fast-rate-depth-2026-12-07/runs.sh OUT     (from the repository's root)
set -u
OUT=$1
A=docs/records/setfit-alone-2026-12-06/alone.sh
export MODEL=mpnet METHOD=setfit-fast
for rate in 5e-5 1e-4 2e-4; do RATE=$rate bash $A $OUT/r$rate $PWD 50 "1 2" sst5; done
for rate in 1e-4 2e-4; do RATE=$rate bash $A $OUT/r$rate $PWD 50 "1 2" emotion; done
bash $A $OUT/default $PWD 50 "1 2" emotion  # the default, 5e-4 (on SST-5, 5 seeds in setfit-alone-2026-12-06)
RATE=1e-4 bash $A $OUT/n100-r1e-4 $PWD 100 "1 2" sst5
bash $A $OUT/n100-default $PWD 100 "1 2" sst5  # the default at n = 100, 2e-4
# added later the same day (code at 511c9d7, which changes no run at a number n): emotion at n = 100
RATE=1e-4 bash $A $OUT/n100-r1e-4 $PWD 100 "1 2" emotion
bash $A $OUT/n100-default $PWD 100 "1 2" emotion  # the default at n = 100, 2e-4
