"""The search's cheap screen (policy.promote), on made-up scores: SetFit is screened at fewer pairs,
only its best screened depth earns a full run at first, then only cheaper depths near it, never
one far below it, and a screen never answers. (The rest of the policy: tests/study/test_advise.py.)"""

from dataclasses import replace

from study import policy
from study.standing import Cell

RATE = {"finetune": 5e-5, "setfit": 1e-5}  # their default rates at n = 200
SECONDS = {"finetune": 10.0, "setfit": 40.0}  # a run's seconds per layer it trains


def space(cheap=("setfit",)):
    # no line searches: the promotions alone
    built = policy.space_for(200, 5, [-1, 0, 1, 2, 3, 4, 5], ["finetune", "setfit"], cheap=cheap)
    return replace(built, ladder={("", "finetune"): [], ("", "setfit"): []})


def observed_of(scores, cheap=False):
    """{Cell: [(score, seconds)]} from {(method, k): [scores]}."""
    return {Cell(name, k, RATE[name], cheap): [(s, SECONDS[name] * (6 - k) / (4 if cheap else 1)) for s in values]
            for (name, k), values in scores.items()}


FINETUNE = observed_of({("finetune", 5): [0.60], ("finetune", 4): [0.65], ("finetune", 3): [0.70], ("finetune", 2): [0.75],
                        ("finetune", 1): [0.80], ("finetune", 0): [0.805], ("finetune", -1): [0.81]})
# SetFit's screen: k = 5 (L) in full, as nothing trains there; the others at fewer pairs
SCREENS = observed_of({("setfit", 5): [0.55]}) | observed_of({("setfit", 3): [0.60], ("setfit", 1): [0.74],
                                                              ("setfit", -1): [0.72]}, cheap=True)


def setfit_cells(round_):
    return [cell for cell in round_.cells if cell.method == "setfit"]


def test_setfit_is_screened_at_fewer_pairs_and_a_replay_without_them_screens_it_in_full():
    first = policy.next_runs(space(), {}, "accuracy", 436)
    assert first.step == "screen" and setfit_cells(first) == [Cell("setfit", 5, 1e-5)] + [Cell("setfit", k, 1e-5, True)
                                                                                           for k in (3, 1, -1)]
    assert all(not cell.cheap for cell in setfit_cells(policy.next_runs(space(cheap=()), {}, "accuracy", 436)))


def test_only_the_best_screened_depth_earns_a_full_run_and_a_method_out_of_the_band_gets_no_other():
    promoted = policy.next_runs(space(), FINETUNE | SCREENS, "accuracy", 436)
    assert promoted.step == "promote" and setfit_cells(promoted) == [Cell("setfit", 1, 1e-5)]
    tied = observed_of({("setfit", -1): [0.74]}, cheap=True)  # of equal screens the cheaper, whichever ran first
    tied |= {cell: runs for cell, runs in (FINETUNE | SCREENS).items() if cell not in tied}
    assert setfit_cells(policy.next_runs(space(), tied, "accuracy", 436)) == [Cell("setfit", 1, 1e-5)]
    # its full run far below the band: no other depth of it runs in full, and the answer is decided without it
    out = FINETUNE | SCREENS | observed_of({("setfit", 1): [0.60]})
    assert not setfit_cells(policy.next_runs(space(), out, "accuracy", 436))
    assert policy.pick(space(), {cell: runs * 5 for cell, runs in out.items()}, "accuracy", 436) == (Cell("finetune", 1, 5e-5), True)


def test_a_cheaper_depth_near_the_best_screen_runs_in_full_and_neither_one_out_nor_a_costlier_one_does():
    # SetFit at k = 1 in full is in the race: k = 3's screen (0.60) is out beside the best screen (0.74),
    # so it never runs in full; k = -1's (0.72) is near it, but costlier: the screen ranked it lower
    near = FINETUNE | SCREENS | observed_of({("setfit", 1): [0.83]})
    assert not setfit_cells(policy.next_runs(space(), near, "accuracy", 436))
    assert "out beside its method's best screen" in policy.screen_reason(Cell("setfit", 3, 1e-5, True), near, "accuracy", 436)
    # a cheaper depth whose screen is near the best screen's could be the answer: it runs in full
    closer = near | observed_of({("setfit", 3): [0.73]}, cheap=True)
    assert setfit_cells(policy.next_runs(space(), closer, "accuracy", 436)) == [Cell("setfit", 3, 1e-5)]


def test_a_screen_never_answers_however_well_it_scores():
    observed = FINETUNE | observed_of({("setfit", 3): [0.95] * 5}, cheap=True)
    state = policy.standing(policy.answering(observed), "accuracy", 436)
    assert state.best == Cell("finetune", -1, 5e-5) and all(not cell.cheap for cell in state.means)
    chosen, _ = policy.pick(space(), observed, "accuracy", 436)
    assert not chosen.cheap


def test_a_replay_with_screens_beside_its_grid_screens_with_them_and_reaches_the_same_answer(tmp_path):
    from conftest import write_result
    from study.replay import replay
    (tmp_path / "screen").mkdir()
    finetune = {6: 0.55, 5: 0.80, 4: 0.81, 3: 0.815, 2: 0.82, 1: 0.82, 0: 0.82, -1: 0.82}
    setfit = {6: 0.60, 4: 0.66, 2: 0.70, 0: 0.80}
    for seed in range(1, 6):
        for k, mean in finetune.items():
            write_result(tmp_path, k, 200, seed, mean + 0.004 * (seed - 3), seconds=dict(total=10.0 * (8 - k), eval=0.0))
        for k, mean in setfit.items():  # at k = 6 nothing trains: its head alone, at any pairs
            write_result(tmp_path, k, 200, seed, mean + 0.004 * (seed - 3), method="setfit", lr=1e-5,
                         seconds=dict(total=40.0 * (8 - k) if k < 6 else 20.0, eval=0.0))
    for k, mean in setfit.items():  # SetFit at fewer pairs: lower, in the same order, a quarter of the seconds
        if k < 6:
            write_result(tmp_path / "screen", k, 200, 1, mean - 0.05, seconds=dict(total=10.0 * (8 - k), eval=0.0),
                         method="setfit", lr=1e-5)
    screened, plain = replay(str(tmp_path), 200, screens=True), replay(str(tmp_path), 200)  # --cheap-screen, and not
    assert screened["pick"] == plain["pick"] == dict(method="finetune", freeze=4, lr=5e-5)
    assert screened["grid_seconds"] == plain["grid_seconds"] and screened["seconds"] < plain["seconds"]
    ran = [(cell, step) for cell, _, _, step in screened["order"] if cell.method == "setfit"]
    # at k = 6 nothing trains: its screen is its full run
    assert ran[:4] == [(Cell("setfit", 6, 1e-5), "screen")] + [(Cell("setfit", k, 1e-5, True), "screen") for k in (4, 2, 0)]
    # k = 0 screened best: in full; k = 2 and 4, screened far below it, never run in full, and that is what the
    # screen saves: their full runs (at a quarter of their seconds, it ran their screens)
    assert [cell.freeze for cell, _ in ran[4:] if not cell.cheap] == [0]
    assert plain["seconds"] - screened["seconds"] == (160 + 240) - (40 + 60 + 80)


def test_setfit_is_screened_cheaply_only_where_the_search_s_own_pairs_cost_more():
    from study.search_folder import cheap_methods
    assert cheap_methods(["finetune", "setfit"], dict(num_iterations=None)) == ["setfit"]  # setfit's oversampling
    assert cheap_methods(["finetune", "setfit"], dict(num_iterations=20)) == ["setfit"]
    assert cheap_methods(["finetune", "setfit"], dict(num_iterations=5)) == []  # the screen's own: nothing cheaper
