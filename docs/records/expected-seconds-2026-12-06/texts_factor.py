"""What the first screen round would need of a factor priced from the texts each run reads: per
search, C (the factor on the probe's seconds per layer that would price its first round right),
the trained runs' work against the probe's texts, (3 epochs n + dev) / (n + dev + test), and their
ratio K, which a rule with those counts would use in place of PROBE_TO_TRAINED.

    .venv/bin/python docs/records/expected-seconds-2026-12-06/texts_factor.py $(dirname $(grep -l . docs/records/*/*/advise.rounds)) \
        /tmp/cf/new/runs /tmp/cfd/new/runs
"""
import csv
import glob
import json
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import estimates  # noqa: E402
from study.search import space as sp  # noqa: E402


def rows_of(path):
    """A CSV's examples, where the file is here (a record's path, or ../shared/tasks/<task>/ by its name)."""
    task_file = os.path.join("..", "shared", "tasks", os.path.basename(os.path.dirname(path)), os.path.basename(path))
    for candidate in (path, task_file):
        if os.path.exists(candidate):
            with open(candidate) as f:
                return sum(1 for _ in csv.reader(f)) - 1
    return 0


sp.PROBE_TO_TRAINED = 1.0
for folder in sys.argv[1:]:
    first = [(e, s) for e, s, only_probe in estimates.in_search(folder, sp.expected_seconds) if only_probe and s > 5]
    if not first:
        continue
    needed = sum(s for _, s in first) / sum(e for e, _ in first)
    probe = json.load(open(glob.glob(os.path.join(folder, "**", "*_probe.json"), recursive=True)[0]))
    config, dev = probe["config"], probe["dev_size"]
    n, epochs = config.get("train_examples") or config["size"], config["epochs"]
    test = rows_of(config["test_file"]) if config.get("test_file") else 0
    work = (3 * epochs * n + dev) / (n + dev + test)
    print(f"C {needed:5.2f}  work/texts {work:5.2f}  K {needed / work:5.2f}  n {n} dev {dev} test {test}  {folder}")
