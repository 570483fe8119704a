"""study/search/rounds.py: a worker that is free asks for the policy's next round, less the runs under way,
which count toward the budget; the likely pick's last seed saves its model for the keep (the
defaults' seeds from the screen on), or, where it ran unsaved, a worker with nothing to run trains
the pick to keep (a real search end to end: test_advise.py)."""

import json
import os
from dataclasses import replace

import pytest

import methods
from conftest import result_record
from study.search import policy, rounds
from study.search.search_folder import (drop_beaten_keeps, kept_folder, kept_path, kept_run, kept_seed, path_of, read_folder,
                                        stopped_seconds)
from study.search.standing import Cell, anchor_of
from study.search.space import expected_seconds, space_for

SPACE = space_for(200, 4, [0, 1, 2, 3, 4], ["finetune", "bitfit", "lora"])


def ran(folder, cell, seed, score, seconds=10.0):
    """A search's run of `cell` as its folder holds it: both halves of the dev split scored."""
    record = result_record(cell.freeze, 200, seed, score, lr=cell.lr, method=cell.method,
                           seconds=dict(total=seconds, eval=0.0))
    record["dev_halves"] = [dict(accuracy=score, mcc=0.0)] * 2
    with open(path_of(str(folder), cell, 200, seed), "w") as f:
        json.dump(record, f)


class Asking:
    """Workers that only ask: `script(ask)` plays what they would see."""
    def __init__(self, script, jobs=2):
        self.script, self.jobs, self.stopped, self.stopped_after = script, jobs, [], {}

    def stop(self, paths):
        self.stopped.append(sorted(paths))

    def run_asked(self, ask, run_flags, echo=print):
        self.script(ask)
        return 0


def screened(folder):
    """A folder with the search's first run, and the screen it asks for after it."""
    ran(folder, Cell("finetune", 4, methods.get("finetune").default_lr(200)), 1, 0.8)
    return policy.screen(SPACE, read_folder(str(folder), 200, SPACE)[1])


def search_with(folder, budget_seconds, script, keeps_ahead=False, seeds=5, workers=None):
    s = rounds.Search(str(folder), 200, SPACE, budget_seconds, {}, [], workers or Asking(script), seeds=seeds,
                      echo=lambda line: None, keeps_ahead=keeps_ahead)
    return rounds.run_rounds(s)


def test_a_free_worker_asks_for_the_next_round_less_the_runs_under_way(tmp_path):
    screen, asked = screened(tmp_path), []
    first_run = lambda cell: (path_of(str(tmp_path), cell, 200, 1), {})

    def screen_then_again(ask):
        asked.append(ask(frozenset()))  # the screen, cheapest first
        ran(tmp_path, screen[0], 1, 0.7)  # its first run ends, the second is under way
        asked.append(ask(frozenset({asked[0][1][0]})))

    assert search_with(tmp_path, 1e9, screen_then_again, workers=Asking(screen_then_again, jobs=1)) == 0
    assert asked == [[first_run(cell) for cell in screen], [first_run(cell) for cell in screen[2:]]]


def test_with_several_workers_a_screen_the_budget_pays_for_goes_longest_first(tmp_path):
    screen = screened(tmp_path)
    observed = read_folder(str(tmp_path), 200, SPACE)[1]
    cost = lambda cell: expected_seconds(cell, observed, SPACE)
    longest = sorted(screen, key=cost, reverse=True)
    assert longest != screen and len({cost(cell) for cell in screen}) > 2
    for budget, order in ((1e9, longest), (rounds.spent(observed) + sum(map(cost, screen)) - 1, screen)):
        asked = []
        search_with(tmp_path, budget, lambda ask: asked.append(ask(frozenset())))
        assert [path for path, _ in asked[0]] == [path_of(str(tmp_path), cell, 200, 1) for cell in order][:len(asked[0])], budget
    assert 0 < len(asked[0]) < len(screen)  # the budget short of the screen: the cheapest first, as far as it pays


def test_the_runs_under_way_count_toward_the_budget(tmp_path):
    screen = screened(tmp_path)
    ran(tmp_path, screen[0], 1, 0.7)
    observed = read_folder(str(tmp_path), 200, SPACE)[1]
    cost = lambda cell: expected_seconds(cell, observed, SPACE)
    exact = rounds.spent(observed) + cost(screen[1]) + cost(screen[2])
    first_run = lambda cell: path_of(str(tmp_path), cell, 200, 1)
    for budget, runs in ((exact, 2), (exact - 1, 1)):  # what ended, then the screen's next two
        asked = []
        search_with(tmp_path, budget, lambda ask: asked.extend([ask(frozenset()), ask(frozenset({first_run(screen[1])}))]))
        assert [[path for path, _ in round_] for round_ in asked] == [[first_run(cell) for cell in screen[1:1 + runs]],
                                                                     [first_run(screen[2])][:runs - 1]], budget


def in_out_of(cell, monkeypatch):
    """The policy at the in/out step, asking for `cell`'s next seed alone, its pick `cell`."""
    monkeypatch.setattr(policy, "next_runs", lambda *args: policy.Round("in/out", [cell]))
    monkeypatch.setattr(policy, "pick", lambda *args: (cell, False))


def test_a_cells_next_seed_is_the_one_after_those_under_way(tmp_path, monkeypatch):
    screened(tmp_path)
    cell = Cell("finetune", 2, methods.get("finetune").default_lr(200))
    ran(tmp_path, cell, 1, 0.8)
    in_out_of(cell, monkeypatch)
    seed = lambda n: path_of(str(tmp_path), cell, 200, n)
    asked = []
    search_with(tmp_path, 1e9, lambda ask: asked.extend([ask(frozenset()), ask(frozenset({seed(2)}))]))
    assert asked == [[(seed(2), {})], [(seed(3), {})]]


def test_the_likely_picks_seeds_save_their_models_as_they_run_once_the_pick_has_two_seeds(tmp_path, monkeypatch):
    screened(tmp_path)
    cell = Cell("finetune", 2, methods.get("finetune").default_lr(200))
    in_out_of(cell, monkeypatch)
    for seeds in (1, 2):
        ran(tmp_path, cell, seeds, 0.8)
        nxt = path_of(str(tmp_path), cell, 200, seeds + 1)
        asked = []
        search_with(tmp_path, 1e9, lambda ask: asked.append(ask(frozenset())), keeps_ahead=True, seeds=5)
        saves = dict(save=kept_folder(str(tmp_path), nxt)) if seeds == 2 else {}
        assert asked == [[(nxt, saves)]], seeds  # any of its seeds may be the best: each saves
    assert saves["save"] == str(tmp_path / "kept" / "freeze2_size200_seed3")


def two_of_three_seeds(tmp_path, monkeypatch):
    """A cell with 2 of its 3 seeds run, seed 2 the better, the policy at its in/out step: (the
    cell, another cell, the cell's last seed's path, the path its keep trains seed 2 to)."""
    screened(tmp_path)
    lr = methods.get("finetune").default_lr(200)
    cell, other = Cell("finetune", 2, lr), Cell("finetune", 1, lr)
    for seed, score in ((1, 0.8), (2, 0.82)):
        ran(tmp_path, cell, seed, score)
    in_out_of(cell, monkeypatch)
    return cell, other, path_of(str(tmp_path), cell, 200, 3), kept_path(str(tmp_path), cell, 200, 2)


def led_by_another_then_by_the_cell(ask, cell, other, last, monkeypatch):
    """The two rounds asked for: the cell's last seed, handed out while another cell led (so not
    saving its model), then, with it under way and the cell leading."""
    monkeypatch.setattr(policy, "pick", lambda *args: (other, False))
    first = ask(frozenset())
    monkeypatch.setattr(policy, "pick", lambda *args: (cell, False))
    return [first, ask(frozenset({last}))]


def test_a_worker_with_no_seed_to_run_trains_the_likely_pick_to_keep_when_its_last_seed_runs_unsaved(tmp_path, monkeypatch):
    cell, other, last, kept = two_of_three_seeds(tmp_path, monkeypatch)
    asked = []
    search_with(tmp_path, 1e9, lambda ask: asked.extend(led_by_another_then_by_the_cell(ask, cell, other, last, monkeypatch)),
                keeps_ahead=True, seeds=3)
    assert asked == [[(last, {})], [(kept, dict(save=kept[:-len(".json")]))]]
    monkeypatch.setattr(policy, "next_runs", lambda *args: policy.Round("screen", [cell]))
    monkeypatch.setattr(policy, "ahead", lambda *args, **kwargs: policy.Round("ahead", []))  # nothing later to run
    asked = []
    search_with(tmp_path, 1e9, lambda ask: asked.extend([ask(frozenset()), ask(frozenset({last}))]),
                keeps_ahead=True, seeds=3)
    assert asked == [[(last, {})], []]  # not while the screen is under way


def test_the_keep_finds_the_seed_it_keeps_as_a_run_saved_it(tmp_path):
    cell = Cell("finetune", 2, methods.get("finetune").default_lr(200))
    for seed in (1, 2, 3):
        ran(tmp_path, cell, seed, 0.8)
    assert kept_run(str(tmp_path), cell, 200, 3) is None
    last = path_of(str(tmp_path), cell, 200, 3)
    os.makedirs(kept_folder(str(tmp_path), last))  # its seed 3 saved as it ran
    assert kept_run(str(tmp_path), cell, 200, 3) == (last, kept_folder(str(tmp_path), last))
    assert kept_run(str(tmp_path), cell, 200, 1) is None  # another seed's model is not this one's
    kept = kept_path(str(tmp_path), cell, 200, 1)  # its seed 1 trained again: its own result beside its folder
    os.makedirs(kept[:-len(".json")])
    with open(kept, "w") as f:
        json.dump({}, f)
    assert kept_run(str(tmp_path), cell, 200, 1) == (kept, kept[:-len(".json")])


def test_the_seed_kept_is_the_best_on_the_dev_split_the_lowest_of_equals():
    runs = [result_record(2, 200, seed, score) for seed, score in ((1, 0.80), (2, 0.84), (3, 0.84), (4, 0.79))]
    runs[0]["score"] = runs[0]["best"]["accuracy"] = 0.99  # its best evaluation: a choice read the dev split
    assert kept_seed(runs, "accuracy") == 2
    runs[3]["curve"] = [dict(accuracy=0.9, mcc=0.0)]  # read as the search reads a run: its last evaluation
    assert kept_seed(runs, "accuracy") == 4


def test_only_the_best_ended_seeds_saved_model_stays_and_a_run_under_way_keeps_its_own(tmp_path):
    cell = Cell("finetune", 2, methods.get("finetune").default_lr(200))
    folders = {seed: kept_folder(str(tmp_path), path_of(str(tmp_path), cell, 200, seed)) for seed in (1, 2, 3, 4)}
    for seed, score in ((1, 0.80), (2, 0.84), (3, 0.79)):
        ran(tmp_path, cell, seed, score)
    for folder in folders.values():
        os.makedirs(folder)
    retrained = kept_path(str(tmp_path), cell, 200, 1)  # seed 1 trained again to keep: its result beside it
    with open(retrained, "w") as f:
        json.dump({}, f)
    under_way = {path_of(str(tmp_path), cell, 200, 3)}  # ended here, yet still writing (a stop's race)
    drop_beaten_keeps(str(tmp_path), {cell}, 200, 5, "accuracy", under_way)
    assert {seed for seed, folder in folders.items() if os.path.isdir(folder)} == {2, 3, 4}  # 4: not ended
    assert not os.path.exists(retrained)
    drop_beaten_keeps(str(tmp_path), {cell}, 200, 5, "accuracy", set())
    assert {seed for seed, folder in folders.items() if os.path.isdir(folder)} == {2, 4}


def test_with_the_cheapest_cells_last_seed_under_way_a_freed_worker_takes_the_runs_ahead(tmp_path, monkeypatch):
    screened(tmp_path)
    lr = methods.get("finetune").default_lr(200)
    cheapest, next_open, best = Cell("finetune", 2, lr), Cell("finetune", 1, lr), Cell("finetune", 0, lr)
    for seed in range(1, 5):
        ran(tmp_path, cheapest, seed, 0.8)
    ran(tmp_path, next_open, 1, 0.8)
    ran(tmp_path, best, 1, 0.82)
    in_out_of(cheapest, monkeypatch)
    monkeypatch.setattr(policy, "pick", lambda *args: (next_open, False))  # the likely pick has seeds to run: none kept
    for ahead, then in (([best], path_of(str(tmp_path), best, 200, 2)), ([], path_of(str(tmp_path), next_open, 200, 2))):
        monkeypatch.setattr(policy, "next_runs", lambda *args: policy.Round("in/out", [cheapest]))
        monkeypatch.setattr(policy, "ahead", lambda *args, **kwargs: policy.Round("ahead", ahead))
        asked = []

        def last_seed_then(ask):
            asked.append(ask(frozenset()))  # the cheapest cell's last seed
            monkeypatch.setattr(policy, "next_runs", lambda *args: policy.Round("in/out", [cheapest, next_open][:args[-1]]))
            asked.append(ask(frozenset({asked[0][0][0]})))  # one worker free: at its width, nothing to run

        search_with(tmp_path, 1e9, last_seed_then, keeps_ahead=True)
        # the best step's seed ahead; with none, the next open cell at every worker's width
        assert asked == [[(path_of(str(tmp_path), cheapest, 200, 5), {})], [(then, {})]], ahead


def test_ahead_of_the_in_out_step_is_the_best_steps_round_as_it_stands(tmp_path):
    screened(tmp_path)
    lr = methods.get("finetune").default_lr(200)
    for cell, scores in ((Cell("finetune", 2, lr), [0.80, 0.81]), (Cell("finetune", 0, lr), [0.83])):
        for seed, score in enumerate(scores, 1):
            ran(tmp_path, cell, seed, score)
    observed = read_folder(str(tmp_path), 200, SPACE)[1]
    ahead = policy.ahead(SPACE, observed, "accuracy", 436, "in/out", jobs=2)
    # the leader on one seed first (0.83), whatever is left to settle in or out
    assert ahead.step == "ahead" and ahead.cells[0] == Cell("finetune", 0, lr)


def test_once_the_runs_that_ended_decide_the_answer_the_runs_under_way_are_stopped_but_the_keeps(tmp_path, monkeypatch):
    cell, other, last, kept = two_of_three_seeds(tmp_path, monkeypatch)
    other_seed = path_of(str(tmp_path), other, 200, 2)
    asked = []

    def keep_ahead_then_decided(ask):
        asked.extend(led_by_another_then_by_the_cell(ask, cell, other, last, monkeypatch))  # its seed 1 to keep
        ran(tmp_path, cell, 3, 0.8)  # the last seed ends, and with it the answer is decided
        monkeypatch.setattr(policy, "pick", lambda *args: (cell, True))
        asked.append(ask(frozenset({kept, other_seed})))
        workers.stopped_after[other_seed] = 42.0  # as Workers time it once it ends

    workers = Asking(keep_ahead_then_decided)
    search_with(tmp_path, 1e9, None, keeps_ahead=True, seeds=3, workers=workers)
    assert asked == [[(last, {})], [(kept, dict(save=kept[:-len(".json")]))], []]
    assert workers.stopped == [[other_seed]]  # the keep's run goes on: the answer needs its model
    assert stopped_seconds(str(tmp_path)) == 42.0  # spent, though it left no result: the report counts it


def test_outside_the_in_out_step_runs_ahead_take_a_free_worker_only_while_most_would_wait(tmp_path, monkeypatch):
    screened(tmp_path)
    lr = methods.get("finetune").default_lr(200)
    cell, later = Cell("finetune", 2, lr), Cell("finetune", 0, lr)
    under_way = path_of(str(tmp_path), cell, 200, 1)
    monkeypatch.setattr(policy, "next_runs", lambda *args: policy.Round("screen", [cell]))
    monkeypatch.setattr(policy, "ahead", lambda *args, **kwargs: policy.Round("ahead", [later]))
    for jobs, wanted in ((2, []), (4, [(path_of(str(tmp_path), later, 200, 1), {})])):
        asked = []
        search_with(tmp_path, 1e9, None, workers=Asking(lambda ask: asked.extend([ask(frozenset()), ask(frozenset({under_way}))]),
                                                        jobs=jobs))
        # the screen's run, then with it under way: 2 workers, 1 free, wait for it; 4, 3 free, take the later run
        assert asked == [[(under_way, {})], wanted], jobs


def test_the_defaults_seeds_save_their_models_from_the_screen_on_where_the_answer_falls_back_to_them(tmp_path):
    screen = screened(tmp_path)
    defaults = anchor_of(SPACE)  # the fine-tune at k = 0 and its own rate: SPACE has no SetFit
    assert defaults in screen
    saved = lambda round_: {path for path, options in round_ if "save" in options}
    for keeps_ahead, prefer, saves in ((True, "best", True), (False, "best", False), (True, "cost", False)):
        asked = []
        s = rounds.Search(str(tmp_path), 200, replace(SPACE, prefer=prefer), 1e9, {}, [],
                          Asking(lambda ask: asked.append(ask(frozenset()))), echo=lambda line: None,
                          keeps_ahead=keeps_ahead)
        rounds.run_rounds(s)
        own = path_of(str(tmp_path), defaults, 200, 1)
        assert saved(asked[0]) == ({own} if saves else set()), (keeps_ahead, prefer)
        if saves:  # where the keep looks for it
            assert dict(asked[0])[own]["save"] == kept_folder(str(tmp_path), own)


def test_a_budget_too_small_for_the_screen_names_one_that_pays_for_it(tmp_path):
    """Refused where even the cheapest run for each cell left overruns it; the budget the line names
    is the screen at each cell's expected seconds, which the floor's (each at the cheapest run's)
    falls short of (minilm and mpnet from 50 tweets: named 0.1 h by the floor, the search ran one
    round and stopped undecided)."""
    screen = screened(tmp_path)  # one fine-tune run of 10 s; the screen's cells cost more or less
    observed = read_folder(str(tmp_path), 200, SPACE)[1]
    s = rounds.Search(str(tmp_path), 200, SPACE, 30.0, {}, [], Asking(lambda ask: None), echo=lambda line: None)
    with pytest.raises(rounds.BudgetTooSmall) as refused:
        rounds.searchable(s)
    words = str(refused.value)
    named = float(words.split("give BUDGET=")[1].split()[0])
    expected = rounds.spent(observed) + sum(max(expected_seconds(cell, observed, SPACE), 10.0) for cell in screen)
    floor = rounds.spent(observed) + 10.0 * len(screen)
    assert expected > floor and named * 3600 >= expected and f"about {expected / 3600:.2g} h" in words
    rounds.searchable(replace(s, budget_seconds=named * 3600))  # that budget is not refused
