"""
A search's results folder (make advise, study/search/advise.py): what has run in it, where each run's
result goes, the options it runs with, and the history of its rounds. The folder is an ordinary
results folder (the report reads it, a later make grid reuses it) with these additions:

    RESULTS/freeze2_size200_seed1_lora.json ...   the search's runs, as a grid's
    RESULTS/test/...                               the pick's seeds again, scored on your test file
    RESULTS/kept/...                               the likely pick's seeds as --save wrote them, or its best seed again
    RESULTS/advise.rounds                          every round, one JSON line each, across resumes
    RESULTS/advise.stopped                         the runs stopped once the answer was decided: their seconds

A search over several checkpoints (make advise MODEL="minilm mpnet") keeps each one's runs in a
results folder of its own, named for it, inside RESULTS: RESULTS/minilm/..., RESULTS/mpnet/...
(and RESULTS/test/minilm/...); its rounds and report stay in RESULTS.
"""

import json
import os
import shutil
from dataclasses import replace

import result
from study.answer import best_seed, fair_scores, judged_by
from study.folder import ROUNDS, load_results
from study.paired import examples_of
from study.search.space import models_of
from study.search.standing import Cell, seen

STOPPED = "advise.stopped"  # every run stopped once the answer was decided, and the seconds it had run
TEST = "test"  # the pick's runs again with --test-file as their dev split, in this subfolder
KEPT = "kept"  # the likely pick saved by one of its runs (--save), in this subfolder


def model_folder(folder, model):
    """Where a checkpoint's runs are: the search's folder itself for its one checkpoint (""), else its
    own inside, named as a grid's folder is (result.model_label: its name less any path)."""
    return os.path.join(folder, result.model_label(model)) if model else folder


def runs_by_cell(folder, size, space):
    """{Cell: [its runs]} of the space at n = size in `folder` (each checkpoint's in its own)."""
    by_cell, cells = {}, space_cells(space)
    for model in models_of(space):
        for run in load_results(model_folder(folder, model), figure="score"):
            cell = Cell.of(run["config"], model)
            if str(run["config"]["size"]) == str(size) and cell in cells:
                by_cell.setdefault(cell, []).append(run)
    return by_cell


def read_folder(folder, size, space):
    """(the runs of the space at n = size in `folder`, {Cell: [(picked score, seconds, outcome,
    examples)]}, their metric)."""
    by_cell = runs_by_cell(folder, size, space)
    every = [run for runs in by_cell.values() for run in runs]
    metric = judged_by(every) if every else None
    scores_of, _, examples = reading(every)
    observed = {cell: [seen(scores_of(run), metric, run["seconds"]["total"], examples(run)) for run in runs]
                for cell, runs in by_cell.items()}
    return every, observed, metric


def picked_scores(run):
    """The scores a search of the halves picked by, every metric: the fair scores on the dev
    split's first half (a search's runs from before runs kept their outputs)."""
    return run["dev_halves"][0]


def reading(runs):
    """How the search reads its runs, the one home of it: (run -> the scores it picks by, every
    metric; the number of dev examples they are read on; run -> its paired.Examples, or None).
    - Runs that kept their outputs (result.outputs_in): the whole dev split, cells told apart on
      the same examples (study/paired.py); the honest score is the bootstrap's (paired.honest_score).
    - A search's runs from before: the first half, at that half's noise; the second half judged.
    - A grid's runs (neither): their fair scores on the whole split, at the level's noise."""
    if runs and all(run.get("predictions") for run in runs):  # over one file's folds: every fold's examples
        return fair_scores, runs[0]["dev_size"] * (runs[0]["config"].get("folds") or 1), examples_of
    if runs and all(run.get("dev_halves") for run in runs):
        return picked_scores, runs[0]["dev_size"] // 2, lambda run: None
    return fair_scores, runs[0]["dev_size"] if runs else 0, lambda run: None


def halves_read(runs):
    """Whether the search read these runs on the dev split's first half (and judges on the second)."""
    return reading(runs)[0] is picked_scores


def space_cells(space):
    """Every cell the space holds: each method at each depth at each rate of its ladder."""
    return {Cell(name, k, lr, model) for (model, name), depths in space.depths.items() for k in depths
            for lr in (space.ladder[model, name] or [space.own_rate[model, name]])}


def path_of(folder, cell, size, seed):
    """Where the search's run of `cell` at `seed` goes: named as its result names itself (result.name_of)."""
    name = result.name_of(dict(freeze=cell.freeze, size=size, seed=seed, lr=cell.lr, reinit=0, method=cell.method))
    return os.path.join(model_folder(folder, cell.model), name.file_name())


def kept_path(folder, cell, size, seed, final=False):
    """Where the search trains `cell`'s `seed` again to keep it, when its run did not save it (or
    `final`: the final model, trained on every label): its result, and beside it, named as it less
    .json, the folder --save wrote."""
    return path_of(os.path.join(folder, KEPT, "final") if final else os.path.join(folder, KEPT), cell, size, seed)


def kept_folder(folder, path):
    """Where the run whose result is `path` saves its model when the search keeps it: under
    FOLDER/kept/, named as its result less .json (a checkpoint's in its own folder there too)."""
    inside = os.path.relpath(path, folder)
    return os.path.join(folder, inside if inside.startswith(KEPT + os.sep) else os.path.join(KEPT, inside))[:-len(".json")]


def kept_run(folder, cell, size, seed):
    """(the run of `cell`'s `seed` that saved its model, the folder it saved) or None: the seed saved
    as it ran, or trained again to keep (its result then beside the folder, in FOLDER/kept/)."""
    path = path_of(folder, cell, size, seed)
    saved = kept_folder(folder, path)
    for result_path in (saved + ".json", path):  # the run that saved it, where it has its own
        if os.path.isdir(saved) and os.path.exists(result_path):
            return result_path, saved
    return None


def kept_seed(runs, metric):
    """The seed the search keeps of its pick's `runs`: the one that scores best on the dev split as
    the search reads its runs (reading), the lowest of equals. A seed is one draw of a run's
    randomness (its head, its batches, its dropout), and the pick's seeds spread most where a user
    can least afford it: on STS-B from 200 pairs one seed of the pick scored 0.35 and another 0.77
    (study/answer.py's best_seed: the rule, make best's too)."""
    scores_of = reading(runs)[0]
    return best_seed(runs, lambda run: scores_of(run)[metric])


def runs_of(folder, cell, size, seeds):
    """{seed: its run} of `cell`'s seeds 1..seeds that have ended in `folder`."""
    runs = {}
    for seed in range(1, seeds + 1):
        path = path_of(folder, cell, size, seed)
        if os.path.exists(path):
            with open(path) as f:
                runs[seed] = json.load(f)
    return runs


def drop_beaten_keeps(folder, cells, size, seeds, metric, in_flight):
    """The models `cells`' ended seeds saved (FOLDER/kept/) that the search can no longer keep:
    every one but the best seed's of its cell (kept_seed). More seeds can only raise a cell's
    best, so a seed beaten once stays beaten; a model of a run under way is left to end."""
    for cell in cells:
        runs = runs_of(folder, cell, size, seeds)
        if not runs:
            continue
        best = kept_seed(list(runs.values()), metric)
        for seed in set(runs) - {best}:
            path = path_of(folder, cell, size, seed)
            saved = kept_folder(folder, path)
            if os.path.isdir(saved) and path not in in_flight and saved + ".json" not in in_flight:
                shutil.rmtree(saved)
                if os.path.exists(saved + ".json"):
                    os.remove(saved + ".json")


def drop_kept(folder):
    """The likely picks saved that were not the pick (the pick's was moved)."""
    shutil.rmtree(os.path.join(folder, KEPT), ignore_errors=True)


def options_of(cell, shared):
    """The options every run of `cell` takes: the search's, and its checkpoint where the search has several."""
    return dict(shared, model=cell.model) if cell.model else shared


def missing_seeds(folder, cell, size, seeds):
    """The seeds of 1..seeds whose result is not in the folder, in order."""
    return [s for s in range(1, seeds + 1) if not os.path.exists(path_of(folder, cell, size, s))]


def round_paths(folder, cells, size, seeds, after=()):
    """The result files of a round's cells: a cell named twice takes its next two missing seeds,
    those of `after` (runs under way) left out; None where a cell has no seed left."""
    missing = {cell: iter([seed for seed in missing_seeds(folder, cell, size, seeds)
                           if path_of(folder, cell, size, seed) not in after]) for cell in cells}
    for cell in cells:
        seed = next(missing[cell], None)
        yield seed and path_of(folder, cell, size, seed)


def log_round(folder, step, paths):
    """Add a round to the folder's history (the report lists them all, a killed search's too); a
    run is named within the folder (a checkpoint's as its folder/...)."""
    with open(os.path.join(folder, ROUNDS), "a") as f:
        f.write(json.dumps(dict(step=step, runs=[os.path.relpath(p, folder) for p in paths])) + "\n")
    return step, paths


def log_stopped(folder, path, seconds):
    """Add a run stopped once the answer was decided: it leaves no result, but its seconds were spent."""
    with open(os.path.join(folder, STOPPED), "a") as f:
        f.write(json.dumps(dict(run=os.path.relpath(path, folder), seconds=round(seconds, 1))) + "\n")


def stopped_seconds(folder):
    """The seconds the folder's stopped runs ran, across resumes (0 where none was stopped)."""
    try:
        with open(os.path.join(folder, STOPPED)) as f:
            return sum(json.loads(line)["seconds"] for line in f)
    except FileNotFoundError:
        return 0.0


def rounds_of(folder):
    """[(step, [result names within the folder])]: the folder's rounds, first to last."""
    try:
        with open(os.path.join(folder, ROUNDS)) as f:
            return [(r["step"], r["runs"]) for r in map(json.loads, f)]
    except FileNotFoundError:
        return []


def available_in(space, folder, size, seeds, held=None):
    """The space with `available`: the seeds of 1..seeds a cell has not run in the folder; `held`, a
    replay's (study/search/clocked.py): cell -> the seeds 1..held(cell) its grid has, the others none."""
    most = held or (lambda cell: seeds)
    return replace(space, available=lambda cell: sum(seed <= most(cell) for seed in missing_seeds(folder, cell, size, seeds)))
