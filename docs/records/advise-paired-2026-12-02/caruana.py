"""Ensembles from a search folder's runs, chosen on the dev split, read on the test file: the best
cell's seeds averaged, and Caruana et al.'s greedy selection with replacement over every run."""
import sys, os
import numpy as np
sys.path.insert(0, os.getcwd())
import metrics, result
from study.folder import load_results
from study.standing import Cell

folder, metric = sys.argv[1], sys.argv[2]
runs = [r for r in load_results(folder, figure="score") if r.get("predictions") and r["predictions"].get("test")]
C = runs[0]["config"]["num_labels"]
dev = [result.outputs_in(r) for r in runs]; test = [result.outputs_in(r, "test") for r in runs]
score = lambda o, p: metrics.scores(o.truth, p.argmax(1), C)[metric]
cells = {}
for i, r in enumerate(runs):
    cells.setdefault(Cell.of(r["config"]), []).append(i)
mean = {c: np.mean([score(dev[i], dev[i].probabilities) for i in ix]) for c, ix in cells.items()}
best = max(mean, key=mean.get)
single_test = np.mean([score(test[i], test[i].probabilities) for i in cells[best]])
ens = lambda ix, outs: np.mean([outs[i].probabilities for i in ix], axis=0)
print(f"best cell {best.method} k={best.freeze} lr={best.lr} seeds={len(cells[best])}: dev {mean[best]:.3f} "
      f"single test {single_test:.3f} | seeds' ensemble dev {score(dev[0], ens(cells[best], dev)):.3f} test {score(test[0], ens(cells[best], test)):.3f}")
chosen = []
for step in range(15):  # greedy with replacement
    gains = [(score(dev[0], ens(chosen + [i], dev)), -i) for i in range(len(runs))]
    top, i = max(gains); chosen.append(-i)
print(f"greedy (15 picks, {len(set(chosen))} runs): dev {score(dev[0], ens(chosen, dev)):.3f} test {score(test[0], ens(chosen, test)):.3f}")
