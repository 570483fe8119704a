#!/bin/bash
# The fine-tune at n = 50 at the protocol's 5e-5 against 1e-4 and its line searches' 2e-4, at k = 0
# and 2, beside LoRA over the embeddings alone and SetFit fast's defaults; seeds 1-3, two at a time,
# each scoring test.csv as it ends (run from the project's folder; SST-5's was stopped after 2 seeds).
#   bash rates.sh OUT
OUT=$1
jobs=()
for task in counterfactual emotion sst5; do
  for seed in 1 2 3; do
    for k in 0 2; do for lr in 5e-5 1e-4 2e-4; do
      jobs+=("$task --freeze $k --lr $lr --seed $seed --out $OUT/$task/ft_k${k}_lr${lr}_s$seed.json")
    done; done
    jobs+=("$task --freeze -1 --method lora --seed $seed --out $OUT/$task/lora_k-1_s$seed.json")
    jobs+=("$task --freeze 0 --method setfit-fast --seed $seed --out $OUT/$task/sff_k0_s$seed.json")
  done
done
printf '%s\n' "${jobs[@]}" | OUT=$OUT xargs -P 2 -I{} bash -c 'set -- {}; task=$1; shift; T=../shared/tasks/$task; mkdir -p $OUT/$task; OMP_NUM_THREADS=1 .venv/bin/python freeze_study.py --model minilm --train-file $T/train.csv --dev-file $T/dev.csv --test-file $T/test.csv --text-column text --metric macro_f1 --size 50 --cache-dir $OUT/cache --splits-dir $OUT/splits_$task --quiet "$@" 2>&1 | tail -1'
