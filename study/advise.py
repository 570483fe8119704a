"""
`make advise`: the grid's answer for one train size without the grid. The policy (study/policy.py)
says which runs come next; this module runs them, round by round, as ordinary runs in an ordinary
results folder (the report reads them, a later `make grid` reuses them), until the answer is
decided or the budget spent; then it keeps the pick and writes its report (study/advise_report.py).

    make advise DATASET=sst2 MODEL=minilm SIZE=200 BUDGET=2
    python -m study.advise results/sst2/minilm --size 200 --budget 2 --depths -1 0 1 2 3 4 5 6 -- RUN_OPTIONS
    python -m study.advise --replay docs/results/sst2-minilm/runs --size 200      (no runs: study/replay.py)

    round ─► policy.next_runs(what ran) ─► result files ─► study.worker.Workers.run_all (make -j N's N at once)
      ▲                                                    (SLURM=1: a job array, study/slurm.py) │
      └──────────── each run's fair score on the dev split's first half ◄───┘

Picked on one half, reported on the other: every run scores the dev split's two fixed halves
(metrics.halves); the search reads only the first, so the second is a score the pick never chose
by. A run evaluates once (--evaluations last): the search reads nothing else. With --cheap-screen,
SetFit is screened first at fewer pairs (methods.py's cheap_screen; policy.promote). What the
folder holds is study/search_folder.py's.
The budget is hours of the runs' own seconds (each run's wall clock; with -j N, N of them pass at
once). A killed search resumes from its folder without rerunning a finished run; a folder holds
one search at a time (a lock file names its process).
"""

import argparse
import json
import math
import os
import signal
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import methods
import result
from atomic import write_atomically
from study import grid, policy, slurm, worker
from study.advise_report import (Spending, cell_rows, keep, rate_text, report_lines, scores_on_test, verdict,
                                 with_dev_file)
from study.lock import holder, take_lock
from study.progress import make_jobs
from study.search_folder import (TEST, available_in, cheap_methods, log_round, options_of, path_of, read_folder,
                                 round_paths, rounds_of, runs_by_cell, seconds_of)
from study.standing import Cell

LOCK = "advise.lock"
REPORT = "advise.md"


# ----------------------------------------------------------------------------------------------
# The search

def first_cell(space):
    """The cheapest run there is, made alone first: it measures a run here and learns the task."""
    fitted = [name for name in space.depths if methods.get(name).every_layer_frozen]  # the probe: a fit alone
    name = fitted[0] if fitted else next(iter(space.depths))
    return Cell(name, max(space.depths[name]), space.default_rate[name])


@dataclass
class Search:
    """What a search's steps share: where its runs go and at which size, what it searches, what it
    may spend, what runs its rounds, and the rounds so far [(step, [paths])]."""
    folder: str
    size: int | str
    space: policy.Space
    budget_seconds: float
    shared: dict  # the grid's options for every run (study/grid.py)
    flags: list  # every run's own options, --evaluations last among them
    workers: object  # study.worker.Workers, or study.slurm.Rounds (SLURM=1)
    seeds: int = 5  # the most seeds a cell gets
    echo: Callable = print
    rounds: list = field(default_factory=list)

    def read(self):
        """(the full runs at the size, what ran as policy.py observes it, their metric): study/search_folder.py."""
        return read_folder(self.folder, self.size, self.space)


@dataclass
class Searched:
    """What a search leaves: the space it searched (its seeds' availability read from the folder),
    what ran (its runs at the size, observed as policy.py reads them, their metric), its rounds
    [(step, [paths])], and 0 or a failed run's exit code."""
    space: policy.Space
    observed: dict
    runs: list  # the full runs (the cheap screens' are in observed)
    metric: str | None
    rounds: list
    code: int


def search(s):
    """Rounds of runs by s.workers until decided or the budget is spent: first one run alone where
    the folder has none, then policy.py's rounds."""
    code = first_run(s)
    if not code:
        s.space = searchable(s)
        code = run_rounds(s)
    runs, observed, metric = s.read()
    return Searched(s.space, observed, runs, metric, s.rounds, code)


def first_run(s):
    """Where the folder has no run at this size yet, the cheapest one alone: it times a run here and
    learns the task. Returns its exit code (0 where there was nothing to do)."""
    if s.read()[0]:
        return 0
    path = path_of(s.folder, first_cell(s.space), s.size, 1)
    s.echo(f"advise: round 1 (first): {os.path.basename(path)}, alone, to time a run here")
    code = s.workers.run_all([path], s.shared, s.flags, s.echo)
    s.rounds.append(log_round(s.folder, "first", [path]))
    return code


def searchable(s):
    """The space the rounds search, once a run has timed this machine: without SetFit for a
    regression task, each cell's seeds as the folder has them; refused in one line where the budget
    cannot finish screening it. The runs already made count toward the screen (the first, timing
    run is one of its cells), so a folder whose screen is done is never refused, and a refused
    search keeps its runs for the same command with a larger BUDGET."""
    runs, observed, _ = s.read()
    space = s.space
    if runs[0]["config"]["regression"]:  # SetFit needs classes
        space = replace(space, depths={name: depths for name, depths in space.depths.items()
                                       if not methods.get(name).needs_classes})
    cheapest = min(run["seconds"]["total"] for run in runs)  # a resumed search's runs: the cheapest of them
    left = policy.screen(space, observed)
    floor = spent(observed) + len(left) * cheapest
    if left and floor > s.budget_seconds:
        raise BudgetTooSmall(f"a budget of {s.budget_seconds / 3600:.2g} h cannot finish screening the "
                             f"{len(policy.screen(space, {}))} cells: {len(left)} left take at least "
                             f"{floor / 3600:.2g} h with what ran ({cheapest:.0f} s the cheapest run); its runs are kept: "
                             f"give BUDGET={math.ceil(10 * floor / 3600) / 10:g} or more, or fewer METHODS")
    return available_in(space, s.folder, s.size, s.seeds)


def run_rounds(s):
    """policy.py's rounds until decided, or the budget cannot pay for the next run; returns 0 or a
    failed run's exit code."""
    runs, observed, metric = s.read()
    dev_half, budget = runs[0]["dev_size"] // 2, s.budget_seconds
    while True:
        wanted = policy.next_runs(s.space, observed, metric, dev_half, s.workers.jobs)
        if not wanted.cells or not policy.fits(wanted.cells[0], observed, s.space, spent(observed), budget):
            return 0  # decided, or the budget cannot pay for the next run
        paths = list(round_paths(s.folder, wanted.cells, s.size, s.seeds))
        cells = dict(zip(paths, wanted.cells))
        s.echo(f"advise: round {len(s.rounds) + 1} ({wanted.step}): {len(paths)} run{'s' * (len(paths) > 1)}, "
               f"{spent(observed) / 3600:.2f} of {budget / 3600:.2g} h spent")
        s.rounds.append(log_round(s.folder, wanted.step, paths))
        before = observed  # the round's runs are checked against what it began with, and its finished runs
        more = lambda path: policy.fits(cells[path], before, s.space, spent(before) + seconds_of(paths), budget)
        code = run_round(s, paths, cells, more)
        runs, observed, metric = s.read()
        if code or not all(map(os.path.exists, paths)):
            return code  # a run failed, or the budget stopped the round


def run_round(s, paths, cells, more):
    """A round's runs ({path: Cell} `cells`), those that take the same options together (a cheap
    screen its method's cheap_screen); 0, or the first failed group's exit code."""
    groups = {}
    for path in paths:
        options = options_of(cells[path], s.shared)
        groups.setdefault(json.dumps(options, sort_keys=True), (options, []))[1].append(path)
    for options, group in groups.values():
        code = s.workers.run_all(group, options, s.flags, s.echo, more=more)
        if code:
            return code
    return 0


def spent(observed):
    return sum(seconds for runs in observed.values() for _, seconds in runs)


class BudgetTooSmall(ValueError):
    pass


# ----------------------------------------------------------------------------------------------
# The command line

def parser():
    p = argparse.ArgumentParser(prog="python -m study.advise", description="The grid's answer at one train size, "
                                "searched cheapest first (make advise), or replayed over a committed grid's runs.")
    p.add_argument("folder", nargs="?", help="the results folder the search's runs go to")
    p.add_argument("--size", required=True, help="the train size (a number, or all)")
    p.add_argument("--budget", type=float, help="hours of the runs' own seconds (each run's wall clock)")
    p.add_argument("--methods", nargs="+", choices=methods.NAMES,
                   default=[method.name for method in methods.METHODS if method.searched])
    p.add_argument("--depths", type=int, nargs="+", help="the grid's depths (make's FREEZE); the deepest is L")
    p.add_argument("--seeds", type=int, default=5, help="the most seeds a cell gets (the grid's 5)")
    p.add_argument("--jobs", type=int, help="runs at once (default: make -j N's N)")
    p.add_argument("--save", help="where the pick is kept (a fine-tune, LoRA or BitFit), as make best keeps it")
    p.add_argument("--test-file", help="your labelled test file: the pick's seeds are run again with it as their "
                   "dev split, and scored on it (with your own --train-file and --dev-file)")
    p.add_argument("--replay", metavar="FOLDER", help="drive the policy with this folder's runs instead of new ones")
    p.add_argument("--slurm", action="store_true", help="each round's runs as a Slurm job array (make advise SLURM=1)")
    p.add_argument("--cheap-screen", action="store_true", help="screen SetFit at 5 pairings an example first, "
                   "its full runs where they count (make advise CHEAP_SCREEN=1; measured not to pay yet: "
                   "docs/findings-advise.md)")
    slurm.add_options(p, prefix="slurm-")
    grid.add_shared_options(p)
    p.error = lambda message: fail(message)
    return p


def runners(args):
    """What runs a round: make -j N's workers here, or a Slurm job array a round."""
    if args.slurm:
        slurm.check_cluster()
        return slurm.Rounds(*slurm.sbatch_options(args, prefix="slurm-"))
    return worker.Workers(args.jobs or make_jobs())


def fail(message):
    print(f"advise: error: {message}", file=sys.stderr)
    sys.exit(2)


def write_report(s, found, chosen, waiting, test, keep_line, wall_seconds):
    """RESULTS/advise.md (study/advise_report.py), and its first lines printed. `waiting`: None for a
    decided search, else the round it stopped before."""
    observed, runs, metric = found.observed, found.runs, found.metric
    dev_half = runs[0]["dev_size"] // 2
    waiting_cells = None if waiting is None else set(waiting.cells)
    rows, state = cell_rows(observed, runs_by_cell(s.folder, s.size, found.space), metric, dev_half, waiting_cells)
    words, short = verdict(waiting, s.budget_seconds, spent(observed))
    title = f"make advise: {runs[0]['config']['dataset']}, {result.model_label(runs[0]['config']['model'])}, n = {s.size}"
    grid_cost = policy.grid_seconds(found.space, observed, s.seeds)
    spending = Spending(rounds_of(s.folder), spent(observed), wall_seconds if found.rounds else None, grid_cost)
    lines = report_lines(title, chosen, words, (rows, state), spending, keep_line, test)
    report = os.path.join(s.folder, REPORT)
    write_atomically(report, lambda f: f.write("\n".join(lines).encode()))
    row = next(row for row in rows if row["cell"] == chosen)
    print(f"advise: {short}: {row['label']}, freeze {chosen.freeze}, rate {rate_text(chosen)} | "
          + (f"test file {test[1]:.3f}, " if test else "")
          + f"second half {row['reported']:.3f}, first half {row['picked']:.3f} | "
          f"{spent(observed) / 3600:.2f} h of runs, {spent(observed) / grid_cost:.0%} of the grid's estimated | {report}")


def run_replay(args):
    from study.replay import replay
    size = args.size if args.size == "all" else int(args.size)
    outcome = replay(args.replay, size, budget_seconds=(args.budget or math.inf) * 3600)
    for cell, seed, seconds, step in outcome["order"]:
        print(f"{step:7s} {methods.get(cell.method).label:9s} k={cell.freeze:<3d} lr {rate_text(cell):7s} seed {seed} {seconds:8.1f} s")
    keys = ("size", "pick", "grid_pick", "same", "decided", "seconds", "grid_seconds", "runs", "grid_runs")
    print(json.dumps({key: outcome[key] for key in keys}))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ours, run_flags = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    args = parser().parse_args(ours)
    if args.replay:
        try:
            return run_replay(args)
        except ValueError as e:
            fail(e)
    if not args.folder or not args.depths or args.budget is None:
        fail("a search needs its results folder, --depths and --budget (hours); or --replay FOLDER")
    if not args.budget > 0:
        fail(f"--budget must be a positive number of hours (got {args.budget:g})")
    size = args.size if args.size == "all" else int(args.size)
    shared = grid.shared_options(args)
    space = policy.space_for(size, max(args.depths), args.depths, args.methods,
                             cheap=cheap_methods(args.methods, shared) if args.cheap_screen else ())
    lock, began = None, time.time()
    try:
        if args.test_file:  # refused before any run
            with_dev_file(run_flags, args.test_file)
            if not os.path.isfile(args.test_file):
                raise ValueError(f"--test-file {args.test_file}: no such file")
        lock = take_lock(args.folder, LOCK)
        with runners(args) as workers:
            s = Search(args.folder, size, space, args.budget * 3600, shared, run_flags + ["--evaluations", "last"],
                       workers, args.seeds)
            found = search(s)
            if found.code:
                sys.exit(found.code)
            observed, runs, metric = found.observed, found.runs, found.metric
            dev_half = runs[0]["dev_size"] // 2
            chosen, decided = policy.pick(found.space, observed, metric, dev_half)
            waiting = None if decided else policy.next_runs(found.space, observed, metric, dev_half, workers.jobs)
            test = None
            if args.test_file:  # (the file, the mean of the pick's seeds on it, how many)
                seeds = sorted(r["config"]["seed"] for r in runs if Cell.of(r["config"]) == chosen)
                paths = [path_of(os.path.join(args.folder, TEST), chosen, size, seed) for seed in seeds]
                scores = scores_on_test(paths, metric, shared, run_flags, args.test_file, workers)
                test = (args.test_file, sum(scores) / len(scores), len(scores))
        save = args.save or os.path.join("saved", os.path.basename(os.path.normpath(args.folder)) + f"-n{size}")
        keep_line, command = keep(chosen, size, shared, run_flags, save)
        write_report(s, found, chosen, waiting, test, keep_line, time.time() - began)
        print(command)
    except (ValueError, RuntimeError) as e:
        fail(e)
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        if lock and holder(lock) == os.getpid():
            os.remove(lock)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, worker.interrupted)
    main()
