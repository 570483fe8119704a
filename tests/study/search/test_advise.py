"""make advise end to end, a real search on a tiny model: it runs to its answer, resumes after a kill
without rerunning a finished run, scores a test file, says when its pick is no better than one class
for every example, and refuses before any run what a run would refuse, a budget too small and a
second search on its folder. Its parts alone: test_policy.py, test_replay.py, test_keep.py."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import data
import methods
from conftest import ADVISE, ROOT, advise_here, film_task, result_record
from study.search import advise, search_folder
from study.answer import fair_score
from study.folder import load_results
from study.search.standing import Cell


def tiny_task(folder):
    film_task(folder, ("good", "bad", "fine", "dull", "great", "awful"), train=48, dev=24)
    (folder / "test.tsv").write_text("sentence\tlabel\n" + "".join(f"{w} film\t{i % 2}\n" for i, w in enumerate(["good", "bad"] * 6)))


@pytest.fixture(scope="module")
def searched(tiny_bert, tmp_path_factory):
    """A search killed after its first runs, then resumed to its end, its runs scoring a test file:
    (folder, the command, the first runs' records as the kill left them, the resumed search's output)."""
    tmp = tmp_path_factory.mktemp("advise")
    tiny_task(tmp)
    folder = tmp / "results"
    command = [*ADVISE, str(folder), "--size", "16", "--budget", "0.5", "--seeds", "2",
               "--depths", "1", "2", "3", "--methods", "finetune", "probe", "--save", str(tmp / "saved"),
               "--splits-dir", str(tmp / "splits"), "--epochs", "2", "--test-file", str(tmp / "test.tsv"),
               "--", "--dataset", "tiny", "--model", tiny_bert,
               "--train-file", str(tmp / "train.tsv"), "--dev-file", str(tmp / "dev.tsv"),
               "--cache-dir", str(tmp / "cache"), "--precision", "fp32"]
    # the third run to end waits, trained and its result not yet written, until the search is killed (tests/hold/)
    flag = tmp / "held"
    hold = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "hold"), HOLD_AFTER="2", HOLD_FLAG=str(flag))
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, env=hold)
    deadline = time.time() + 120
    while not flag.exists() and time.time() < deadline and first.poll() is None:
        time.sleep(0.05)
    assert flag.exists(), "the search never reached its third result"
    os.killpg(first.pid, signal.SIGTERM)
    first.wait(timeout=60)
    time.sleep(0.5)
    before = {p.name: p.read_bytes() for p in folder.glob("*.json")}
    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return folder, command, before, resumed


def test_a_killed_search_resumes_to_its_answer_without_rerunning_a_finished_run(searched):
    folder, _, before, resumed = searched
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert 2 <= len(before) < len(list(folder.glob("*.json")))
    assert all((folder / name).read_bytes() == data for name, data in before.items())
    assert not (folder / advise.LOCK).exists() and not list(folder.glob("*.tmp*"))
    line = resumed.stdout.strip().splitlines()[-2]
    assert line.startswith("advise: decided: ") and "honest" in line
    assert "constant" not in line  # the words tell the classes apart: the pick is clear of one class for all
    report = (folder / advise.REPORT).read_text()
    assert report.startswith("# make advise: tiny") and "**Pick: " in report and "## The rounds" in report and "| 1 | first | freeze3_size16_seed1_probe.json |" in report
    runs = load_results(str(folder), figure="score")
    assert all(r["config"]["evaluations"] == "last" and len(r["curve"]) <= 1 for r in runs)


def test_the_seconds_of_runs_stopped_once_decided_count_as_spent(searched):
    """A run stopped once the answer was decided leaves no result; its seconds (advise.stopped, as
    the search logs them) are in the report's spending all the same."""
    folder, command, _, _ = searched
    again = advise_here(command)
    hours = lambda output: float(output.split(" h of runs")[0].rsplit("| ", 1)[1])
    (folder / search_folder.STOPPED).write_text(json.dumps(dict(run="freeze0_size16_seed2.json", seconds=36.0)) + "\n")
    try:
        stopped = advise_here(command)
        assert again.returncode == 0 and stopped.returncode == 0, again.stderr + stopped.stderr
        assert hours(stopped.stdout) == pytest.approx(hours(again.stdout) + 0.01, abs=0.006)  # 36 s: 0.01 h
        assert "and 36 s of runs stopped once the answer was decided)" in (folder / advise.REPORT).read_text()
    finally:  # the folder is the module's
        (folder / search_folder.STOPPED).unlink()


def test_a_budget_too_small_and_a_second_search_are_refused_in_one_line(searched, tmp_path):
    folder, command, _, _ = searched
    tiny_budget = lambda results: [*command[:3], str(results), *command[4:command.index("--budget") + 1], "0.00001",
                                   *command[command.index("--budget") + 2:]]
    another = tiny_budget(tmp_path / "results")  # another search: the pick it would keep goes elsewhere
    another[another.index("--save") + 1] = str(tmp_path / "saved")
    small = advise_here(another)
    assert small.returncode == 2 and small.stderr.startswith("advise: error: a budget of") \
        and len(small.stderr.strip().splitlines()) == 1
    assert [p.name for p in (tmp_path / "results").glob("*.json")] == ["freeze3_size16_seed1_probe.json"]  # kept
    screened = advise_here(tiny_budget(folder))
    assert screened.returncode == 0 and "advise: decided" in screened.stdout  # its screen done: nothing refused
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (folder / advise.LOCK).write_text(str(other.pid))
        busy = advise_here(command)
        assert busy.returncode == 2 and f"being searched by process {other.pid}" in busy.stderr
        assert len(busy.stderr.strip().splitlines()) == 1
    finally:
        other.kill()
        other.wait()
    (folder / advise.LOCK).write_text("999999999")  # a killed search's lock: taken over
    again = advise_here(command)
    assert again.returncode == 0 and "advise: decided" in again.stdout


def test_slurm_without_a_cluster_is_refused_in_one_line_before_any_work(searched, tmp_path, monkeypatch):
    """Refused before the checkpoints are scored (mpnet at n = 200: 10 s on 2 cores) and before any
    file is written: without sbatch, and where squeue cannot reach a cluster (its own last line said)."""
    _, command, _, _ = searched
    folder = tmp_path / "results"
    another = [command[0], *command[1:3], str(folder), *command[4:command.index("--")], "--slurm", *command[command.index("--"):]]
    another[another.index("--save") + 1] = str(tmp_path / "saved")  # another search's pick goes elsewhere
    from study.search import prior
    monkeypatch.setattr(prior, "search_priors", lambda *args: pytest.fail("the checkpoints were scored"))
    python = os.path.dirname(sys.executable)
    refused = advise_here(another, env=dict(os.environ, PATH=python))  # python, but no sbatch
    assert refused.returncode == 2 and refused.stderr.startswith("advise: error: SLURM=1 needs Slurm's sbatch")
    assert len(refused.stderr.strip().splitlines()) == 1 and not folder.exists()
    tools = tmp_path / "bin"  # a cluster's tools, its controller down
    tools.mkdir()
    for name, script in (("sbatch", "exit 0"), ("squeue", "echo 'squeue: error: Unable to contact slurm controller' >&2; exit 1")):
        (tools / name).write_text(f"#!/bin/sh\n{script}\n")
        (tools / name).chmod(0o755)
    refused = advise_here(another, env=dict(os.environ, PATH=f"{tools}:{python}"))
    assert refused.returncode == 2 and not folder.exists()
    assert refused.stderr == ("advise: error: SLURM=1: squeue cannot reach the cluster: "
                              "squeue: error: Unable to contact slurm controller\n")


def test_a_test_file_is_scored_by_the_searchs_own_runs_and_an_older_run_is_run_again(searched, tmp_path):
    """The pick's figure on the test file is its seeds' own runs' (each scored the file as it ended),
    with no run again; a seed whose run did not score it (an older search's) runs again with the
    test file as its dev split, and scores what its own run would have."""
    folder, command, _, _ = searched
    test_file = command[command.index("--test-file") + 1]
    with open(command[command.index("--save") + 1] + ".json") as f:
        kept = json.load(f)  # the kept run: one of the pick's seeds
    pick = Cell.of(kept["config"])
    runs = {r["config"]["seed"]: r for r in load_results(str(folder), figure="score") if Cell.of(r["config"]) == pick}
    assert len(runs) >= 2 and all(r["test_at_score"] for r in runs.values())
    # the kept copy is the run the search read (its last evaluation), not make best's best of every one
    assert kept["config"]["evaluations"] == "last" and fair_score(kept, "accuracy") == fair_score(runs[kept["config"]["seed"]], "accuracy")
    mean = sum(r["test_at_score"]["accuracy"] for r in runs.values()) / len(runs)
    seed = kept["config"]["seed"]  # the pick's best seed on the dev split, and its own score on the test file
    assert seed == search_folder.kept_seed(list(runs.values()), "accuracy") and kept["test_at_score"]
    own = kept["test_at_score"]["accuracy"]
    said = f"On your test file ({test_file}): **{own:.3f}**, the model kept (seed {seed}); {mean:.3f}, the mean of the pick's"
    assert said in (folder / advise.REPORT).read_text() and not (folder / search_folder.TEST).exists()
    older = Path(search_folder.path_of(str(folder), pick, 16, 2))
    record = json.loads(older.read_text())
    older.write_text(json.dumps(dict(record, test_at_score=None)))
    tested = advise_here(command)  # (its pick kept already: no keep run)
    assert tested.returncode == 0, tested.stderr
    again = load_results(str(folder / search_folder.TEST), figure="score")
    assert [(r["config"]["seed"], r["dev_size"]) for r in again] == [(2, 12)]  # seed 2 alone, on the test file
    assert fair_score(again[0], "accuracy") == pytest.approx(record["test_at_score"]["accuracy"], abs=1e-9)
    assert f"test file {own:.3f} (the model kept, seed {seed}; the pick's runs {mean:.3f})" in tested.stdout
    assert said in (folder / advise.REPORT).read_text()
    for extra, message in (([], "no such file"), (["--dev-file"], "goes with your own --train-file")):
        flags = command[command.index("--") + 1:]
        if extra:  # a GLUE task: no --dev-file of the user's
            flags = flags[:flags.index("--train-file")] + flags[flags.index("--dev-file") + 2:]
        bad = advise_here([*command[:command.index("--")], "--test-file", test_file if extra else str(tmp_path / "none.tsv"),
                           "--", *flags])
        assert bad.returncode == 2 and message in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_the_report_reads_a_searchs_runs_as_its_answer(searched, tmp_path):
    from study import report
    folder = searched[0]
    report.main([str(folder), "--out", str(tmp_path)])
    text = (tmp_path / "report.md").read_text()
    assert "## The answer" in text and "evaluated once" in text and "| probe | 3 |" in text


def test_a_pick_no_better_than_one_class_for_all_says_so_in_every_way_out(tiny_bert, tmp_path, capsys):
    """Labels drawn at random: whatever the search picks, its honest score cannot stand two standard
    errors above the majority class's. The report, the printed line and the Python call's Advice say so.
    The call is given its folders as a notebook holds them, pathlib.Path, its train examples as a
    DataFrame and its test examples as (texts, labels): kept as FOLDER's CSVs, the test file scored."""
    pd = pytest.importorskip("pandas", reason="pandas comes with datasets")
    coin = np.random.default_rng(3)
    train = pd.DataFrame({"text": [f"film {i}" for i in range(48)], "label": coin.integers(0, 2, 48)})
    dev = ([f"film {i}" for i in range(100, 124)], coin.integers(0, 2, 24).tolist())
    test = ([f"film {i}" for i in range(200, 210)], coin.integers(0, 2, 10).tolist())
    folder = tmp_path / "results"
    advice = advise.advise((train, dev), Path(tiny_bert), 16, 0.5, folder, methods=["probe"], seeds=2, test_file=test,
                           save=tmp_path / "saved", cache_dir=tmp_path / "cache", splits_dir=tmp_path / "splits", precision="fp32")
    task = data.load_csv_task(str(folder / "train.csv"), str(folder / "dev.csv"), test_file=str(folder / "test.csv"))
    assert list(task.train_texts) == train["text"].tolist() and task.test_labels.tolist() == test[1]
    assert advice.test_score is not None  # the kept model's, on the test examples
    majority = max(dev[1].count(0), dev[1].count(1)) / 24
    assert advice.clear_of_constant is False and advice.honest_score <= majority + 0.2
    assert f"not clear of a constant prediction's {majority:.3f}" in capsys.readouterr().out
    report = (folder / advise.REPORT).read_text()
    assert f"- **Not clear of a constant prediction**: the best one class for every dev example scores {majority:.3f}" in report
    assert report.startswith("# make advise: results, ")  # the task named by its folder, not GLUE's sst2


def test_a_pick_is_clear_of_a_constant_prediction_only_two_standard_errors_above_it():
    from study.paired import Honest
    from study.search.advise_report import clear_of_constant, constant_of
    assert constant_of([result_record(1, 16, 1), result_record(1, 16, 2, accuracy=0.6)], "accuracy") == 0.509
    assert clear_of_constant(Honest(0.62, 0.05, 1.0), 0.509) is True
    assert clear_of_constant(Honest(0.60, 0.05, 1.0), 0.509) is False
    assert clear_of_constant(None, 0.509) is None  # a search of the halves: no error to read it by


def test_a_search_runs_setfit_s_fast_body_at_its_depths(tiny_bert, tmp_path):
    tiny_task(tmp_path)
    folder = tmp_path / "results"
    command = [*ADVISE, str(folder), "--size", "16", "--budget", "0.5", "--seeds", "1",
               "--depths", "1", "2", "3", "--methods", "setfit-fast", "probe", "--save", str(tmp_path / "saved"),
               "--jobs", "2", "--splits-dir", str(tmp_path / "splits"), "--", "--dataset", "tiny", "--model", tiny_bert,
               "--train-file", str(tmp_path / "train.tsv"), "--dev-file", str(tmp_path / "dev.tsv"),
               "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"]
    done = advise_here(command)
    assert done.returncode == 0, done.stdout + done.stderr
    fast = [r for r in load_results(str(folder), figure="score") if r["config"]["method"] == "setfit-fast"]
    assert {r["config"]["freeze"] for r in fast} >= {1, 3} and all(r["config"]["num_iterations"] is None for r in fast)
    report = (folder / advise.REPORT).read_text()
    assert "| SetFit fast | 1 |" in report
    # two workers: the screen longest first, the depth that trains more layers first
    assert "| 2 | screen | freeze1_size16_seed1_setfit-fast.json, freeze3_size16_seed1_setfit-fast.json |" in report


def test_the_search_s_steps_share_one_object_and_take_at_most_seven_parameters():
    """The search's folder, space, workers and budget travel in one Search (#88), not by hand."""
    import ast
    from conftest import ROOT
    for name in ("advise.py", "advise_report.py", "rounds.py"):
        tree = ast.parse(open(os.path.join(ROOT, "study", "search", name)).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                a = node.args
                count = len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                assert count <= 7, f"study/{name}: {node.name} takes {count} parameters"


def test_a_search_trains_setfit_s_fast_body_unless_its_methods_name_the_library_s():
    from study.search import advise
    from study.search import asked
    assert advise.parser().parse_args(["--size", "200"]).methods is None  # unnamed: the search's own
    space = asked.checked(advise.parser().parse_args(["f", "--size", "200", "--budget", "1", "--depths", "0", "6"]), [])[3]
    searched = {name for _, name in space.depths}
    assert "setfit-fast" in searched and "setfit" not in searched and "probe" in searched
    assert advise.parser().parse_args(["--size", "200", "--methods", "setfit"]).methods == ["setfit"]


@pytest.mark.parametrize("more, message", [
    (["--seeds", "0"], r"--seeds \(make: FOLDS=\) is the most seeds a cell gets, 1 or more \(got 0\)"),
    (["--jobs", "-1"], r"--jobs \(make -j N\) is the runs at once, 1 or more \(got -1\)"),
    (["--slurm", "--slurm-max", "0"], r"--slurm-max \(make: SLURM_MAX=\), an array's tasks at once, is 1 or more \(got 0\)"),
    (["--budget", "0"], r"--budget must be a positive number of hours \(got 0\)"),
])
def test_counts_below_one_are_refused_before_any_work(more, message):
    """Once a ZeroDivisionError after the first runs (--seeds 0), or min() of nothing (--jobs -1)."""
    from study.search import asked
    argv = ["f", "--size", "200", "--budget", "1", "--depths", "0", "6"]
    with pytest.raises(ValueError, match=message):
        asked.checked(advise.parser().parse_args(argv + more), [])


def test_a_results_folder_under_a_file_is_refused_before_any_work(tmp_path):
    """Once a traceback at the first write, from the command line and from Python."""
    from study.search import asked
    (tmp_path / "taken").write_text("a file")
    argv = [str(tmp_path / "taken" / "results"), "--size", "200", "--budget", "1", "--depths", "0", "6"]
    with pytest.raises(ValueError, match="taken is a file, where a folder would go"):
        asked.checked(advise.parser().parse_args(argv), [])
    with pytest.raises(ValueError, match="taken is a file, where a folder would go"):
        advise.advise((["a b", "c d"] * 10, [0, 1] * 10), "minilm", 8, 1, tmp_path / "taken" / "mine")


def test_a_setting_refused_answers_before_torch_is_imported():
    """make advise SIZE=abc took 3.5 s to refuse on 2 cores, nearly all of it torch's import; 0.5 s now."""
    check = "import sys\nfrom study.search import advise\ntry: advise.main(sys.argv[1:])\nexcept SystemExit: print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", check, "f", "--size", "abc", "--budget", "1", "--depths", "0", "6"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.stdout == "False\n" and done.stderr.startswith("advise: error: --size abc"), done.stdout + done.stderr


def test_size_all_on_your_own_file_is_searched_at_its_examples_rates(tmp_path):
    """SIZE=all on a file of 60 examples: SetFit fast at the rate for n = 60, not a GLUE split's thousands."""
    from study.search import advise
    from study.search import asked
    (tmp_path / "train.csv").write_text("text,label\n" + "".join(f"film {i},{i % 2}\n\n" for i in range(60)))
    args = advise.parser().parse_args([str(tmp_path / "results"), "--size", "all", "--budget", "1", "--depths", "0", "6"])
    _, _, size, space = asked.checked(args, ["--train-file", str(tmp_path / "train.csv"), "--dev-file", "dev.csv"])
    assert size == 60 and space.own_rate[("", "setfit-fast")] == methods.get("setfit-fast").default_lr(60) == 5e-4
    assert methods.get("setfit-fast").default_lr("all") == 2e-5  # what 'all' reads as: thousands of examples
    glue = advise.parser().parse_args([str(tmp_path / "results"), "--size", "all", "--budget", "1", "--depths", "0", "6"])
    assert asked.checked(glue, ["--dataset", "sst2"])[2] == "all"


def test_a_run_the_search_would_make_that_would_refuse_is_refused_before_any_work(tiny_bert, tmp_path):
    """Each method planned on the task as its runs will read it, before the checkpoints are scored:
    a test file's label the train file lacks, SetFit named on a regression task. Unnamed, a
    regression task's search leaves SetFit out."""
    tiny_task(tmp_path)
    (tmp_path / "odd.tsv").write_text("sentence\tlabel\ngood\t0\nbad\t2\n")
    for name, numbers in (("scores.tsv", range(40)), ("scores-dev.tsv", range(40, 56))):
        (tmp_path / name).write_text("sentence\tlabel\n" + "".join(f"film {i}\t{i / 8:.2f}\n" for i in numbers))
    args = lambda *extra: advise.parser().parse_args([str(tmp_path / "results"), "--size", "16", "--budget", "1",
                                                      "--depths", "1", "2", "3", *extra])
    flags = lambda train, dev, *extra: ["--model", tiny_bert, "--train-file", str(tmp_path / train),
                                        "--dev-file", str(tmp_path / dev), "--splits-dir", str(tmp_path / "splits"), *extra]
    with pytest.raises(ValueError, match=r"odd.tsv, line 3: label 2 is not a class of the train split \(0..1\)"):
        advise.advise_in(args("--test-file", str(tmp_path / "odd.tsv")), flags("train.tsv", "dev.tsv"))
    with pytest.raises(ValueError, match="is a regression task, and --method setfit-fast needs classes"):
        advise.advise_in(args("--methods", "finetune", "setfit-fast"), flags("scores.tsv", "scores-dev.tsv", "--regression"))
    assert not (tmp_path / "results").exists() and not (tmp_path / "splits").exists()
    from study.search import asked
    checked_args, run_flags, size, space = asked.checked(args(), flags("scores.tsv", "scores-dev.tsv", "--regression"))
    kept = asked.checked_runs(space, size, run_flags, {}, methods_named=False)
    assert {name for _, name in kept.depths} == {"finetune", "lora", "bitfit", "probe"}  # the probe fits a ridge
    with pytest.raises(ValueError, match=r"the folder holds runs of scores-00000000, and this search's task is scores-"):
        asked.checked_runs(space, size, run_flags, {}, False, [{"task": "scores-00000000"}])  # an edited file's
    task_name = data.file_name(str(tmp_path / "scores.tsv"))
    asked.checked_runs(space, size, run_flags, {}, False,
                       [{"task": task_name, "dev": data.file_name(str(tmp_path / "scores-dev.tsv"))}])  # its own
    with pytest.raises(ValueError, match=r"the folder holds runs scored on scores-00000000, and this search's dev file "):
        asked.checked_runs(space, size, run_flags, {}, False, [{"task": task_name, "dev": "scores-00000000"}])
    assert "setfit-fast" in {name for _, name in space.depths}


def test_a_search_too_small_for_the_probe_leaves_it_out_unless_named(tiny_bert, tmp_path):
    """Below the probe's fewest examples (its 5 folds) a search runs the other methods; named in
    --methods, the probe is refused in one line before any work."""
    from study.search import asked
    tiny_task(tmp_path)
    flags = ["--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"), "--dev-file", str(tmp_path / "dev.tsv"),
             "--splits-dir", str(tmp_path / "splits")]
    args = lambda size, *extra: advise.parser().parse_args([str(tmp_path / "results"), "--size", size, "--budget", "1",
                                                            "--depths", "1", "2", "3", *extra])
    def names(size):
        _, run_flags, size, space = asked.checked(args(size), flags)
        return {name for _, name in asked.checked_runs(space, size, run_flags, {}, methods_named=False).depths}
    assert "probe" in names("5") and names("4") == names("5") - {"probe"}
    with pytest.raises(ValueError, match="--method probe needs 5 training examples at least"):
        advise.advise_in(args("4", "--methods", "finetune", "probe"), flags)
    assert not (tmp_path / "results").exists() and not (tmp_path / "splits").exists()
