"""clocked_replay at 1 worker against replay.py: the same runs in the same order, per grid-size."""
import os
from study.search.clocked import clocked_replay
from study.search.replay import Made, replay
key = lambda order: [(cell.method, cell.freeze, cell.lr, seed) for cell, seed, *_ in order]
same = total = 0
for grid in ("sst2-minilm", "sst2-mpnet", "cola-minilm"):
    folder, made_folder = f"docs/results/{grid}/runs", f"docs/results/{grid}/made"
    for made in (None, Made((made_folder,))) if os.path.isdir(made_folder) else (None,):
        for size in (50, 200, 1000):
            c, r = clocked_replay([folder], size, 1, made), replay([folder], size, jobs=1, made=made, prefer="best")
            total += 1; same += key(c["order"])[:len(r["order"])] == key(r["order"])
            pick = c["pick"]
            print(grid, "fast" if made else "lib", size, key(c["order"])[:len(r["order"])] == key(r["order"]), r["missing"][:1],
                  dict(method=pick.method, freeze=pick.freeze, lr=pick.lr) == r["pick"])
print(same, "of", total)
