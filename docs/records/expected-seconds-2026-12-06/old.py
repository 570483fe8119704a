"""space.expected_seconds and prior_cost as they were before this record (c0108653)."""
import numpy as np
import methods
from study.search.standing import same_work
from study.search.space import deepest


FACTOR_BEFORE = {3.0: 2.0}  # the one cost_factor the change moved (SetFit fast's), as it was


def prior_cost(cell, space):
    if methods.get(cell.method).every_layer_frozen:
        return 0.5
    factor = FACTOR_BEFORE.get(methods.get(cell.method).cost_factor, methods.get(cell.method).cost_factor)
    return (deepest(space, cell.model) - max(cell.freeze, 0) + 1) * factor


def expected_seconds(cell, observed, space):
    seconds = [s for other, runs in observed.items() if same_work(other) == same_work(cell) for _, s, *_ in runs]
    if seconds:
        return float(np.median(seconds))
    per_unit = lambda mine: [s / prior_cost(other, space) for other, runs in observed.items()
                             if not mine or other.model == cell.model for _, s, *_ in runs]
    timed = per_unit(True) or per_unit(False)
    return prior_cost(cell, space) * float(np.median(timed)) if timed else 0.0
