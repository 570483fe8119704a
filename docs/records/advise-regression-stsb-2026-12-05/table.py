"""Every cell of the search on test.csv beside its dev score: the defaults a user runs alone on a
regression task (the fine-tune at k = 0 and its own rate, 5e-5 at n = 200), the pick, and the best
cell on test in hindsight (no choice read test.csv; the kept model's own score is in advise.md).

    python3 docs/records/advise-regression-stsb-2026-12-05/table.py /tmp/stsb/res
"""
import collections
import glob
import json
import os
import statistics
import sys


def mean_se(values):
    spread = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return f"{statistics.mean(values):.3f} ± {spread:.3f} ({len(values)})"


folder = sys.argv[1]
cells = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
    run = json.load(open(path))
    config, metric = run["config"], run["metric"]
    cells[(config["method"], config["freeze"], config["lr"])].append((run["score"], run["test_at_score"][metric]))
print(f"{folder}: {sum(map(len, cells.values()))} runs, {len(cells)} cells, read by {metric}")
print("| method | frozen | rate | dev | test |\n|---|---|---|---|---|")
for (method, freeze, lr), runs in sorted(cells.items(), key=lambda item: -statistics.mean(t for _, t in item[1]))[:12]:
    print(f"| {method} | {freeze} | {lr:g} | {mean_se([d for d, _ in runs])} | {mean_se([t for _, t in runs])} |")
defaults = cells[("finetune", 0, 5e-5)]
print(f"the defaults (fine-tune, k = 0, 5e-5) on test: {mean_se([t for _, t in defaults])}")
