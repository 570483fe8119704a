#!/bin/bash
# the gain rule's pick and SetFit fast at its defaults, each trained on every label of a search's subset (--final: its score is the test file's),
# seeds 1-3 (SEEDS), scored on its test.csv: what a user is handed either way. Run from the project's root:
#   bash docs/records/advise-one-file-rules-2026-12-06/finals.sh NAME DATA_DIR SIZE SEARCH_DIR METRIC PICK_FLAGS...
name=$1; T=$2; n=$3; O=$4; metric=$5; shift 5; pick="$*"
for seed in ${SEEDS:-1 2 3}; do
  for which in pick defaults; do
    if [ $which = pick ]; then flags="$pick"; else flags="--method setfit-fast --freeze 0"; fi
    out=$O/final-gain/${which}_s$seed.json; mkdir -p $O/final-gain
    [ -f $out ] || .venv/bin/python freeze_study.py --model minilm $flags --size $n --seed $seed --final --evaluations last \
      --train-file $T/train.csv --test-file $T/test.csv --splits-dir $O/splits --cache-dir $O/cache --metric $metric \
      --out $out --quiet >> $O/final-gain.log 2>&1
  done
done
.venv/bin/python - "$O/final-gain" "$metric" "$name" <<'PY'
import glob, json, statistics, sys
folder, metric, name = sys.argv[1:]
score = lambda which: [json.load(open(f))["score"] for f in sorted(glob.glob(f"{folder}/{which}_s*.json"))]
pick, defaults = score("pick"), score("defaults")
diff = [p - d for p, d in zip(pick, defaults)]
sd = statistics.stdev(diff) / len(diff) ** 0.5 if len(diff) > 1 else float("nan")
print(f"| {name} | {statistics.mean(pick):.3f} | {statistics.mean(defaults):.3f} | {statistics.mean(diff):+.3f} ± {sd:.3f} | {len(diff)} |")
PY
