"""Each of a cell's runs: its score on the fold it held out beside its score on the test file, the same
model read on both (the split's shift, not the choice's luck). Run from the top level:

    python docs/records/advise-one-file-2026-12-02/fold_vs_test.py RESULTS macro_f1 freeze0_size200_seed*_setfit-fast.json
"""
import glob
import json
import os
import sys

folder, metric, pattern = sys.argv[1:4]
rows = []
for path in sorted(glob.glob(os.path.join(folder, pattern))):
    r = json.load(open(path))
    rows.append((r["config"]["seed"], r["at_score"][metric], r["test_at_score"][metric]))
    print(f"seed/fold {rows[-1][0]}: held out {rows[-1][1]:.3f}, test file {rows[-1][2]:.3f}")
mean = lambda i: sum(row[i] for row in rows) / len(rows)
print(f"mean: held out {mean(1):.3f}, test file {mean(2):.3f}, test - held out {mean(2) - mean(1):+.3f}")
