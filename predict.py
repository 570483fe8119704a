"""
Label a CSV (or TSV) with a classifier that freeze_study.py --save wrote:

    python predict.py --model saved/sst2-k2 --input reviews.csv --text-column text --out labelled.csv

writes the input's rows with one more column, `prediction`: the class's name (or the predicted
score, for a regression head). The model is read into our encoder as any checkpoint is.
"""

import argparse
import csv
import io
import json
import os
import sys

import torch

import atomic
import checkpoint
import hub
import data
import loop


def parse_args(argv):
    p = argparse.ArgumentParser(description="Label a CSV with a saved classifier.")
    p.add_argument("--model", required=True, help="a folder written by freeze_study.py --save")
    p.add_argument("--input", required=True, help="a CSV or TSV file with a header")
    p.add_argument("--text-column", default="sentence")
    p.add_argument("--text-pair-column", help="the second text of a sentence pair")
    p.add_argument("--out", required=True, help="the labelled file (CSV)")
    p.add_argument("--device", default="cpu")
    p.error = lambda message: fail(message)
    return p.parse_args(argv)


def fail(message):
    print(f"predict.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def labelled_rows(args):
    """The input's header and rows, each with its prediction appended."""
    rows = data.read_table(args.input)
    if not rows:
        raise ValueError(f"{args.input}: no header")
    header, rows = rows[0], rows[1:]
    for column in filter(None, (args.text_column, args.text_pair_column)):
        if column not in header:
            raise ValueError(f"{args.input}: no column {column!r} in the header {header}; set --text-column")
    if not rows:
        raise ValueError(f"{args.input}: no rows to label")
    folder = hub.checkpoint_folder(args.model)
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    num_labels = config.get("num_labels", len(config.get("id2label", {})) or 2)
    names = [config["id2label"][str(i)] for i in range(num_labels)] if "id2label" in config else None
    model = checkpoint.from_pretrained(folder, num_labels=num_labels).to(args.device)
    tokenizer = checkpoint.load_tokenizer(folder)
    column = lambda name: [row[header.index(name)] for row in rows] if name else None
    ids = data.tokenize(tokenizer, column(args.text_column), min(tokenizer.model_max_length, model.config.max_length),
                        column(args.text_pair_column))
    predictions = loop.predict(model, ids, None, torch.device(args.device))
    labels = [f"{p:.4f}" for p in predictions] if num_labels == 1 else [names[p] if names else str(p) for p in predictions]
    return header + ["prediction"], [row + [label] for row, label in zip(rows, labels)]


def main(argv=None):
    args = parse_args(argv)
    try:
        header, rows = labelled_rows(args)
    except ValueError as e:
        fail(str(e))
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([header] + rows)
    atomic.write_atomically(args.out, lambda f: f.write(text.getvalue().encode()))
    print(f"predict.py: {len(rows)} rows labelled -> {args.out}")


if __name__ == "__main__":
    main()
