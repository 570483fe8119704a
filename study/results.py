"""
A folder of run results, read and summarised: the runs that parse (and the one precision they
share; what a folder may hold is result.py's check_folder, a run's own rule), the runs grouped into cells, and the statistics the reports print: per cell mean, median,
std, min and max, and the difference of two cells against seed noise. And where a grid stands,
for make (after each run, and `make status`):

    python -m study.results progress results/sst2/minilm/freeze2_size200_seed1.json <every run of the grid>
    python -m study.results status <every run of the grid>
"""

import glob
import json
import math
import os
import re
import sys

import numpy as np

import result as run_result

STATISTICS = ("mean", "median", "std", "min", "max")


def load_results(folder, figure="best_accuracy"):
    """Every parsable run result in `folder` that holds `figure` (the blog study's best accuracy;
    lee_report.py asks for the score); a file that cannot be read is named and skipped. A run that
    evaluated only once (make advise's: --evaluations last) has no best of evaluations: the study's
    figure skips it, and the answer (figure="score") reads it."""
    results = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as f:
                result = json.load(f)
            result["config"]["freeze"], result["config"]["size"], result[figure]
            if figure == "best_accuracy" and result["config"].get("evaluations") == "last":
                continue
            results.append(result)
        except (ValueError, KeyError, TypeError) as e:
            print(f"report.py: skipping {path}: not a run result ({type(e).__name__})", file=sys.stderr)
    return results


# ----------------------------------------------------------------------------------------------
# What a folder of runs may hold

def precision_of(results, folder):
    """The one precision every run in `folder` ran in: a cell pools its seeds, and fp32 and bf16
    seeds pooled would hide a difference a report exists to show."""
    counts = {}
    for result in results:
        counts[result["config"]["precision"]] = counts.get(result["config"]["precision"], 0) + 1
    if len(counts) > 1:
        raise ValueError(f"{folder} mixes precisions ({', '.join(f'{n} runs {p}' for p, n in sorted(counts.items()))}): "
                         "move one precision's runs to a folder of their own, and compare the two with --against")
    return next(iter(counts))


def device_of(result):
    """'cpu' or 'cuda': the kind of device a run ran on."""
    return result["config"]["device"].split(":")[0]


def devices_line(results):
    """Where the runs were made: 'cpu', or 'cpu (113 runs: AMD EPYC) and cuda (5 runs: NVIDIA H100
    80GB HBM3)' (a run whose processor was not recorded, null, names only the kind of device)."""
    kinds = {}
    for result in results:
        kinds.setdefault(device_of(result), set()).add(result["processor"])
    if len(kinds) == 1:
        return next(iter(kinds))
    counts = {kind: sum(device_of(r) == kind for r in results) for kind in kinds}
    named = lambda kind: ", ".join(sorted(p for p in kinds[kind] if p)) or kind
    return " and ".join(f"{kind} ({counts[kind]} runs: {named(kind)})" for kind in sorted(kinds))


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


def describe(values):
    """mean, median, sample std (ddof=1; NaN, printed blank, for a single run), min, max."""
    values = np.asarray(values, dtype=float)
    std = values.std(ddof=1) if len(values) > 1 else float("nan")
    return dict(zip(STATISTICS, (values.mean(), np.median(values), std, values.min(), values.max())))


def number(value, digits=3):
    """A table entry: blank for a missing or undefined value."""
    if value is None or value == "" or (isinstance(value, float) and np.isnan(value)):
        return ""
    return f"{round(value, digits) + 0.0:.{digits}f}" if isinstance(value, float) else str(value)  # no "-0.000"


def cells_of(results, keys=("size", "freeze")):
    """{(train size, frozen layers): [runs]}; keys=("size", "freeze", "lr") keeps each rate of a
    search a cell of its own, so rates never pool."""
    cells = {}
    for result in results:
        cells.setdefault(tuple(result["config"][key] for key in keys), []).append(result)
    return cells


def median_of(runs, figure):
    """The median of figure(run) over the runs that recorded it; NaN (blank) if none did."""
    values = []
    for r in runs:
        try:
            values.append(figure(r))
        except KeyError:
            pass
    return float(np.median(values)) if values else float("nan")


def difference(these, those):
    """mean(these) - mean(those), and twice the standard error of that difference: two sets of
    seeds agree when the difference is within it (seed noise alone moves it that far)."""
    these, those = np.asarray(these, dtype=float), np.asarray(those, dtype=float)
    return difference_of_summaries((these.mean(), these.std(ddof=1), len(these)),
                                   (those.mean(), those.std(ddof=1), len(those)))


def difference_of_summaries(these, those):
    """difference() from (mean, sample std, runs) of each set, for sets published only as such."""
    (mean_a, sd_a, n_a), (mean_b, sd_b, n_b) = these, those
    return float(mean_a - mean_b), 2 * math.sqrt(sd_a ** 2 / n_a + sd_b ** 2 / n_b)


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


def timing_kind(path):
    """What a run's time depends on, from its file name: (depth, size, reset layers, method), not
    its seed or learning rate."""
    run = run_result.parse_name(path)
    return (run.freeze, run.size, run.reinit, run.method) if run else os.path.basename(path)


def time_left(runs):
    """(runs done, seconds the pending runs of a timed kind will take one at a time or None before any
    run is done, pending runs of a kind not yet timed). A pending run is expected to take the median
    time of the done runs of its kind; one of a kind none of whose runs is done has no estimate, for
    depths differ by 20x and sizes as much, and a guess from another kind misleads a plan."""
    done, pending = {}, []
    for path in runs:
        try:
            with open(path) as f:
                done[path] = json.load(f)["seconds"]["total"]
        except (OSError, ValueError, KeyError, TypeError):
            pending.append(path)
    if not done:
        return 0, None, len(pending)
    timed = {}
    for path, seconds in done.items():
        timed.setdefault(timing_kind(path), []).append(seconds)
    estimable = [path for path in pending if timing_kind(path) in timed]
    left = sum(float(np.median(timed[timing_kind(path)])) for path in estimable)
    return len(done), left, len(pending) - len(estimable)


def duration(seconds):
    if seconds < 60:
        return "under a minute"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def make_jobs():
    """The N of `make -j N` this process was started under (1 without; all the cores for a bare -j)."""
    jobs = re.findall(r"(?:^|\s)-j\s*(\d*)", os.environ.get("MAKEFLAGS", ""))
    if not jobs:
        return 1
    return int(jobs[-1]) if jobs[-1] else os.cpu_count() or 1


def last_log_line(path):
    """The last line a run printed: its result's summary, or why it stopped ('' without a log)."""
    try:
        with open(run_result.log_of(path)) as f:
            return (f.read().rstrip().splitlines() or [""])[-1]
    except OSError:
        return ""


def progress_line(finished, runs):
    """A run just finished: its place in the grid, its result's line (the last of its log), the time left."""
    count = time_left(runs)[0]
    return f"[{count}/{len(runs)}] {last_log_line(finished)} | {where_the_grid_stands(runs).split(', ', 1)[-1]}"


def where_the_grid_stands(runs):
    """'57 of 200 runs done, about 1 h 12 min left' (divided over make -j N's runs at once); the runs
    of a depth and size not yet timed are counted apart, never guessed."""
    count, left, untimed = time_left(runs)
    jobs = make_jobs()
    text = f"{count} of {len(runs)} runs done"
    if left is None:
        return text + ", no estimate until one is"
    if left:
        text += (f", {'' if left / jobs < 60 else 'about '}{duration(left / jobs)} left"
                 + (f" at {jobs} at once" if jobs > 1 else "") + (" for the kinds timed" if untimed else ""))
    if untimed:
        text += f", {untimed} left of a depth and size not yet timed (no estimate until one of each has run)"
    return text


# ----------------------------------------------------------------------------------------------
# A folder's lock

class Busy(ValueError):
    pass


def holder(path):
    """The process id a lock file names while that process lives, else None."""
    try:
        with open(path) as f:
            pid = int(f.read().strip())
        os.kill(pid, 0)
    except (OSError, ValueError) as e:
        return pid if isinstance(e, PermissionError) else None
    return pid


def take_lock(folder, name):
    """The folder's lock, a file `name` in it naming this process (make advise's: a folder holds one
    search at a time); refused while another search's process lives. A lock whose process is gone
    (a killed search) is taken over. Returns its path."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    pid = holder(path)
    if pid is not None:
        raise Busy(f"{folder} is being searched by process {pid} (its lock: {path}); wait for it or stop it")
    if os.path.exists(path):
        os.remove(path)
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        raise Busy(f"{folder} is being searched by another process (its lock: {path})") from None
    with os.fdopen(descriptor, "w") as f:
        f.write(str(os.getpid()))
    return path


def main(argv):
    if len(argv) >= 2 and argv[0] == "progress":  # a run just finished: its place, its line, the time left
        print(progress_line(argv[1], argv[2:]))
    elif argv and argv[0] == "status":
        print(where_the_grid_stands(argv[1:]))
    else:
        sys.exit("usage: python -m study.results progress RESULT RUNS... | status RUNS...")


if __name__ == "__main__":
    main(sys.argv[1:])
