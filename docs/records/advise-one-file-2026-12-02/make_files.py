"""The files of the one-file measurements: N rows drawn stratified from a task's train.csv (the first N
of data.stratified_order, seed 0: every class in its share within one example), and the same N split
150/50-like for the search given a dev file: its first three quarters (a stratified prefix) as train,
the rest as dev. Run from the project's top level:

    python docs/records/advise-one-file-2026-12-02/make_files.py ../shared/tasks/emotion 200 OUT
"""
import csv
import os
import sys

sys.path.insert(0, os.getcwd())
import numpy as np  # noqa: E402

import data  # noqa: E402

task_dir, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(os.path.join(task_dir, "train.csv"), newline="") as f:
    rows = list(csv.reader(f))
header, rows = rows[0], rows[1:]
labels = np.unique([r[1] for r in rows], return_inverse=True)[1]
order = data.stratified_order(labels, n, seed=0)
os.makedirs(out, exist_ok=True)


def write(name, picked):
    with open(os.path.join(out, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows[i] for i in picked)


write(f"labelled{n}.csv", order)
write("train-part.csv", order[: n * 3 // 4])
write("dev-part.csv", order[n * 3 // 4:])
print(out, n, "rows;", len(np.unique(labels[order])), "classes; train-part", n * 3 // 4, "dev-part", n - n * 3 // 4)
