"""How often two seeds of a cell tie on the grid's metric by chance: per committed folder, the cells
with seeds 1 and 2 that are not a fit without randomness (not the probe, not k = L), how many tie
on the metric, how many of those tie at the score of predicting one class (the run's `constant`),
and how many tie on every metric of the split (what repeats_itself reads since 2026-11-30).

    .venv/bin/python docs/records/advise-refine-bounds-2026-11-30/ties.py
"""
import collections
import os
import sys

sys.path.insert(0, os.getcwd())
import methods  # noqa: E402
from study.answer import fair_scores, judged_by  # noqa: E402
from study.folder import load_results  # noqa: E402

for folder in ["sst2-minilm/runs", "cola-minilm/runs", "sst2-mpnet/runs", "sst2-minilm/made", "cola-minilm/made", "sst2-mpnet/made"]:
    runs = load_results(os.path.join("docs/results", folder), figure="score")
    metric, cells = judged_by(runs), collections.defaultdict(dict)
    for run in runs:
        c = run["config"]
        if not methods.get(c["method"]).every_layer_frozen and c["freeze"] != c["num_layers"]:
            cells[c["size"], c["method"], c["freeze"], c["lr"]][c["seed"]] = run
    pairs = [seeds for seeds in cells.values() if 1 in seeds and 2 in seeds]
    tied = [s for s in pairs if fair_scores(s[1])[metric] == fair_scores(s[2])[metric]]
    constant = [s for s in tied if abs(fair_scores(s[1])[metric] - s[1]["constant"][metric]) < 1e-12]
    every = [s for s in tied if fair_scores(s[1]) == fair_scores(s[2])]
    print(f"{folder}: {len(pairs)} cells with seeds 1 and 2, {len(tied)} tie on {metric}, {len(constant)} of them "
          f"at one class's score, {len(every)} on every metric")
