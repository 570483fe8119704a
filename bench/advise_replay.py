"""
make advise's policy replayed over committed grids: per grid and size, the search's pick against the
grid's answer (the report's rule over all of the grid's runs), whether the pick's fair mean is within
the grid's band of the grid's best, and what the search spent against the grid, with each step's share.

    .venv/bin/python -m bench.advise_replay docs/results/sst2-minilm/runs docs/results/cola-minilm/runs \
        docs/results/sst2-mpnet/runs [--budget-share 0.1]
    .venv/bin/python -m bench.advise_replay --checkpoints docs/results/sst2-minilm/runs docs/results/sst2-mpnet/runs

With --checkpoints, the folders are one task's grids of several checkpoints, and each size that
every one of them holds is replayed as one search over them all: the pick against the best of
the grids together, and the search's seconds against theirs together.

The findings (docs/findings-advise.md) quote its output.
"""

import argparse
import collections

from study.answer import answer_cells, recommend, size_order
from study.replay import grid_at, replay
from study.stats import number
from study.standing import Cell


def grid_row(folders, size):
    """The grid's (the grids') cells at n = size keyed by Cell, its answer, best and band."""
    runs, metric, _ = grid_at(folders, size)
    rows = answer_cells(runs, metric)
    pick, best, band = recommend(rows, metric)
    model = lambda row: row["config"]["model"] if len(folders) > 1 else ""
    return {Cell.of(row["config"], model(row)): row for row in rows}, pick, best, band


def label(row, several=False):
    return (f"{row['config']['model']}, " if several else "") + f"{row['method']}, k = {row['freeze']}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+")
    p.add_argument("--sizes", nargs="+", default=None, help="default: every size a folder holds")
    p.add_argument("--budget-share", type=float, help="a budget at each size: this share of the grid's seconds there")
    p.add_argument("--checkpoints", action="store_true", help="the folders are one task's grids of several "
                   "checkpoints: one search over them all at each size they all hold")
    args = p.parse_args(argv)
    print("| grid | n | grid's answer | search's pick | pick's grid fair mean | within the band | runs | "
          "search / grid seconds |")
    print("|---|---|---|---|---|---|---|---|")
    totals = collections.defaultdict(lambda: [0.0, 0.0])
    steps = collections.defaultdict(float)
    searches = [args.folders] if args.checkpoints else [[folder] for folder in args.folders]
    for folders in searches:
        name = " + ".join(folder_label(folder) for folder in folders)
        held = set.intersection(*({str(size) for size in sizes_of(folder)} for folder in folders))
        sizes = args.sizes or sorted(held, key=lambda s: size_order(s if s == "all" else int(s)))
        for size in sizes:
            size = size if size == "all" else int(size)
            budget = args.budget_share * sum(grid_seconds(f, size) for f in folders) if args.budget_share else float("inf")
            outcome = replay(folders, size, budget)
            cells, pick, best, band = grid_row(folders, size)
            chosen = cells[Cell(**outcome["pick"])]
            inside = chosen["fair_mean"] >= best["fair_mean"] - band
            learns = best["fair_mean"] - band > best["constant"]
            totals[name][0] += outcome["seconds"]
            totals[name][1] += outcome["grid_seconds"]
            for _, _, seconds, step in outcome["order"]:
                steps[step] += seconds
            several = len(folders) > 1
            print(f"| {name} | {size} | {label(pick, several)} | {label(chosen, several)}"
                  f"{'' if outcome['decided'] else ' (undecided)'} "
                  f"| {number(chosen['fair_mean'])} (best {number(best['fair_mean'])} ± {number(band)}) "
                  f"| {'yes' if inside else 'NO'}{'' if learns else ' (nothing learns)'} "
                  f"| {outcome['runs']} / {outcome['grid_runs']} "
                  f"| {outcome['seconds']:.0f} / {outcome['grid_seconds']:.0f} = {outcome['seconds'] / outcome['grid_seconds']:.1%} |")
    print()
    for name, (spent, grid) in totals.items():
        print(f"{name}: the search spent {spent / 3600:.2f} h of the grid's {grid / 3600:.1f} h = {spent / grid:.1%}")
    everything = sum(grid for _, grid in totals.values())
    print("by step, as a share of every grid's seconds: "
          + ", ".join(f"{step} {seconds / everything:.1%}" for step, seconds in steps.items()))


def folder_label(folder):
    return folder.rstrip("/").split("/")[-2] if folder.rstrip("/").endswith("runs") else folder


def grid_seconds(folder, size):
    return sum(run["seconds"]["total"] for run in grid_at(folder, size)[0])


def sizes_of(folder):
    from study.replay import runs_of
    return {run["config"]["size"] for run in runs_of(folder)}


if __name__ == "__main__":
    main()
