"""Tried, not kept: two changes to the search's policy, each replayed over the three grids and
emotion's two earlier folders (code at a460227):

    bestfirst  the best cell's second seed before the in/out step (a best read on one seed is the
               luckiest of many cells, and sets the band's floor too high)
    ends       the screen without the least frozen depth (-1) where every other depth reaches 0,
               that end run later only while its neighbour could be the best

    PYTHONPATH=. .venv/bin/python docs/records/advise-emotion-capped-2026-11-29/levers.py plain bestfirst ends
(output: levers.txt)."""
import sys

from study import policy, standing
from study.replay import replay
from study.standing import PICK_SEEDS, Cell

plain_next, plain_coarse, plain_refine = policy.next_runs, policy.coarse, policy.refine


def best_first(space, observed, metric, dev_size, jobs=1):
    state = standing.standing(observed, metric, dev_size)
    if not policy.screen(space, observed) and not policy.rate_search(space, observed, state):
        candidate, cheaper_open = policy.cheapest_in(state, space)
        best = state.best
        if not policy.refine(space, observed, state, candidate) and cheaper_open and best not in state.repeats \
                and len(observed[best]) < policy.BEST_SEEDS and space.available(best):
            return policy.filled(policy.Round("best", [best]), jobs, observed, space, lambda cell: policy.BEST_SEEDS)
    return plain_next(space, observed, metric, dev_size, jobs)


def coarse_without_end(depths):
    ordered = sorted(depths, reverse=True)
    return sorted(set(ordered[::2]) | ({ordered[-1]} if ordered[::2][-1] != 0 else set()))


def refine_with_end(space, observed, state, candidate):
    wanted = plain_refine(space, observed, state, candidate)
    for (model, name), depths in space.depths.items():
        ordered = sorted(depths)
        if len(ordered) < 3 or ordered[0] != -1:
            continue
        end, neighbour = (Cell(name, k, space.default_rate[model, name], model=model) for k in ordered[:2])
        if not observed.get(end) and space.available(end) and observed.get(neighbour) and neighbour not in state.out \
                and state.reach(neighbour, len(observed[neighbour])) >= state.means[state.best]:
            wanted.append(end)
    return wanted


GRIDS = ["docs/results/sst2-minilm/runs", "docs/results/cola-minilm/runs", "docs/results/sst2-mpnet/runs"]
EMOTION = ["docs/records/advise-emotion-testfile-2026-11-29/runs", "docs/records/advise-emotion-2026-11-29/runs"]
for mode in sys.argv[1:]:
    policy.next_runs = best_first if mode == "bestfirst" else plain_next
    policy.coarse, policy.refine = (coarse_without_end, refine_with_end) if mode == "ends" else (plain_coarse, plain_refine)
    line = [mode]
    for grid in GRIDS:
        outcomes = [replay(grid, size) for size in (50, 100, 200, 500, 1000)]
        share = sum(o["seconds"] for o in outcomes) / sum(o["grid_seconds"] for o in outcomes)
        line.append(f"{grid.split('/')[2]} {share:.1%} same pick as the grid {sum(o['same'] for o in outcomes)}/5")
    for folder in EMOTION:
        o = replay(folder, 200, jobs=2)
        line.append(f"{folder.split('/')[2]} {o['runs']}/{o['grid_runs']} runs {o['seconds']:.0f} s, "
                    f"wall {o['wall_seconds']:.0f} s, pick k={o['pick']['freeze']} {o['pick']['lr']}, decided {o['decided']}")
    print(" | ".join(line), flush=True)
