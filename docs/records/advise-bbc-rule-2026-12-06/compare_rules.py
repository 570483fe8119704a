"""Two answers of make advise over a finished search's runs, side by side: the rule it had (the best
unless not told apart from the anchor, SetFit fast's defaults: Standing.apart) and the rule it has
(the best unless choosing the best gains nothing over the anchor out of bag: Standing.gain_over),
each answer's mean on the test file (every run scored it as it ended; no choice read it), and the
new rule's honest score (the rule replayed in each draw: paired.highest_unless_no_gain). A search of
minilm's depths. Run from the project's root:

    .venv/bin/python docs/records/advise-bbc-rule-2026-12-06/compare_rules.py NAME:FOLDER:SIZE ...
"""
import statistics
import sys
import time

sys.path.insert(0, ".")
from study import paired  # noqa: E402
from study.search.asked import SEARCHED  # noqa: E402
from study.search.search_folder import read_folder  # noqa: E402
from study.search.space import space_for  # noqa: E402
from study.search.standing import anchor_of, examples_of, standing  # noqa: E402

print("| search | cells | best on dev | its lead on dev | margin | told apart | gain out of bag | the defaults' test | the best's test | had: its test | has: its test | has less had | honest (has) | seconds |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for spec in sys.argv[1:]:
    name, folder, size = spec.split(":")
    space = space_for(int(size), 6, [6, 5, 4, 3, 2, 1, 0, -1], SEARCHED)
    every, observed, metric = read_folder(folder, int(size), space)
    dev_size = every[0]["dev_size"]
    state, anchor = standing(observed, metric, dev_size), anchor_of(space)
    best = state.best
    tests = {}
    for run in every:
        c = run["config"]
        tests.setdefault((c["method"], c["freeze"], c["lr"]), []).append(run["test_at_score"][metric])
    test = lambda cell: statistics.mean(tests[(cell.method, cell.freeze, cell.lr)])
    told_apart = best == anchor or state.apart(best, anchor)
    gain = 0.0 if best == anchor else state.gain_over(anchor)
    had, has = (best if told_apart else anchor), (best if best == anchor or gain > 0 else anchor)
    cells = {cell: examples_of(runs) for cell, runs in observed.items() if runs}
    began = time.time()
    honest = paired.honest_score(cells, metric, lambda in_bag: paired.highest_unless_no_gain(in_bag, cells, metric, anchor), has)
    seconds = time.time() - began
    what = lambda cell: f"{cell.method} k={cell.freeze}" + ("" if cell.lr is None else f" {cell.lr:g}")
    print(f"| {name} | {len(cells)} | {what(best)} | {state.means[best] - state.means[anchor]:+.4f} | "
          f"{0.0 if best == anchor else state.margin(best, anchor):.4f} | {'yes' if told_apart else 'no'} | {gain:+.4f} | {test(anchor):.4f} | {test(best):.4f} | "
          f"{'best' if had == best and best != anchor else 'anchor'} {test(had):.4f} | "
          f"{'best' if has == best and best != anchor else 'anchor'} {test(has):.4f} | {test(has) - test(had):+.4f} | "
          f"{honest.score:.4f} ± {honest.error:.4f} | {seconds:.0f} |", flush=True)
