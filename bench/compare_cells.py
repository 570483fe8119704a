"""
Cells of a results folder against a published report.csv (mean, std and runs per cell): the
difference of the means and twice its standard error, so "the same answers" is a test against
seed noise, not a guess. bench/gpu.sh uses it for the GPU's fp16 runs against the CPU fp32 grid:

    python -m bench.compare_cells results/gpu/sst2-minilm docs/results/sst2-minilm/report.csv
"""

import csv
import sys

from study.folder import cells_of, load_results, precision_of
from study.stats import describe, difference_of_summaries
def main(folder, report_csv):
    results = load_results(folder)
    precision = precision_of(results, folder)
    with open(report_csv) as f:
        published = {(int(row["train_size"]), int(row["frozen_layers"])): row for row in csv.DictReader(f)}
    print(f"{folder} ({precision}, {results[0]['config']['device']}) against {report_csv}")
    print("| n | k | runs here | mean here | std | runs there | mean there | std | difference | 2 x SE | within |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    outside = 0
    for (n, k), runs in sorted(cells_of(results).items()):
        here = describe([r["best_accuracy"] for r in runs])
        there = published[(n, k)]
        diff, two_se = difference_of_summaries(
            (here["mean"], here["std"], len(runs)),
            (float(there["accuracy_mean"]), float(there["accuracy_std"]), int(there["runs"])))
        outside += abs(diff) > two_se
        print(f"| {n} | {k} | {len(runs)} | {here['mean']:.4f} | {here['std']:.4f} | {there['runs']} | "
              f"{float(there['accuracy_mean']):.4f} | {float(there['accuracy_std']):.4f} | {diff:+.4f} | "
              f"{two_se:.4f} | {'yes' if abs(diff) <= two_se else 'NO'} |")
    return outside


if __name__ == "__main__":
    sys.exit(1 if main(*sys.argv[1:3]) else 0)
