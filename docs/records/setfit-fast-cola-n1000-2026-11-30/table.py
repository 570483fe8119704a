"""CoLA, minilm, n = 1000, k = 0, seeds 1-3: SetFit's fast body at four rates (its runs here, made on
this session's Xeon, 2 at once) beside the library's body at three (the grid's runs,
docs/results/cola-minilm, made on an AMD EPYC: their seconds are that CPU's).

    python docs/records/setfit-fast-cola-n1000-2026-11-30/table.py
"""
import glob
import json
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
grid = os.path.join(here, "../../results/cola-minilm/runs")


def rows(paths):
    by_rate = {}
    for path in paths:
        run = json.load(open(path))
        config = run["config"]
        if config["freeze"] == 0 and config["size"] == 1000 and config["seed"] in (1, 2, 3):
            score = run["curve"][-1]["mcc"] if run["curve"] else run["at_score"]["mcc"]
            train = (run.get("train_at_score") or {}).get("mcc")
            by_rate.setdefault((config["method"], config["lr"]), []).append((config["seed"], score, run["seconds"]["total"], train))
    return by_rate


print("| body | rate | dev MCC, seeds 1-3 | mean | train MCC | seconds a run (median) |")
print("|---|---|---|---|---|---|")
for (method, lr), seeded in sorted({**rows(glob.glob(f"{grid}/freeze0_size1000_seed*_setfit.json")),
                                  **rows(glob.glob(f"{here}/*.json"))}.items()):
    runs = [run[1:] for run in sorted(seeded)]
    scores, trains = [score for score, _, _ in runs], [t for _, _, t in runs if t is not None]
    print(f"| {'library' if method == 'setfit' else 'fast'} | {lr:g} | {', '.join(f'{s:.3f}' for s in scores)} "
          f"| {np.mean(scores):.3f} | {np.mean(trains):.3f} | {np.median([s for _, s, _ in runs]):.0f} |"
          if trains else f"| {np.mean(scores):.3f} | - | {np.median([s for _, s, _ in runs]):.0f} |")
