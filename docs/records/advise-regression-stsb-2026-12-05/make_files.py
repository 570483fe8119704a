"""STS-B as a user's own regression files: GLUE's train split shuffled (seed 1) into train.csv
(4,749 pairs) and test.csv (the other 1,000), GLUE's dev split as dev.csv (1,500); columns
sentence1, sentence2, score (0 to 5).

    python3 docs/records/advise-regression-stsb-2026-12-05/make_files.py ../shared/glue/STS-B /tmp/stsb
"""
import csv
import os
import random
import sys

glue, out = sys.argv[1], sys.argv[2]


def rows(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        first, second, score = header.index("sentence1"), header.index("sentence2"), header.index("score")
        return [(r[first], r[second], r[score]) for r in reader]


def write(path, table):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["sentence1", "sentence2", "score"])
        writer.writerows(table)


train, dev = rows(os.path.join(glue, "train.tsv")), rows(os.path.join(glue, "dev.tsv"))
random.seed(1)
random.shuffle(train)
os.makedirs(out, exist_ok=True)
write(os.path.join(out, "train.csv"), train[:-1000])
write(os.path.join(out, "test.csv"), train[-1000:])
write(os.path.join(out, "dev.csv"), dev)
