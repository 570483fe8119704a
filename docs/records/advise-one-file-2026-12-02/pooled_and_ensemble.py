"""A cell's fold runs read three ways: each fold's score on the rows it held out and their mean (what
the search reads), the macro-F1 of every fold's predictions pooled into one set of the file's rows
(Forman and Scholz 2010: a small fold's F1 reads low), and the fold models' probabilities averaged
on the test file (the ensemble a user could keep instead of the model trained on every label). Run
from the top level:

    python docs/records/advise-one-file-2026-12-02/pooled_and_ensemble.py RESULTS macro_f1
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.getcwd())
import numpy as np  # noqa: E402

import metrics  # noqa: E402
import result  # noqa: E402
from study import paired  # noqa: E402

folder, metric = sys.argv[1:3]
runs = [json.load(open(path)) for path in sorted(glob.glob(os.path.join(folder, "*.json")))]
num_labels = runs[0]["config"]["num_labels"]
for run in runs:
    print(f"fold {run['config']['seed']}: held out {run['at_score'][metric]:.3f}, test file {run['test_at_score'][metric]:.3f}")
held = [result.outputs_in(run, "dev") for run in runs]
pooled = metrics.scores(np.concatenate([o.truth for o in held]), np.concatenate([o.predicted for o in held]), num_labels)
print(f"mean of the folds {np.mean([run['at_score'][metric] for run in runs]):.3f}; the folds pooled {pooled[metric]:.3f}; "
      f"test file, mean of the fold models {np.mean([run['test_at_score'][metric] for run in runs]):.3f}")
ensemble = paired.ensemble_of([paired.examples_of(run, "test") for run in runs]).outputs
print(f"the fold models' ensemble on the test file: {metrics.scores(ensemble.truth, ensemble.predicted, num_labels)[metric]:.3f}")
