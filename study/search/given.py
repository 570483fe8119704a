"""
What advise() is given from Python, as the files a search reads: a CSV's path as it is, or examples
held in memory written into the search's folder under its text and label columns (FOLDER/train.csv,
dev.csv, test.csv), kept there so that a later call resumes on them.

    data         one labelled file:  "labelled.csv" | (texts, labels) | a DataFrame      (cross-validated)
                 train and dev:      ("train.csv", "dev.csv") | ((texts, labels), (texts, labels)) | (df, df)
    test_file=   a path | (texts, labels) | a DataFrame                                 (read by no choice)

texts and labels: lists, tuples, numpy arrays or pandas Series. A DataFrame gives its text_column and
label_column (pandas is not imported here: a DataFrame is known by its columns).
"""

import contextlib
import csv
import io
import math
import numbers
import os

from atomic import write_atomically
from study.folder import ROUNDS
from study.search import prior


def parts_of(data):
    """advise()'s `data` as a list of one part (one labelled file) or two (train, dev)."""
    parts = [data] if one_part(data) else list(data)  # one labelled file: cross-validated (study/search/folds.py)
    if len(parts) not in (1, 2):
        raise ValueError(f"advise()'s data: one labelled file or (train, dev), not {len(parts)} parts "
                         "(a test file is the test_file setting)")
    return parts


def one_part(data):
    """Whether advise()'s `data` is one labelled file: a path, a DataFrame, or (texts, labels), each a
    list, a tuple, a numpy array or a pandas Series (a text is a str; numpy's are too)."""
    if isinstance(data, (str, os.PathLike)) or is_table(data):
        return True
    texts = data[0] if len(data) == 2 else None
    return texts is not None and not isinstance(texts, (str, os.PathLike)) and not is_table(texts) \
        and len(texts) > 0 and isinstance(next(iter(texts)), str)


def is_table(part):
    """A pandas DataFrame (or anything with named columns to select): iterating it would give its
    columns' names, not its rows."""
    return hasattr(part, "columns") and hasattr(part, "loc")


def as_csv(part, path, columns):
    """A CSV path as given, or (texts, labels) or a DataFrame's `columns` written to `path` under
    `columns` (kept: a later call resumes; one with other examples is refused once a search began on
    them, and replaces those of a call stopped before)."""
    if isinstance(part, (str, os.PathLike)):
        return os.fspath(part)
    if is_table(part):
        missing = [name for name in columns if name not in part.columns]
        if missing:
            raise ValueError(f"advise() was given a DataFrame without a column {missing[0]!r} (its columns: "
                             f"{', '.join(map(str, part.columns))}): name yours with text_column= and label_column=")
        part = part[columns[0]], part[columns[1]]
    if len(part) != 2:
        raise ValueError(f"advise()'s data: a CSV's path, a DataFrame or (texts, labels), not {len(part)} things")
    texts, labels = part
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts and {len(labels)} labels: give each text its label")
    table = io.StringIO()
    rows = csv.writer(table)
    rows.writerow(columns)
    rows.writerows((field(text), field(label)) for text, label in zip(texts, labels))
    if os.path.exists(path):  # a call resumed; other examples would meet the runs of the first ones
        with open(path, "rb") as f:
            if f.read() == table.getvalue().encode():
                return path
        if search_began(os.path.dirname(path)):
            raise ValueError(f"{path} holds other examples than these, and the folder's search began on them: "
                             "give another folder")
    write_atomically(path, lambda f: f.write(table.getvalue().encode()))
    return path


def field(value):
    """A value as the CSV holds it; a missing one (None, NaN, pandas' NA) empty, so that the file's
    checks refuse it by its line as they refuse an empty field a user wrote, not train on 'nan'."""
    missing = value is None or type(value).__name__ == "NAType" or (isinstance(value, numbers.Real) and math.isnan(value))
    return "" if missing else value


def search_began(folder):
    """Whether a search began in `folder`: its rounds, or its checkpoints' priors, are there."""
    return any(os.path.exists(os.path.join(folder, name)) for name in (ROUNDS, prior.PRIORS))


@contextlib.contextmanager
def removed_if_refused(folder, new_files):
    """A call refused before its search began leaves no file it wrote (`new_files`: its CSVs that
    were not there before), nor the folder where it made it."""
    made = not os.path.exists(folder)
    try:
        yield
    except ValueError:
        if not search_began(folder):
            for path in new_files:
                if os.path.exists(path):
                    os.remove(path)
            if made and os.path.isdir(folder) and not os.listdir(folder):
                os.rmdir(folder)
        raise
