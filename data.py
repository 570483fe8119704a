"""
The data side of the study: a task's train and dev examples (GLUE SST-2 or CoLA from the hub or a
local GLUE folder, or a user's own CSV/TSV files), the stratified nested training subsets every run
of a cell shares, tokenization, and right-padded batches.

An example is known by its index in its split (GLUE's `idx`), so a subset drawn as a list of
indices names the same sentences whichever source the data came from.
"""

import csv
import hashlib
import os
from dataclasses import dataclass

import numpy as np
import torch

DEFAULT_SIZES = (50, 100, 200, 500, 1000)
GLUE_TASKS = {"sst2": "SST-2", "cola": "CoLA"}  # task -> folder in GLUE's own layout


@dataclass
class Task:
    name: str  # "sst2", "cola", or a user task's name; names its folder of subsets
    train_texts: list
    train_labels: np.ndarray  # (N_train,) int64, classes 0..num_labels-1
    dev_texts: list
    dev_labels: np.ndarray  # (N_dev,)
    num_labels: int


def write_atomically(path, write):
    """write(f) into a temporary file, then rename it to `path`: a reader never sees half a
    file, even if we are killed midway, and parallel writers of the same file do not clash."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# ----------------------------------------------------------------------------------------------
# Reading examples

def read_table(path):
    """Every row of a .csv file, or of a .tsv file read with quoting off (GLUE's sentences hold
    stray quote characters that are text, not quoting)."""
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    tsv = path.endswith(".tsv")
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f, delimiter="\t" if tsv else ",",
                               quoting=csv.QUOTE_NONE if tsv else csv.QUOTE_MINIMAL))


def read_rows(path, columns, header):
    """Rows of a table as (line number, list of fields); every row must have `columns`."""
    rows = read_table(path)
    first = 1 if header else 0
    for number, row in enumerate(rows[first:], start=first + 1):
        if len(row) != columns:
            raise ValueError(f"{path}, line {number}: expected {columns} columns, found {len(row)}")
        yield number, row


def parse_example(path, number, text, label):
    if not text.strip():
        raise ValueError(f"{path}, line {number}: empty text")
    try:
        return text, int(label)
    except ValueError:
        raise ValueError(f"{path}, line {number}: label {label!r} is not an integer") from None


def read_glue_split(glue_dir, task, split):
    """SST-2: header `sentence<TAB>label`. CoLA: no header; source, label, annotation, sentence."""
    path = os.path.join(glue_dir, GLUE_TASKS[task], f"{split}.tsv")
    if task == "sst2":
        examples = [parse_example(path, n, row[0], row[1]) for n, row in read_rows(path, 2, header=True)]
    else:
        examples = [parse_example(path, n, row[3], row[1]) for n, row in read_rows(path, 4, header=False)]
    return [text for text, _ in examples], np.array([label for _, label in examples], dtype=np.int64)


def examples_from_hf(split):
    """A `datasets` split of GLUE (columns sentence, label, idx) as texts and labels in idx order."""
    order = np.argsort(np.asarray(split["idx"]), kind="stable")
    texts, labels = split["sentence"], split["label"]
    return [texts[i] for i in order], np.asarray(labels, dtype=np.int64)[order]


def load_glue_hub(task):
    from checkpoint import hub_reachable
    try:
        import datasets
    except ImportError:
        raise ValueError("the hub path needs the datasets package (pip install datasets); "
                         "or point --glue-dir (or GLUE_DIR) at a local GLUE folder") from None
    if not hub_reachable():  # take it from the local cache, or fail at once rather than retry
        datasets.config.HF_HUB_OFFLINE = datasets.config.HF_DATASETS_OFFLINE = True
    try:
        glue = datasets.load_dataset("glue", task)
    except Exception as e:
        raise ValueError(f"cannot load GLUE {task} from the Hugging Face hub ({type(e).__name__}); "
                         "offline, point --glue-dir (or GLUE_DIR) at a local GLUE folder and use --model minilm") from None
    return examples_from_hf(glue["train"]) + examples_from_hf(glue["validation"])


def check_labels(task_name, train_labels, dev_labels, dev_source):
    classes = np.unique(train_labels)
    if len(classes) < 2 or classes[0] != 0 or classes[-1] != len(classes) - 1:
        raise ValueError(f"{task_name}: train labels must be the classes 0..C-1 with C >= 2, "
                         f"found {classes.tolist()}")
    unknown = np.flatnonzero((dev_labels < 0) | (dev_labels >= len(classes)))
    if len(unknown):
        raise ValueError(f"{dev_source}, example {unknown[0]}: label {dev_labels[unknown[0]]} "
                         f"is not a class of the train split (0..{len(classes) - 1})")
    return len(classes)


def load_glue(task, glue_dir=None) -> Task:
    """GLUE `task` from a local GLUE folder (glue_dir, else $GLUE_DIR) or else from the hub."""
    if task not in GLUE_TASKS:
        raise ValueError(f"unknown task {task!r}: choose one of {', '.join(GLUE_TASKS)}, "
                         "or give --train-file and --dev-file")
    glue_dir = glue_dir or os.environ.get("GLUE_DIR")
    if glue_dir:
        if not os.path.isdir(os.path.join(glue_dir, GLUE_TASKS[task])):
            raise ValueError(f"{glue_dir} has no {GLUE_TASKS[task]}/ folder: --glue-dir must be a "
                             "folder in GLUE's layout (SST-2/, CoLA/ with train.tsv and dev.tsv)")
        train_texts, train_labels = read_glue_split(glue_dir, task, "train")
        dev_texts, dev_labels = read_glue_split(glue_dir, task, "dev")
        dev_source = os.path.join(glue_dir, GLUE_TASKS[task], "dev.tsv")
    else:
        train_texts, train_labels, dev_texts, dev_labels = load_glue_hub(task)
        dev_source = f"glue/{task} validation"
    num_labels = check_labels(task, train_labels, dev_labels, dev_source)
    return Task(task, train_texts, train_labels, dev_texts, dev_labels, num_labels)


def load_csv_task(train_file, dev_file, text_column="sentence", label_column="label") -> Task:
    """A user's own task: two CSV (or .tsv) files with a header naming the text and label columns."""
    splits = []
    for path in (train_file, dev_file):
        header = (read_table(path) or [[]])[0]
        for column in (text_column, label_column):
            if column not in header:
                raise ValueError(f"{path}: no column {column!r} in the header {header}; "
                                 "set --text-column / --label-column")
        text_at, label_at = header.index(text_column), header.index(label_column)
        examples = [parse_example(path, n, row[text_at], row[label_at])
                    for n, row in read_rows(path, len(header), header=True)]
        if not examples:
            raise ValueError(f"{path}: no examples")
        splits.append(([t for t, _ in examples], np.array([l for _, l in examples], dtype=np.int64)))
    (train_texts, train_labels), (dev_texts, dev_labels) = splits
    # the subsets' folder is named by the train file's content, so two files never share one
    with open(train_file, "rb") as f:
        name = os.path.splitext(os.path.basename(train_file))[0] + "-" + hashlib.sha256(f.read()).hexdigest()[:8]
    num_labels = check_labels(name, train_labels, dev_labels, dev_file)
    return Task(name, train_texts, train_labels, dev_texts, dev_labels, num_labels)


# ----------------------------------------------------------------------------------------------
# Stratified, nested training subsets

def stratified_order(labels, length, seed=0):
    """
    `length` distinct indices into `labels` such that every prefix is a stratified sample: the
    first n hold each class in its share of the whole split, within one example. The subset of
    size n is the first n, so the subsets are nested by construction.

    One example of each class comes first (so every subset has every class); then each position
    goes to the class furthest below its share so far, and within a class the examples come in
    a random order fixed by `seed`.
    """
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    classes, counts = np.unique(labels, return_counts=True)
    share = counts / counts.sum()
    pools = [rng.permutation(np.flatnonzero(labels == c)) for c in classes]
    taken = np.zeros(len(classes), dtype=np.int64)
    order = []
    for position in range(length):
        if position < len(classes):
            c = np.argsort(-share, kind="stable")[position]
        else:
            deficit = (position + 1) * share - taken
            deficit[taken == counts] = -np.inf  # a class with nothing left cannot be chosen
            c = int(np.argmax(deficit))
        order.append(pools[c][taken[c]])
        taken[c] += 1
    return np.array(order, dtype=np.int64)


def check_size(size, labels):
    num_classes = len(np.unique(labels))
    if not num_classes <= size <= len(labels):
        raise ValueError(f"--size {size} is outside [{num_classes}, {len(labels)}]: a subset needs "
                         "one example of each class and cannot be larger than the train split")


def make_subsets(labels, sizes=DEFAULT_SIZES, seed=0):
    """{size: indices} for each size: stratified, nested, and the same on any machine."""
    for size in sizes:
        check_size(size, labels)
    order = stratified_order(labels, max(sizes), seed)
    return {size: order[:size] for size in sizes}


def load_subset(task: Task, size, splits_dir="splits", seed=0):
    """
    The subset of `size` train examples, read from splits/<task>/size<n>.npy (the study's format);
    drawn and written on first use only, so every later run of the task trains on the same ones.
    """
    check_size(size, task.train_labels)
    path = os.path.join(splits_dir, task.name, f"size{size}.npy")
    if not os.path.exists(path):
        indices = make_subsets(task.train_labels, (size,), seed)[size]
        write_atomically(path, lambda f: np.save(f, indices))
    indices = np.load(path)
    if len(indices) != size or len(np.unique(indices)) != size or indices.max() >= len(task.train_labels):
        raise ValueError(f"{path} does not hold {size} distinct indices of the {task.name} train "
                         "split; delete it to draw the subset again")
    return indices


# ----------------------------------------------------------------------------------------------
# Tokens and batches

def tokenize(tokenizer, texts, max_length):
    """Token ids per text, with the special tokens, truncated to max_length; no padding yet."""
    encoded = tokenizer(list(texts), truncation=True, max_length=max_length)
    return [torch.tensor(ids) for ids in encoded["input_ids"]]


def length_sorted_batches(lengths, batch_size):
    """Index batches with examples of similar length together (longest first), so evaluation
    spends little compute on padding; the caller puts results back by these indices."""
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
