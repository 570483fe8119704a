"""
The blog report's figures (report.py). figure.png: one dot per run against the frozen layers, a panel per train
size (and for CoLA a row for MCC). cost.png: what each depth costs against what it scores, a
panel per train size, so the depths that are both cheap and good stand out.
"""

import os
import sys

import numpy as np

from cache import write_atomically
from result import model_label
from study.answer import answer_cells, kind_name, other_rate, size_order
from study.published import blog_rows, reference_depth, reports_mcc


def pyplot():
    """matplotlib's pyplot without a display, or None (and a line saying so) when not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("report.py: matplotlib is not installed; figures skipped (pip install matplotlib)", file=sys.stderr)
        return None


def write_figure(folder, results):
    """One panel per train size (and for CoLA a second row for MCC); x = frozen layers, one dot per
    run, the majority class as a line, and the published roberta-base mean at the same fraction of
    layers frozen as an open diamond."""
    plt = pyplot()
    if plt is None:
        return False
    config = results[0]["config"]
    sizes = sorted({r["config"]["size"] for r in results})
    reference = {(r["train_size"], r["frozen_layers"]): r for r in blog_rows(config["task"])}
    reference_label = "roberta-base, published mean at the same fraction frozen"
    metrics = [("best_accuracy", "best dev accuracy")] + ([("best_mcc", "best dev MCC")] if reports_mcc(config["task"]) else [])
    figure, axes = plt.subplots(len(metrics), len(sizes), figsize=(max(5.0, 3.2 * len(sizes)), 3.4 * len(metrics) + 0.2),
                                sharey="row", squeeze=False)
    for row, (metric, metric_name) in zip(axes, metrics):
        for ax, size in zip(row, sizes):
            runs = [r for r in results if r["config"]["size"] == size]
            freezes, labelled = sorted({r["config"]["freeze"] for r in runs}), False
            for k in freezes:
                values = [r[metric] for r in runs if r["config"]["freeze"] == k]
                jitter = np.linspace(-0.15, 0.15, len(values)) if len(values) > 1 else [0.0]
                ax.scatter(k + np.asarray(jitter), values, s=14, color="tab:blue", alpha=0.75)
                ax.hlines(np.mean(values), k - 0.3, k + 0.3, color="black", linewidth=1)
                ref = reference.get((size, reference_depth(k, config["num_layers"]))) if metric == "best_accuracy" else None
                if ref:
                    ax.scatter([k], [ref["accuracy_mean"]], s=30, marker="D", facecolors="none",
                               edgecolors="tab:gray", label=None if labelled else reference_label)
                    labelled = True
            # always predicting the majority class scores its share in accuracy and 0 in MCC
            ax.axhline(results[0]["majority_accuracy"] if metric == "best_accuracy" else 0.0, color="tab:red",
                       linestyle="--", linewidth=1, label="majority class")
            ax.set_title(f"n = {size}")
            ax.set_xlabel("frozen layers")
            ax.set_xticks(freezes)
        row[0].set_ylabel(metric_name)
    legend = {}  # label -> handle, over every panel, below them so that no dot is hidden
    for ax in axes.flat:
        legend.update(zip(ax.get_legend_handles_labels()[1], ax.get_legend_handles_labels()[0]))
    figure.legend(legend.values(), legend.keys(), loc="lower center", ncol=len(legend), fontsize=8, frameon=False)
    figure.suptitle(f"{config['task']}, {model_label(config['model'])} ({config['precision']}): one dot per run, "
                    "bar = mean")
    figure.tight_layout(rect=(0, 0.07 / len(metrics), 1, 1))
    write_atomically(os.path.join(folder, "figure.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return True


def write_cost_figure(folder, rows):
    """cost.png: per train size, the mean best dev accuracy (seed std as a bar) against the median
    seconds a run takes, one point per depth labelled with its k: the cheap and good depths sit
    top left."""
    plt = pyplot()
    if plt is None:
        return False
    sizes = sorted({row["train_size"] for row in rows})
    figure, axes = plt.subplots(1, len(sizes), figsize=(max(5.0, 3.2 * len(sizes)), 3.6), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        cells = [row for row in rows if row["train_size"] == size and not np.isnan(row["seconds_median"])]
        for row in cells:
            ax.errorbar(row["seconds_median"], row["accuracy_mean"], yerr=np.nan_to_num(row["accuracy_std"]),
                        fmt="o", color="tab:blue", markersize=4, capsize=2)
            ax.annotate(f"k={row['frozen_layers']}", (row["seconds_median"], row["accuracy_mean"]),
                        textcoords="offset points", xytext=(4, 4), fontsize=7)
        ax.set_xscale("log")
        ax.set_title(f"n = {size}")
        ax.set_xlabel("seconds a run (median)")
    axes[0][0].set_ylabel("best dev accuracy (mean)")
    figure.suptitle("what each depth costs and scores: one point per depth, bar = seed std")
    figure.tight_layout()
    write_atomically(os.path.join(folder, "cost.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return True


def write_answer_figure(folder, runs, picks, metric):
    """answer.png: per train size every method's cells, fair mean (seed std as a bar) against the
    median seconds a run on a log scale, a marker per method, the recommended cell ringed."""
    plt = pyplot()
    if plt is None:
        return False
    cells = [row for row in answer_cells(runs, metric) if not np.isnan(row["seconds"])]
    sizes = sorted(picks, key=size_order)
    kinds = sorted({kind_name(row["config"]) for row in cells})  # one marker and colour per method, whatever its rate
    markers = dict(zip(kinds, "osD^vP*Xhp<>"))
    colors = dict(zip(kinds, plt.get_cmap("tab10").colors + plt.get_cmap("Dark2").colors))
    figure, axes = plt.subplots(1, len(sizes), figsize=(max(5.0, 3.4 * len(sizes)), 3.8), squeeze=False, sharex=True)
    for ax, size in zip(axes[0], sizes):
        for kind in kinds:
            here = [row for row in cells if row["size"] == size and kind_name(row["config"]) == kind]
            if here:
                ax.errorbar([r["seconds"] for r in here], [r["fair_mean"] for r in here],
                            yerr=[np.nan_to_num(r["fair_std"]) for r in here], fmt=markers[kind], markersize=4,
                            color=colors[kind], capsize=2, label=kind)
                for r in here:  # the depth, and the rate where it is not the method's own
                    label = f"k={r['freeze']}" + (f", {other_rate(r['config'])}" if other_rate(r["config"]) else "")
                    ax.annotate(label, (r["seconds"], r["fair_mean"]), textcoords="offset points",
                                xytext=(3, 3), fontsize=6)
        pick = picks[size]
        ax.scatter([pick["seconds"]], [pick["fair_mean"]], s=160, facecolors="none", edgecolors="tab:red",
                   linewidths=1.5, label="recommended")
        ax.set_xscale("log")
        ax.set_title(f"n = {size}")
        ax.set_xlabel("seconds a run (median)")
    axes[0][0].set_ylabel(f"dev {metric}, fair reading (mean)")
    legend = {}
    for ax in axes.flat:
        legend.update(zip(ax.get_legend_handles_labels()[1], ax.get_legend_handles_labels()[0]))
    figure.legend(legend.values(), legend.keys(), loc="lower center", ncol=len(legend), fontsize=8, frameon=False)
    figure.suptitle("every method's cells: score against cost, the recommended one ringed")
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    write_atomically(os.path.join(folder, "answer.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return True
