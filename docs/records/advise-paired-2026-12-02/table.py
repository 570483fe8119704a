"""The findings' table: per task, make advise's pick on the test file beside (a) SetFit fast at its
defaults, (b) the recipe's fine-tune, (c) the probe, (d) the search before the change; its honest
score against its test score; minutes and runs. Run from the repository root:
    python table.py emotion:200:macro_f1:emotion-r2 sst5:200:macro_f1 ..."""
import math, os, re, sys
import numpy as np
sys.path.insert(0, os.getcwd())
import methods
from study import paired
from study.folder import load_results
from study.standing import Cell

def runs_of(*folders):
    found = {}
    for folder in folders:
        for r in (load_results(folder, figure="score") if os.path.isdir(folder) else []):
            c = r["config"]
            found.setdefault((Cell.of(c), c["seed"]), r)
    return found

def mean_se(values):
    v = np.asarray(values, float)
    return v.mean(), (v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else float("nan")), len(v)

def text(values):
    if not values:
        return "not run"
    m, se, n = mean_se(values)
    return f"{m:.3f}" + (f" ± {se:.3f}" if n > 1 else "") + f" ({n})"

def default_scores(runs, method, k, seeds, metric, size):
    cell = Cell(method, k, methods.get(method).default_lr(size))
    return [runs[(cell, s)]["test_at_score"][metric] for s in seeds if (cell, s) in runs]

def last_line(folder):
    lines = [l for l in open(f"{folder}/output.txt") if re.match(r"advise: (decided|NOT)", l)]
    return lines[-1] if lines else ""

def minutes(folder):
    t = open(f"{folder}/clock.txt").read().split()
    h = lambda s: sum(int(x) * 60 ** (2 - i) for i, x in enumerate(s.split(":")))
    return (h(t[3]) - h(t[0])) / 60

def row(name, size, metric, searched):
    new, old = f"/tmp/q/{searched}", f"/tmp/q/{name}-old"
    runs = runs_of(f"{new}/results", f"/tmp/q/{name}-new/results", f"/tmp/q/{name}-new/baselines")
    a = default_scores(runs, "setfit-fast", 0, (1, 2, 3), metric, size)
    b = default_scores(runs, "finetune", 0, (1, 2, 3), metric, size)
    c = default_scores(runs, "probe", 6, (1,), metric, size)
    got = re.search(r"decided: (.*?), freeze (-?\d+), rate (\S+) \| test file ([0-9.]+), honest ([0-9.]+) ± ([0-9.]+), "
                    r"dev split ([0-9.]+)", last_line(new))
    label, k, rate = got[1], int(got[2]), got[3]
    pick = next(cell for cell, _ in runs if methods.get(cell.method).label == label and cell.freeze == k
                and (methods.lr_text(cell.lr) if cell.lr else "fitted") == rate)
    examples = [paired.examples_of(runs[(pick, s)], "test") for s in range(1, 6) if (pick, s) in runs]
    test_error = float(np.std(paired.cell_draws(examples, metric), ddof=1))
    test, honest, error = float(got[4]), float(got[5]), float(got[6])
    was = re.search(r"decided: (.*?) \| test file ([0-9.]+)", last_line(old)) if os.path.exists(f"{old}/output.txt") else None
    best = max(np.mean(x) for x in (a, b, c) if x)
    made = len([p for p in os.listdir(f"{new}/results") if p.endswith(".json")])
    gap = honest - test
    cells = {}
    for (cell, _), r in runs.items():
        cells.setdefault(cell, []).append(r["test_at_score"][metric])
    oracle = max(cells, key=lambda cell: np.mean(cells[cell]))  # in hindsight: what no dev split could promise
    ORACLES.append(f"{name}: {oracle.method} k = {oracle.freeze} {oracle.lr}: {np.mean(cells[oracle]):.3f} "
                   f"({len(cells[oracle])} runs), {np.mean(cells[oracle]) - np.mean(a):+.3f} over (a)")
    every = [r["test_at_score"][metric] for (cell, _), r in runs.items() if cell == pick]  # the search's seeds and the baselines'
    print(f"| {name} | {size} | {label}, k = {k}, {rate} | **{test:.3f}** ({text(every)}) | {text(a)} | {text(b)} | {text(c)} "
          f"| {was[2] + ' (' + was[1] + ')' if was else 'not run'} | {test - best:+.3f} | {test - np.mean(a):+.3f} "
          f"| {honest:.3f} ± {error:.3f} | {gap:+.3f} ({2 * math.hypot(error, test_error):.3f}) | {minutes(new):.1f} | {made} |")
    return test - np.mean(a), gap

print("| task | n | pick | its test score (every seed of its cell) | (a) SetFit fast, k = 0 | (b) fine-tune, k = 0 | (c) probe | (d) before the change "
      "| pick − best of (a)-(c) | pick − (a) | honest score | honest − test (2 SE) | minutes | runs |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
over, gaps, ORACLES = [], [], []
for spec in sys.argv[1:]:
    parts = spec.split(":")
    name, size, metric = parts[0], int(parts[1]), parts[2]
    d, g = row(name, size, metric, parts[3] if len(parts) > 3 else f"{name}-new")
    over.append(d), gaps.append(g)
print(f"\nmean pick − (a): {np.mean(over):+.3f}; mean honest − test: {np.mean(gaps):+.3f}")
print("the best cell on the test file among every run made (hindsight):")
print("\n".join(ORACLES))
