"""The table: SetFit fast on SST-5 (or TASK) at n = 200 at more body steps (steps.sh's runs) beside its
defaults and the library's defaults (setfit-alone-2026-12-06's alone.sh runs), seed by seed on the
same examples: test.csv and dev.csv macro-F1, each read paired (seed by seed: the same examples)
against the library's run and the fast defaults' run of that seed, and how well the body fits its 200
training examples (the head's train accuracy).

    python table.py OUT ALONE_OUT [TASK]"""
import glob
import json
import sys

import numpy as np

out, alone, task = (sys.argv[1:] + ["sst5"])[:3]
SEEDS = range(1, 6)
bodies = [("library's defaults (2e-5)", f"{alone}/alone/{task}/freeze0_size200_seed{{}}_lr2e-5_setfit.json"),
          ("fast, its defaults (1/8, 5e-5)", f"{alone}/fast/{task}/freeze0_size200_seed{{}}_setfit-fast.json")]
bodies += [(f"fast, 1/{share}, {rate or '5e-5'}",
            f"{out}/share{share}/freeze0_size200_seed{{}}{'_lr' + rate if rate else ''}_setfit-fast.json")
           for share in (4, 2) for rate in ("", "2e-5")]
bodies += [("fast, its defaults at 2e-5 (1/8)", f"{alone}/fast/{task}/freeze0_size200_seed{{}}_lr2e-5_setfit-fast.json")]


def runs_of(pattern):
    runs = {seed: glob.glob(pattern.format(seed)) for seed in SEEDS}
    return {seed: json.load(open(found[0])) for seed, found in runs.items() if found}


def mean_error(values):
    values = np.asarray(values)
    return values.mean(), values.std(ddof=1) / len(values) ** 0.5 if len(values) > 1 else float("nan")


def scores(runs):
    return ({seed: run["test_at_score"]["macro_f1"] for seed, run in runs.items()},
            {seed: run["score"] for seed, run in runs.items()})


def paired(mine, theirs):
    return "{:+.3f} ± {:.3f}".format(*mean_error([mine[seed] - theirs[seed] for seed in mine]))


(library_test, library_dev), (fast_test, fast_dev) = (scores(runs_of(pattern)) for _, pattern in bodies[:2])
print("| body | steps | test.csv (seeds) | test mean | − library | − fast's defaults | dev mean | − library "
      "| − fast's defaults | train accuracy |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, pattern in bodies:
    runs = runs_of(pattern)
    if not runs:
        continue
    test, dev = scores(runs)
    fits = [run["train_at_score"]["accuracy"] for run in runs.values()]
    print("| {} | {} | {} | {:.3f} ± {:.3f} | {} | {} | {:.3f} | {} | {} | {:.2f} to {:.2f} |".format(
        name, next(iter(runs.values()))["total_steps"], " ".join(f"{test[s]:.3f}" for s in sorted(test)),
        *mean_error(list(test.values())), paired(test, library_test), paired(test, fast_test),
        np.mean(list(dev.values())), paired(dev, library_dev), paired(dev, fast_dev), min(fits), max(fits)))
