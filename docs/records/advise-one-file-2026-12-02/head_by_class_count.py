"""A run's dev-split accuracy on the classes its train file holds k examples of, and how often it
predicts them: CLINC150's 562/188 cut leaves 38 intents with 3 train rows and 112 with 4, and
SetFit's head (a logistic regression at C = 1, setfit's default) leans on the classes' counts.

    python docs/records/advise-one-file-2026-12-02/head_by_class_count.py TRAIN.csv RUN.json [RUN.json ...]
"""
import base64
import collections
import csv
import json
import sys

import numpy as np

with open(sys.argv[1], newline="") as f:
    counts = collections.Counter(row[1] for row in list(csv.reader(f))[1:])
for path in sys.argv[2:]:
    with open(path) as f:
        record = json.load(f)
    dev = record["predictions"]["dev"]
    truth, predicted = (np.frombuffer(base64.b64decode(dev[key]), np.int16) for key in ("truth", "predicted"))
    examples = np.array([counts[name] for name in record["label_names"]])  # train rows of each class
    print(path.split("/")[-1], f"accuracy {np.mean(predicted == truth):.3f}")
    for k in sorted(set(examples)):
        rows = examples[truth] == k
        print(f"  classes of {k} train rows: {np.sum(examples == k)}, dev rows {rows.sum()}, accuracy "
              f"{np.mean(predicted[rows] == truth[rows]):.3f}, share of the predictions {np.mean(examples[predicted] == k):.3f}"
              f" (of the truth {rows.mean():.3f})")
