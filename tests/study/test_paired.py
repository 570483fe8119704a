"""study/paired.py: every metric under bootstrap weights is the metric of the resampled split, the
paired error is the difference's and not either level's, the honest score undoes the maximum's
luck, and the search's standing and policy read cells against the best by it."""

import math
from dataclasses import replace

import numpy as np
import pytest

import metrics
import result
from study import paired
from study.search import policy
from study.search.advise_report import stop_reason
from study.search.standing import Cell, anchor_of, seen, standing
from study.search.space import space_for


def resampled(size, rows, seed=0):
    """(rows, size) counts of `rows` bootstrap draws, and the draws' indices."""
    picks = np.random.default_rng(seed).integers(0, size, size=(rows, size))
    counts = np.zeros((rows, size), dtype=np.float32)
    np.add.at(counts, (np.arange(rows)[:, None], picks), 1.0)
    return counts, picks


@pytest.mark.parametrize("classes", [2, 4, 150])
def test_every_metric_under_weights_is_the_metric_of_the_resampled_split(classes):
    rng = np.random.default_rng(classes)
    truth = rng.integers(0, classes, 300)
    predicted = np.where(rng.random(300) < 0.6, truth, rng.integers(0, classes, 300))
    weights, picks = resampled(300, 6)
    for metric in metrics.names_for(classes):
        ours = paired.weighted_scores(truth, predicted, weights, classes, metric)
        theirs = [metrics.scores(truth[i], predicted[i], classes)[metric] for i in picks]
        assert np.allclose(ours, theirs, atol=1e-6), metric


def test_pearson_under_weights_is_the_pearson_of_the_resampled_split():
    rng = np.random.default_rng(1)
    truth = rng.normal(size=200)
    predicted = truth + rng.normal(size=200)
    weights, picks = resampled(200, 6)
    assert np.allclose(paired.weighted_scores(truth, predicted, weights, 1, "pearson"),
                       [metrics.pearson(truth[i], predicted[i]) for i in picks])


def examples(truth, predicted, classes=2):
    return paired.Examples(result.Outputs(np.asarray(truth), np.asarray(predicted), None), classes)


def two_cells(size=400, disagree=20, seed=0):
    """Two classifiers right on 70% of the same examples, that differ on `disagree` of them."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, size)
    right = rng.random(size) < 0.7
    a = np.where(right, truth, 1 - truth)
    b = a.copy()
    b[:disagree] = 1 - b[:disagree]
    return truth, a, b


def test_the_paired_error_is_the_difference_s_far_below_either_level_s():
    truth, a, b = two_cells()
    error = paired.paired_error([examples(truth, a)], [examples(truth, b)], "accuracy")
    # the difference of two accuracies on the same examples: sqrt(var(d) / N), d_i = right_a - right_b
    d = (a == truth).astype(float) - (b == truth)
    assert error == pytest.approx(math.sqrt(d.var() / len(d)), rel=0.1)
    level = math.sqrt(0.7 * 0.3 / len(truth))
    assert error < 0.6 * level
    assert paired.paired_error([examples(truth, a)], [examples(truth, a)], "accuracy") == 0.0


def test_no_paired_error_without_outputs_or_on_other_examples():
    truth, a, b = two_cells()
    assert paired.paired_error([examples(truth, a), None], [examples(truth, b)], "accuracy") is None
    assert paired.paired_error([examples(truth, a)], [examples(truth[:100], b[:100])], "accuracy") is None


def test_a_cell_s_draws_are_its_seeds_mean():
    truth, a, b = two_cells()
    both = paired.cell_draws([examples(truth, a), examples(truth, b)], "macro_f1")
    alone = [examples(truth, x).draws("macro_f1")[0] for x in (a, b)]
    assert np.allclose(both, (alone[0] + alone[1]) / 2)


def test_the_honest_score_undoes_the_luck_of_the_maximum():
    """Forty cells alike (each right on 70% of examples, at random): the best on the dev split reads
    high, the bootstrap's correction does not, and a fresh split agrees with it."""
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 300)
    cells = {Cell("finetune", k, 5e-5): [examples(truth, np.where(rng.random(300) < 0.7, truth, 1 - truth))]
             for k in range(40)}
    dev = {cell: float(np.mean(runs[0].outputs.predicted == truth)) for cell, runs in cells.items()}
    pick = max(dev, key=dev.get)
    honest = paired.honest_score(cells, "accuracy", paired.highest, pick)
    assert dev[pick] > 0.74 and abs(honest.score - 0.70) < 2 * honest.error
    assert honest.score < dev[pick] - 0.04


def test_the_honest_score_of_a_clear_winner_is_its_own():
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 2, 400)
    good = np.where(rng.random(400) < 0.9, truth, 1 - truth)
    cells = {Cell("probe", 6, None): [examples(truth, good)],
             Cell("finetune", 0, 5e-5): [examples(truth, np.where(rng.random(400) < 0.6, truth, 1 - truth))]}
    honest = paired.honest_score(cells, "accuracy", paired.highest, Cell("probe", 6, None))
    assert honest.agreement == 1.0 and honest.score == pytest.approx(float(np.mean(good == truth)), abs=0.01)


def test_the_cheapest_in_the_band_is_chosen_draw_by_draw():
    in_bag = {"dear": np.array([0.80, 0.80]), "cheap": np.array([0.79, 0.70])}
    chosen = paired.cheapest_in_band(in_bag, {"dear": 10.0, "cheap": 1.0}, {"dear": 0.02, "cheap": 0.02})
    assert chosen == ["cheap", "dear"]


# ----------------------------------------------------------------------------------------------
# The standing and the policy read cells against the best by the paired error

def observed_with(cells, truth, seconds=10.0, metric="accuracy"):
    """{Cell: [seen runs]} from {Cell: [predictions per seed]}, each run keeping its outputs."""
    seen_run = lambda predicted: seen(metrics.scores(truth, predicted, 2), metric, seconds, examples(truth, predicted))
    return {cell: [seen_run(predicted) for predicted in runs] for cell, runs in cells.items()}


def test_a_cell_inside_the_level_s_band_is_out_by_the_paired_rule():
    """0.02 below the best on 400 examples: within the level's band (0.023 at 0.7, and the seeds'),
    but the two disagree on only 8 examples, so the paired error (~0.007) puts it out."""
    truth, best, _ = two_cells(disagree=0)
    worse = best.copy()
    wrong = np.flatnonzero(best == truth)[:8]
    worse[wrong] = 1 - worse[wrong]
    jitter = lambda x, seed: np.where(np.arange(len(x)) == 300 + seed, 1 - x, x)  # seeds differ by an example
    cells = {Cell("finetune", 0, 5e-5): [jitter(best, s) for s in range(5)],
             Cell("probe", 6, None): [worse, worse]}
    observed = observed_with(cells, truth)
    state = standing(observed, "accuracy", 400)
    cheap = Cell("probe", 6, None)
    assert state.means[state.best] - state.means[cheap] < state.band  # the level's band holds it
    assert state.band_of(cheap) < 0.015 and cheap not in state.inside
    # without outputs, the same scores read as before: within the band, in
    plain = {cell: [run[:3] for run in runs] for cell, runs in observed.items()}
    assert cheap in standing(plain, "accuracy", 400).inside


def test_where_the_answer_is_the_best_the_search_seeds_the_best_not_the_cheapest():
    truth, a, _ = two_cells(disagree=0)
    b = a.copy()
    wrong = np.flatnonzero(a != truth)[:40]
    b[wrong] = truth[wrong]  # the dear fine-tune right on 40 more: 0.10 above the probe
    space = space_for(200, 6, [0, 6], ["finetune", "probe"], lambda cell: 5)
    best_space = replace(space, prefer="best", ladder={key: [] for key in space.ladder})  # no line search
    runs = {Cell("finetune", 0, 5e-5): [b], Cell("probe", 6, None): [a, a], Cell("finetune", 6, 5e-5): [1 - truth]}
    observed = observed_with(runs, truth)
    observed[Cell("finetune", 0, 5e-5)] = [(s, 100.0, o, e) for s, _, o, e in observed[Cell("finetune", 0, 5e-5)]]
    better = Cell("finetune", 0, 5e-5)
    wanted = policy.next_runs(best_space, observed, "accuracy", 400)
    assert wanted.step == "in/out" and wanted.cells == [better]
    assert policy.pick(best_space, observed, "accuracy", 400) == (better, False)
    # where the answer is the cheapest in the band, the probe (in: its runs repeat themselves) is out by 0.10
    assert policy.pick(replace(best_space, prefer="cost"), observed, "accuracy", 400)[0] == better


def settled_pair(lost, won):
    """A rival right on the first 300 of 400 examples (2 seeds) and a best that differs from it on
    60: `lost` of its right ones lost, `won` of its wrong ones won (5 seeds). (the space, observed,
    the standing, the best cell, the rival)."""
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 400)
    base = np.where(np.arange(400) < 300, truth, 1 - truth)  # right on the first 300
    other = base.copy()
    other[:lost], other[300:300 + won] = 1 - other[:lost], 1 - other[300:300 + won]
    seeds = lambda x, n: [np.where((np.arange(400) >= 200) & (np.arange(400) < 200 + s), 1 - x, x) for s in range(n)]
    best_cell, rival = Cell("finetune", 0, 5e-5), Cell("finetune", 2, 5e-5)
    space = replace(space_for(200, 6, [0, 2], ["finetune"], lambda cell: 5), prefer="best")
    observed = observed_with({rival: seeds(base, 2), best_cell: seeds(other, 5)}, truth)
    return space, observed, standing(observed, "accuracy", 400), best_cell, rival


def test_a_contender_the_examples_cannot_tell_from_the_best_is_settled_not_seeded():
    """Two cells that differ on 60 of 400 examples and score within 0.01: the paired error (~0.019)
    exceeds the seeds' share of their difference once each has its seeds, so the best step stops."""
    space, observed, state, best_cell, rival = settled_pair(28, 32)
    assert state.best == best_cell and 0 < state.means[best_cell] - state.means[rival] < 0.01
    assert state.settled(rival) and "tied with the best" in stop_reason(rival, state, observed)
    assert policy.unfixed_best(state, observed, space, best_cell) == []


def test_a_settled_contender_below_the_band_is_not_called_tied():
    """The same 60 differences read 0.026 apart, more than their paired error (~0.020) but within
    the cell's reach: settled, and the report says it is below the best, not tied with it (it
    read "tied with the best: 0.822 against 0.861, paired error 0.021" on Amazon counterfactual)."""
    space, observed, state, best_cell, rival = settled_pair(24, 36)
    assert state.means[best_cell] - state.means[rival] > state.paired[rival] and rival not in state.out
    reason = stop_reason(rival, state, observed)
    assert state.settled(rival) and reason.startswith("below the best by more than its paired error")
    assert policy.unfixed_best(state, observed, space, best_cell) == []


# ----------------------------------------------------------------------------------------------
# The record keeps the outputs compactly, and reads back what was scored

def test_the_report_holds_a_cell_to_the_best_by_the_paired_rule_where_runs_kept_outputs():
    """The report's recommendation calls the same rule as the search: a cheap cell 0.013 below the
    best, within the level's band (0.016 at 0.8 on 600 examples), is out where the two disagree on
    only 8 examples, and in where the runs kept no outputs."""
    from conftest import result_record
    from study.answer import answer_cells, recommend
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, 600)
    best = np.where(np.arange(600) < 480, truth, 1 - truth)  # right on 480: 0.800
    cheap = best.copy()
    cheap[:7] = 1 - cheap[:7]  # 7 right lost: 0.788

    def records(outputs):
        kept = []
        for k, predicted, seconds in ((0, best, 100.0), (4, cheap, 10.0)):
            for seed in (1, 2):
                predicted = np.where(np.arange(600) == 590 + seed, 1 - predicted, predicted) if k == 0 else predicted
                accuracy = float(np.mean(predicted == truth))
                record = result_record(k, 200, seed, accuracy, seconds=dict(total=seconds), peak_memory_mb=1.0)
                record["dev_size"] = 600
                probabilities = np.eye(2, dtype=np.float32)[predicted]
                record["predictions"] = dict(dev=result.encoded_outputs(truth, probabilities)) if outputs else None
                record["config"]["num_labels"] = 2
                kept.append(record)
        return kept

    for outputs, expected in ((True, 0), (False, 4)):
        pick, top, band = recommend(answer_cells(records(outputs), "accuracy"), "accuracy")
        assert top["freeze"] == 0 and pick["freeze"] == expected


def test_the_pick_stays_with_the_defaults_unless_choosing_the_best_gains_out_of_bag():
    """SetFit fast at k = 0 and its own rate is the tool's defaults, the anchor. A cell 0.01 above it on
    400 examples, differing on 64, gains nothing over it on the examples each draw left out, and the
    answer stays with the defaults; 0.03 above, it gains, and the answer is the best, though a
    margin of two standard errors (Standing.apart, the rule for runs without outputs) would not yet
    tell them apart."""
    rng = np.random.default_rng(8)
    truth = rng.integers(0, 2, 400)
    anchor_cell, rival = Cell("setfit-fast", 0, 5e-5), Cell("finetune", 2, 5e-5)
    space = space_for(200, 6, [0, 2], ["setfit-fast", "finetune"], lambda cell: 5)
    space = replace(space, prefer="best", ladder={key: [] for key in space.ladder})  # no line search
    assert anchor_of(space) == anchor_cell
    base = np.where(np.arange(400) < 300, truth, 1 - truth)  # right on the first 300
    seeds = lambda x: [np.where((np.arange(400) >= 200) & (np.arange(400) < 200 + s), 1 - x, x) for s in range(5)]
    for won, gains in ((34, False), (42, True)):
        other = base.copy()
        other[:30], other[300:300 + won] = 1 - other[:30], 1 - other[300:300 + won]  # 30 right lost, `won` won
        observed = observed_with({anchor_cell: seeds(base), rival: seeds(other)}, truth)
        state = standing(observed, "accuracy", 400)
        assert state.best == rival and (state.gain_over(anchor_cell) > 0) == gains and not state.apart(rival, anchor_cell)
        assert policy.pick(space, observed, "accuracy", 400)[0] == (rival if gains else anchor_cell)
        if not gains:  # runs that kept no outputs: 0.01 is within the level's band, not told apart
            without_outputs = {cell: [run[:3] for run in runs] for cell, runs in observed.items()}
            assert policy.pick(space, without_outputs, "accuracy", 400)[0] == anchor_cell


def alike_and(truth, rng, anchor_share=0.7, winner=None, count=100):
    """{Cell: one run} of the anchor, right on a random `anchor_share` of the examples, and `count`
    cells each right on a random 70% of them; `winner`: a last cell right on that share."""
    right = lambda share: np.where(rng.random(len(truth)) < share, truth, 1 - truth)
    cells = {Cell("setfit-fast", 0, 5e-5): [examples(truth, right(anchor_share))]}
    cells.update({Cell("finetune", k, 5e-5): [examples(truth, right(0.7))] for k in range(count)})
    if winner:
        cells[Cell("probe", 6, None)] = [examples(truth, right(winner))]
    return cells


def test_choosing_the_best_is_read_with_its_luck_left_out():
    """A hundred cells alike: the best on the dev split leads the anchor by its luck, and what
    choosing it gains out of bag is far below that lead. An anchor better than every other cell
    keeps the answer; a cell truly better than the rest (85% right) takes it. The honest score
    replays the rule in each draw and reads what the pick scores."""
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 300)
    anchor = Cell("setfit-fast", 0, 5e-5)
    cells = alike_and(truth, rng)
    dev = {cell: float(np.mean(runs[0].outputs.predicted == truth)) for cell, runs in cells.items()}
    best = max(dev, key=dev.get)
    assert paired.gain_over(cells, "accuracy", anchor) < (dev[best] - dev[anchor]) / 2
    for anchor_share, winner, pick in ((0.85, None, anchor), (0.7, 0.85, Cell("probe", 6, None))):
        cells = alike_and(truth, rng, anchor_share, winner, count=30)
        assert (paired.gain_over(cells, "accuracy", anchor) > 0) == (pick != anchor)
        honest = paired.honest_score(cells, "accuracy", lambda in_bag: paired.highest_unless_no_gain(
            in_bag, cells, "accuracy", anchor, inner=30), pick)
        assert honest.agreement > 0.9 and abs(honest.score - 0.85) < 3 * honest.error


def test_the_rule_inside_a_draw_reads_only_its_in_bag_examples():
    """highest_unless_no_gain's inner draws: each draws again from its draw's in-bag examples, as many
    as the split has, and leaves out only examples of them. Over one file's folds there is no gain to
    read (a cell on one fold and one on three were read on other examples): the margin decides."""
    counts, _ = paired.draw_weights(40, paired.DRAWS, 0)
    assert np.array_equal(counts, resampled(40, paired.DRAWS)[0])  # draw_picks' draws, counted
    inside, outside = paired.redrawn(paired.draw_picks(40), counts, np.arange(3, 6), 7, np.random.default_rng(0))
    outer = np.repeat(counts[3:6], 7, axis=0)
    assert inside.shape == outside.shape == (21, 40) and np.all(inside.sum(1) == 40)
    assert not np.any(inside[outer == 0]) and not np.any(outside[outer == 0])  # none outside the draw's in-bag
    assert np.array_equal(outside > 0, (inside == 0) & (outer > 0))
    truths, a, b = zip(*(two_cells(size=40, disagree=8, seed=f) for f in range(3)))
    anchor = Cell("setfit-fast", 0, 5e-5)
    cells = {anchor: folds_of(a, truths), Cell("finetune", 0, 5e-5): folds_of(b, truths)[:1]}
    assert paired.gain_over(cells, "accuracy", anchor) is None and not paired.on_one_split(cells)


# ----------------------------------------------------------------------------------------------
# One labelled file's folds: a fold a seed

def on_fold(truth, predicted, fold):
    return paired.Examples(result.Outputs(np.asarray(truth), np.asarray(predicted), None), 2, fold)


def folds_of(cell_predictions, truths):
    """A cell's runs over folds 1..: each fold's own examples (`truths[f]`) and its predictions there."""
    return [on_fold(truths[f], predicted, f + 1) for f, predicted in enumerate(cell_predictions)]


def test_over_folds_cells_pair_fold_by_fold_and_two_folds_examples_are_drawn_apart():
    truths, a, b = zip(*(two_cells(size=40, disagree=2, seed=f) for f in range(3)))
    cell_a, cell_b = folds_of(a, truths), folds_of(b, truths)
    shared = paired.paired_error(cell_a, cell_b, "accuracy")
    assert 0 < shared < 0.03  # two cells that differ on 2 of each fold's 40 examples: about √6 / 120
    # a cell on folds 1-3 against one on fold 1 alone: folds 2 and 3 pair with nothing, and their
    # examples' noise (a fold of 40 at 70%: 0.072 each) stays in the difference
    alone = paired.paired_error(cell_a, cell_b[:1], "accuracy")
    assert 0.03 < alone < 0.08 and alone > 2 * shared
    assert paired.paired_error(cell_a[:1], cell_b[1:2], "accuracy") is None  # no fold in common
    assert paired.paired_error(cell_a, [examples(truths[0], b[0])], "accuracy") is None  # a fold against a dev split
    # each fold's draws are its own stream, the same for every cell read on it: same fold, same weights
    assert not np.array_equal(paired.draw_weights(40, 10, 1)[0], paired.draw_weights(40, 10, 2)[0])
    assert np.array_equal(paired.draw_weights(40, 10, 2)[0], paired.draw_weights(40, 10, 2)[0])


def test_over_folds_the_seeds_spread_is_read_less_what_a_folds_examples_account_for():
    """A fold's score moves with its examples as well as with training: the band and the margins read
    what training alone moves it by, and more folds are never 'settled' (they bring more examples)."""
    truths, a, b = zip(*(two_cells(size=40, disagree=4, seed=f) for f in range(5)))
    cells = {Cell("finetune", 0, 5e-5): folds_of(a, truths), Cell("probe", 6, None): folds_of(b, truths)}
    observed = {cell: [seen(metrics.scores(run.outputs.truth, run.outputs.predicted, 2), "accuracy", 10.0, run)
                       for run in runs] for cell, runs in cells.items()}
    state = standing(observed, "accuracy", 200)
    assert state.on_folds and state.train_std < state.seed_std  # the folds' spread is mostly their examples'
    assert state.gain_over(Cell("finetune", 0, 5e-5)) is None  # the answer by the margin (Standing.apart)
    dev_split = {cell: [(score, seconds, outcome, None) for score, seconds, outcome, _ in runs]
                 for cell, runs in observed.items()}
    plain = standing(dev_split, "accuracy", 200)  # the same scores without outputs: read as seeds on one split
    assert not plain.on_folds and plain.train_std == plain.seed_std
    assert not any(state.settled(cell) for cell in cells)
