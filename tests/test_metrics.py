"""metrics.py on worked examples and against independent computations."""

import numpy as np
import pytest

import metrics


def test_matthews_correlation():
    labels = np.array([1, 1, 1, 0, 0, 0, 0, 1])
    predictions = np.array([1, 1, 0, 0, 0, 1, 0, 1])
    # tp=3 tn=3 fp=1 fn=1: (9 - 1) / sqrt(4 * 4 * 4 * 4)
    assert metrics.matthews_corrcoef(labels, predictions, 2) == pytest.approx(0.5)
    assert metrics.matthews_corrcoef(labels, np.zeros(8, dtype=int), 2) == 0.0
    assert metrics.matthews_corrcoef(np.array([0, 1, 2, 2]), np.array([0, 1, 2, 2]), 3) == pytest.approx(1.0)


def test_f1_of_class_1():
    labels = np.array([1, 1, 1, 0, 0, 0, 0, 1])
    predictions = np.array([1, 1, 0, 0, 0, 1, 1, 1])
    # tp=3 fp=2 fn=1: precision 3/5, recall 3/4, F1 = 2 * 0.6 * 0.75 / 1.35 = 2/3
    assert metrics.f1_of_class_1(labels, predictions) == pytest.approx(2 / 3)
    # MRPC's majority answer (always paraphrase, 279 of 408): the README's 0.812
    mrpc = np.array([1] * 279 + [0] * 129)
    assert round(metrics.f1_of_class_1(mrpc, np.ones(408, dtype=int)), 3) == 0.812
    assert metrics.f1_of_class_1(labels, np.zeros(8, dtype=int)) == 0.0


def brute_force_ranks(values):
    """Rank of each value: 1 + how many are smaller + half of the others equal to it."""
    return np.array([1 + np.sum(values < v) + (np.sum(values == v) - 1) / 2 for v in values])


def test_pearson_and_spearman_against_independent_computations():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = 0.6 * x + rng.normal(size=200)
    assert metrics.pearson(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)
    scores = np.round(rng.uniform(0, 5, size=300) * 5) / 5  # STS-B-like scores, many ties
    predicted = scores + rng.normal(scale=1.0, size=300)
    assert metrics.ranks(scores).tolist() == brute_force_ranks(scores).tolist()
    expected = np.corrcoef(brute_force_ranks(scores), brute_force_ranks(predicted))[0, 1]
    assert metrics.spearman(scores, predicted) == pytest.approx(expected, abs=1e-12)
    # worked example: ranks 1, 2.5, 2.5, 4 against 1, 2, 3, 4
    assert metrics.ranks([0.5, 2.0, 2.0, 3.0]).tolist() == [1, 2.5, 2.5, 4]
    assert metrics.spearman([1, 2, 3, 4], [10, 20, 25, 100]) == pytest.approx(1.0)
    assert metrics.spearman([1, 2, 3], [3, 3, 3]) == 0.0  # a constant prediction


def test_scores_by_kind_of_task():
    assert set(metrics.scores(np.array([0, 1, 1]), np.array([0, 1, 0]), 2)) == {"accuracy", "mcc", "macro_f1", "f1"}
    assert set(metrics.scores(np.array([0, 1, 2]), np.array([0, 1, 0]), 3)) == {"accuracy", "mcc", "macro_f1"}
    assert set(metrics.scores(np.array([0.5, 1, 2]), np.array([0, 1, 0]), 1)) == {"pearson", "spearman"}


def test_the_best_constant_prediction_per_metric():
    # MRPC-like: 3 of 4 positive. Majority class: accuracy 0.75; always class 1: F1 2 x 3 / (4 + 3);
    # any one class: MCC 0
    # macro-F1: class 1's 6 / 7 beside class 0's 0
    assert metrics.constant_scores(np.array([1, 0, 1, 1]), 2) == pytest.approx(dict(accuracy=0.75, mcc=0.0, f1=6 / 7,
                                                                                    macro_f1=3 / 7))
    # the majority is class 0 here, yet F1 (of class 1) is still best predicting class 1 for all
    assert metrics.constant_scores(np.array([0, 0, 0, 1]), 2) == pytest.approx(dict(accuracy=0.75, mcc=0.0, f1=0.4,
                                                                                    macro_f1=3 / 7))
    # macro-F1 over three classes, one predicted: class 2's 2 x 3 / (5 + 3), over 3
    assert metrics.constant_scores(np.array([2, 0, 2, 1, 2]), 3) == pytest.approx(dict(accuracy=0.6, mcc=0.0,
                                                                                       macro_f1=0.25))
    assert metrics.constant_scores(np.array([0.5, 1.0, 4.2]), 1) == dict(pearson=0.0, spearman=0.0)


def test_macro_f1_is_the_mean_of_each_class_s_f1():
    labels, predictions = np.array([0, 0, 1, 2, 2, 2]), np.array([0, 1, 1, 2, 2, 0])
    # class 0: 1 hit of 2 predicted and 2 true; class 1: 1 of 2 and 1; class 2: 2 of 2 and 3
    assert metrics.macro_f1(labels, predictions) == pytest.approx((2 / 4 + 2 / 4 * 4 / 3 + 4 / 5) / 3)
    # a class only predicted counts, at 0 (scikit-learn's classes: those of the labels or the predictions)
    assert metrics.macro_f1(np.array([0, 0]), np.array([0, 1])) == pytest.approx((2 / 3 + 0) / 2)
    assert metrics.scores(labels, predictions, 3)["macro_f1"] == metrics.macro_f1(labels, predictions)
    assert "macro_f1" in metrics.names_for(6) and "f1" not in metrics.names_for(6) and metrics.names_for(1) == (
        "pearson", "spearman")
