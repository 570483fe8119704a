"""
The report's answer: per train size every cell that ran, whichever method (the recipe's fine-tune
at each depth, with its top reset or at another rate, SetFit, the probe), read alike, and the one
recommendation across them.

Read alike means two things. Every cell is scored at a point chosen without the dev split (the
*fair* score: the recipe's last evaluation, where the study's own figure is the best of about 20;
SetFit and the probe score the dev split once). And "within noise of the best" is never narrower
than the dev split allows: a cell with no seed spread (the probe is deterministic) still carries
the dev split's own standard error, so it cannot shut out every other cell.
"""

import math

import numpy as np

import methods
import metrics
from methods import lr_text
from result import cell_of, method_of, mixed_setting, name_of
from study.folder import device_of
from study.paired import examples_of, noise_between
from study.stats import describe, median_of


def size_order(size):
    return (size == "all", 0 if size == "all" else size)  # 50, 100, ..., then the whole set


def kind_name(config):
    """The method, at whatever rate: 'fine-tune', 'fine-tune, top 2 reset', 'SetFit', 'probe'."""
    return methods.get(method_of(config)).label + (f", top {config['reinit']} reset" if config["reinit"] else "")


def other_rate(config):
    """'2e-4' when the run's rate is not its method's own at its train size, else '' (what its
    result's name says: result.name_of)."""
    rate = name_of(config).lr
    return lr_text(rate) if rate is not None else ""


def method_name(config):
    """The cell's method: its kind, and its rate where that is not the method's own ('fine-tune, lr 2e-4')."""
    return kind_name(config) + (f", lr {other_rate(config)}" if other_rate(config) else "")


def judged_by(runs):
    """The metric a folder's answer reads: the one its runs were judged by (the task's own, or what
    --metric / METRIC= named; one a folder, result.check_folder)."""
    return runs[0]["metric"]


def fair_scores(run):
    """A run's scores, every metric (not the curve's step, loss or seconds), at a point chosen without
    the dev split: the recipe's last evaluation (Lee's: its score); SetFit and the probe score once."""
    point = run["curve"][-1] if run["curve"] else run["at_score"]
    return {name: score for name, score in point.items() if name in metrics.NAMES}


def fair_score(run, metric):
    return fair_scores(run)[metric]


def best_seed(runs, score):
    """The seed of one cell's `runs` whose `score` (a run's score on the dev split) is highest, the
    lowest of equals: the run whose model a user keeps of the cell (make best; make advise's kept
    seed). A seed is one draw of a run's randomness, and the dev-best one scored above the seeds'
    mean on the test files (docs/records/kept-seed-2026-12-03)."""
    return max(runs, key=lambda run: (score(run), -run["config"]["seed"]))["config"]["seed"]


def dev_standard_error(score, metric, dev_size):
    """How far the dev split alone moves a score: the binomial sqrt(p (1 - p) / N) for accuracy and
    F1 (macro-F1 too, as a proportion: a rough guide where classes are small); (1 - r^2) / sqrt(N - 1)
    for a correlation (MCC, Pearson, Spearman)."""
    if metric in ("accuracy", "f1", "macro_f1"):
        return math.sqrt(max(score * (1 - score), 0.0) / dev_size)
    return (1 - score ** 2) / math.sqrt(dev_size - 1)


def answer_cells(runs, metric):
    """One row per cell (result.cell_of: size, method and rate, depth): its runs' best-of-evaluations
    and fair scores, train score, cost and the runs. A cell whose runs differ in a setting (result.mixed_setting:
    pooling, precision, SetFit's pairs, ...) is refused."""
    groups = {}
    for run in runs:
        groups.setdefault((run["config"].get("model"), cell_of(run["config"])), []).append(run)  # one checkpoint's, or several's
    rows = []
    def order(item):  # by size, method, depth, then rate (a method's own rate among the others)
        config = item[1][0]["config"]
        return size_order(config["size"]), kind_name(config), config["freeze"], config["lr"] or 0.0

    for _, cell in sorted(groups.items(), key=order):
        config = cell[0]["config"]
        size, name, k = config["size"], method_name(config), config["freeze"]
        mixed = mixed_setting([r["config"] for r in cell])
        if mixed:
            setting, values = mixed
            raise ValueError(f"the cell n = {size}, {name}, k = {k} mixes {setting} {' and '.join(values)}: "
                             "its runs cannot be pooled; move one kind to a folder of its own")
        # the best of evaluations, of the runs that made them (make advise's evaluate once)
        best = describe([r["best"][metric] for r in cell if r["config"].get("evaluations") != "last"] or [float("nan")])
        fair = describe([fair_score(r, metric) for r in cell])
        train = [r["train_at_score"][metric] for r in cell if r["train_at_score"]]
        rows.append(dict(size=size, method=name, freeze=k, runs=len(cell), best_mean=best["mean"], fair_mean=fair["mean"],
                         fair_std=fair["std"], train_mean=float(np.mean(train)) if train else float("nan"),
                         seconds=median_of(cell, lambda r: r["seconds"]["total"]),
                         peak_mb=median_of(cell, lambda r: r["peak_memory_mb"]),
                         trainable=cell[0]["trainable_parameters"], steps=cell[0].get("total_steps"),
                         dev_size=cell[0]["dev_size"], devices={device_of(r) for r in cell},
                         constant=cell[0]["constant"][metric], config=cell[0]["config"],
                         examples=[examples_of(r) for r in cell],  # per run, its dev outputs (None: not kept)
                         records=cell))  # the runs themselves (make best keeps the dev-best of them)
    share_cost_across_rates(rows)
    return rows


def same_work(config):
    """What a run's time depends on: its checkpoint, size, method, depth and precision, never its rate."""
    return config.get("model"), config["size"], kind_name(config), config["freeze"], config["precision"]


def share_cost_across_rates(rows):
    """Give each row a 'cost': the fastest median seconds among the cells of the same work. A busy
    or slower machine only ever slows a run down, so the session a rate happened to run in cannot
    choose between rates."""
    medians = {}
    for row in rows:
        medians.setdefault(same_work(row["config"]), []).append(row["seconds"])
    for row in rows:
        timed = [seconds for seconds in medians[same_work(row["config"])] if not np.isnan(seconds)]
        row["cost"] = min(timed) if timed else float("nan")


def cheapest_within(rows, floor, score, cost):
    """The study's one recommendation rule: of the rows whose `score` is at least `floor`, the
    cheapest by `cost` (of equal costs, the better score); None when none is. The answer applies it
    to every method's cells (recommend), the recipe's own table to its depths (study/report.py)."""
    good = [row for row in rows if row[score] >= floor and not np.isnan(row[cost])]
    return min(good, key=lambda row: (row[cost], -row[score])) if good else None


def recommend(cells, metric):
    """(the recommended cell, the best, the noise band): the cheapest cell whose fair mean is within
    the band of the best fair mean, the band the larger of the best cell's seed std and the dev
    split's standard error at its score; of cells that cost the same (one method and depth at
    several rates), the better fair mean. Cells run on two kinds of device are refused: the pick is
    by seconds, and a GPU's seconds say nothing of a run's cost on a CPU."""
    devices = sorted(set().union(*(row["devices"] for row in cells)))
    if len(devices) > 1:
        raise ValueError(f"the cells at n = {cells[0]['size']} ran on {' and '.join(devices)}, and the pick is by "
                         "seconds a run: move one device's runs to a folder of their own")
    best = max(cells, key=lambda row: row["fair_mean"])
    band = max(np.nan_to_num(best["fair_std"]), dev_standard_error(best["fair_mean"], metric, best["dev_size"]))
    return cheapest_within(within_noise(cells, best, band, metric), -math.inf, "fair_mean", "cost") or best, best, band


def band_between(row, best, band, metric):
    """The band `row` is held to against the best row (paired.noise_between: the paired rule where
    both kept their dev outputs, else `band`, the level's)."""
    return noise_between(row.get("examples"), best.get("examples"), metric, np.nan_to_num(best["fair_std"]), band)


def within_noise(rows, best, band, metric):
    """The rows whose fair mean is within their band (band_between) of the best's."""
    return [row for row in rows if row["fair_mean"] >= best["fair_mean"] - band_between(row, best, band, metric)]


def runner_up(cells, pick, best, band, metric):
    """The answer's second choice: the rule applied to the cells of another method or depth than the
    pick's (its other rates are the same choice), the next cheapest within the band, else the best of
    them; None when there are none."""
    rest = [row for row in cells if same_work(row["config"]) != same_work(pick["config"])]
    if not rest:
        return None
    return cheapest_within(within_noise(rest, best, band, metric), -math.inf, "fair_mean", "cost") \
        or max(rest, key=lambda row: row["fair_mean"])
