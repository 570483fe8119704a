"""The search's pick against SetFit fast at its defaults on the test file, seed by seed (the same
training examples; a seed is one draw of a run's randomness), and the model kept against each.

    python docs/records/advise-n50-2026-12-04/against_defaults.py /tmp/q/emo50/results macro_f1 4 2e-3 5e-4
    (folder, metric, the pick's depth and rate, SetFit fast's own rate at k = 0; the kept seed from advise.md)
"""
import glob
import json
import math
import os
import re
import sys

folder, metric, freeze, rate, own_rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])


def test_scores(freeze, lr):
    """{seed: test score} of SetFit fast's runs at that depth and rate."""
    scores = {}
    for path in glob.glob(os.path.join(folder, "*setfit-fast.json")):
        run = json.load(open(path))
        config = run["config"]
        if config["freeze"] == freeze and math.isclose(config["lr"], lr):
            scores[config["seed"]] = run["test_at_score"][metric]
    return scores


pick, defaults = test_scores(freeze, rate), test_scores(0, own_rate)
kept = int(re.search(r"the model kept \(seed (\d+)\)", open(os.path.join(folder, "advise.md")).read()).group(1))
mean = lambda xs: sum(xs) / len(xs)
se = lambda xs: math.sqrt(sum((x - mean(xs)) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else math.nan
both = sorted(set(pick) & set(defaults))
differences = [pick[s] - defaults[s] for s in both]
print(f"defaults (k = 0, {own_rate:g}) on test: {mean(list(defaults.values())):.3f} ± {se(list(defaults.values())):.3f} "
      f"({len(defaults)} seeds: {', '.join(f'{defaults[s]:.3f}' for s in sorted(defaults))})")
print(f"pick (k = {freeze}, {rate:g}) on test: {mean(list(pick.values())):.3f} ± {se(list(pick.values())):.3f} ({len(pick)} seeds)")
print(f"pick - defaults, seed by seed ({len(both)} seeds): {mean(differences):+.3f} ± {se(differences):.3f}")
print(f"the model kept (seed {kept}): {pick[kept]:.3f}, {pick[kept] - mean(list(defaults.values())):+.3f} over the defaults' mean; "
      f"above {sum(pick[kept] > d for d in defaults.values())} of their {len(defaults)} seeds")
