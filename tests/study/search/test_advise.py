"""make advise: the policy's rule is the report's, its replay reads a grid's runs, and a real search
on a tiny model runs end to end, resumes after a kill without rerunning a finished run, and
refuses a budget too small and a second search on its folder."""

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import data
import methods
from conftest import ROOT, result_record, write_result
from study.search import advise, policy, rounds, search_folder
from study.search.advise_report import stop_reason
from study.search.keep import Kept, check_save, keep, to_keep
from study.answer import answer_cells, fair_score, recommend
from study.search import replay as replay_module
from study.search.replay import Made, replay
from study.folder import load_results
from study.search.standing import PICK_SEEDS, PRIOR_SEED_STD, Cell, standing
from study.search.space import Space, expected_seconds, fits, grid_seconds, space_for

# ----------------------------------------------------------------------------------------------
# The policy, on made-up scores


def space(depths=(-1, 0, 1, 2, 3), names=("finetune", "probe"), size=200, available=lambda cell: True):
    return space_for(size, max(depths), list(depths), list(names), available)


def test_the_screen_runs_every_method_at_every_other_depth_down_to_0_at_its_own_rate():
    wanted = policy.next_runs(space(depths=(-1, 0, 1, 2, 3, 4, 5, 6)), {}, "accuracy", 436)
    assert wanted.step == "screen"
    assert sorted((c.method, c.freeze, c.lr) for c in wanted.cells) == sorted(
        [("finetune", k, 5e-5) for k in (0, 2, 4, 6)] + [("probe", 6, None)])


def test_a_screen_narrower_than_the_workers_takes_the_depths_it_skips_the_cheapest_first():
    wide = space(depths=(-1, 0, 1, 2, 3, 4, 5, 6))
    at = lambda jobs: [(c.method, c.freeze) for c in policy.next_runs(wide, {}, "accuracy", 436, jobs).cells]
    screen = at(1)
    assert at(5) == screen and len(screen) == 5  # as many workers as cells: the screen alone
    assert at(8) == screen + [("finetune", 5), ("finetune", 3), ("finetune", 1)]  # the most frozen costs least
    assert sorted(at(16)) == sorted(screen + [("finetune", k) for k in (5, 3, 1, -1)])  # every depth, none twice
    ran = {Cell("finetune", 5, 5e-5): [(0.5, 10.0)]}  # a depth already run is not asked for again
    assert ("finetune", 5) not in [(c.method, c.freeze) for c in policy.next_runs(wide, ran, "accuracy", 436, 16).cells]


def test_refine_fills_the_skipped_depths_before_the_line_search_and_minus_1_sits_between_0_and_1():
    # after the screen (6 4 2 0): -1 (the embeddings alone frozen) lies between 0 and 1, 1 between
    # 0 and 2 (the nearest depths run), 3 between 2 and 4; 5 lies between two cells out of the band
    seconds = {("probe", 6): 5.0} | {("finetune", k): 10.0 * (7 - max(k, 0)) for k in range(-1, 7)}
    screened = {("probe", 6, None): [0.5], ("finetune", 6, 5e-5): [0.5], ("finetune", 4, 5e-5): [0.6],
                ("finetune", 2, 5e-5): [0.78], ("finetune", 0, 5e-5): [0.80]}
    observed = observed_of(screened, seconds)
    wanted = policy.next_runs(space(depths=range(-1, 7)), observed, "accuracy", 436)
    assert wanted.step == "refine" and {c.freeze for c in wanted.cells} == {-1, 1, 3}
    # the line search then runs once, at the best depth refine found
    observed |= observed_of({("finetune", -1, 5e-5): [0.79], ("finetune", 1, 5e-5): [0.82],
                             ("finetune", 3, 5e-5): [0.70]}, seconds)
    wanted = policy.next_runs(space(depths=range(-1, 7)), observed, "accuracy", 436)
    assert wanted.step == "rates" and {(c.freeze, c.lr) for c in wanted.cells} == {(1, 2e-5), (1, 1e-4)}


def test_a_worker_that_finds_the_current_step_under_way_takes_the_later_steps_runs_as_they_stand():
    seconds = {("probe", 6): 5.0} | {("finetune", k): 10.0 * (7 - max(k, 0)) for k in range(-1, 7)}
    screened = {("probe", 6, None): [0.5], ("finetune", 6, 5e-5): [0.5], ("finetune", 4, 5e-5): [0.6],
                ("finetune", 2, 5e-5): [0.78], ("finetune", 0, 5e-5): [0.80]}
    observed, wide = observed_of(screened, seconds), space(depths=range(-1, 7))
    assert policy.next_runs(wide, observed, "accuracy", 436).step == "refine"  # -1, 1 and 3: under way
    ahead = lambda under_way=(): policy.ahead(wide, observed, "accuracy", 436, "refine", 16, under_way).cells
    best, rungs = Cell("finetune", 0, 5e-5), {Cell("finetune", 0, 2e-5), Cell("finetune", 0, 1e-4)}
    # refine's is the current step, not a later one; the rates' line search at the best depth so
    # far comes first, then the seeds the in/out and best steps would give
    assert set(ahead()[:2]) == rungs and not {c.freeze for c in ahead()} & {-1, 1, 3}
    assert best in ahead()
    assert Cell("finetune", 0, 2e-5) not in ahead([Cell("finetune", 0, 2e-5)])  # under way: not again
    assert best not in ahead([best] * (PICK_SEEDS - 1))  # its seeds under way count as its own
    assert len(ahead()) <= 16 and len(policy.ahead(wide, observed, "accuracy", 436, "refine", 2).cells) == 2


def observed_of(scores, seconds):
    """{Cell: [(score, seconds)]} from {(method, k, lr): [scores]} and {(method, k): seconds}."""
    return {Cell(*key): [(s, seconds[key[:2]]) for s in values] for key, values in scores.items()}


SECONDS = {("probe", 3): 5.0, ("finetune", 3): 8.0, ("finetune", 2): 20.0, ("finetune", 1): 30.0,
           ("finetune", 0): 40.0, ("finetune", -1): 45.0}


def test_a_cell_far_below_the_band_is_out_after_one_seed_and_the_cheapest_in_is_the_answer():
    scores = {("probe", 3, None): [0.60], ("finetune", 3, 5e-5): [0.50], ("finetune", 1, 5e-5): [0.80, 0.81, 0.79, 0.80, 0.80],
              ("finetune", 2, 5e-5): [0.80, 0.80, 0.81, 0.79, 0.80], ("finetune", 0, 5e-5): [0.81, 0.80] * 2 + [0.80],
              ("finetune", -1, 5e-5): [0.81, 0.80] * 2 + [0.80]}
    observed = observed_of(scores, SECONDS)
    no_rates = Space(space().depths, space().default_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
    state = standing(observed, "accuracy", 436)
    assert Cell("probe", 3, None) in state.out and Cell("finetune", 3, 5e-5) in state.out
    assert policy.next_runs(no_rates, observed, "accuracy", 436).cells == []  # decided
    chosen, decided = policy.pick(no_rates, observed, "accuracy", 436)
    assert decided and chosen == Cell("finetune", 2, 5e-5)
    # the report's rule over the same cells picks the same one
    runs = [dict(config=dict(method=c.method, freeze=c.freeze, lr=c.lr, size=200, seed=i, reinit=0, pooling="first",
                             precision="fp32", device="cpu", protocol="blog", epochs=10, batch_size=16, warmup_epochs=1,
                             weight_decay=0.0, normalize=False),
                 best=dict(accuracy=s), curve=[dict(accuracy=s)], at_score=dict(accuracy=s), train_at_score=None,
                 seconds=dict(total=t), peak_memory_mb=1.0, trainable_parameters=1, dev_size=436,
                 constant=dict(accuracy=0.5))
            for c, values in observed.items() for i, (s, t) in enumerate(values, 1)]
    report_pick, _, _ = recommend(answer_cells(runs, "accuracy"), "accuracy")
    assert (report_pick["config"]["method"], report_pick["freeze"]) == ("finetune", 2)


def test_a_cells_seeds_are_read_at_their_own_spread_not_the_dev_splits_noise():
    # the band at 0.81 on 436 sentences is ± 0.019; the seeds spread by 0.005: a cell 0.012 below
    # the band's floor is out on 3 seeds (0.778 + 2 x 0.005 / √3 < 0.791), where the dev split's
    # noise as its spread would have kept it open for every seed it could have
    scores = {("finetune", 0, 5e-5): [0.815, 0.805, 0.81], ("finetune", 1, 5e-5): [0.773, 0.783, 0.778]}
    state = standing(observed_of(scores, SECONDS), "accuracy", 436)
    assert abs(state.seed_std - 0.005) < 1e-9 and state.band > 0.018
    assert Cell("finetune", 1, 5e-5) in state.out
    alike = standing(observed_of({("finetune", 0, 5e-5): [0.81] * 3}, SECONDS), "accuracy", 436)
    assert alike.seed_std == PRIOR_SEED_STD  # runs that repeat themselves measure no spread
    with_probe = observed_of(scores | {("probe", 3, None): [0.70] * 5}, SECONDS)
    assert abs(standing(with_probe, "accuracy", 436).seed_std - 0.005) < 1e-9  # nor dilute the others


def test_a_spread_measured_on_few_seeds_is_read_with_students_t():
    from study.search.standing import t_multiplier
    level = 0.5 * (1 + math.erf(2 / math.sqrt(2)))  # two standard errors of the normal: 97.7%
    assert t_multiplier(0) == 2.0  # the prior: known, not measured
    assert abs(t_multiplier(1) - math.tan(math.pi * (level - 0.5))) < 1e-3  # t's closed forms at 1 and 2
    assert abs(t_multiplier(2) - (2 * level - 1) * math.sqrt(2 / (4 * level * (1 - level)))) < 1e-3
    assert 2.0 < t_multiplier(100) < 2.05
    # two seeds 0.005 apart (a spread of 0.0035 on one degree of freedom) do not put a cell 0.01
    # below the band out on its one seed, as two standard errors of a known spread would (0.787 < 0.794)
    scores = {("finetune", 0, 5e-5): [0.81, 0.815], ("finetune", 1, 5e-5): [0.78]}
    state = standing(observed_of(scores, SECONDS), "accuracy", 436)
    assert state.z > 13 and Cell("finetune", 1, 5e-5) not in state.out


def test_one_disagreement_does_not_put_every_cell_back_in_reach():
    # TweetEval emotion's first second seed: 0.599 then 0.555 (a spread of 0.031 on one degree of
    # freedom). Read at t (13.97) a one-seed cell at 0.52 could rise to 0.93, far above the band's
    # floor (0.617); read at two of that spread, 0.58: out. Its second seed is what tells
    scores = {("finetune", 0, 5e-5): [0.652], ("finetune", 3, 5e-5): [0.599, 0.555], ("finetune", 1, 5e-5): [0.52]}
    state = standing(observed_of(scores, SECONDS), "accuracy", 187)
    assert state.z > 13 and abs(state.rise - 2 * state.seed_std) < 1e-12
    assert Cell("finetune", 1, 5e-5) in state.out and Cell("finetune", 3, 5e-5) not in state.out


def test_the_bands_spread_is_the_pooled_one_until_the_best_has_the_picks_seeds():
    # SST-2 at n = 50: the best's two seeds 0.662 and 0.759 (a std of 0.069, the grid's band 0.019)
    # read as the band put the probe (0.677) in it; the pooled spread of every cell's seeds does not
    scores = {("finetune", 1, 5e-5): [0.662, 0.759], ("finetune", 3, 5e-5): [0.648, 0.674, 0.651],
              ("finetune", 0, 5e-5): [0.70, 0.69, 0.72, 0.70], ("probe", 3, None): [0.677, 0.677]}
    state = standing(observed_of(scores, SECONDS), "accuracy", 872)
    assert state.best == Cell("finetune", 1, 5e-5) and abs(state.band - state.seed_std) < 1e-12
    assert 0.025 < state.band < 0.035 and Cell("probe", 3, None) not in state.inside
    # with the pick's seeds, the best's own spread, as the report reads it
    five = scores | {("finetune", 1, 5e-5): [0.662, 0.759, 0.70, 0.71, 0.72]}
    assert abs(standing(observed_of(five, SECONDS), "accuracy", 872).band - np.std(five[("finetune", 1, 5e-5)], ddof=1)) < 1e-12


def test_a_cell_whose_runs_repeat_themselves_is_settled_on_two():
    # the probe scores alike on every seed: in the band on two runs, and its level fixed as the best
    no_rates = Space(space().depths, space().default_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
    scores = {("probe", 3, None): [0.80, 0.80], ("finetune", 3, 5e-5): [0.50], ("finetune", 2, 5e-5): [0.60],
              ("finetune", 1, 5e-5): [0.62], ("finetune", 0, 5e-5): [0.64], ("finetune", -1, 5e-5): [0.63]}
    observed = observed_of(scores, SECONDS)
    state = standing(observed, "accuracy", 436)
    assert Cell("probe", 3, None) in state.inside and Cell("probe", 3, None) == state.best
    assert policy.pick(no_rates, observed, "accuracy", 436) == (Cell("probe", 3, None), True)
    once = observed_of(scores | {("probe", 3, None): [0.80]}, SECONDS)  # one run cannot tell
    assert policy.next_runs(no_rates, once, "accuracy", 436).cells == [Cell("probe", 3, None)]
    assert stop_reason(Cell("probe", 3, None), state, observed) == \
        "in the band, the best (the same score on each of its 2 runs)"


def test_two_runs_alike_in_one_metric_alone_are_not_a_fit_without_randomness():
    # SetFit fast on mpnet at n = 1000 (k = 8, 1e-5): seeds 1 and 2 both 0.9025 accuracy on SST-2's
    # 872 sentences, 0.8057 and 0.8059 MCC. Read on accuracy alone they repeated themselves and the
    # cell was in on two seeds; read on every metric they are two seeds of a spread, and it is not
    from study.search.standing import seen
    cell, probe = Cell("finetune", 2, 5e-5), Cell("probe", 3, None)
    chance = {cell: [seen({"accuracy": 0.9025, "mcc": mcc}, "accuracy", 10.0) for mcc in (0.8057, 0.8059)],
              probe: [seen({"accuracy": 0.90, "mcc": 0.80}, "accuracy", 5.0)] * 2}
    state = standing(chance, "accuracy", 872)
    assert cell not in state.repeats and cell not in state.inside
    assert probe in state.repeats and probe in state.inside  # the same predictions: settled on two
    same = {cell: [seen({"accuracy": 0.9025, "mcc": 0.8057}, "accuracy", 10.0)] * 2}
    assert cell in standing(same, "accuracy", 872).repeats


def test_a_cheaper_cell_near_the_band_gets_seeds_before_the_answer_is_decided():
    scores = {("probe", 3, None): [0.78], ("finetune", 3, 5e-5): [0.50], ("finetune", 1, 5e-5): [0.80] * 5,
              ("finetune", 2, 5e-5): [0.80] * 5, ("finetune", 0, 5e-5): [0.81, 0.80], ("finetune", -1, 5e-5): [0.81, 0.80]}
    no_rates = Space(space().depths, space().default_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
    observed = observed_of(scores, SECONDS)
    wanted = policy.next_runs(no_rates, observed, "accuracy", 436)
    assert wanted.step == "in/out" and wanted.cells == [Cell("probe", 3, None)]
    assert policy.pick(no_rates, observed, "accuracy", 436)[1] is False


def test_an_undecided_search_says_what_it_stopped_before_and_no_cell_reads_as_decided():
    from study.search.advise_report import verdict
    scores = {("probe", 3, None): [0.78], ("finetune", 3, 5e-5): [0.50], ("finetune", 1, 5e-5): [0.80] * 5,
              ("finetune", 2, 5e-5): [0.80] * 5, ("finetune", 0, 5e-5): [0.82, 0.79], ("finetune", -1, 5e-5): [0.83, 0.80]}
    no_rates = Space(space().depths, space().default_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
    observed = observed_of(scores, SECONDS)
    waiting = policy.next_runs(no_rates, observed, "accuracy", 436)  # the probe's in/out seeds, unpaid
    state = standing(observed, "accuracy", 436)
    why = {cell: stop_reason(cell, state, observed, set(waiting.cells)) for cell in observed}
    assert why[Cell("probe", 3, None)] == "open: next to run when the search stopped"
    assert why[Cell("finetune", 0, 5e-5)] == "open: the search stopped first"
    assert stop_reason(Cell("finetune", 0, 5e-5), state, observed) == "open: cheaper cells decided the answer"
    # a cell with every seed it can have, just below the band, is neither out nor open
    near = observed | observed_of({("finetune", 1, 5e-5): [0.765, 0.805, 0.785, 0.765, 0.805]}, SECONDS)
    assert stop_reason(Cell("finetune", 1, 5e-5), standing(near, "accuracy", 436), near).startswith(
        "below the band on its 5 seeds: 0.785 < 0.79")
    words, short = verdict(waiting, 3600, 1800)
    assert words.startswith("**not decided**: its next round (in/out, 1 run, the first probe at freeze 3) did not "
                            "fit the budget, 0.50 of 1 h spent") and short == "NOT decided (budget spent)"
    assert verdict(policy.Round("best", []), 3600, 1800)[1] == "NOT decided (no run left)"
    assert verdict(None, 3600, 1800)[1] == "decided"


def test_two_cells_that_tie_on_the_dev_split_are_read_alike_in_whichever_order_they_came():
    # SST-2 mpnet at 200: the fine-tune at k = -1 and 4 both 0.9025; a folder read in file order and
    # a replay in the order the runs were made must stand at the same best and ask for the same runs
    scores = {("probe", 3, None): [0.5], ("finetune", 3, 5e-5): [0.5], ("finetune", 1, 5e-5): [0.7],
              ("finetune", 0, 5e-5): [0.8], ("finetune", -1, 5e-5): [0.8]}
    forward = observed_of(scores, SECONDS)
    backward = dict(reversed(forward.items()))
    for observed in (forward, backward):
        state = standing(observed, "accuracy", 436)
        assert state.best == Cell("finetune", 0, 5e-5)  # of equal means, the cheaper (40 s against 45)
    assert policy.next_runs(space(), forward, "accuracy", 436) == policy.next_runs(space(), backward, "accuracy", 436)
    same_cost = observed_of(scores, {**SECONDS, ("finetune", -1): 40.0})
    bests = {standing(observed, "accuracy", 436).best for observed in (same_cost, dict(reversed(same_cost.items())))}
    assert bests == {Cell("finetune", -1, 5e-5)}  # then the cells' own order


def test_the_line_search_walks_the_ladder_from_the_best_depth():
    scores = {("probe", 3, None): [0.5], ("finetune", 3, 5e-5): [0.5], ("finetune", 1, 5e-5): [0.7],
              ("finetune", 0, 5e-5): [0.8], ("finetune", -1, 5e-5): [0.79]}
    wanted = policy.next_runs(space(), observed_of(scores, SECONDS), "accuracy", 436)
    assert wanted.step == "rates" and sorted(c.lr for c in wanted.cells) == [2e-5, 1e-4]
    assert {c.freeze for c in wanted.cells} == {0}


def test_a_rate_within_the_band_of_the_own_rate_ends_the_line_search_and_a_clear_winner_spreads():
    scores = {("probe", 3, None): [0.5], ("finetune", 3, 5e-5): [0.5], ("finetune", 1, 5e-5): [0.7],
              ("finetune", 0, 5e-5): [0.80], ("finetune", 0, 1e-4): [0.79]}
    observed = observed_of(scores, SECONDS)
    band = standing(observed, "accuracy", 436).band  # the dev split's noise at 0.8 on 436 examples: 0.019
    near = observed | observed_of({("finetune", 0, 2e-5): [0.80 + band / 2]}, SECONDS)
    assert policy.rate_search(space(), near, standing(near, "accuracy", 436)) == []  # noise: 5e-5 stands
    clear = observed | observed_of({("finetune", 0, 2e-5): [0.80 + 2 * band]}, SECONDS)
    wanted = policy.rate_search(space(), clear, standing(clear, "accuracy", 436))
    assert wanted == [Cell("finetune", 0, 1e-5)]  # the walk goes on past a clear winner
    clear |= observed_of({("finetune", 0, 1e-5): [0.78]}, SECONDS)
    spread = policy.rate_search(space(), clear, standing(clear, "accuracy", 436))
    assert {(c.freeze, c.lr) for c in spread} == {(k, 2e-5) for k in (-1, 1, 2, 3)}  # and spreads to the others


def test_setfit_over_every_layer_frozen_is_searched_at_its_own_rate_alone():
    # its head is fitted once the body has trained: at k = L (3 here) no rate changes the run
    sf = lambda k, lr, score: {("setfit-fast", k, lr): [score]}
    seconds = SECONDS | {("setfit-fast", k): 10.0 * (4 - k) for k in (-1, 0, 1, 2, 3)}
    scores = {("probe", 3, None): [0.5]} | sf(3, 5e-5, 0.5) | sf(1, 5e-5, 0.7) | sf(0, 5e-5, 0.80) | sf(0, 1e-4, 0.79)
    observed = observed_of(scores, seconds)
    band = standing(observed, "accuracy", 436).band
    clear = observed | observed_of(sf(0, 2e-5, 0.80 + 2 * band) | sf(0, 1e-5, 0.78), seconds)
    setfit = space(names=("setfit-fast", "probe"))
    spread = policy.rate_search(setfit, clear, standing(clear, "accuracy", 436))
    assert {(c.freeze, c.lr) for c in spread} == {(k, 2e-5) for k in (-1, 1, 2)}  # not at k = 3
    # where k = L leads the method, its line search walks from the best depth that trains at a rate
    lead = observed_of({("probe", 3, None): [0.5]} | sf(3, 5e-5, 0.81) | sf(1, 5e-5, 0.7) | sf(0, 5e-5, 0.80), seconds)
    wanted = policy.rate_search(setfit, lead, standing(lead, "accuracy", 436))
    assert {(c.freeze, c.lr) for c in wanted} == {(0, 2e-5), (0, 1e-4)}


def test_a_best_that_could_push_the_pick_out_is_read_with_the_picks_seeds():
    # finetune at k = 2 is in on 5 seeds; k = -1 leads on 2 seeds by nearly the band: one more
    # seed could put it far enough ahead to push k = 2 out, so it runs until it has 5 too
    scores = {("probe", 3, None): [0.50], ("finetune", 3, 5e-5): [0.50], ("finetune", 1, 5e-5): [0.79, 0.79],
              ("finetune", 2, 5e-5): [0.80] * 5, ("finetune", 0, 5e-5): [0.79, 0.78],
              ("finetune", -1, 5e-5): [0.82, 0.81]}
    no_rates = Space(space().depths, space().default_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
    observed = observed_of(scores, SECONDS)
    wanted = policy.next_runs(no_rates, observed, "accuracy", 436)
    assert wanted.step == "best" and Cell("finetune", -1, 5e-5) in wanted.cells
    observed[Cell("finetune", -1, 5e-5)] += [(0.80, 45.0)] * 3  # read on 5 seeds, it cannot
    assert policy.next_runs(no_rates, observed, "accuracy", 436).cells == []
    assert policy.pick(no_rates, observed, "accuracy", 436) == (Cell("finetune", 2, 5e-5), True)


def test_with_workers_to_spare_a_round_gives_its_cells_the_seeds_they_can_still_use():
    # the best round above on 8 workers: k = -1, on 2 seeds, takes the 3 it lacks of the pick's 5 at
    # once instead of one a round; where only 2 more can run, 2
    scores = {("probe", 3, None): [0.50], ("finetune", 3, 5e-5): [0.50], ("finetune", 1, 5e-5): [0.79, 0.79],
              ("finetune", 2, 5e-5): [0.80] * 5, ("finetune", 0, 5e-5): [0.79, 0.78],
              ("finetune", -1, 5e-5): [0.82, 0.81]}
    observed = observed_of(scores, SECONDS)
    best = Cell("finetune", -1, 5e-5)
    room = lambda left: Space(space().depths, space().default_rate, {("", "finetune"): [], ("", "probe"): []}, left)
    one = policy.next_runs(room(lambda cell: 3), observed, "accuracy", 436, jobs=1)
    eight = policy.next_runs(room(lambda cell: 3), observed, "accuracy", 436, jobs=8)
    assert one.step == eight.step == "best" and one.cells == [best]
    assert eight.cells == [best] * 3
    assert policy.next_runs(room(lambda cell: 2), observed, "accuracy", 436, jobs=8).cells == [best] * 2


def test_a_cell_named_twice_in_a_round_takes_its_next_two_missing_seeds(tmp_path):
    cell, probe = Cell("finetune", 2, 5e-5), Cell("probe", 3, None)
    (tmp_path / "freeze2_size200_seed1.json").write_text("{}")
    paths = search_folder.round_paths(str(tmp_path), [cell, cell, probe], 200, 5)
    assert [os.path.basename(p) for p in paths] == ["freeze2_size200_seed2.json", "freeze2_size200_seed3.json",
                                                    "freeze3_size200_seed1_probe.json"]


def test_a_run_that_would_overrun_the_budget_is_not_started():
    observed = observed_of({("finetune", 2, 5e-5): [0.8, 0.8], ("finetune", 1, 5e-5): [0.8]}, SECONDS)
    finetune_2, finetune_0 = Cell("finetune", 2, 1e-4), Cell("finetune", 0, 5e-5)
    assert expected_seconds(finetune_2, observed, space()) == 20.0  # its work's runs, at any rate
    # a work not yet run: its prior cost at the seconds per unit the others took (20 / 2 and 30 / 3)
    assert expected_seconds(finetune_0, observed, space()) == 40.0
    assert fits(finetune_2, observed, space(), 80.0, 100.0) and not fits(finetune_2, observed, space(), 81.0, 100.0)
    assert expected_seconds(finetune_0, {}, space()) == 0.0  # nothing ran: nothing to go by


# ----------------------------------------------------------------------------------------------
# The replay, on a made-up grid


def test_replay_reaches_a_clear_grids_answer_for_less_than_the_grid(tmp_path, capsys):
    accuracy = {6: 0.55, 5: 0.80, 4: 0.81, 3: 0.815, 2: 0.82, 1: 0.82, 0: 0.82, -1: 0.82}
    for k, mean in accuracy.items():
        for seed in range(1, 6):
            write_result(tmp_path, k, 200, seed, mean + 0.004 * (seed - 3), seconds=dict(total=10.0 * (8 - k), eval=0.0))
    outcome = replay(str(tmp_path), 200)  # the band: the dev split's ± 0.013 at 0.82, so k = 5 is out, k = 4 in
    assert outcome["same"] and outcome["pick"] == dict(method="finetune", freeze=4, lr=5e-5)
    assert outcome["runs"] < outcome["grid_runs"] and outcome["seconds"] < outcome["grid_seconds"]
    assert [order for order in outcome["order"] if order[0].freeze == 6] == [(Cell("finetune", 6, 5e-5), 1, 20.0, "screen")]
    budgeted = replay(str(tmp_path), 200, budget_seconds=outcome["seconds"] / 2)  # it ends before a run would overrun
    assert 0 < budgeted["seconds"] <= outcome["seconds"] / 2 and not budgeted["decided"]
    advise.main(["--replay", str(tmp_path), "--size", "200", "--prefer", "cost"])
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["pick"] == outcome["pick"] and {"size", "seconds", "grid_seconds"} <= set(last)
    # make advise's own answer, the best: one of the depths at 0.82, not the cheapest in the band
    advise.main(["--replay", str(tmp_path), "--size", "200"])
    best = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["pick"]
    assert best["freeze"] in (-1, 0, 1, 2) and best == replay(str(tmp_path), 200, prefer="best")["pick"]


def test_a_replay_of_a_searchs_own_runs_reads_them_as_the_search_did_on_the_first_half(tmp_path):
    """A search picks by the dev split's first half, at that half's noise: its own runs (which carry
    both halves) replay so; a grid's runs, which lack them, at the whole split's fair score."""
    accuracy = {6: 0.55, 5: 0.80, 4: 0.81, 3: 0.815, 2: 0.82, 1: 0.82, 0: 0.82, -1: 0.82}
    for k, mean in accuracy.items():
        for seed in range(1, 6):
            score = mean + 0.004 * (seed - 3)
            first = score - (0.05 if k == 4 else 0.0)  # k = 4 reads worse on the half that picks
            record = result_record(k, 200, seed, score, seconds=dict(total=10.0 * (8 - k), eval=0.0))
            record["dev_halves"] = [dict(accuracy=first, mcc=0.0), dict(accuracy=2 * score - first, mcc=0.0)]
            (tmp_path / f"freeze{k}_size200_seed{seed}.json").write_text(json.dumps(record))
    outcome = replay(str(tmp_path), 200)
    assert outcome["dev_size"] == 436 and outcome["pick"] != dict(method="finetune", freeze=4, lr=5e-5)
    assert [score for score, *_ in outcome["observed"][Cell("finetune", 4, 5e-5)]][0] == pytest.approx(0.81 - 0.008 - 0.05)


def test_a_replay_with_made_runs_searches_setfit_fast_in_place_of_the_grids_setfit(tmp_path):
    grid, made = tmp_path / "grid", tmp_path / "made"
    grid.mkdir(), made.mkdir()
    for k in range(-1, 7):
        for seed in range(1, 6):
            write_result(grid, k, 200, seed, 0.80 - 0.03 * max(k - 2, 0) + 0.004 * (seed - 3),
                         seconds=dict(total=10.0 * (8 - k), eval=0.0))
            write_result(grid, k, 200, seed, 0.86 + 0.004 * (seed - 3), method="setfit", lr=1e-5,
                         seconds=dict(total=1000.0, eval=0.0))
    fast = lambda k: 0.85 - 0.05 * max(k - 3, 0)  # SetFit fast in the band of the library's from k = 3 down
    rounds, outcome = 0, replay(str(grid), 200, made=Made((str(made),)))
    assert {cell for cell, _ in outcome["missing"]} == {Cell("setfit-fast", k, 5e-5) for k in (6, 4, 2, 0)}
    while outcome["missing"]:  # what --run-missing does, the runs written instead of made
        for cell, seed in outcome["missing"]:
            write_result(made, cell.freeze, 200, seed, fast(cell.freeze) + 0.004 * (seed - 3), method="setfit-fast",
                         lr=cell.lr, seconds=dict(total=20.0 * (8 - cell.freeze), eval=0.0))
        rounds, outcome = rounds + 1, replay(str(grid), 200, made=Made((str(made),)))
    assert rounds > 1 and outcome["decided"]
    # the cheapest depth of the band; its rates score alike here, and of equal cells the first in order stands
    assert outcome["pick"] == dict(method="setfit-fast", freeze=3, lr=2e-5)
    assert not any(cell.method == "setfit" for cell, *_ in outcome["order"])  # the library's SetFit left the space
    assert outcome["grid_pick"]["method"] == "setfit" and outcome["grid_seconds"] == replay(str(grid), 200)["grid_seconds"]


def test_a_made_method_may_run_at_a_depth_only_the_grids_setfit_ran(tmp_path):
    # the grid's SetFit (the library's body, which make advise does not search) ran at k = 3, where
    # no other method did: a real search could run SetFit fast there, and so can the replay's
    for seed in range(1, 6):
        for k in (0, 2, 4, 6):
            write_result(tmp_path, k, 200, seed, 0.80, seconds=dict(total=10.0 * (8 - k), eval=0.0))
        write_result(tmp_path, 3, 200, seed, 0.86, method="setfit", lr=1e-5, seconds=dict(total=1000.0, eval=0.0))
    cells = replay_module.grid_at(str(tmp_path), 200)[2]
    searched = {cell: seeds for cell, seeds in cells.items() if cell.method != "setfit"}
    assert 3 not in replay_module.space_of_grid(searched, 200, ("setfit-fast",)).depths["", "setfit-fast"]
    assert 3 in replay_module.space_of_grid(searched, 200, ("setfit-fast",), cells).depths["", "setfit-fast"]


# ----------------------------------------------------------------------------------------------
# A real search on a tiny model


def tiny_task(folder):
    rows = [f"{word} film {i}\t{i % 2}\n" for i, word in enumerate(["good", "bad", "fine", "dull", "great", "awful"] * 8)]
    (folder / "train.tsv").write_text("sentence\tlabel\n" + "".join(rows))
    (folder / "dev.tsv").write_text("sentence\tlabel\n" + "".join(rows[:24]))
    (folder / "test.tsv").write_text("sentence\tlabel\n" + "".join(f"{w} film\t{i % 2}\n" for i, w in enumerate(["good", "bad"] * 6)))


@pytest.fixture(scope="module")
def searched(tiny_bert, tmp_path_factory):
    """A search killed after its first runs, then resumed to its end, its runs scoring a test file:
    (folder, the command, the first runs' records as the kill left them, the resumed search's output)."""
    tmp = tmp_path_factory.mktemp("advise")
    tiny_task(tmp)
    folder = tmp / "results"
    command = [sys.executable, "-m", "study.search.advise", str(folder), "--size", "16", "--budget", "0.5", "--seeds", "2",
               "--depths", "1", "2", "3", "--methods", "finetune", "probe", "--save", str(tmp / "saved"),
               "--splits-dir", str(tmp / "splits"), "--epochs", "2", "--test-file", str(tmp / "test.tsv"),
               "--", "--dataset", "tiny", "--model", tiny_bert,
               "--train-file", str(tmp / "train.tsv"), "--dev-file", str(tmp / "dev.tsv"),
               "--cache-dir", str(tmp / "cache"), "--precision", "fp32"]
    # the third run to end waits, trained and its result not yet written, until the search is killed (tests/hold/)
    flag = tmp / "held"
    hold = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "hold"), HOLD_AFTER="2", HOLD_FLAG=str(flag))
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, env=hold)
    deadline = time.time() + 120
    while not flag.exists() and time.time() < deadline and first.poll() is None:
        time.sleep(0.05)
    assert flag.exists(), "the search never reached its third result"
    os.killpg(first.pid, signal.SIGTERM)
    first.wait(timeout=60)
    time.sleep(0.5)
    before = {p.name: p.read_bytes() for p in folder.glob("*.json")}
    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return folder, command, before, resumed


def test_a_killed_search_resumes_to_its_answer_without_rerunning_a_finished_run(searched):
    folder, _, before, resumed = searched
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert 2 <= len(before) < len(list(folder.glob("*.json")))
    assert all((folder / name).read_bytes() == data for name, data in before.items())
    assert not (folder / advise.LOCK).exists() and not list(folder.glob("*.tmp*"))
    line = resumed.stdout.strip().splitlines()[-2]
    assert line.startswith("advise: decided: ") and "honest" in line
    assert "constant" not in line  # the words tell the classes apart: the pick is clear of one class for all
    report = (folder / advise.REPORT).read_text()
    assert report.startswith("# make advise: tiny") and "**Pick: " in report and "## The rounds" in report and "| 1 | first | freeze3_size16_seed1_probe.json |" in report
    runs = load_results(str(folder), figure="score")
    assert all(r["config"]["evaluations"] == "last" and len(r["curve"]) <= 1 for r in runs)


def test_the_seconds_of_runs_stopped_once_decided_count_as_spent(searched):
    """A run stopped once the answer was decided leaves no result; its seconds (advise.stopped, as
    the search logs them) are in the report's spending all the same."""
    folder, command, _, _ = searched
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    hours = lambda output: float(output.split(" h of runs")[0].rsplit("| ", 1)[1])
    (folder / search_folder.STOPPED).write_text(json.dumps(dict(run="freeze0_size16_seed2.json", seconds=36.0)) + "\n")
    try:
        stopped = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        assert again.returncode == 0 and stopped.returncode == 0, again.stderr + stopped.stderr
        assert hours(stopped.stdout) == pytest.approx(hours(again.stdout) + 0.01, abs=0.006)  # 36 s: 0.01 h
        assert "and 36 s of runs stopped once the answer was decided)" in (folder / advise.REPORT).read_text()
    finally:  # the folder is the module's
        (folder / search_folder.STOPPED).unlink()


def test_a_budget_too_small_and_a_second_search_are_refused_in_one_line(searched, tmp_path):
    folder, command, _, _ = searched
    tiny_budget = lambda results: [*command[:3], str(results), *command[4:command.index("--budget") + 1], "0.00001",
                                   *command[command.index("--budget") + 2:]]
    another = tiny_budget(tmp_path / "results")  # another search: the pick it would keep goes elsewhere
    another[another.index("--save") + 1] = str(tmp_path / "saved")
    small = subprocess.run(another, cwd=ROOT, capture_output=True, text=True)
    assert small.returncode == 2 and small.stderr.startswith("advise: error: a budget of") \
        and len(small.stderr.strip().splitlines()) == 1
    assert [p.name for p in (tmp_path / "results").glob("*.json")] == ["freeze3_size16_seed1_probe.json"]  # kept
    screened = subprocess.run(tiny_budget(folder), cwd=ROOT, capture_output=True, text=True)
    assert screened.returncode == 0 and "advise: decided" in screened.stdout  # its screen done: nothing refused
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (folder / advise.LOCK).write_text(str(other.pid))
        busy = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        assert busy.returncode == 2 and f"being searched by process {other.pid}" in busy.stderr
        assert len(busy.stderr.strip().splitlines()) == 1
    finally:
        other.kill()
        other.wait()
    (folder / advise.LOCK).write_text("999999999")  # a killed search's lock: taken over
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0 and "advise: decided" in again.stdout


def test_slurm_without_a_cluster_is_refused_in_one_line_before_any_run(searched, tmp_path):
    _, command, _, _ = searched
    folder = tmp_path / "results"
    without_slurm = dict(os.environ, PATH=os.path.dirname(sys.executable))  # python, but no sbatch
    another = [command[0], *command[1:3], str(folder), *command[4:command.index("--")], "--slurm", *command[command.index("--"):]]
    another[another.index("--save") + 1] = str(tmp_path / "saved")  # another search's pick goes elsewhere
    refused = subprocess.run(another, cwd=ROOT, capture_output=True, text=True, env=without_slurm)
    assert refused.returncode == 2 and refused.stderr.startswith("advise: error: SLURM=1 needs Slurm's sbatch")
    assert len(refused.stderr.strip().splitlines()) == 1 and not list(folder.glob("*.json"))


def test_a_test_file_is_scored_by_the_searchs_own_runs_and_an_older_run_is_run_again(searched, tmp_path):
    """The pick's figure on the test file is its seeds' own runs' (each scored the file as it ended),
    with no run again; a seed whose run did not score it (an older search's) runs again with the
    test file as its dev split, and scores what its own run would have."""
    folder, command, _, _ = searched
    test_file = command[command.index("--test-file") + 1]
    with open(command[command.index("--save") + 1] + ".json") as f:
        kept = json.load(f)  # the kept run: one of the pick's seeds
    pick = Cell.of(kept["config"])
    runs = {r["config"]["seed"]: r for r in load_results(str(folder), figure="score") if Cell.of(r["config"]) == pick}
    assert len(runs) >= 2 and all(r["test_at_score"] for r in runs.values())
    # the kept copy is the run the search read (its last evaluation), not make best's best of every one
    assert kept["config"]["evaluations"] == "last" and fair_score(kept, "accuracy") == fair_score(runs[kept["config"]["seed"]], "accuracy")
    mean = sum(r["test_at_score"]["accuracy"] for r in runs.values()) / len(runs)
    seed = kept["config"]["seed"]  # the pick's best seed on the dev split, and its own score on the test file
    assert seed == search_folder.kept_seed(list(runs.values()), "accuracy") and kept["test_at_score"]
    own = kept["test_at_score"]["accuracy"]
    said = f"On your test file ({test_file}): **{own:.3f}**, the model kept (seed {seed}); {mean:.3f}, the mean of the pick's"
    assert said in (folder / advise.REPORT).read_text() and not (folder / search_folder.TEST).exists()
    older = Path(search_folder.path_of(str(folder), pick, 16, 2))
    record = json.loads(older.read_text())
    older.write_text(json.dumps(dict(record, test_at_score=None)))
    tested = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)  # (its pick kept already: no keep run)
    assert tested.returncode == 0, tested.stderr
    again = load_results(str(folder / search_folder.TEST), figure="score")
    assert [(r["config"]["seed"], r["dev_size"]) for r in again] == [(2, 12)]  # seed 2 alone, on the test file
    assert fair_score(again[0], "accuracy") == pytest.approx(record["test_at_score"]["accuracy"], abs=1e-9)
    assert f"test file {own:.3f} (the model kept, seed {seed}; the pick's runs {mean:.3f})" in tested.stdout
    assert said in (folder / advise.REPORT).read_text()
    for extra, message in (([], "no such file"), (["--dev-file"], "goes with your own --train-file")):
        flags = command[command.index("--") + 1:]
        if extra:  # a GLUE task: no --dev-file of the user's
            flags = flags[:flags.index("--train-file")] + flags[flags.index("--dev-file") + 2:]
        bad = subprocess.run([*command[:command.index("--")], "--test-file",
                              test_file if extra else str(tmp_path / "none.tsv"),
                              "--", *flags], cwd=ROOT, capture_output=True, text=True)
        assert bad.returncode == 2 and message in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_the_report_reads_a_searchs_runs_as_its_answer(searched, tmp_path):
    from study import report
    folder = searched[0]
    report.main([str(folder), "--out", str(tmp_path)])
    text = (tmp_path / "report.md").read_text()
    assert "## The answer" in text and "evaluated once" in text and "| probe | 3 |" in text


def test_a_pick_no_better_than_one_class_for_all_says_so_in_every_way_out(tiny_bert, tmp_path, capsys):
    """Labels drawn at random: whatever the search picks, its honest score cannot stand two standard
    errors above the majority class's. The report, the printed line and the Python call's Advice say so.
    The call is given its folders as a notebook holds them, pathlib.Path."""
    coin = np.random.default_rng(3)
    train = ([f"film {i}" for i in range(48)], coin.integers(0, 2, 48).tolist())
    dev = ([f"film {i}" for i in range(100, 124)], coin.integers(0, 2, 24).tolist())
    folder = tmp_path / "results"
    advice = advise.advise((train, dev), Path(tiny_bert), 16, 0.5, folder, methods=["probe"], seeds=2,
                           save=tmp_path / "saved", cache_dir=tmp_path / "cache", splits_dir=tmp_path / "splits", precision="fp32")
    majority = max(dev[1].count(0), dev[1].count(1)) / 24
    assert advice.clear_of_constant is False and advice.honest_score <= majority + 0.2
    assert f"not clear of a constant prediction's {majority:.3f}" in capsys.readouterr().out
    assert f"- **Not clear of a constant prediction**: the best one class for every dev example scores {majority:.3f}" \
        in (folder / advise.REPORT).read_text()


def test_a_pick_is_clear_of_a_constant_prediction_only_two_standard_errors_above_it():
    from study.paired import Honest
    from study.search.advise_report import clear_of_constant, constant_of
    assert constant_of([result_record(1, 16, 1), result_record(1, 16, 2, accuracy=0.6)], "accuracy") == 0.509
    assert clear_of_constant(Honest(0.62, 0.05, 1.0), 0.509) is True
    assert clear_of_constant(Honest(0.60, 0.05, 1.0), 0.509) is False
    assert clear_of_constant(None, 0.509) is None  # a search of the halves: no error to read it by


def test_a_pick_saved_as_the_search_ran_is_moved_into_place_not_trained_again(tmp_path):
    run = tmp_path / "freeze2_size200_seed5.json"  # the pick's last seed, which saved its model as it ran
    (tmp_path / "kept" / "freeze2_size200_seed5").mkdir(parents=True)
    (tmp_path / "kept" / "freeze2_size200_seed5" / "model.safetensors").write_text("its weights")
    run.write_text(json.dumps(result_record(2, 200, 5, 0.8)))
    save = tmp_path / "saved" / "pick"
    # options no run could take: the pick is not trained again
    line, _ = keep(Cell("finetune", 2, 5e-5), ["--dataset", "none"], str(save),
                   Kept(5, 5, (str(run), str(tmp_path / "kept" / "freeze2_size200_seed5"))))
    assert "(seed 5, the best of the pick's 5 on the dev split, saved as the search ran it)" in line and run.exists()  # the search's result stays
    assert (save / "model.safetensors").read_text() == "its weights"
    assert json.loads(Path(str(save) + ".json").read_text())["config"]["freeze"] == 2


class Training:
    """Workers that make each run asked of them as a run would: its result, and its model where --save names one."""
    def __init__(self):
        self.asked = []

    def run_all(self, runs, shared, run_flags, echo=print):
        self.asked.append((runs, shared, run_flags))
        for path in runs:
            os.makedirs(shared["save"])
            Path(path).write_text(json.dumps(result_record(2, 200, 3, 0.8)))
        return 0


def test_a_seed_to_keep_that_no_run_saved_is_trained_again_by_the_search_s_own_workers(tmp_path):
    """Not in a process of its own: at another thread count a run rounds otherwise, and training
    carries it on (STS-B: 0.738 on dev against the search's 0.754). Nothing runs where an earlier
    search kept the same pick."""
    cell, workers = Cell("finetune", 2, 5e-5), Training()
    s = rounds.Search(str(tmp_path / "results"), 200, None, 1e9, {"model": "minilm"}, ["--evaluations", "last"], workers,
                      echo=lambda line: None)
    kept, code = to_keep(s, cell, Kept(3, 5), str(tmp_path / "saved"), False, s.flags)
    path = search_folder.kept_path(s.folder, cell, 200, 3)
    assert workers.asked == [([path], {"model": "minilm", "save": path[:-len(".json")]}, ["--evaluations", "last"])]
    assert code == 0 and kept == Kept(3, 5, (path, path[:-len(".json")]), "trained again")
    line, _ = keep(cell, [], str(tmp_path / "saved"), kept)
    assert "(seed 3, the best of the pick's 5 on the dev split, trained again)" in line
    assert to_keep(s, cell, Kept(3, 5), str(tmp_path / "saved"), False, s.flags) == (Kept(3, 5), 0)  # kept already
    assert len(workers.asked) == 1
    final, _ = to_keep(s, cell, Kept(), str(tmp_path / "saved"), True, ["--final"])  # another model: trained
    assert final.saved[0] == search_folder.kept_path(s.folder, cell, 200, 1, final=True) and final.how == "trained on every label"
    assert workers.asked[-1][2] == ["--final"]


def test_a_keep_replaces_the_same_searchs_earlier_pick_once_the_new_one_is_in_place(tmp_path):
    save = tmp_path / "saved" / "pick"
    save.mkdir(parents=True)
    (save / "model.safetensors").write_text("the earlier pick")
    Path(str(save) + ".json").write_text(json.dumps(result_record(4, 200, 1, 0.7)))
    run = tmp_path / "freeze2_size200_seed5.json"
    (tmp_path / "kept" / "freeze2_size200_seed5").mkdir(parents=True)
    (tmp_path / "kept" / "freeze2_size200_seed5" / "model.safetensors").write_text("its weights")
    run.write_text(json.dumps(result_record(2, 200, 5, 0.8)))
    line, _ = keep(Cell("finetune", 2, 5e-5), ["--dataset", "none"], str(save),
                   Kept(5, 5, (str(run), str(tmp_path / "kept" / "freeze2_size200_seed5"))))
    assert "it replaces the earlier pick kept there (fine-tune, freeze 4)" in line
    assert (save / "model.safetensors").read_text() == "its weights" and not Path(str(save) + ".new").exists()
    assert json.loads(Path(str(save) + ".json").read_text())["config"]["freeze"] == 2


def test_a_save_holding_anything_but_this_searchs_pick_is_refused_before_any_run(tmp_path):
    save = tmp_path / "saved"
    check_save(str(save), 200, set())  # nothing there yet
    save.mkdir()
    with pytest.raises(ValueError, match="exists and is no pick a search kept: give another --save, or move it"):
        check_save(str(save), 200, {"sst2"})
    Path(str(save) + ".json").write_text(json.dumps(result_record(2, 200, 1, 0.8, task="cola")))
    with pytest.raises(ValueError, match=r"holds a pick of another search \(cola, n = 200\)"):
        check_save(str(save), 200, {"sst2"})  # the folder's runs are another task's
    with pytest.raises(ValueError, match="another search"):
        check_save(str(save), 100, {"cola"})
    check_save(str(save), 200, {"cola"})  # its own earlier pick: the keep may replace it
    folder = tmp_path / "results"
    refused = subprocess.run([sys.executable, "-m", "study.search.advise", str(folder), "--size", "16", "--budget", "1",
                              "--depths", "1", "2", "--save", str(save), "--", "--dataset", "sst2"],
                             cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "holds a pick of another search" in refused.stderr and not folder.exists()


def test_the_printed_predict_command_names_the_user_s_columns():
    from study.search.keep import text_columns
    assert text_columns(["--train-file", "t.csv", "--text-column", "tweet"]) == " --text-column tweet"
    assert text_columns(["--text-column", "q", "--text-pair-column", "a"]) == " --text-column q --text-pair-column a"
    assert text_columns(["--dataset", "sst2"]) == ""  # predict.py finds a 'sentence' or 'text' column itself


def test_the_grid_a_search_stands_in_for_is_costed_at_this_machine_s_seconds():
    space = Space(depths={("", "finetune"): [0, 2], ("", "probe"): [2]},
                         default_rate={("", "finetune"): 5e-5, ("", "probe"): None},
                         ladder={("", "finetune"): [5e-5], ("", "probe"): []}, available=lambda cell: True)
    observed = {Cell("finetune", 2, 5e-5): [(0.7, 10.0)], Cell("probe", 2, None): [(0.6, 1.0)]}
    # k = 0 has not run: its prior cost (3 layers and the head against k = 2's 1) at the median seconds per
    # unit of prior cost the others took (10 / 1 and 1 / 0.5: 6), so 18 s; five seeds of the three cells
    assert grid_seconds(space, observed, seeds=5) == pytest.approx(5 * (18.0 + 10.0 + 1.0))


def test_a_search_that_made_every_run_of_the_grid_spent_all_of_it():
    """The runs the search made count at their own seconds: five probe runs, the first paying a
    worker's start, cost what they took (8 s), not five medians (5 s: 160% of the grid)."""
    space = Space(depths={("", "probe"): [2]}, default_rate={("", "probe"): None}, ladder={("", "probe"): []},
                  available=lambda cell: True)
    observed = {Cell("probe", 2, None): [(0.6, 4.0), (0.6, 1.0), (0.6, 1.0), (0.6, 1.0), (0.6, 1.0)]}
    assert grid_seconds(space, observed, seeds=5) == pytest.approx(8.0)
    assert grid_seconds(space, observed, seeds=3) == pytest.approx(6.0)  # the grid's seeds, not the search's


def test_a_search_runs_setfit_s_fast_body_at_its_depths(tiny_bert, tmp_path):
    tiny_task(tmp_path)
    folder = tmp_path / "results"
    command = [sys.executable, "-m", "study.search.advise", str(folder), "--size", "16", "--budget", "0.5", "--seeds", "1",
               "--depths", "1", "2", "3", "--methods", "setfit-fast", "probe", "--save", str(tmp_path / "saved"),
               "--jobs", "2", "--splits-dir", str(tmp_path / "splits"), "--", "--dataset", "tiny", "--model", tiny_bert,
               "--train-file", str(tmp_path / "train.tsv"), "--dev-file", str(tmp_path / "dev.tsv"),
               "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    fast = [r for r in load_results(str(folder), figure="score") if r["config"]["method"] == "setfit-fast"]
    assert {r["config"]["freeze"] for r in fast} >= {1, 3} and all(r["config"]["num_iterations"] is None for r in fast)
    report = (folder / advise.REPORT).read_text()
    assert "| SetFit fast | 1 |" in report
    # two workers: the screen longest first, the depth that trains more layers first
    assert "| 2 | screen | freeze1_size16_seed1_setfit-fast.json, freeze3_size16_seed1_setfit-fast.json |" in report


def test_the_search_s_steps_share_one_object_and_take_at_most_seven_parameters():
    """The search's folder, space, workers and budget travel in one Search (#88), not by hand."""
    import ast
    from conftest import ROOT
    for name in ("advise.py", "advise_report.py", "rounds.py"):
        tree = ast.parse(open(os.path.join(ROOT, "study", "search", name)).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                a = node.args
                count = len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                assert count <= 7, f"study/{name}: {node.name} takes {count} parameters"


def test_a_search_trains_setfit_s_fast_body_unless_its_methods_name_the_library_s():
    from study.search import advise
    from study.search import asked
    assert advise.parser().parse_args(["--size", "200"]).methods is None  # unnamed: the search's own
    space = asked.checked(advise.parser().parse_args(["f", "--size", "200", "--budget", "1", "--depths", "0", "6"]), [])[3]
    searched = {name for _, name in space.depths}
    assert "setfit-fast" in searched and "setfit" not in searched and "probe" in searched
    assert advise.parser().parse_args(["--size", "200", "--methods", "setfit"]).methods == ["setfit"]


def test_size_all_on_your_own_file_is_searched_at_its_examples_rates(tmp_path):
    """SIZE=all on a file of 60 examples: SetFit fast at the rate for n = 60, not a GLUE split's thousands."""
    from study.search import advise
    from study.search import asked
    (tmp_path / "train.csv").write_text("text,label\n" + "".join(f"film {i},{i % 2}\n\n" for i in range(60)))
    args = advise.parser().parse_args([str(tmp_path / "results"), "--size", "all", "--budget", "1", "--depths", "0", "6"])
    _, _, size, space = asked.checked(args, ["--train-file", str(tmp_path / "train.csv"), "--dev-file", "dev.csv"])
    assert size == 60 and space.default_rate[("", "setfit-fast")] == methods.get("setfit-fast").default_lr(60) == 5e-4
    assert methods.get("setfit-fast").default_lr("all") == 2e-5  # what 'all' reads as: thousands of examples
    glue = advise.parser().parse_args([str(tmp_path / "results"), "--size", "all", "--budget", "1", "--depths", "0", "6"])
    assert asked.checked(glue, ["--dataset", "sst2"])[2] == "all"


def test_a_run_the_search_would_make_that_would_refuse_is_refused_before_any_work(tiny_bert, tmp_path):
    """Each method planned on the task as its runs will read it, before the checkpoints are scored:
    a test file's label the train file lacks, SetFit named on a regression task. Unnamed, a
    regression task's search leaves SetFit out."""
    tiny_task(tmp_path)
    (tmp_path / "odd.tsv").write_text("sentence\tlabel\ngood\t0\nbad\t2\n")
    (tmp_path / "scores.tsv").write_text("sentence\tlabel\n" + "".join(f"film {i}\t{i / 8:.2f}\n" for i in range(40)))
    args = lambda *extra: advise.parser().parse_args([str(tmp_path / "results"), "--size", "16", "--budget", "1",
                                                      "--depths", "1", "2", "3", *extra])
    flags = lambda train, dev, *extra: ["--model", tiny_bert, "--train-file", str(tmp_path / train),
                                        "--dev-file", str(tmp_path / dev), "--splits-dir", str(tmp_path / "splits"), *extra]
    with pytest.raises(ValueError, match=r"odd.tsv, line 3: label 2 is not a class of the train split \(0..1\)"):
        advise.advise_in(args("--test-file", str(tmp_path / "odd.tsv")), flags("train.tsv", "dev.tsv"))
    with pytest.raises(ValueError, match="is a regression task, and --method setfit-fast needs classes"):
        advise.advise_in(args("--methods", "finetune", "setfit-fast"), flags("scores.tsv", "scores.tsv", "--regression"))
    assert not (tmp_path / "results").exists() and not (tmp_path / "splits").exists()
    from study.search import asked
    checked_args, run_flags, size, space = asked.checked(args(), flags("scores.tsv", "scores.tsv", "--regression"))
    kept = asked.checked_runs(space, size, run_flags, {}, methods_named=False)
    assert {name for _, name in kept.depths} == {"finetune", "lora", "bitfit", "probe"}  # the probe fits a ridge
    with pytest.raises(ValueError, match=r"the folder holds runs of scores-00000000, and this search's task is scores-"):
        asked.checked_runs(space, size, run_flags, {}, False, [{"task": "scores-00000000"}])  # an edited file's
    task_name = data.file_name(str(tmp_path / "scores.tsv"))
    asked.checked_runs(space, size, run_flags, {}, False, [{"task": task_name, "dev": task_name}])  # its own
    with pytest.raises(ValueError, match=r"the folder holds runs scored on scores-00000000, and this search's dev file "):
        asked.checked_runs(space, size, run_flags, {}, False, [{"task": task_name, "dev": "scores-00000000"}])
    assert "setfit-fast" in {name for _, name in space.depths}
