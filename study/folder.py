"""
A folder of run results, read: the runs that parse (and the one precision they share), the devices
they ran on (a cell's CPU and GPU runs pool only where they agree), the runs grouped into cells, and
the table a report prints, one row a cell. What a folder may hold is result.py's check_folder, a
run's own rule.
"""

import glob
import json
import math
import os
import sys

import numpy as np

import metrics

from study.stats import counted, describe, median_of

# a make advise search's folder: every round its search has made, one JSON line each, across resumes
# (study/search/search_folder.py writes them); make best refuses such a folder, which kept its own pick
ROUNDS = "advise.rounds"


def no_results(folder):
    """Why a report has nothing to read in `folder`, in one line."""
    if not os.path.isdir(folder):
        return f"{folder}: no such folder; name the grid's results folder (make: RESULTS=... or DATASET=, MODEL=)"
    return f"no run results in {folder}; run the grid first (make grid)"


def load_results(folder, figure="best_accuracy"):
    """Every parsable run result in `folder` that holds `figure` (the blog study's best accuracy;
    lee_report.py asks for the score); a file that cannot be read is named and skipped. A run that
    evaluated only once (make advise's: --evaluations last) has no best of evaluations, and a
    regression's has no accuracy: the study's figure skips them, and the answer (figure="score")
    reads them."""
    results = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as f:
                result = json.load(f)
            result["config"]["freeze"], result["config"]["size"], result["score"]
            if figure == "best_accuracy" and (result["config"].get("evaluations") == "last" or scores_a_regression(result)):
                continue
            result[figure]
            results.append(result)
        except (ValueError, KeyError, TypeError) as e:
            print(f"report.py: skipping {path}: not a run result ({type(e).__name__})", file=sys.stderr)
    return results


def scores_a_regression(result):
    """Whether a run predicted numbers (its metric is a correlation), not classes."""
    return result["metric"] in metrics.names_for(1)


def precision_of(results, folder):
    """The one precision every run in `folder` ran in: a cell pools its seeds, and fp32 and bf16
    seeds pooled would hide a difference a report exists to show."""
    counts = {}
    for result in results:
        counts[result["config"]["precision"]] = counts.get(result["config"]["precision"], 0) + 1
    if len(counts) > 1:
        mixed = ", ".join(f"{counted(n, 'run')} {p}" for p, n in sorted(counts.items()))
        raise ValueError(f"{folder} mixes precisions ({mixed}): "
                         "move one precision's runs to a folder of their own, and compare the two with --against")
    return next(iter(counts))


def device_of(result):
    """'cpu' or 'cuda': the kind of device a run ran on."""
    return result["config"]["device"].split(":")[0]


def devices_line(results):
    """Where the runs were made: 'cpu', or 'cpu (113 runs: AMD EPYC) and cuda (5 runs: NVIDIA H100
    80GB HBM3)' (a run whose processor was not recorded, null, names only the kind of device); and
    how many trained with their cell's other seeds at once (make grid SEEDS_AT_ONCE=1), whose
    seconds are each a share of their job's, not a run's own."""
    kinds = {}
    for result in results:
        kinds.setdefault(device_of(result), set()).add(result["processor"])
    if len(kinds) == 1:
        line = next(iter(kinds))
    else:
        counts = {kind: sum(device_of(r) == kind for r in results) for kind in kinds}
        named = lambda kind: ", ".join(sorted(p for p in kinds[kind] if p)) or kind
        line = " and ".join(f"{kind} ({counts[kind]} runs: {named(kind)})" for kind in sorted(kinds))
    at_once = sum(bool(result["config"].get("at_once")) for result in results)
    return line + (f"; {at_once} of the {len(results)} runs trained with their cell's other seeds at once, each "
                   "timed by its share of their seconds" if at_once else "")


def pool_devices(runs, value):
    """A cell's runs made on two kinds of device (a CPU and a GPU: the same computation through other
    kernels) pool only where they agree: each device's mean within twice the standard error of its
    difference from the rest's, that error from the cell's within-device seed std. Where they do
    not, or no device ran two seeds to measure seed noise by, the cell is read from the device with
    the most runs (the cpu on a tie: the published grids were made there), and the note says so.
    Returns (the runs to read, a note: '' when one device made them all)."""
    by_device = {}
    for run in runs:
        by_device.setdefault(device_of(run), []).append(float(value(run)))
    if len(by_device) == 1:
        return runs, ""
    groups = sorted(by_device.items())
    spread = sum(((np.asarray(v) - np.mean(v)) ** 2).sum() for _, v in groups)
    freedom = len(runs) - len(groups)
    sd = math.sqrt(spread / freedom) if freedom else float("nan")
    each = "; ".join(f"{kind} {len(v)} run{'s' if len(v) > 1 else ''}, mean {np.mean(v):.3f}" for kind, v in groups)
    agree = freedom > 0 and all(
        abs(np.mean(v) - np.mean(rest)) <= 2 * sd * math.sqrt(1 / len(v) + 1 / len(rest))
        for kind, v in groups for rest in [[x for k, w in groups if k != kind for x in w]])
    if agree:
        return runs, f"{each}: within 2 SE, pooled"
    keep = max(by_device, key=lambda kind: (len(by_device[kind]), kind == "cpu"))
    why = "differ by more than 2 SE" if freedom else "no seed noise to judge by"
    return [r for r in runs if device_of(r) == keep], f"{each}: {why}, read from {keep} alone"


def cells_of(results, keys=("size", "freeze")):
    """{(train size, frozen layers): [runs]}; keys=("size", "freeze", "lr") keeps each rate of a
    search a cell of its own, so rates never pool."""
    cells = {}
    for result in results:
        cells.setdefault(tuple(result["config"][key] for key in keys), []).append(result)
    return cells


def table(results):
    """One row per (train size, frozen layers), sorted."""
    rows = []
    for (size, freeze), runs in sorted(cells_of(results).items()):
        runs, devices = pool_devices(runs, lambda r: r["best_accuracy"])
        row = dict(train_size=size, frozen_layers=freeze, runs=len(runs), devices=devices)
        row.update({f"accuracy_{k}": v for k, v in describe([r["best_accuracy"] for r in runs]).items()})
        row.update({f"mcc_{k}": v for k, v in describe([r["best_mcc"] for r in runs]).items()})
        # the price, and the training subset's score at the run's evaluation (blank where a run did
        # not record it: null)
        train = [r["train_at_score"]["accuracy"] for r in runs if r["train_at_score"]]
        row.update(train_accuracy_mean=float(np.mean(train)) if train else float("nan"),
                   seconds_median=median_of(runs, lambda r: r["seconds"]["total"]),
                   prefix_seconds_median=median_of(runs, lambda r: r["seconds"]["prefix"]),
                   peak_memory_mb_median=median_of(runs, lambda r: r["peak_memory_mb"]),
                   trainable_parameters=runs[0]["trainable_parameters"])
        rows.append(row)
    return rows
