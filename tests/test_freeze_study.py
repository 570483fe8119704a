"""freeze_study.py end to end on real SST-2 with a tiny checkpoint: the cache's equivalence,
reproducibility, the cache files, the test file, interruption, and one labelled file's folds. What
a run refuses before it trains: test_plan.py."""

import json
import os
import signal
import subprocess
import sys

import pytest
import torch

import cache
import data
import checkpoint
import freeze_study
import machine
import result
import tables
from conftest import (ROOT, assert_refused_in_one_line, bad_files, cli, files_in, pair_scores_csv, run,
                      sentiment_csvs)


@pytest.mark.parametrize("k", [-1, 1, 3])
def test_cache_gives_the_same_training_as_the_full_network_without_dropout(tmp_path, tiny_bert_no_dropout,
                                                                           glue_dir, k):
    # in fp32: the same arithmetic both ways, so the figures agree to float tolerance
    cached = run(tmp_path, tiny_bert_no_dropout, glue_dir, "--freeze", str(k), "--precision", "fp32")
    full = run(tmp_path, tiny_bert_no_dropout, glue_dir, "--freeze", str(k), "--no-cache", "--precision", "fp32")
    assert cached["config"]["cache"] and not full["config"]["cache"]
    assert cached["train_losses"] == pytest.approx(full["train_losses"], abs=1e-5)
    assert [p["accuracy"] for p in cached["curve"]] == pytest.approx([p["accuracy"] for p in full["curve"]], abs=1e-5)
    assert cached["trainable_parameters"] == full["trainable_parameters"]


@pytest.mark.parametrize("family", ["roberta", "mpnet", "distilbert", "electra", "xlm-roberta", "modernbert", "deberta-v2"])
def test_each_family_trains_alike_from_its_cached_prefix(family, tmp_path, glue_dir):
    """The cache's equivalence for every family but BERT's (above): a tiny random checkpoint, dropout
    off, one frozen layer cached against the whole network run every step."""
    from conftest import save_tiny_bert
    folder = save_tiny_bert(tmp_path / "tiny", dropout=0.0, family=family)
    cached = run(tmp_path, folder, glue_dir, "--freeze", "1", "--precision", "fp32", "--epochs", "1")
    full = run(tmp_path, folder, glue_dir, "--freeze", "1", "--no-cache", "--precision", "fp32", "--epochs", "1",
               out="full.json")
    assert cached["config"]["cache"] and not full["config"]["cache"] and cached["config"]["model_type"] == family
    assert cached["train_losses"] == pytest.approx(full["train_losses"], abs=1e-5)
    assert [p["accuracy"] for p in cached["curve"]] == pytest.approx([p["accuracy"] for p in full["curve"]], abs=1e-5)


def test_a_modernbert_that_pools_by_the_mean_is_read_by_the_mean(tmp_path, glue_dir):
    """classifier_pooling: mean in its config: the fine-tune and the probe read the mean of the
    tokens (the probe: no sentence-transformers files say otherwise), and --save keeps it."""
    import transformers
    from conftest import save_tiny_bert
    folder = save_tiny_bert(tmp_path / "tiny", family="modernbert")
    config = json.loads((tmp_path / "tiny" / "config.json").read_text())
    (tmp_path / "tiny" / "config.json").write_text(json.dumps(dict(config, classifier_pooling="mean")))
    record = run(tmp_path, folder, glue_dir, "--freeze", "1", "--save", str(tmp_path / "saved"))
    probe = run(tmp_path, folder, glue_dir, "--method", "probe", "--freeze", "3", out="probe.json")
    assert record["config"]["pooling"] == probe["config"]["pooling"] == "mean"
    saved = transformers.AutoConfig.from_pretrained(tmp_path / "saved")
    assert saved.classifier_pooling == "mean"


def figures(result):
    return (result["best_accuracy"], result["best_step"], result["train_losses"],
            [{key: value for key, value in point.items() if key != "seconds"} for point in result["curve"]])


@pytest.mark.parametrize("extra", [["--freeze", "1"], ["--freeze", "0"], ["--freeze", "1", "--precision", "bf16"],
                                   ["--freeze", "0", "--precision", "fp32"]])
def test_same_seed_gives_identical_figures(tmp_path, tiny_bert, glue_dir, extra):
    first = run(tmp_path, tiny_bert, glue_dir, *extra, "--seed", "7")  # dropout is on
    second = run(tmp_path, tiny_bert, glue_dir, *extra, "--seed", "7", out="again.json")
    assert figures(first) == figures(second)
    if extra == ["--freeze", "1"]:  # (once: another seed draws other dropout masks)
        other = run(tmp_path, tiny_bert, glue_dir, *extra, "--seed", "8", out="other.json")
        assert other["train_losses"] != first["train_losses"]


@pytest.mark.parametrize("extra", [["--freeze", "1", "--size", "70"], ["--freeze", "1", "--method", "lora"]])
def test_evaluating_only_the_last_gives_the_full_runs_fair_score(tmp_path, tiny_bert, glue_dir, extra):
    """make advise's runs (--evaluations last) score what a full run's last evaluation scores, at the
    same seed, dev halves included; at n = 70 the last evaluation is not the last step (5 steps an
    epoch, an evaluation every 3: the last at step 9 of 10), and the run stops there."""
    full = run(tmp_path, tiny_bert, glue_dir, *extra, "--seed", "3")
    once = run(tmp_path, tiny_bert, glue_dir, *extra, "--seed", "3", "--evaluations", "last", out="once.json")
    last = lambda record: {k: v for k, v in record["curve"][-1].items() if k != "seconds"}
    assert last(once) == last(full) and once["dev_halves"] == full["dev_halves"]
    assert len(once["curve"]) == 1 and len(full["curve"]) > 1 and len(once["train_losses"]) == full["curve"][-1]["step"]
    assert extra[-1] != "70" or len(full["train_losses"]) == 10 and full["curve"][-1]["step"] == 9
    assert once["train_losses"] == full["train_losses"][:len(once["train_losses"])]
    halves = full["dev_halves"]  # two halves of the 872 sentences, each scored
    assert len(halves) == 2 and abs(sum(h["accuracy"] for h in halves) / 2 - last(full)["accuracy"]) < 1e-3


def test_pairs_through_the_cache_give_the_same_training(tmp_path, tiny_bert_no_dropout, glue_dir):
    # MRPC: token and segment ids go into the cached prefix as they go into the full network
    cached = run(tmp_path, tiny_bert_no_dropout, glue_dir, "--dataset", "mrpc", "--freeze", "1", "--precision", "fp32")
    full = run(tmp_path, tiny_bert_no_dropout, glue_dir, "--dataset", "mrpc", "--freeze", "1", "--no-cache",
               "--precision", "fp32", out="full.json")
    assert cached["train_losses"] == pytest.approx(full["train_losses"], abs=1e-5)
    assert [p["f1"] for p in cached["curve"]] == pytest.approx([p["f1"] for p in full["curve"]], abs=1e-5)
    assert cached["metric"] == "f1" and cached["score"] == max(p["f1"] for p in cached["curve"])


def test_lee_protocol_on_a_whole_regression_pair_task(tmp_path, tiny_bert_regression):
    train_file, dev_file = pair_scores_csv(tmp_path)
    argv = ["--model", tiny_bert_regression, "--train-file", train_file, "--dev-file", dev_file, "--text-column", "question",
            "--text-pair-column", "answer", "--label-column", "score", "--regression", "--size", "all",
            "--protocol", "lee", "--lr", "2e-5", "--out", str(tmp_path / "r.json"), "--quiet",
            "--cache-dir", str(tmp_path / "cache"), "--freeze", "2"]
    result = freeze_study.run(freeze_study.parse_args(argv))
    config = result["config"]
    # 3 epochs for a BERT, no warmup, 128 tokens, the score after the last step
    assert (config["epochs"], config["warmup_epochs"], config["max_length"]) == (3, 0, 128)
    assert result["warmup_steps"] == 0 and result["total_steps"] == 3 * 3  # ceil(40 / 16) = 3 steps an epoch
    assert result["curve"][-1]["step"] == result["total_steps"] and result["selection"] == "last"
    assert result["metric"] == "spearman" and result["score"] == result["curve"][-1]["spearman"]
    assert "best_accuracy" not in result and set(result["at_score"]) == {"pearson", "spearman"}
    assert result["constant"] == dict(pearson=0.0, spearman=0.0)


@pytest.mark.parametrize("extra", [["--freeze", "1", "--pooling", "mean", "--lr", "5e-3"],
                                   ["--freeze", "0", "--method", "lora", "--pooling", "mean", "--lr", "1e-2"],
                                   ["--freeze", "1", "--method", "setfit-fast"], ["--freeze", "3", "--probe"]])
def test_a_test_file_scores_what_the_run_scores_with_it_as_its_dev_split(tmp_path, tiny_bert, extra):
    """--test-file (make advise's TEST_FILE) is the run's own last weights on the test file: the figure
    a second run of the same seed would score with the test file as its dev split, without that run.
    (The fine-tune and LoRA read the mean: a tiny random model's first token learns nothing here.)"""
    train, dev, test = sentiment_csvs(tmp_path)
    common = ["--model", tiny_bert, "--train-file", train, "--text-column", "text", "--size", "24", "--seed", "2",
              "--cache-dir", str(tmp_path / "cache"), "--splits-dir", str(tmp_path / "splits"), "--quiet",
              "--evaluations", "last", "--precision", "fp32", "--device", "cpu", *extra]  # bit for bit: CUDA's
    # mean pooling sums with atomics, so two runs' losses differ in their last bits there (seen on the H200)
    with_test = freeze_study.run(freeze_study.parse_args(
        common + ["--dev-file", dev, "--test-file", test, "--out", str(tmp_path / "with.json")]))
    on_test = freeze_study.run(freeze_study.parse_args(  # another dev split: another folder (check_folder)
        common + ["--dev-file", test, "--out", str(tmp_path / "on-test" / "on.json")]))
    assert with_test["test_at_score"] == pytest.approx(on_test["at_score"], abs=1e-9)
    assert with_test["train_losses"] == on_test["train_losses"]
    assert (with_test["dev_size"], on_test["dev_size"]) == (24, 31)  # the dev split is its own file
    assert with_test["test_at_score"]["mcc"] > 0.4  # it learnt the words: not one class for every text


def test_result_file_holds_the_run(tmp_path, tiny_bert, glue_dir):
    result = run(tmp_path, tiny_bert, glue_dir, "--freeze", "2", out="result.json")
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved["best_accuracy"] == result["best_accuracy"] == max(p["accuracy"] for p in saved["curve"])
    assert saved["config"]["freeze"] == 2 and saved["config"]["size"] == 50
    assert len(saved["curve"]) == 4 and len(saved["train_losses"]) == 8
    assert set(saved["seconds"]) == {"prefix", "train", "eval", "total"}
    assert saved["trainable_parameters"] < saved["total_parameters"]
    assert saved["majority_accuracy"] == pytest.approx(444 / 872)
    # the best constant prediction on SST-2's dev split: 444 of 872 positive, so always positive
    # (class 1) is both the majority and the best F1, 2 x 444 / (872 + 444), and macro-F1 that F1 over 2
    assert saved["constant"] == pytest.approx(dict(accuracy=444 / 872, mcc=0.0, f1=888 / 1316, macro_f1=444 / 1316))
    # what ran it, so that a report can tell a GPU's runs from a CPU's
    assert saved["config"]["device"] == "cpu" or saved["config"]["device"].startswith("cuda")
    assert saved["processor"] == machine.processor_name(torch.device(saved["config"]["device"])) != ""


def test_cache_file_is_reused_and_a_truncated_one_rebuilt(tmp_path, tiny_bert, glue_dir, monkeypatch, capsys):
    """...and each run's record says how many texts its frozen prefix computed (what prices a
    search's trained runs before any has run: the cache's reads time no pass)."""
    assert run(tmp_path, tiny_bert, glue_dir, "--freeze", "2")["prefix_texts"] == 50 + 872
    files = sorted(f for f in (tmp_path / "cache").rglob("*.pt") if f.parent.name != "tokens")
    assert len(files) == 2  # the training subset and the dev split
    assert len(list((tmp_path / "cache" / "tokens").glob("sst2-50_*.pt"))) == 1  # their tokens, in one file

    def must_not_run(*args, **kwargs):
        raise AssertionError("the frozen prefix or the tokens were recomputed although their cache file exists")
    with monkeypatch.context() as m:
        m.setattr(cache, "frozen_prefix", must_not_run)
        m.setattr(checkpoint, "load_tokenizer", must_not_run)
        assert run(tmp_path, tiny_bert, glue_dir, "--freeze", "2", "--seed", "2")["prefix_texts"] == 0

    dev_file = max(files, key=lambda f: f.stat().st_size)
    size = dev_file.stat().st_size
    dev_file.write_bytes(dev_file.read_bytes()[: size // 2])
    assert run(tmp_path, tiny_bert, glue_dir, "--freeze", "2")["prefix_texts"] == 872  # the dev split's alone
    assert "is unreadable" in capsys.readouterr().err
    assert dev_file.stat().st_size == size  # rebuilt whole
    with monkeypatch.context() as m:
        m.setattr(cache, "frozen_prefix", must_not_run)
        run(tmp_path, tiny_bert, glue_dir, "--freeze", "2")


def test_a_run_with_its_tokens_and_prefix_cached_never_imports_transformers(tmp_path, tiny_bert, glue_dir):
    # about 1 s a run of the transformers import is what the token cache saves; measured in
    # docs/records/performance-notebook.md, asserted here as what matters: the import does not happen
    argv = ["--model", tiny_bert, "--glue-dir", glue_dir, "--size", "50", "--epochs", "1", "--freeze", "2",
            "--cache-dir", str(tmp_path / "cache"), "--splits-dir", str(tmp_path / "splits"), "--quiet"]
    freeze_study.main([*argv, "--out", str(tmp_path / "r1.json")])  # tokenizes, and caches the tokens and the prefix
    check = ("import sys, freeze_study; freeze_study.main(sys.argv[1:]); "
             "print('transformers imported' if 'transformers' in sys.modules else 'transformers not imported')")
    second = subprocess.run([sys.executable, "-c", check, *argv, "--out", str(tmp_path / "r2.json")], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    assert second.endswith("transformers not imported\n")  # a process of its own: nothing imported it before
    first, second = (json.loads((tmp_path / f"r{i}.json").read_text()) for i in (1, 2))
    assert first["train_losses"] == second["train_losses"]
    assert second["versions"]["transformers"] == first["versions"]["transformers"]


def test_the_default_precision_is_recorded(tmp_path, tiny_bert, glue_dir):
    result = run(tmp_path, tiny_bert, glue_dir, "--freeze", "3", "--epochs", "1")
    cpu_default = "bf16" if machine.bf16_pays() else "fp32"  # bf16 where it is faster
    assert result["config"]["precision"] == ("fp16" if torch.cuda.is_available() else cpu_default)  # the study's on CUDA


def test_interrupted_run_leaves_no_result_file(tmp_path, tiny_bert, glue_dir):
    out = tmp_path / "r.json"
    proc = cli("--model", tiny_bert, "--glue-dir", glue_dir, "--size", "1000", "--out", str(out),
               "--splits-dir", str(tmp_path / "splits"), "--cache-dir", str(tmp_path / "cache"),
               "--freeze", "1",
               # Ctrl-C as a terminal sends it, even where the suite itself was started in the
               # background by a shell without job control, which makes its children ignore SIGINT
               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout.readline().startswith("step ")  # training is under way
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted; no result written" in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob("r.json*"))


def test_metric_picks_the_run_s_evaluation_and_a_folder_holds_one(tmp_path, tiny_bert, glue_dir):
    record = run(tmp_path, tiny_bert, glue_dir, "--freeze", "1", "--metric", "macro_f1")
    assert record["metric"] == "macro_f1" and record["score"] == max(p["macro_f1"] for p in record["curve"])
    assert record["score_step"] == next(p["step"] for p in record["curve"] if p["macro_f1"] == record["score"])
    with pytest.raises(ValueError, match="judged by macro_f1"):  # beside it, a run judged by SST-2's accuracy
        run(tmp_path, tiny_bert, glue_dir, "--freeze", "0", out="other.json")
    with pytest.raises(ValueError, match="--metric pearson does not score sst2"):
        run(tmp_path, tiny_bert, glue_dir, "--freeze", "0", "--metric", "pearson", out="third.json")
    assert not (tmp_path / "other.json").exists() and not (tmp_path / "third.json").exists()


def test_a_save_that_fails_after_training_leaves_the_result_whole(tmp_path, tiny_bert, glue_dir, monkeypatch):
    import checkpoint

    def full_disk(*args, **kwargs):
        raise OSError("No space left on device")
    monkeypatch.setattr(checkpoint, "save_classifier", full_disk)  # how the fine-tune is kept (methods.py)
    with pytest.raises(OSError, match="No space left"):
        run(tmp_path, tiny_bert, glue_dir, "--freeze", "1", "--save", str(tmp_path / "saved"), out="result.json")
    record = json.loads((tmp_path / "result.json").read_text())  # whole: it was written before the save
    assert record["total_steps"] == 8 and record["config"]["save"] == str(tmp_path / "saved")
    assert not (tmp_path / "saved").exists()


def test_a_run_on_your_own_files_records_its_task_s_name_not_glue_s_default(tmp_path, tiny_bert):
    """--dataset names GLUE's task, and with your own files only the record's task: the name given
    (make passes DATASET), else the train file's name and a hash of it, as results/ names it."""
    train, dev, _ = sentiment_csvs(tmp_path)
    argv = ["--model", tiny_bert, "--train-file", train, "--dev-file", dev, "--text-column", "text", "--size", "24",
            "--freeze", "3", "--probe", "--quiet", "--precision", "fp32", "--splits-dir", str(tmp_path / "splits"),
            "--cache-dir", str(tmp_path / "cache")]
    named = freeze_study.run(freeze_study.parse_args(argv + ["--dataset", "reviews", "--out", str(tmp_path / "a.json")]))
    unnamed = freeze_study.run(freeze_study.parse_args(argv + ["--out", str(tmp_path / "b.json")]))
    assert named["config"]["dataset"] == "reviews"
    assert unnamed["config"]["dataset"] == data.file_name(train) != "sst2"


def test_all_of_your_own_file_trains_at_the_rate_for_its_examples_under_the_name_a_grid_gives(tmp_path, tiny_bert):
    """--size all on a file of 48 examples takes the method's own rate for 48 (LoRA's 5e-3; for
    GLUE's thousands it would be 1e-3), and each run writes the name make's grid gives it: a run at
    its own rate or at another, or at its own asked for by --lr (a run refuses a name not its own)."""
    from study import grid
    train, dev, _ = sentiment_csvs(tmp_path)
    names = grid.grid_names(str(tmp_path), [3], ["all"], [1], [None, 1e-3, 5e-3], method="lora",
                            split_examples=tables.examples_in(train))
    assert [os.path.basename(name) for name in names] == ["freeze3_sizeall_seed1_lora.json",
                                                         "freeze3_sizeall_seed1_lr1e-3_lora.json",
                                                         "freeze3_sizeall_seed1_lora.json"]
    argv = ["--model", tiny_bert, "--train-file", train, "--dev-file", dev, "--text-column", "text", "--size", "all",
            "--freeze", "3", "--method", "lora", "--epochs", "1", "--quiet", "--cache-dir", str(tmp_path / "cache")]
    own = freeze_study.run(freeze_study.parse_args(argv + ["--out", names[0]]))
    other = freeze_study.run(freeze_study.parse_args(argv + ["--lr", "1e-3", "--out", names[1]]))
    assert own["config"]["lr"] == 5e-3 and own["config"]["train_split_examples"] == 48 and other["config"]["lr"] == 1e-3
    asked = freeze_study.run(freeze_study.parse_args(argv + ["--lr", "5e-3", "--out", str(tmp_path / "asked.json")]))
    assert result.name_of(asked["config"]).file_name() == os.path.basename(names[2])
    assert asked["train_losses"] == own["train_losses"]


# ----------------------------------------------------------------------------------------------
# One labelled file: its folds, and the final model on every label

def one_file_argv(tmp_path, tiny_bert, train, *extra):
    return ["--model", tiny_bert, "--train-file", train, "--text-column", "text", "--size", "24", "--freeze", "2",
            "--epochs", "1", "--evaluations", "last", "--quiet", "--splits-dir", str(tmp_path / "splits"),
            "--cache-dir", str(tmp_path / "cache"), *extra]


def test_each_fold_is_scored_on_its_own_rows_and_the_folds_share_one_frozen_prefix(tmp_path, tiny_bert):
    train, _, _ = sentiment_csvs(tmp_path)
    records = [freeze_study.run(freeze_study.parse_args(one_file_argv(
        tmp_path, tiny_bert, train, "--folds", "3", "--seed", str(seed), "--out", str(tmp_path / f"fold{seed}.json"))))
        for seed in (1, 2, 3)]
    task = data.load_csv_task(train, None, "text")
    subset = data.load_subset(task, 24, str(tmp_path / "splits"))
    for seed, record in enumerate(records, 1):
        scored = data.fold_positions(task, subset, 3, seed)[1]
        truth = result.outputs_in(record).truth
        assert record["dev_size"] == len(scored) == 8 and record["config"]["train_examples"] == 16
        assert truth.tolist() == task.train_labels[subset[scored]].tolist()  # fold s's rows, and no others
    prefixes = [p.name for p in (tmp_path / "cache").glob("*/*.pt") if p.parent.name != "tokens"]
    assert len(prefixes) == 1 and "-train24_k2_" in prefixes[0]  # the subset's, computed by the first fold alone


def test_the_final_model_trains_on_every_label_and_is_scored_on_the_test_file(tmp_path, tiny_bert):
    train, dev, test = sentiment_csvs(tmp_path)
    both = freeze_study.run(freeze_study.parse_args(one_file_argv(
        tmp_path, tiny_bert, train, "--dev-file", dev, "--test-file", test, "--final", "--out", str(tmp_path / "a.json"))))
    assert both["config"]["train_examples"] == 24 + 24 and both["dev_size"] == 31 and both["test_at_score"] is None
    alone = freeze_study.run(freeze_study.parse_args(one_file_argv(
        tmp_path, tiny_bert, train, "--final", "--out", str(tmp_path / "b.json"))))
    assert alone["config"]["train_examples"] == alone["dev_size"] == 24  # no test file: what it trained on


def test_one_file_wrong_for_its_folds_is_one_line_and_touches_no_file(tmp_path, tiny_bert, capsys):
    """A class with fewer examples than folds, one class, too few examples; and --folds where it cannot go."""
    train, dev, _ = sentiment_csvs(tmp_path)
    bad_files(tmp_path)
    (tmp_path / "rare.csv").write_text("text,label\n" + "".join(f"good {i},{'neg' if i < 2 else 'pos'}\n" for i in range(24)))
    (tmp_path / "five.csv").write_text("text,label\n" + "".join(f"good {i},{'pos' if i % 2 else 'neg'}\n" for i in range(5)))
    before = files_in(tmp_path)
    for file, extra, message in (
            ("rare.csv", ["--folds", "3"], "rare.csv: the class 'neg' has 2 examples, fewer than the 3 folds"),
            ("anger.csv", ["--folds", "3"], "anger.csv: every label is 'anger': a classifier needs two classes or more"),
            ("five.csv", ["--folds", "3", "--size", "5"], "five.csv: 5 examples cannot make 3 folds that each hold one "
                                                          "of each of its 2 classes: that needs 6 at least"),
            ("train.csv", ["--folds", "3", "--seed", "4"], "--folds 3 --seed 4: the seed names the fold scored, 1..3"),
            ("train.csv", ["--folds", "1"], "--folds 1: cross-validating a file takes two folds or more (make advise: FOLDS=2"),
            ("train.csv", ["--folds", "0"], "--folds 0: cross-validating a file takes two folds or more"),
            ("train.csv", ["--folds", "3", "--dev-file", dev], "--folds cross-validates one labelled file"),
            ("train.csv", ["--folds", "3", "--final"], "--final trains on every label, and --folds holds one fold out"),
            ("train.csv", ["--final", "--evaluations", "every"], "--final trains on every label, the dev split's too")):
        assert_refused_in_one_line(one_file_argv(tmp_path, tiny_bert, str(tmp_path / file), "--out",
                                                 str(tmp_path / "r.json"), *extra), message, capsys)
    assert files_in(tmp_path) == before
