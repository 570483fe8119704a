"""
The search's loop (make advise; study/search/advise.py is its command line and its Python call): round
after round, the runs policy.py asks for, made as ordinary runs in ordinary results folders, until
the answer is decided or the budget spent.

    first    per checkpoint with no run yet (in the zero-training step's order), its probe run
             alone: it times a run here
    rounds   policy.next_runs(what ran) ─► result files ─► workers.run_asked (N at once, or Slurm)
             ─► each run's fair score and outputs on the dev split ─► the next round, asked
             for by the first worker free once the round's runs have all started (a screen,
             rates or refine round longest first; the runs under way are not asked for again;
             with nothing at its width, in the in/out step or with more than half the
             workers free, it takes the later steps' runs ahead: policy.ahead);
             once the runs that ended decide the answer, the runs still under way are
             stopped: the policy would ask for none of them now

The budget is hours of the runs' own seconds (each run's wall clock; with -j N, N of them pass at
once). A killed search resumes from its folders without rerunning a finished run.
"""

import math
import os
from dataclasses import dataclass, field
from typing import Callable

from study.search import policy
from study.search.search_folder import (available_in, drop_beaten_keeps, kept_folder, kept_path, kept_run, kept_seed, log_round,
                                        log_stopped, options_of, path_of, read_folder, reading, round_paths, runs_of,
                                        runs_by_cell)
from study.search.standing import anchor_of
from study.search.space import Space, expected_seconds, first_cell, fits, models_of, with_layer_seconds

SEED_STEPS = ("in/out", "best", "ahead")  # the policy's steps that ask for a cell's next seeds


@dataclass
class Search:
    """What a search's steps share: where its runs go and at which size, what it searches, what it
    may spend, what runs its rounds, and the rounds so far [(step, [paths])]."""
    folder: str
    size: int | str
    space: Space
    budget_seconds: float
    shared: dict  # the grid's options for every run (study/grid.py)
    flags: list  # every run's own options, --evaluations last among them
    workers: object  # study.worker.Workers, or study.slurm.Rounds (SLURM=1)
    seeds: int = 5  # the most seeds a cell gets
    keeps_ahead: bool = False  # the likely pick's seeds save their models (or a free worker trains its best to keep)
    echo: Callable = print
    shown_from: str | None = None  # the folder printed paths are named from (keep.named_from; None: here)
    held: Callable | None = None  # a replay's (clocked.py): cell -> the seeds its grid has (None: any can run)
    rounds: list = field(default_factory=list)

    def read(self):
        """(the full runs at the size, what ran as policy.py observes it, their metric): study/search/search_folder.py."""
        return read_folder(self.folder, self.size, self.space)


@dataclass
class Searched:
    """What a search leaves: the space it searched (its seeds' availability read from the folder),
    what ran (its runs at the size, observed as policy.py reads them, their metric), its rounds
    [(step, [paths])], and 0 or a failed run's exit code."""
    space: Space
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
    """For each checkpoint with no run at this size yet, its first run alone (space.first_cell): it
    times a run of the checkpoint here and learns the task. Returns 0, or a failed run's exit code."""
    timed = {cell.model for cell, runs in s.read()[1].items() if runs}  # the folders read once: a first run adds to its own
    for model in models_of(s.space):
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
    """The space the rounds search, once a run has timed this machine (study/search/asked.py left
    SetFit out for a regression task): each cell's seeds as the folder has them, each checkpoint's
    trained layer priced from its probe (space.with_layer_seconds); refused in one line where the
    budget cannot finish screening it. The runs already made count toward the screen
    (the first, timing run is one of its cells), so a folder whose screen is done is never refused,
    and a refused search keeps its runs for the same command with a larger BUDGET."""
    runs, observed, _ = s.read()
    epochs = s.shared.get("epochs")  # make's EPOCHS as the command line gave it, checked by the first run
    space = with_layer_seconds(s.space, runs_by_cell(s.folder, s.size, s.space), int(epochs) if epochs else None)
    cheapest = min(run["seconds"]["total"] for run in runs)  # a resumed search's runs: the cheapest of them
    left = policy.screen(space, observed)
    floor = spent(observed) + len(left) * cheapest
    if left and floor > s.budget_seconds:
        # the budget to name: the screen as the rounds budget it (each cell at its expected seconds:
        # space.fits), not the floor: given the floor, the rounds stop early, expecting overruns
        screen = spent(observed) + sum(max(expected_seconds(cell, observed, space), cheapest) for cell in left)
        raise BudgetTooSmall(f"a budget of {s.budget_seconds / 3600:.2g} h cannot finish screening the "
                             f"{len(policy.screen(space, {}))} cells: {len(left)} left take at least "
                             f"{floor / 3600:.2g} h with what ran ({cheapest:.0f} s the cheapest run), about "
                             f"{screen / 3600:.2g} h at each one's expected seconds; its runs are kept: "
                             f"give BUDGET={math.ceil(10 * screen / 3600) / 10:g} or more, or fewer METHODS")
    return available_in(space, s.folder, s.size, s.seeds, s.held)


def run_rounds(s):
    """policy.py's rounds until decided, or the budget cannot pay for the next run: once a round's
    runs have all started, the next worker free asks for the next round, given the runs ended so
    far, without waiting for the rest of the round to end (with one worker, each round waits for
    the last, as the replay reads them). Returns 0 or a failed run's exit code."""
    dev_size, cell_of, saving = reading(s.read()[0])[1], {}, {}  # saving: {path: where it saves its model}
    keeps = set()  # the runs that train an ended seed again, to keep it
    defaults = defaults_kept_as_they_run(s.space) if s.keeps_ahead else None  # the cell whose seeds save from the first

    def ask(in_flight):
        """What the free workers run next, [(path, its options)]: nothing once the runs that ended
        decide the answer, the runs under way stopped (but a keep's); else the policy's round at
        their width less the runs under way; else the likely pick's best seed, to keep, once its
        last seed is under way; else the later steps' runs ahead where they pay; else the round at
        every worker's width (the next open cells). The likely pick's seeds save their models as
        they run, and so do the defaults' from their first, and only the best ended seed's of a
        cell stays."""
        _, observed, metric = s.read()
        drop_beaten_keeps(s.folder, {cell_of[path] for path in saving}, s.size, s.seeds, metric, in_flight)
        if in_flight and policy.pick(s.space, observed, metric, dev_size)[1]:
            s.workers.stop([path for path in in_flight if path not in keeps])
            return []  # decided on the runs that ended: nothing more is asked for
        wanted = policy.next_runs(s.space, observed, metric, dev_size, s.workers.jobs - len(in_flight))
        step, handed = handed_out(s, observed, wanted, in_flight, cell_of)
        keeping = s.keeps_ahead and step in ("in/out", "best")
        likely = keeping and likely_pick(s, observed, metric, dev_size)
        unkept = likely and best_unkept(s, likely, metric, in_flight)
        if not handed and in_flight and unkept:
            handed = keep_ahead(s, likely, unkept, in_flight, cell_of)
            step = "keep ahead" if handed else step
            keeps.update(handed)
            saving.update({path: kept_folder(s.folder, path) for path in handed})  # beside its result
        if not handed and in_flight and all_under_way(s, wanted, in_flight) and runs_ahead_pay(s, wanted.step, in_flight):
            later = policy.ahead(s.space, observed, metric, dev_size, wanted.step, s.workers.jobs - len(in_flight),
                                 [cell_of[path] for path in in_flight])
            step, handed = handed_out(s, observed, later, in_flight, cell_of)
        if not handed and in_flight:
            step, handed = handed_out(s, observed, policy.next_runs(s.space, observed, metric, dev_size, s.workers.jobs),
                                      in_flight, cell_of)
        if likely and step in SEED_STEPS:
            saving.update(saved_as_it_runs(s, likely, handed, cell_of))
        if defaults:
            saving.update(saved_as_it_runs(s, defaults, handed, cell_of))
        if handed:
            s.echo(f"advise: round {len(s.rounds) + 1} ({step}): {len(handed)} run{'s' * (len(handed) > 1)}"
                   f"{f', {len(in_flight)} under way' if in_flight else ''}, "
                   f"{spent(observed) / 3600:.2f} of {s.budget_seconds / 3600:.2g} h spent")
            s.rounds.append(log_round(s.folder, step, handed))
        saves = lambda path: dict(save=saving[path]) if path in saving else {}
        return [(path, dict(options_of(cell_of[path], s.shared), **saves(path))) for path in handed]

    code = s.workers.run_asked(ask, s.flags, s.echo)
    for path, seconds in s.workers.stopped_after.items():
        log_stopped(s.folder, path, seconds)  # the report counts what it ran
    return code


def handed_out(s, observed, wanted, in_flight, cell_of):
    """(the step, the paths of the policy's round `wanted` less the runs under way, while the budget
    pays for them and for those under way). The in/out and best steps ask for a cell's next seeds:
    after those under way, which a worker freed early would otherwise leave for a costlier cell;
    the screen, the rates and the refine ask for cells not yet run, and never again for one under
    way."""
    after = in_flight if wanted.step in SEED_STEPS else ()
    cost = lambda cell: expected_seconds(cell, observed, s.space)
    committed, handed = spent(observed) + sum(cost(cell_of[path]) for path in in_flight), []
    cells = taking_order(wanted, cost, committed, s)
    for path, cell in zip(round_paths(s.folder, cells, s.size, s.seeds, after), cells):
        if path is None or path in in_flight:
            continue
        if not fits(cell, observed, s.space, committed, s.budget_seconds):
            break
        committed, cell_of[path] = committed + cost(cell), cell
        handed.append(path)
    return wanted.step, handed


def all_under_way(s, wanted, in_flight):
    """Whether every run the policy's round `wanted` asks for is under way, or has no seed left to
    run: then a free worker may run ahead of it; else the budget held back the rest of the round."""
    after = in_flight if wanted.step in SEED_STEPS else ()
    return all(path is None or path in in_flight for path in round_paths(s.folder, wanted.cells, s.size, s.seeds, after))


def runs_ahead_pay(s, step, in_flight):
    """Whether a free worker runs the later steps' runs ahead (policy.ahead): in the in/out step,
    where they are the best step's seeds, always; at the other steps only while more than half the
    workers would wait. With 2 workers, one run ahead of the screen, refine or rates holds the
    worker the next round needs, and the runs it reads can lead the search a longer way: TweetEval
    emotion from one file took 25.7 minutes against 18.7 (docs/records/search-ahead-2026-12-03)."""
    return step == "in/out" or s.workers.jobs - len(in_flight) > s.workers.jobs / 2


def taking_order(wanted, cost, committed, s):
    """The round's cells in the order the workers take them: a screen, rates or refine round, which
    the next step waits for whole, longest first with several workers where the budget pays for all
    of it (so that no long run starts as the others end: run_grid's order); else the policy's."""
    if wanted.step in SEED_STEPS or s.workers.jobs < 2 or committed + sum(map(cost, wanted.cells)) > s.budget_seconds:
        return wanted.cells
    return sorted(wanted.cells, key=cost, reverse=True)  # of equal costs, the policy's order


def likely_pick(s, observed, metric, dev_size):
    """The cell the search would pick if the runs under way changed nothing (the report's rule over
    what ended), once it has two seeds; else None."""
    likely = policy.pick(s.space, observed, metric, dev_size)[0]
    return likely if likely and len(observed.get(likely, [])) >= 2 else None


def best_unkept(s, likely, metric, in_flight):
    """The `likely` pick's best ended seed (search_folder.kept_seed) where no run has saved its model
    or is training it again; else None."""
    seed = kept_seed(list(runs_of(s.folder, likely, s.size, s.seeds).values()), metric)
    if kept_run(s.folder, likely, s.size, seed) or kept_path(s.folder, likely, s.size, seed) in in_flight:
        return None
    return seed


def defaults_kept_as_they_run(space):
    """The cell whose seeds save their models from the first (the screen's) on: the defaults a user
    would run alone (standing.anchor_of), which the answer falls back to whenever the examples
    cannot tell the best from them; None where the answer is the cheapest in the band. The likely
    pick saves from its third seed on, so a pick of the defaults whose best seed was its first was
    trained again once decided: on MRPC's pairs (n = 200, minilm, -j 2) 166 s at the end of a
    40-minute search, one worker idle (docs/records/advise-pairs-mrpc-2026-12-05). A save costs
    about 0.3 s of its run, and its disk until the seed is beaten (drop_beaten_keeps); the keep's
    folder goes once the pick is kept. Where the keep ran beside the last seeds, the change saved
    nothing measurable (docs/records/defaults-saved-2026-12-05)."""
    return anchor_of(space) if space.prefer == "best" else None


def saved_as_it_runs(s, cell, handed, cell_of):
    """{path: its --save folder} for `cell`'s seeds among the runs `handed` out (the likely pick's,
    or the defaults'), so that the search's keep moves the best one's model into place instead of
    training it once more (study/search/keep.py); the others' are dropped once beaten
    (drop_beaten_keeps)."""
    return {path: kept_folder(s.folder, path) for path in handed if cell_of[path] == cell}


def keep_ahead(s, likely, seed, in_flight, cell_of):
    """The `likely` pick once its last seed is under way: its best ended `seed`, whose run did not
    save its model (it ran before the cell led), trained again with --save into FOLDER/kept/, so
    that the keep moves it instead of training it after the last run. [its path], or [] where it
    has a seed to run."""
    if next(round_paths(s.folder, [likely], s.size, s.seeds, in_flight)) is not None:
        return []
    path = kept_path(s.folder, likely, s.size, seed)
    cell_of[path] = likely
    return [path]


def spent(observed):
    return sum(seconds for runs in observed.values() for _, seconds, *_ in runs)


class BudgetTooSmall(ValueError):
    pass
