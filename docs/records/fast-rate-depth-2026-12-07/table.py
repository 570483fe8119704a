"""SetFit fast on mpnet at k = 0 (and k = -1 on SST-2), rate by rate: each cell's dev score (the one a
search reads), test score, train fit and seeds, from runs.sh's OUT and the SST-2 grid's made runs.
    .venv/bin/python docs/records/fast-rate-depth-2026-12-07/table.py OUT"""
import glob
import json
import os
import re
import sys

import numpy as np

OUT = sys.argv[1]
MADE = "docs/results/sst2-mpnet/made"


def cell(paths, metric):
    runs = [json.load(open(path)) for path in sorted(paths)]
    if not runs:
        return None
    mean = lambda values: f"{np.mean(values):.3f}" + (f" ± {np.std(values, ddof=1) / len(values) ** 0.5:.3f}"
                                                     if len(values) > 1 else "")
    test = [r["test_at_score"][metric] for r in runs if r.get("test_at_score")]
    return (len(runs), mean([r["score"] for r in runs]), mean(test) if test else "-",
            " ".join(f"{r['train_at_score'][metric]:.2f}" for r in runs))


print("| task | n | k | rate | seeds | dev | test | train fit (each) |")
print("|---|---|---|---|---|---|---|---|")
for freeze in (0, -1):
    for rate in ("5e-5", "1e-4", "2e-4", "5e-4"):
        name = re.compile(rf"freeze{freeze}_size50_seed\d+{'' if rate == '5e-4' else '_lr' + rate}_setfit-fast\.json")
        row = cell([path for path in glob.glob(os.path.join(MADE, "*.json")) if name.fullmatch(os.path.basename(path))],
                   "accuracy")
        if row:
            print(f"| SST-2 (accuracy, made runs) | 50 | {freeze} | {rate}{' (default)' if rate == '5e-4' else ''} | "
                  + " | ".join(map(str, row)) + " |")
for task, size, prefix in (("sst5", 50, ""), ("emotion", 50, ""), ("sst5", 100, "n100-"), ("emotion", 100, "n100-")):
    for rate in ("5e-5", "1e-4", "2e-4", "default"):  # the default: 5e-4 at n = 50, 2e-4 at 100
        folder = os.path.join(OUT, prefix + ("default" if rate == "default" else "r" + rate), "fast", task)
        row = cell(glob.glob(os.path.join(folder, f"freeze0_size{size}_seed*.json")), "macro_f1")
        if row:
            print(f"| {task} (macro-F1) | {size} | 0 | {rate} | " + " | ".join(map(str, row)) + " |")
