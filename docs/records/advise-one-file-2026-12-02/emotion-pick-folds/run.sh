cd /work/main
for s in 1 2 3 4 5; do
  echo "$s"
done | xargs -P 2 -I{} sh -c 'OMP_NUM_THREADS=1 .venv/bin/python freeze_study.py --dataset emotion --model minilm --train-file /tmp/q/files/emotion/labelled200.csv --text-column text --size 200 --folds 5 --seed {} --method setfit-fast --freeze 0 --metric macro_f1 --evaluations last --test-file /work/shared/tasks/emotion/test.csv --splits-dir /tmp/q/foldexp/splits --cache-dir /tmp/q/cache --out /tmp/q/foldexp/results/freeze0_size200_seed{}_setfit-fast.json --quiet > /tmp/q/foldexp/log{}.txt 2>&1'
