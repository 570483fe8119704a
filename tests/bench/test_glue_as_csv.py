"""bench/glue_as_csv.py: a GLUE task's files written as a user's CSVs read back, through the
user's way in (data.load_csv_task), as the same task: train and test together GLUE's train split,
dev its dev split, each example with its label."""

import sys
from collections import Counter

import numpy as np
import pytest

from bench import glue_as_csv
import data


@pytest.mark.parametrize("task, pair, regression", [("cola", None, False), ("rte", "sentence2", False),
                                                     ("stsb", "sentence2", True)])
def test_a_glue_task_as_csv_files_is_the_same_task(tmp_path, glue_dir, monkeypatch, task, pair, regression):
    folder = f"{glue_dir}/{data.GLUE_TASKS[task].folder}"
    monkeypatch.setattr(sys, "argv", ["glue_as_csv", folder, str(tmp_path), "--test", "50"])
    glue_as_csv.main()
    glue = data.load_glue(task, glue_dir)
    label = "score" if regression else "label"
    user = data.load_csv_task(f"{tmp_path}/train.csv", f"{tmp_path}/dev.csv", pair and "sentence1", label, pair, regression,
                              test_file=f"{tmp_path}/test.csv")
    assert len(user.test_texts) == 50 and user.train_texts[:50] != glue.train_texts[:50]  # held out, shuffled

    def named(texts, pairs, labels, names):  # each example with its label as the files name it
        labels = [names[y] if names else y for y in np.asarray(labels).tolist()]
        return Counter(zip(texts, pairs or [None] * len(texts), np.round(labels, 3) if regression else labels))

    assert (named(user.train_texts + user.test_texts, (user.train_pairs or []) + (user.test_pairs or []),
                  np.concatenate([user.train_labels, user.test_labels]), user.label_names)
            == named(glue.train_texts, glue.train_pairs, glue.train_labels, glue.label_names))
    assert (named(user.dev_texts, user.dev_pairs, user.dev_labels, user.label_names)
            == named(glue.dev_texts, glue.dev_pairs, glue.dev_labels, glue.label_names))
