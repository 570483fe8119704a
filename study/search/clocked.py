"""
The real search (rounds.py) on a clock of its own, over a committed grid's runs: its wall clock at a
width this machine does not have, such as a card's 16 workers.

    python -m study.search.clocked docs/results/sst2-minilm/runs --size 1000 -j 16

    rounds.search(Search(a temporary folder, ..., workers=ClockedWorkers))
      ask(runs under way) ─► (path, options) ─► the grid's run of that cell and seed
                                                 ends at now + its search cost (replay.search_cost)
      the run that ends first ─► its record copied to path, the clock moved to its end ─► ask again

replay.py drives the policy round after round, each round waiting for its last run; the search
itself asks for the next round once a round's runs have all started, takes the later steps'
runs ahead, and stops the runs under way once the runs that ended decide. Here each of those is
the search's own code; only the workers differ, as study/worker.py's Workers would run them,
taking no time of their own. With one worker both read the same runs in the same order
(tests/study/search/test_clocked.py).
"""

import argparse
import json
import math
import os
import tempfile
from dataclasses import replace

import methods
import result
from study.search import policy, replay, rounds
from study.search.search_folder import reading
from study.search.standing import Cell


class ClockedWorkers:
    """`jobs` workers whose runs are a grid's, each taking its search cost on a shared clock: a
    run handed out is copied into place when it would have ended. What Workers offers rounds.py."""

    def __init__(self, jobs, source, size):
        self.jobs, self.source, self.size = jobs, source, size  # source: {(Cell, seed): the grid's run}
        self.now, self.under_way, self.stopped_after = 0.0, {}, {}  # under_way: {path: (started, ends, run)}
        self.handed = []  # every run handed out, in order: [its Cell, its seed, when it started, when it ended]

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        pass

    def run_all(self, runs, shared, run_flags, echo=print, warn=None):
        pending = [path for path in runs if not os.path.exists(path)]
        rounds_ = iter([[(path, shared) for path in pending]])
        return self.run_asked(lambda in_flight: next(rounds_, []), run_flags, echo)

    def run_asked(self, ask, run_flags, echo=print, runs=None, warn=None):
        """Workers.run_asked's loop: a round's runs to the free workers, the next round asked for
        once they have all started, the clock moved to each run's end."""
        round_ = []
        while True:
            if len(self.under_way) < self.jobs and not round_:
                round_ = list(ask(frozenset(self.under_way)))
            while len(self.under_way) < self.jobs and round_:
                path, options = round_.pop(0)
                (cell, seed), run = self.run_of(path, options)
                if run is None:  # a seed past those the grid has: asked while the seeds before it are under way
                    continue
                self.handed.append([cell, seed, self.now, None])
                self.under_way[path] = (self.handed[-1], self.now + replay.search_cost(run), run)
            if not self.under_way:
                return 0
            path = min(self.under_way, key=lambda p: self.under_way[p][1])
            handed, self.now, run = self.under_way.pop(path)
            handed[3] = self.now
            write_run(path, run)

    def run_of(self, path, options):
        """((its Cell, its seed), the grid's run or None) that the search's result `path` names (its
        checkpoint in `options`)."""
        name = result.parse_name(path)
        lr = methods.get(name.method).default_lr(self.size) if name.lr is None else name.lr
        key = (Cell(name.method, name.freeze, lr, options.get("model", "")), name.seed)
        return key, self.source.get(key)

    def stop(self, paths):
        """The runs under way at `paths` end now, leaving no result (as a stopped run does)."""
        for path in set(paths) & set(self.under_way):
            handed, _, _ = self.under_way.pop(path)
            handed[3] = self.now
            self.stopped_after[path] = self.now - handed[2]


def write_run(path, run):
    """The grid's run as the search would have recorded it: its seconds those of one evaluation."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(dict(run, seconds=dict(run["seconds"], total=replay.search_cost(run))), f)


def clocked_replay(folders, size, jobs, made=None, prefer="best", seeds=5):
    """The search over the grid folders' runs at n = size with `jobs` workers (made: a replay.Made,
    SetFit fast's runs beside grids of the library's). Returns a dict: pick (a Cell), decided,
    runs, rounds, seconds (the runs'), wall_seconds, grid_wall_seconds (every run of the grid at
    once on as many workers), and order [[Cell, seed, when it started, when it ended or was stopped]]."""
    folders = [folders] if isinstance(folders, str) else list(folders)
    grid_runs, _, cells = replay.grid_at(folders, size)
    several, names = len(folders) > 1, made.methods if made else ()
    searched = {cell: runs for cell, runs in cells.items() if not made or methods.get(cell.method).searched}
    source = {(cell, run["config"]["seed"]): run for cell, runs in searched.items() for run in runs}
    source.update({(cell, seed): run for cell, by_seed in replay.made_runs(made, size, several).items()
                   for seed, run in by_seed.items()})
    held = {}
    for cell, seed in source:
        held[cell] = max(held.get(cell, 0), seed)
    space = replace(replay.space_of_grid(searched, size, names, cells), prefer=prefer)
    with tempfile.TemporaryDirectory() as folder:
        workers = ClockedWorkers(jobs, source, size)
        s = rounds.Search(folder, size, space, math.inf, {}, [], workers, seeds, echo=lambda line: None,
                          held=lambda cell: held.get(cell, 0))
        found = rounds.search(s)
        chosen, decided = policy.pick(found.space, found.observed, found.metric, reading(found.runs)[1])
    return dict(pick=chosen, decided=decided, runs=len(found.runs), rounds=len(found.rounds),
                seconds=rounds.spent(found.observed), wall_seconds=workers.now,
                grid_wall_seconds=replay.round_seconds([r["seconds"]["total"] for r in grid_runs], jobs),
                order=workers.handed)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.search.clocked", description=__doc__.strip().split("\n\n")[0])
    p.add_argument("folders", nargs="+", help="a committed grid's runs (several: one checkpoint's each)")
    p.add_argument("--size", type=int, required=True)
    p.add_argument("-j", "--jobs", type=int, default=16, help="workers (default 16, a card's)")
    p.add_argument("--made", nargs="+", help="one folder per grid folder: SetFit fast's runs (replay.Made)")
    p.add_argument("--prefer", choices=("best", "cost"), default="best")
    args = p.parse_args(argv)
    made = replay.Made(tuple(args.made)) if args.made else None
    outcome = clocked_replay(args.folders, args.size, args.jobs, made, args.prefer)
    pick = outcome["pick"]
    print(f"n = {args.size}, {args.jobs} workers: {'decided' if outcome['decided'] else 'undecided'} on "
          f"{pick.method}, k = {pick.freeze}, rate {pick.lr}; {outcome['runs']} runs in {outcome['rounds']} rounds, "
          f"{outcome['wall_seconds'] / 60:.1f} minutes of wall clock against the grid's "
          f"{outcome['grid_wall_seconds'] / 60:.1f} at as many workers")


if __name__ == "__main__":
    main()
