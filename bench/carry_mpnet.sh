#!/usr/bin/env bash
# all-mpnet-base-v2 for a lent GPU machine (#80's search), in two parts, one a call: its float32
# weights (438 MB) pass the 64 MiB a call may send even as int8 rows (110 MB, bench/int8_rows.py),
# so the rows are split by tensor into .carry/mpnet-1 (with the tokenizer, the config and SST-2)
# and .carry/mpnet-2, about 55 MB each. Each passes only with the tracked tree made smaller
# (bench/README.md, "The next GPU session", says how and how to undo it). Then:
#   call 1, carry [".carry/mpnet-1"]: mkdir -p /tmp/carry && cp -r .carry/mpnet-1 /tmp/carry/
#   call 2 within the 30 s the machine stays warm, carry [".carry/mpnet-2"]: bash bench/gpu.sh $OUT env advise
set -euo pipefail
PY=${PY:-.venv/bin/python}
checkpoint=checkpoints/all-mpnet-base-v2
[ -f $checkpoint/model.safetensors ] || { echo "carry_mpnet: no $checkpoint; make mpnet first"; exit 2; }
rm -rf .carry/mpnet-1 .carry/mpnet-2 && mkdir -p .carry/mpnet-1/model/1_Pooling .carry/mpnet-2
# what transformers and the sentence-transformers pooling read, less the weights
cp $checkpoint/{config.json,tokenizer.json,tokenizer_config.json,special_tokens_map.json,vocab.txt,modules.json} \
   $checkpoint/{sentence_bert_config.json,config_sentence_transformers.json} .carry/mpnet-1/model/
cp $checkpoint/1_Pooling/config.json .carry/mpnet-1/model/1_Pooling/
$PY -m bench.int8_rows pack $checkpoint/model.safetensors .carry/mpnet --parts 2 > /dev/null
mv .carry/mpnet-1.int8.safetensors .carry/mpnet-1/ && mv .carry/mpnet-2.int8.safetensors .carry/mpnet-2/
glue=${GLUE_DIR:-../shared/glue}
tar cJf .carry/mpnet-1/glue.tar.xz -C "$glue" SST-2/train.tsv SST-2/dev.tsv
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo +changes)" > .carry/mpnet-2/commit
du -sh .carry/mpnet-1 .carry/mpnet-2
