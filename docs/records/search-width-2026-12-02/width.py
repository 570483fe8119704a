"""make advise's search against its grid in wall clock, by the number of runs at once: the policy
replayed (study/search/replay.py, the answer "best", make advise's) over the committed grids' runs,
each round's runs handed to `jobs` workers longest first, a round after another; the grid's every
run at once on as many. The grids' own SetFit (the library's) stands in for SetFit fast, whose made
runs these folders lack at 16 workers. Run from the project's top level:

    PYTHONPATH=. .venv/bin/python docs/records/search-width-2026-12-02/width.py
"""
from study.search.replay import grid_at, replay

print("grid, n, the grid's longest run (minutes) | workers: the search's runs, its wall minutes against the grid's "
      "(the 2-core CPU's recorded seconds)")
for grid in ("sst2-minilm", "sst2-mpnet", "cola-minilm"):
    for size in (50, 200, 1000):
        row = []
        for jobs in (1, 2, 16):
            o = replay([f"docs/results/{grid}/runs"], size, jobs=jobs, prefer="best")
            row.append(f"{jobs:2d}: {o['runs']} runs, {o['wall_seconds'] / 60:5.1f} against {o['grid_wall_seconds'] / 60:5.1f}"
                       + ("" if o["decided"] else " (undecided)"))
        longest = max(run["seconds"]["total"] for run in grid_at([f"docs/results/{grid}/runs"], size)[0]) / 60
        print(f"{grid:11s} {size:4d} {longest:5.1f} | " + " | ".join(row), flush=True)
