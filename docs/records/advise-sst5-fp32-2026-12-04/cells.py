"""Every cell of a search's folder: its seeds' (seed, fair dev score, test score), best dev mean first.

    python docs/records/advise-sst5-fp32-2026-12-04/cells.py /tmp/q/sst5/results macro_f1
"""
import collections
import glob
import json
import os
import sys

sys.path.insert(0, os.getcwd())
from study.answer import fair_score  # noqa: E402

folder, metric = sys.argv[1], sys.argv[2]
cells = collections.defaultdict(list)
for path in glob.glob(os.path.join(folder, "*.json")):
    run = json.load(open(path))
    config, test = run["config"], run.get("test_at_score") or {}
    cells[(config["method"], config["freeze"], config["lr"])].append(
        (config["seed"], round(fair_score(run, metric), 4), round(test.get(metric, float("nan")), 4)))
mean = lambda values: sum(values) / len(values)
print("| method | frozen | rate | seeds | dev mean | test mean | (seed, dev, test) |\n|---|---|---|---|---|---|---|")
for (method, freeze, lr), runs in sorted(cells.items(), key=lambda item: -mean([r[1] for r in item[1]])):
    print(f"| {method} | {freeze} | {'fitted' if lr is None else format(lr, 'g')} | {len(runs)} | {mean([r[1] for r in runs]):.3f} | "
          f"{mean([r[2] for r in runs]):.3f} | {sorted(runs)} |")
