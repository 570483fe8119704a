"""The cells best on test.csv, the defaults (SetFit fast, k = 0, 5e-5) there, and one class for
every test pair (the kept model's own test score is in advise.md; no choice read test.csv).

    python3 docs/records/advise-rte-2026-12-05/table.py /tmp/rte/test.csv /tmp/rte/res
"""
import collections
import csv
import glob
import json
import os
import statistics
import sys


def mean_se(values):
    spread = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return f"{statistics.mean(values):.3f} ± {spread:.3f} ({len(values)})"


labels = [row["label"] for row in csv.DictReader(open(sys.argv[1], encoding="utf-8"))]
cells = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.json"))):
    run = json.load(open(path))
    config, metric = run["config"], run["metric"]
    cells[(config["method"], config["freeze"], config["lr"])].append((run["score"], run["test_at_score"][metric]))
print(f"{sys.argv[2]}: {sum(map(len, cells.values()))} runs, {len(cells)} cells, read by {metric}")
print("| method | frozen | rate | dev | test |\n|---|---|---|---|---|")
for (method, freeze, lr), runs in sorted(cells.items(), key=lambda item: -statistics.mean(t for _, t in item[1]))[:10]:
    print(f"| {method} | {freeze} | {lr if lr is None else format(lr, 'g')} | {mean_se([d for d, _ in runs])} "
          f"| {mean_se([t for _, t in runs])} |")
defaults = cells[("setfit-fast", 0, 5e-5)]
print(f"the defaults (SetFit fast, k = 0, 5e-5) on test: {mean_se([t for _, t in defaults])}")
print(f"one class for every test pair: {max(labels.count(c) for c in set(labels)) / len(labels):.3f}")
