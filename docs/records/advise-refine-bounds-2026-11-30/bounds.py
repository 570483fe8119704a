"""Variants of make advise's policy, replayed as bench.advise_replay replays the policy itself: ways
to spend less on mpnet's flat landscape (#86's 16%), none kept. Each replaces one function of
study/policy.py for the replay; the replay's own table follows.

    .venv/bin/python docs/records/advise-refine-bounds-2026-11-30/bounds.py VARIANT GRID... --made MADE...

VARIANT, joined by '+':
    lazy    before any cell is in (5 seeds), refine is bounded by the cheapest cell in the band on
            the seeds it has: a skipped depth dearer than it waits until it is out
    best    the same, bounded by the best cell so far
    sure    the same, bounded by the cheapest cell whose mean less its rise (t x spread / sqrt(seeds))
            is in the band: in on its one seed even at its worst
    minus1  k = -1 waits until k = 0 of its method (a few percent dearer) could be the answer:
            refine runs it once the cheapest cell in the band costs at least k = 0
    rates   a rate beats its method's own only by more than the band and the noise of the two
            means (the rise x sqrt(1/seeds + 1/seeds)), not by the band alone
"""
import math
import os
import sys

sys.path.insert(0, os.getcwd())
from bench import advise_replay  # noqa: E402
from study import policy  # noqa: E402
from study.standing import Cell  # noqa: E402

plain_refine, plain_rates = policy.refine, policy.rate_search


def drop(state, observed, cell):
    """How far a cell's mean may still fall: its rise over the square root of its seeds."""
    return 0.0 if cell in state.repeats else state.rise / math.sqrt(len(observed[cell]))


def bound(variant, state, observed):
    """The cell a refine before any cell is in is bounded by (None: none, refine runs every depth)."""
    floor = state.means[state.best] - state.band
    if "lazy" in variant:
        return policy.by_cost(state, [cell for cell in state.means if state.means[cell] >= floor])[0]
    if "best" in variant:
        return state.best
    if "sure" in variant:
        sure = [cell for cell in state.means if state.means[cell] - drop(state, observed, cell) >= floor]
        return policy.by_cost(state, sure)[0] if sure else None
    return None


def refine_of(variant):
    def refine(space, observed, state, candidate):
        wanted = plain_refine(space, observed, state, candidate if candidate is not None else bound(variant, state, observed))
        if "minus1" in variant:
            def can_be_answer(cell):
                zero = Cell(cell.method, 0, cell.lr, cell.model)
                return candidate is not None and state.costs[candidate] >= state.costs.get(zero, 0)
            wanted = [cell for cell in wanted if cell.freeze != -1 or can_be_answer(cell)]
        return wanted
    return refine


def noisy_rates(space, observed, state):
    """policy.rate_search, with a rate's lead over the method's own read against their means' noise:
    where it is within it, the method's own rate stands (the line search stops there)."""
    hidden = {}
    for (model, name), depths in space.depths.items():
        mine = [cell for cell in state.means if (cell.model, cell.method) == (model, name)]
        if len(space.ladder[model, name]) < 2 or not mine:
            continue
        anchor = max(mine, key=lambda cell: state.means[cell])
        own = Cell(name, anchor.freeze, space.default_rate[model, name], model)
        if anchor.lr != own.lr and own in state.means:
            noise = state.rise * math.sqrt(1 / len(observed[anchor]) + 1 / len(observed[own]))
            if state.means[anchor] - state.means[own] <= max(state.band, noise):
                hidden[model, name] = True
    kept = replace_methods(space, hidden)
    return plain_rates(kept, observed, state) if kept is not space else plain_rates(space, observed, state)


def replace_methods(space, hidden):
    """The space less the methods whose line search stops (an empty ladder: no search)."""
    if not hidden:
        return space
    from dataclasses import replace
    return replace(space, ladder={key: ([] if key in hidden else rates) for key, rates in space.ladder.items()})


if __name__ == "__main__":
    variant = set(sys.argv[1].split("+"))
    policy.refine = refine_of(variant)
    if "rates" in variant:
        policy.rate_search = noisy_rates
    advise_replay.main(sys.argv[2:])
