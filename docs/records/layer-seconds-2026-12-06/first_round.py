"""One search's first screen round (its probe the only run before it): each run priced by its
checkpoint's layer_seconds (study/search/space.py) and by the rule before (PROBE_TO_TRAINED times
the probe's seconds a layer), against what it took, and the round's sums.

    .venv/bin/python docs/records/layer-seconds-2026-12-06/first_round.py OUT/new/runs
"""
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "expected-seconds-2026-12-06"))
import estimates  # noqa: E402
import methods  # noqa: E402
from study.search.asked import SEARCHED  # noqa: E402
from study.search import space as sp  # noqa: E402
from study.search.search_folder import runs_by_cell  # noqa: E402

folder = sys.argv[1]
rows = estimates.runs_in_order(folder)
probed = {cell: [(0.0, s)] for _, cell, s in rows if methods.get(cell.method).every_layer_frozen}
every = sp.space_for(200, 6, [-1, 0, 2, 4, 6], SEARCHED, lambda cell: True)  # minilm at n = 200
timed = sp.with_layer_seconds(every, runs_by_cell(folder, 200, every))
sums = [0.0, 0.0, 0.0]
for _, cell, s in [row for row in rows if row[0] == 1]:  # the round after the first run
    now, before = sp.expected_seconds(cell, probed, timed), sp.expected_seconds(cell, probed, every)
    sums = [sums[0] + now, sums[1] + before, sums[2] + s]
    print(f"{cell.method:12s} k = {cell.freeze:2d}  now {now:6.1f}  before {before:6.1f}  took {s:6.1f}")
print("first round, sum: now %.0f, before %.0f, took %.0f" % tuple(sums))
