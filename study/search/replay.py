"""
The search's policy driven by a committed grid instead of new runs: what `make advise` would have
run and answered at one train size, and what it would have cost, without running anything.

    python -m study.search.advise --replay docs/results/sst2-minilm/runs --size 200
    python -m study.search.advise --replay docs/results/sst2-minilm/runs docs/results/sst2-mpnet/runs --size 200

Over several grids (one checkpoint each, one task), the search chooses the checkpoint too: a
cell names its grid's checkpoint, and the grid's answer is the report's rule over all of them.

Each run the policy asks for is the grid's next seed of that cell (seeds in order); a cell the grid
never ran cannot run, unless its method's runs are made for the replay beside the grid (Made:
SetFit's fast body, which make advise searches, beside grids that ran the library's SetFit). A
run costs its recorded seconds less what the search would not have made: the evaluations before
its last (the search reads only the fair score, the last evaluation; each evaluation's share of
the recorded evaluation seconds is taken from the dev and train sizes). The grid's cost at that
size is the sum of its runs' recorded seconds; its answer, the report's.
"""

import functools
import json
import math
import os
from dataclasses import dataclass, field, replace

import methods
from study.search import policy
from study.answer import answer_cells, fair_scores, judged_by, recommend
from study.folder import load_results
from study.search.search_folder import reading
from study.search.standing import PICK_SEEDS, Cell, label_of, rate_text, seen, standing
from study.search.space import Space, first_cell, fits, joined, models_of, space_for


def search_cost(run):
    """A run's seconds with one evaluation of the dev split (the fair score's) instead of its curve's."""
    seconds, evaluations = run["seconds"], len(run["curve"])
    if evaluations < 2:
        return seconds["total"]
    dev, train = run["dev_size"], run["config"]["size"]
    one_evaluation = seconds["eval"] * dev / (dev * evaluations + train)  # the curve's passes, then the train split's one
    return seconds["total"] - one_evaluation * (evaluations - 1)


@functools.lru_cache(maxsize=4)
def runs_of(folder):
    """Every run of a committed grid, read once (a replay at each size reads them again)."""
    return tuple(load_results(folder, figure="score"))


def grid_at(folders, size):
    """(the runs of the grid folders at n = size, their metric, {Cell: [runs by seed]}, those with no
    layer reset); `folders`:
    one folder, or several of one checkpoint each, whose cells then name it."""
    folders = [folders] if isinstance(folders, str) else list(folders)
    runs = []
    for folder in folders:
        here = [r for r in runs_of(folder) if str(r["config"]["size"]) == str(size)]
        if not here:
            raise ValueError(f"{folder} has no runs at n = {size}")
        runs += here
    checkpoints = {r["config"]["model"] for r in runs}
    if len(folders) > 1 and len(checkpoints) < len(folders):
        raise ValueError(f"{' '.join(folders)}: a replay over several grids takes one checkpoint's grid each")
    metric = judged_by(runs)
    model = lambda run: run["config"]["model"] if len(folders) > 1 else ""
    cells = {}
    for run in sorted(runs, key=lambda r: r["config"]["seed"]):
        if not run["config"].get("reinit"):  # a search never resets layers: a reset run is no seed of its cell
            cells.setdefault(Cell.of(run["config"], model(run)), []).append(run)
    return runs, metric, cells


def grid_answer(runs, metric, several=False):
    """The report's recommendation over every run of the grid (of the grids: `several`) at one size, as a Cell."""
    pick, _, _ = recommend(answer_cells(runs, metric), metric)
    return Cell.of(pick["config"], pick["config"]["model"] if several else "")


def space_of_grid(cells, size, made=(), every=None):
    """The policy's space over the grid's cells (each checkpoint's): its depths and rates, as the grid
    ran them; `made`: methods the grid lacks that a search runs, at their own rates and the grid's
    depths, those of `every` cell of it where given (the library's SetFit's too, which make advise
    does not search: on mpnet at n = 50 it alone ran k = 6)."""
    depths_of = lambda model: sorted({cell.freeze for cell in (every or cells) if cell.model == model
                                      and not methods.get(cell.method).every_layer_frozen})
    return joined([space_of_model({cell: runs for cell, runs in cells.items() if cell.model == model}, size, model, made,
                                         depths_of(model))
                          for model in dict.fromkeys(cell.model for cell in cells)])


def space_of_model(cells, size, model, made, depths):
    first = next(iter(cells.values()))[0]
    num_layers, names = first["config"]["num_layers"], sorted({cell.method for cell in cells} | set(made))
    depths = depths or [num_layers]
    space = space_for(size, num_layers, depths, names, model=model)
    ran_at = lambda name, lr: sum(cell.method == name and cell.lr == lr for cell in cells)

    def screened_rate(name, own):
        """A method the replay makes runs at its own rate; a grid's, at its run's default, which a grid
        runs at every depth (the fine-tune's is the protocol's, not its own rate in a search below
        n = 200), or, where the grid never ran that, at the rate the grid ran it at the most."""
        if name in made:
            return own
        if ran_at(name, methods.get(name).default_lr(size)):
            return methods.get(name).default_lr(size)
        return max({c.lr for c in cells if c.method == name}, key=lambda lr: ran_at(name, lr))

    screened = {(model, name): screened_rate(name, own) for (_, name), own in space.own_rate.items()}
    ladders = {key: sorted(set(ladder) | {screened[key]}) if ladder else [] for key, ladder in space.ladder.items()}
    return Space(space.depths, screened, ladders, space.available)


# ----------------------------------------------------------------------------------------------
# Runs a search makes that its grid lacks (SetFit fast's, beside a grid whose SetFit is the library's)

@dataclass(frozen=True)
class Made:
    """Folders of runs made for the replay, one per grid folder in the same order, and the methods
    they hold: these methods join the search's space at the grid's depths, the grid's methods that
    make advise does not search (methods.py's `searched`: the library's SetFit) leave it, and a run
    of them the policy asks for is read from these folders, or listed as missing."""
    folders: tuple
    methods: tuple = (methods.SETFIT_FAST.name,)


def made_runs(made, size, several):
    """{Cell: {seed: run}} of the made folders' runs at n = size."""
    runs = {}
    for folder in made.folders if made else ():
        for run in load_results(folder, figure="score") if os.path.isdir(folder) else ():  # not runs_of's: it grows
            if str(run["config"]["size"]) == str(size) and run["config"]["method"] in made.methods:
                cell = Cell.of(run["config"], run["config"]["model"] if several else "")
                runs.setdefault(cell, {})[run["config"]["seed"]] = run
    return runs


@dataclass
class Trace:
    """What a replay has run so far: each cell's (score, seconds), the seconds spent in all and on
    the clock, the runs in order, the cells a stopping rule ended, and the made runs found missing."""
    observed: dict = field(default_factory=dict)
    spent: float = 0.0
    wall: float = 0.0
    order: list = field(default_factory=list)
    stopped: set = field(default_factory=set)
    missing: list = field(default_factory=list)

    def served(self, cell):
        return len(self.observed.get(cell, []))


def replay(folder, size, budget_seconds=float("inf"), jobs=1, stop=None, made=None, prefer="cost"):
    """Drive the policy with the grid's runs, `jobs` at once. Returns a dict: size, pick, grid_pick,
    seconds, grid_seconds, wall_seconds and grid_wall_seconds (on `jobs` workers, a round after
    another for the search, every run at once for the grid), runs, grid_runs, decided, the order
    the runs were made in, and `missing`: the (cell, seed) of `made`'s methods the policy asked for
    that its folders lack (the replay ends at the round that asked: run them, and replay again).
    stop: a stopping rule to try (bench/advise_levers.py), (run, the band's floor) -> None, or
    (the share of its steps it ran, a score its end cannot pass): the run costs that share, reads
    as that score, and its cell gets no more seeds.
    made: a Made, the runs a search makes that the grid lacks; the grid's answer and seconds stay its own.
    prefer: the answer sought (Space.prefer): the grid report's, "cost", or make advise's, "best".
    """
    folders = [folder] if isinstance(folder, str) else list(folder)
    runs, metric, cells = grid_at(folders, size)
    several, names, trace = len(folders) > 1, made.methods if made else (), Trace()
    extra = made_runs(made, size, several)
    searched = {cell: seeds for cell, seeds in cells.items() if not made or methods.get(cell.method).searched}
    can_run = lambda cell: PICK_SEEDS - trace.served(cell) if cell.method in names else len(searched.get(cell, [])) - trace.served(cell)
    space = replace(space_of_grid(searched, size, names, cells), prefer=prefer,
                    available=lambda cell: 0 if cell in trace.stopped else can_run(cell))

    def run_of(cell):  # the cell's next seed, from the grid or the made folders (None: not made yet)
        seed = trace.served(cell) + 1 + sum(asked == cell for asked, _ in trace.missing)
        run = extra.get(cell, {}).get(seed) if cell.method in names else searched[cell][seed - 1]
        if run is None:
            trace.missing.append((cell, seed))
        return run

    (scores_of, dev_size, examples_of), within_budget = reading(runs), True
    for cell in [first_cell(space, model) for model in models_of(space)]:  # each alone first, as the search makes it
        run = run_of(cell)
        if run is not None:
            trace.wall += round_seconds([take(trace, cell, run, metric, None, "first", scores_of, examples_of)], jobs)
    while within_budget and not trace.missing:
        wanted = policy.next_runs(space, trace.observed, metric, dev_size, jobs)
        if not wanted.cells:
            break
        floor = band_floor(trace.observed, metric, dev_size) if stop else None
        costs = []
        for cell in wanted.cells:
            if cell in trace.stopped:
                continue
            within_budget = fits(cell, trace.observed, space, trace.spent, budget_seconds)
            if not within_budget:
                break  # checked before each run, as the search's workers check it
            run = run_of(cell)
            if run is not None:
                costs.append(take(trace, cell, run, metric, stop and stop(run, floor), wanted.step, scores_of, examples_of))
        trace.wall += round_seconds(costs, jobs)
    return outcome_of(folder, size, space, runs, metric, trace, jobs)


def take(trace, cell, run, metric, cut, step, scores_of=fair_scores, examples_of=lambda run: None):
    """One run into the trace, at its search cost and its scores as `scores_of` reads them (its
    outputs as `examples_of` does), or at a stopping rule's `cut` (the share of its cost, the score
    it reads as; its cell then gets no more seeds). Returns its cost."""
    cost, scores, examples = search_cost(run), scores_of(run), examples_of(run)
    if cut:
        share, score = cut
        cost *= share
        scores, examples = {metric: score}, None
        trace.stopped.add(cell)
    trace.observed.setdefault(cell, []).append(seen(scores, metric, cost, examples))
    trace.spent += cost
    trace.order.append((cell, run["config"]["seed"], round(cost, 1), step))
    return cost


def outcome_of(folder, size, space, runs, metric, trace, jobs):
    """replay's dict (its docstring says what it holds)."""
    several, dev_size = isinstance(folder, (list, tuple)) and len(folder) > 1, reading(runs)[1]
    chosen, decided = policy.pick(space, trace.observed, metric, dev_size)
    grid_pick = grid_answer(runs, metric, several)
    as_dict = lambda cell: dict(method=cell.method, freeze=cell.freeze, lr=cell.lr, **({"model": cell.model} if several else {}))
    return dict(folder=folder, size=size, pick=as_dict(chosen), grid_pick=as_dict(grid_pick), same=chosen == grid_pick,
                decided=decided and not trace.missing, seconds=round(trace.spent, 1),
                grid_seconds=round(sum(r["seconds"]["total"] for r in runs), 1), wall_seconds=round(trace.wall, 1),
                grid_wall_seconds=round(round_seconds([r["seconds"]["total"] for r in runs], jobs), 1),
                runs=len(trace.order), grid_runs=len(runs), order=trace.order, observed=trace.observed, metric=metric,
                dev_size=dev_size, missing=trace.missing)


def round_seconds(costs, jobs):
    """The wall clock of a round's runs on `jobs` workers, the longest handed out first, each to
    the worker free first (as study/worker.py hands out a grid's runs)."""
    free_at = [0.0] * max(jobs, 1)
    for cost in sorted(costs, reverse=True):
        free_at[free_at.index(min(free_at))] += cost
    return max(free_at)


def band_floor(observed, metric, dev_size):
    """The lowest fair mean still within noise of the best so far, over the cells run (-inf before any run)."""
    state = standing(observed, metric, dev_size)
    return min(state.floor_of(cell) for cell in state.means) if state.best else float("-inf")


def print_replay(folders, size, budget_hours=None, prefer="cost"):
    """The replay as `python -m study.search.advise --replay` prints it: each run it would make, then its outcome."""
    size = size if size == "all" else int(size)
    outcome = replay(folders, size, budget_seconds=(budget_hours or math.inf) * 3600, prefer=prefer)
    for cell, seed, seconds, step in outcome["order"]:
        print(f"{step:7s} {label_of(cell, True):16s} k={cell.freeze:<3d} lr {rate_text(cell):7s} seed {seed} {seconds:8.1f} s")
    keys = ("size", "pick", "grid_pick", "same", "decided", "seconds", "grid_seconds", "runs", "grid_runs")
    print(json.dumps({key: outcome[key] for key in keys}))
