"""A make advise folder's cells on its test file, best first, beside their dev scores: what a
search would have picked in hindsight, and the defaults a user runs alone (each run scored
test.csv as it ended; no choice read it). With --test-file, one class for every test example too.

    python -m bench.cells_on_test /tmp/rte/res --defaults setfit-fast 0 5e-5 --rows 10 --test-file /tmp/rte/test.csv
"""
import argparse
import collections
import csv
import glob
import json
import os
import statistics

import metrics


def mean_se(values):
    spread = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return f"{statistics.mean(values):.3f} ± {spread:.3f} ({len(values)})"


def cells_of(folder):
    """({(method, depth, rate): [(dev score, test score)]}, the metric) of a folder's runs."""
    cells, metric = collections.defaultdict(list), None
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            run = json.load(f)
        config, metric = run["config"], run["metric"]
        cells[(config["method"], config["freeze"], config["lr"])].append((run["score"], run["test_at_score"][metric]))
    return cells, metric


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder")
    p.add_argument("--defaults", nargs=3, metavar=("METHOD", "DEPTH", "RATE"), required=True)
    p.add_argument("--rows", type=int, default=12)
    p.add_argument("--test-file", help="a classification's test file: one class for every example too")
    p.add_argument("--label-column", default="label", help="the test file's labels (the runs' --label-column)")
    args = p.parse_args()
    cells, metric = cells_of(args.folder)
    print(f"{args.folder}: {sum(map(len, cells.values()))} runs, {len(cells)} cells, read by {metric}")
    print("| method | frozen | rate | dev | test |\n|---|---|---|---|---|")
    best_first = sorted(cells.items(), key=lambda item: -statistics.mean(t for _, t in item[1]))
    for (method, freeze, lr), runs in best_first[:args.rows]:
        print(f"| {method} | {freeze} | {lr if lr is None else format(lr, 'g')} | {mean_se([d for d, _ in runs])} "
              f"| {mean_se([t for _, t in runs])} |")
    method, depth, rate = args.defaults
    defaults = cells[(method, int(depth), float(rate))]
    print(f"the defaults ({method}, k = {depth}, {rate}) on test: {mean_se([t for _, t in defaults])}")
    if args.test_file:
        with open(args.test_file, encoding="utf-8") as f:
            labels = [row[args.label_column].strip() for row in csv.DictReader(f)]
        classes = sorted(set(labels))
        constant = metrics.constant_scores([classes.index(label) for label in labels], len(classes))[metric]
        print(f"one class for every test example: {constant:.3f}")


if __name__ == "__main__":
    main()
