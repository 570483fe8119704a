"""
The statistics the reports print: per cell mean, median, sample std, min and max, a table entry's
digits, and the difference of two cells against seed noise (twice the standard error).
"""

import math

import numpy as np

STATISTICS = ("mean", "median", "std", "min", "max")


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


def counted(count, noun):
    """A count and its noun, in the plural but for one: "1 run", "2 runs"."""
    return f"{count} {noun}{'s' * (count != 1)}"


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
