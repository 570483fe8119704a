"""How flat mpnet's landscape is where the search spends most (SST-2, n = 200, SetFit fast made):
after each cell's first seed, how many are out of the band (refine skips a depth only between two
cells out) and how many are within 0.010 of the best.

    .venv/bin/python docs/records/advise-refine-bounds-2026-11-30/flat.py [SIZE]
"""
import os
import sys

sys.path.insert(0, os.getcwd())
from study.replay import Made, replay  # noqa: E402
from study.standing import standing  # noqa: E402

size = int(sys.argv[1]) if len(sys.argv) > 1 else 200
outcome = replay(["docs/results/sst2-mpnet/runs"], size, float("inf"), made=Made(("docs/results/sst2-mpnet/made",)))
first_seeds = {cell: runs[:1] for cell, runs in outcome["observed"].items()}
state = standing(first_seeds, outcome["metric"], outcome["dev_size"])
best = state.means[state.best]
print(f"n = {size}: {len(first_seeds)} cells on their first seed, {len(state.out)} out of the band "
      f"(best {best:.3f} ± {state.band:.3f}), {sum(best - mean <= 0.010 for mean in state.means.values())} within 0.010 of the best")
