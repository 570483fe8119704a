"""Every family under every method, every way a run is kept: a run of a tiny random checkpoint at
k = 1 (the probe at k = L) with --save; the saved folder read back (transformers' classifier, where
the method keeps one, to our logits); predict.py labelling the dev rows to the scores the run
recorded, each row's probability the one it recorded. A cell that cannot work (BitFit on a family without biases) is refused in one line,
before any training, and leaves nothing behind."""

import csv

import numpy as np
import pytest
import torch

import checkpoint
from parts import families
import methods
import predict
from result import outputs_in
from conftest import save_tiny_bert

FAMILIES = ["bert", "roberta", "xlm-roberta", "distilbert", "electra", "modernbert", "deberta-v2", "mpnet"]
LAYERS = 2
WORDS = ["good", "bad", "fine", "dull", "great", "awful"]


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    """A 3-class task of our own: 30 training rows, 24 dev rows."""
    folder = tmp_path_factory.mktemp("task")
    rows = [(f"a {WORDS[i % 6]} film , {WORDS[(i * 7) % 6]} too {i}", str(i % 3)) for i in range(54)]
    for name, part in (("train.csv", rows[:30]), ("dev.csv", rows[30:])):
        with open(folder / name, "w", newline="") as f:
            csv.writer(f).writerows([("text", "label")] + part)
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Each family's tiny random checkpoint, made once."""
    made = {}

    def of(family):
        if family not in made:
            made[family] = save_tiny_bert(tmp_path_factory.mktemp(family), layers=LAYERS, num_labels=3, family=family)
        return made[family]
    return of


def run_and_save(task, checkpoint_folder, method, out):
    import freeze_study
    k = LAYERS if methods.get(method).every_layer_frozen else 1
    argv = ["--model", checkpoint_folder, "--dataset", "tiny", "--train-file", str(task / "train.csv"),
            "--dev-file", str(task / "dev.csv"), "--text-column", "text", "--size", "all", "--freeze", str(k),
            "--method", method, "--precision", "fp32", "--device", "cpu", "--cache-dir", str(out / "cache"),
            "--evaluations", "last",  # a search's run, as make advise keeps it: its record's outputs are the saved weights'
            "--out", str(out / "result.json"), "--save", str(out / "saved"), "--quiet"]
    own = methods.get(method)  # the fewest steps its options allow: SetFit's one pair an example, one epoch
    argv += ["--num-iterations", "1"] if "num_iterations" in own.options else [] if "epochs" in own.ignores else ["--epochs", "1"]
    return freeze_study.run(freeze_study.parse_args(argv))


@pytest.mark.parametrize("method", methods.NAMES)
@pytest.mark.parametrize("family", FAMILIES)
def test_a_run_saves_what_predict_reads_as_the_run_scored_it(task, tiny, family, method, tmp_path):
    folder = tiny(family)
    if method == "bitfit" and not families.get(family).biases:
        with pytest.raises(ValueError, match="has none: use --method lora"):
            run_and_save(task, folder, method, tmp_path)
        assert not (tmp_path / "result.json").exists() and not (tmp_path / "saved").exists()
        return
    record = run_and_save(task, folder, method, tmp_path)
    saved = tmp_path / "saved"
    assert (tmp_path / "result.json").exists() and saved.is_dir()

    predict.main(["--model", str(saved), "--input", str(task / "dev.csv"), "--text-column", "text",
                  "--out", str(tmp_path / "labelled.csv")])
    with open(tmp_path / "labelled.csv") as f:
        labelled = list(csv.DictReader(f))
    labels, predicted = np.array([int(r["label"]) for r in labelled]), np.array([int(r["prediction"]) for r in labelled])
    from metrics import scores
    assert scores(labels, predicted, 3) == pytest.approx({k: record["at_score"][k] for k in ("accuracy", "mcc", "macro_f1")})
    from_python = predict.predictions(str(saved), [r["text"] for r in labelled])  # a notebook's way in
    assert [str(label) for label in from_python] == [r["prediction"] for r in labelled]
    recorded = outputs_in(record)  # each row's probability of its class, as the run recorded it (float16)
    chosen = recorded.probabilities[np.arange(len(labelled)), recorded.predicted]
    assert np.abs(np.array([float(r["probability"]) for r in labelled]) - chosen).max() < 1e-3

    if checkpoint.read_head(str(saved)) is None:  # a classifier: transformers reads it to our logits
        import transformers
        theirs = transformers.AutoModelForSequenceClassification.from_pretrained(saved).eval()
        assert type(theirs).__name__ == families.get(family).architecture
        ours = checkpoint.from_pretrained(str(saved), num_labels=3).eval()
        ids = torch.tensor([[ours.config.pad_token_id + 100, 2023, 3185, 2003, 2204, 102]])
        with torch.no_grad():
            torch.testing.assert_close(ours([ids[0]]), theirs(input_ids=ids).logits, atol=1e-5, rtol=1e-5)
    else:  # a sentence embedder: transformers' base model reads the body, the head beside it
        import transformers
        body = transformers.AutoModel.from_pretrained(saved)
        assert type(body).__name__ == families.get(family).architecture.removesuffix("ForSequenceClassification") + "Model"
