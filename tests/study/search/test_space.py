"""What a search's run is expected to cost (study/search/space.py): before it has run, at the
seconds the runs of its checkpoint took per unit of prior cost, and before any trained, at the
passes a run makes over its texts at the probe's seconds a pass; whether it fits what is left of
the budget; and what the grid the search stands in for would cost."""

import pytest

import methods
from study.search.space import (FIRST_ROUND_MARGIN, PROBE_TO_TRAINED, Space, expected_seconds, fits, grid_seconds,
                                space_for, with_layer_seconds)
from study.search.standing import Cell


def space(names=("finetune", "probe"), depths=(-1, 0, 1, 2, 3)):
    return space_for(200, max(depths), list(depths), list(names), lambda cell: True)


def test_a_run_that_would_overrun_the_budget_is_not_started():
    observed = {Cell("finetune", 2, 5e-5): [(0.8, 20.0), (0.8, 20.0)], Cell("finetune", 1, 5e-5): [(0.8, 30.0)]}
    finetune_2, finetune_0 = Cell("finetune", 2, 1e-4), Cell("finetune", 0, 5e-5)
    assert expected_seconds(finetune_2, observed, space()) == 20.0  # its work's runs, at any rate
    # a work not yet run: its prior cost (three layers and the head, a tenth of one) at the seconds
    # per unit the others' runs took (20 s for 1.1 units twice, 30 for 2.1)
    assert expected_seconds(finetune_0, observed, space()) == pytest.approx(3.1 * 70 / 4.3)
    assert fits(finetune_2, observed, space(), 80.0, 100.0) and not fits(finetune_2, observed, space(), 81.0, 100.0)
    assert expected_seconds(finetune_0, {}, space()) == 0.0  # nothing ran: nothing to go by


def test_before_any_run_trained_a_cell_costs_the_probe_s_seconds_per_layer_times_PROBE_TO_TRAINED():
    """The probe's seconds are mostly the frozen prefix, computed once for every later run: read per
    unit of prior cost as a trained run's are, they put the first screen rounds at 3.7 times their
    seconds (docs/records/expected-seconds-2026-12-06)."""
    probed = {Cell("probe", 3, None): [(0.6, 12.0)]}  # 4 s a layer
    finetune_0 = Cell("finetune", 0, 5e-5)
    assert expected_seconds(finetune_0, probed, space()) == pytest.approx(3.1 * PROBE_TO_TRAINED * 4.0)
    trained = {**probed, Cell("finetune", 2, 5e-5): [(0.7, 11.0)]}  # 10 s a unit: the probe goes by no more
    assert expected_seconds(finetune_0, trained, space()) == pytest.approx(3.1 * 10.0)


def probe_record(prefix_seconds, prefix_texts, train_examples=200, epochs=10):
    return dict(config=dict(train_examples=train_examples, epochs=epochs), prefix_texts=prefix_texts,
                seconds=dict(prefix=prefix_seconds, total=prefix_seconds + 5.0))


def test_before_any_run_trained_a_layer_costs_the_passes_a_run_makes_at_the_probe_s_seconds_a_pass():
    """The probe's prefix timed one forward pass per layer over 1,000 texts (200 to train, 800 to
    score): 3 layers in 6 s, 2 ms a pass. A trained layer makes 3 passes per example and epoch and
    one per text scored: 3 x 10 x 200 + 800 = 6,800 passes, 13.6 s, at the first round's margin."""
    probe = Cell("probe", 3, None)
    priced = with_layer_seconds(space(), {probe: [probe_record(6.0, 1000)]})
    assert priced.layer_seconds == {("", "finetune"): pytest.approx(FIRST_ROUND_MARGIN * 13.6)}
    finetune_0 = Cell("finetune", 0, 5e-5)
    probed = {probe: [(0.6, 11.0)]}
    assert expected_seconds(finetune_0, probed, priced) == pytest.approx(3.1 * FIRST_ROUND_MARGIN * 13.6)
    trained = {**probed, Cell("finetune", 2, 5e-5): [(0.7, 11.0)]}  # 10 s a unit: the trained runs price it
    assert expected_seconds(finetune_0, trained, priced) == pytest.approx(3.1 * 10.0)
    # make's EPOCHS=20 (the probe takes none: its record holds the protocol's 10): 12,800 passes a
    # fine-tune's layer; SetFit's body trains by its own steps, its cost_factor against the protocol's
    three = space(("finetune", "setfit-fast", "probe"))
    longer = with_layer_seconds(three, {probe: [probe_record(6.0, 1000)]}, epochs=20)
    assert longer.layer_seconds == {("", "finetune"): pytest.approx(FIRST_ROUND_MARGIN * 25.6),
                                    ("", "setfit-fast"): pytest.approx(FIRST_ROUND_MARGIN * 13.6)}
    # a prefix the cache held timed no pass (nor does a record from before prefix_texts): the probe's seconds a layer
    for record in (probe_record(0.2, 0), {k: v for k, v in probe_record(6.0, 1000).items() if k != "prefix_texts"}):
        unpriced = with_layer_seconds(space(), {probe: [record]})
        assert unpriced.layer_seconds == {}
        assert expected_seconds(finetune_0, probed, unpriced) == pytest.approx(3.1 * PROBE_TO_TRAINED * 11.0 / 3)
    # a resumed folder: of the probe's seeds, the first whose prefix was computed prices it
    resumed = with_layer_seconds(space(), {probe: [probe_record(0.2, 0), probe_record(6.0, 1000)]})
    assert resumed.layer_seconds == priced.layer_seconds


def test_a_method_is_costed_from_its_own_runs_once_one_ran():
    setfit = lambda k: Cell("setfit-fast", k, methods.get("setfit-fast").default_lr(200))
    factor = methods.get("setfit-fast").cost_factor
    observed = {Cell("probe", 3, None): [(0.6, 12.0)], Cell("finetune", 2, 5e-5): [(0.7, 11.0)]}  # 10 s a unit
    both = space(names=("finetune", "setfit-fast", "probe"))
    assert expected_seconds(setfit(0), observed, both) == pytest.approx(3.1 * factor * 10.0)  # the fine-tune's, times its factor
    observed[setfit(2)] = [(0.7, 1.1 * factor * 20.0)]  # 20 s a unit of its own
    assert expected_seconds(setfit(0), observed, both) == pytest.approx(3.1 * factor * 20.0)
    assert expected_seconds(Cell("finetune", 0, 5e-5), observed, both) == pytest.approx(3.1 * 10.0)


def test_the_grid_a_search_stands_in_for_is_costed_at_this_machine_s_seconds():
    space = Space(depths={("", "finetune"): [0, 1], ("", "probe"): [2]},
                  own_rate={("", "finetune"): 5e-5, ("", "probe"): None},
                  ladder={("", "finetune"): [5e-5], ("", "probe"): []}, available=lambda cell: True)
    observed = {Cell("finetune", 1, 5e-5): [(0.7, 11.0)], Cell("probe", 2, None): [(0.6, 1.0)]}
    # k = 0 has not run: its prior cost (two layers and the head against k = 1's one) at the seconds
    # per unit k = 1 took (11 / 1.1), so 21 s; five seeds of the three cells
    assert grid_seconds(space, observed, seeds=5) == pytest.approx(5 * (21.0 + 11.0 + 1.0))


def test_a_search_that_made_every_run_of_the_grid_spent_all_of_it():
    """The runs the search made count at their own seconds: five probe runs, the first paying a
    worker's start, cost what they took (8 s), not five medians (5 s: 160% of the grid)."""
    space = Space(depths={("", "probe"): [2]}, own_rate={("", "probe"): None}, ladder={("", "probe"): []},
                  available=lambda cell: True)
    observed = {Cell("probe", 2, None): [(0.6, 4.0), (0.6, 1.0), (0.6, 1.0), (0.6, 1.0), (0.6, 1.0)]}
    assert grid_seconds(space, observed, seeds=5) == pytest.approx(8.0)
    assert grid_seconds(space, observed, seeds=3) == pytest.approx(6.0)  # the grid's seeds, not the search's


def test_a_head_trained_alone_weighs_by_its_units_not_as_a_ratio_of_its_own():
    """Its run's fixed seconds over a tenth of a unit would price a layer at ten times its seconds: as
    a median of ratios, mpnet's head alone on SST-2 (6.9 s) and k = 8 (53.8 s) put k = 4, which
    took 79 s, at 333."""
    mpnet = space(depths=(-1, 0, 2, 4, 8, 10, 12))
    observed = {Cell("probe", 12, None): [(0.6, 33.5)], Cell("finetune", 12, 5e-5): [(0.5, 6.9)],
                Cell("finetune", 8, 5e-5): [(0.7, 53.8)]}
    assert expected_seconds(Cell("finetune", 4, 5e-5), observed, mpnet) == pytest.approx(8.1 * 60.7 / 4.2)
