"""
The study's report from a folder of run results (results/<dataset>/<model>/*.json):

    python -m study.report results/sst2/minilm --seeds 5

writes, next to the results, the appendix table (report.md, report.csv): per train size and
number of frozen layers, the runs and the mean, median, std, min and max of the best dev
accuracy (and of the best MCC for CoLA), beside the published roberta-base figures at the same
fraction of layers frozen; then, per train size, what the grid shows (how far freezing goes
before the mean drops, where freezing everything lands, the seed spread, the paper's operating
point), for this model and for the published roberta-base grid; what each depth costs (time a run,
peak memory, trainable parameters, the train score beside the dev score) and the cheapest depth
within one k = 0 std; the sections that set other methods beside it (methods.py); and two
figures (figures.py): figure.png and cost.png.
"""

import argparse
import os
import sys

import numpy as np

from atomic import check_can_hold, write_atomically
import methods
from result import method_of, model_label, name_of
from study import figures
from study.published import REFERENCE_LAYERS, blog_rows, reference_depth, reports_mcc
from study.answer import answer_cells, cheapest_within, judged_by
from study.answer_text import answer_lines, summary_lines
from study.sections import method_lines, probe_lines, reinit_lines
from study.folder import cells_of, devices_line, load_results, no_results, precision_of, scores_a_regression, table
from study.stats import STATISTICS, difference, number
def recommendation(rows, size, figure="accuracy"):
    """The cheapest depth (median seconds a run) whose mean figure (accuracy, or CoLA's MCC) is within
    one k = 0 std of the full fine-tune's, at one train size: (its row, the k = 0 row), or None
    without k = 0."""
    cells = {row["frozen_layers"]: row for row in rows if row["train_size"] == size}
    if 0 not in cells or np.isnan(cells[0][f"{figure}_std"]):
        return None
    floor = cells[0][f"{figure}_mean"] - cells[0][f"{figure}_std"]  # the blog's yardstick: k = 0, its seed std
    cheapest = cheapest_within(list(cells.values()), floor, f"{figure}_mean", "seconds_median")
    return (cheapest, cells[0]) if cheapest else None


def cost_lines(rows, model_name, figure="accuracy"):
    """report.md lines: per train size, what each depth costs and scores against k = 0, and the
    recipe's cheapest depth within noise of k = 0, made on `figure` (the best accuracy, or CoLA's best MCC)."""
    lines = ["## What each depth costs", "",
             f"{model_name}, per cell: the mean best dev accuracy, the mean train accuracy at the run's "
             "evaluation (the training subset scored with that evaluation's weights; the gap to dev shows "
             "over-fitting), the median wall time of a run (of which computing the frozen prefix; a grid "
             "computes it once per cell and every later seed reads it) and its peak memory, and the "
             f"trainable parameters. *Cheapest depth*: the blog's question, asked of the recipe alone at its "
             f"rate: the cheapest depth whose mean best dev {'accuracy' if figure == 'accuracy' else 'MCC'} is "
             "within one k = 0 std of the full fine-tune's. The report's one recommendation, across every "
             "method and rate and read fairly, is under *The answer*.", ""]
    for size in sorted({row["train_size"] for row in rows}):
        cells = [row for row in rows if row["train_size"] == size]
        full = next((row for row in cells if row["frozen_layers"] == 0), None)
        lines += [f"**n = {size}**", "",
                  "| frozen | dev acc | train acc | gap | s / run | of which prefix | vs k = 0 | peak MB | trainable |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for row in cells:
            speed = full["seconds_median"] / row["seconds_median"] if full else float("nan")
            lines.append(f"| {row['frozen_layers']} | {number(row['accuracy_mean'])} | {number(row['train_accuracy_mean'])} "
                         f"| {number(row['train_accuracy_mean'] - row['accuracy_mean'])} | {number(row['seconds_median'], 1)} "
                         f"| {number(row['prefix_seconds_median'], 1)} | {'' if np.isnan(speed) else f'{speed:.1f}x'} "
                         f"| {number(row['peak_memory_mb_median'], 0)} | {number(row['trainable_parameters'])} |")
        pick = recommendation(rows, size, figure)
        if pick:
            best, full = pick
            name = "" if figure == "accuracy" else "MCC "
            lines += ["", f"The recipe's cheapest depth at n = {size}: freeze {best['frozen_layers']} ({name}{number(best[f'{figure}_mean'])} "
                      f"against {number(full[f'{figure}_mean'])} ± {number(full[f'{figure}_std'])} at k = 0), "
                      f"{full['seconds_median'] / best['seconds_median']:.1f}x faster a run "
                      f"({number(best['seconds_median'], 1)} s against {number(full['seconds_median'], 1)} s)."]
        lines.append("")
    return lines


def operating_points(rows, num_layers, fraction=0.9, metric="accuracy"):
    """Per train size, the paper's operating point: the most frozen layers (fewest trained)
    whose mean is at least `fraction` of the full fine-tune's (k = 0) mean."""
    points = {}
    for size in sorted({row["train_size"] for row in rows}):
        cells = {row["frozen_layers"]: row[f"{metric}_mean"] for row in rows if row["train_size"] == size}
        if 0 in cells:
            k = max(k for k, mean in cells.items() if mean >= fraction * cells[0])
            points[size] = dict(frozen_layers=k, trainable_layers=num_layers - max(k, 0),
                                mean=cells[k], full_mean=cells[0])
    return points


def findings(rows, num_layers, baseline, metric="accuracy"):
    """
    Per train size, with the full fine-tune (k = 0) as the yardstick and its seed std as the noise:
    the most layers that can be frozen before the mean first drops more than one std below k = 0's
    (walking k = 1, 2, ... over the depths in the grid), where freezing every layer lands against
    `baseline` (the majority class; 0 for MCC), the median seed std over the depths, and the
    paper's 90% operating point.
    """
    points = operating_points(rows, num_layers, metric=metric)
    out = {}
    for size, point in points.items():
        cells = {row["frozen_layers"]: row for row in rows if row["train_size"] == size}
        full_mean, full_std = cells[0][f"{metric}_mean"], cells[0][f"{metric}_std"]
        within = 0
        for k in sorted(k for k in cells if k > 0):
            if cells[k][f"{metric}_mean"] < full_mean - full_std:
                break
            within = k
        stds = [row[f"{metric}_std"] for row in cells.values() if not np.isnan(row[f"{metric}_std"])]
        all_frozen = cells[num_layers][f"{metric}_mean"] if num_layers in cells else float("nan")
        out[size] = dict(full_mean=full_mean, full_std=full_std, within_one_std=within,
                         all_frozen_mean=all_frozen, all_frozen_above_baseline=all_frozen - baseline,
                         median_std=float(np.median(stds)) if stds else float("nan"),
                         operating_point=point["frozen_layers"])
    return out


def comparison_lines(results, other_results, other_folder, metrics):
    """report.md lines: every cell run in both folders, this folder's mean against the other's."""
    these, those = cells_of(results), cells_of(other_results)
    lines = [f"## Against {other_folder}", "",
             "Per cell run in both folders (2 runs or more in each): the difference of the means, this "
             "folder's minus the other's, and twice its standard error; *within* when the difference is "
             "no larger than that, as seed noise alone would make it.", "",
             "| train size | frozen | metric | runs | mean | other runs | other mean | difference | 2 x SE | within |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for size, k in sorted(set(these) & set(those)):
        a, b = these[(size, k)], those[(size, k)]
        if len(a) < 2 or len(b) < 2:
            continue
        for metric in metrics:
            x, y = [r[metric] for r in a], [r[metric] for r in b]
            diff, two_se = difference(x, y)
            lines.append(f"| {size} | {k} | {metric.replace('best_', '')} | {len(a)} | {np.mean(x):.3f} "
                         f"| {len(b)} | {np.mean(y):.3f} | {number(diff)} | {number(two_se)} "
                         f"| {'yes' if abs(diff) <= two_se else 'NO'} |")
    return lines + [""]


def findings_table(title, rows, num_layers, baseline, metric, baseline_name):
    """report.md lines: findings() per train size as a table."""
    lines = [f"**{title}** ({num_layers} layers)", "",
             f"| train size | k = 0 mean | k = 0 std | most frozen within 1 std | all {num_layers} frozen: mean "
             f"| minus {baseline_name} | seed std (median over k) | 90% operating point: frozen |",
             "|---|---|---|---|---|---|---|---|"]
    for size, f in findings(rows, num_layers, baseline, metric).items():
        lines.append(f"| {size} | {number(f['full_mean'])} | {number(f['full_std'])} | {f['within_one_std']} "
                     f"| {number(f['all_frozen_mean'])} | {number(f['all_frozen_above_baseline'])} "
                     f"| {number(f['median_std'])} | {f['operating_point']} |")
    if len(lines) == 4:
        lines.append("| (needs the k = 0 column) | | | | | | | |")
    return lines + [""]


def add_published(rows, reference_rows, num_layers):
    """Each row gets the study's published roberta-base figures at the same fraction of layers
    frozen (blank where that depth is not in its grid)."""
    reference = {(r["train_size"], r["frozen_layers"]): r for r in reference_rows}
    for row in rows:
        k = reference_depth(row["frozen_layers"], num_layers)
        ref = reference.get((row["train_size"], k), {})
        row.update(published_frozen_layers=k if ref else "", published_mean=ref.get("accuracy_mean", ""),
                   published_std=ref.get("accuracy_std", ""))


def write_csv(folder, rows, columns):
    def csv_lines(f):
        f.write((",".join(columns) + "\n").encode())
        for row in rows:
            f.write((",".join(number(row[c], 4) for c in columns) + "\n").encode())

    write_atomically(os.path.join(folder, "report.csv"), csv_lines)


def grid_lines(folder, rows, results, seeds, with_mcc, published):
    """The report's title, what its runs were, and the table of every (train size, k) cell."""
    first = results[0]["config"]
    precision, device = precision_of(results, folder), devices_line(results)
    lines = ["## Best dev accuracy per run", "",
             f"{len(results)} runs, all in {precision} on {device}. Majority-class baseline: "
             f"{results[0]['majority_accuracy']:.3f}. A cell with fewer runs than the {seeds} seeds shows them as "
             f"runs/{seeds}; a cell of one run has no std."]
    if published:
        lines += ["", f"roberta-base: the study's published figures ({REFERENCE_LAYERS} layers) at the same fraction of "
                  f"layers frozen, k x {REFERENCE_LAYERS} / {first['num_layers']} (blank where that depth is not in its grid)."]
    header = ["train size", "frozen", "runs"] + [f"acc {s}" for s in STATISTICS]
    header += [f"MCC {s}" for s in STATISTICS] if with_mcc else []
    header += ["roberta-base k", "roberta-base mean", "roberta-base std"] if published else []
    lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    scores = [f"accuracy_{s}" for s in STATISTICS] + ([f"mcc_{s}" for s in STATISTICS] if with_mcc else [])
    for row in rows:
        runs = str(row["runs"]) if row["runs"] >= seeds else f"{row['runs']}/{seeds}"
        cells = [str(row["train_size"]), str(row["frozen_layers"]), runs] + [number(row[c]) for c in scores]
        cells += [number(row[c]) for c in ("published_frozen_layers", "published_mean", "published_std")] if published else []
        lines.append("| " + " | ".join(cells) + " |")
    pooled = [f"- n = {row['train_size']}, k = {row['frozen_layers']}: {row['devices']}" for row in rows if row.get("devices")]
    return lines + (["", "Cells run on two kinds of device (read as study/folder.py's pool_devices says):", ""]
                    + pooled if pooled else [])


def write_tables(folder, rows, results, seeds, against=None, reset_runs=(), probe_runs=(), other_methods=(),
                 every_run=()):
    """report.csv and report.md in `folder`; `against` = (folder, results) adds a comparison, and
    reset_runs (--reinit), probe_runs (--method probe) and other_methods ((Method, runs): SetFit, LoRA,
    BitFit beside the tabled `results`) sections of their own, then the answer across every run
    (study/answer_text.py, by study/answer.py's rule). Returns the answer's picks per size."""
    first = results[0]["config"]
    task, num_layers = first["task"], first["num_layers"]
    model_name = model_label(first["model"])
    majority = results[0]["majority_accuracy"]
    with_mcc = reports_mcc(task)
    reference_rows = blog_rows(task)
    add_published(rows, reference_rows, num_layers)
    columns = ["train_size", "frozen_layers", "runs"] + [f"accuracy_{s}" for s in STATISTICS]
    columns += [f"mcc_{s}" for s in STATISTICS] if with_mcc else []
    columns += ["published_frozen_layers", "published_mean", "published_std"] if reference_rows else []
    write_csv(folder, rows, columns)
    answer, picks = answer_lines(every_run or results, judged_by(every_run or results))
    tabled = methods.get(method_of(first))
    # the task as its runs were named (make's DATASET, else the train file's name), not its identity
    lines = [f"# {first['dataset']} with {model_name}{'' if tabled.reference else f' ({tabled.label})'}", ""] + (summary_lines(picks) if picks else [])
    lines += grid_lines(folder, rows, results, seeds, with_mcc, bool(reference_rows))
    lines += ["", "## Per train size", "",
              "k = 0 (nothing frozen) is the yardstick and its seed std the noise. *Most frozen within 1 std*: "
              "walking k = 1, 2, ... over the depths in the grid, the last k before a mean falls more than one "
              "k = 0 std below the k = 0 mean. *90% operating point* (the paper's): the most frozen layers "
              "whose mean is at least 90% of the k = 0 mean.", ""]
    lines += findings_table(f"{model_name}, accuracy", rows, num_layers, majority, "accuracy", "majority")
    if with_mcc:
        lines += findings_table(f"{model_name}, MCC", rows, num_layers, 0.0, "mcc", "0")
    if reference_rows and model_name != "roberta-base":
        lines += findings_table("roberta-base, accuracy (the study's published grid)", reference_rows,
                                REFERENCE_LAYERS, majority, "accuracy", "majority")
    lines += cost_lines(rows, model_name, "mcc" if with_mcc else "accuracy")  # the grid's table: its columns
    if against:
        lines += comparison_lines(results, against[1], against[0],
                                  ("best_accuracy", "best_mcc") if with_mcc else ("best_accuracy",))
    lines += reinit_lines(reset_runs, results) + probe_lines(probe_runs, results, num_layers)
    plain_label = f"the {tabled.label}"
    for method, runs in other_methods:
        lines += method_lines(method, runs, results, plain_label)
    lines += answer
    write_atomically(os.path.join(folder, "report.md"), lambda f: f.write(("\n".join(lines)).encode()))
    return picks


def write_answer_only(folder, runs, why):
    """report.md of a folder with no grid of depths to table (make advise's runs, which evaluated
    once; probes alone): the answer is all there is. why: the sentence that says so."""
    first = runs[0]["config"]
    metric = judged_by(runs)
    answer, picks = answer_lines(runs, metric)
    lines = [f"# {first['dataset']} with {model_label(first['model'])}", "", why, ""]
    lines += (summary_lines(picks) if picks else []) + answer
    if not answer:  # one method and depth: nothing to choose between, its scores all there is
        lines += [f"One method and depth ran: nothing to choose between. Its fair dev {metric}:", "",
                  "| method | frozen | train size | runs | fair: mean | std | s / run |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {row['method']} | {row['freeze']} | {row['size']} | {row['runs']} | {number(row['fair_mean'])} "
                  f"| {number(row['fair_std'])} | {number(row['seconds'], 1)} |" for row in answer_cells(runs, metric)]
    os.makedirs(folder, exist_ok=True)
    write_atomically(os.path.join(folder, "report.md"), lambda f: f.write(("\n".join(lines)).encode()))
    print(f"report: {len(runs)} runs, the answer alone -> {folder}/report.md")


def split_by_method(runs):
    """(every run, the tabled runs, the reset ones, the probes, [(Method, its runs)] of the other
    trained methods). The grid's tables read one method at its own rate: the protocol's fine-tune
    where the folder has it, else the first trained method of methods.py's table it has (make grid
    METHOD=lora). Resets, probes and the other methods are sections of their own, and every run, at
    every rate, is a cell of the answer."""
    reset = [r for r in runs if r["config"]["reinit"]]
    plain = [r for r in runs if not r["config"]["reinit"]]
    by_method = {method: [r for r in plain if method_of(r["config"]) == method.name] for method in methods.METHODS}
    probes = [r for method, mine in by_method.items() if method.every_layer_frozen for r in mine]
    trained = [method for method in methods.METHODS if by_method[method] and not method.every_layer_frozen]
    if not trained:
        return runs, [], reset, probes, []
    first = trained[0]
    tabled = [r for r in by_method[first] if name_of(r["config"]).lr is None]  # at the method's own rate
    if not tabled:  # a line search without the method's own rate: its first rate's cells
        first_rate = min(r["config"]["lr"] for r in by_method[first])
        tabled = [r for r in by_method[first] if r["config"]["lr"] == first_rate]
    return runs, tabled, reset, probes, [(method, by_method[method]) for method in trained[1:]]


def main(argv=None):
    p = argparse.ArgumentParser(description="Tables and figure of a folder of run results.")
    p.add_argument("folder")
    p.add_argument("--seeds", type=int, default=5, help="runs a complete cell has")
    p.add_argument("--out", help="where report.md, report.csv, figure.png and cost.png go (default: the folder)")
    p.add_argument("--against", help="a second folder of runs (another way of running the same cells) "
                                     "to compare this folder's means with, against seed noise")
    args = p.parse_args(argv)
    try:
        check_can_hold("--out", args.out or args.folder)  # before the runs are read and the figures drawn
    except ValueError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    results = load_results(args.folder)
    searched = [] if results else load_results(args.folder, figure="score")
    if searched:  # a regression's runs, or make advise's: no run the study's tables read
        why = (f"These runs predict a score (a regression task, read by {searched[0]['metric']}), so this report is "
               "the answer alone: the study's tables and figures read the best accuracy. Lee et al.'s tables read "
               "regression on whole train splits (make grid PROTOCOL=lee SIZES=all)."
               if scores_a_regression(searched[0]) else
               "Every run here evaluated once (make advise's; its own report is advise.md), so this report "
               "is the answer alone: the study's tables read the best of evaluations every half epoch.")
        write_answer_only(args.out or args.folder, searched, why)
        return
    other = load_results(args.against) if args.against else None
    for folder, runs in [(args.folder, results)] + ([(args.against, other)] if args.against else []):
        if not runs:
            print(f"report.py: error: {no_results(folder)}", file=sys.stderr)
            sys.exit(2)
    out = args.out or args.folder
    try:
        for folder, runs in [(args.folder, results)] + ([(args.against, other)] if args.against else []):
            precision_of(runs, folder)
    except ValueError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    os.makedirs(out, exist_ok=True)
    every_run, tabled, reset, probes, others = split_by_method(results)
    if not tabled:  # probes alone: no grid of depths to table
        write_answer_only(out, every_run, "Every run here fitted a probe on the frozen model (no method trained a grid "
                                          "of depths to table), so this report is the answer alone.")
        return
    results = tabled
    try:
        picks = write_tables(out, table(results), results, args.seeds, against=(args.against, other) if other else None,
                             reset_runs=reset, probe_runs=probes, other_methods=others, every_run=every_run)
    except ValueError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    drew = figures.write_figure(out, results) and figures.write_cost_figure(out, table(results))
    if drew and picks:
        figures.write_answer_figure(out, every_run, picks, judged_by(every_run))
    label = methods.get(method_of(results[0]["config"])).label
    print(f"report: {len(every_run)} runs ({len(results)} of the {label} at its own rate tabled) -> {out}/report.md, report.csv"
          + (", figure.png, cost.png" if drew else " (no figures)"))


if __name__ == "__main__":
    main()
