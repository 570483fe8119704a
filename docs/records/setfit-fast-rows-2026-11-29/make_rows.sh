#!/bin/bash
# #86's fast-against-library rows, every row in one session on one machine: both bodies at their
# default rates, seeds 1-3, the same subsets, two runs at once (one thread each), fp32 (this CPU's faster precision).
# Usage: bash make_rows.sh OUT   (run from the repository's top level)
OUT=${1:?OUT}
S=../shared
RUN=".venv/bin/python freeze_study.py --model minilm --precision fp32 --evaluations last --quiet"
SST2="--glue-dir $S/glue --dataset sst2"
COLA="--glue-dir $S/glue --dataset cola"
EMO="--train-file $S/tasks/emotion/train.csv --dev-file $S/tasks/emotion/test.csv --text-column text --metric macro_f1"
CLINC="--train-file $S/tasks/clinc150/train.csv --dev-file $S/tasks/clinc150/test.csv --text-column text"
mkdir -p $OUT/splits $OUT/cache
row() {  # row NAME "FLAGS" SIZE FREEZE: the library's and the fast body's three seeds
  for seed in 1 2 3; do
    for body in setfit setfit-fast; do
      echo "$RUN $2 --size $3 --freeze $4 --seed $seed --method $body --splits-dir $OUT/splits --cache-dir $OUT/cache --out $OUT/$1-$body/k$4_n$3_seed$seed.json"
    done
  done
}
{
  row emotion "$EMO" 200 0
  row clinc150 "$CLINC" 300 4
  row sst2 "$SST2" 200 0
  row cola "$COLA" 200 0
  row sst2 "$SST2" 50 0
} > $OUT/commands.txt
date -u +"start %H:%M:%S"
OMP_NUM_THREADS=1 xargs -P 2 -I{} -d '\n' bash -c '{} > /dev/null 2>> '$OUT'/errors.txt || echo "failed: {}" >> '$OUT'/errors.txt' < $OUT/commands.txt
date -u +"end %H:%M:%S"
