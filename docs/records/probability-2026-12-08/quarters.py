"""predict.py's labelled file read by its probability column: the rows in four quarters of
probability, each quarter's accuracy beside its mean probability (python quarters.py labelled.csv)."""
import csv
import sys

import numpy as np

with open(sys.argv[1], newline="") as f:
    rows = list(csv.DictReader(f))
probability = np.array([float(row["probability"]) for row in rows])
right = np.array([row["prediction"] == row["label"] for row in rows])
for quarter, part in enumerate(np.array_split(np.argsort(probability, kind="stable"), 4), start=1):
    print(f"quarter {quarter}: probability {probability[part].min():.2f} to {probability[part].max():.2f}, "
          f"mean {probability[part].mean():.3f}, accuracy {right[part].mean():.3f} ({len(part)} rows)")
print(f"all: mean probability {probability.mean():.3f}, accuracy {right.mean():.3f} ({len(rows)} rows)")
