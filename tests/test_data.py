"""data.py on the real GLUE files in ../shared/glue, on subsets, batches and bad input."""

import numpy as np
import pytest

import checkpoint
import hub
import data


@pytest.mark.parametrize("task, train, dev, majority", [("sst2", 67349, 872, 0.509),
                                                         ("cola", 8551, 1043, 0.691),
                                                         ("mrpc", 3668, 408, 0.684),
                                                         ("rte", 2490, 277, 0.527)])
def test_glue_split_sizes_and_majority_baseline(glue_dir, task, train, dev, majority):
    t = data.load_glue(task, glue_dir)
    assert (len(t.train_texts), len(t.train_labels)) == (train, train)
    assert (len(t.dev_texts), len(t.dev_labels)) == (dev, dev)
    assert t.num_labels == 2
    assert round(np.bincount(t.dev_labels).max() / dev, 3) == majority


def test_pair_tasks_read_both_sentences_and_their_labels(glue_dir):
    # the counts of ../shared/glue/README.md: quoting off keeps every row (MRPC train is 3,668
    # rows, not CSV-quoting's 3,570), and MRPC's byte-order mark does not break its header
    mrpc = data.load_glue("mrpc", glue_dir)
    assert np.bincount(mrpc.train_labels).tolist() == [1194, 2474] and mrpc.metric == "f1"
    assert len(mrpc.train_pairs) == 3668 and mrpc.train_texts[0] != mrpc.train_pairs[0]
    assert any(text.startswith('"') for text in mrpc.train_texts + mrpc.train_pairs)
    rte = data.load_glue("rte", glue_dir)  # labels are words: entailment 0, not_entailment 1, as the hub's
    assert rte.label_names == ["entailment", "not_entailment"]
    assert np.bincount(rte.train_labels).tolist() == [1249, 1241] and np.bincount(rte.dev_labels).tolist() == [146, 131]
    stsb = data.load_glue("stsb", glue_dir)
    assert stsb.regression and stsb.num_labels == 1 and stsb.metric == "spearman"
    assert stsb.train_labels.dtype == np.float32 and len(stsb.train_labels) == 5749
    assert stsb.train_labels.min() == 0 and stsb.train_labels.max() == 5
    assert round(float(stsb.train_labels.mean()), 2) == 2.70 and round(float(stsb.dev_labels.mean()), 2) == 2.36


def test_regression_subsets_are_stratified_on_score_bins(glue_dir, tmp_path):
    stsb = data.load_glue("stsb", glue_dir)
    bins = data.strata(stsb)
    share = np.bincount(bins) / len(bins)
    assert len(share) == data.SCORE_BINS and share.min() > 0.1
    indices = data.load_subset(stsb, 200, tmp_path)
    assert np.all(np.abs(np.bincount(bins[indices]) - 200 * share) <= 1)
    assert data.load_subset(stsb, "all", tmp_path).tolist() == list(range(5749))


def test_pairs_tokenize_with_segments_for_bert():
    tokenizer = checkpoint.load_tokenizer(hub.checkpoint_folder("minilm"))
    [pair] = data.tokenize(tokenizer, ["a film ."], 512, pairs=["it was good"])
    # [CLS] a film . [SEP] it was good [SEP]: segment 0 up to the first [SEP], 1 after
    assert pair.shape == (9, 2) and pair[:, 1].tolist() == [0] * 5 + [1] * 4
    assert pair[:, 0].tolist() == tokenizer("a film .", "it was good")["input_ids"]
    [single] = data.tokenize(tokenizer, ["a film ."], 512)
    assert single.shape == (5,)
    [long_pair] = data.tokenize(tokenizer, ["word " * 200], 128, pairs=["short one"])
    assert len(long_pair) == 128 and long_pair[-3:, 1].tolist() == [1, 1, 1]  # the long text is cut


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
    texts, pairs, labels = data.examples_from_hf(split)
    hub = dict(zip(sorted(picked), zip(texts, labels.tolist())))
    assert pairs is None and hub == {i: (local.dev_texts[i], int(local.dev_labels[i])) for i in picked}
    # a pair task's columns: sentence1, sentence2 (glue/rte's labels are 0 = entailment, as ours)
    rte = data.load_glue("rte", glue_dir)
    split = datasets.Dataset.from_dict({"sentence1": [rte.dev_texts[i] for i in picked],
                                        "sentence2": [rte.dev_pairs[i] for i in picked],
                                        "label": [int(rte.dev_labels[i]) for i in picked], "idx": picked})
    texts, pairs, labels = data.examples_from_hf(split)
    assert list(zip(texts, pairs, labels.tolist())) == [
        (rte.dev_texts[i], rte.dev_pairs[i], int(rte.dev_labels[i])) for i in sorted(picked)]


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
# tokens

def test_tokenize_truncates_and_does_not_pad():
    tokenizer = checkpoint.load_tokenizer(hub.checkpoint_folder("minilm"))
    ids = data.tokenize(tokenizer, ["a film .", "word " * 600], max_length=512)
    assert len(ids[0]) == 5 and len(ids[1]) == 512  # [CLS] a film . [SEP]; truncated long one


# ---------------------------------------------------------------------------------------------
# a user's own task, and bad input

def write(path, text):
    path.write_text(text)
    return str(path)


def test_user_csv_with_three_classes_goes_through_subsets_and_batches(tmp_path):
    rows = [f'"text, number {i}",{i % 3}\n' for i in range(72)]
    train = write(tmp_path / "train.csv", "text,stars\n" + "".join(rows[:60]))
    dev = write(tmp_path / "dev.csv", "text,stars\n" + "".join(rows[60:]))
    task = data.load_csv_task(train, dev, text_column="text", label_column="stars")
    assert task.num_labels == 3 and task.train_texts[4] == "text, number 4"
    indices = data.load_subset(task, 9, tmp_path / "splits")
    assert np.bincount(task.train_labels[indices]).tolist() == [3, 3, 3]
    assert sorted(task.train_texts[i] for i in indices) == sorted(f"text, number {i}" for i in indices)


def test_user_csv_without_a_text_column_named_reads_each_file_s_text_or_sentence(tmp_path):
    train = write(tmp_path / "train.csv", "label,text\n" + "".join(f"{i % 2},train {i}\n" for i in range(20)))
    dev = write(tmp_path / "dev.csv", "sentence,label\n" + "".join(f"dev {i},{i % 2}\n" for i in range(6)))
    task = data.load_csv_task(train, dev)
    assert task.train_texts[3] == "train 3" and task.dev_texts[5] == "dev 5" and task.num_labels == 2


def test_user_integer_labels_other_than_0_to_c_minus_1_are_class_names(tmp_path):
    """Stars 1..5 (here 1, 2 and 10) are what the file calls its classes: numbered in numeric order,
    and the file's own integers are what a run predicts (label_names)."""
    train = write(tmp_path / "train.csv", "text,stars\n" + "".join(f"t{i},{(1, 2, 10)[i % 3]}\n" for i in range(9)))
    dev = write(tmp_path / "dev.csv", "text,stars\na,10\nb,1\n")
    test = write(tmp_path / "test.csv", "text,stars\nc,2\n")
    task = data.load_csv_task(train, dev, label_column="stars", test_file=test)
    assert task.label_names == ["1", "2", "10"] and task.num_labels == 3
    assert task.train_labels[:3].tolist() == [0, 1, 2] and task.dev_labels.tolist() == [2, 0]


def test_a_test_file_without_labels_is_pointed_at_predict_py(tmp_path):
    """A test file is scored, so it needs labels; texts to label go to predict.py, and the line says so."""
    train = write(tmp_path / "train.csv", "text,label\n" + "".join(f"t{i},{i % 2}\n" for i in range(8)))
    dev = write(tmp_path / "dev.csv", "text,label\na,0\nb,1\n")
    test = write(tmp_path / "test.csv", "text\nc\nd\n")
    with pytest.raises(ValueError, match=r"test.csv: no column 'label' in the header \['text'\]; set --label-column NAME "
                                         r".*: a test file is scored on its labels \(texts to label: predict.py\)$"):
        data.load_csv_task(train, dev, test_file=test)


def test_user_pairs_named_labels_and_regression(tmp_path):
    rows = [f'q{i},"passage, {i}",{"spam" if i % 3 else "ham"},{i / 7:.3f}\n' for i in range(40)]
    train = write(tmp_path / "train.csv", "question,passage,kind,score\n" + "".join(rows[:30]))
    dev = write(tmp_path / "dev.csv", "question,passage,kind,score\n" + "".join(rows[30:]))
    task = data.load_csv_task(train, dev, "question", "kind", pair_column="passage")
    assert task.label_names == ["ham", "spam"] and task.train_labels[:3].tolist() == [0, 1, 1]
    assert task.train_pairs[1] == "passage, 1" and task.metric == "accuracy"
    scores = data.load_csv_task(train, dev, "question", "score", pair_column="passage", regression=True)
    assert scores.num_labels == 1 and scores.train_labels[7] == pytest.approx(1.0) and scores.metric == "spearman"


@pytest.mark.parametrize("text, message, options", [
    ("question,label\na,0\n", r"no column 'passage' .* set --text-pair-column", dict(pair_column="passage")),
    ("question,passage,label\na,b,0\nc, ,1\n", r"train.csv, line 3: empty text", dict(pair_column="passage")),
    ("question,passage,label\na,b,0.5\nc,d,lots\n", r"train.csv, line 3: regression target 'lots' is not a number",
     dict(pair_column="passage", regression=True)),
    ("question,passage,label\na,b,0.5\nc,d,nan\n", r"regression target 'nan' is not a number", dict(regression=True)),
])
def test_bad_pair_and_regression_files_are_named(tmp_path, text, message, options):
    train = write(tmp_path / "train.csv", text)
    with pytest.raises(ValueError, match=message):
        data.load_csv_task(train, train, "question", "label", **options)


def test_blank_lines_are_no_examples_and_a_bad_row_keeps_its_line(tmp_path):
    train = write(tmp_path / "train.csv", "sentence,label\na,pos\n\nb,neg\n\n")
    dev = write(tmp_path / "dev.csv", "sentence,label\nc,pos\n")
    assert data.load_csv_task(train, dev).train_texts == ["a", "b"]
    bad = write(tmp_path / "bad.csv", "sentence,label\na,pos\n\nb\n")
    with pytest.raises(ValueError, match=r"bad.csv, line 4: expected 2 columns, found 1"):
        data.load_csv_task(bad, bad)


def test_user_tsv(tmp_path):
    train = write(tmp_path / "train.tsv", 'sentence\tlabel\nsay "hi"\t0\nbye\t1\n')
    task = data.load_csv_task(train, write(tmp_path / "dev.tsv", "sentence\tlabel\nhello\t0\n"))
    assert task.train_texts == ['say "hi"', "bye"]


@pytest.mark.parametrize("train_text, dev_text, message", [
    ("sentence,label\na,0\nb,1,extra\n", None, r"train.csv, line 3: expected 2 columns, found 3"),
    ("sentence,label\na,0\nb,yes\n", None, r"train.csv, line 3: label 'yes' is a name, but other labels are integers"),
    ("sentence,label\na,pos\nb,neg\n", "sentence,label\na,pos\nb,neutral\n",
     r"dev.csv, line 3: label 'neutral' is not one of the train split's classes \(neg, pos\)"),
    ("sentence,label\na,0\nb,1\n", "sentence,label\na,0\nb,pos\n", r"dev.csv, line 3: label 'pos' is not an integer"),
    ("sentence,label\na,0\n ,1\n", None, r"train.csv, line 3: empty text"),
    ("sentence,label\na,pos\nb,neg\nc, \n", None, r"train.csv, line 4: empty label"),
    ("sentence,label\na,pos\nb,neg\n", "sentence,label\na,pos\nb,\n", r"dev.csv, line 3: empty label"),
    ("sentence,label\na,0\nb,1\n", "sentence,label\na,0\nb,2\n", r"dev.csv, line 3: label 2 is not a class"),
    ("sentence,label\na,1\nb,3\n", "sentence,label\na,1\nb,2\n",
     r"dev.csv, line 3: label '2' is not one of the train split's classes \(1, 3\)"),
    ("sentence,label\na,anger\nb,anger\n", None, r"train.csv: every label is 'anger': a classifier needs two classes"),
    ("tweet,label\na,0\nb,1\n", None, r"no column 'sentence' or 'text'"),
    ("text,stars\na,0\nb,1\n", None,  # make's runs take a column's option in RUN_FLAGS, and the line says so
     r"no column 'label' in the header \['text', 'stars'\]; set --label-column NAME \(make: RUN_FLAGS=\"--label-column NAME\"\)"),
    ("tweet,label\na,0\nb,1\n", None, r"set --text-column NAME \(make: RUN_FLAGS=\"--text-column NAME\"\)"),
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


def test_an_unreachable_hub_loads_glue_from_the_local_cache_alone(monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(hub, "hub_reachable", lambda: False)
    for flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.setattr(datasets.config, flag, False)
    seen = []
    def load_dataset(*args):
        seen.append((datasets.config.HF_HUB_OFFLINE, datasets.config.HF_DATASETS_OFFLINE))
        raise ConnectionError("no network")
    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    with pytest.raises(ValueError, match="--glue-dir"):
        data.load_glue_hub("sst2")
    assert seen == [(True, True)]  # offline before the first request, so no retries


# ----------------------------------------------------------------------------------------------
# One labelled file's folds

def test_folds_are_stratified_within_one_example_and_the_same_on_any_call():
    labels = np.array([0] * 23 + [1] * 11 + [2] * 6)
    fold = data.fold_of(labels, 5)
    assert sorted(set(fold)) == [1, 2, 3, 4, 5] and (data.fold_of(labels, 5) == fold).all()
    sizes = np.bincount(fold)[1:]
    assert sizes.max() - sizes.min() <= 1  # 40 examples: 8 a fold
    for c in range(3):  # each class dealt round the folds: its share in every fold within one example
        per_fold = np.bincount(fold[labels == c], minlength=6)[1:]
        assert per_fold.max() - per_fold.min() <= 1


def one_file_task(labels):
    return data.make_task("mine", ([f"text {i}" for i in range(len(labels))], None, labels), None,
                          ("mine.csv", None), False, None, "accuracy")


def test_a_fold_is_scored_once_and_trained_on_by_every_other_fold():
    task = one_file_task([0, 1] * 15)
    subset = np.arange(30)[::-1]  # the subset's own order: positions, not rows
    scored = [data.fold_positions(task, subset, 3, fold)[1] for fold in (1, 2, 3)]
    assert sorted(np.concatenate(scored).tolist()) == list(range(30))  # every example scored once
    trained, held = data.fold_positions(task, subset, 3, 2)
    assert not set(trained) & set(held) and len(trained) + len(held) == 30
    dev = data.held_out_fold(task, subset[held])
    assert dev.dev_texts == [task.train_texts[i] for i in subset[held]]
    assert (dev.dev_labels == task.train_labels[subset[held]]).all() and dev.train_texts == task.train_texts


def test_every_label_trains_on_the_subset_and_the_dev_split_and_is_scored_on_the_test_file():
    task = data.make_task("mine", (["a", "b", "c", "d"], None, [0, 1, 0, 1]), (["e", "f"], None, [1, 0]),
                          ("train.csv", "dev.csv"), False, None, "accuracy")
    task.test_texts, task.test_pairs, task.test_labels = ["g"], None, np.array([1])
    final, rows = data.every_label(task, np.array([2, 1]))
    assert final.train_texts == ["c", "b", "e", "f"] and final.train_labels.tolist() == [0, 1, 1, 0]
    assert rows.tolist() == [0, 1, 2, 3]
    assert final.dev_texts == ["g"] and final.test_texts is None  # the test file is its dev split, scored once
    alone, _ = data.every_label(one_file_task([0, 1, 0]), np.array([0, 1, 2]))
    assert alone.train_texts == alone.dev_texts == ["text 0", "text 1", "text 2"]


@pytest.mark.parametrize("labels, message", [
    ([0] * 20 + [1] * 2, "mine.csv: the class 1 has 2 examples, fewer than the 3 folds"),
    ([0, 1, 0, 1, 0], "mine.csv: 5 examples cannot make 3 folds that each hold one of each of its 2 classes: "
                      "that needs 6 at least"),
])
def test_a_file_too_small_for_its_folds_is_refused_naming_the_class(labels, message):
    task = one_file_task(labels)
    with pytest.raises(ValueError, match=message):
        data.check_folds(task, np.arange(len(labels)), 3, "mine.csv")
