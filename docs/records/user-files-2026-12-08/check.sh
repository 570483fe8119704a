#!/usr/bin/env bash
# Each file make.py wrote, through one run (the probe, n = 20, minilm) and predict.py: the line a user sees.
# From the project's top level: bash docs/records/user-files-2026-12-08/check.sh /tmp/edge
set -u
E=${1:-/tmp/edge}
here=$(dirname "$0")
mkdir -p "$E" && (cd "$E" && python3 "$OLDPWD/$here/make.py")
printf 'text,label\n' > "$E/realblank_train.csv"; sed -n '2,20p' "$E/train.csv" >> "$E/realblank_train.csv"
printf '\n\n' >> "$E/realblank_train.csv"; sed -n '21,41p' "$E/train.csv" >> "$E/realblank_train.csv"
python3 -c "open('$E/u16_train.csv', 'w', encoding='utf-16').write(open('$E/train.csv').read())"
python3 -c "
import zipfile
with zipfile.ZipFile('$E/book_train.xlsx', 'w', zipfile.ZIP_DEFLATED) as z: z.writestr('xl/workbook.xml', '<workbook/>' * 50)"
sed 's/$/,,/' "$E/train.csv" > "$E/trailing_train.csv"
run() {  # one run on the edge files; its last line
  rm -rf "$E/out" "$E/splits"; mkdir -p "$E/out"
  .venv/bin/python freeze_study.py --model minilm --method probe --size 20 --seed 1 --out "$E/out/r.json" \
    --splits-dir "$E/splits" --cache-dir "$E/cache" "$@" 2>&1 | tail -1 | sed "s#$E/##g" | cut -c1-240
}
for f in train bom_train crlf_train quoted_train space_train case_train empty_train labels_train missing_train \
         latin1_train u16_train book_train semi_train header_train dup_train long_train onecls_train labfirst_train \
         blankline_train realblank_train trailing_train; do
  ext=csv; [ "$f" = book_train ] && ext=xlsx
  echo "$f: $(run --train-file "$E/$f.$ext" --dev-file "$E/dev.csv")"
done
echo "tab_train.tsv: $(run --train-file "$E/tab_train.tsv" --dev-file "$E/dev.csv")"
echo "int labels 3 and 7: $(run --train-file "$E/int_train.csv" --dev-file "$E/int_dev.csv")"
echo "float labels 1.0 and 0.0: $(run --train-file "$E/float_train.csv" --dev-file "$E/float_dev.csv")"
echo "a dev label train lacks: $(run --train-file "$E/train.csv" --dev-file "$E/unseen_dev.csv")"
printf 'text\nhello\nworld\n' > "$E/nolabel_test.csv"
echo "a test file without labels: $(run --train-file "$E/train.csv" --dev-file "$E/dev.csv" --test-file "$E/nolabel_test.csv")"
# predict.py on a probe kept from train.csv
rm -rf "$E/saved" "$E/kept.json"
.venv/bin/python freeze_study.py --model minilm --method probe --size all --train-file "$E/train.csv" --dev-file "$E/dev.csv" \
  --out "$E/kept.json" --save "$E/saved" --cache-dir "$E/cache" > /dev/null 2>&1
predict() { rm -f "$E/o.csv"; .venv/bin/python predict.py --model "$E/saved" --out "$E/o.csv" "$@" 2>&1 | tail -1 | sed "s#$E/##g"; }
printf 'id,text\n1,a good film\n2,\n' > "$E/in_empty.csv"
printf 'text,label,stars\ngood,pos,5\nbad,neutral,1\n' > "$E/in_labels.csv"
echo "predict, an empty text: $(predict --input "$E/in_empty.csv")"
echo "predict, BOM: $(predict --input "$E/bom_train.csv" --label-column label)"
echo "predict, --label-column label: $(predict --input "$E/in_labels.csv" --label-column label)"
echo "predict, --label-column stars: $(predict --input "$E/in_labels.csv" --label-column stars)"
