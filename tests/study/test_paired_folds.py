"""study/paired.py over one labelled file's folds (a fold a seed): two cells pair fold by fold, each
fold's examples drawn on their own; the spread is read less what a fold's examples account for; and
what choosing the best gains over the defaults is read on the folds the two share, among the cells
that ran them, and replayed so in the honest score."""

import numpy as np

import metrics
from conftest import examples, two_cells
from study import paired
from study.search.standing import Cell, seen, standing


def folds_of(cell_predictions, truths):
    """A cell's runs over folds 1..: each fold's own examples (`truths[f]`) and its predictions there."""
    return [examples(truths[f], predicted, fold=f + 1) for f, predicted in enumerate(cell_predictions)]


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
    dev_split = {cell: [(score, seconds, outcome, None) for score, seconds, outcome, _ in runs]
                 for cell, runs in observed.items()}
    plain = standing(dev_split, "accuracy", 200)  # the same scores without outputs: read as seeds on one split
    assert not plain.on_folds and plain.train_std == plain.seed_std
    assert not any(state.settled(cell) for cell in cells)


ANCHOR, WINNER, RIVAL = Cell("setfit-fast", 0, 5e-5), Cell("probe", 6, None), Cell("finetune", 2, 5e-5)


def screened(rng, winner_share=0.9, screened_share=0.7, count=17):
    """A search's cells over 5 folds of 40: the defaults right on 70% on every fold, a winner on
    `winner_share`, a rival on 70% that ran folds 1-3, and `count` cells screened on fold 1 alone."""
    truths = [rng.integers(0, 2, 40) for _ in range(5)]
    right = lambda share: [np.where(rng.random(40) < share, t, 1 - t) for t in truths]
    cells = {ANCHOR: folds_of(right(0.7), truths), WINNER: folds_of(right(winner_share), truths),
             RIVAL: folds_of(right(0.7), truths)[:3]}
    cells.update({Cell("finetune", k, 5e-5): folds_of(right(screened_share), truths)[:1] for k in range(3, 3 + count)})
    return cells


def test_over_folds_the_gain_is_read_on_the_folds_the_best_and_the_defaults_share():
    """A cell screened on fold 1 alone was read on other examples than the best's five: what choosing
    the best gains is read among the cells that ran every fold the best and the defaults share, on
    those folds' runs alone; the honest score replays that in each draw, each fold drawn on its own."""
    cells = screened(np.random.default_rng(3))
    assert set(paired.shared_reading(cells, ANCHOR, WINNER)) == {ANCHOR, WINNER}  # none other ran folds 4 and 5
    stopped = {**cells, ANCHOR: cells[ANCHOR][:3]}  # the defaults told apart after three folds
    among = paired.shared_reading(stopped, ANCHOR, WINNER)
    assert set(among) == {ANCHOR, WINNER, RIVAL} and [run.fold for run in among[WINNER]] == [1, 2, 3]
    assert paired.gain_over(cells, "accuracy", ANCHOR, WINNER) > 0.1  # 0.9 against 0.7
    apart = {ANCHOR: cells[ANCHOR][1:2], WINNER: cells[WINNER][:1]}  # no fold in common: nothing read
    assert paired.shared_reading(apart, ANCHOR, WINNER) == {} and paired.gain_over(apart, "accuracy", ANCHOR, WINNER) is None
    honest = paired.honest_score(cells, "accuracy", lambda in_bag: paired.highest_unless_no_gain(
        in_bag, cells, "accuracy", ANCHOR, inner=30), WINNER)
    mean = float(np.mean([np.mean(run.outputs.predicted == run.outputs.truth) for run in cells[WINNER]]))
    assert honest.agreement > 0.9 and abs(honest.score - mean) < 3 * honest.error


def test_over_folds_a_cell_lucky_on_fold_1_gains_nothing_over_the_defaults():
    """No cell better than the defaults: the best may be one screened on fold 1 alone, whose lead is
    the luck of the highest of many; read on fold 1 among every cell that ran it, out of bag, that
    luck is left out, and the answer stays with the defaults."""
    rng = np.random.default_rng(4)
    cells = screened(rng, winner_share=0.7, count=40)
    means = {cell: float(np.mean([np.mean(r.outputs.predicted == r.outputs.truth) for r in runs])) for cell, runs in cells.items()}
    best = max(means, key=means.get)
    assert len(cells[best]) == 1 and means[best] - means[ANCHOR] > 0.05  # lucky on fold 1
    assert paired.gain_over(cells, "accuracy", ANCHOR, best) < (means[best] - means[ANCHOR]) / 2
