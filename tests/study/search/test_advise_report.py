"""study/search/advise_report.py: what advise.md says where the pick stays with the defaults though
another cell leads (read on one dev split, or on one file's folds), and its honest score on a dev
split so small that a bootstrap draw may leave no example out."""

from dataclasses import replace

import numpy as np

import metrics
import result
from study import paired
from study.search.advise_report import anchor_kept_words, digits_apart, honest_of, verdict
from study.search.space import space_for
from study.search.standing import Cell, seen, standing

ANCHOR, RIVAL = Cell("setfit-fast", 0, 5e-5), Cell("finetune", 2, 5e-5)


def observed(truth_of, predictions, fold=lambda seed: None):
    """{Cell: [seen runs]} from {Cell: [predictions per seed]}; `truth_of(seed)` the examples each run
    was read on, `fold(seed)` its fold (None: the one dev split)."""
    def run(predicted, seed):
        truth = truth_of(seed)
        outputs = paired.Examples(result.Outputs(truth, np.asarray(predicted), None), 2, fold(seed))
        return seen(metrics.scores(truth, predicted, 2), "accuracy", 10.0, outputs)
    return {cell: [run(predicted, seed) for seed, predicted in enumerate(runs)] for cell, runs in predictions.items()}


def right_on(truth, share, rng):
    return np.where(rng.random(len(truth)) < share, truth, 1 - truth)


def test_why_the_defaults_are_kept_is_said_out_of_bag_on_one_split_and_by_the_margin_over_folds():
    """On one dev split the report gives what choosing the best gains out of bag; over one file's
    folds, where that gain is not read (cells on other folds read other examples), and for runs that
    kept no outputs, the margin that would tell the best from the defaults; its verdict says which."""
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 200)
    split = standing(observed(lambda seed: truth, {ANCHOR: [right_on(truth, 0.7, rng) for _ in range(3)],
                                                   RIVAL: [right_on(truth, 0.7, rng) for _ in range(3)]}), "accuracy", 200)
    gain = split.gain_over(ANCHOR)
    assert gain is not None
    assert f"(BBC: {gain:+.3f}): the pick stays with the anchor, the tool's defaults" in anchor_kept_words(split, ANCHOR, 0.01)
    truths = [rng.integers(0, 2, 40) for _ in range(3)]
    folds = standing(observed(lambda seed: truths[seed], {ANCHOR: [right_on(t, 0.7, rng) for t in truths],
                                                          RIVAL: [right_on(t, 0.75, rng) for t in truths]},
                              fold=lambda seed: seed + 1), "accuracy", 120)
    assert folds.on_folds and folds.gain_over(ANCHOR) is None
    said = anchor_kept_words(folds, ANCHOR, 0.05)
    assert said.startswith(" It leads the pick by 0.050, but no more than the ")
    assert f"no more than the {folds.margin(folds.best, ANCHOR):.3f} that would tell them apart (read on one file's" in said
    assert "unless the margin of their difference does not tell it from the anchor (the tool's defaults" in verdict(None, 1, 1, "best", True)[0]
    assert "unless choosing it gains nothing over the anchor (the tool's defaults" in verdict(None, 1, 1, "best", split.on_folds)[0]
    bare = standing({cell: [run[:3] for run in runs] for cell, runs in split.runs.items()}, "accuracy", 200)
    assert bare.gain_over(ANCHOR) is None  # records from before runs kept their outputs
    assert "that would tell them apart (runs that kept no outputs" in anchor_kept_words(bare, ANCHOR, 0.01)


def test_the_honest_score_of_a_tiny_split_reads_the_draws_that_left_examples_out():
    """Six dev examples: about 1.5% of the bootstrap draws hold every one of them and leave none
    out. The honest score is read on the other draws, a number, not NaN."""
    truth = np.array([0, 1, 0, 1, 0, 1])
    runs = observed(lambda seed: truth, {ANCHOR: [[0, 1, 0, 1, 1, 1]], RIVAL: [[0, 1, 1, 1, 0, 0]]})
    space = replace(space_for(6, 6, [0, 2], ["setfit-fast", "finetune"], lambda cell: 5), prefer="best")
    outside = np.stack([paired.cell_draws([run[3]], "accuracy", out_of_bag=True) for run in runs[ANCHOR]])
    assert np.isnan(outside).any()  # some draws leave nothing out
    honest = honest_of(space, runs, "accuracy", 6, ANCHOR)
    assert np.isfinite(honest.score) and 0.0 <= honest.score <= 1.0


def test_two_numbers_a_line_sets_against_each_other_are_shown_apart():
    assert digits_apart(0.2996, 0.3004) == ["0.2996", "0.3004"]  # "0.300 < 0.300" at 3 decimals
    assert digits_apart(0.785, 0.7902) == ["0.785", "0.790"]
    assert digits_apart(0.5, 0.5) == ["0.500", "0.500"]  # equal values stay at 3
