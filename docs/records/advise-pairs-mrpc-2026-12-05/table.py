"""SetFit fast's defaults (k = 0, 5e-5) in each search's folder beside the constant prediction, on test.csv
(the kept model's own test score is in each advise.md).

    python3 docs/records/advise-pairs-mrpc-2026-12-05/table.py /tmp/mrpc/test.csv /tmp/mrpc/res /tmp/mrpc/res-macro
"""
import csv
import glob
import json
import os
import statistics
import sys


def constant_scores(path):
    """What one class for every test pair scores: (accuracy, F1 of 'paraphrase', macro-F1), the best class."""
    labels = [row["label"] for row in csv.DictReader(open(path, encoding="utf-8"))]
    share = labels.count("paraphrase") / len(labels)
    return dict(accuracy=max(share, 1 - share), f1=2 * share / (1 + share), macro_f1=max(share, 1 - share) / 2)


def mean_se(values):
    return statistics.mean(values), (statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan"))


constant = constant_scores(sys.argv[1])
for folder in sys.argv[2:]:
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(folder, "*.json")))]
    metric = runs[0]["metric"]
    anchor = [r["test_at_score"][metric] for r in runs
              if r["config"]["method"] == "setfit-fast" and r["config"]["freeze"] == 0 and r["config"]["lr"] == 5e-5]
    seeds = ", ".join(f"{score:.3f}" for score in anchor)
    print(f"{folder} ({metric}, {len(runs)} runs): the defaults' {len(anchor)} seeds on test {seeds} "
          f"(mean {mean_se(anchor)[0]:.3f} ± {mean_se(anchor)[1]:.3f}); one class for every test pair {constant[metric]:.3f}")
