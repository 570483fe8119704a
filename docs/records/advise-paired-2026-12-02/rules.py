"""The answer's rule replayed over one task's runs (the search's and the baselines'), with today's
code: the pick, its seeds' mean on the test file, its honest score (run from the repository root)."""
import os, shutil, sys
import numpy as np
sys.path.insert(0, os.getcwd())
import methods
from study import policy
from study.replay import replay
from study.advise_report import honest_of
from study.folder import load_results
from study.standing import Cell

name, size, metric = sys.argv[1], int(sys.argv[2]), sys.argv[3]
merged = f"/tmp/q/{name}-merged"
shutil.rmtree(merged, ignore_errors=True); os.makedirs(merged)
for part in ("results", "baselines"):
    folder = f"/tmp/q/{name}-new/{part}"
    for f in os.listdir(folder) if os.path.isdir(folder) else []:
        if f.endswith(".json") and not os.path.exists(f"{merged}/{f}"):
            shutil.copy(f"{folder}/{f}", merged)
runs = load_results(merged, figure="score")
for prefer in ("best", "cost"):
    out = replay(merged, size, prefer=prefer)
    pick = Cell(out["pick"]["method"], out["pick"]["freeze"], out["pick"]["lr"])
    tests = [r["test_at_score"][metric] for r in runs if Cell.of(r["config"]) == pick]
    searched = [method.name for method in methods.METHODS if method.searched]  # make advise's methods
    space = policy.replace(policy.space_for(size, 6, list(range(-1, 7)), searched), prefer=prefer)
    honest = honest_of(space, out["observed"], metric, out["dev_size"], pick)
    print(f"{name} {prefer}: {pick.method} k={pick.freeze} lr={pick.lr} | test {np.mean(tests):.3f} ({len(tests)} seeds) | "
          f"honest {honest.score:.3f} ± {honest.error:.3f} | decided {out['decided']} | runs {out['runs']}, {out['seconds'] / 60:.1f} min of runs")
