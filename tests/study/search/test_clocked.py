"""study/search/clocked.py: the search's own rounds on a clock over a committed grid's runs. With one
worker it reads the runs replay.py reads, in its order and at its wall clock; with more, never more
runs at once than workers, each run taking its cost unless the answer stopped it."""

import os

import pytest

from conftest import ROOT
from study.search.clocked import clocked_replay
from study.search.replay import grid_at, replay, search_cost

GRID = os.path.join(ROOT, "docs", "results", "sst2-mpnet", "runs")  # committed; at 200 two cells tie on the dev split
pytestmark = pytest.mark.skipif(not os.path.isdir(GRID), reason=f"needs the committed grid's runs at {GRID} "
                                "(a card's small tree leaves docs/results behind)")


def runs_in_order(order):
    return [(cell.method, cell.freeze, cell.lr, seed) for cell, seed, *_ in order]


@pytest.mark.parametrize("size", [50, 200, 1000])
def test_one_worker_reads_the_replay_s_runs_in_its_order_at_its_wall_clock(size):
    clocked, replayed = clocked_replay([GRID], size, 1), replay([GRID], size, jobs=1, prefer="best")
    assert runs_in_order(clocked["order"]) == runs_in_order(replayed["order"]) and clocked["runs"] > 5
    assert clocked["wall_seconds"] == pytest.approx(replayed["wall_seconds"], abs=0.1)  # the replay rounds to 0.1 s
    assert clocked["decided"] and replayed["decided"]
    pick = clocked["pick"]
    assert dict(method=pick.method, freeze=pick.freeze, lr=pick.lr) == replayed["pick"]


def test_more_workers_run_no_more_at_once_than_there_are_each_for_its_cost():
    one, many = clocked_replay([GRID], 200, 1), clocked_replay([GRID], 200, 4)
    assert many["wall_seconds"] < one["wall_seconds"]
    spans = [(started, ended) for _, _, started, ended in many["order"]]
    for started, _ in spans:  # under way as each run starts, itself among them
        assert sum(a <= started < b for a, b in spans) <= 4
    cost = {(cell, run["config"]["seed"]): search_cost(run) for cell, runs in grid_at([GRID], 200)[2].items() for run in runs}
    lasted = [ended - started for cell, seed, started, ended in many["order"]]
    full = [abs(took - cost[cell, seed]) < 1e-6 for (cell, seed, _, _), took in zip(many["order"], lasted)]
    assert sum(full) == many["runs"]  # every run that ended took its cost; the others were stopped
    assert max(ended for *_, ended in many["order"]) == pytest.approx(many["wall_seconds"])
