"""
The report's sections that set other ways of using the same examples beside the tabled cells (the
protocol's fine-tune, or a folder's first method): its top layers reset (--reinit N), every other
trained method (SetFit, LoRA, BitFit: one section each, read alike), the linear probe (--method
probe), each against the tabled cells (study/answer.py sets every method side by side). study/report.py
puts them after the grid's own tables.
"""

import numpy as np

from methods import examples, lr_text
from study.folder import cells_of
from study.stats import describe, difference, median_of, number
def reinit_lines(reset_runs, plain_runs):
    """report.md lines: the cells fine-tuned with their top layers reset (--reinit N), each against
    the same cell without the reset, against seed noise."""
    if not reset_runs:
        return []
    plain, reset = cells_of(plain_runs), {}
    for r in reset_runs:
        reset.setdefault((r["config"]["size"], r["config"]["freeze"], r["config"]["reinit"]), []).append(r)
    lines = ["## Re-initialising the top", "",
             "Cells whose top N layers were reset to a fresh initialisation before fine-tuning (`--reinit N`), "
             "against the same cell without the reset: the difference of the mean best dev accuracies and "
             "twice its standard error.", "",
             "| train size | frozen | top layers reset | runs | mean | std | without: mean | difference | 2 x SE | within |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for (size, k, n), runs in sorted(reset.items()):
        x, y = [r["best_accuracy"] for r in runs], [r["best_accuracy"] for r in plain.get((size, k), [])]
        stats = describe(x)
        row = f"| {size} | {k} | {n} | {len(x)} | {number(stats['mean'])} | {number(stats['std'])} |"
        if len(x) >= 2 and len(y) >= 2:
            diff, two_se = difference(x, y)
            row += f" {np.mean(y):.3f} | {number(diff)} | {number(two_se)} | {'yes' if abs(diff) <= two_se else 'NO'} |"
        else:
            row += " | | | |"
        lines.append(row)
    return lines + [""]


def method_lines(method, runs, plain_runs, plain_label):
    """report.md lines: a method's cells (each rate its own) beside the tabled method's cell of the
    same depth and size (`plain_label`: the fine-tune at the study's rate, or the folder's first
    method), each read by its best dev accuracy, with what a run costs, against seed noise."""
    if not runs:
        return []
    plain = cells_of(plain_runs)
    lines = [f"## {method.label}", "",
             f"`--method {method.name}` per cell (each rate its own) beside {plain_label} of the same depth and size: "
             "the difference of the mean best dev accuracies and twice its standard error, and the median seconds a "
             "run.", "",
             f"| train size | frozen | lr | runs | mean | std | s / run | peak MB | {plain_label}: mean | s / run "
             "| difference | 2 x SE |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    by_cell = cells_of(runs, ("size", "freeze", "lr"))
    for size, k, lr in sorted(by_cell, key=lambda key: (examples(key[0]), key[1], key[2] or 0)):
        cell = by_cell[(size, k, lr)]
        x, others = [r["best_accuracy"] for r in cell], plain.get((size, k), [])
        y, stats = [r["best_accuracy"] for r in others], describe(x)
        row = (f"| {size} | {k} | {lr_text(lr) if lr else 'fitted'} | {len(x)} | {number(stats['mean'])} "
               f"| {number(stats['std'])} | {number(median_of(cell, lambda r: r['seconds']['total']), 1)} "
               f"| {number(median_of(cell, lambda r: r['peak_memory_mb']), 0)} |")
        if y:
            row += f" {np.mean(y):.3f} | {number(median_of(others, lambda r: r['seconds']['total']), 1)} |"
            row += " {} | {} |".format(*map(number, difference(x, y))) if len(x) >= 2 and len(y) >= 2 else " | |"
        else:
            row += " | | | |"
        lines.append(row)
    return lines + [""]


def probe_lines(probe_runs, plain_runs, num_layers):
    """report.md lines: the linear probe per train size beside the head trained on the same frozen
    features (k = L) and the full fine-tune (k = 0), and how much of k = L's loss it recovers."""
    if not probe_runs:
        return []
    plain = cells_of(plain_runs)
    lines = ["## Linear probe", "",
             f"With every layer frozen, a linear model fitted properly to the model's sentence embedding (probe.py: "
             f"scikit-learn's LogisticRegressionCV, its C by 5 stratified folds of the training subset, the dev split "
             f"scored once), beside the head trained by "
             f"the protocol on them (k = {num_layers}) and the full fine-tune (k = 0). *Recovered*: "
             f"(probe - k = {num_layers}) / (k = 0 - k = {num_layers}).", "",
             f"| train size | probe runs | probe mean | probe std | probe train acc | k = {num_layers} mean "
             f"| k = 0 mean | recovered |", "|---|---|---|---|---|---|---|---|"]
    for size in sorted({r["config"]["size"] for r in probe_runs}):
        runs = [r for r in probe_runs if r["config"]["size"] == size]
        stats = describe([r["best_accuracy"] for r in runs])
        train = np.mean([r["train_at_score"]["accuracy"] for r in runs])
        head = [r["best_accuracy"] for r in plain.get((size, num_layers), [])]
        full = [r["best_accuracy"] for r in plain.get((size, 0), [])]
        recovered = ((stats["mean"] - np.mean(head)) / (np.mean(full) - np.mean(head))
                     if head and full and np.mean(full) != np.mean(head) else float("nan"))
        lines.append(f"| {size} | {len(runs)} | {number(stats['mean'])} | {number(stats['std'])} | {number(float(train))} "
                     f"| {number(float(np.mean(head))) if head else ''} | {number(float(np.mean(full))) if full else ''} "
                     f"| {'' if np.isnan(recovered) else f'{recovered:.0%}'} |")
    return lines + [""]
