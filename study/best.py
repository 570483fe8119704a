"""
The report's recommended cell at one train size, as the freeze_study.py options that train it
again (make best runs them with --save, so the answer ends as a model to use):

    python -m study.best results/sst2/minilm --size 1000
    --freeze 1 --size 1000 --seed 3 --lr 5e-5 --pooling first

The recommendation is study/answer.py's, read from the same folder the report reads; the seed is
the one of its runs that scored best on the dev split (answer.best_seed, make advise's rule too),
or --seed's.
"""

import argparse
import os
import sys

import methods
from result import name_of
from study.answer import answer_cells, best_seed, fair_score, judged_by, recommend
from study.folder import ROUNDS, load_results, no_results
from study.stats import counted


def best_flags(folder, size, seed=None):
    """(the options of the recommended cell at `size` (its method, depth, rate, reset, pooling, and
    its method's own settings as its runs recorded them: SetFit's pairs, LoRA's rank), which seed
    and why): the seed `seed`, or None for its runs' best on the dev split by the fair score."""
    if os.path.exists(os.path.join(folder, ROUNDS)):  # its pick by its own rule, kept already
        raise ValueError(f"{folder} is a make advise search: it kept its pick where its report says (SAVE); "
                         "make best trains a grid's")
    runs = load_results(folder, figure="score")
    if not runs:
        raise ValueError(no_results(folder))
    metric = judged_by(runs)
    cells = [row for row in answer_cells(runs, metric) if str(row["size"]) == str(size)]
    if not cells:
        sizes = sorted({str(r["config"]["size"]) for r in runs})
        raise ValueError(f"{folder} has no runs at n = {size} (it has n = {', '.join(sizes)})")
    pick, _, _ = recommend(cells, metric)
    config = pick["config"]  # every method's pick is kept (methods.py: how each is saved)
    if seed is None:
        seed = best_seed(pick["records"], lambda run: fair_score(run, metric))
        score = next(fair_score(r, metric) for r in pick["records"] if r["config"]["seed"] == seed)
        which = f"the best of its {counted(pick['runs'], 'run')}" if pick["runs"] > 1 else "its only run"
        why = f"seed {seed}, {which} on the dev split ({metric} {score:.3f} there)"
    else:
        why = f"seed {seed}, as asked"
    flags = name_of(dict(config, seed=seed)).flags() + own_options(config) + ["--pooling", config["pooling"]]
    return flags, why


def own_options(config):
    """The options of the run's method's own (SetFit's pairs, LoRA's rank and targets), as it recorded them."""
    flags = []
    for option in methods.get(config["method"]).options:
        value = config.get(option)
        if value is not None:
            flags += [f"--{option.replace('_', '-')}", *map(str, value if isinstance(value, list) else [value])]
    return flags


def main(argv=None):
    p = argparse.ArgumentParser(description="The recommended cell's options, for make best.")
    p.add_argument("folder")
    p.add_argument("--size", required=True, help="the train size whose recommendation to train")
    p.add_argument("--seed", type=int, help="the seed to train (default: the pick's best on the dev split)")
    args = p.parse_args(argv)
    try:
        flags, why = best_flags(args.folder, args.size, args.seed)
        print(f"make best: the report's pick at n = {args.size}, {why}, trained again", file=sys.stderr)
        print(" ".join(flags))
    except ValueError as e:
        print(f"best.py: error: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
