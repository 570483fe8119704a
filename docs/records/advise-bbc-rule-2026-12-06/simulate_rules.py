"""The two rules on made-up searches whose truth is known: an anchor and 30 cells, each a classifier
right on a random share of 400 dev examples (independent across cells: more luck to the maximum
than a real search's cells, which share most predictions). Per case, over TRIALS searches: how
often each rule leaves the anchor, and the true score its answer gains over the anchor's.
Run from the project's root:

    .venv/bin/python docs/records/advise-bbc-rule-2026-12-06/simulate_rules.py
"""
import math
import sys

import numpy as np

sys.path.insert(0, ".")
import result  # noqa: E402
from study import paired  # noqa: E402

TRIALS, SIZE = 200, 400


def one_search(rng, anchor_share, others, winner):
    truth = rng.integers(0, 2, SIZE)
    shares = [anchor_share] + [0.70] * others + ([winner] if winner else [])
    cells = {i: [paired.Examples(result.Outputs(truth, np.where(rng.random(SIZE) < share, truth, 1 - truth), None), 2)]
             for i, share in enumerate(shares)}
    dev = {i: float(np.mean(runs[0].outputs.predicted == truth)) for i, runs in cells.items()}
    best = max(dev, key=dev.get)
    if best == 0:
        return 0.0, 0.0, False, False
    d = (cells[best][0].outputs.predicted == truth).astype(float) - (cells[0][0].outputs.predicted == truth)
    told_apart = dev[best] - dev[0] > 2 * math.sqrt(d.var(ddof=1) / SIZE)  # one seed a cell: the examples' share alone
    gains = paired.gain_over(cells, "accuracy", 0) > 0
    return (shares[best] - anchor_share) * told_apart, (shares[best] - anchor_share) * gains, told_apart, gains


rng = np.random.default_rng(0)
print("| case | the rule before: leaves the anchor | its true gain | today's rule: leaves the anchor | its true gain |")
print("|---|---|---|---|---|")
for label, anchor_share, others, winner in (("the anchor 0.72, 30 cells 0.70", 0.72, 30, None),
                                            ("the anchor 0.70, 30 cells 0.70", 0.70, 30, None),
                                            ("the anchor 0.70, 29 cells 0.70, one 0.73", 0.70, 29, 0.73),
                                            ("the anchor 0.70, 29 cells 0.70, one 0.76", 0.70, 29, 0.76)):
    runs = np.array([one_search(rng, anchor_share, others, winner) for _ in range(TRIALS)], dtype=float)
    print(f"| {label} | {runs[:, 2].mean():.2f} | {runs[:, 0].mean():+.4f} | {runs[:, 3].mean():.2f} | {runs[:, 1].mean():+.4f} |", flush=True)
