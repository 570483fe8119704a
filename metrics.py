"""
How a dev split is scored. Classification: accuracy, Matthews correlation (CoLA's metric in Lee et
al. 2019), macro-F1 (the mean of every class's F1, as scikit-learn's f1_score(average="macro"):
TweetEval's and most imbalanced tasks' metric) and, for two classes, the F1 of class 1 (MRPC's: the
paraphrase class). Regression: Pearson and Spearman correlation (STS-B's). Each task names one of
them its primary metric (data.Task.metric; --metric another): the one that picks a run's best
evaluation and heads the report.
"""

import math

import numpy as np

NAMES = ("accuracy", "mcc", "macro_f1", "f1", "pearson", "spearman")  # every metric an evaluation can report


def names_for(num_labels):
    """The metrics a task of num_labels scores (1: regression)."""
    if num_labels == 1:
        return ("pearson", "spearman")
    return ("accuracy", "mcc", "macro_f1") + (("f1",) if num_labels == 2 else ())


def matthews_corrcoef(labels, predictions, num_labels):
    """Matthews correlation for any number of classes."""
    confusion = np.zeros((num_labels, num_labels))
    np.add.at(confusion, (labels, predictions), 1)
    t, p, c, s = confusion.sum(1), confusion.sum(0), np.trace(confusion), confusion.sum()
    denominator = math.sqrt((s * s - p @ p) * (s * s - t @ t))
    return 0.0 if denominator == 0 else float((c * s - t @ p) / denominator)


def f1_of_class_1(labels, predictions):
    """2 precision recall / (precision + recall) of class 1; 0 when it is never predicted right."""
    hits = np.sum((predictions == 1) & (labels == 1))
    predicted, actual = np.sum(predictions == 1), np.sum(labels == 1)
    return 0.0 if hits == 0 else float(2 * hits / (predicted + actual))


def macro_f1(labels, predictions):
    """The mean F1 over the classes that occur in the labels or the predictions (scikit-learn's
    average="macro", which leaves out a class neither has; a class never predicted right scores 0)."""
    per_class = []
    for c in np.union1d(labels, predictions):
        hits = np.sum((predictions == c) & (labels == c))
        per_class.append(2 * hits / (np.sum(predictions == c) + np.sum(labels == c)))
    return float(np.mean(per_class))


def pearson(x, y):
    """Pearson correlation; 0 when either side is constant (a model that predicts one score)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    x, y = x - x.mean(), y - y.mean()
    denominator = math.sqrt((x @ x) * (y @ y))
    return 0.0 if denominator == 0 else float(x @ y / denominator)


def ranks(values):
    """1-based ranks, ties sharing the mean of the ranks they span (as Spearman's rho needs)."""
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    # the start of each run of equal values, and each value's run
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    run = np.cumsum(np.r_[True, sorted_values[1:] != sorted_values[:-1]]) - 1
    ends = np.r_[starts[1:], len(values)]  # exclusive
    result = np.empty(len(values))
    result[order] = (starts[run] + ends[run] + 1) / 2  # mean of ranks starts+1 .. ends
    return result


def spearman(x, y):
    """Spearman's rho: the Pearson correlation of the ranks."""
    return pearson(ranks(x), ranks(y))


def scores(labels, predictions, num_labels):
    """Every metric the task's kind has: {name: value} for one evaluation of the dev split."""
    if num_labels == 1:
        return dict(pearson=pearson(labels, predictions), spearman=spearman(labels, predictions))
    result = dict(accuracy=float(np.mean(predictions == labels)),
                  mcc=matthews_corrcoef(labels, predictions, num_labels), macro_f1=macro_f1(labels, predictions))
    if num_labels == 2:
        result["f1"] = f1_of_class_1(labels, predictions)
    return result


def halves(size):
    """Two fixed halves of a dev split of `size` examples, the same for every run (a seeded
    permutation): `make advise` picks on the first and reports its pick's score on the second,
    which the pick never saw (study/search/advise.py)."""
    order = np.random.default_rng(0).permutation(size)
    return np.sort(order[:size // 2]), np.sort(order[size // 2:])


def dev_scores(labels, predictions, num_labels):
    """scores(), and under "halves" the same on each of the dev split's two fixed halves."""
    labels, predictions = np.asarray(labels), np.asarray(predictions)
    return dict(scores(labels, predictions, num_labels),
                halves=[scores(labels[half], predictions[half], num_labels) for half in halves(len(labels))])


def constant_scores(labels, num_labels):
    """What the best constant prediction scores on these labels, metric by metric: one class for
    every example (the majority class for accuracy, always class 1 for F1; MCC is 0 for any), or for
    regression one score (no correlation: 0). A depth that scores no more has learnt nothing."""
    if num_labels == 1:
        return dict(pearson=0.0, spearman=0.0)
    labels = np.asarray(labels)
    each = [scores(labels, np.full_like(labels, c), num_labels) for c in range(num_labels)]
    return {name: max(s[name] for s in each) for name in each[0]}
