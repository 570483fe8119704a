"""The table: SetFit at the setfit library's defaults (alone.sh's runs) beside what make advise kept,
as its report says it scored on test.csv, and beside SetFit fast's defaults (the anchor the search
keeps unless the best gains on dev out of bag).

    python table.py OUT TASK:SIZE:ADVISE_MD:DEFAULTS_TEST[:METRIC] ...

ADVISE_MD: a search's RESULTS/advise.md (committed in its record); DEFAULTS_TEST: SetFit fast's
defaults' mean on test.csv over their seeds, as that record gives it (alone.sh's METHOD=setfit-fast
runs on this machine follow it, where there are any); METRIC: the one the search read (macro_f1
unless given; CLINC150's search read accuracy)."""
import glob
import json
import re
import sys

import numpy as np


def test_scores(pattern, rate="", metric="macro_f1"):
    """The test.csv scores of the runs `pattern` names, at `rate` ("" the method's own: no _lr in the name)."""
    return [json.load(open(f))["test_at_score"][metric] for f in sorted(glob.glob(pattern))
            if (f"_lr{rate}_" in f if rate else "_lr" not in f)]


def mean_error(scores):
    return np.mean(scores), np.std(scores, ddof=1) / len(scores) ** 0.5


out, rows = sys.argv[1], sys.argv[2:]
print("| task | n | SetFit alone, the library's defaults (seeds) | SetFit fast's defaults | make advise's pick "
      "| its runs' mean | − alone | the model kept | − alone |")
print("|---|---|---|---|---|---|---|---|---|")
for row in rows:
    task, size, report, defaults, metric = (row + ":macro_f1").split(":")[:5]
    scores = test_scores(f"{out}/alone/{task}/freeze0_size{size}_seed*_setfit.json", "2e-5", metric)
    fast = test_scores(f"{out}/fast/{task}/freeze0_size{size}_seed*_setfit-fast.json", metric=metric)
    text = open(report).read()
    pick = re.search(r"\*\*Pick: ([^*]+)\*\*", text).group(1)
    kept, mean = map(float, re.search(r"On your test file [^:]*: \*\*([0-9.]+)\*\*, the model kept[^;]*; ([0-9.]+), the mean", text).groups())
    alone, error = mean_error(scores)
    here = " (here: {:.3f} ± {:.3f}, {})".format(*mean_error(fast), len(fast)) if len(fast) > 1 else ""
    print(f"| {task} | {size} | {alone:.3f} ± {error:.3f} ({len(scores)}: {' '.join(f'{s:.3f}' for s in scores)}) "
          f"| {float(defaults):.3f}{here} | {pick} | {mean:.3f} | {mean - alone:+.3f} | {kept:.3f} | {kept - alone:+.3f} |")
for row in rows:  # SetFit fast at the library's rate (alone.sh, METHOD=setfit-fast RATE=2e-5), where it ran
    task, size = row.split(":")[:2]
    at_library_rate = test_scores(f"{out}/fast/{task}/freeze0_size{size}_seed*_setfit-fast.json", "2e-5")
    if len(at_library_rate) > 1:
        print("\n{} at n = {}: SetFit fast at the library's rate, 2e-5: {:.3f} ± {:.3f} ({} seeds: {})".format(
            task, size, *mean_error(at_library_rate), len(at_library_rate), " ".join(f"{s:.3f}" for s in at_library_rate)))
