"""
A folder of run results, read and summarised: the runs that parse (and the one precision they
share), the runs grouped into cells, and the statistics the reports print: per cell mean, median,
std, min and max, and the difference of two cells against seed noise.
"""

import glob
import json
import math
import os
import sys

import numpy as np

STATISTICS = ("mean", "median", "std", "min", "max")


def load_results(folder, figure="best_accuracy"):
    """Every parsable run result in `folder` that holds `figure` (the blog study's best accuracy;
    lee_report.py asks for the score); a file that cannot be read is named and skipped."""
    results = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as f:
                result = json.load(f)
            result["config"]["freeze"], result["config"]["size"], result[figure]
            results.append(result)
        except (ValueError, KeyError, TypeError) as e:
            print(f"report.py: skipping {path}: not a run result ({type(e).__name__})", file=sys.stderr)
    return results


def precision_of(results, folder):
    """The one precision every run in `folder` ran in: a cell pools its seeds, and fp32 and bf16
    seeds pooled would hide a difference the report exists to show."""
    counts = {}
    for result in results:
        precision = result["config"].get("precision", "fp32")
        counts[precision] = counts.get(precision, 0) + 1
    if len(counts) > 1:
        raise ValueError(f"{folder} mixes precisions ({', '.join(f'{n} runs {p}' for p, n in sorted(counts.items()))}): "
                         "move one precision's runs to a folder of their own, and compare the two with --against")
    return next(iter(counts))


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


def cells_of(results):
    """{(train size, frozen layers): [runs]}"""
    cells = {}
    for result in results:
        cells.setdefault((result["config"]["size"], result["config"]["freeze"]), []).append(result)
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
