"""make advise's search against its grid in wall clock, by the number of runs at once: the search's
own rounds (study/search/rounds.py, the answer "best", make advise's) on a clock, over the committed
grids' runs (study/search/clocked.py), beside the grid's every run at once on as many workers.
With the grids' own SetFit (the library's), and with SetFit fast's made runs in its place where the
grid has them (they hold two seeds a cell). Run from the project's top level:

    PYTHONPATH=. .venv/bin/python docs/records/search-width-2026-12-02/width.py
"""
import os

from study.search.clocked import clocked_replay
from study.search.replay import Made, grid_at

print("grid, n, the grid's longest run (minutes) | workers: the search's runs, its wall minutes against the grid's "
      "(the 2-core CPU's recorded seconds)")
for grid in ("sst2-minilm", "sst2-mpnet", "cola-minilm"):
    folder, made_folder = f"docs/results/{grid}/runs", f"docs/results/{grid}/made"
    for made in (None, Made((made_folder,))) if os.path.isdir(made_folder) else (None,):
        for size in (50, 200, 1000):
            row = []
            for jobs in (1, 2, 16):
                o = clocked_replay([folder], size, jobs, made)
                row.append(f"{jobs:2d}: {o['runs']} runs, {o['wall_seconds'] / 60:5.1f} against {o['grid_wall_seconds'] / 60:5.1f}"
                           + ("" if o["decided"] else " (undecided)"))
            longest = max(run["seconds"]["total"] for run in grid_at([folder], size)[0]) / 60
            setfit = "SetFit fast" if made else "SetFit    "
            print(f"{grid:11s} {setfit} {size:4d} {longest:5.1f} | " + " | ".join(row), flush=True)
