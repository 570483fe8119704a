"""What a run refuses before it trains (plan.py, and the files data.py reads for it): bad options,
your own files wrong, a results folder that holds other runs (another dev file, precision or
pooling), a result already there, an unreachable hub. Each is one line and exit code 2, and leaves
every file as it was."""

import json
import re
import shutil

import pytest

import freeze_study
import tables
from conftest import (assert_refused_in_one_line, bad_files, cli, files_in, pair_scores_csv, run,
                      sentiment_csvs)


def test_a_folder_s_runs_are_scored_on_one_dev_file(tmp_path, tiny_bert, capsys):
    """Your own dev file's name and content name the split a run is scored on: a run scored on the
    edited file does not join the runs scored on the file as it was, which it would be read beside."""
    train, dev, _ = sentiment_csvs(tmp_path)
    argv = ["--model", tiny_bert, "--train-file", train, "--dev-file", dev, "--text-column", "text", "--size", "24",
            "--freeze", "3", "--probe", "--cache-dir", str(tmp_path / "cache"), "--splits-dir", str(tmp_path / "splits"),
            "--quiet", "--precision", "fp32", "--out", str(tmp_path / "results" / "probe.json")]
    first = freeze_study.run(freeze_study.parse_args(argv))
    assert first["config"]["dev"].startswith("dev-")
    with open(dev, "a") as f:
        f.write("good fun 99 ok,pos\n")
    with pytest.raises(SystemExit) as e:
        freeze_study.main(argv[:-1] + [str(tmp_path / "results" / "again.json")])
    assert e.value.code == 2
    assert f"holds runs scored on {first['config']['dev']} (probe.json) and this one is scored on dev-" \
        in capsys.readouterr().err
    assert not (tmp_path / "results" / "again.json").exists()


def test_bad_test_file_is_one_line(tmp_path, tiny_bert, glue_dir, capsys):
    train, dev, test = sentiment_csvs(tmp_path)
    (tmp_path / "odd.csv").write_text("text,label\nsome text,neutral\n")
    common = ["--model", tiny_bert, "--text-column", "text", "--size", "24", "--out", str(tmp_path / "r.json"),
              "--splits-dir", str(tmp_path / "splits"), "--quiet"]
    for extra, message in ((["--glue-dir", glue_dir, "--test-file", test], "--test-file goes with your own --train-file"),
                           (["--train-file", train, "--dev-file", dev, "--test-file", str(tmp_path / "odd.csv")],
                            "label 'neutral' is not one of the train split's classes"),
                           (["--train-file", train, "--dev-file", dev, "--test-file", str(tmp_path / "none.csv")],
                            "none.csv: no such file")):
        assert_refused_in_one_line(common + extra, message, capsys)
    assert not (tmp_path / "r.json").exists()


def test_one_of_your_own_files_alone_a_long_text_and_latin_1_bytes_are_one_line(tmp_path, tiny_bert, capsys):
    """--train-file without --dev-file (and the reverse), before any file is read; a field past the
    csv module's 131,072 characters is a text; bytes that are not UTF-8 are named by file and line."""
    train, dev, _ = sentiment_csvs(tmp_path)
    common = ["--model", tiny_bert, "--text-column", "text", "--size", "24", "--out", str(tmp_path / "r.json"),
              "--splits-dir", str(tmp_path / "splits"), "--quiet"]
    (tmp_path / "latin.csv").write_bytes(b"text,label\ngood,positive\ncaf\xe9 bad,negative\n")
    for extra, message in ((["--train-file", train], "needs --dev-file"), (["--dev-file", dev], "goes with --train-file"),
                           (["--train-file", str(tmp_path / "latin.csv"), "--dev-file", dev],
                            "latin.csv, line 3: byte 0xe9 is not UTF-8")):
        assert_refused_in_one_line(common + extra, message, capsys)
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "splits").exists()
    long = tmp_path / "long.csv"
    long.write_text("text,label\n" + "".join(f"{'good ' * 30000 if i == 0 else 'good'},positive\nbad,negative\n"
                                             for i in range(12)))
    assert tables.read_table(str(long))[1][0].startswith("good good")


def test_bad_pair_or_regression_file_is_one_line(tmp_path, tiny_bert, capsys):
    train_file, dev_file = pair_scores_csv(tmp_path)
    common = ["--model", tiny_bert, "--train-file", train_file, "--dev-file", dev_file, "--text-column", "question",
              "--label-column", "score", "--out", str(tmp_path / "r.json"), "--quiet"]
    for extra, message in ((["--text-pair-column", "passage", "--regression"], "no column 'passage'"),
                           (["--text-pair-column", "answer", "--label-column", "question", "--regression"],
                            "regression target 'q 0 ?' is not a number")):
        assert_refused_in_one_line(common + extra, message, capsys)
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("argv, message", [
    (["--freeze", "4"], r"--freeze 4 is outside \[-1, 3\] for this 3-layer model"),
    (["--freeze", "-2"], r"--freeze -2 is outside \[-1, 3\]"),
    (["--size", "70000"], r"--size 70000 is outside \[2, 67349\]"),
    (["--lr", "0"], r"--lr must be positive"),
    (["--epochs", "-1"], r"--epochs must be positive"),
    (["--batch-size", "0"], r"--batch-size must be positive"),
    (["--seed", "-3"], r"--seed -3: a seed is 0 or more"),  # its result's name would be no result's name
    (["--reinit", "-1", "--model", "./no/such/folder"],  # before the model is read, as the other counts
     r"--reinit -1: the number of top layers reset is 0 or more"),
    (["--dataset", "mnli"], r"unknown task 'mnli'"),
    (["--model", "./no/such/folder"], r"checkpoint folder './no/such/folder' does not exist"),
    (["--precision", "fp16", "--device", "cpu"], r"--precision fp16 needs a CUDA device"),
    (["--freeze", "two"], r"argument --freeze: invalid int value: 'two'"),
    (["--size", "some"], r"argument --size: 'some' is neither a positive number of examples nor all"),
    (["--size", "0"], r"argument --size: '0' is neither a positive number"),  # once "needs 1 training examples \(\)"
    (["--size", "all"], r"--size all trains on the whole train split: --splits-dir \(subsets\) does not apply"),
    (["--regression"], r"--regression describes your own files: it goes with --train-file"),
    (["--text-column", "review"], r"--text-column describes your own files"),  # once ignored: SST-2 reads its own
    (["--dataset", "stsb", "--size", "3"], r"--size 3 is outside \[5, 5749\]"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, tiny_bert, glue_dir, capsys, argv, message):
    args = ["--model", tiny_bert, "--glue-dir", glue_dir, "--out", str(tmp_path / "r.json"),
            "--splits-dir", str(tmp_path / "splits"), "--epochs", "1", "--quiet"]
    with pytest.raises(SystemExit) as exit_:
        freeze_study.main(args + argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("freeze_study.py: error: ")
    assert re.search(message, err), err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("flag, under", [("--out", "x.json"), ("--save", "model"), ("--cache-dir", ""),
                                         ("--splits-dir", "s")])
def test_a_file_where_a_run_would_make_a_folder_is_one_line_before_any_work(tmp_path, tiny_bert, glue_dir, capsys,
                                                                             flag, under):
    """Once a traceback: --cache-dir and --splits-dir at the first write, --out and --save once the run had trained."""
    (tmp_path / "taken").write_text("a file")
    paths = {"--splits-dir": str(tmp_path / "splits"), "--cache-dir": str(tmp_path / "cache"), "--out": str(tmp_path / "r.json"),
             flag: str(tmp_path / "taken" / under) if under else str(tmp_path / "taken")}
    argv = ["--model", tiny_bert, "--glue-dir", glue_dir, "--size", "50", "--epochs", "1", "--quiet",
            *[part for option in paths.items() for part in option]]
    before = files_in(tmp_path)
    assert_refused_in_one_line(argv, f"{tmp_path / 'taken'} is a file, where a folder would go", capsys)
    assert files_in(tmp_path) == before


def test_a_run_never_adds_another_precision_to_a_results_folder(tmp_path, tiny_bert, glue_dir, capsys):
    run(tmp_path, tiny_bert, glue_dir, "--freeze", "3", "--precision", "fp32", out="grid/freeze3_size50_seed1.json")
    with pytest.raises(SystemExit) as exit_:
        freeze_study.main(["--model", tiny_bert, "--glue-dir", glue_dir, "--size", "50", "--epochs", "1",
                           "--freeze", "3", "--seed", "2", "--precision", "bf16", "--quiet",
                           "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / "grid/freeze3_size50_seed2.json")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds fp32 runs (freeze3_size50_seed1.json) and this run would be bf16" in err
    assert "PRECISION=fp32" in err and not (tmp_path / "grid/freeze3_size50_seed2.json").exists()
    run(tmp_path, tiny_bert, glue_dir, "--freeze", "3", "--seed", "2", "--precision", "fp32",
        out="grid/freeze3_size50_seed2.json")  # the same precision is welcome


def test_unreachable_hub_is_one_line_naming_the_offline_way(tmp_path, glue_dir):
    # that it goes offline at once, rather than retry, is tested in test_checkpoint and test_data
    empty_cache = {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_CACHE": str(tmp_path / "hf"), "GLUE_DIR": ""}
    model_run = cli("--model", "roberta-base", "--glue-dir", glue_dir, "--splits-dir", str(tmp_path),
                    env=empty_cache, cwd=tmp_path)
    data_run = cli("--model", "minilm", env=empty_cache, cwd=tmp_path)
    (_, model_err), (_, data_err) = model_run.communicate(timeout=60), data_run.communicate(timeout=60)
    assert model_run.returncode == 2 and "--model minilm" in model_err and "Traceback" not in model_err
    assert data_run.returncode == 2 and "--glue-dir" in data_err and "Traceback" not in data_err


def test_a_folder_holds_one_pooling_per_kind_of_run(tmp_path, tiny_bert, glue_dir, capsys):
    run(tmp_path, tiny_bert, glue_dir, "--freeze", "3", "--probe", out="grid/freeze3_size50_seed1_probe.json")
    run(tmp_path, tiny_bert, glue_dir, "--freeze", "3", "--pooling", "mean", out="grid/freeze3_size50_seed1.json")
    with pytest.raises(SystemExit) as exit_:  # the probe read the first token (no sentence-transformers files)
        freeze_study.main(["--model", tiny_bert, "--glue-dir", glue_dir, "--size", "50", "--freeze", "3", "--seed", "2",
                           "--probe", "--pooling", "mean", "--quiet", "--splits-dir", str(tmp_path / "splits"),
                           "--out", str(tmp_path / "grid/freeze3_size50_seed2_probe.json")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "holds probe runs pooled by the first" in err
    assert not (tmp_path / "grid/freeze3_size50_seed2_probe.json").exists()


def test_a_pooling_this_tool_lacks_is_asked_for_only_where_it_is_the_default(tmp_path, tiny_bert, glue_dir, capsys):
    import shutil
    folder = tmp_path / "max-pooled"
    shutil.copytree(tiny_bert, folder)
    (folder / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.Pooling", "path": "p"}]))
    (folder / "p").mkdir()
    (folder / "p" / "config.json").write_text(json.dumps({"pooling_mode_max_tokens": True}))
    with pytest.raises(SystemExit) as exit_:
        freeze_study.main(["--model", str(folder), "--glue-dir", glue_dir, "--size", "50", "--freeze", "3", "--probe",
                           "--quiet", "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "pools by max_tokens" in err and "--pooling" in err
    result = run(tmp_path, str(folder), glue_dir, "--freeze", "3", "--probe", "--pooling", "first")
    assert result["config"]["pooling"] == "first"


@pytest.mark.parametrize("files, extra, message", [
    (("scores.csv", "dev.csv"), [], "scores.csv, line 2: label '0.25' is a number, not a class: pass --regression"),
    (("twice.csv", "dev.csv"), [], "twice.csv: the header names the column 'text' twice"),
    (("empty.csv", "dev.csv"), [], "empty.csv: the file is empty: it needs a header naming its columns (text,label)"),
    (("tabs.csv", "dev.csv"), [], "tabs.csv: its header 'text\\tlabel' is one column split by tabs: name it .tsv"),
    (("anger.csv", "anger.csv"), [], "anger.csv: every label is 'anger': a classifier needs two classes or more"),
    (("numbers.csv", "seven.csv"), [], "seven.csv, line 4: label 7 is not a class of the train split (0..1)"),
    (("train.csv", "dev.csv"), ["--lr", "0"], "--lr must be positive"),
    (("train.csv", "dev.csv"), ["--probe", "--freeze", "3", "--size", "4"], "--method probe needs 5 training examples "
     "at least (it cross-validates its strength on 5 folds of them), and this run trains on 4: give a larger --size"),
    (("train.csv", "dev.csv"), ["--model", "broken"], "broken/config.json is not a JSON config (Expecting value"),
    (("train.csv", "dev.csv"), ["--out", "other.json"], "other.json exists (a result written before): name a new file"),
    (("train.csv", "train.csv"), [], "train.csv: 48 of its 48 examples are also in "),
    (("train.csv", "dev.csv"), ["--test-file", "dev.csv"], "dev.csv: 24 of its 24 examples are also in "),
])
def test_your_own_files_wrong_are_one_line_and_touch_no_file(tmp_path, tiny_bert, capsys, files, extra, message):
    """Each refused in one line naming the file, the line and the fix, before any file is written:
    no subset drawn, no cache, no result; a result already there (another run's) left as it was."""
    sentiment_csvs(tmp_path)
    bad_files(tmp_path)
    shutil.copytree(tiny_bert, tmp_path / "broken")
    (tmp_path / "broken" / "config.json").write_text("")
    (tmp_path / "other.json").write_text('{"config": {}}')
    extra = [str(tmp_path / e) if e in ("broken", "other.json", "dev.csv") else e for e in extra]
    before = files_in(tmp_path)
    assert_refused_in_one_line(["--model", tiny_bert, "--train-file", str(tmp_path / files[0]), "--dev-file",
                                str(tmp_path / files[1]), "--text-column", "text", "--size", "20", "--quiet",
                                "--splits-dir", str(tmp_path / "splits"), "--cache-dir", str(tmp_path / "cache"),
                                "--out", str(tmp_path / "r.json"), *extra], message, capsys)
    assert files_in(tmp_path) == before


def test_overwrite_runs_again_where_the_result_exists(tmp_path, tiny_bert, glue_dir, capsys):
    first = run(tmp_path, tiny_bert, glue_dir, "--freeze", "3", "--epochs", "1", out="r.json")
    assert_refused_in_one_line(["--model", tiny_bert, "--glue-dir", glue_dir, "--size", "50", "--freeze", "3", "--quiet",
                                "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / "r.json")],
                               "r.json exists (a result written before)", capsys)
    again = run(tmp_path, tiny_bert, glue_dir, "--freeze", "3", "--epochs", "1", "--overwrite", out="r.json")
    assert again["train_losses"] == first["train_losses"]
    assert json.loads((tmp_path / "r.json").read_text())["seconds"] == again["seconds"]


@pytest.mark.parametrize("size, folds", [(9, 2), (10, 3), (23, 5), (40, 4)])
def test_the_examples_a_run_trains_on_are_its_fold_s_fewest_or_every_label(tmp_path, size, folds):
    """plan.training_examples, which a method's fewest examples is checked against before any work,
    counts what the run will train on: with --folds the fewest any fold's run trains on (as
    data.fold_positions cuts them), with --final the subset and the dev file."""
    import data
    import plan
    train, dev, _ = sentiment_csvs(tmp_path)
    task = data.load_csv_task(train, dev, text_column="text")
    subset = data.subset_indices(task, size, str(tmp_path / "splits"))
    trained = [len(data.fold_positions(task, subset, folds, fold)[0]) for fold in range(1, folds + 1)]
    args = lambda *extra: plan.parse_args(["--train-file", train, "--size", str(size), *extra])
    assert plan.training_examples(args("--folds", str(folds)), task) == min(trained)
    assert plan.training_examples(args("--dev-file", dev), task) == size
    final, rows = data.every_label(task, subset)
    assert plan.training_examples(args("--dev-file", dev, "--final"), task) == len(rows) == size + len(task.dev_labels)
    one_file = data.load_csv_task(train, None, text_column="text")
    assert plan.training_examples(args("--final"), one_file) == len(data.every_label(one_file, subset)[1]) == size
