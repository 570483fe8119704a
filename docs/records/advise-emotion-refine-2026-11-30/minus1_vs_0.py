"""k = -1 (the embeddings alone frozen) against k = 0 (nothing frozen): each method's fair mean at
both depths and the same rate, on the committed grids (5 seeds a cell) and on SetFit fast's made
runs beside them (the seeds both depths have), with the grid's band at that size.

    .venv/bin/python docs/records/advise-emotion-refine-2026-11-30/minus1_vs_0.py
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.getcwd())
from study.answer import answer_cells, fair_score, recommend  # noqa: E402
from study.replay import grid_at  # noqa: E402

print("| grid | n | method, rate | k = -1 | k = 0 | -1 less 0 | seeds | the grid's band |")
print("|---|---|---|---|---|---|---|---|")
for grid in ("sst2-minilm", "cola-minilm", "sst2-mpnet"):
    for size in (50, 100, 200, 500, 1000):
        runs, metric, _ = grid_at(f"docs/results/{grid}/runs", size)
        if not runs:
            continue
        _, best, band = recommend(answer_cells(runs, metric), metric)
        made = []
        folder = f"docs/results/{grid}/made"
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as f:
                run = json.load(f)
            if run["config"]["size"] == size:
                made.append(run)
        scores = collections.defaultdict(dict)  # (method, rate) -> {k: {seed: fair score}}
        for run in runs + made:
            c = run["config"]
            if c["freeze"] in (-1, 0):
                scores[c["method"], c["lr"]].setdefault(c["freeze"], {})[c["seed"]] = fair_score(run, metric)
        for (method, lr), at in sorted(scores.items(), key=str):
            seeds = sorted(set(at.get(-1, {})) & set(at.get(0, {})))
            if not seeds:
                continue
            low, high = (sum(at[k][s] for s in seeds) / len(seeds) for k in (-1, 0))
            print(f"| {grid} | {size} | {method}, {lr:g} | {low:.3f} | {high:.3f} | {low - high:+.3f} | "
                  f"{len(seeds)} | {band:.3f} |")
