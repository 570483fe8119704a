"""SetFit fast at the tool's defaults against its body trained 4 times its steps (fit.sh's runs), seed
by seed on the same examples: the dev split's score (each run's metric, read as the run ended, by no
choice), how well each body fits its training examples (the head's train accuracy, and the run's
metric on them), and a task's test.csv where its runs scored it (the same way).

    python fit_table.py OUT DATASET SIZE [RATE [LIBRARY]]

RATE: the longer body's, as fit.sh ran it ('' for its own); LIBRARY: a glob of the library's runs on the
same examples (the committed grids', made by other code on another machine: for reference, seed by seed)."""
import glob
import json
import sys

import numpy as np

out, dataset, size, rate, library = (sys.argv[1:] + ["", ""])[:5]
lr = f"_lr{rate}" if rate else ""
bodies = [("fast, its defaults", f"{out}/{dataset}/times1/freeze0_size{size}_seed*_setfit-fast.json"),
          (f"fast, 4 times its steps{', ' + rate if rate else ''}", f"{out}/{dataset}/times4/freeze0_size{size}_seed*{lr}_setfit-fast.json")]
if library:
    bodies.append(("library (for reference)", library))


def runs_of(pattern):
    return {json.load(open(path))["config"]["seed"]: json.load(open(path)) for path in glob.glob(pattern)}


def mean_error(values):
    values = np.asarray(values)
    return values.mean(), values.std(ddof=1) / len(values) ** 0.5 if len(values) > 1 else float("nan")


def test_of(run):
    return (run.get("test_at_score") or {}).get(run["metric"])


first_runs = runs_of(bodies[0][1])
defaults = {seed: run["score"] for seed, run in first_runs.items()}
defaults_test = {seed: test_of(run) for seed, run in first_runs.items()}
print(f"{dataset} at n = {size}, minilm, k = 0:\n")
print("| body | rate | steps | dev score, by seed | mean | − fast's defaults (seed by seed) | train accuracy | train score | train seconds | test.csv mean | − fast's defaults |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for name, pattern in bodies:
    runs = runs_of(pattern)
    if not runs:
        continue
    dev = {seed: run["score"] for seed, run in runs.items()}
    shared = [seed for seed in sorted(dev) if seed in defaults]
    fits = [run["train_at_score"]["accuracy"] for run in runs.values()]
    trained = [run["train_at_score"][run["metric"]] for run in runs.values()]
    seconds = [run["seconds"]["train"] for run in runs.values()]
    test = {seed: test_of(run) for seed, run in runs.items()}
    tested = [seed for seed in shared if test[seed] is not None and defaults_test.get(seed) is not None]
    test_columns = ("{:.4f} ± {:.4f} | {:+.4f} ± {:.4f}".format(*mean_error([test[s] for s in tested]),
                                                              *mean_error([test[s] - defaults_test[s] for s in tested]))
                    if tested else "– | –")
    first = next(iter(runs.values()))
    print("| {} | {:g} | {} | {} | {:.4f} ± {:.4f} | {:+.4f} ± {:.4f} | {:.3f} to {:.3f} | {:.3f} to {:.3f} | {:.0f} to {:.0f} | {} |".format(
        name, first["config"]["lr"], first["total_steps"], " ".join(f"{dev[s]:.4f}" for s in sorted(dev)),
        *mean_error(list(dev.values())), *mean_error([dev[s] - defaults[s] for s in shared]), min(fits), max(fits),
        min(trained), max(trained), min(seconds), max(seconds), test_columns))
