"""A GLUE sentence-pair task's files as a user brings them to make advise: its train split
shuffled (seed 1), the last --test pairs as test.csv and the others as train.csv, its dev split as
dev.csv. Columns sentence1, sentence2 and the label's own (GLUE's last column: label, or STS-B's
score), as GLUE writes them.

    python -m bench.glue_as_csv ../shared/glue/RTE /tmp/rte --test 490
    python -m bench.glue_as_csv ../shared/glue/STS-B /tmp/stsb --test 1000
"""
import argparse
import csv
import os
import random


def pairs(path):
    """(header, [(sentence1, sentence2, label)]) of a GLUE pair task's .tsv, its label the last column."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        first, second = header.index("sentence1"), header.index("sentence2")
        return ["sentence1", "sentence2", header[-1]], [(row[first], row[second], row[-1]) for row in reader]


def write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("glue_task", help="a GLUE task's folder (train.tsv, dev.tsv)")
    p.add_argument("out")
    p.add_argument("--test", type=int, required=True, help="pairs of the train split held out as test.csv")
    args = p.parse_args()
    header, train = pairs(os.path.join(args.glue_task, "train.tsv"))
    _, dev = pairs(os.path.join(args.glue_task, "dev.tsv"))
    random.seed(1)
    random.shuffle(train)
    os.makedirs(args.out, exist_ok=True)
    write(os.path.join(args.out, "train.csv"), header, train[:-args.test])
    write(os.path.join(args.out, "test.csv"), header, train[-args.test:])
    write(os.path.join(args.out, "dev.csv"), header, dev)


if __name__ == "__main__":
    main()
