"""study/search/folds.py: make advise from one labelled file searches its folds as seeds, keeps the
pick trained on every label and scores that on the test file; a file its folds cannot cut is
refused in one line before any run; FINAL=all keeps the pick trained on train and dev together."""

import json
import shutil

import numpy as np
import pytest

import data
import result
from conftest import ADVISE, advise_here, files_in
from study.folder import load_results
from study.search import advise, folds


def labelled(folder, rows=48, label=lambda i: i % 2):
    """One labelled file, its first word telling the class, and a test file of other texts."""
    words = ["good", "bad", "fine", "dull", "great", "awful"]
    (folder / "labelled.tsv").write_text("sentence\tlabel\n" + "".join(
        f"{words[i % 6]} film {i}\t{label(i)}\n" for i in range(rows)))
    (folder / "test.tsv").write_text("sentence\tlabel\n" + "".join(f"{w} film\t{i % 2}\n" for i, w in enumerate(["good", "bad"] * 6)))
    return str(folder / "labelled.tsv")


def command(tmp, train, *extra, size="24"):
    return [*ADVISE, str(tmp / "results"), "--size", size, "--budget", "0.5",
            "--seeds", "3", "--depths", "3", "--methods", "finetune", "probe", "--save", str(tmp / "saved"),
            "--splits-dir", str(tmp / "splits"), "--epochs", "1", *extra, "--", "--dataset", "tiny",
            "--train-file", train, "--cache-dir", str(tmp / "cache"), "--precision", "fp32"]


@pytest.fixture(scope="module")
def searched(tiny_bert, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("one-file")
    train = labelled(tmp)
    done = advise_here([*command(tmp, train, "--test-file", str(tmp / "test.tsv")), "--model", tiny_bert])
    return tmp, train, done


def test_a_search_of_one_file_reads_its_folds_as_seeds_each_fold_scored_once(searched):
    tmp, train, done = searched
    assert done.returncode == 0, done.stdout + done.stderr
    runs = load_results(str(tmp / "results"), figure="score")
    assert runs and all(run["config"]["folds"] == 3 and run["dev_size"] == 8 for run in runs)
    task = data.load_csv_task(train, None, "sentence")
    subset = data.load_subset(task, 24, str(tmp / "splits"))
    by_cell = {}
    for run in runs:
        by_cell.setdefault(result.cell_of(run["config"]), []).append(run)
    full = [cell_runs for cell_runs in by_cell.values() if len(cell_runs) == 3]
    assert full  # the pick at least has every fold: together they score each row of the subset once
    for cell_runs in full:
        scored = sorted(np.concatenate([data.fold_positions(task, subset, 3, r["config"]["seed"])[1] for r in cell_runs]))
        assert scored == list(range(24))


def test_the_pick_is_kept_trained_on_every_label_and_scored_on_the_test_file(searched):
    tmp, _, done = searched
    kept = json.loads((tmp / "saved.json").read_text())
    assert kept["config"]["final"] and kept["config"]["train_examples"] == 24 and kept["dev_size"] == 12
    assert (tmp / "saved").is_dir()
    report = (tmp / "results" / "advise.md").read_text()
    assert "The model kept is the pick trained once more on every label given, 24 examples; on your test file" in report
    assert "(the final model; the pick's runs" in done.stdout


def test_a_final_model_that_did_not_learn_its_labels_is_not_kept(searched, tiny_bert, tmp_path):
    """The search resumed where the final model it kept scores its own labels below the pick's runs
    on their folds (its record edited so: a rate that diverged over more steps): one of the pick's
    own runs' models is kept instead, fold 1's, and the report says why."""
    tmp, train, _ = searched
    for name in ("results", "splits", "cache", "saved"):
        shutil.copytree(tmp / name, tmp_path / name)
    kept = json.loads((tmp / "saved.json").read_text())
    kept["train_at_score"] = {name: 0.0 for name in kept["train_at_score"]}
    (tmp_path / "saved.json").write_text(json.dumps(kept))
    done = advise_here([*command(tmp_path, train, "--test-file", str(tmp / "test.tsv")), "--model", tiny_bert])
    assert done.returncode == 0, done.stdout + done.stderr
    now = json.loads((tmp_path / "saved.json").read_text())
    assert not now["config"].get("final") and now["config"]["seed"] == 1 and now["config"]["folds"] == 3
    report = (tmp_path / "results" / "advise.md").read_text()
    assert "The pick trained on every label (24 examples) scored 0.000 on them, below the" in report
    assert "it did not learn them" in done.stdout and "(the model kept, seed 1;" in done.stdout


def test_the_final_model_is_kept_only_where_it_scores_its_labels_as_the_pick_scores_unseen_ones(tmp_path):
    picks = {1: {"curve": [], "at_score": {"macro_f1": 0.70}}, 2: {"curve": [], "at_score": {"macro_f1": 0.66}}}
    def record(trained):
        (tmp_path / "r.json").write_text(json.dumps({"config": {"train_examples": 385}, "train_at_score": trained}))
        return str(tmp_path / "r.json")
    assert folds.unlearnt(record({"macro_f1": 0.99}), picks, "macro_f1") is None
    assert folds.unlearnt(record({"macro_f1": 0.68}), picks, "macro_f1") is None  # at the runs' mean: learnt
    said = folds.unlearnt(record({"macro_f1": 0.45}), picks, "macro_f1")
    assert said.startswith("The pick trained on every label (385 examples) scored 0.450 on them, below the 0.680")
    assert "scored nothing on them" in folds.unlearnt(record(None), picks, "macro_f1")


@pytest.mark.parametrize("rows, label, size, message", [
    (24, lambda i: "neg" if i < 2 else "pos", "24", "labelled.tsv: the class 'neg' has 2 examples, fewer than the 3 folds"),
    (24, lambda i: "anger", "24", "labelled.tsv: every label is 'anger': a classifier needs two classes or more"),
    (5, lambda i: i % 2, "5", "labelled.tsv: 5 examples cannot make 3 folds that each hold one of each"),
])
def test_a_file_its_folds_cannot_cut_is_refused_in_one_line_before_any_run(tiny_bert, tmp_path, rows, label, size, message):
    train = labelled(tmp_path, rows, label)
    before = files_in(tmp_path)
    done = advise_here(command(tmp_path, train, size=size) + ["--model", tiny_bert])
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert files_in(tmp_path) == before


def test_the_final_model_s_options_drop_the_folds_and_train_on_every_label():
    flags = ["--train-file", "a.csv", "--folds", "5", "--text-column", "text"]
    assert folds.final_flags(flags, "t.csv") == ["--train-file", "a.csv", "--text-column", "text", "--final",
                                                 "--test-file", "t.csv"]
    assert folds.one_file(flags) and not folds.one_file(["--train-file", "a", "--dev-file", "b"])


@pytest.mark.parametrize("data, message", [
    (("train.csv", "dev.csv", "test.csv"), r"one labelled file or \(train, dev\), not 3 parts \(a test file is the test_file"),
    (((["a", "b"], [0, 1], [1, 0]), (["c"], [1])), r"a CSV's path, a DataFrame or \(texts, labels\), not 3 things"),
])
def test_the_notebook_call_refuses_data_of_other_shapes_before_any_work(tmp_path, data, message):
    with pytest.raises(ValueError, match=message):
        advise.advise(data, "minilm", 16, 1, str(tmp_path / "results"))
    assert not (tmp_path / "results").exists()


def test_final_all_without_your_own_files_is_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        advise.main([str(tmp_path / "results"), "--size", "200", "--budget", "1", "--depths", "1", "--final", "all",
                     "--", "--dataset", "sst2"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "--final all (FINAL=all) trains the pick on your own" in err
    assert not (tmp_path / "results").exists()
