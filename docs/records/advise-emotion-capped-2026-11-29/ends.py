"""Tried, not kept: the screen without the least frozen depth (-1) where every other depth reaches 0,
that end run later only while its neighbour could be the best. At 51bf807:
    PYTHONPATH=. .venv/bin/python docs/records/advise-cap-2026-11-29/ends.py plain ends   (output: ends.txt)."""
import math, sys
from study import standing, policy
from study.replay import replay
from study.standing import Cell
orig_coarse, orig_refine = policy.coarse, policy.refine
def coarse(depths):
    ordered = sorted(depths, reverse=True)
    return sorted(set(ordered[::2]) | ({ordered[-1]} if ordered[::2][-1] != 0 else set()))
def refine(space, observed, state, candidate):
    wanted = orig_refine(space, observed, state, candidate)
    for (model, name), depths in space.depths.items():
        ordered = sorted(depths)
        if len(ordered) < 3 or ordered[0] != -1:
            continue
        end, nxt = (Cell(name, k, space.default_rate[model, name], model=model) for k in ordered[:2])
        if not observed.get(end) and space.available(end) and observed.get(nxt) and nxt not in state.out \
                and state.reach(nxt, len(observed[nxt])) >= state.means[state.best]:
            wanted.append(end)
    return wanted
grids = ["docs/results/sst2-minilm/runs", "docs/results/cola-minilm/runs", "docs/results/sst2-mpnet/runs"]
for MODE in sys.argv[1:]:
    policy.coarse, policy.refine = (orig_coarse, orig_refine) if MODE == "plain" else (coarse, refine)
    line = [MODE]
    for g in grids:
        spent = total = 0.0; inband = 0; n = 0; dec = 0
        for size in (50, 100, 200, 500, 1000):
            o = replay(g, size)
            spent += o["seconds"]; total += o["grid_seconds"]; n += 1
            inband += o["same"]; dec += o["decided"]
        line.append(f"{g.split('/')[2]} {100*spent/total:.1f}% same {inband}/{n} dec {dec}")
    for folder in ("docs/records/advise-emotion-testfile-2026-11-29/runs", "docs/records/advise-emotion-2026-11-29/runs"):
        o = replay(folder, 200, jobs=2)
        line.append(f"{folder.split('/')[2][15:26]} {o['runs']}/{o['grid_runs']} {o['seconds']:.0f}s wall {o['wall_seconds']:.0f} pick k={o['pick']['freeze']} {o['pick']['lr']} dec={o['decided']}")
    print(" | ".join(line), flush=True)
