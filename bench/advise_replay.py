"""
make advise's policy replayed over committed grids: per grid and size, the search's pick against the
grid's answer (the report's rule over all of the grid's runs), whether the pick's fair mean is within
the grid's band of the grid's best, and what the search spent against the grid, with each step's share.

    .venv/bin/python -m bench.advise_replay docs/results/sst2-minilm/runs docs/results/cola-minilm/runs \
        docs/results/sst2-mpnet/runs [--budget-share 0.1]
    .venv/bin/python -m bench.advise_replay --checkpoints docs/results/sst2-minilm/runs docs/results/sst2-mpnet/runs
    .venv/bin/python -m bench.advise_replay docs/results/sst2-minilm/runs --made docs/results/sst2-minilm/made \
        --run-missing -j 2

With --made (one folder per grid folder), the search runs SetFit's fast body, as make advise does,
instead of the library's SetFit the grids ran: its runs are read from those folders, and with
--run-missing the runs a replay asks for that are not there yet are made first, at the grid's
settings at that size (its dataset, checkpoint, epochs, precision, SetFit's pairs), until a replay
at every size finds all it asks for. The grid's answer and seconds stay the grid's own.

With --checkpoints, the folders are one task's grids of several checkpoints, and each size that
every one of them holds is replayed as one search over them all: the pick against the best of
the grids together, and the search's seconds against theirs together.

The findings (docs/findings-advise.md) quote its output.
"""

import argparse
import collections
import os

import methods
import result

from study import worker
from study.answer import answer_cells, recommend, size_order
from study.search.replay import Made, grid_at, made_runs, replay, runs_of
from study.stats import counted, number
from study.search.standing import Cell


def grid_row(folders, size, made=None):
    """The grid's (the grids') cells at n = size keyed by Cell, with the made runs' cells beside them,
    the grid's answer, best and band (the made runs' cells never count in those)."""
    runs, metric, _ = grid_at(folders, size)
    several = len(folders) > 1
    made_ones = [run for seeds in made_runs(made, size, several).values() for run in seeds.values()]
    pick, best, band = recommend(answer_cells(runs, metric), metric)
    model = lambda row: row["config"]["model"] if several else ""
    return {Cell.of(row["config"], model(row)): row for row in answer_cells(runs + made_ones, metric)}, pick, best, band


def label(row, several=False):
    return (f"{row['config']['model']}, " if several else "") + f"{row['method']}, k = {row['freeze']}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+")
    p.add_argument("--sizes", nargs="+", default=None, help="default: every size a folder holds")
    p.add_argument("--budget-share", type=float, help="a budget at each size: this share of the grid's seconds there")
    p.add_argument("--checkpoints", action="store_true", help="the folders are one task's grids of several "
                   "checkpoints: one search over them all at each size they all hold")
    p.add_argument("--made", nargs="+", help="one folder per grid folder: SetFit fast's runs, in place of the grid's SetFit")
    p.add_argument("--run-missing", action="store_true", help="make the made runs a replay asks for first")
    p.add_argument("-j", "--jobs", type=int, default=2, help="runs at once with --run-missing")
    p.add_argument("--splits-dir", default="splits", help="the subsets' folder of the made runs")
    p.add_argument("--cache-dir", default="cache", help="the frozen prefixes' cache of the made runs")
    args = p.parse_args(argv)
    if args.made and len(args.made) != len(args.folders):
        p.error("--made takes one folder per grid folder")
    made_of = dict(zip(args.folders, args.made or []))
    searches = [args.folders] if args.checkpoints else [[folder] for folder in args.folders]
    plans = [(folders, Made(tuple(made_of[f] for f in folders)) if args.made else None, sizes_to_replay(folders, args.sizes))
             for folders in searches]
    if args.run_missing:
        run_missing(plans, made_of, args)
    print_table(plans, args.budget_share)


def sizes_to_replay(folders, sizes):
    """The sizes asked for, or every size all of the folders hold, smallest first."""
    held = set.intersection(*({str(size) for size in sizes_of(folder)} for folder in folders))
    return [size if size == "all" else int(size)
            for size in (sizes or sorted(held, key=lambda s: size_order(s if s == "all" else int(s))))]


def print_table(plans, budget_share):
    print("| grid | n | grid's answer | search's pick | pick's grid fair mean | within the band | runs | "
          "search / grid seconds |")
    print("|---|---|---|---|---|---|---|---|")
    totals = collections.defaultdict(lambda: [0.0, 0.0])
    steps = collections.defaultdict(float)
    for folders, made, sizes in plans:
        name = " + ".join(folder_label(folder) for folder in folders)
        for size in sizes:
            budget = budget_share * sum(grid_seconds(f, size) for f in folders) if budget_share else float("inf")
            outcome = replay(folders, size, budget, made=made)
            cells, pick, best, band = grid_row(folders, size, made)
            chosen = cells[Cell(**outcome["pick"])]
            inside = chosen["fair_mean"] >= best["fair_mean"] - band
            learns = best["fair_mean"] - band > best["constant"]
            totals[name][0] += outcome["seconds"]
            totals[name][1] += outcome["grid_seconds"]
            for _, _, seconds, step in outcome["order"]:
                steps[step] += seconds
            several = len(folders) > 1
            missing = f", {counted(len(outcome['missing']), 'made run')} missing" if outcome["missing"] else ""
            print(f"| {name} | {size} | {label(pick, several)} | {label(chosen, several)}"
                  f"{'' if outcome['decided'] else ' (undecided' + missing + ')'} "
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


# ----------------------------------------------------------------------------------------------
# The made runs a replay asks for

def run_missing(plans, made_of, args):
    """Replay every size, make the made runs the replays ask for, and again, until none is missing.
    A round's runs, at every size and of every grid, go to one pool of args.jobs workers, the
    longest first, each with its own grid's options (until 2026-11-30 each set of options had its
    pool in turn, and a set of one run left the other workers idle)."""
    while True:
        wanted = {}  # result path -> its options
        for folders, made, sizes in plans:
            for size in sizes:
                for cell, seed in replay(folders, size, made=made)["missing"]:
                    folder = owner(folders, cell)
                    name = result.RunName(cell.freeze, size, seed, cell.lr, 0, cell.method).file_name()
                    wanted[os.path.join(made_of[folder], name)] = options_of(folder, size, args)
        if not wanted:
            return
        print(f"advise_replay: {counted(len(wanted), 'made run')}", flush=True)
        paths = worker.longest_first(sorted(wanted))
        rounds = iter([[(path, wanted[path]) for path in paths]])
        with worker.Workers(args.jobs) as workers:
            if workers.run_asked(lambda in_flight: next(rounds, []), [], runs=paths):
                raise SystemExit("advise_replay: a made run failed (its log lies beside its result)")


def owner(folders, cell):
    """The grid folder whose checkpoint a cell names (the one folder, in a replay over one)."""
    if len(folders) == 1:
        return folders[0]
    return next(f for f in folders if runs_of(f)[0]["config"]["model"] == cell.model)


def options_of(folder, size, args):
    """A made run's options at n = size: the grid's settings there, as its runs recorded them
    (SetFit's pairs as its SetFit runs took them), and one evaluation, at the end."""
    runs = grid_at(folder, size)[0]
    config = runs[0]["config"]
    pairs = {run["config"].get("num_iterations") for run in runs if run["config"]["method"] == methods.SETFIT.name}
    return dict(dataset=config["dataset"], glue_dir=config["glue_dir"], precision=config["precision"],
                model=config["model"], epochs=config["epochs"], protocol=config["protocol"],
                num_iterations=pairs.pop() if len(pairs) == 1 else None, splits_dir=args.splits_dir,
                cache_dir=args.cache_dir, evaluations="last")


def folder_label(folder):
    return folder.rstrip("/").split("/")[-2] if folder.rstrip("/").endswith("runs") else folder


def grid_seconds(folder, size):
    return sum(run["seconds"]["total"] for run in grid_at(folder, size)[0])


def sizes_of(folder):
    return {run["config"]["size"] for run in runs_of(folder)}


if __name__ == "__main__":
    main()
