"""The defaults a user would run alone on CoLA's test.csv beside make advise's pick: each run's
test score as it ended (no choice read it), from the search's folder and the baselines' folder.

    python3 docs/records/advise-cola-2026-12-05/table.py /tmp/cola/res /tmp/cola/baselines
"""
import glob
import json
import os
import statistics
import sys

DEFAULTS = {"SetFit fast, k = 0, 5e-5 (the pick)": "freeze0_size200_seed{}_setfit-fast.json",
            "fine-tune, k = 0, 5e-5": "freeze0_size200_seed{}.json", "probe, k = 6": "freeze6_size200_seed{}_probe.json"}

for cell, name in DEFAULTS.items():
    scores = []
    for seed in (1, 2, 3):
        paths = [p for folder in sys.argv[1:] for p in glob.glob(os.path.join(folder, name.format(seed)))]
        for path in paths[:1]:
            with open(path) as f:
                run = json.load(f)
            scores.append((seed, run["score"], run["test_at_score"][run["metric"]]))
    test = [t for _, _, t in scores]
    spread = f" ± {statistics.stdev(test) / len(test) ** 0.5:.3f}" if len(test) > 1 else ""
    print(f"{cell}: test {statistics.mean(test):.3f}{spread} ({len(test)}); by seed (dev, test): "
          + ", ".join(f"{s}: {d:.3f}, {t:.3f}" for s, d, t in scores))
