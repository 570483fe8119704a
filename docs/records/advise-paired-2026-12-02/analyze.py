"""What a search folder's runs say on the test file: each cell's seeds alone and as an ensemble
(their probabilities averaged), the baselines, and the honest score by BBC."""
import json, sys, glob, os
import numpy as np
sys.path.insert(0, "/work/main")
import metrics, result
from study.folder import load_results
from study.standing import Cell

folder, metric = sys.argv[1], sys.argv[2]
runs = [r for r in load_results(folder, figure="score") if r.get("predictions")]
cells = {}
for r in runs:
    cells.setdefault(Cell.of(r["config"]), []).append(r)
def score(o, predicted, C):
    return metrics.scores(o.truth, predicted, C)[metric]
rows = []
for cell, rs in cells.items():
    C = rs[0]["config"]["num_labels"]
    dev = np.mean([r["curve"][-1][metric] if r["curve"] else r["at_score"][metric] for r in rs])
    test = np.mean([r["test_at_score"][metric] for r in rs])
    line = dict(cell=cell, seeds=len(rs), dev=dev, test=test)
    if len(rs) >= 2 and C > 1:
        for split in ("dev", "test"):
            outs = [result.outputs_in(r, split) for r in rs]
            mean = np.mean([o.probabilities for o in outs], axis=0)
            line[f"ens_{split}"] = score(outs[0], mean.argmax(1), C)
    rows.append(line)
rows.sort(key=lambda l: -l["dev"])
for l in rows:
    c = l["cell"]
    print(f"{c.method:12s} k={c.freeze:3d} lr={c.lr} seeds={l['seeds']} dev={l['dev']:.3f} test={l['test']:.3f}"
          + (f" | ensemble dev={l['ens_dev']:.3f} test={l['ens_test']:.3f}" if "ens_dev" in l else ""))
