"""rates.sh's runs: per task and cell, the dev score each run picked by and test.csv at that step.

    .venv/bin/python docs/records/finetune-own-rate-2026-12-06/rates_table.py OUT
"""
import glob, json, os, re, sys
from collections import defaultdict
import numpy as np
root = sys.argv[1]  # rates.sh OUT
for task in ("counterfactual", "emotion", "sst5"):
    cells = defaultdict(list)
    for f in glob.glob(f"{root}/{task}/*.json"):
        d = json.load(open(f))
        cell = re.sub(r"_s\d+\.json$", "", os.path.basename(f))
        cells[cell].append((d["config"]["seed"], d["score"], d["test_at_score"]["macro_f1"], d["seconds"]["total"]))
    print(f"== {task} (minilm, n = 50, macro-F1; dev = the score the run picks by, test = test.csv at that step)")
    print(f"{'cell':24} seeds  dev mean (sd)      test mean (sd)     s/run")
    for cell in sorted(cells, key=lambda c: -np.mean([r[1] for r in cells[c]])):
        rs = sorted(cells[cell]); dev = np.array([r[1] for r in rs]); test = np.array([r[2] for r in rs])
        sd = lambda a: a.std(ddof=1) if len(a) > 1 else float("nan")
        print(f"{cell:24} {len(rs):5}  {dev.mean():.3f} ({sd(dev):.3f})     {test.mean():.3f} ({sd(test):.3f})     {np.median([r[3] for r in rs]):5.1f}")
