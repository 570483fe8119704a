"""
Label a CSV (or TSV) with a classifier that freeze_study.py --save wrote:

    python predict.py --model saved/sst2-k2 --input reviews.csv --out labelled.csv

writes the input's rows with two more columns, `prediction`, the class's name, and `probability`,
the model's probability of it (a regression head: its predicted score alone), as a CSV, or split by
tabs where --out ends in .tsv. With --label-column, the input's own labels, it prints the
predictions' scores against them (every metric a run reads on its dev split: a test file scored
after the fact). The model is read into our encoder as any checkpoint is: a classifier (the
fine-tune, LoRA, BitFit) scores with its own head (a checkpoint whose weights lack one, one to train
from, is refused: its head would be random numbers); a sentence embedder with a fitted head (SetFit,
the probe: head.json beside it) pools each sentence as its sentence-transformers files say, and the
head scores that embedding. Either computes in its run's precision (inputs.json), where this
device has it: the run's scores. The texts are read from the columns the flags name, else those the
model was trained on (its inputs.json), else the header's 'sentence' or 'text'. From Python (a
notebook, after make advise's `advise(...)`), the same predictions without a file:

    from predict import predictions, probabilities, scores
    predictions(advice.saved, ["a fine film", "dull"])     # e.g. ['pos', 'neg']; pairs=[...] for sentence pairs
    probabilities(advice.saved, ["a fine film"])           # each class's: [{'neg': 0.08, 'pos': 0.92}]
    scores(advice.saved, texts, labels)                    # what --label-column prints: {'accuracy': ..., ...}
"""

import argparse
import csv
import io
import os
import sys

import numpy as np

import atomic
import checkpoint
import data
from parts import families
import hub
import loop
import machine
import metrics
import probe
import tables


PREDICTION, PROBABILITY = "prediction", "probability"  # the columns predict.py adds (a regression: the first)


def parse_args(argv):
    p = argparse.ArgumentParser(description="Label a CSV with a saved classifier.")
    p.add_argument("--model", required=True, help="a folder written by freeze_study.py --save")
    p.add_argument("--input", required=True, help="a CSV or TSV file with a header")
    p.add_argument("--text-column", help="the texts' column (default: the header's 'sentence' or 'text')")
    p.add_argument("--text-pair-column", help="the second text of a sentence pair")
    p.add_argument("--label-column", help="the input's labels: print the predictions' scores against them")
    p.add_argument("--out", required=True, help="the labelled file (CSV; .tsv: split by tabs), new unless --overwrite")
    p.add_argument("--overwrite", action="store_true", help="replace --out if it exists (never --input)")
    p.add_argument("--device", default="cpu")
    p.error = lambda message: fail(message)
    return p.parse_args(argv)


def fail(message):
    print(f"predict.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def check_out(args):
    """Refuse, before any work, an --out that would replace the input or, unasked, any existing file, or
    whose folder cannot be made (a file stands on its path)."""
    if os.path.exists(args.out) and os.path.exists(args.input) and os.path.samefile(args.out, args.input):
        raise ValueError(f"--out {args.out} is the input: name a new file for the labelled rows")
    if os.path.exists(args.out) and not args.overwrite:
        raise ValueError(f"--out {args.out} exists: name a new file, or pass --overwrite to replace it")
    atomic.check_can_hold("--out", os.path.dirname(os.path.abspath(args.out)))


def labelled_rows(args):
    """The input's header and rows, each with its prediction appended, and with --label-column the
    predictions' scores against its labels ({metric: value}; else None)."""
    check_out(args)
    device = machine.checked_device(args.device)
    folder = saved_model_folder(args.model)
    table = tables.read_table(args.input)
    header = tables.check_header(args.input, table, {args.text_column: "--text-column", args.text_pair_column: "--text-pair-column",
                                                     args.label_column: "--label-column"})
    for added in (PREDICTION, PROBABILITY):  # two columns of one name: a reader of --out would take one for the other
        if added in header:
            raise ValueError(f"{args.input} has a column {added!r} already (labelled before?): rename or drop it, "
                             "as predict.py adds its own")
    trained = checkpoint.read_inputs(folder) or {}  # what the model read, and its run's precision
    text_column, pair_column = columns_to_read(args, header, trained)
    numbered = list(tables.numbered_rows(args.input, table, len(header), header=True))
    tables.check_texts(args.input, numbered, [header.index(name) for name in (text_column, pair_column) if name])
    rows = [row for _, row in numbered]
    if not rows:
        raise ValueError(f"{args.input}: no rows to label")
    if args.out.endswith(".tsv"):
        check_tab_separable(args.input, [(1, table[0])] + numbered)
    num_labels, names = classes_of(folder)
    truth = None if not args.label_column else as_classes(
        [row[header.index(args.label_column)].strip() for row in rows], lambda i: f"{args.input}, line {numbered[i][0]}",
        num_labels, names)
    column = lambda name: [row[header.index(name)] for row in rows] if name else None
    predicted, class_probabilities = model_outputs(folder, trained, column(text_column), column(pair_column), device, num_labels)
    scores = None if truth is None else metrics.scores(truth, predicted, num_labels)
    labels = as_labels(predicted, num_labels, names)
    if class_probabilities is None:  # a regression's scores
        return table[0] + [PREDICTION], [row + [f"{label:.4f}"] for row, label in zip(rows, labels)], scores
    chosen = np.take_along_axis(class_probabilities, predicted[:, None], axis=1)[:, 0]  # each row's predicted class's
    return (table[0] + [PREDICTION, PROBABILITY],  # the header as written
            [row + [str(label), f"{p:.4f}"] for row, label, p in zip(rows, labels, chosen)], scores)


def as_classes(labels, where, num_labels, names):
    """Labels as written (stripped strings) as the saved model reads them: its classes' numbers
    (names: theirs; None: the numbers 0..C-1 themselves), or a regression's scores. The first it
    cannot read is refused by where(i), its place, before the model runs."""
    if num_labels == 1:
        readable = tables.is_number
    else:
        index = {name: c for c, name in enumerate(names or map(str, range(num_labels)))}
        readable = index.__contains__
    bad = next((i for i, label in enumerate(labels) if not readable(label)), None)
    if bad is not None:
        wanted = "a number" if num_labels == 1 else f"one of the model's classes ({', '.join(index)})"
        raise ValueError(f"{where(bad)}: label {labels[bad]!r} is not {wanted}")
    return np.array([float(label) for label in labels]) if num_labels == 1 else np.array([index[label] for label in labels])


def predictions(model, texts, pairs=None, device="cpu"):
    """The saved `model`'s prediction for each of `texts` (a list of strings; `pairs`: the second
    texts, for a model trained on sentence pairs): the class's name (its number where the model has
    no names), or the predicted score of a regression. What predict.py writes in its column, from
    Python; bad input is one ValueError line, before the model is read (a checkpoint with no trained
    classifier once its weights are). Each call reads the model from its folder: hand it every text
    at once, not one a call."""
    predicted, _, num_labels, names = outputs_for(model, texts, pairs, device)
    return as_labels(predicted, num_labels, names)


def probabilities(model, texts, pairs=None, device="cpu"):
    """The saved classifier `model`'s probability of each of its classes for each of `texts`, a dict
    {class name (its number where the model has no names): probability} a text, as its run's outputs
    hold them (a classifier's softmax; a fitted head's: scikit-learn's predict_proba). predictions'
    checks, and a regression refused before its model is read: it predicts scores, not classes."""
    texts = listed_texts("texts", texts)
    if classes_of(saved_model_folder(model))[0] == 1:
        raise ValueError(f"the model {model} predicts scores (a regression), not classes: predictions() gives them")
    _, class_probabilities, num_labels, names = outputs_for(model, texts, pairs, device)
    classes = names or list(range(num_labels))
    return [dict(zip(classes, map(float, row))) for row in class_probabilities]


def scores(model, texts, labels, pairs=None, device="cpu"):
    """What predict.py --label-column prints, from Python: the saved `model`'s predictions on
    `texts` scored against their `labels` (its classes' names, or a regression's numbers), every
    metric a run reads on its dev split ({name: value}). A label it cannot read is one ValueError
    line, before the model runs."""
    texts, labels = listed_texts("texts", texts), [str(label).strip() for label in labels]
    if len(labels) != len(texts):
        raise ValueError(f"{len(labels)} labels for {len(texts)} texts: give each text its label")
    truth = as_classes(labels, lambda i: f"labels[{i}]", *classes_of(saved_model_folder(model)))
    predicted, _, num_labels, _ = outputs_for(model, texts, pairs, device)
    return metrics.scores(truth, predicted, num_labels)


def outputs_for(model, texts, pairs, device):
    """predictions', probabilities' and scores' work once their texts are checked: (each text's class
    number or score, the class probabilities (N, C) or None, the number of labels, the class names or None)."""
    texts, pairs = listed_texts("texts", texts), pairs if pairs is None else listed_texts("pairs", pairs)
    if pairs is not None and len(pairs) != len(texts):
        raise ValueError(f"{len(pairs)} pairs for {len(texts)} texts: give each text its second text")
    device, folder = machine.checked_device(device), saved_model_folder(model)
    trained = checkpoint.read_inputs(folder) or {}
    check_pairs(f"the model {model}", trained, pairs is not None, "pass their second texts as pairs=[...]", "drop pairs")
    num_labels, names = classes_of(folder)
    return *model_outputs(folder, trained, texts, pairs, device, num_labels), num_labels, names


def listed_texts(name, given):
    """`given` as a list of texts, each a string holding more than spaces; else ValueError's line."""
    if isinstance(given, str):
        raise ValueError(f"{name} is one string: pass a list of texts ({name}=[...])")
    given = list(given)
    if not given:
        raise ValueError(f"{name}: no texts to label")
    for i, text in enumerate(given):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{name}[{i}] is {text!r}: each text must be a string with words")
    return given


def model_outputs(folder, trained, texts, pairs, device, num_labels):
    """The model in `folder`'s outputs for each of the (checked) texts, computed as its run did
    (trained: checkpoint.read_inputs, its precision): (class numbers, their probabilities (N, C)), or
    (a regression's scores, None)."""
    precision = machine.scored_as_trained(trained.get("precision"), device)
    head = checkpoint.read_head(folder)  # SetFit's and the probe's fitted head, or None: a classifier
    if head:
        return predict_with_head(folder, texts, pairs, device, head, precision, num_labels)
    return predict_with_classifier(folder, texts, pairs, device, precision, num_labels)


def classes_of(folder):
    """(the number of labels, 1 for a regression; the class names, or None) the saved model in
    `folder` predicts, read without its weights."""
    head = checkpoint.read_head(folder)
    if head:
        _, bias, names = head
        return (1 if len(bias) == 1 else len(bias)), names
    config = families.read_config_json(folder)
    num_labels = config.get("num_labels", len(config.get("id2label", {})) or 2)
    return num_labels, [config["id2label"][str(i)] for i in range(num_labels)] if "id2label" in config else None


def as_labels(outputs, num_labels, names):
    """model_outputs' predictions as a user reads them: class names (or numbers), or a regression's floats."""
    return [float(p) for p in outputs] if num_labels == 1 else [names[p] if names else int(p) for p in outputs]


def columns_to_read(args, header, trained):
    """(the texts' column, the second text's or None): as the flags name them, else as the model was
    trained (trained: checkpoint.read_inputs, your file's columns where the input's header has
    them), else the header's 'sentence' or 'text'; the wrong texts for the model refused (check_pairs)."""
    text, pair = trained.get("columns") or (None, None)
    text_column = args.text_column or (text if text in header else None) or tables.text_column_of(args.input, header)
    pair_column = args.text_pair_column or (pair if pair in header and text_column != pair else None)
    check_pairs(f"--model {args.model}", trained, pair_column is not None,
                "name the input's second text with --text-pair-column", "drop --text-pair-column")
    return text_column, pair_column


def check_pairs(model, trained, given_pairs, to_name, to_drop):
    """A model trained on sentence pairs given no second texts, or on single texts given some, is
    refused (its ValueError tells how to mend it: to_name, to_drop): it would label every row, and
    wrongly. trained: checkpoint.read_inputs ({} for a model saved before it was written)."""
    if trained.get("pairs") and not given_pairs:
        text, pair = trained.get("columns") or (None, None)
        named = f" (trained on the columns {text!r} and {pair!r})" if pair else ""
        raise ValueError(f"{model} reads sentence pairs{named}: {to_name}")
    if trained.get("pairs") is False and given_pairs:
        raise ValueError(f"{model} was trained on single texts: {to_drop}")


def check_tab_separable(path, numbered):
    """A .tsv's fields are split by tabs and never quoted (tables.read_table reads one so): a field
    of the input's (numbered) rows holding a tab or a line break cannot be written there. Refused
    before the model runs."""
    for number, row in numbered:
        if any(char in field for field in row for char in "\t\r\n"):
            raise ValueError(f"{path}, line {number}: a field holds a tab or a line break, which a .tsv "
                             "cannot: name --out .csv")


def as_text(path, header, rows):
    """The labelled rows as --out's name says: a .tsv's fields joined by tabs, else a CSV."""
    if path.endswith(".tsv"):
        return "".join("\t".join(row) + "\n" for row in [header] + rows)
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([header] + rows)
    return text.getvalue()


def saved_model_folder(name):
    """The folder --model names, checked to hold a model (its config.json) before the input is read."""
    folder = hub.checkpoint_folder(name)
    if not os.path.isfile(os.path.join(folder, "config.json")):
        raise ValueError(f"--model {name}: {folder} holds no saved model (no config.json): give the folder that "
                         "freeze_study.py --save (or make advise's SAVE) wrote")
    return folder


def token_ids(folder, model, texts, pairs, max_length=None):
    tokenizer = checkpoint.load_tokenizer(folder)
    limit = min(tokenizer.model_max_length, model.config.max_length, max_length or model.config.max_length)
    return data.tokenize(tokenizer, texts, limit, pairs)


def predict_with_classifier(folder, texts, pairs, device, precision, num_labels):
    """A saved classifier's (prediction, class probabilities or None) per text, in `precision`."""
    model = checkpoint.from_pretrained(folder, num_labels=num_labels).to(device)
    if model.fresh_head:  # a checkpoint to train from: its head would be random numbers
        raise ValueError(f"{folder} holds no trained classifier (its weights lack {model.fresh_head[-1]}): give the "
                         "folder freeze_study.py --save (or make advise's SAVE) wrote")
    outputs = loop.outputs_of(model, token_ids(folder, model, texts, pairs), None, device, precision)
    return loop.predicted(outputs), None if num_labels == 1 else outputs


def predict_with_head(folder, texts, pairs, device, head, precision, num_labels):
    """A saved sentence embedder's (prediction, class probabilities or None) per text through its
    fitted head (checkpoint.save_embedder), the embeddings in `precision`."""
    weight, bias, _ = head
    spec = checkpoint.sentence_embedding_spec(folder)
    model = checkpoint.from_pretrained(folder).to(device)
    model.pooling, model.normalize = spec["pooling"], spec["normalize"]
    ids = token_ids(folder, model, texts, pairs, spec["max_length"])
    embeddings = probe.all_sentence_embeddings(model, ids, None, device, precision)
    fitted = (weight, bias)
    predicted = probe.predict(fitted, embeddings, num_labels)  # as its run scored: the likeliest by the head's scores
    return predicted, None if num_labels == 1 else probe.outputs_of(fitted, embeddings, num_labels)


def main(argv=None):
    args = parse_args(argv)
    try:
        header, rows, scores = labelled_rows(args)
    except ValueError as e:
        fail(str(e))
    text = as_text(args.out, header, rows)
    atomic.write_atomically(args.out, lambda f: f.write(text.encode()))
    print(f"predict.py: {len(rows)} row{'s' * (len(rows) != 1)} labelled -> {args.out}")
    if scores:
        print(f"predict.py: against its column {args.label_column!r}: " + ", ".join(f"{name} {value:.4f}" for name, value in scores.items()))


if __name__ == "__main__":
    machine.spare_imports_from_collection()
    main()
