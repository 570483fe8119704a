"""A GLUE task's files as a user brings them to make advise: its train split shuffled (seed 1),
the last --test examples as test.csv and the others as train.csv, its dev split as dev.csv. A
sentence-pair task's columns are sentence1, sentence2 and the label's own name in GLUE's header
(RTE's label, STS-B's score); a single-sentence task's are sentence and label (CoLA's files have
no header).

    python -m bench.glue_as_csv ../shared/glue/RTE /tmp/rte --test 490
    python -m bench.glue_as_csv ../shared/glue/STS-B /tmp/stsb --test 1000
    python -m bench.glue_as_csv ../shared/glue/CoLA /tmp/cola --test 1000
"""
import argparse
import csv
import os
import random

import data
import tables


def layout_of(folder):
    """The GLUE layout (data.GLUE_TASKS) whose folder `folder` is."""
    name = os.path.basename(os.path.normpath(folder))
    layouts = [layout for layout in data.GLUE_TASKS.values() if layout.folder == name]
    if not layouts:
        raise SystemExit(f"{folder}: not a GLUE task's folder ({', '.join(t.folder for t in data.GLUE_TASKS.values())})")
    return layouts[0]


def examples(path, layout):
    """(header, [(text, [second text,] label)]) of a GLUE split's .tsv, each field as written."""
    table = tables.read_table(path)
    rows = [row for _, row in tables.numbered_rows(path, table, layout.columns, layout.header)]
    fields = (layout.text, layout.label) if layout.pair is None else (layout.text, layout.pair, layout.label)
    label = table[0][layout.label] if layout.header else "label"
    header = ["sentence", label] if layout.pair is None else ["sentence1", "sentence2", label]
    return header, [tuple(row[i] for i in fields) for row in rows]


def write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("glue_task", help="a GLUE task's folder (train.tsv, dev.tsv)")
    p.add_argument("out")
    p.add_argument("--test", type=int, required=True, help="examples of the train split held out as test.csv")
    args = p.parse_args()
    layout = layout_of(args.glue_task)
    header, train = examples(os.path.join(args.glue_task, "train.tsv"), layout)
    _, dev = examples(os.path.join(args.glue_task, "dev.tsv"), layout)
    random.seed(1)
    random.shuffle(train)
    os.makedirs(args.out, exist_ok=True)
    write(os.path.join(args.out, "train.csv"), header, train[:-args.test])
    write(os.path.join(args.out, "test.csv"), header, train[-args.test:])
    write(os.path.join(args.out, "dev.csv"), header, dev)


if __name__ == "__main__":
    main()
