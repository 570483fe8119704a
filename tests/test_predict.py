"""freeze_study.py --save and predict.py: the trained classifier as a transformers checkpoint,
scoring the dev split as the run did, and labelling a CSV."""

import csv
import re

import numpy as np
import pytest
import torch
import transformers

import checkpoint
import data
import loop
import machine
import methods
import predict
import probe
import tables
from result import outputs_in, unpacked
from conftest import assert_refused_in_one_line, files_in, pair_scores_csv, run, sentiment_csvs


@pytest.mark.parametrize("method", ["finetune", "lora", "bitfit"])  # LoRA's update merged into the weights it adapts
def test_the_saved_run_is_its_chosen_evaluation_s_weights_as_transformers_reads_them(tmp_path, tiny_bert, method):
    """The weights saved are those that scored the test file, the chosen evaluation's (restored after
    the last step: tests/test_loop.py): transformers' classifier, read from the folder, gives each
    test row the probabilities the run recorded for it (in float16)."""
    train, dev, test = sentiment_csvs(tmp_path)
    result = run(tmp_path, tiny_bert, str(tmp_path), "--train-file", train, "--dev-file", dev, "--test-file", test,
                 "--size", "24", "--freeze", "1", "--precision", "fp32", "--method", method,
                 "--save", str(tmp_path / "saved"))
    assert result["best_step"] < result["total_steps"]  # the last step's weights would not pass
    hf = transformers.AutoModelForSequenceClassification.from_pretrained(tmp_path / "saved").eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(tmp_path / "saved")
    with open(test, newline="") as f:
        texts = [row["text"] for row in csv.DictReader(f)]
    with torch.no_grad():
        probabilities = hf(**tokenizer(texts, padding=True, return_tensors="pt")).logits.softmax(-1).numpy()
    assert np.abs(probabilities - outputs_in(result, "test").probabilities).max() < 1e-3


@pytest.mark.parametrize("method", methods.NAMES)
def test_every_method_saved_on_the_device_labels_the_dev_split_as_its_run_scored_it(tmp_path, tiny_bert, glue_dir,
                                                                                     method, device, capsys):
    """A run of each method on the device, --save, then predict.py there on the dev split as a CSV:
    what make advise hands a user, before any search relies on it on a card. On a CPU the same
    accuracy exactly, --label-column prints the run's own dev scores, and each row's probability
    (and probabilities() from Python, every class's) is the one its record holds (in float16: the
    outputs of its last evaluation, the one a search's run keeps); on CUDA within two of the 872
    sentences (its sums run in another order)."""
    depth = str(transformers.AutoConfig.from_pretrained(tiny_bert).num_hidden_layers) \
        if methods.get(method).every_layer_frozen else "1"
    result = run(tmp_path, tiny_bert, glue_dir, "--freeze", depth, "--precision", "fp32", "--device", str(device),
                 "--method", method, "--evaluations", "last", "--save", str(tmp_path / "saved"))  # a search's run
    assert result["config"]["device"].startswith(device.type)
    task = data.load_glue("sst2", glue_dir)
    with open(tmp_path / "dev.csv", "w", newline="") as f:
        csv.writer(f).writerows([("sentence", "label"), *zip(task.dev_texts, task.dev_labels.tolist())])
    capsys.readouterr()
    predict.main(["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "dev.csv"), "--out",
                  str(tmp_path / "labelled.csv"), "--device", str(device), "--label-column", "label"])
    printed = capsys.readouterr().out.splitlines()[-1]
    assert printed.startswith("predict.py: against its column 'label': accuracy ")
    if device.type == "cpu":
        assert printed.endswith(", ".join(f"{name} {value:.4f}" for name, value in result["at_score"].items()))
        assert predict.scores(str(tmp_path / "saved"), task.dev_texts, task.dev_labels) == result["at_score"]  # from Python
    with open(tmp_path / "labelled.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    right = sum(row["prediction"] == row["label"] for row in rows)
    assert len(rows) == len(task.dev_texts)
    assert abs(right - result["at_score"]["accuracy"] * len(rows)) <= (0.5 if device.type == "cpu" else 2)
    # the notebook's way in: the same model on the same texts, no file between
    labels = predict.predictions(str(tmp_path / "saved"), task.dev_texts, device=str(device))
    assert [str(label) for label in labels] == [row["prediction"] for row in rows]
    recorded = outputs_in(result)
    if device.type == "cpu":
        predicted_class_s = recorded.probabilities[np.arange(len(rows)), recorded.predicted]
        assert np.abs(np.array([float(row["probability"]) for row in rows]) - predicted_class_s).max() < 1e-3
        every_class_s = predict.probabilities(str(tmp_path / "saved"), task.dev_texts)
        assert [max(p, key=p.get) for p in every_class_s] == labels  # keyed by the classes predictions() names
        assert np.abs(np.array([list(p.values()) for p in every_class_s]) - recorded.probabilities).max() < 1e-3


@pytest.mark.skipif(not machine.multiplies_bf16(), reason="this CPU does not multiply bf16: its runs are fp32")
@pytest.mark.parametrize("method", methods.NAMES)
def test_a_bf16_run_kept_predicts_each_dev_row_as_its_run_did(tmp_path, tiny_bert, glue_dir, method, monkeypatch):
    """A run in bf16 (a CPU's default where it pays) keeps its precision beside its model, and
    predict scores in it: each dev sentence's label is the one the run recorded (in fp32 a few can
    differ: 2 of emotion's 1,421 test tweets for the probe, docs/records/predict-precision-2026-12-06;
    a tiny random model's rarely do, so the precision it computed in is read too)."""
    depth = str(transformers.AutoConfig.from_pretrained(tiny_bert).num_hidden_layers) \
        if methods.get(method).every_layer_frozen else "1"
    result = run(tmp_path, tiny_bert, glue_dir, "--freeze", depth, "--precision", "bf16", "--method", method,
                 "--save", str(tmp_path / "saved"))
    assert checkpoint.read_inputs(str(tmp_path / "saved"))["precision"] == "bf16"
    task = data.load_glue("sst2", glue_dir)
    recorded = result["predictions"]["dev"]
    ran = unpacked(recorded["predicted"], "<u2", (recorded["n"],))
    computed_in = []
    for module in (loop, probe):  # each imports machine.autocast by name
        monkeypatch.setattr(module, "autocast", lambda device, precision: computed_in.append(precision) or
                            machine.autocast(device, precision))
    assert [int(label) for label in predict.predictions(str(tmp_path / "saved"), task.dev_texts)] == ran.tolist()
    assert set(computed_in) == {"bf16"}


def test_a_classifier_saved_reads_the_first_token(tmp_path, tiny_bert, glue_dir):
    # BERT's *ForSequenceClassification reads the first token (SetFit and the probe keep their own
    # pooling in a sentence embedder: tests/test_matrix.py)
    with pytest.raises(ValueError, match="reads the first token"):
        run(tmp_path, tiny_bert, glue_dir, "--pooling", "mean", "--save", str(tmp_path / "saved"))
    assert not (tmp_path / "saved").exists() and not list(tmp_path.glob("*.json"))


def test_predict_labels_a_csv_with_the_class_names(tmp_path, tiny_bert, capsys):
    model = checkpoint.from_pretrained(tiny_bert)
    checkpoint.save_pretrained(model.eval(), str(tmp_path / "saved"), label_names=["neg", "pos"])
    (tmp_path / "in.csv").write_text('id, text\n1,"a good, long film"\n2,dull\n')
    predict.main(["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "in.csv"),  # its 'text' column
                  "--out", str(tmp_path / "out.csv")])
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "id, text,prediction,probability" and len(lines) == 3  # the header as the user wrote it
    ids = data.tokenize(checkpoint.load_tokenizer(str(tmp_path / "saved")), ["a good, long film", "dull"], 512)
    with torch.no_grad():
        expected = [model(ids[i:i + 1])[0].softmax(-1) for i in range(2)]  # each text alone, unpadded
    assert [line.split(",")[-2:] for line in lines[1:]] == [[["neg", "pos"][int(p.argmax())], f"{float(p.max()):.4f}"]
                                                            for p in expected]
    from_python = predict.probabilities(str(tmp_path / "saved"), ["a good, long film", "dull"])
    assert [list(p) for p in from_python] == [["neg", "pos"]] * 2
    assert np.allclose([list(p.values()) for p in from_python], torch.stack(expected).numpy(), atol=1e-6)
    assert_refused_in_one_line(["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "in.csv"), "--text-column",
                                "body", "--out", str(tmp_path / "bad.csv")], "no column 'body'", capsys, predict.main)
    assert_refused_in_one_line(["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "out.csv"),  # labelled
                                "--out", str(tmp_path / "bad.csv")], "out.csv has a column 'prediction' already "
                               "(labelled before?): rename or drop it", capsys, predict.main)
    (tmp_path / "scored.csv").write_text("text,probability\ngood,0.9\n")  # predict.py's other column
    assert_refused_in_one_line(["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "scored.csv"),
                                "--out", str(tmp_path / "bad.csv")], "scored.csv has a column 'probability' already",
                               capsys, predict.main)
    assert not (tmp_path / "bad.csv").exists()


def test_predict_reads_the_columns_the_model_was_trained_on_and_refuses_the_wrong_texts(tmp_path, tiny_bert, capsys):
    """A model kept from your own pairs reads them by their trained columns without flags, as its run
    scored the dev file; given no second text it is refused in one line, and so is a second text
    handed to a model trained on single texts."""
    rows = lambda start: "".join(f"{['good fun', 'bad dull'][i % 2]} {i},{['fine plot', 'awful mess'][i % 3 == 0]} {i},"
                                 f"{'pos' if i % 2 == 0 else 'neg'}\n" for i in range(start, start + 40))
    for name, start in (("train", 0), ("dev", 40)):
        (tmp_path / f"{name}.csv").write_text("premise,hypothesis,label\n" + rows(start))
    result = run(tmp_path, tiny_bert, str(tmp_path), "--train-file", str(tmp_path / "train.csv"), "--dev-file",
                 str(tmp_path / "dev.csv"), "--text-column", "premise", "--text-pair-column", "hypothesis",
                 "--size", "24", "--precision", "fp32", "--save", str(tmp_path / "pairs"))
    assert checkpoint.read_inputs(str(tmp_path / "pairs")) == {"pairs": True, "columns": ["premise", "hypothesis"],
                                                               "precision": "fp32"}
    predict.main(["--model", str(tmp_path / "pairs"), "--input", str(tmp_path / "dev.csv"), "--out", str(tmp_path / "out.csv")])
    with open(tmp_path / "out.csv", newline="") as f:
        labelled = list(csv.DictReader(f))
    assert sum(row["prediction"] == row["label"] for row in labelled) == round(result["at_score"]["accuracy"] * 40)
    (tmp_path / "single.csv").write_text("text,second,label\ngood fun 1,fine plot 1,pos\n")
    assert_refused_in_one_line(["--model", str(tmp_path / "pairs"), "--input", str(tmp_path / "single.csv"), "--out",
                                str(tmp_path / "bad.csv")], "reads sentence pairs (trained on the columns 'premise' and "
                               "'hypothesis'): name the input's second text with --text-pair-column", capsys, predict.main)
    (tmp_path / "other").mkdir()  # a folder holds one task's runs
    train, dev, _ = sentiment_csvs(tmp_path / "other")
    run(tmp_path / "other", tiny_bert, str(tmp_path), "--train-file", train, "--dev-file", dev, "--size", "24", "--save",
        str(tmp_path / "single"))
    assert_refused_in_one_line(["--model", str(tmp_path / "single"), "--input", str(tmp_path / "single.csv"),
                                "--text-pair-column", "second", "--out", str(tmp_path / "bad.csv")],
                               "was trained on single texts: drop --text-pair-column", capsys, predict.main)
    assert not (tmp_path / "bad.csv").exists()
    # from Python: the pairs as the file's rows gave them, and the same two refusals
    first, second = zip(*[(row["premise"], row["hypothesis"]) for row in labelled])
    assert predict.predictions(str(tmp_path / "pairs"), first, pairs=second) == [row["prediction"] for row in labelled]
    with pytest.raises(ValueError, match=r"reads sentence pairs \(trained on the columns 'premise' and 'hypothesis'\): "
                                         r"pass their second texts as pairs=\[...\]"):
        predict.predictions(str(tmp_path / "pairs"), first)
    with pytest.raises(ValueError, match="was trained on single texts: drop pairs"):
        predict.predictions(str(tmp_path / "single"), ["good fun"], pairs=["fine plot"])


def test_a_regression_kept_predicts_its_scores_from_a_file_and_from_python(tmp_path, tiny_bert_regression, capsys):
    """Scores to predict, on pairs: predict.py writes each to four decimals (and, given the labels'
    column, the run's own dev scores), predictions() hands the same floats, and they correlate with
    the labels as the run's dev score said."""
    train_file, scores_file = pair_scores_csv(tmp_path)  # predicted: the dev file the run's score was read on
    result = run(tmp_path, tiny_bert_regression, str(tmp_path), "--train-file", train_file, "--dev-file", scores_file,
                 "--text-column", "question", "--text-pair-column", "answer", "--label-column", "score", "--regression",
                 "--size", "32", "--freeze", "1", "--precision", "fp32", "--save", str(tmp_path / "saved"))
    predict.main(["--model", str(tmp_path / "saved"), "--input", scores_file, "--out", str(tmp_path / "out.csv"),
                  "--label-column", "score"])
    assert capsys.readouterr().out.splitlines()[-1] == ("predict.py: against its column 'score': " + ", ".join(
        f"{name} {value:.4f}" for name, value in result["at_score"].items()))
    with open(tmp_path / "out.csv", newline="") as f:
        labelled = list(csv.DictReader(f))
    floats = predict.predictions(str(tmp_path / "saved"), [r["question"] for r in labelled], [r["answer"] for r in labelled])
    assert all(isinstance(x, float) for x in floats) and [f"{x:.4f}" for x in floats] == [r["prediction"] for r in labelled]
    assert "probability" not in labelled[0]  # a score has none
    with pytest.raises(ValueError, match=r"^the model .*saved predicts scores \(a regression\), not classes: predictions\(\) gives them$"):
        predict.probabilities(str(tmp_path / "saved"), ["a question"], ["an answer"])
    truth = np.array([float(r["score"]) for r in labelled])
    assert np.corrcoef(floats, truth)[0, 1] == pytest.approx(result["at_score"]["pearson"], abs=1e-4)


@pytest.mark.parametrize("texts, pairs, words", [
    ("a good film", None, "texts is one string: pass a list of texts"),
    ([], None, "texts: no texts to label"),
    (["good", "  "], None, "texts[1] is '  ': each text must be a string with words"),
    (["good", None], None, "texts[1] is None"),
    (["good", "dull"], ["fine"], "1 pairs for 2 texts: give each text its second text"),
    (["good"], "fine", "pairs is one string"),
])
def test_predictions_from_python_refuse_bad_texts_before_reading_the_model(tmp_path, texts, pairs, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        predict.predictions(str(tmp_path / "no-such-model"), texts, pairs)  # the texts' line, not the folder's


def test_labels_to_score_against_that_the_model_cannot_read_are_refused_before_any_work(tmp_path, tiny_bert, capsys):
    """From the file (--label-column) and from Python (scores()), by line or place."""
    checkpoint.save_pretrained(checkpoint.from_pretrained(tiny_bert).eval(), str(tmp_path / "saved"), label_names=["neg", "pos"])
    (tmp_path / "in.csv").write_text("text,label,stars\ngood,pos,5\nbad,neutral,1\nfine,,3\n")
    argv = ["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "in.csv"), "--out", str(tmp_path / "out.csv")]
    for column, words in (("label", "in.csv, line 3: label 'neutral' is not one of the model's classes (neg, pos)"),
                          ("stars", "in.csv, line 2: label '5' is not one of the model's classes (neg, pos)"),
                          ("gold", "no column 'gold' in the header ['text', 'label', 'stars']; set --label-column")):
        assert_refused_in_one_line(argv + ["--label-column", column], words, capsys, predict.main)
    assert not (tmp_path / "out.csv").exists()
    for labels, words in ((["pos", ""], "labels[1]: label '' is not one of the model's classes (neg, pos)"),
                          (["pos"], "1 labels for 2 texts: give each text its label")):
        with pytest.raises(ValueError, match=re.escape(words)):
            predict.scores(str(tmp_path / "saved"), ["good", "bad"], labels)


def test_predict_refuses_a_device_this_machine_lacks_in_one_line(tmp_path, tiny_bert, capsys):
    (tmp_path / "in.csv").write_text("text\ngood\n")
    argv = ["--model", tiny_bert, "--input", str(tmp_path / "in.csv"), "--out", str(tmp_path / "out.csv"), "--device"]
    assert_refused_in_one_line(argv + ["gpu"], "unknown --device 'gpu'", capsys, predict.main)
    with pytest.raises(ValueError, match="unknown --device 'gpu'"):
        predict.predictions(tiny_bert, ["good"], device="gpu")
    assert not (tmp_path / "out.csv").exists()


def test_predict_never_replaces_a_file_unasked_nor_its_input(tmp_path, tiny_bert, capsys):
    checkpoint.save_pretrained(checkpoint.from_pretrained(tiny_bert).eval(), str(tmp_path / "saved"), label_names=["neg", "pos"])
    (tmp_path / "in.csv").write_text("text\ngood\n")
    (tmp_path / "out.csv").write_text("mine\n")
    argv = ["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "in.csv"), "--text-column", "text", "--out"]
    for out, extra, words in ((tmp_path / "out.csv", [], "exists"), (tmp_path / "in.csv", ["--overwrite"], "is the input"),
                              (tmp_path / "out.csv" / "p.csv", [], "out.csv is a file, where a folder would go")):
        assert_refused_in_one_line(argv + [str(out), *extra], words, capsys, predict.main)
    assert (tmp_path / "out.csv").read_text() == "mine\n" and (tmp_path / "in.csv").read_text() == "text\ngood\n"
    predict.main(argv + [str(tmp_path / "out.csv"), "--overwrite"])
    assert (tmp_path / "out.csv").read_text().startswith("text,prediction")


def test_predict_skips_blank_lines_and_names_a_short_row_in_one_line(tmp_path, tiny_bert, capsys):
    checkpoint.save_pretrained(checkpoint.from_pretrained(tiny_bert).eval(), str(tmp_path / "saved"), label_names=["neg", "pos"])
    argv = ["--model", str(tmp_path / "saved"), "--text-column", "text", "--out"]
    (tmp_path / "blank.csv").write_text("text,id\ngood,1\n\ndull,2\n\n")
    predict.main(argv + [str(tmp_path / "out.csv"), "--input", str(tmp_path / "blank.csv")])
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "text,id,prediction,probability" and [line.split(",")[:2] for line in lines[1:]] == [["good", "1"], ["dull", "2"]]
    (tmp_path / "short.csv").write_text("text,id\ngood,1\ndull\n")
    assert_refused_in_one_line(argv + [str(tmp_path / "short_out.csv"), "--input", str(tmp_path / "short.csv")],
                               "short.csv, line 3: expected 2 columns, found 1", capsys, predict.main)
    assert not (tmp_path / "short_out.csv").exists()


def test_predict_writes_a_tsv_where_out_names_one_and_refuses_a_field_it_cannot_hold(tmp_path, tiny_bert, capsys):
    """--out labelled.tsv: the rows split by tabs, unquoted, as tables.py reads a .tsv back; a field
    with a line break (a CSV may quote one) is refused in one line, nothing written."""
    checkpoint.save_pretrained(checkpoint.from_pretrained(tiny_bert).eval(), str(tmp_path / "saved"), label_names=["neg", "pos"])
    argv = ["--model", str(tmp_path / "saved"), "--text-column", "text", "--out"]
    (tmp_path / "in.tsv").write_text('id\ttext\n1\ta "good" film\n2\tdull\n')
    predict.main(argv + [str(tmp_path / "out.csv"), "--input", str(tmp_path / "in.tsv")])
    predict.main(argv + [str(tmp_path / "out.tsv"), "--input", str(tmp_path / "in.tsv")])
    as_csv = tables.read_table(str(tmp_path / "out.csv"))
    assert tables.read_table(str(tmp_path / "out.tsv")) == as_csv and as_csv[1][:2] == ["1", 'a "good" film']
    (tmp_path / "lines.csv").write_text('text,id\n"good\nfilm",1\n')
    assert_refused_in_one_line(argv + [str(tmp_path / "lines.tsv"), "--input", str(tmp_path / "lines.csv")],
                               "holds a tab or a line break, which a .tsv cannot", capsys, predict.main)
    assert not (tmp_path / "lines.tsv").exists()


def test_predict_refuses_rows_without_text_in_one_line_before_any_work(tmp_path, tiny_bert, capsys):
    # a model trained on no empty text has nothing to read there (training refuses them too)
    checkpoint.save_pretrained(checkpoint.from_pretrained(tiny_bert).eval(), str(tmp_path / "saved"), label_names=["neg", "pos"])
    (tmp_path / "in.csv").write_text("text,other\ngood,a\n  ,b\ndull,\n,c\n")
    argv = ["--model", str(tmp_path / "saved"), "--input", str(tmp_path / "in.csv"), "--text-column", "text", "--out"]
    assert_refused_in_one_line(argv + [str(tmp_path / "out.csv")], "in.csv, line 3: empty text (and 1 more: line 5)",
                               capsys, predict.main)
    assert not (tmp_path / "out.csv").exists()
    with pytest.raises(SystemExit):  # the second text of a pair is read too
        predict.main(argv + [str(tmp_path / "out.csv"), "--text-pair-column", "other"])
    assert "line 3: empty text (and 2 more: lines 4, 5)" in capsys.readouterr().err


@pytest.mark.parametrize("model, words", [
    ("notmodel", "notmodel holds no saved model (no config.json): give the folder that freeze_study.py --save"),
    ("empty", "empty holds no saved model"),
    ("badconfig", "config.json is not a JSON config (Expecting value: line 1 column 1"),
    ("nothere", "checkpoint folder '{tmp}/nothere' does not exist"),
])
def test_predict_on_a_folder_that_is_not_a_saved_model_is_one_line(tmp_path, capsys, model, words):
    (tmp_path / "notmodel").mkdir(), (tmp_path / "notmodel" / "notes.txt").write_text("x")
    (tmp_path / "empty").mkdir(), (tmp_path / "badconfig").mkdir(), (tmp_path / "badconfig" / "config.json").write_text("")
    (tmp_path / "in.csv").write_text("text\ngood\n")
    before = files_in(tmp_path)
    assert_refused_in_one_line(["--model", str(tmp_path / model), "--input", str(tmp_path / "in.csv"), "--text-column",
                                "text", "--out", str(tmp_path / "out.csv")], words.format(tmp=tmp_path), capsys, predict.main)
    assert files_in(tmp_path) == before


def test_a_checkpoint_to_train_from_is_refused_not_labelled_by_a_random_head(tmp_path, capsys):
    """MiniLM as the hub gives it has no classifier: its head would start as random numbers, and
    every label with it a coin's. A saved run's folder is what predict.py takes."""
    (tmp_path / "in.csv").write_text("text\ngood\n")
    before = files_in(tmp_path)
    assert_refused_in_one_line(["--model", "minilm", "--input", str(tmp_path / "in.csv"), "--out", str(tmp_path / "out.csv")],
                               "holds no trained classifier (its weights lack classifier.bias)", capsys, predict.main)
    assert files_in(tmp_path) == before
    with pytest.raises(ValueError, match="holds no trained classifier"):
        predict.predictions("minilm", ["good"])
