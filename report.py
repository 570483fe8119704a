"""
The study's report from a folder of run results (results/<dataset>/<model>/*.json):

    python report.py results/sst2/minilm --seeds 5

writes, next to the results, the appendix table (report.md, report.csv): per train size and
number of frozen layers, the runs and the mean, median, std, min and max of the best dev
accuracy (and of the best MCC for CoLA); the paper's operating point; the published roberta-base
figures beside ours when the model is roberta-base; and a figure (figure.png) with one dot per run.
"""

import argparse
import csv
import glob
import json
import os
import sys

import numpy as np

from data import write_atomically

REFERENCE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference")
STATISTICS = ("mean", "median", "std", "min", "max")


def load_results(folder):
    """Every parsable run result in `folder`; a file that cannot be read is named and skipped."""
    results = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as f:
                result = json.load(f)
            result["config"]["freeze"], result["config"]["size"], result["best_accuracy"]
            results.append(result)
        except (ValueError, KeyError, TypeError) as e:
            print(f"report.py: skipping {path}: not a run result ({type(e).__name__})", file=sys.stderr)
    return results


def describe(values):
    """mean, median, sample std (ddof=1; 0 for a single run), min, max."""
    values = np.asarray(values, dtype=float)
    std = values.std(ddof=1) if len(values) > 1 else 0.0
    return dict(zip(STATISTICS, (values.mean(), np.median(values), std, values.min(), values.max())))


def table(results):
    """One row per (train size, frozen layers), sorted."""
    cells = {}
    for result in results:
        cells.setdefault((result["config"]["size"], result["config"]["freeze"]), []).append(result)
    rows = []
    for (size, freeze), runs in sorted(cells.items()):
        row = dict(train_size=size, frozen_layers=freeze, runs=len(runs))
        row.update({f"accuracy_{k}": v for k, v in describe([r["best_accuracy"] for r in runs]).items()})
        row.update({f"mcc_{k}": v for k, v in describe([r["best_mcc"] for r in runs]).items()})
        rows.append(row)
    return rows


def operating_points(rows, num_layers, fraction=0.9):
    """Per train size, the paper's operating point: the most frozen layers (fewest trained)
    whose mean accuracy is at least `fraction` of the full fine-tune's (k = 0) mean."""
    points = {}
    for size in sorted({row["train_size"] for row in rows}):
        cells = {row["frozen_layers"]: row["accuracy_mean"] for row in rows if row["train_size"] == size}
        if 0 in cells:
            k = max(k for k, mean in cells.items() if mean >= fraction * cells[0])
            points[size] = dict(frozen_layers=k, trainable_layers=num_layers - max(k, 0),
                                mean=cells[k], full_mean=cells[0])
    return points


def published(task):
    """The study's roberta-base figures: {(size, frozen): row}, or {} for a task it did not run."""
    path = os.path.join(REFERENCE_DIR, f"blog_{task}_roberta_base.csv")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {(int(r["train_size"]), int(r["frozen_layers"])): r for r in csv.DictReader(f)}


def write_tables(folder, rows, results, seeds):
    first = results[0]["config"]
    task, model, num_layers = first["task"], first["model"], first["num_layers"]
    majority = results[0]["majority_accuracy"]
    with_mcc = task == "cola"
    reference = published(task) if os.path.basename(os.path.normpath(model)) == "roberta-base" else {}
    columns = ["train_size", "frozen_layers", "runs"] + [f"accuracy_{s}" for s in STATISTICS]
    columns += [f"mcc_{s}" for s in STATISTICS] if with_mcc else []
    columns += ["published_mean", "published_std"] if reference else []
    for row in rows:
        ref = reference.get((row["train_size"], row["frozen_layers"]), {})
        row.update(published_mean=ref.get("mean", ""), published_std=ref.get("std", ""))

    def csv_lines(f):
        f.write((",".join(columns) + "\n").encode())
        for row in rows:
            f.write((",".join(f"{row[c]:.4f}" if isinstance(row[c], float) else str(row[c]) for c in columns) + "\n").encode())

    write_atomically(os.path.join(folder, "report.csv"), csv_lines)
    lines = [f"# {task} with {model}: best dev accuracy per run", "",
             f"{len(results)} runs. Majority-class baseline: {majority:.3f}. A cell with fewer runs "
             f"than the {seeds} seeds shows them as runs/{seeds}.", ""]
    header = ["train size", "frozen", "runs"] + [f"acc {s}" for s in STATISTICS]
    header += [f"MCC {s}" for s in STATISTICS] if with_mcc else []
    header += ["published mean", "published std"] if reference else []
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        runs = str(row["runs"]) if row["runs"] >= seeds else f"{row['runs']}/{seeds}"
        cells = [str(row["train_size"]), str(row["frozen_layers"]), runs]
        cells += [f"{row[c]:.3f}" for c in columns[3:] if c.startswith(("accuracy_", "mcc_"))]
        cells += [row["published_mean"], row["published_std"]] if reference else []
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Operating point (the paper's): per train size, the most frozen layers whose mean "
              f"is at least 90% of the full fine-tune's (k = 0) mean; {num_layers} layers in all.", "",
              "| train size | frozen | trainable layers | mean | k = 0 mean |", "|---|---|---|---|---|"]
    points = operating_points(rows, num_layers)
    if not points:
        lines.append("| (needs the k = 0 column) | | | | |")
    for size, p in points.items():
        lines.append(f"| {size} | {p['frozen_layers']} | {p['trainable_layers']} | {p['mean']:.3f} | {p['full_mean']:.3f} |")
    write_atomically(os.path.join(folder, "report.md"), lambda f: f.write(("\n".join(lines) + "\n").encode()))


def write_figure(folder, results):
    """One panel per train size; x = frozen layers, one dot per run, the majority class as a line."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib is not installed; figure skipped (pip install matplotlib)", file=sys.stderr)
        return False
    config = results[0]["config"]
    sizes = sorted({r["config"]["size"] for r in results})
    figure, axes = plt.subplots(1, len(sizes), figsize=(max(5.0, 3.2 * len(sizes)), 3.6), sharey=True, squeeze=False)
    for ax, size in zip(axes[0], sizes):
        runs = [r for r in results if r["config"]["size"] == size]
        freezes = sorted({r["config"]["freeze"] for r in runs})
        for k in freezes:
            values = [r["best_accuracy"] for r in runs if r["config"]["freeze"] == k]
            jitter = np.linspace(-0.15, 0.15, len(values)) if len(values) > 1 else [0.0]
            ax.scatter(k + np.asarray(jitter), values, s=14, color="tab:blue", alpha=0.75)
            ax.hlines(np.mean(values), k - 0.3, k + 0.3, color="black", linewidth=1)
        ax.axhline(results[0]["majority_accuracy"], color="tab:red", linestyle="--", linewidth=1,
                   label="majority class")
        ax.set_title(f"n = {size}")
        ax.set_xlabel("frozen layers")
        ax.set_xticks(freezes)
    axes[0][0].set_ylabel("best dev accuracy")
    axes[0][0].legend(loc="lower left", fontsize=8)
    figure.suptitle(f"{config['task']}, {os.path.basename(os.path.normpath(config['model']))}: "
                    "one dot per run, bar = mean")
    figure.tight_layout()
    write_atomically(os.path.join(folder, "figure.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return True


def main(argv=None):
    p = argparse.ArgumentParser(description="Tables and figure of a folder of run results.")
    p.add_argument("folder")
    p.add_argument("--seeds", type=int, default=5, help="runs a complete cell has")
    args = p.parse_args(argv)
    results = load_results(args.folder)
    if not results:
        print(f"report.py: error: no run results in {args.folder}", file=sys.stderr)
        sys.exit(2)
    write_tables(args.folder, table(results), results, args.seeds)
    drew = write_figure(args.folder, results)
    print(f"report: {len(results)} runs -> {args.folder}/report.md, report.csv"
          + (", figure.png" if drew else " (no figure)"))


if __name__ == "__main__":
    main()
