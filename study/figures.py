"""
The blog report's figures (report.py). figure.png: one dot per run against the frozen layers, a panel per train
size (and for CoLA a row for MCC). cost.png: what each depth costs against what it scores, a
panel per train size, so the depths that are both cheap and good stand out. answer.png: every
method's cells, score against cost. advise.png: make advise's cells, one colour per checkpoint.
"""

import os
import sys

import numpy as np

from atomic import write_atomically
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
    figure.suptitle(f"{config['dataset']}, {model_label(config['model'])} ({config['precision']}): one dot per run, "
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
    panels = [(ax, [row for row in rows if row["train_size"] == size and not np.isnan(row["seconds_median"])])
              for ax, size in zip(axes[0], sizes)]
    for (ax, cells), size in zip(panels, sizes):
        for row in cells:
            ax.errorbar(row["seconds_median"], row["accuracy_mean"], yerr=np.nan_to_num(row["accuracy_std"]),
                        fmt="o", color="tab:blue", markersize=4, capsize=2)
        ax.set_xscale("log")
        if cells:  # room right of the costliest depth for its label
            seconds = [row["seconds_median"] for row in cells]
            ax.set_xlim(min(seconds) / 1.5, max(seconds) * 3)
        ax.set_title(f"n = {size}")
        ax.set_xlabel("seconds a run (median)")
    axes[0][0].set_ylabel("best dev accuracy (mean)")
    figure.suptitle("what each depth costs and scores: one point per depth, bar = seed std")
    figure.tight_layout()
    for ax, cells in panels:  # labelled once the layout is fixed, so that overlaps are seen
        label_points(ax, [(row["seconds_median"], row["accuracy_mean"], f"k={row['frozen_layers']}") for row in cells],
                     fontsize=7)
    write_atomically(os.path.join(folder, "cost.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return True


def write_answer_figure(folder, runs, picks, metric):
    """answer.png: per train size every method's cells, fair mean (seed std as a bar) against the
    median seconds a run on a log scale, a marker per method, the recommended cell ringed; only the
    cells on the score-against-cost front, and the pick, are named."""
    plt = pyplot()
    if plt is None:
        return False
    cells = [row for row in answer_cells(runs, metric) if not np.isnan(row["seconds"])]
    sizes = sorted(picks, key=size_order)
    kinds = sorted({kind_name(row["config"]) for row in cells})  # one marker and colour per method, whatever its rate
    markers = dict(zip(kinds, "osD^vP*Xhp<>"))
    colors = dict(zip(kinds, plt.get_cmap("tab10").colors + plt.get_cmap("Dark2").colors))
    columns = min(3, len(sizes))  # panels wide enough for the labels of cells of like cost and score
    rows = -(-len(sizes) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(max(5.0, 4.6 * columns), 3.8 * rows + 0.4), squeeze=False,
                                sharex=True)
    for ax in axes.flat[len(sizes):]:
        ax.set_visible(False)
    for ax, size in zip(axes.flat, sizes):
        for kind in kinds:
            here = [row for row in cells if row["size"] == size and kind_name(row["config"]) == kind]
            if here:
                ax.errorbar([r["seconds"] for r in here], [r["fair_mean"] for r in here],
                            yerr=[np.nan_to_num(r["fair_std"]) for r in here], fmt=markers[kind], markersize=4,
                            color=colors[kind], capsize=2, label=kind)
        pick = picks[size][0]
        ax.scatter([pick["seconds"]], [pick["fair_mean"]], s=160, facecolors="none", edgecolors="tab:red",
                   linewidths=1.5, label="recommended")
        ax.set_xscale("log")
        ax.tick_params(labelbottom=True)  # every row shows its seconds, though the scale is shared
        ax.set_title(f"n = {size}")
        ax.set_xlabel("seconds a run (median)")
    seconds = [row["seconds"] for row in cells]
    if seconds:  # the scale is shared; room right of the costliest cell for its label
        axes[0][0].set_xlim(min(seconds) / 1.5, max(seconds) * 3)
    for row in axes:
        row[0].set_ylabel(f"dev {metric}, fair reading (mean)")
    legend = {}
    for ax in axes.flat:
        legend.update(zip(ax.get_legend_handles_labels()[1], ax.get_legend_handles_labels()[0]))
    figure.legend(legend.values(), legend.keys(), loc="lower center", ncol=len(legend), fontsize=8, frameon=False)
    figure.suptitle("every method's cells: score against cost, the recommended one ringed")
    figure.tight_layout(rect=(0, 0.08 / rows, 1, 1))
    for ax, size in zip(axes.flat, sizes):  # the front and the pick: method, depth, and a rate not the method's own
        named = front([r for r in cells if r["size"] == size]) + [picks[size][0]]
        label_points(ax, [(r["seconds"], r["fair_mean"], f"{kind_name(r['config'])} k={r['freeze']}" + (
            f", {other_rate(r['config'])}" if other_rate(r["config"]) else "")) for r in unique(named)], fontsize=6)
    write_atomically(os.path.join(folder, "answer.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return True


def front(cells):
    """The cells no other cell beats on both score and cost (fair mean against median seconds)."""
    on_front, best = [], -np.inf
    for row in sorted(cells, key=lambda row: (row["seconds"], -row["fair_mean"])):
        if row["fair_mean"] > best:
            on_front.append(row)
            best = row["fair_mean"]
    return on_front


def unique(rows):
    """rows, each cell once (a cell: its method, with its rate, and its depth)."""
    keys = [(row["method"], row["freeze"]) for row in rows]
    return [row for i, row in enumerate(rows) if keys[i] not in keys[:i]]


def label_points(ax, points, fontsize):
    """Write each (x, y, text) beside its point, right or left and a line up or down where it would
    cover another label, a marker or the panel's edge, so that cells of like cost and score stay legible."""
    scale = ax.figure.dpi / 72  # display pixels a typographic point
    anchors = [tuple(xy) for xy in ax.transData.transform([(x, y) for x, y, _ in points])] if points else []
    sizes = [(0.6 * fontsize * len(text) * scale, (fontsize + 1) * scale) for _, _, text in points]
    panel = ax.get_window_extent()
    for (x, y, text), (dx, dy) in zip(points, label_offsets(anchors, sizes, (panel.x0, panel.x1), 3 * scale)):
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx / scale, dy / scale), fontsize=fontsize)


def label_offsets(anchors, sizes, x_range, gap):
    """Offsets (pixels, from each anchor to its label's lower left corner) for labels of the given
    (width, height) that overlap no other label and no anchor and stay within x_range, where one can
    within two lines of the point (else right of it, overlapping); placed from left to right, trying
    right of the point first, then left, then a line up or down."""
    markers = [(x - gap, y - gap, 2 * gap, 2 * gap) for x, y in anchors]
    placed, offsets = [], [None] * len(anchors)

    def free(box):
        left, bottom, width, height = box
        return x_range[0] <= left and left + width <= x_range[1] and not any(
            left < l + w and l < left + width and bottom < b + h and b < bottom + height
            for l, b, w, h in placed + markers)

    for i in sorted(range(len(anchors)), key=lambda i: anchors[i]):
        (x, y), (width, height) = anchors[i], sizes[i]
        tries = [(dx, gap + line * height) for line in (0, 1, -1, 2, -2) for dx in (gap, -gap - width)]
        offsets[i] = next((t for t in tries if free((x + t[0], y + t[1], width, height))), tries[0])
        placed.append((x + offsets[i][0], y + offsets[i][1], width, height))
    return offsets


def write_search_figure(folder, rows, pick, several):
    """make advise's advise.png: every cell it ran, the mean it was read by against its seconds a run,
    one colour per checkpoint where it searched several (else per method), one marker per method,
    the pick ringed. `rows`: study/search/advise_report.py's cell_rows. Returns whether it was written."""
    plt = pyplot()
    if plt is None or not rows:
        return False
    group = (lambda cell: model_label(cell.model)) if several else (lambda cell: cell.method)
    groups = list(dict.fromkeys(group(row["cell"]) for row in rows))
    colors = dict(zip(groups, plt.get_cmap("tab10").colors))
    markers = dict(zip(dict.fromkeys(row["cell"].method for row in rows), "osD^vP*X"))
    figure, ax = plt.subplots(figsize=(6.4, 4.2))
    for row in rows:
        cell = row["cell"]
        ax.scatter([row["cost"]], [row["picked"]], color=colors[group(cell)], marker=markers[cell.method], s=18 + 6 * row["runs"])
    chosen = next(row for row in rows if row["cell"] == pick)
    ax.scatter([chosen["cost"]], [chosen["picked"]], s=220, facecolors="none", edgecolors="tab:red", linewidths=1.5)
    for name in groups:
        ax.scatter([], [], color=colors[name], label=name)
    ax.set_xscale("log")
    ax.set_xlabel("seconds a run (median)")
    ax.set_ylabel("dev score the search read (mean)")
    ax.set_title("every cell the search ran (larger: more seeds), the pick ringed", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    figure.tight_layout()
    write_atomically(os.path.join(folder, "advise.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return True
