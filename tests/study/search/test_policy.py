"""make advise's policy, on made-up scores: which runs each round asks for (the screen, refine,
the rates' line search, seeds for the in/out and best steps) and which cells stand in the band
(study/search/policy.py, standing.py; what a run costs: test_space.py)."""

import math
import os

import numpy as np

from study.search import policy, search_folder
from study.search.advise_report import stop_reason
from study.answer import answer_cells, recommend
from study.search.standing import PICK_SEEDS, PRIOR_SEED_STD, Cell, standing
from study.search.space import Space, space_for


def space(depths=(-1, 0, 1, 2, 3), names=("finetune", "probe"), size=200, available=lambda cell: True):
    return space_for(size, max(depths), list(depths), list(names), available)


def test_the_screen_runs_every_method_at_every_other_depth_down_to_0_at_its_own_rate():
    wanted = policy.next_runs(space(depths=(-1, 0, 1, 2, 3, 4, 5, 6)), {}, "accuracy", 436)
    assert wanted.step == "screen"
    assert sorted((c.method, c.freeze, c.lr) for c in wanted.cells) == sorted(
        [("finetune", k, 5e-5) for k in (0, 2, 4, 6)] + [("probe", 6, None)])


def test_below_200_examples_the_fine_tune_is_screened_at_its_line_searches_rate_not_the_protocols():
    """The protocol's 5e-5 at n = 50 predicted one class for all on Amazon counterfactual, where
    2e-4 scored 0.66 macro-F1 on its test file (docs/records/finetune-own-rate-2026-12-06)."""
    for size, rate in ((50, 2e-4), (100, 1e-4), (200, 5e-5)):
        wanted = policy.next_runs(space(depths=(0, 1, 2), names=("finetune",), size=size), {}, "accuracy", 436)
        assert {(c.freeze, c.lr) for c in wanted.cells} == {(0, rate), (2, rate)}
        assert search_folder.path_of("r", wanted.cells[0], size, 1).endswith(
            "_seed1.json" if rate == 5e-5 else f"_seed1_lr{rate:.0e}.json".replace("e-0", "e-"))


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
    no_rates = Space(space().depths, space().own_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
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
    no_rates = Space(space().depths, space().own_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
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
    no_rates = Space(space().depths, space().own_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
    observed = observed_of(scores, SECONDS)
    wanted = policy.next_runs(no_rates, observed, "accuracy", 436)
    assert wanted.step == "in/out" and wanted.cells == [Cell("probe", 3, None)]
    assert policy.pick(no_rates, observed, "accuracy", 436)[1] is False


def test_an_undecided_search_says_what_it_stopped_before_and_no_cell_reads_as_decided():
    from study.search.advise_report import verdict
    scores = {("probe", 3, None): [0.78], ("finetune", 3, 5e-5): [0.50], ("finetune", 1, 5e-5): [0.80] * 5,
              ("finetune", 2, 5e-5): [0.80] * 5, ("finetune", 0, 5e-5): [0.82, 0.79], ("finetune", -1, 5e-5): [0.83, 0.80]}
    no_rates = Space(space().depths, space().own_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
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
    words, short = verdict(waiting, 3600, 1800, next_seconds=2000)  # 0.5 h spent and 0.56 h to come: 1.1 h
    assert "the first probe at freeze 3) (about 0.56 h: BUDGET=1.1 resumes the search to run it) did not fit" in words
    assert short == "NOT decided (budget spent; BUDGET=1.1 runs its next round)"
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
    no_rates = Space(space().depths, space().own_rate, {("", "finetune"): [], ("", "probe"): []}, lambda cell: True)
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
    room = lambda left: Space(space().depths, space().own_rate, {("", "finetune"): [], ("", "probe"): []}, left)
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
