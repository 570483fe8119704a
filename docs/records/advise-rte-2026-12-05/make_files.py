"""RTE as a user's own sentence-pair files: GLUE's train split shuffled (seed 1) into train.csv
(2,000 pairs) and test.csv (the other 490), GLUE's dev split as dev.csv (277); columns
sentence1, sentence2, label ('entailment' or 'not_entailment').

    python3 docs/records/advise-rte-2026-12-05/make_files.py ../shared/glue/RTE /tmp/rte
"""
import csv
import os
import random
import sys

glue, out = sys.argv[1], sys.argv[2]


def rows(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        return [tuple(r[1:4]) for r in reader]


def write(path, table):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["sentence1", "sentence2", "label"])
        writer.writerows(table)


train, dev = rows(os.path.join(glue, "train.tsv")), rows(os.path.join(glue, "dev.tsv"))
random.seed(1)
random.shuffle(train)
os.makedirs(out, exist_ok=True)
write(os.path.join(out, "train.csv"), train[:2000])
write(os.path.join(out, "test.csv"), train[2000:])
write(os.path.join(out, "dev.csv"), dev)
