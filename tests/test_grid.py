"""make grid (the Makefile) end to end: a tiny random checkpoint, a tiny TSV task, one epoch per run.
Two real grids: the recipe's (run once, resumed, killed and resumed, refused in another precision)
and one folder of the recipe, probes and SetFit; make best on the first; Lee et al.'s line search;
and make -C DIR, which reads your files from DIR and hands the search the folder it was called in."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, film_task, save_tiny_bert
from result import name_of

SEEDS = "1"
SIZES = "8"
EXPECTED = {f"freeze{k}_size8_seed1.json" for k in (-1, 0, 1)}  # the tiny model's every depth, make's default FREEZE


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grid")
    checkpoint = save_tiny_bert(tmp / "tiny", layers=1)  # freezing depths -1 0 1
    film_task(tmp)
    variables = [f"PYTHON={sys.executable}", f"MODEL={checkpoint}", "DATASET=tiny",
                 f"TRAIN_FILE={tmp / 'train.tsv'}", f"DEV_FILE={tmp / 'dev.tsv'}", f"SIZES={SIZES}",
                 f"SEEDS={SEEDS}", "EPOCHS=1", f"RESULTS={tmp / 'results'}",
                 f"CACHE_DIR={tmp / 'cache'}", f"SPLITS_DIR={tmp / 'splits'}"]
    return tmp / "results", ["make", "-C", ROOT, "--no-print-directory", "-j2", "grid", *variables]


def runs_started(output):
    return output.count("best dev accuracy")


def results(folder):
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*.json")}


def test_grid_runs_everything_once_says_where_it_stands_resumes_and_reports(grid):
    folder, command = grid
    first = subprocess.run([arg.replace("-j2", "-j1") for arg in command], capture_output=True, text=True)
    assert first.returncode == 0, first.stdout + first.stderr
    assert set(results(folder)) == EXPECTED and runs_started(first.stdout) == len(EXPECTED)
    # each finished run prints its place in the grid and the time left
    places = [line for line in first.stdout.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] + "]" for line in places] == [f"[{i}/{len(EXPECTED)}]" for i in range(1, len(EXPECTED) + 1)]
    assert all("best dev accuracy" in line and "left" in line for line in places[:-1])
    status = subprocess.run([arg if arg != "grid" else "status" for arg in command], capture_output=True, text=True)
    assert f"{len(EXPECTED)} of {len(EXPECTED)} runs done" in status.stdout
    for name in ("report.md", "report.csv"):
        assert (folder / name).exists()
    assert (folder / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    done = results(folder)
    second = subprocess.run(command, capture_output=True, text=True)
    assert second.returncode == 0 and runs_started(second.stdout) == 0 and results(folder) == done

    (folder / "freeze0_size8_seed1.json").unlink()
    third = subprocess.run(command, capture_output=True, text=True)
    assert third.returncode == 0 and runs_started(third.stdout) == 1
    redone = results(folder)
    assert {name for name in redone if redone[name] != done.get(name)} == {"freeze0_size8_seed1.json"}


def test_killed_grid_resumes_and_leaves_no_partial_file(grid, tmp_path):
    folder, command = grid
    for name in EXPECTED:  # the whole grid to run again, whatever this process's tests left of it
        (folder / name).unlink(missing_ok=True)
    # one run waits, trained and its result not yet written, until the grid is killed (tests/hold/)
    held, flag = "freeze1_size8_seed1.json", tmp_path / "held"
    hold = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "hold"), HOLD_RUN=held, HOLD_FLAG=str(flag))
    make = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=hold,
                            start_new_session=True)
    deadline = time.time() + 120
    while not flag.exists() and time.time() < deadline and make.poll() is None:
        time.sleep(0.05)
    assert flag.exists(), "the held run never reached its result"
    os.killpg(make.pid, signal.SIGTERM)
    make.wait(timeout=60)
    time.sleep(1)  # let the killed runs finish cleaning up
    assert held not in results(folder)
    leftovers = [p.name for p in folder.iterdir() if ".tmp" in p.name]
    assert leftovers == []

    resumed = subprocess.run(command, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert set(results(folder)) == EXPECTED
    assert [p.name for p in folder.iterdir() if ".tmp" in p.name] == []


def test_grid_does_not_fill_a_folder_s_gaps_in_another_precision(grid):
    folder, command = grid
    subprocess.run(command, capture_output=True, text=True, check=True)  # complete, in the default precision
    (folder / "freeze1_size8_seed1.json").unlink()
    precision = "bf16" if "fp32" in (folder / "report.md").read_text() else "fp32"
    other = subprocess.run(command + [f"PRECISION={precision}"], capture_output=True, text=True)
    assert other.returncode != 0 and runs_started(other.stdout) == 0
    assert f"and this run would be {precision}" in other.stderr  # a failed run's line is make's error
    assert not (folder / "freeze1_size8_seed1.json").exists()


def run_variant(grid, folder, *variables):
    """The tiny grid into `folder` with other sizes, seeds and these variables; it must succeed."""
    _, command = grid
    # one worker: a second pays torch's import again for a handful of tiny runs
    command = [arg.replace("-j2", "-j1") for arg in command if not arg.startswith(("RESULTS=", "SIZES=", "SEEDS="))]
    done = subprocess.run(command + [f"RESULTS={folder}", *variables], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_lee_grid_names_each_learning_rate_and_reports_the_line_search(grid, tmp_path):
    folder = tmp_path / "lee"
    run_variant(grid, folder, "PROTOCOL=lee", "SIZES=all", "SEEDS=1", "LRS=1e-4 3e-4", "FREEZE=0 1")
    assert set(results(folder)) == {f"freeze{k}_sizeall_seed1_lr{lr}.json" for k in (0, 1) for lr in ("1e-4", "3e-4")}
    run = json.loads((folder / "freeze1_sizeall_seed1_lr3e-4.json").read_text())
    assert run["config"]["lr"] == 3e-4 and run["config"]["protocol"] == "lee" and run["config"]["size"] == "all"
    assert run["total_steps"] == 2 and run["selection"] == "last"  # 24 examples, batch 16, EPOCHS=1
    assert "## Line search on the full model (k = 0)" in (folder / "report.md").read_text()
    assert (folder / "figure.png").exists()


@pytest.fixture(scope="module")
def every_kind(grid, tmp_path_factory):
    """One folder of every kind of run at n = 8: the recipe at k = 0 and 1 and the probe (PROBE=1, at
    the last depth), seeds 1 and 2; then SetFit (METHOD=setfit) at k = 1, which
    pools by the mean where the recipe reads the first token (the tiny checkpoint has no
    sentence-transformers files, so --pooling mean says so): one folder, one pooling per method."""
    folder = tmp_path_factory.mktemp("every-kind") / "runs"
    run_variant(grid, folder, "SIZES=8", "SEEDS=1 2", "FREEZE=0 1", "PROBE=1")
    run_variant(grid, folder, "SIZES=8", "SEEDS=1", "FREEZE=1", "METHOD=setfit", "RUN_FLAGS=--pooling mean")
    return folder


def test_a_folder_of_every_kind_of_run_names_each_and_gives_one_report_and_one_answer(every_kind):
    folder = every_kind
    expected = {f"freeze{k}_size8_seed{s}{suffix}.json" for s in (1, 2) for k, suffix in
                ((0, ""), (1, ""), (1, "_probe"))} | {"freeze1_size8_seed1_setfit.json"}
    assert set(results(folder)) == expected
    run = json.loads((folder / "freeze1_size8_seed1_setfit.json").read_text())
    assert run["config"]["method"] == "setfit" and run["selection"] == "setfit" and run["config"]["cache"]
    assert run["config"]["epochs"] == 10  # the grid's EPOCHS=1 went to the methods with epochs alone
    assert json.loads((folder / "freeze0_size8_seed1.json").read_text())["config"]["epochs"] == 1
    markdown = (folder / "report.md").read_text()
    assert "## Linear probe" in markdown  # (reset tops' names and section: tests/test_result.py, study/test_sections.py)
    assert "## What each depth costs" in markdown and "The recipe's cheapest depth at n = 8" in markdown
    assert markdown.count("Recommended at n = 8: **") == 1  # one answer, across methods
    assert markdown.index("## The answer\n") < markdown.index("## Best dev accuracy per run")  # the answer first
    answer = markdown[markdown.index("## The answer:"):]
    assert "| fine-tune | 0 | 2 |" in answer and "| SetFit | 1 | 1 |" in answer and "| probe | 1 | 2 |" in answer
    for figure in ("cost.png", "answer.png"):
        assert (folder / figure).exists()


def test_make_best_trains_the_recommended_cell_again_and_keeps_it(grid, tmp_path):
    import transformers
    folder, command = grid  # the recipe's grid: its pick is a fine-tune, which --save keeps
    saved = tmp_path / "saved"
    subprocess.run(command, capture_output=True, text=True, check=True)  # complete
    command = [arg for arg in command if not arg.startswith(("RESULTS=", "-j"))]
    done = subprocess.run([arg if arg != "grid" else "best" for arg in command] +
                          [f"RESULTS={folder}", "SIZE=8", f"SAVE={saved}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "make best: --freeze" in done.stdout and "seed 1, its only run on the dev split" in done.stderr
    kept = json.loads((tmp_path / "saved.json").read_text())
    assert kept["config"]["save"] == str(saved) and kept["config"]["size"] == 8
    seed = kept["config"]["seed"]
    grids = json.loads((folder / name_of(kept["config"]).file_name()).read_text())  # the grid's run of that seed
    assert f"--seed {seed}" in done.stdout and kept["score"] == grids["score"]  # the same run, trained again
    transformers.AutoModelForSequenceClassification.from_pretrained(saved)  # a checkpoint transformers loads
    again = subprocess.run([arg if arg != "grid" else "best" for arg in command] +
                           [f"RESULTS={folder}", "SIZE=50", f"SAVE={tmp_path / 'other'}"], capture_output=True, text=True)
    assert again.returncode != 0 and "has no runs at n = 50 (it has n = 8)" in again.stderr


@pytest.mark.parametrize("method", ["lora", "bitfit", "setfit", "probe"])
def test_a_grid_of_one_method_ends_in_its_report(grid, tmp_path, method):
    _, command = grid
    # one worker: a second would pay torch's import for one of the three runs
    command = [arg.replace("-j2", "-j1") for arg in command if not arg.startswith("RESULTS=")] + \
        [f"RESULTS={tmp_path}", f"METHOD={method}"]
    done = subprocess.run(command + (["NUM_ITERATIONS=1"] if method == "setfit" else []),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = sorted(p.name for p in tmp_path.glob("*.json"))
    assert runs == ([f"freeze1_size8_seed1_{method}.json"] if method == "probe" else  # the probe: k = L alone
                    sorted(f"freeze{k}_size8_seed1_{method}.json" for k in (-1, 0, 1)))
    if method == "setfit":  # the grid's SetFit pairs (NUM_ITERATIONS) reached its runs
        assert json.loads((tmp_path / "freeze1_size8_seed1_setfit.json").read_text())["config"]["num_iterations"] == 1
    import methods
    title = (tmp_path / "report.md").read_text().splitlines()[0]
    assert title.endswith("with tiny" if method == "probe" else f"with tiny ({methods.get(method).label})")


@pytest.mark.parametrize("variables, message", [
    (["SIZES=abc"], "make: SIZES: 'abc' is neither a positive number of training examples nor all"),
    (["SIZES=0"], "make: SIZES: '0' is neither a positive number of training examples nor all"),
    (["REINITS=-1"], "make: REINITS: -1 is not a count of layers: 0 or more"),  # once trained at 0, silently
    (["SEEDS=x"], "make: argument --seeds: invalid int value: 'x'"),
    (["SEEDS=1 -2"], "make: SEEDS: -2 is not a seed: 0 or more"),
    (["SLURM_MAX=0", "slurm"], "make slurm: SLURM_MAX (an array's tasks at once) is 1 or more (got 0)"),
    (["FOLDS=0", "advise"], "advise: error: --seeds (make: FOLDS=) is the most seeds a cell gets, 1 or more (got 0)"),
    (["DEV_FILE="], "make grid: TRAIN_FILE needs DEV_FILE"),
    (["RESULTS=/no/such/folder", "report"], "/no/such/folder: no such folder"),
    (["SIZE=abc", "advise"], "advise: error: --size abc (make: SIZE=) is neither a positive number of training examples nor all"),
    (["SIZE=0", "advise"], "advise: error: --size 0 (make: SIZE=) is neither a positive number of training examples nor all"),
    (["MODEL=no-such-model"], "protocol.py: error: cannot get model 'no-such-model'"),  # its why alone
    (["MODEL=no-such-model", "advise"], "protocol.py: error: cannot get model 'no-such-model'"),
    (["MODEL=no-such-model", "status"], "protocol.py: error: cannot get model 'no-such-model'"),  # once said twice, exit 0
    (["FREEZE="], "make: cannot read the depth of"),
])
def test_make_refuses_a_bad_variable_in_one_line_of_its_own(grid, tmp_path, variables, message):
    """The tool's one line on stderr (make adds its own "Error 2" lines), nothing on stdout, and no
    run started, no folder or file written."""
    _, command = grid
    target = [v for v in variables if "=" not in v] or ["grid"]
    command = [arg for arg in command if arg != "grid" and not arg.startswith("RESULTS=")]
    command += [f"RESULTS={tmp_path / 'results'}", *[v for v in variables if "=" in v], *target]
    done = subprocess.run(command, capture_output=True, text=True)
    ours = [line for line in done.stderr.splitlines() if not line.startswith("make: ***") and "*** [" not in line]
    assert done.returncode == 2 and ours == [ours[0]] and message in ours[0] and done.stdout == "", done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []


def test_make_c_refuses_a_file_named_from_the_folder_it_was_called_in(tmp_path):
    """make -C DIR reads every path from DIR, as make does: a TRAIN_FILE beside the caller and not in
    DIR is one line naming its whole path, before any work (no folder written)."""
    (tmp_path / "train.csv").write_text("text,label\ngood,1\n")
    done = subprocess.run(["make", "-C", ROOT, "--no-print-directory", "advise", "TRAIN_FILE=train.csv", "SIZE=8",
                           f"RESULTS={tmp_path / 'results'}"], cwd=tmp_path, env=dict(os.environ, PWD=str(tmp_path)),
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"TRAIN_FILE=train.csv is read from {ROOT}, where there is none: give {tmp_path}/train.csv" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.csv"]


def test_make_advise_passes_the_folder_it_was_called_in_only_from_elsewhere(tmp_path):
    """What the search names its printed paths from (study/search/keep.py's named_from)."""
    def recipe(cwd):
        done = subprocess.run(["make", "-C", ROOT, "-n", "advise", "SIZE=8", "MODEL=minilm"], cwd=cwd,
                              env=dict(os.environ, PWD=str(cwd)), capture_output=True, text=True)
        return done.stdout
    assert f"--shown-from '{tmp_path}'" in recipe(tmp_path)
    assert "--shown-from" not in recipe(ROOT)
