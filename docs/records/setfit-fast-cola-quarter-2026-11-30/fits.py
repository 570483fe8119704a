"""The fast body's training fit at its default share (an eighth), over the made runs beside the
grids: each run's train MCC (SetFit's head on its body's embeddings of the training subset), every
depth that trains, the default rate, by grid and size. What a stop read on the fit would see.

    python docs/records/setfit-fast-cola-quarter-2026-11-30/fits.py
"""
import glob
import json
import os

import numpy as np

results = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../results")

print("| grid | n | runs | train MCC: median | min | max | dev score: median |")
print("|---|---|---|---|---|---|---|")
for grid in ("sst2-minilm", "cola-minilm", "sst2-mpnet"):
    for size in (200, 500, 1000):
        runs = [json.load(open(path)) for path in
                sorted(glob.glob(f"{results}/{grid}/made/freeze*_size{size}_seed[0-9]_setfit-fast.json"))]
        runs = [run for run in runs if run["config"]["freeze"] < run["config"]["num_layers"]]
        if not runs:
            continue
        train = np.array([run["train_at_score"]["mcc"] for run in runs])
        print(f"| {grid} | {size} | {len(runs)} | {np.median(train):.2f} | {train.min():.2f} | {train.max():.2f} "
              f"| {np.median([run['score'] for run in runs]):.3f} |")
