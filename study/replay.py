"""
The search's policy driven by a committed grid instead of new runs: what `make advise` would have
run and answered at one train size, and what it would have cost, without running anything.

    python -m study.advise --replay docs/results/sst2-minilm/runs --size 200
    python -m study.advise --replay docs/results/sst2-minilm/runs docs/results/sst2-mpnet/runs --size 200

Over several grids (one checkpoint each, one task), the search chooses the checkpoint too: a
cell names its grid's checkpoint, and the grid's answer is the report's rule over all of them.

Each run the policy asks for is the grid's next seed of that cell (seeds in order); a cell the grid
never ran cannot run. A run costs its recorded seconds less what the search would not have made:
the evaluations before its last (the search reads only the fair score, the last evaluation; each
evaluation's share of the recorded evaluation seconds is taken from the dev and train sizes). The
grid's cost at that size is the sum of its runs' recorded seconds; its answer, the report's.
"""

import functools
from dataclasses import replace

import methods
from study import policy
from study.answer import answer_cells, fair_score, judged_by, recommend
from study.folder import load_results
from study.standing import Cell, standing


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
    """(the runs of the grid folders at n = size, their metric, {Cell: [runs by seed]}); `folders`:
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
        cells.setdefault(Cell.of(run["config"], model(run)), []).append(run)
    return runs, metric, cells


def grid_answer(runs, metric, several=False):
    """The report's recommendation over every run of the grid (of the grids: `several`) at one size, as a Cell."""
    pick, _, _ = recommend(answer_cells(runs, metric), metric)
    return Cell.of(pick["config"], pick["config"]["model"] if several else "")


def space_of_grid(cells, size):
    """The policy's space over the grid's cells (each checkpoint's): its depths and rates, as the grid ran them."""
    return policy.joined([space_of_model({cell: runs for cell, runs in cells.items() if cell.model == model}, size, model)
                          for model in dict.fromkeys(cell.model for cell in cells)])


def space_of_model(cells, size, model):
    first = next(iter(cells.values()))[0]
    num_layers, names = first["config"]["num_layers"], sorted({cell.method for cell in cells})
    depths = sorted({cell.freeze for cell in cells if not methods.get(cell.method).every_layer_frozen}) or [num_layers]
    space = policy.space_for(size, num_layers, depths, names, model=model)
    # a method the grid never ran at its own rate is screened at the rate the grid ran it at the most
    ran_at = lambda name, lr: sum(cell.method == name and cell.lr == lr for cell in cells)
    screened = {(model, name): rate if ran_at(name, rate) else max({c.lr for c in cells if c.method == name},
                                                                   key=lambda lr: ran_at(name, lr))
                for (_, name), rate in space.default_rate.items()}
    ladders = {key: sorted(set(ladder) | {screened[key]}) if ladder else [] for key, ladder in space.ladder.items()}
    return policy.Space(space.depths, screened, ladders, space.available)


def replay(folder, size, budget_seconds=float("inf"), jobs=1, stop=None):
    """Drive the policy with the grid's runs, `jobs` at once. Returns a dict: size, pick, grid_pick,
    seconds, grid_seconds, wall_seconds and grid_wall_seconds (on `jobs` workers, a round after
    another for the search, every run at once for the grid), runs, grid_runs, decided, and the order
    the runs were made in.
    stop: a stopping rule to try (bench/advise_levers.py), (run, the band's floor) -> None, or
    (the share of its steps it ran, a score its end cannot pass): the run costs that share, reads
    as that score, and its cell gets no more seeds.
    """
    folders = [folder] if isinstance(folder, str) else list(folder)
    runs, metric, cells = grid_at(folders, size)
    several = len(folders) > 1
    dev_size = runs[0]["dev_size"]
    observed, spent, order, stopped, wall = {}, 0.0, [], set(), 0.0
    served = lambda cell: len(observed.get(cell, []))
    space = replace(space_of_grid(cells, size),
                    available=lambda cell: 0 if cell in stopped else len(cells.get(cell, [])) - served(cell))
    within_budget = True
    while within_budget:
        wanted = policy.next_runs(space, observed, metric, dev_size, jobs)
        if not wanted.cells:
            break
        floor = band_floor(observed, metric, dev_size) if stop else None
        costs = []
        for cell in wanted.cells:
            if cell in stopped:
                continue
            within_budget = policy.fits(cell, observed, space, spent, budget_seconds)
            if not within_budget:
                break  # checked before each run, as the search's workers check it
            run = cells[cell][served(cell)]
            cost, score = search_cost(run), fair_score(run, metric)
            cut = stop(run, floor) if stop else None
            if cut:
                share, score = cut
                cost *= share
                stopped.add(cell)
            observed.setdefault(cell, []).append((score, cost))
            spent += cost
            costs.append(cost)
            order.append((cell, run["config"]["seed"], round(cost, 1), wanted.step))
        wall += round_seconds(costs, jobs)
    chosen, decided = policy.pick(space, observed, metric, dev_size)
    grid_pick = grid_answer(runs, metric, several)
    as_dict = lambda cell: dict(method=cell.method, freeze=cell.freeze, lr=cell.lr, **({"model": cell.model} if several else {}))
    return dict(folder=folder, size=size, pick=as_dict(chosen), grid_pick=as_dict(grid_pick), same=chosen == grid_pick,
                decided=decided, seconds=round(spent, 1), grid_seconds=round(sum(r["seconds"]["total"] for r in runs), 1),
                wall_seconds=round(wall, 1), grid_wall_seconds=round(round_seconds([r["seconds"]["total"] for r in runs], jobs), 1),
                runs=len(order), grid_runs=len(runs), order=order, observed=observed, metric=metric, dev_size=dev_size)


def round_seconds(costs, jobs):
    """The wall clock of a round's runs on `jobs` workers, the longest handed out first, each to
    the worker free first (as study/worker.py hands out a grid's runs)."""
    free_at = [0.0] * max(jobs, 1)
    for cost in sorted(costs, reverse=True):
        free_at[free_at.index(min(free_at))] += cost
    return max(free_at)


def band_floor(observed, metric, dev_size):
    """The lowest fair mean still in the band of the best so far (-inf before any run)."""
    state = standing(observed, metric, dev_size)
    return state.means[state.best] - state.band if state.best else float("-inf")
