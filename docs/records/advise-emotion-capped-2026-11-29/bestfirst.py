"""Tried, not kept: the best cell's second seed before the in/out step (a best read on one seed is
the luckiest of many cells, and sets the band's floor too high). Replays over the three grids and
emotion's two folders, at 51bf807:
    PYTHONPATH=. .venv/bin/python docs/records/advise-cap-2026-11-29/bestfirst.py plain bestfirst
(output: bestfirst.txt)."""
import math, sys
from study import standing, policy
from study.replay import replay
from study.standing import PRIOR_SEED_STD, Z_OUT, PICK_SEEDS
orig_next = policy.next_runs
def next_runs(space, observed, metric, dev_size, jobs=1):
    first = policy.screen(space, observed)
    if first:
        return policy.Round("screen", first)
    state = standing.standing(observed, metric, dev_size)
    rates = policy.rate_search(space, observed, state)
    if rates:
        return policy.Round("rates", rates)
    candidate, cheaper_open = policy.cheapest_in(state, space)
    skipped = policy.refine(space, observed, state, candidate)
    if skipped:
        return policy.Round("refine", skipped)
    b = state.best
    if MODE == "bestfirst" and len(observed[b]) < policy.BEST_SEEDS and b not in state.repeats and space.available(b) and cheaper_open:
        return policy.filled(policy.Round("best", [b]), jobs, observed, space, lambda cell: policy.BEST_SEEDS)
    if cheaper_open:
        return policy.filled(policy.Round("in/out", cheaper_open[:max(jobs, 1)]), jobs, observed, space, lambda cell: PICK_SEEDS)
    return policy.filled(policy.Round("best", policy.unfixed_best(state, observed, space, candidate)), jobs, observed, space,
                  lambda cell: policy.best_seeds(cell, state, candidate))
policy.next_runs = next_runs
grids = ["docs/results/sst2-minilm/runs", "docs/results/cola-minilm/runs", "docs/results/sst2-mpnet/runs"]
for MODE in sys.argv[1:]:
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
