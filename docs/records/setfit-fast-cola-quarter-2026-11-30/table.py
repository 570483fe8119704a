"""CoLA, minilm, n = 1000, k = 0, seeds 1-3, 2e-5: SetFit's fast body at an eighth of the library's
sentence passes (its default: docs/records/setfit-fast-cola-n1000-2026-11-30/), a quarter (here) and
a half (that record's half-passes/), beside the library's body (the grid's runs,
docs/results/cola-minilm, made on an AMD EPYC: its seconds are that CPU's, not comparable).

    python docs/records/setfit-fast-cola-quarter-2026-11-30/table.py
"""
import glob
import json
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
records = os.path.join(here, "..")
SHARES = (("library", f"{here}/../../results/cola-minilm/runs/freeze0_size1000_seed[123]_lr2e-5_setfit.json"),
          ("an eighth (the default)", f"{records}/setfit-fast-cola-n1000-2026-11-30/freeze0_size1000_seed[123]_setfit-fast.json"),
          ("a quarter", f"{here}/freeze0_size1000_seed[123]_setfit-fast.json"),
          ("a half", f"{records}/setfit-fast-cola-n1000-2026-11-30/half-passes/freeze0_size1000_seed[123]_setfit-fast.json"))

print("| body's passes | steps | dev MCC, seeds 1-3 | mean | train MCC (mean) | seconds a run (median) |")
print("|---|---|---|---|---|---|")
for label, pattern in SHARES:
    runs = [json.load(open(path)) for path in sorted(glob.glob(pattern))]
    assert len(runs) == 3 and all(run["config"]["lr"] == 2e-5 for run in runs), pattern
    dev = [run["at_score"]["mcc"] for run in runs]
    train = [run["train_at_score"]["mcc"] for run in runs]
    print(f"| {label} | {runs[0]['total_steps']} | {', '.join(f'{s:.3f}' for s in dev)} | {np.mean(dev):.3f} "
          f"| {np.mean(train):.2f} | {np.median([run['seconds']['total'] for run in runs]):.0f} |")
