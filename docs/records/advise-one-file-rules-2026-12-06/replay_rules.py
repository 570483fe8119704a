"""make advise's answer over one file's folds, two ways, replayed over finished one-file searches:
the margin (make advise's: the best unless Standing.apart does not tell it from the anchor) and the
gain out of bag on the folds the best and the anchor share, among the cells that ran them
(standing.answer_of and Standing.gain_over at d368050, where this runs; reverted in 6533375). Each
answer's test score is the mean of its cell's fold runs on the search's TEST_FILE (no choice read
it); the honest score is advise_report.honest_of's, the gain's rule replayed inside each bootstrap
draw. Run from the project's root, at d368050:

    .venv/bin/python docs/records/advise-one-file-rules-2026-12-06/replay_rules.py NAME:FOLDER:SIZE ...
"""
import statistics
import sys
import time
from dataclasses import replace

sys.path.insert(0, ".")
from study import paired  # noqa: E402
from study.search.advise_report import honest_of  # noqa: E402
from study.search.asked import SEARCHED  # noqa: E402
from study.search.search_folder import read_folder  # noqa: E402
from study.search.space import space_for  # noqa: E402
from study.search.standing import anchor_of, answer_of, examples_of, standing  # noqa: E402

print("| search | cells | best on the folds (its folds) | lead | margin | gain on shared folds (cells) | margin's answer | gain's answer | "
      "defaults' test | best's test | margin: answer - defaults | gain: answer - defaults | honest (gain's rule) | s |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for spec in sys.argv[1:]:
    name, folder, size = spec.split(":")
    space = replace(space_for(int(size), 6, [6, 5, 4, 3, 2, 1, 0, -1], SEARCHED), prefer="best")  # make advise's own
    every, observed, metric = read_folder(folder, int(size), space)
    state, anchor = standing(observed, metric, every[0]["dev_size"]), anchor_of(space)
    best = state.best
    by_margin = best if best == anchor or state.apart(best, anchor) else anchor
    by_gain = answer_of(state, space)
    tests = {}
    for run in every:
        c = run["config"]
        tests.setdefault((c["method"], c["freeze"], c["lr"]), []).append(run["test_at_score"][metric])
    test = lambda cell: statistics.mean(tests[(cell.method, cell.freeze, cell.lr)])
    gain = 0.0 if best == anchor else state.gain_over(anchor)
    among = len(paired.shared_reading({cell: examples_of(runs) for cell, runs in observed.items() if runs}, anchor, best))
    start = time.time()
    honest = honest_of(space, observed, metric, every[0]["dev_size"], by_gain)
    seconds = time.time() - start
    what = lambda cell: f"{cell.method} k={cell.freeze}" + ("" if cell.lr is None else f" {cell.lr:g}")
    which = lambda cell: "defaults" if cell == anchor else "best"
    print(f"| {name} | {len(observed)} | {what(best)} ({len(observed[best])}) | {state.means[best] - state.means[anchor]:+.3f} | "
          f"{0.0 if best == anchor else state.margin(best, anchor):.3f} | {gain:+.3f} ({among}) | {which(by_margin)} | {which(by_gain)} | "
          f"{test(anchor):.3f} | {test(best):.3f} | {test(by_margin) - test(anchor):+.3f} | {test(by_gain) - test(anchor):+.3f} | "
          f"{honest.score:.3f} ± {honest.error:.3f} | {seconds:.0f} |", flush=True)
