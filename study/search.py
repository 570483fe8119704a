"""
The search's loop (make advise; study/advise.py is its command line and its Python call): round
after round, the runs policy.py asks for, made as ordinary runs in ordinary results folders, until
the answer is decided or the budget spent.

    first    per checkpoint with no run yet (in the zero-training step's order), its cheapest run
             alone: it times a run here
    rounds   policy.next_runs(what ran) ─► result files ─► workers.run_all (N at once, or Slurm)
             ─► each run's fair score on the dev split's first half ─► the next round

The budget is hours of the runs' own seconds (each run's wall clock; with -j N, N of them pass at
once). A killed search resumes from its folders without rerunning a finished run.
"""

import json
import math
import os
from dataclasses import dataclass, field, replace
from typing import Callable

import methods
from study import policy
from study.search_folder import available_in, log_round, options_of, path_of, read_folder, round_paths, seconds_of
from study.standing import Cell


def first_cell(space, model=""):
    """The checkpoint's cheapest run there is, made alone first: it measures a run here and learns the task."""
    own = [key for key in space.depths if key[0] == model]
    fitted = [key for key in own if methods.get(key[1]).every_layer_frozen]  # the probe: a fit alone
    key = (fitted or own)[0]
    return Cell(key[1], max(space.depths[key]), space.default_rate[key], model=model)


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
    runs: list  # its runs at the size
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
    """For each checkpoint with no run at this size yet, its cheapest run alone: it times a run of
    the checkpoint here and learns the task. Returns 0, or a failed run's exit code."""
    timed = {cell.model for cell, runs in s.read()[1].items() if runs}  # the folders read once: a first run adds to its own
    for model in policy.models_of(s.space):
        if model in timed:
            continue
        cell = first_cell(s.space, model)
        path = path_of(s.folder, cell, s.size, 1)
        s.echo(f"advise: round {len(s.rounds) + 1} (first): {os.path.relpath(path, s.folder)}, alone, to time a run here")
        code = s.workers.run_all([path], options_of(cell, s.shared), s.flags, s.echo)
        s.rounds.append(log_round(s.folder, "first", [path]))
        if code:
            return code
    return 0


def searchable(s):
    """The space the rounds search, once a run has timed this machine: without SetFit for a
    regression task, each cell's seeds as the folder has them; refused in one line where the budget
    cannot finish screening it. The runs already made count toward the screen (the first, timing
    run is one of its cells), so a folder whose screen is done is never refused, and a refused
    search keeps its runs for the same command with a larger BUDGET."""
    runs, observed, _ = s.read()
    space = s.space
    if runs[0]["config"]["regression"]:  # SetFit needs classes
        space = replace(space, depths={key: depths for key, depths in space.depths.items()
                                       if not methods.get(key[1]).needs_classes})
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
    """A round's runs ({path: Cell} `cells`), those that take the same options together (each
    checkpoint's its own --model); 0, or the first failed group's exit code."""
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
