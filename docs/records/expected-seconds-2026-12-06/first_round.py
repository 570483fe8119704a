"""The first screen round of one search (its probe the only run before it): each run priced by the
rule of study/search/space.py and by the one before (old.py), against what it took.

    .venv/bin/python docs/records/expected-seconds-2026-12-06/first_round.py OUT/new/runs
"""
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import estimates  # noqa: E402
import methods  # noqa: E402
import old  # noqa: E402
from study.search import space as sp  # noqa: E402

rows = estimates.runs_in_order(sys.argv[1])
space = estimates.space_of([cell for _, cell, _ in rows])
probed = {cell: [(0.0, s)] for _, cell, s in rows if methods.get(cell.method).every_layer_frozen}
sums = [0.0, 0.0, 0.0]
for _, cell, s in [row for row in rows if row[0] == 1]:  # the round after the first run
    now, before = sp.expected_seconds(cell, probed, space), old.expected_seconds(cell, probed, space)
    sums = [sums[0] + now, sums[1] + before, sums[2] + s]
    print(f"{cell.method:12s} k = {cell.freeze:2d}  now {now:6.1f}  before {before:6.1f}  took {s:6.1f}")
print("sum: now %.0f, before %.0f, took %.0f" % tuple(sums))
