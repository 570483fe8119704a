# bench/gpu.sh's phases of the blog's 350 runs on the card (#80, #89, #114): the grid by the worker,
# CUDA's multi-process service, each cell's seeds as one job, and the measurements behind them
# (rates or seeds at once against each alone, dropout's masks drawn against the fused kernels).
# Sourced by bench/gpu.sh, whose settings they read.

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
