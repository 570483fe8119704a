"""make advise's replay (study/search/replay.py): the search's policy over a made-up grid's runs,
without running anything: it reaches the grid's answer for less, reads a search's own runs as the
search did, and asks for the SetFit fast runs a grid lacks."""

import json

import pytest

from conftest import result_record, write_result
from study.search import advise
from study.search import replay as replay_module
from study.search.replay import Made, replay
from study.search.standing import Cell


def test_replay_reaches_a_clear_grids_answer_for_less_than_the_grid(tmp_path, capsys):
    accuracy = {6: 0.55, 5: 0.80, 4: 0.81, 3: 0.815, 2: 0.82, 1: 0.82, 0: 0.82, -1: 0.82}
    for k, mean in accuracy.items():
        for seed in range(1, 6):
            write_result(tmp_path, k, 200, seed, mean + 0.004 * (seed - 3), seconds=dict(total=10.0 * (8 - k), eval=0.0))
    outcome = replay(str(tmp_path), 200)  # the band: the dev split's ± 0.013 at 0.82, so k = 5 is out, k = 4 in
    assert outcome["same"] and outcome["pick"] == dict(method="finetune", freeze=4, lr=5e-5)
    assert outcome["runs"] < outcome["grid_runs"] and outcome["seconds"] < outcome["grid_seconds"]
    # k = 6, the grid's cheapest (no probe), runs once: first and alone, as the search makes it
    assert [order for order in outcome["order"] if order[0].freeze == 6] == [(Cell("finetune", 6, 5e-5), 1, 20.0, "first")]
    budgeted = replay(str(tmp_path), 200, budget_seconds=outcome["seconds"] / 2)  # it ends before a run would overrun
    assert 0 < budgeted["seconds"] <= outcome["seconds"] / 2 and not budgeted["decided"]
    advise.main(["--replay", str(tmp_path), "--size", "200", "--prefer", "cost"])
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["pick"] == outcome["pick"] and {"size", "seconds", "grid_seconds"} <= set(last)
    # make advise's own answer, the best: one of the depths at 0.82, not the cheapest in the band
    advise.main(["--replay", str(tmp_path), "--size", "200"])
    best = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["pick"]
    assert best["freeze"] in (-1, 0, 1, 2) and best == replay(str(tmp_path), 200, prefer="best")["pick"]


def test_a_grid_below_200_examples_is_replayed_at_the_rate_it_ran_each_depth_at(tmp_path):
    """A grid runs the fine-tune at the protocol's 5e-5 at every depth, its line search at a few; a
    live search screens it at 2e-4 from 50 examples, which this grid ran at k = 0 alone."""
    for k in (0, 1, 2, 3):
        for seed in range(1, 4):
            write_result(tmp_path, k, 50, seed, 0.70 + 0.01 * k + 0.004 * seed, seconds=dict(total=10.0 * (4 - k), eval=0.0))
    write_result(tmp_path, 0, 50, 1, 0.60, lr=2e-4, seconds=dict(total=40.0, eval=0.0))
    outcome = replay(str(tmp_path), 50)
    screened = {cell for cell, _, _, step in outcome["order"] if step in ("first", "screen")}
    assert screened and {cell.lr for cell in screened} == {5e-5}


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
