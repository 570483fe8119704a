"""data.py on the real GLUE files in ../shared/glue, on subsets, batches and bad input."""

import numpy as np
import pytest

import data


@pytest.mark.parametrize("task, train, dev, majority", [("sst2", 67349, 872, 0.509),
                                                         ("cola", 8551, 1043, 0.691)])
def test_glue_split_sizes_and_majority_baseline(glue_dir, task, train, dev, majority):
    t = data.load_glue(task, glue_dir)
    assert (len(t.train_texts), len(t.train_labels)) == (train, train)
    assert (len(t.dev_texts), len(t.dev_labels)) == (dev, dev)
    assert t.num_labels == 2
    assert round(np.bincount(t.dev_labels).max() / dev, 3) == majority


def test_cola_reads_the_sentence_column_and_keeps_quotes(glue_dir):
    t = data.load_glue("cola", glue_dir)
    assert t.train_texts[0] == "Our friends won't buy this analysis, let alone the next one we propose."
    assert t.train_labels[0] == 1
    assert any('"' in text for text in t.train_texts)  # QUOTE_NONE keeps them as text


def test_glue_dir_from_environment(glue_dir, monkeypatch):
    monkeypatch.setenv("GLUE_DIR", glue_dir)
    assert len(data.load_glue("sst2").dev_texts) == 872


def test_hub_rows_and_local_rows_give_the_same_mapping(glue_dir):
    datasets = pytest.importorskip("datasets")
    local = data.load_glue("sst2", glue_dir)
    picked = [5, 0, 3, 2]  # hub splits need not be stored in idx order
    split = datasets.Dataset.from_dict({"sentence": [local.dev_texts[i] for i in picked],
                                        "label": [int(local.dev_labels[i]) for i in picked],
                                        "idx": picked})
    texts, labels = data.examples_from_hf(split)
    hub = dict(zip(sorted(picked), zip(texts, labels.tolist())))
    assert hub == {i: (local.dev_texts[i], int(local.dev_labels[i])) for i in picked}


# ---------------------------------------------------------------------------------------------
# subsets

def class_counts(labels, indices, num_classes):
    return np.bincount(labels[indices], minlength=num_classes)


@pytest.mark.parametrize("task", ["sst2", "cola"])
def test_subsets_are_exact_stratified_and_nested(glue_dir, task):
    labels = data.load_glue(task, glue_dir).train_labels
    share = np.bincount(labels) / len(labels)
    subsets = data.make_subsets(labels)
    previous = set()
    for size in data.DEFAULT_SIZES:
        indices = subsets[size]
        assert len(indices) == size and len(set(indices.tolist())) == size
        assert np.all(np.abs(class_counts(labels, indices, 2) - size * share) <= 1)
        assert previous <= set(indices.tolist())
        previous = set(indices.tolist())


def test_subset_files_are_drawn_once_and_redrawn_identically(glue_dir, tmp_path):
    task = data.load_glue("cola", glue_dir)
    first = data.load_subset(task, 100, tmp_path)
    path = tmp_path / "cola" / "size100.npy"
    assert path.exists()
    tampered = first.copy()
    tampered[0] = np.setdiff1d(np.arange(200), first)[0]  # if it were redrawn, this would vanish
    np.save(path, tampered)
    assert np.array_equal(data.load_subset(task, 100, tmp_path), tampered)
    path.unlink()
    assert np.array_equal(data.load_subset(task, 100, tmp_path), first)


def test_sizes_other_than_the_defaults_and_three_classes():
    rng = np.random.default_rng(3)
    labels = rng.choice(3, size=997, p=[0.6, 0.3, 0.1])
    share = np.bincount(labels) / len(labels)
    subsets = data.make_subsets(labels, sizes=(3, 17, 64, 333))
    for size, indices in subsets.items():
        counts = class_counts(labels, indices, 3)
        assert np.all(counts >= 1) and np.all(np.abs(counts - size * share) <= 1), (size, counts)
    assert set(subsets[17]) <= set(subsets[64]) <= set(subsets[333])
    assert np.array_equal(subsets[64], data.make_subsets(labels, sizes=(64,))[64])


def test_size_out_of_range_is_named():
    labels = np.array([0, 1, 2] * 10)
    with pytest.raises(ValueError, match=r"--size 31 is outside \[3, 30\]"):
        data.make_subsets(labels, sizes=(31,))
    with pytest.raises(ValueError, match=r"--size 2 is outside \[3, 30\]"):
        data.make_subsets(labels, sizes=(2,))


# ---------------------------------------------------------------------------------------------
# tokens and batches

def test_length_sorted_batches_cover_every_example_once():
    lengths = [5, 9, 2, 9, 7, 1, 3]
    batches = data.length_sorted_batches(lengths, 3)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(7))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)


def test_tokenize_truncates_and_does_not_pad():
    import checkpoint
    tokenizer = checkpoint.load_tokenizer(checkpoint.checkpoint_folder("minilm"))
    ids = data.tokenize(tokenizer, ["a film .", "word " * 600], max_length=512)
    assert len(ids[0]) == 5 and len(ids[1]) == 512  # [CLS] a film . [SEP]; truncated long one


# ---------------------------------------------------------------------------------------------
# a user's own task, and bad input

def write(path, text):
    path.write_text(text)
    return str(path)


def test_user_csv_with_three_classes_goes_through_subsets_and_batches(tmp_path):
    rows = [f'"text, number {i}",{i % 3}\n' for i in range(60)]
    train = write(tmp_path / "train.csv", "text,stars\n" + "".join(rows))
    dev = write(tmp_path / "dev.csv", "text,stars\n" + "".join(rows[:12]))
    task = data.load_csv_task(train, dev, text_column="text", label_column="stars")
    assert task.num_labels == 3 and task.train_texts[4] == "text, number 4"
    indices = data.load_subset(task, 9, tmp_path / "splits")
    assert np.bincount(task.train_labels[indices]).tolist() == [3, 3, 3]
    assert sorted(task.train_texts[i] for i in indices) == sorted(f"text, number {i}" for i in indices)


def test_user_tsv(tmp_path):
    train = write(tmp_path / "train.tsv", 'sentence\tlabel\nsay "hi"\t0\nbye\t1\n')
    task = data.load_csv_task(train, train)
    assert task.train_texts == ['say "hi"', "bye"]


@pytest.mark.parametrize("train_text, dev_text, message", [
    ("sentence,label\na,0\nb,1,extra\n", None, r"train.csv, line 3: expected 2 columns, found 3"),
    ("sentence,label\na,0\nb,yes\n", None, r"train.csv, line 3: label 'yes' is not an integer"),
    ("sentence,label\na,0\n ,1\n", None, r"train.csv, line 3: empty text"),
    ("sentence,label\na,0\nb,1\n", "sentence,label\na,0\nb,2\n", r"dev.csv, example 1: label 2 is not a class"),
    ("sentence,label\na,1\nb,2\n", None, r"train labels must be the classes 0..C-1"),
    ("text,label\na,0\nb,1\n", None, r"no column 'sentence'"),
])
def test_bad_user_files_are_named(tmp_path, train_text, dev_text, message):
    train = write(tmp_path / "train.csv", train_text)
    dev = write(tmp_path / "dev.csv", dev_text or train_text)
    with pytest.raises(ValueError, match=message):
        data.load_csv_task(train, dev)


def test_missing_file_unknown_task_and_wrong_glue_dir(tmp_path):
    with pytest.raises(ValueError, match="nope.csv: no such file"):
        data.load_csv_task(str(tmp_path / "nope.csv"), str(tmp_path / "nope.csv"))
    with pytest.raises(ValueError, match="unknown task 'mnli'"):
        data.load_glue("mnli", str(tmp_path))
    with pytest.raises(ValueError, match="has no SST-2/ folder"):
        data.load_glue("sst2", str(tmp_path))


def test_bad_glue_row_is_named(tmp_path):
    (tmp_path / "SST-2").mkdir()
    write(tmp_path / "SST-2" / "train.tsv", "sentence\tlabel\ngood \t1\nbad \tnegative\n")
    write(tmp_path / "SST-2" / "dev.tsv", "sentence\tlabel\ngood \t1\n")
    with pytest.raises(ValueError, match=r"train.tsv, line 3: label 'negative' is not an integer"):
        data.load_glue("sst2", str(tmp_path))


def test_hub_unreachable_names_glue_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("GLUE_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(ValueError, match="--glue-dir"):
        data.load_glue("sst2")


def test_write_atomically_leaves_nothing_when_the_writer_fails(tmp_path):
    path = tmp_path / "sub" / "result.json"
    data.write_atomically(str(path), lambda f: f.write(b"old"))

    def half_then_fail(f):
        f.write(b"half")
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        data.write_atomically(str(path), half_then_fail)
    assert path.read_bytes() == b"old" and [p.name for p in path.parent.iterdir()] == ["result.json"]
