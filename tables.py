"""
A task's examples read from a table: GLUE's .tsv files, or your own CSV/TSV with a header. Each
bad row, header or label is refused with the file and line that hold it and what would mend it,
before any training: data.py builds the task from what these functions return.

    header  = read_header(path, columns)          your own file: one delimiter, distinct names, the columns there
    column  = text_column_of(path, header)        no --text-column: its 'sentence' or its 'text' column
    rows    = read_split(path, header?, ...)      texts, second texts and labels as written, each with its line
                                                  (blank lines skipped; every other row has the header's columns)
    names   = class_names(labels)                 None (integers 0..C-1) or the names, sorted (each
                                                  class spelled one way; no 'nan' for a missing label)
    numbers = parse_labels(labels, ...)           classes 0..C-1 or regression scores
    n       = examples_in(path)                   what 'all' of your own file is (the rates are set for n)
    check_classes(...) / check_known(...)         two classes or more; no label the train split lacks
    check_apart(paths, splits, with_dev)          no dev or test file mostly holds an earlier file's examples
"""

import csv
import functools
import math
import os

import numpy as np

# a missing value made text, as Python and pandas write it (NaN and pandas.NA after df[col].astype(str)):
# never what a file calls a class
MISSING = {"nan", "<na>"}


def read_table(path):
    """Every row of a .csv file, or of a .tsv file read with quoting off (GLUE's sentences hold
    stray quote characters that are text, not quoting)."""
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    tsv = path.endswith(".tsv")
    csv.field_size_limit(2**31 - 1)  # a long text is a text: the csv module's guard of 131,072 characters is not ours
    # utf-8-sig: MRPC's files begin with a byte-order mark, which would stick to the first column's name
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            return list(csv.reader(f, delimiter="\t" if tsv else ",",
                                   quoting=csv.QUOTE_NONE if tsv else csv.QUOTE_MINIMAL))
    except UnicodeDecodeError:
        with open(path, "rb") as f:
            raw = f.read()
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):  # its byte-order mark: not a stray byte on line 1
            raise ValueError(f"{path}: the file is UTF-16 (a spreadsheet's 'Unicode text'?): save it as UTF-8") from None
        if raw[:4] == b"PK\x03\x04":  # a zip archive, as an .xlsx workbook is
            raise ValueError(f"{path}: the file is a zip archive (an .xlsx workbook?): save its sheet as CSV (UTF-8)") from None
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as e:  # where, in the file's bytes (the reader's chunks do not say)
            line = raw[:e.start].count(b"\n") + 1
            raise ValueError(f"{path}, line {line}: byte 0x{raw[e.start]:02x} is not UTF-8 (a Latin-1 or "
                             "Windows-1252 file?): save the file as UTF-8") from None
        raise


def examples_in(path):
    """How many examples a file of your own holds: its rows but the header and blank lines, as
    read_split reads them. 'all' of it sets each method's own rate for that many (methods.py), where
    'all' of a GLUE split reads as its thousands, and a file of 80 would train at the rate for 5,000."""
    return sum(1 for row in read_table(path)[1:] if any(field.strip() for field in row))


def read_header(path, columns):
    """The header of your own file, checked: the file is not empty, it is split by the delimiter its
    name says (.tsv: tabs, else commas), it names each column once, and it has `columns` ({name:
    the option that sets it}, a name None where the option is not given)."""
    return check_header(path, read_table(path), columns)


def check_header(path, rows, columns):
    """read_header's checks on a table's rows already read (predict.py labels them after); the
    header's names, stripped of the spaces around them."""
    if not rows or not any(field.strip() for field in rows[0]):
        wanted = ",".join(name for name in columns if name)
        raise ValueError(f"{path}: the file is empty: it needs a header naming its columns"
                         f"{f' ({wanted})' if wanted else ''} and a row an example")
    # a name is read without the spaces around it: 'text, label' names the columns text and label
    header, delimiter = [name.strip() for name in rows[0]], "\t" if path.endswith(".tsv") else ","
    for other, what, fix in (("\t", "tabs", "name it .tsv"), (",", "commas", "name it .csv"),
                             (";", "semicolons", "write it with commas")):
        if len(header) == 1 and other != delimiter and other in header[0]:
            raise ValueError(f"{path}: its header {header[0]!r} is one column split by {what}: {fix}")
    repeated = [name for i, name in enumerate(header) if name and name in header[:i]]  # unnamed: a spreadsheet's empty columns
    if repeated:
        raise ValueError(f"{path}: the header names the column {repeated[0]!r} twice: give each column its own name")
    for name, flag in columns.items():
        if name is not None and name not in header:
            raise ValueError(f"{path}: no column {name!r} in the header {header}{written_as(header, (name,))}; set {flag}")
    return header


def written_as(header, wanted):
    """' (is it 'Label'?)' where the header names one of the `wanted` columns in other capitals
    ('Text,Label'), else '': names are matched as written, and this points at the one meant."""
    wanted = {name.lower() for name in wanted}
    like = [column for column in header if column.lower() in wanted]
    return f" (is it {like[0]!r}?)" if like else ""


# The column read for the texts when --text-column is not given: GLUE's name, or the one most CSVs use.
TEXT_COLUMNS = ("sentence", "text")


def text_column_of(path, header, set_by="--text-column"):
    """The one of TEXT_COLUMNS that a header names; two or none is refused (set_by: how to name it)."""
    found = [name for name in TEXT_COLUMNS if name in header]
    if not found:
        pair = sorted(name for name in header if name not in TEXT_COLUMNS and name.rstrip("12") in TEXT_COLUMNS)  # sentence1, sentence2
        raise ValueError(f"{path}: no column 'sentence' or 'text' in the header {header}{written_as(header, TEXT_COLUMNS)}"
                         + (f" (a sentence pair? name its second text too: --text-pair-column {pair[1]})" if len(pair) == 2 else "")
                         + f"; set {set_by}")
    if len(found) > 1:
        raise ValueError(f"{path}: the header has a 'sentence' and a 'text' column: name the texts' one, set {set_by}")
    return found[0]


def read_rows(path, columns, header):
    """Rows of a table as (line number, list of fields); every row must have `columns`."""
    return numbered_rows(path, read_table(path), columns, header)


def numbered_rows(path, rows, columns, header):
    """read_rows's checks on a table's rows already read (predict.py's): a blank line is no row (as
    pandas reads a file: a file's trailing newlines are common), any other has `columns` fields."""
    first = 1 if header else 0
    for number, row in enumerate(rows[first:], start=first + 1):
        if not row:
            continue
        if len(row) != columns:
            raise ValueError(f"{path}, line {number}: expected {columns} columns, found {len(row)}")
        yield number, row


def check_texts(path, numbered, columns):
    """Every row's text `columns` hold more than whitespace: a model trained on none has nothing to
    read there. Refused in one line naming the first such row and how many there are."""
    empty = [number for number, row in numbered if any(not row[column].strip() for column in columns)]
    if empty:
        others = ", ".join(map(str, empty[1:4])) + (", ..." if len(empty) > 4 else "")
        more = f" (and {len(empty) - 1} more: line{'s' if len(empty) > 2 else ''} {others})" if len(empty) > 1 else ""
        raise ValueError(f"{path}, line {empty[0]}: empty text{more}: give each row its text, or drop the row")


def read_split(path, header, columns, text, pair, label):
    """One split's texts, second texts (None for single sentences) and labels as written, each
    label with where it came from (path, line, string), for the error that names a bad one. A file
    is read and checked once a process while it is unchanged (its inode, size and time of change): a worker
    runs many runs of one task, and SST-2's 67,349 rows take a third of a second. Each call gets
    lists of its own."""
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    stamp = os.stat(path)
    texts, pairs, labels = checked_split(path, (stamp.st_ino, stamp.st_size, stamp.st_mtime_ns), header, columns, text,
                                         pair, label)
    return list(texts), None if pairs is None else list(pairs), list(labels)


@functools.lru_cache(maxsize=8)
def checked_split(path, stamp, header, columns, text, pair, label):
    """read_split's reading and checks, for the file as it is at `stamp`: tuples, shared by
    every call that asks for them."""
    texts, pairs, labels = [], None if pair is None else [], []
    numbered = list(read_rows(path, columns, header))
    check_texts(path, numbered, (text,) if pair is None else (text, pair))
    for number, row in numbered:
        if not row[label].strip():  # else a file of named classes would take "" for one more class
            raise ValueError(f"{path}, line {number}: empty label")
        texts.append(row[text])
        if pair is not None:
            pairs.append(row[pair])
        labels.append((path, number, row[label].strip()))
    if not texts:
        raise ValueError(f"{path}: no examples")
    return tuple(texts), None if pairs is None else tuple(pairs), tuple(labels)


def is_integer(string):
    try:
        int(string)
        return True
    except ValueError:
        return False


def is_number(string):
    try:
        return math.isfinite(float(string))
    except ValueError:
        return False


def class_names(labels):
    """The classes a train split's labels name: None when the labels are the integers 0..C-1 (they
    are the classes), else the distinct names in sorted order, so class 0 is the first name
    alphabetically ('neg' 0, 'pos' 1; 'entailment' 0, 'not_entailment' 1). Other integers (stars
    1..5, -1 and 1) are names too, in numeric order, so a run predicts what the file wrote. Numbers
    that are not integers (0.25, 4.0) are scores, not names: refused, pointing at --regression; so
    are 'nan' and one class in two capitalizations (check_spelled_once)."""
    written = {label for _, _, label in labels}  # each distinct string read once: a split has few
    check_spelled_once(labels, written)
    integers = {label for label in written if is_integer(label)}
    if integers == written:
        numbered = sorted(written, key=lambda label: (int(label), label))
        return None if numbered == [str(c) for c in range(len(numbered))] else numbered
    path, number, label = next(entry for entry in labels if entry[2] not in integers)  # the first that is not
    if all(is_number(label) for label in written):
        # 1.0, 2.0: integers as pandas writes a column of floats (one that once held a missing label)
        whole = all(float(label).is_integer() for label in written)
        fix = f"write them as integers ({int(float(label))}, not {label})" if whole else "write them as integers or names"
        raise ValueError(f"{path}, line {number}: label {label!r} is a number, not a class: pass --regression "
                         f"(make: RUN_FLAGS=--regression) to predict the numbers; if they are classes, {fix}")
    if integers:
        raise ValueError(f"{path}, line {number}: label {label!r} is a name, but other labels are integers: "
                         "use names or integers throughout")
    return sorted(written)


def check_spelled_once(labels, written):
    """Refuse a label that is a missing value written out ('nan') and two spellings of one class ('Pos'
    and 'pos'): either would train as a class of its own. written: the labels' distinct strings."""
    folded = {}
    for label in written:
        folded.setdefault(label.casefold(), []).append(label)
    if not MISSING & set(folded) and all(len(spellings) == 1 for spellings in folded.values()):
        return
    first = {}  # each class's first spelling and its line
    for path, number, label in labels:
        if label.casefold() in MISSING:
            raise ValueError(f"{path}, line {number}: label {label!r} is a missing value written out: "
                             "give the example its label, or drop it")
        spelled, line = first.setdefault(label.casefold(), (label, number))
        if spelled != label:
            raise ValueError(f"{path}, line {number}: label {label!r} is line {line}'s {spelled!r} in other "
                             "capitals: write each class one way (two spellings train as two classes)")


def parse_labels(labels, regression, names):
    """(path, line, string) labels -> float32 scores (regression), or int64 classes: names[i] is
    class i, or with names None the strings are the class numbers."""
    if regression:
        scores = []
        for path, number, label in labels:
            scores.append(float(label) if is_number(label) else math.nan)  # STS-B mixes 5.000, 3 and 1.53333333333333
            if not math.isfinite(scores[-1]):
                raise ValueError(f"{path}, line {number}: regression target {label!r} is not a number")
        return np.array(scores, dtype=np.float32)
    # each distinct string numbered once (SST-2's train split: 67,349 labels, two strings)
    class_of = {name: c for c, name in enumerate(names)} if names is not None else \
        {label: int(label) for label in {label for _, _, label in labels} if is_integer(label)}
    unknown = next((entry for entry in labels if entry[2] not in class_of), None)
    if unknown is not None:
        path, number, label = unknown
        if names is not None:
            raise ValueError(f"{path}, line {number}: label {label!r} is not one of the train split's "
                             f"classes ({', '.join(names)})")
        raise ValueError(f"{path}, line {number}: label {label!r} is not an integer")
    return np.array([class_of[label] for _, _, label in labels], dtype=np.int64)


def check_classes(source, labels, names=None):
    """The train split's classes are 0..C-1 with C >= 2 (names: what the file calls them); C."""
    classes = np.unique(labels)
    if len(classes) < 2:
        only = names[classes[0]] if names else int(classes[0])
        raise ValueError(f"{source}: every label is {only!r}: a classifier needs two classes or more")
    if classes[0] != 0 or classes[-1] != len(classes) - 1:
        raise ValueError(f"{source}: integer labels are the classes 0..C-1, and these are {classes.tolist()}: "
                         "number them from 0 without a gap, or name them")
    return len(classes)


def check_known(source, labels, num_classes, lines=None):
    """Every label of a dev or test split is one of the train split's classes; a bad one named by its
    line in the file (lines: each example's), else by its index (GLUE's idx)."""
    unknown = np.flatnonzero((labels < 0) | (labels >= num_classes))
    if len(unknown):
        where = f"line {lines[unknown[0]]}" if lines is not None else f"example {unknown[0]}"
        raise ValueError(f"{source}, {where}: label {labels[unknown[0]]} is not a class of the train split "
                         f"(0..{num_classes - 1})")


def check_apart(paths, splits, with_dev=True):
    """A dev or test split holds examples of its own: a file whose examples are more than half those of
    an earlier file (the train file's, then the dev file's) is that file again, or part of it, and its
    scores would pick and report what the model has seen (a text re-cased or re-spaced, a spreadsheet's
    doing, is the same text). A few shared texts are common in real tasks (CLINC150's dev holds 3 of its
    3,000 in train) and pass. `with_dev`: the second of `paths` is a dev file."""
    same = lambda text: " ".join(text.split()).casefold()
    examples = [[(same(text), same(pair)) for text, pair in zip(texts, pairs or texts)] for texts, pairs, _ in splits]
    for later in range(1, len(paths)):
        for earlier in range(later):
            seen = set(examples[earlier])
            shared = sum(example in seen for example in examples[later])
            if 2 * shared > len(examples[later]):
                folds = (" (one labelled file is cross-validated: a run's --folds K, make advise's TRAIN_FILE alone, "
                         "advise() given one part)") if with_dev and later == 1 else ""
                raise ValueError(f"{paths[later]}: {shared} of its {len(examples[later])} examples are also in "
                                 f"{paths[earlier]}: a file that picks or reports needs examples of its own{folds}")
