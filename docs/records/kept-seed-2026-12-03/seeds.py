"""Which seed of a cell to keep: the dev-best seed's score on a split no choice read, against the
mean of the cell's seeds there (what a seed at random scores).

    python docs/records/kept-seed-2026-12-03/seeds.py extract FOLDER... > seeds.tsv   # searches with a test file
    python docs/records/kept-seed-2026-12-03/seeds.py test seeds.tsv                  # chosen on dev, read on test
    python docs/records/kept-seed-2026-12-03/seeds.py halves docs/results             # chosen on one half, read on the other
"""
import collections
import glob
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.getcwd())
from study.answer import fair_score  # noqa: E402


def runs_in(folder):
    for path in glob.glob(folder + "/**/*.json", recursive=True):
        if "/kept/" in path or "/test/" in path:
            continue
        try:
            with open(path) as f:
                run = json.load(f)
        except ValueError:
            continue
        if isinstance(run, dict) and "config" in run:
            yield path, run


def extract(folders):
    print("task\tmodel\tmethod\tfreeze\tlr\tsize\tmetric\tseed\tdev\ttest")
    for folder in folders:
        for _, run in runs_in(folder):
            c, metric = run["config"], run["metric"]
            if run.get("test_at_score") and not c.get("folds") and not c.get("final"):
                print("\t".join(map(str, [c["dataset"], c["model"], c["method"], c["freeze"], c["lr"], c["size"], metric,
                                          c["seed"], f"{fair_score(run, metric):.6f}", f"{run['test_at_score'][metric]:.6f}"])))


def summary(rows):
    for key, gains in sorted(rows.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        g = np.array(gains)
        se = g.std(ddof=1) / math.sqrt(len(g)) if len(g) > 1 else 0.0
        print(f"| {' '.join(map(str, key))} | {len(g)} | {g.mean():+.4f} ± {se:.4f} | {np.median(g):+.4f} | {np.mean(g < 0):.0%} |")


def test(tsv):
    cells = collections.defaultdict(dict)
    with open(tsv) as f:
        next(f)
        for line in f:
            task, model, method, freeze, lr, size, metric, seed, dev, test_ = line.rstrip("\n").split("\t")
            cells[(task, model, method, freeze, lr, size, metric)][int(seed)] = (float(dev), float(test_))
    rows = collections.defaultdict(list)
    for key, seeds in cells.items():
        if len(seeds) >= 3:
            ordered = sorted(seeds.items())  # the lowest seed of equals, as search_folder.kept_seed
            devs, tests = np.array([v[0] for _, v in ordered]), np.array([v[1] for _, v in ordered])
            gain = tests[devs.argmax()] - tests.mean()
            rows[(key[0], key[1], key[6])].append(gain)
            rows[("all",)].append(gain)
    print("| task, checkpoint, metric | cells of 3+ seeds | dev-best seed on test − the seeds' mean (± SE) | median | below 0 |")
    print("|---|---|---|---|---|")
    summary(rows)


def halves(folder):
    cells = collections.defaultdict(dict)
    for path, run in runs_in(folder):
        if run.get("dev_halves"):
            c, metric = run["config"], run["metric"]
            cells[(os.path.relpath(path, folder).split(os.sep)[0], c["method"], c["freeze"], c["lr"],
                   c["size"], metric)][c["seed"]] = [h[metric] for h in run["dev_halves"]]
    rows = collections.defaultdict(list)
    for key, seeds in cells.items():
        if len(seeds) >= 3:
            h = np.array([v for _, v in sorted(seeds.items())])  # seeds x 2
            gain = np.mean([h[h[:, a].argmax(), 1 - a] - h[:, 1 - a].mean() for a in (0, 1)])
            rows[(key[0], key[1], key[5])].append(gain)
            rows[("all",)].append(gain)
    print("| grid, method, metric | cells of 3+ seeds | best seed on one half, read on the other − the seeds' mean (± SE) | median | below 0 |")
    print("|---|---|---|---|---|")
    summary(rows)


if __name__ == "__main__":
    {"extract": lambda: extract(sys.argv[2:]), "test": lambda: test(sys.argv[2]), "halves": lambda: halves(sys.argv[2])}[sys.argv[1]]()
