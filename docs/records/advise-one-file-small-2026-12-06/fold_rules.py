"""make advise's answer over one file's folds, replayed three ways over a finished search's runs:
the margin (today's: the best unless not told apart from the anchor, Standing.apart), and the gain
out of bag (BBC, paired.choice_gain, the answer's rule on one dev split) read (A) on fold 1, which
every cell ran, or (B) on the folds the best and the anchor share, among the cells that ran them.
Each answer's mean on test.csv over its fold runs (no choice read it). Run from the project's root:

    .venv/bin/python docs/records/advise-one-file-small-2026-12-06/fold_rules.py NAME:FOLDER:SIZE ...
"""
import statistics
import sys

sys.path.insert(0, ".")
from study import paired  # noqa: E402
from study.search.asked import SEARCHED  # noqa: E402
from study.search.search_folder import read_folder  # noqa: E402
from study.search.space import space_for  # noqa: E402
from study.search.standing import anchor_of, answer_of, examples_of, standing  # noqa: E402


def gain_on(observed, metric, anchor, folds):
    """choice_gain among the cells that ran every fold of `folds`, each read on those folds' runs."""
    cells = {}
    for cell, runs in observed.items():
        kept = [e for e in examples_of(runs) if e is not None and e.fold in folds]
        if {e.fold for e in kept} >= set(folds):
            cells[cell] = [next(e for e in kept if e.fold == f) for f in sorted(folds)]
    in_bag = {cell: paired.cell_draws(runs, metric) for cell, runs in cells.items()}
    out = {cell: paired.cell_draws(runs, metric, out_of_bag=True) for cell, runs in cells.items()}
    return paired.choice_gain(in_bag, out, anchor), len(cells)


print("| search | cells | best on folds | lead | margin | margin's answer | A: gain on fold 1 (cells) | B: gain on shared folds (cells, folds) | C: B less fold 1 | D: every cell on its own folds | anchor's test | best's test |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for spec in sys.argv[1:]:
    name, folder, size = spec.split(":")
    space = space_for(int(size), 6, [6, 5, 4, 3, 2, 1, 0, -1], SEARCHED)
    every, observed, metric = read_folder(folder, int(size), space)
    state, anchor = standing(observed, metric, every[0]["dev_size"]), anchor_of(space)
    best, answer = state.best, answer_of(state, space)
    tests = {}
    for run in every:
        c = run["config"]
        tests.setdefault((c["method"], c["freeze"], c["lr"]), []).append(run["test_at_score"][metric])
    test = lambda cell: statistics.mean(tests[(cell.method, cell.freeze, cell.lr)])
    folds_of = lambda cell: {e.fold for e in examples_of(observed[cell]) if e is not None}
    gain_a, cells_a = gain_on(observed, metric, anchor, [1])
    shared = sorted(folds_of(best) & folds_of(anchor))
    gain_b, cells_b = gain_on(observed, metric, anchor, shared)
    every_cell = {cell: [e for e in examples_of(runs) if e is not None] for cell, runs in observed.items() if runs}
    gain_d = paired.choice_gain({c: paired.cell_draws(r, metric) for c, r in every_cell.items()},
                                {c: paired.cell_draws(r, metric, out_of_bag=True) for c, r in every_cell.items()}, anchor)
    fresh = [f for f in shared if f != 1]  # the folds the screen did not choose by
    gain_c, cells_c = gain_on(observed, metric, anchor, fresh) if fresh else (float("nan"), 0)
    what = lambda cell: f"{cell.method} k={cell.freeze}" + ("" if cell.lr is None else f" {cell.lr:g}")
    print(f"| {name} | {len(observed)} | {what(best)} ({len(observed[best])} folds) | {state.means[best] - state.means[anchor]:+.3f} | "
          f"{0.0 if best == anchor else state.margin(best, anchor):.3f} | {'best' if answer == best and best != anchor else 'anchor'} | "
          f"{gain_a:+.3f} ({cells_a}) | {gain_b:+.3f} ({cells_b}, {len(shared)}) | {gain_c:+.3f} ({cells_c}, {len(fresh)}) | {gain_d:+.3f} | {test(anchor):.3f} | {test(best):.3f} |", flush=True)
