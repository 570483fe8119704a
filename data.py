"""
The data side of the study: a task's train and dev examples (GLUE SST-2, CoLA, MRPC, STS-B or RTE
from the hub or a local GLUE folder, or a user's own CSV/TSV files: single sentences or pairs,
classes or regression scores, read and checked by tables.py), the stratified nested training
subsets every run of a cell shares, and tokenization (cache.py keeps the token ids).

An example is known by its index in its split (GLUE's `idx`), so a subset drawn as a list of
indices names the same sentences whichever source the data came from.
"""

import hashlib
import os
from dataclasses import dataclass, replace

import numpy as np
import torch

import tables
from atomic import write_atomically

DEFAULT_SIZES = (50, 100, 200, 500, 1000)
SCORE_BINS = 5  # a regression task's subsets are stratified on this many quantile bins of the score


@dataclass(frozen=True)
class GlueLayout:
    """Where a GLUE task's fields sit in its .tsv files (GLUE's own layout), and how it is scored."""
    folder: str
    header: bool
    columns: int
    text: int          # column of the (first) sentence
    pair: int | None   # column of the second sentence of a sentence-pair task
    label: int
    label_names: tuple | None  # the files name the classes (class i is label_names[i]); None: integers
    regression: bool
    metric: str        # the primary metric, Lee et al.'s for the task


GLUE_TASKS = {
    "sst2": GlueLayout("SST-2", True, 2, 0, None, 1, None, False, "accuracy"),
    "cola": GlueLayout("CoLA", False, 4, 3, None, 1, None, False, "mcc"),
    "mrpc": GlueLayout("MRPC", True, 5, 3, 4, 0, None, False, "f1"),
    "stsb": GlueLayout("STS-B", True, 10, 7, 8, 9, None, True, "spearman"),
    # the hub's glue/rte has 0 = entailment, 1 = not_entailment: the same order
    "rte": GlueLayout("RTE", True, 4, 1, 2, 3, ("entailment", "not_entailment"), False, "accuracy"),
}


@dataclass
class Task:
    name: str  # "sst2", "mrpc", ... or a user task's name; names its folder of subsets
    train_texts: list
    train_labels: np.ndarray  # (N_train,) int64 classes 0..num_labels-1, or float32 scores
    dev_texts: list
    dev_labels: np.ndarray  # (N_dev,)
    num_labels: int  # classes; 1 for a regression task (one output, as transformers has it)
    train_pairs: list | None = None  # the second sentences of a sentence-pair task
    dev_pairs: list | None = None
    label_names: list | None = None  # class i's name, when the files name classes
    metric: str = "accuracy"  # the primary metric: it picks the best evaluation, it heads the report
    test_texts: list | None = None  # your own test file (--test-file): scored at the end, read by no choice
    test_pairs: list | None = None
    test_labels: np.ndarray | None = None
    dev_name: str | None = None  # your own dev file, named as the train file names the task (file_name)
    columns: tuple | None = None  # your own files' (texts' column, second text's or None): a saved model's inputs

    @property
    def regression(self):
        return self.num_labels == 1


# ----------------------------------------------------------------------------------------------
# Tasks

def examples_from_hf(split):
    """A `datasets` split of GLUE (sentence or sentence1 and sentence2, label, idx) as texts,
    second texts (None for single sentences) and labels, in idx order."""
    order = np.argsort(np.asarray(split["idx"]), kind="stable")
    first = "sentence" if "sentence" in split.column_names else "sentence1"
    texts = [split[first][i] for i in order]
    pairs = [split["sentence2"][i] for i in order] if "sentence2" in split.column_names else None
    return texts, pairs, np.asarray(split["label"])[order]


def load_glue_hub(task):
    from hub import hub_reachable
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
                         "offline, point --glue-dir (or GLUE_DIR) at a local GLUE folder and use --model minilm (make: MODEL=minilm)") from None
    return examples_from_hf(glue["train"]), examples_from_hf(glue["validation"])


def make_task(name, train, dev, sources, regression, names, metric, dev_lines=None) -> Task:
    """A Task from its train and dev (texts, pairs, labels as numbers), the labels checked; sources:
    where each came from, (train, dev), for the line that names a bad label (dev_lines: each dev
    example's line in its file). dev None: one labelled file, its dev split drawn from it later
    (held_out_fold) or none at all (every_label)."""
    (train_texts, train_pairs, train_labels), (dev_texts, dev_pairs, dev_labels) = train, dev or (None, None, [])
    dtype = np.float32 if regression else np.int64
    train_labels, dev_labels = np.asarray(train_labels, dtype=dtype), np.asarray(dev_labels, dtype=dtype)
    num_labels = 1
    if not regression:
        num_labels = tables.check_classes(sources[0], train_labels, names)
        tables.check_known(sources[1], dev_labels, num_labels, dev_lines)
    return Task(name, train_texts, train_labels, dev_texts, dev_labels, num_labels, train_pairs,
                dev_pairs, names and list(names), metric)


def load_glue(task, glue_dir=None) -> Task:
    """GLUE `task` from a local GLUE folder (glue_dir, else $GLUE_DIR) or else from the hub."""
    if task not in GLUE_TASKS:
        raise ValueError(f"unknown task {task!r}: choose one of {', '.join(GLUE_TASKS)}, "
                         "or give --train-file and --dev-file")
    layout = GLUE_TASKS[task]
    glue_dir = glue_dir or os.environ.get("GLUE_DIR")
    if glue_dir:
        if not os.path.isdir(os.path.join(glue_dir, layout.folder)):
            raise ValueError(f"{glue_dir} has no {layout.folder}/ folder: --glue-dir must be a folder in "
                             f"GLUE's layout ({', '.join(t.folder for t in GLUE_TASKS.values())} with "
                             "train.tsv and dev.tsv)")
        splits = []
        for split in ("train", "dev"):
            path = os.path.join(glue_dir, layout.folder, f"{split}.tsv")
            texts, pairs, labels = tables.read_split(path, layout.header, layout.columns, layout.text,
                                                     layout.pair, layout.label)
            splits.append((texts, pairs, tables.parse_labels(labels, layout.regression, layout.label_names)))
        sources = tuple(os.path.join(glue_dir, layout.folder, f"{split}.tsv") for split in ("train", "dev"))
    else:
        splits, sources = load_glue_hub(task), (f"glue/{task} train", f"glue/{task} validation")
    return make_task(task, *splits, sources, layout.regression, layout.label_names, layout.metric)


def file_name(path):
    """A file named by its name and its content (train-3f2a9c1e): the train file's names its task and
    its folder of subsets, so two files never share one; the dev file's, the split a run is scored on."""
    with open(path, "rb") as f:
        return os.path.splitext(os.path.basename(path))[0] + "-" + hashlib.sha256(f.read()).hexdigest()[:8]


def set_by(flag):
    """How a column's option is set, run by run or through make (whose runs take it in RUN_FLAGS)."""
    return f'{flag} NAME (make: RUN_FLAGS="{flag} NAME")'


def load_csv_task(train_file, dev_file, text_column=None, label_column="label",
                  pair_column=None, regression=False, test_file=None) -> Task:
    """A user's own task: two CSV (or .tsv) files with a header naming the text column (None: each file's
    'sentence' or 'text' column), the label column and, for pairs, the second text's column, and a third
    (test_file) with the same columns if given, each of examples of its own. Labels are integers 0..C-1,
    class names (numbered in sorted order; other integers: numeric order), or with `regression` numbers
    to predict. dev_file None: one labelled file (its folds are the dev splits, held_out_fold)."""
    paths = [path for path in (train_file, dev_file, test_file) if path]
    columns = {text_column: set_by("--text-column"), pair_column: set_by("--text-pair-column"),
               label_column: set_by("--label-column")}
    scored = {**columns, label_column: set_by("--label-column") + ": a test file is scored on its labels (texts to label: predict.py)"}
    splits, read = [], []
    for path in paths:
        header = tables.read_header(path, scored if path == test_file else columns)
        texts = text_column or tables.text_column_of(path, header, set_by("--text-column"))
        read.append((texts, pair_column))
        splits.append(tables.read_split(path, True, len(header), header.index(texts),
                                        None if pair_column is None else header.index(pair_column),
                                        header.index(label_column)))
    lines = [[number for _, number, _ in labels] for _, _, labels in splits]  # each example's line, for the errors
    names = None if regression else tables.class_names(splits[0][2])
    splits = [(texts, pairs, tables.parse_labels(labels, regression, names)) for texts, pairs, labels in splits]
    dev, dev_lines = (splits[1], lines[1]) if dev_file else (None, None)
    task = make_task(file_name(train_file), splits[0], dev, (train_file, dev_file), regression, names,
                     "spearman" if regression else "accuracy", dev_lines)
    task.dev_name, task.columns = file_name(dev_file) if dev_file else None, read[0]  # the train file's
    if test_file:
        task.test_texts, task.test_pairs, task.test_labels = splits[-1]
        if not regression:
            tables.check_known(test_file, task.test_labels, task.num_labels, lines[-1])
    tables.check_apart(paths, splits, with_dev=dev_file is not None)
    return task


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
        raise ValueError(f"--size {size} is outside [{num_classes}, {len(labels)}]: a subset needs one example of each "
                         "class and cannot be larger than the train split (all of it: --size all; make: SIZE=all)")


def make_subsets(labels, sizes=DEFAULT_SIZES, seed=0):
    """{size: indices} for each size: stratified, nested, and the same on any machine."""
    for size in sizes:
        check_size(size, labels)
    order = stratified_order(labels, max(sizes), seed)
    return {size: order[:size] for size in sizes}


def strata(task: Task):
    """What a subset is stratified on: the class, or for a regression task the score's quantile
    bin (SCORE_BINS of them, so each subset spans the scores as the train split does)."""
    if not task.regression:
        return task.train_labels
    edges = np.quantile(task.train_labels, np.linspace(0, 1, SCORE_BINS + 1)[1:-1])
    return np.digitize(task.train_labels, edges)


def load_subset(task: Task, size, splits_dir="splits", seed=0):
    """
    The subset of `size` train examples, read from splits/<task>/size<n>.npy (the study's format);
    drawn and written on first use only, so every later run of the task trains on the same ones.
    size "all": the whole train split, in its own order.
    """
    indices = subset_indices(task, size, splits_dir, seed)
    path = os.path.join(splits_dir, task.name, f"size{size}.npy")
    if size != "all" and not os.path.exists(path):
        write_atomically(path, lambda f: np.save(f, indices))
    return indices


def subset_indices(task: Task, size, splits_dir="splits", seed=0):
    """load_subset's indices, read or drawn, but not written: what a check before the run reads."""
    if size == "all":
        return np.arange(len(task.train_labels))
    check_size(size, strata(task))
    path = os.path.join(splits_dir, task.name, f"size{size}.npy")
    if not os.path.exists(path):
        return make_subsets(strata(task), (size,), seed)[size]
    indices = np.load(path)
    if len(indices) != size or len(np.unique(indices)) != size or indices.max() >= len(task.train_labels):
        raise ValueError(f"{path} does not hold {size} distinct indices of the {task.name} train "
                         "split; delete it to draw the subset again")
    return indices


# ----------------------------------------------------------------------------------------------
# One labelled file: its subset cross-validated, then trained on every label

def fold_of(strata, folds, seed=0):
    """Each example's fold, 1..folds, stratified: a class's examples, in a random order fixed by
    `seed`, dealt round the folds, each class starting where the last left off (so the folds' sizes
    differ by one at most), the same on any machine."""
    strata = np.asarray(strata)
    rng, fold, start = np.random.default_rng(seed), np.zeros(len(strata), dtype=np.int64), 0
    for c in np.unique(strata):
        members = rng.permutation(np.flatnonzero(strata == c))
        fold[members] = (start + np.arange(len(members))) % folds + 1
        start = (start + len(members)) % folds
    return fold


def check_folds(task: Task, subset, folds, source):
    """The subset cross-validates into `folds` folds, each scored on one of each class at least (a
    regression task: two examples a fold); else ValueError's one line naming `source` and the class."""
    labels = task.train_labels[subset]
    if task.regression:
        if len(labels) < 2 * folds:
            raise ValueError(f"{source}: {len(labels)} examples cannot make {folds} folds of two examples at least")
        return
    classes, counts = np.unique(labels, return_counts=True)
    if len(labels) < folds * len(classes):
        raise ValueError(f"{source}: {len(labels)} examples cannot make {folds} folds that each hold one of each of "
                         f"its {len(classes)} classes: that needs {folds * len(classes)} at least, or fewer folds "
                         "(--folds; make advise: FOLDS=; advise(): seeds=)")
    if counts.min() < folds:
        c, fewest = classes[counts.argmin()], int(counts.min())
        name = task.label_names[c] if task.label_names else int(c)
        raise ValueError(f"{source}: the class {name!r} has {fewest} example{'s' * (fewest > 1)}, fewer "
                         f"than the {folds} folds, each of which is scored on one of each class: give more of it, or "
                         "fewer folds (--folds; make advise: FOLDS=; advise(): seeds=)")


def fold_positions(task: Task, subset, folds, fold):
    """(the positions in `subset` the run trains on, those of fold `fold`, which it is scored on)."""
    assigned = fold_of(strata(task)[subset], folds)
    return np.flatnonzero(assigned != fold), np.flatnonzero(assigned == fold)


def held_out_fold(task: Task, rows) -> Task:
    """The task with its train split's `rows` (a fold) as its dev split."""
    pick = lambda values: values and [values[i] for i in rows]
    return replace(task, dev_texts=pick(task.train_texts), dev_pairs=pick(task.train_pairs),
                   dev_labels=task.train_labels[rows])


def every_label(task: Task, subset):
    """(the task the final model trains on, its rows): the subset and the dev split together (one
    file: the subset alone), its dev split the test file, else what it trained on: a score no choice
    reads (the record's config says which: test_file)."""
    pick = lambda values: values and [values[i] for i in subset]
    dev_pairs = task.dev_pairs if task.dev_texts else None
    train = replace(task, train_texts=pick(task.train_texts) + (task.dev_texts or []),
                    train_pairs=task.train_pairs and pick(task.train_pairs) + (dev_pairs or []),
                    train_labels=np.concatenate([task.train_labels[subset], task.dev_labels]))
    scored = (train.test_texts, train.test_pairs, train.test_labels) if task.test_texts is not None else \
        (train.train_texts, train.train_pairs, train.train_labels)
    final = replace(train, dev_texts=scored[0], dev_pairs=scored[1], dev_labels=scored[2],
                    test_texts=None, test_pairs=None, test_labels=None)  # the test file is its dev split: scored once
    return final, np.arange(len(final.train_labels))


# ----------------------------------------------------------------------------------------------
# Tokens

def tokenize(tokenizer, texts, max_length, pairs=None):
    """Token ids per example, with the special tokens, truncated to max_length; no padding yet.
    A sentence pair is encoded as its tokenizer encodes pairs ([CLS] a [SEP] b [SEP] for BERT,
    <s> a </s></s> b </s> for RoBERTa), the longer text truncated first. Where the tokenizer gives
    segment ids (BERT: 0 up to the first [SEP], 1 after it), an example is a (T, 2) tensor of
    token and segment ids; otherwise (single sentences, RoBERTa) its (T,) token ids."""
    encoded = tokenizer(list(texts), None if pairs is None else list(pairs), truncation=True, max_length=max_length)
    if pairs is None or "token_type_ids" not in encoded:
        return [torch.tensor(ids) for ids in encoded["input_ids"]]
    return [torch.tensor([ids, segments]).T for ids, segments in zip(encoded["input_ids"], encoded["token_type_ids"])]
