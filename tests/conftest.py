import json
import os
import shutil
import subprocess
import sys

import pytest

# tests import the top-level modules (model, data, loop, ...) the way freeze_study.py does
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import result  # noqa: E402  the project's modules, from ROOT
GLUE_DIR = os.environ.get("GLUE_DIR") or os.path.join(ROOT, "..", "shared", "glue")


def pytest_configure(config):
    """One default precision for the whole suite, as a grid's pool has one: measured once, here,
    before xdist's workers start, and handed to them and to every process a test starts
    (machine.BF16_PAYS). Measured by each, two tests' grids once fell either side of the margin."""
    import machine
    os.environ.update(machine.handed_on())


def pytest_collection_finish(session):
    """Every test module is imported (torch, transformers): their objects out of the collections
    the tests set off, as a run's process does after its imports."""
    import machine
    machine.spare_imports_from_collection()


def cuda_available():
    import torch
    return torch.cuda.is_available()


# tests that take `device` run on the CPU, and again on CUDA where there is a GPU (bench/gpu.sh
# runs the suite on one; CI has none, so there they are skipped)
@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not cuda_available(), reason="needs a CUDA GPU (bench/gpu.sh runs the suite on one)"))])
def device(request):
    import torch
    return torch.device(request.param)


GLUE_MISSING = (f"needs the real GLUE files in GLUE's own layout (SST-2/, CoLA/, MRPC/, STS-B/, RTE/, each with "
                f"train.tsv and dev.tsv) at {GLUE_DIR}: put them in ../shared/glue beside the project or set GLUE_DIR")


def glue_present():
    return os.path.isfile(os.path.join(GLUE_DIR, "SST-2", "dev.tsv"))


# a test that reads GLUE's files without the glue_dir fixture
needs_glue = pytest.mark.skipif(not glue_present(), reason=GLUE_MISSING)


@pytest.fixture(scope="session")
def glue_dir():
    if not glue_present():
        pytest.skip(GLUE_MISSING)
    return GLUE_DIR


def save_tiny_bert(folder, dropout=0.1, layers=3, num_labels=2, family="bert"):
    """A random 32-wide BertForSequenceClassification (or another family's classifier of that
    shape) with MiniLM's real tokenizer: a checkpoint that trains in seconds on the real data."""
    import torch
    import transformers
    import hub
    torch.manual_seed(0)
    shape = dict(vocab_size=30522, num_labels=num_labels)
    if family == "distilbert":
        config = transformers.DistilBertConfig(**shape, dim=32, n_layers=layers, n_heads=4, hidden_dim=64,
                                               dropout=dropout, attention_dropout=dropout)
    elif family == "deberta-v2":
        config = transformers.DebertaV2Config(**shape, hidden_size=32, num_hidden_layers=layers, num_attention_heads=4,
                                              intermediate_size=64, hidden_dropout_prob=dropout,
                                              attention_probs_dropout_prob=dropout, **DEBERTA_V3)
    elif family == "modernbert":  # MiniLM's tokenizer: its [PAD] is 0, [CLS] 101, [SEP] 102
        config = transformers.ModernBertConfig(**shape, hidden_size=32, num_hidden_layers=layers, num_attention_heads=4,
                                               intermediate_size=64, embedding_dropout=dropout, mlp_dropout=dropout,
                                               attention_dropout=dropout, classifier_dropout=dropout, local_attention=8,
                                               **MODERNBERT_TOKENS)
    else:
        kind = dict(bert=transformers.BertConfig, electra=transformers.ElectraConfig, roberta=transformers.RobertaConfig,
                    mpnet=transformers.MPNetConfig, **{"xlm-roberta": transformers.XLMRobertaConfig})[family]
        config = kind(**shape, hidden_size=32, num_hidden_layers=layers, num_attention_heads=4, intermediate_size=64,
                      hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
                      **(dict(pad_token_id=1, max_position_embeddings=514)
                         if family in ("roberta", "xlm-roberta", "mpnet") else {}))
    transformers.AutoModelForSequenceClassification.from_config(config).save_pretrained(folder)
    minilm = hub.checkpoint_folder("minilm")
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(os.path.join(minilm, name), folder)
    return str(folder)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_bert_no_dropout(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert-no-dropout"), dropout=0.0)


@pytest.fixture(scope="session")
def tiny_bert_regression(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert-regression"), num_labels=1)


DEBERTA_V3 = dict(relative_attention=True, position_buckets=8, norm_rel_ebd="layer_norm", share_att_key=True,
                  pos_att_type=["p2c", "c2p"], position_biased_input=False, type_vocab_size=0, layer_norm_eps=1e-7)
MODERNBERT_TOKENS = dict(pad_token_id=0, bos_token_id=101, cls_token_id=101, eos_token_id=102, sep_token_id=102)


def tiny_hf_model(family, tmp_path, num_labels=3, buckets=32):
    """A random transformers classifier of the family, saved as a checkpoint folder (buckets:
    MPNet's relative position table's rows)."""
    import torch
    import transformers
    torch.manual_seed(0)
    common = dict(vocab_size=99, hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
                  intermediate_size=37, max_position_embeddings=64, num_labels=num_labels,
                  attn_implementation="eager")
    if family == "bert":
        hf = transformers.BertForSequenceClassification(transformers.BertConfig(**common))
    elif family == "roberta":
        config = transformers.RobertaConfig(**common, pad_token_id=1, type_vocab_size=1)
        hf = transformers.RobertaForSequenceClassification(config)
    elif family == "distilbert":
        config = transformers.DistilBertConfig(vocab_size=99, dim=32, n_layers=3, n_heads=4, hidden_dim=37,
                                               max_position_embeddings=64, num_labels=num_labels,
                                               attn_implementation="eager")
        hf = transformers.DistilBertForSequenceClassification(config)
    elif family == "electra":  # embeddings narrower than the layers: the projection runs
        hf = transformers.ElectraForSequenceClassification(transformers.ElectraConfig(**common, embedding_size=16))
    elif family == "xlm-roberta":
        config = transformers.XLMRobertaConfig(**common, pad_token_id=1, type_vocab_size=1)
        hf = transformers.XLMRobertaForSequenceClassification(config)
    elif family == "deberta-v2":  # DeBERTa-v3's shape: 8 position buckets, so the batch's distances are log-bucketed
        hf = transformers.DebertaV2ForSequenceClassification(transformers.DebertaV2Config(**common, **DEBERTA_V3))
        with torch.no_grad():  # its fresh table is near zero: make the relative positions matter
            hf.deberta.encoder.rel_embeddings.weight.normal_(0, 1.0)
    elif family == "modernbert":  # a local window of 8: most of the batch's sentences are longer
        tokens = dict(MODERNBERT_TOKENS, bos_token_id=1, cls_token_id=1, eos_token_id=2, sep_token_id=2)
        hf = transformers.ModernBertForSequenceClassification(transformers.ModernBertConfig(**common, local_attention=8, **tokens))
        with torch.no_grad():  # its norms start at one: make them matter
            for name, param in hf.named_parameters():
                if "norm" in name:
                    param.normal_(1.0, 0.2)
    else:
        config = transformers.MPNetConfig(**common, pad_token_id=1, relative_attention_num_buckets=buckets)
        hf = transformers.MPNetForSequenceClassification(config)
        with torch.no_grad():  # its fresh table is near zero: make the relative bias matter
            hf.mpnet.encoder.relative_attention_bias.weight.normal_(0, 1.0)
    hf.save_pretrained(tmp_path)
    return hf.eval(), str(tmp_path)


def padded_batch(pad_id, lengths=(7, 3, 11, 5), vocab=99):
    """Right-padded ids and mask as a tokenizer returns them, and the same sentences unpadded."""
    import torch
    g = torch.Generator().manual_seed(1)
    T = max(lengths)
    ids = torch.full((len(lengths), T), pad_id)
    mask = torch.zeros(len(lengths), T, dtype=torch.long)
    for row, n in enumerate(lengths):
        ids[row, :n] = torch.randint(3, vocab, (n,), generator=g)
        mask[row, :n] = 1
    return ids, mask, [ids[row, :n] for row, n in enumerate(lengths)]


def files_in(folder):
    """{path under folder: its bytes} for every file there: what a refused command must leave as it was."""
    import pathlib
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(pathlib.Path(folder).rglob("*")) if p.is_file()}


def run(tmp_path, checkpoint, glue_dir, *extra, out=None):
    """freeze_study.run on 50 examples of GLUE (SST-2 unless extra says), 2 epochs (where the
    method has epochs), quiet, its caches and subsets under tmp_path; returns the result, written to
    `out` or a new result<i>.json (a run never replaces a file unasked)."""
    import freeze_study
    import methods
    out = out or f"result{len(list(tmp_path.glob('result*.json')))}.json"
    argv = ["--model", checkpoint, "--glue-dir", glue_dir, "--size", "50", "--cache-dir", str(tmp_path / "cache"),
            "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / out), "--quiet", *extra]
    if "epochs" not in methods.get(freeze_study.parse_args(argv).method).ignores:
        argv += ["--epochs", "2"]
    return freeze_study.run(freeze_study.parse_args(argv))


def prepared_run(tmp_path, checkpoint, glue_dir, *extra, device="cpu"):
    """A run's plan, its model (built from its seed, frozen as planned) and its inputs, as
    freeze_study.run makes them before it trains: 50 examples of SST-2 (glue_dir None: the files
    `extra` names, a fold of one with --folds), 1 epoch, fp32."""
    import freeze_study
    from plan import plan_run
    task_flags = ["--glue-dir", glue_dir, "--size", "50"] if glue_dir else []
    args = freeze_study.parse_args(["--model", checkpoint, *task_flags, "--epochs", "1", "--precision", "fp32",
                                    "--device", str(device), "--cache-dir", str(tmp_path / "cache"),
                                    "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / "r.json"), *extra])
    task, indices = freeze_study.load_task_and_subset(args)
    plan = plan_run(args, task)
    task, indices, held = freeze_study.one_file_splits(plan, task, indices)
    model, inputs, _, _ = freeze_study.prepare(plan, task, indices, held)
    return plan, model, inputs


def result_record(freeze, size, seed, accuracy=0.5, mcc=0.0, task="sst2", model="minilm", num_layers=6,
                  precision="fp32", device="cpu", processor=None, lr=5e-5, metric="accuracy", score=None, seconds=None,
                  **config):
    """A run result in today's format with what the reports read (config: more of its configuration;
    seconds: the run's timings, {"total": ...})."""
    config = {**dict(freeze=freeze, size=size, seed=seed, lr=lr, task=task, dataset=task, model=model, num_layers=num_layers,
                     precision=precision, device=device, method="finetune", reinit=0, pooling="first"),
              **config}
    return dict(config=config, metric=metric, score=accuracy if score is None else score, best_accuracy=accuracy,
                best_mcc=mcc, best=dict(accuracy=accuracy, mcc=mcc), at_score=dict(accuracy=accuracy, mcc=mcc), curve=[],
                majority_accuracy=0.509, constant=dict(accuracy=0.509, mcc=0.0, **{metric: 0.0} if metric not in
                                                       ("accuracy", "mcc") else {}), dev_size=872, processor=processor,
                train_at_score=None, trainable_parameters=None, **({} if seconds is None else dict(seconds=seconds)))


def write_result(folder, freeze, size, seed, accuracy, **fields):
    """A run's result JSON (result_record) under the name freeze_study.py gives it."""
    record = result_record(freeze, size, seed, accuracy, **fields)
    (folder / result.name_of(record["config"]).file_name()).write_text(json.dumps(record))


@pytest.fixture
def tables_only(request, monkeypatch):
    """A report's tables without its figures (tests/study/test_figures.py draws them), but for a test
    that asks for `drawn` too."""
    if "drawn" not in request.fixturenames:
        from study import figures
        for name in ("write_figure", "write_cost_figure"):
            monkeypatch.setattr(figures, name, lambda *args: True)
        monkeypatch.setattr(figures, "write_answer_figure", lambda *args: None)


@pytest.fixture
def drawn():
    """A report's figures drawn, for a test that reads them (with tables_only)."""


def pair_scores_csv(folder, rows=40, dev=20):
    """Your own pairs task of scores: question, answer, score (0 to 5); the train file (`rows`) and a
    dev file of its own (`dev` rows, numbered on), as paths."""
    paths = []
    for name, numbers in (("scores.csv", range(rows)), ("scores-dev.csv", range(rows, rows + dev))):
        (folder / name).write_text("question,answer,score\n"
                                   + "".join(f"q {i} ?,a {i % 7} b,{(i % 11) / 2:.1f}\n" for i in numbers))
        paths.append(str(folder / name))
    return paths


def film_task(folder, words=("good", "bad", "fine", "dull"), train=24, dev=10, suffix="tsv"):
    """A tiny task of single sentences whose first word tells the class (the label is i % 2, so with an
    even number of words each word keeps one class): `train` rows, then `dev` rows of their own
    (numbered on), written as train.tsv and dev.tsv (suffix "csv": text,label files); its rows as
    (text, label) pairs."""
    rows = [(f"{words[i % len(words)]} film {i}", i % 2) for i in range(train + dev)]
    header, sep = ("sentence", "\t") if suffix == "tsv" else ("text", ",")
    for name, part in (("train", rows[:train]), ("dev", rows[train:])):
        (folder / f"{name}.{suffix}").write_text(f"{header}{sep}label\n" + "".join(f"{t}{sep}{y}\n" for t, y in part))
    return rows


def assert_refused_in_one_line(argv, message, capsys, main=None):
    """A command's main (freeze_study.py's unless given: predict.py's) on argv ends with exit code 2
    and one line on stderr holding `message`."""
    import freeze_study
    with pytest.raises(SystemExit) as exit_:
        (main or freeze_study.main)(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err, err


def sentiment_csvs(folder):
    """Your own task in three files of named classes, the first two words telling the class: train (48
    rows), dev (24) and test (31, other texts)."""
    words = ["good fun", "bad dull", "fine plot", "awful mess", "great cast", "poor pace"]
    paths = []
    for name, start, rows in (("train", 0, 48), ("dev", 48, 24), ("test", 72, 31)):
        lines = "".join(f"{words[i % 6]} {i} ok,{'pos' if i % 2 == 0 else 'neg'}\n" for i in range(start, start + rows))
        (folder / f"{name}.csv").write_text("text,label\n" + lines)
        paths.append(str(folder / f"{name}.csv"))
    return paths


def bad_files(folder):
    """Your own files as users get them wrong, each beside a good train.csv and dev.csv (sentiment_csvs)."""
    rows = lambda label: "".join(f"good fun {i},{label(i)}\n" for i in range(24))
    (folder / "scores.csv").write_text("text,label\n" + rows(lambda i: ["0.25", "0.5", "0.75", "1.0"][i % 4]))
    (folder / "twice.csv").write_text("text,text,label\n" + "".join(f"a {i},b {i},{'pos' if i % 2 else 'neg'}\n" for i in range(24)))
    (folder / "empty.csv").write_text("")
    (folder / "tabs.csv").write_text("text\tlabel\n" + "".join(f"good {i}\t{'pos' if i % 2 else 'neg'}\n" for i in range(24)))
    (folder / "anger.csv").write_text("text,label\n" + rows(lambda i: "anger"))
    (folder / "numbers.csv").write_text("text,label\n" + rows(lambda i: i % 2))
    (folder / "seven.csv").write_text("text,label\n" + rows(lambda i: 7 if i == 2 else i % 2))


def cli(*argv, env=None, **kwargs):
    """freeze_study.py in a process of its own (env: more of the environment), its output as text pipes."""
    return subprocess.Popen([sys.executable, os.path.join(ROOT, "freeze_study.py"), *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, **kwargs)


ADVISE = [sys.executable, "-m", "study.search.advise"]


def advise_here(command, env=None):
    """`command` (ADVISE and its arguments) run in this process: the same main() make advise runs, its
    output captured, without starting a Python that imports torch again (3 to 4 s of CPU a call; the
    search's runs still go to worker processes). subprocess.run's answer: (returncode, stdout, stderr).
    `env`: the whole environment, as subprocess.run's. The killed and resumed search, and make advise,
    stay processes of their own (test_advise.py's fixture, test_grid.py)."""
    import contextlib
    import io
    from study.search import advise
    assert command[:3] == ADVISE, command
    out, err, code, environ, cwd = io.StringIO(), io.StringIO(), 0, dict(os.environ), os.getcwd()
    try:
        os.chdir(ROOT)
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            advise.main(command[3:])
    except SystemExit as e:
        code = 0 if e.code is None else e.code if isinstance(e.code, int) else 1
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
    return subprocess.CompletedProcess(command, code, out.getvalue(), err.getvalue())
