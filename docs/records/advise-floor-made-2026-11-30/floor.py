"""What a search that knew the grid's answer would still spend, over the methods make advise searches
(SetFit's fast body in place of the library's SetFit), beside the policy's replay with SetFit fast
made: #86's targets (10%, 7%, 16%) are twice a floor measured on the grids as they ran.

    .venv/bin/python docs/records/advise-floor-made-2026-11-30/floor.py

Per grid and size, each at its runs' median search cost (study/replay.py's search_cost):
  floor, as ran   the grid's answer on PICK_SEEDS seeds, its best on BEST_SEEDS (when not the answer),
                  and one run of each of the grid's methods at its least frozen depth (bench/advise_levers.py)
  floor, searched the same, with the methods make advise searches: SetFit fast (its made runs, at
                  its own rate) in place of the library's SetFit, where the grid ran it or not
  screen          the policy's screen in its replay with SetFit fast made
  + seeds         the screen, then the seeds it lacks of the grid's best (BEST_SEEDS) and of a pick
                  (PICK_SEEDS): of all the cells the search may run that are in the grid's band on the
                  runs there are (the grid's and the made ones), the one whose seeds cost least from
                  there. The least a search that screens as the policy does spends, if it then knew
                  the answer
  policy          that replay's seconds
  grid + fast     the grid's seconds and SetFit fast's at every depth the replay gave it, 5 seeds each
                  (its made runs' median at its own rate; a depth with none made is left out and counted)
"""
import collections
import os
import sys

import numpy as np

sys.path.insert(0, os.getcwd())
import methods  # noqa: E402
from study import policy  # noqa: E402
from study.answer import answer_cells, recommend  # noqa: E402
from study.replay import Made, grid_at, made_runs, replay, search_cost  # noqa: E402
from study.standing import Cell  # noqa: E402

R = "docs/results"
GRIDS = ("sst2-minilm", "cola-minilm", "sst2-mpnet")
SIZES = (50, 100, 200, 500, 1000)


def least_frozen(cells, cost):
    """Per method, its least frozen cell (-1 before 0), the cheapest of that depth's rates."""
    least = {}
    for cell in sorted(cells, key=lambda cell: (cell.freeze, cost(cell))):
        least.setdefault(cell.method, cell)
    return least


def floors(cells, made, cost, answer, top, size):
    """(the floor as ran, the floor over the searched methods): the answer's and the best's seeds,
    and one run of each method at its least frozen depth (the grid's methods, or those searched)."""
    shown = policy.PICK_SEEDS * cost(answer) + (policy.BEST_SEEDS * cost(top) if top != answer else 0.0)
    once = lambda least: sum(cost(cell) for cell in least.values() if cell not in (answer, top))
    own_fast = [cell for cell in made if cell.lr == methods.get("setfit-fast").default_lr(size)]
    searched = [cell for cell in cells if methods.get(cell.method).searched] + own_fast
    return shown + once(least_frozen(cells, cost)), shown + once(least_frozen(searched, cost))


def after_screen(outcome, in_band, top, cost):
    """The screen's seconds, then the seeds it lacks of the best and of the in-band pick whose
    seeds, with the best's, cost least from there."""
    screened = {cell for cell, _, _, step in outcome["order"] if step == "screen"}
    more = lambda cell, seeds: (seeds - (cell in screened)) * cost(cell)
    seeds_for = lambda cell: more(cell, policy.PICK_SEEDS) + (more(top, policy.BEST_SEEDS) if top != cell else 0.0)
    return min(seeds_for(cell) for cell in in_band)


def row(grid, size):
    runs, metric, cells = grid_at(f"{R}/{grid}/runs", size)
    made = made_runs(Made((f"{R}/{grid}/made",)), size, False)
    median = lambda ran: float(np.median([search_cost(run) for run in ran]))
    cost = lambda cell: median(cells[cell]) if cell in cells else median(list(made[cell].values()))
    pick, best, band = recommend(answer_cells(runs, metric), metric)
    top = Cell.of(best["config"])
    as_ran, searched = floors(cells, made, cost, Cell.of(pick["config"]), top, size)
    outcome = replay([f"{R}/{grid}/runs"], size, made=Made((f"{R}/{grid}/made",)))
    screen = sum(seconds for _, _, seconds, step in outcome["order"] if step == "screen")
    made_ones = [run for seeds in made.values() for run in seeds.values()]
    in_band = [Cell.of(row["config"]) for row in answer_cells(runs + made_ones, metric)
               if row["fair_mean"] >= best["fair_mean"] - band and methods.get(row["config"]["method"]).searched]
    fast_rate = methods.get("setfit-fast").default_lr(size)
    depths = sorted({cell.freeze for cell in outcome["observed"] if cell.method == "setfit-fast"})
    fast_cells = [Cell("setfit-fast", k, fast_rate) for k in depths]
    return dict(grid=sum(run["seconds"]["total"] for run in runs), as_ran=as_ran, searched=searched, screen=screen,
                after_screen=screen + after_screen(outcome, in_band, top, cost), policy=outcome["seconds"],
                fast=sum(5 * cost(cell) for cell in fast_cells if cell in made),
                unmade=sum(cell not in made for cell in fast_cells))


def unmade_note(unmade):
    return f" ({unmade} depths unmade)" if unmade else ""


def main():
    print("| grid | n | grid s | floor, as ran | floor, searched | screen | + seeds | policy | policy / (grid + fast) |")
    print("|---|---|---|---|---|---|---|---|---|")
    totals = collections.defaultdict(lambda: collections.Counter())
    for grid in GRIDS:
        for size in SIZES:
            r = row(grid, size)
            totals[grid].update({k: v for k, v in r.items()})
            share = lambda key: f"{r[key] / r['grid']:.1%}"
            print(f"| {grid} | {size} | {r['grid']:.0f} | {share('as_ran')} | {share('searched')} | {share('screen')} "
                  f"| {share('after_screen')} | {share('policy')} | {r['policy'] / (r['grid'] + r['fast']):.1%}"
                  f"{unmade_note(r['unmade'])} |")
    print("\n| grid | floor, as ran | twice it | floor, searched | twice it | screen | + seeds | policy | policy / (grid + fast) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for grid, t in totals.items():
        share = lambda key: t[key] / t["grid"]
        print(f"| {grid} | {share('as_ran'):.1%} | {2 * share('as_ran'):.1%} | {share('searched'):.1%} "
              f"| {2 * share('searched'):.1%} | {share('screen'):.1%} | {share('after_screen'):.1%} | {share('policy'):.1%} "
              f"| {t['policy'] / (t['grid'] + t['fast']):.1%} |")


if __name__ == "__main__":
    main()
