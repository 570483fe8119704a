"""Three answers read alike by BBC at a search's end, on the same 1,000 draws of the dev split:
always the anchor (SetFit fast's defaults), always the best cell (made again on each draw's in-bag
examples), and make advise's rule (the best unless within its margin of the anchor); beside the
test file's scores of the anchor and the best (every run scored it as it ended). A classification
search of minilm's depths. Run from the project's root:

    .venv/bin/python docs/records/advise-clinc-n300-2026-12-06/bbc_rules.py FOLDER:SIZE:DEV_EXAMPLES ...
"""
import math
import statistics
import sys

import numpy as np

sys.path.insert(0, ".")
from study import paired  # noqa: E402
from study.search.asked import SEARCHED  # noqa: E402
from study.search.search_folder import read_folder  # noqa: E402
from study.search.space import space_for  # noqa: E402
from study.search.standing import anchor_of, examples_of, standing  # noqa: E402

for spec in sys.argv[1:]:
    folder, size, dev_size = spec.split(":")
    space = space_for(int(size), 6, [6, 5, 4, 3, 2, 1, 0, -1], SEARCHED)
    every, observed, metric = read_folder(folder, int(size), space)
    state, anchor = standing(observed, metric, int(dev_size)), anchor_of(space)
    cells = {cell: examples_of(runs) for cell, runs in observed.items() if runs}
    in_bag = {cell: paired.cell_draws(runs, metric) for cell, runs in cells.items()}
    out_of_bag = {cell: paired.cell_draws(runs, metric, out_of_bag=True) for cell, runs in cells.items()}
    read = lambda chosen: np.array([out_of_bag[cell][i] for i, cell in enumerate(chosen)])
    margins = {cell: state.margin(cell, anchor) if cell != anchor else 0.0 for cell in cells}
    kept, best_rule = out_of_bag[anchor], read(paired.highest(in_bag))
    advise_rule = read(paired.highest_unless_near(in_bag, anchor, margins))
    gain = best_rule - kept
    tests = {}
    for run in every:
        c = run["config"]
        tests.setdefault((c["method"], c["freeze"], c["lr"]), []).append(run["test_at_score"][metric])
    test = lambda cell: statistics.mean(tests[(cell.method, cell.freeze, cell.lr)])
    best = state.best
    print(f"{folder}: lead on dev {state.means[best] - state.means[anchor]:+.4f} | BBC: the anchor {kept.mean():.4f}, "
          f"the best {best_rule.mean():.4f}, advise's rule {advise_rule.mean():.4f}; the best less the anchor "
          f"{gain.mean():+.4f} ± {gain.std(ddof=1) / math.sqrt(math.e):.4f} | test: the anchor {test(anchor):.4f}, "
          f"the best ({best.method} k={best.freeze}) {test(best):.4f}, {test(best) - test(anchor):+.4f}")
