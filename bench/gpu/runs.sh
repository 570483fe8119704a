# bench/gpu.sh's phases that make runs for the CPU's reports (#27, #28, #45): Lee's whole-set grid,
# SetFit at n = 500 and 1000, LoRA against peft, LoRA's and BitFit's rates. Sourced by
# bench/gpu.sh, whose settings they read.

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
