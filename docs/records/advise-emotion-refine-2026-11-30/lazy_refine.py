"""The variant not kept: before any cell is in (5 seeds), refine bounded by the cheapest cell in
the band on whatever seeds it has, so a depth dearer than a cheap cell in the band waits until
that cell is out (policy.refine takes None there, and then any depth). The replay's own table.

    .venv/bin/python docs/records/advise-emotion-refine-2026-11-30/lazy_refine.py GRID... [--made MADE...]
"""
import os
import sys

sys.path.insert(0, os.getcwd())
from bench import advise_replay  # noqa: E402
from study import policy  # noqa: E402

plain = policy.refine


def in_band_now(state):
    floor = state.means[state.best] - state.band
    return policy.by_cost(state, [cell for cell in state.means if state.means[cell] >= floor])[0]


def lazy(space, observed, state, candidate):
    return plain(space, observed, state, candidate if candidate is not None else in_band_now(state))


policy.refine = lazy
advise_replay.main(sys.argv[1:])
