"""make advise's search on a clock (study/search/clocked.py) over the committed grids' runs, at 2 and 16
workers: each grid-size's pick, wall minutes, run-minutes and runs, as JSON. width.py's cases
(docs/records/search-width-2026-12-02/). Run from the project's top level:

    PYTHONPATH=. .venv/bin/python docs/records/search-ahead-2026-12-03/cases.py OUT.json
"""
import json
import os
import sys

from study.search.clocked import clocked_replay
from study.search.replay import Made

cases = []
for grid in ("sst2-minilm", "sst2-mpnet", "cola-minilm"):
    folder, made_folder = f"docs/results/{grid}/runs", f"docs/results/{grid}/made"
    for made in (None, Made((made_folder,))) if os.path.isdir(made_folder) else (None,):
        for size in (50, 200, 1000):
            for jobs in (2, 16):
                o = clocked_replay([folder], size, jobs, made)
                pick = o["pick"]
                cases.append(dict(case=f"{grid} {'SetFit fast' if made else 'SetFit'} {size} j{jobs}",
                                  pick=f"{pick.method} k={pick.freeze} {pick.lr}", decided=o["decided"], runs=o["runs"],
                                  wall=round(o["wall_seconds"] / 60, 2), spent=round(o["seconds"] / 60, 2)))
with open(sys.argv[1], "w") as f:
    json.dump(cases, f, indent=0)
