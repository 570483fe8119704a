"""One search's runs on the clock at 16 workers (study/search/clocked.py): when each started and
ended, and how many workers the search kept busy, on average, in each quarter of its wall clock.
SST-2, mpnet, n = 200, SetFit fast's made runs in place of the library's SetFit. Run from the
project's top level:

    PYTHONPATH=. .venv/bin/python docs/records/search-width-2026-12-02/timeline.py
"""
from study.search.clocked import clocked_replay
from study.search.replay import Made

outcome = clocked_replay(["docs/results/sst2-mpnet/runs"], 200, 16, Made(("docs/results/sst2-mpnet/made",)))
spans = sorted((started, ended, cell, seed) for cell, seed, started, ended in outcome["order"])
print("started ended (minutes)  method, k, rate, seed")
for started, ended, cell, seed in spans:
    print(f"{started / 60:6.1f} {ended / 60:6.1f}   {cell.method}, k = {cell.freeze}, {cell.lr}, seed {seed}")
wall = outcome["wall_seconds"]
for quarter in range(4):
    a, b = wall * quarter / 4, wall * (quarter + 1) / 4
    busy = sum(max(0.0, min(b, ended) - max(a, started)) for started, ended, *_ in spans) / (b - a)
    print(f"quarter {quarter + 1} ({a / 60:.1f}-{b / 60:.1f} min): {busy:.1f} of 16 workers busy on average")
print(f"pick: {outcome['pick']}, {outcome['runs']} runs, {wall / 60:.1f} minutes")
