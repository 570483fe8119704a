"""Replays with the prior spread counted as dof0 seeds' worth (a scaled inverse chi-square prior), seed_std
monkeypatched: PYTHONPATH=. .venv/bin/python docs/records/advise-emotion-testfile-2026-11-29/prior_dof.py 1 2 4 10
(code at 2482646; "same": the pick equals the grid's answer; the emotion folders replayed at jobs 2)."""
import math, sys
import numpy as np
from study import standing
from study.replay import replay
from study.standing import PRIOR_SEED_STD, repeats_itself
orig = standing.seed_std

def with_prior(dof0):
    def seed_std(observed):
        groups = [np.array([s for s, _ in runs]) for runs in observed.values() if len(runs) > 1 and not repeats_itself(runs)]
        freedom = sum(len(g) - 1 for g in groups)
        ss = sum(((g - g.mean()) ** 2).sum() for g in groups)
        if not freedom:
            return PRIOR_SEED_STD, 0
        return math.sqrt((dof0 * PRIOR_SEED_STD ** 2 + ss) / (dof0 + freedom)), dof0 + freedom
    return seed_std

grids = ["docs/results/sst2-minilm/runs", "docs/results/cola-minilm/runs", "docs/results/sst2-mpnet/runs"]
for dof0 in [None] + [int(a) for a in sys.argv[1:]]:
    standing.seed_std = orig if dof0 is None else with_prior(dof0)
    line = [f"dof0={dof0}"]
    for g in grids:
        spent = total = 0.0; inband = 0; n = 0
        for size in (50, 100, 200, 500, 1000):
            try:
                o = replay(g, size)
            except ValueError:
                continue
            spent += o["seconds"]; total += o["grid_seconds"]; n += 1
            inband += o["same"]
        line.append(f"{g.split('/')[2]} {100*spent/total:.1f}% same {inband}/{n}")
    for folder in ("docs/records/advise-emotion-testfile-2026-11-29/runs", "docs/records/advise-emotion-2026-11-29/runs"):
        o = replay(folder, 200, jobs=2)
        line.append(f"{folder.split('/')[2][:26]} {o['runs']}/{o['grid_runs']} {o['seconds']:.0f}s pick k={o['pick']['freeze']} {o['pick']['method']} decided={o['decided']}")
    print(" | ".join(line), flush=True)
