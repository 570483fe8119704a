"""make advise over several checkpoints (#87): the replay over two checkpoints' grids picks the
checkpoint with the method and depth, a real search over two tiny checkpoints keeps each one's runs
in its own folder and answers across them, the Python call resumes the folder the command began,
and an unknown checkpoint, two colliding folders or texts a checkpoint cannot read are refused in one
line before any run (a Python call's written CSVs removed); the zero-training step scores each
checkpoint's layers first and orders them."""

import json

import pytest

import data
from conftest import ADVISE, advise_here, film_task, save_tiny_bert, write_result
from study.search import advise, policy, prior
from study.search.given import as_csv
from study.search.replay import replay
from study.search.standing import Cell
from study.search.space import deepest, expected_seconds, joined, models_of, ordered, space_for

# ----------------------------------------------------------------------------------------------
# The replay over two grids


def two_grids(tmp_path):
    """A 6-layer checkpoint "small" whose fine-tunes level at 0.80, and a 12-layer "large" that reaches
    0.90 frozen to 8 at three times the seconds a layer: the answer is the large one's."""
    small, large = tmp_path / "small", tmp_path / "large"
    small.mkdir(), large.mkdir()
    for folder, model, layers, depths, level, per_layer in ((small, "small", 6, range(-1, 7), 0.80, 10.0),
                                                          (large, "large", 12, (-1, 0, 2, 4, 8, 10, 12), 0.90, 30.0)):
        for k in depths:
            mean = level - (0.3 if k == layers else 0.02 * max(0, k - layers // 2 - 2))
            for seed in range(1, 6):
                write_result(folder, k, 200, seed, mean + 0.004 * (seed - 3), model=model, num_layers=layers,
                             seconds=dict(total=per_layer * (layers + 1 - max(k, 0)), eval=0.0))
    return str(small), str(large)


def test_a_replay_over_two_checkpoints_grids_chooses_the_checkpoint_too(tmp_path, capsys):
    small, large = two_grids(tmp_path)
    outcome = replay([small, large], 200)
    assert outcome["grid_pick"]["model"] == "large" and outcome["same"], outcome
    assert outcome["runs"] < outcome["grid_runs"] == 8 * 5 + 7 * 5
    assert {cell.model for cell, *_ in outcome["order"]} == {"small", "large"}  # both were screened
    alone = replay(small, 200)
    assert "model" not in alone["pick"] and alone["pick"]["freeze"] >= 0  # one grid: as before
    advise.main(["--replay", small, large, "--size", "200"])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["pick"]["model"] == "large"
    with pytest.raises(ValueError, match="one checkpoint's grid each"):
        replay([small, small], 200)


def test_each_checkpoint_is_costed_from_its_own_runs():
    small = space_for(200, 6, list(range(-1, 7)), ["finetune"], model="small")
    large = space_for(200, 12, [-1, 0, 2, 4, 8, 10, 12], ["finetune"], model="large")
    space = joined([small, large])
    assert models_of(space) == ["small", "large"] and deepest(space, "large") == 12
    observed = {Cell("finetune", 4, 5e-5, model="small"): [(0.8, 21.0)],  # 2.1 units: 10 s a unit
                Cell("finetune", 8, 5e-5, model="large"): [(0.9, 410.0)]}  # 4.1 units: 100 s a unit
    assert expected_seconds(Cell("finetune", 2, 5e-5, model="small"), observed, space) == pytest.approx(41.0)
    assert expected_seconds(Cell("finetune", 10, 5e-5, model="large"), observed, space) == pytest.approx(210.0)
    screen = policy.screen(space, observed)
    assert {cell.model for cell in screen} == {"small", "large"} and all(cell.lr == 5e-5 for cell in screen)
    # the zero-training step's order: one checkpoint's screen, the cheapest first, then the other's
    for order in (["large", "small"], ["small", "large"]):
        models = [cell.model for cell in policy.screen(ordered(space, order), observed)]
        assert models == sorted(models, key=order.index)


# ----------------------------------------------------------------------------------------------
# A real search over two tiny checkpoints, and the Python call


def tiny_rows(folder):
    return film_task(folder, ("good", "bad", "fine", "dull", "great", "awful"), train=48, dev=24, suffix="csv")[:48]


@pytest.fixture(scope="module")
def two_tiny(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("checkpoints")
    return tmp, save_tiny_bert(tmp / "tiny-a", layers=1), save_tiny_bert(tmp / "tiny-b", layers=2, dropout=0.0)


def command(tmp, folder, *models, run_options=()):
    return [*ADVISE, str(folder), "--size", "16", "--budget", "0.5", "--seeds", "1",
            "--methods", "finetune", "probe", "--jobs", "1", "--save", str(folder) + "-saved", "--splits-dir",
            str(tmp / "splits"), "--epochs", "1", "--models", *models, "--", "--train-file", str(tmp / "train.csv"),
            "--dev-file", str(tmp / "dev.csv"), "--text-column", "text", "--cache-dir", str(tmp / "cache"),
            "--precision", "fp32", *run_options]


def test_a_search_over_two_checkpoints_keeps_each_one_s_runs_and_the_python_call_resumes_it(two_tiny):
    tmp, a, b = two_tiny
    rows = tiny_rows(tmp)
    folder = tmp / "results"
    done = advise_here(command(tmp, folder, a, b))
    assert done.returncode == 0, done.stdout + done.stderr
    own = {name: sorted(p.name for p in (folder / name).glob("*.json")) for name in ("tiny-a", "tiny-b")}
    assert own["tiny-a"] and own["tiny-b"] and not list(folder.glob("*.json"))  # a folder a checkpoint
    assert all(json.loads((folder / "tiny-b" / name).read_text())["config"]["num_layers"] == 2 for name in own["tiny-b"])
    report = (folder / advise.REPORT).read_text()
    assert "(tiny-b)" in report and "(tiny-a)" in report
    assert "](advise.png)" in report and (folder / "advise.png").stat().st_size > 0
    # the zero-training step: each checkpoint's layers scored before any run, the best first, in the report
    priors = json.loads((folder / prior.PRIORS).read_text())["16"]
    assert {p["label"] for p in priors.values()} == {"tiny-a", "tiny-b"}
    assert [len(priors[m]["layers"]) for m in (a, b)] == [2, 3]  # the embeddings' and each layer's
    first, second = prior.ranked(priors)
    assert f"{priors[first]['label']} or {priors[second]['label']}" in report.splitlines()[0]
    assert json.loads((folder / "advise.rounds").read_text().splitlines()[0])["runs"][0].startswith(priors[first]["label"])
    table = report[report.index("## Before any training"):report.index("## Every cell that ran")]
    assert table.index(priors[first]["label"]) < table.index(priors[second]["label"])
    assert f"| 1 | {priors[first]['layers'][1]:.3f} |" in table
    made = {p: p.stat().st_mtime_ns for p in folder.rglob("*.json")}
    from study.search.advise import advise as advise_call
    options = dict(methods=["finetune", "probe"], cache_dir=str(tmp / "cache"), splits_dir=str(tmp / "splits"),
                   precision="fp32", epochs=1, seeds=1, save=str(folder) + "-saved")
    with pytest.raises(ValueError, match="takes no folders"):
        advise_call((str(tmp / "train.csv"), str(tmp / "dev.csv")), [a, b], 16, 0.5, str(folder), folders="x")
    # the same folder and files from Python: nothing runs again, the same pick
    advice = advise_call((str(tmp / "train.csv"), str(tmp / "dev.csv")), [a, b], 16, 0.5, str(folder), **options)
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*.json") if p.parent.name != "saved"} == made
    assert advice.pick.model in (a, b) and advice.report == str(folder / advise.REPORT)
    assert f"**{advice.honest_score:.3f} ±" in (folder / advise.REPORT).read_text()
    # texts and labels: kept as a CSV that reads back as the same task
    texts, labels = zip(*rows)
    written = as_csv((texts, labels), str(tmp / "listed" / "train.csv"), ("text", "label"))
    task = data.load_csv_task(written, str(tmp / "dev.csv"), text_column="text")
    assert list(task.train_texts) == list(texts) and list(task.train_labels) == list(labels)
    assert as_csv((texts, labels), written, ("text", "label")) == written  # the same examples: resumed
    before = open(written, "rb").read()
    (tmp / "listed" / "advise.rounds").write_text("")  # a search began on them
    with pytest.raises(ValueError, match="holds other examples than these, and the folder's search began on them"):
        as_csv((texts[1:], labels[1:]), written, ("text", "label"))
    assert open(written, "rb").read() == before  # not replaced
    (tmp / "listed" / "advise.rounds").unlink()  # a call refused before its search: its examples mended
    as_csv((texts[1:], labels[1:]), written, ("text", "label"))
    assert data.load_csv_task(written, str(tmp / "dev.csv"), text_column="text").train_texts == list(texts[1:])


def test_an_unknown_checkpoint_colliding_folders_and_unreadable_texts_are_refused_in_one_line_before_any_run(
        two_tiny, tmp_path, capsys):
    tmp, a, b = two_tiny
    tiny_rows(tmp)
    twin = save_tiny_bert(tmp_path / "other" / "tiny-a", layers=1)
    capsys.readouterr()  # what saving it printed
    runic = tmp_path / "runic"  # texts MiniLM's vocabulary (the tiny checkpoints') reads as [UNK] alone
    runic.mkdir()
    for name, numbers in (("train.csv", range(40)), ("dev.csv", range(40, 60))):
        (runic / name).write_text("text,label\n" + "".join(f"ᚠᚢᚦ{'ᚨ' * i} ᚱᚲ,{i % 2}\n" for i in numbers))
    flags = lambda folder: ["--train-file", str(folder / "train.csv"), "--dev-file", str(folder / "dev.csv")]
    for models, extra, message in (([a, str(tmp / "missing")], [], "missing"), ([a, twin], [], "would share the folder tiny-a"),
                                   ([a, b], ["--model", a], "--models alone"),
                                   ([a, b], flags(runic), "tiny-a reads 100% of the task's tokens as its unknown token [UNK]")):
        with pytest.raises(SystemExit) as refused:
            advise.main(command(tmp, tmp_path / "results", *models, run_options=extra)[3:])
        error = capsys.readouterr().err
        assert refused.value.code == 2 and message in error and len(error.strip().splitlines()) == 1
        assert not (tmp_path / "results").exists()


def test_a_python_call_refused_before_its_search_leaves_no_file_it_wrote(two_tiny, tmp_path):
    """advise() writes your texts and labels as train.csv and dev.csv before its settings are read:
    refused, it removes them, and the folder where it made it; what was there before stays."""
    tmp, a, _ = two_tiny
    train = (["a good film", "a bad film"] * 10, [1, 0] * 10)
    with pytest.raises(ValueError, match="missing"):
        advise.advise((train, train), [a, str(tmp / "missing")], 16, 0.5, tmp_path / "new")
    assert not (tmp_path / "new").exists()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="invalid choice: 'nope'"):
        advise.advise((train, train), a, 16, 0.5, tmp_path / "mine", methods=["nope"])
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]
