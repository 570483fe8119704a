"""What a search expects a run to cost against what it took, over the searches recorded with their runs:
the rule of study/search/space.py (expected_seconds) against the one before it (old.py).

    .venv/bin/python docs/records/expected-seconds-2026-12-06/estimates.py $(dirname $(grep -l . docs/records/*/*/advise.rounds))

- in the search: each run of a work (checkpoint, method, depth) no run of which had ended before its
  round, estimated from the runs of the rounds before (the rounds as advise.rounds lists them);
  the first screen round's apart (the probe the only run of its checkpoint);
- at the end: each work estimated from every other work's runs (what the report's grid cost reads).
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import methods  # noqa: E402
import old  # noqa: E402
from study.search import space as sp  # noqa: E402
from study.search.standing import Cell, same_work  # noqa: E402


def runs_in_order(folder):
    """[(round index, Cell, seconds)] of a search's runs, in its rounds' order (kept models' runs left out)."""
    rows = []
    for i, line in enumerate(open(os.path.join(folder, "advise.rounds"))):
        for rel in json.loads(line)["runs"]:
            if os.path.exists(os.path.join(folder, rel)) and "kept" not in rel:
                run = json.load(open(os.path.join(folder, rel)))
                rows.append((i, Cell.of(run["config"], os.path.dirname(rel)), run["seconds"]["total"]))
    return rows


def space_of(cells):
    depths = {}
    for cell in cells:
        depths.setdefault((cell.model, cell.method), set()).add(cell.freeze)
    return sp.Space(depths={key: sorted(ks) for key, ks in depths.items()}, default_rate={}, ladder={}, available=None)


def scored_a_test_file(folder):
    """Whether the search's runs scored a test file (its texts go through the probe's prefix too)."""
    return any(json.load(open(os.path.join(root, name)))["config"].get("test_file")
               for root, _, names in os.walk(folder) for name in names if name.endswith("_probe.json"))


def in_search(folder, estimate):
    """[(estimate, seconds, whether the checkpoint's probe was its only run)] of each new work's first runs."""
    rows, observed = runs_in_order(folder), {}
    space, out = space_of([cell for _, cell, _ in rows]), []
    for i in sorted({i for i, _, _ in rows}):
        this = [(cell, s) for j, cell, s in rows if j == i]
        for cell, s in this:
            if observed and not any(same_work(other) == same_work(cell) for other in observed):
                probes_only = all(methods.get(o.method).every_layer_frozen for o in observed if o.model == cell.model)
                out.append((estimate(cell, observed, space), s, probes_only))
        for cell, s in this:
            observed.setdefault(cell, []).append((0.0, s))
    return out


def at_the_end(folder, estimate):
    """[(estimate, seconds)] of each work from every other work's runs."""
    rows = runs_in_order(folder)
    space, observed = space_of([cell for _, cell, _ in rows]), {}
    for _, cell, s in rows:
        observed.setdefault(cell, []).append((0.0, s))
    out = []
    for work in {same_work(cell) for cell in observed}:
        others = {cell: runs for cell, runs in observed.items() if same_work(cell) != work}
        cell = next(cell for cell in observed if same_work(cell) == work)
        out.append((estimate(cell, others, space), float(np.median([s for c, runs in observed.items()
                                                                    if same_work(c) == work for _, s in runs]))))
    return out


def summary(pairs):
    """log2(estimate / seconds) of runs over 5 s: median, mean of its size, 10th and 90th percentiles; the sums' ratio."""
    pairs = [(e, s) for e, s in pairs if s > 5 and e > 0]
    logs = np.log2([e / s for e, s in pairs])
    return (f"{len(pairs):4d} runs  median {np.median(logs):+.2f}  mean |.| {np.mean(np.abs(logs)):.2f}  "
            f"p10 {np.percentile(logs, 10):+.2f}  p90 {np.percentile(logs, 90):+.2f}  sum {sum(e for e, _ in pairs) / sum(s for _, s in pairs):.2f}")


if __name__ == "__main__":
    folders = [f for f in sys.argv[1:] if runs_in_order(f)]  # a search whose runs lie elsewhere: none here
    print(f"{len(folders)} searches; log2(expected / real seconds), runs over 5 s")
    for name, estimate in (("before", old.expected_seconds), ("now", sp.expected_seconds)):
        rows = [row for f in folders for row in in_search(f, estimate)]
        print(f"{name:6s} in the search, first screen round: {summary([(e, s) for e, s, first in rows if first])}")
        for tested in (False, True):
            some = [row for f in folders if scored_a_test_file(f) == tested for row in in_search(f, estimate)]
            print(f"{name:6s}   of searches {'with' if tested else 'without'} a test file:  "
                  f"{summary([(e, s) for e, s, first in some if first])}")
        print(f"{name:6s} in the search, later rounds:       {summary([(e, s) for e, s, first in rows if not first])}")
        print(f"{name:6s} at the end, each work from the rest: {summary([p for f in folders for p in at_the_end(f, estimate)])}")
