"""Would more seeds of the anchor (SetFit fast's defaults) have told it from the best cell? For each
make advise folder, at the search's end: the best's lead over the anchor on the dev split, the
margin that tells them apart now (Standing.margin), and the margin with the anchor at PICK_SEEDS
seeds (the examples' share as measured, the seeds' share at 5 seeds each), beside Standing.settled.
A lead between the two would have been a case for more seeds. Run from the project's root:

    .venv/bin/python docs/records/advise-clinc-n300-2026-12-06/anchor_window.py FOLDER:SIZE:DEV_EXAMPLES ...
"""
import math
import sys

sys.path.insert(0, ".")
from study.paired import paired_error  # noqa: E402
from study.search.asked import SEARCHED  # noqa: E402
from study.search.search_folder import read_folder  # noqa: E402
from study.search.space import space_for  # noqa: E402
from study.search.standing import PICK_SEEDS, Z_OUT, anchor_of, examples_of, standing  # noqa: E402

for spec in sys.argv[1:]:
    folder, size, dev_size = spec.split(":")
    space = space_for(int(size), 6, [6, 5, 4, 3, 2, 1, 0, -1], SEARCHED)  # minilm's depths
    _, observed, metric = read_folder(folder, int(size), space)
    state = standing(observed, metric, int(dev_size))
    anchor, best = anchor_of(space), state.best
    if anchor not in state.means or anchor == best:
        print(f"{folder}: the anchor is the best, or did not run")
        continue
    examples = paired_error(examples_of(state.runs[best]), examples_of(state.runs[anchor]), metric)
    seeds_at_most = state.train_std ** 2 * (1 / PICK_SEEDS + 1 / max(state.counts[best], PICK_SEEDS))
    print(f"{folder}: best {best.method} k={best.freeze} {best.lr:g} ({state.counts[best]} seeds), anchor "
          f"({state.counts[anchor]}) | lead {state.means[best] - state.means[anchor]:.4f} | margin now "
          f"{state.margin(best, anchor):.4f}, at {PICK_SEEDS} seeds {Z_OUT * math.sqrt(examples ** 2 + seeds_at_most):.4f} "
          f"| settled {state.settled(anchor)}")
