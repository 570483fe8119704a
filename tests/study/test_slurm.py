"""make slurm against a real one-node Slurm (study/local_slurm.sh), skipped where Slurm is not installed:
the array's results equal make grid's, resubmission submits only what is missing, a failed task
is named by make status; make advise SLURM=1 sends its rounds as job arrays, each checkpoint's with
its own --model."""

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ADVISE, ROOT, advise_here, film_task, save_tiny_bert
from study import slurm
from study.search import prior

pytestmark = [pytest.mark.skipif(shutil.which("sbatch") is None or shutil.which("slurmctld") is None,
                                 reason="Slurm is not installed (apt-get install slurmctld slurmd slurm-client munge)"),
              pytest.mark.skipif(os.geteuid() != 0, reason="local_slurm.sh starts munge and the Slurm daemons as root")]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # one cluster on the machine at a time: where make test's two processes (pytest-xdist) each run
    # some of this module's tests, the second waits for the first's cluster to stop
    with open(os.path.join(tempfile.gettempdir(), "freeze-study-slurm-tests.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        env = dict(os.environ, SLURM_LOCAL_DIR=str(tmp_path_factory.mktemp("slurm")))
        started = subprocess.run([os.path.join(ROOT, "study", "local_slurm.sh"), "start"], env=env, capture_output=True, text=True)
        assert started.returncode == 0, started.stderr
        env["SLURM_CONF"] = started.stdout.strip().split("=", 1)[1]
        yield env
        subprocess.run([os.path.join(ROOT, "study", "local_slurm.sh"), "stop"], env=env)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tiny-task")
    checkpoint = save_tiny_bert(tmp / "tiny", layers=1)
    film_task(tmp)
    return [f"PYTHON={sys.executable}", f"MODEL={checkpoint}", "DATASET=tiny", f"TRAIN_FILE={tmp / 'train.tsv'}",
            f"DEV_FILE={tmp / 'dev.tsv'}", "SIZES=8", "SEEDS=1", "EPOCHS=1", "FREEZE=0 1",
            f"CACHE_DIR={tmp / 'cache'}", f"SPLITS_DIR={tmp / 'splits'}"]


def make(env, *args):
    return subprocess.run(["make", "-C", ROOT, "--no-print-directory", *args], env=env, capture_output=True, text=True)


def wait_for_the_queue(env, timeout=600):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not subprocess.run(["squeue", "-h"], env=env, capture_output=True, text=True).stdout.strip():
            return
        time.sleep(0.5)
    raise AssertionError("the Slurm jobs did not finish")


def test_make_slurm_refuses_counts_below_one_in_one_line():
    """sbatch would refuse an array's %0 only once the grid's runs were listed; a task of no runs would
    never end. The same rule as make advise SLURM=1's --slurm-max (test_advise.py)."""
    for argv, named in ((["submit", "--max", "0"], "SLURM_MAX (an array's tasks at once)"),
                        (["submit", "--runs-per-task", "-1"], "SLURM_RUNS_PER_TASK")):
        with pytest.raises(SystemExit) as refused:
            slurm.main(argv)
        assert refused.value.code == f"make slurm: {named} is 1 or more (got {argv[-1]})"


def figures(path):
    result = json.loads(path.read_text())
    return result["score"], result["train_losses"], [{k: v for k, v in p.items() if k != "seconds"} for p in result["curve"]]


def test_slurm_grid_equals_make_grid_and_resubmits_only_what_is_missing(cluster, tiny, tmp_path):
    by_make, by_slurm = tmp_path / "make", tmp_path / "slurm"
    assert make(cluster, "grid", *tiny, f"RESULTS={by_make}").returncode == 0
    submitted = make(cluster, "slurm", *tiny, f"RESULTS={by_slurm}", "SLURM_MAX=2", "SLURM_RUNS_PER_TASK=2")
    assert submitted.returncode == 0 and "submitted 2 runs as job array" in submitted.stdout, submitted.stdout + submitted.stderr
    array = submitted.stdout.split("job array ")[1].split()[0]
    assert "of 1 tasks" in submitted.stdout  # both runs in one task, one worker
    assert len((by_slurm / ".slurm" / f"{array}.runs").read_text().splitlines()) == 1
    wait_for_the_queue(cluster)
    names = sorted(p.name for p in by_make.glob("freeze*.json"))
    assert len(names) == 2 and sorted(p.name for p in by_slurm.glob("freeze*.json")) == names
    for name in names:  # the same computation whichever way it was launched
        assert figures(by_slurm / name) == figures(by_make / name), name
    assert (by_slurm / "report.md").exists()  # the report job ran after the array

    again = make(cluster, "slurm", *tiny, f"RESULTS={by_slurm}")
    assert "nothing to submit" in again.stdout
    (by_slurm / "freeze0_size8_seed1.json").unlink()
    again = make(cluster, "slurm", *tiny, f"RESULTS={by_slurm}")
    assert "submitted 1 run as job array" in again.stdout
    array = again.stdout.split("job array ")[1].split()[0]
    assert (by_slurm / ".slurm" / f"{array}.runs").read_text().split() == [str(by_slurm / "freeze0_size8_seed1.json")]
    wait_for_the_queue(cluster)
    assert figures(by_slurm / "freeze0_size8_seed1.json") == figures(by_make / "freeze0_size8_seed1.json")


def test_a_failed_task_is_named_by_make_status(cluster, tiny, tmp_path):
    folder = tmp_path / "bad"
    bad = [arg if not arg.startswith("FREEZE=") else "FREEZE=0 5" for arg in tiny]  # 5 > the model's 1 layer
    submitted = make(cluster, "slurm", *bad, f"RESULTS={folder}", "SEEDS=1", "SIZES=4")
    assert "submitted 2 runs" in submitted.stdout, submitted.stdout + submitted.stderr
    wait_for_the_queue(cluster)
    status = make(cluster, "status", *bad, f"RESULTS={folder}", "SEEDS=1", "SIZES=4")
    assert "1 of 2 runs done" in status.stdout
    assert f"Slurm: 0 queued, 0 running, 1 failed (see {folder}/freeze5_size4_seed1.log)" in status.stdout
    assert "--freeze 5 is outside" in (folder / "freeze5_size4_seed1.log").read_text()


# ----------------------------------------------------------------------------------------------
# make advise SLURM=1: a round a job array

def test_a_search_s_rounds_go_as_job_arrays_and_pick_as_a_local_search_on_the_same_runs(cluster, tiny_bert, tmp_path):
    film_task(tmp_path, ("good", "bad", "fine", "dull", "great", "awful"), train=48, dev=24)
    run_flags = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
                 "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"]
    search = lambda folder, *more: advise_here(
        [*ADVISE, str(folder), "--size", "16", "--budget", "0.5", "--seeds", "2", "--depths", "2", "3",
         "--methods", "finetune", "probe", "--save", str(tmp_path / "saved"), "--splits-dir", str(tmp_path / "splits"),
         "--epochs", "2", *more, "--", *run_flags], env=cluster)
    by_slurm = search(tmp_path / "slurm", "--slurm", "--slurm-max", "2")
    assert by_slurm.returncode == 0 and "advise: decided: " in by_slurm.stdout, by_slurm.stdout + by_slurm.stderr
    rounds = (tmp_path / "slurm" / "advise.rounds").read_text().splitlines()
    arrays = list((tmp_path / "slurm" / ".slurm").glob("*.runs"))
    assert len(rounds) > 2 and len(arrays) == len(rounds)  # every round went as an array of its own
    ran = sorted(p.name for p in (tmp_path / "slurm").glob("freeze*.json"))
    assert sorted(line for array in arrays for line in map(os.path.basename, array.read_text().split())) == ran

    # the same runs (and the checkpoint's scores before them) in a folder of their own: a local
    # search runs nothing more and picks the same
    (tmp_path / "local").mkdir()
    for name in ran + [prior.PRIORS]:
        shutil.copy(tmp_path / "slurm" / name, tmp_path / "local" / name)
    local = search(tmp_path / "local")
    pick = lambda out: next(line for line in out.splitlines() if line.startswith("advise: decided: ")).split(" | ")[:3]
    assert local.returncode == 0 and pick(local.stdout) == pick(by_slurm.stdout), local.stdout
    assert sorted(p.name for p in (tmp_path / "local").glob("freeze*.json")) == ran

    # and a run made here, by a worker, is the one its array task made
    trained = next(name for name in ran if not name.endswith("_probe.json"))
    again = tmp_path / "again" / trained
    made = subprocess.run([sys.executable, "-m", "study.worker", "--jobs", "1", "--splits-dir", str(tmp_path / "splits"),
                           "--epochs", "2", str(again), "--", *run_flags, "--evaluations", "last"],
                          cwd=ROOT, env=cluster, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert figures(again) == figures(tmp_path / "slurm" / trained)


def test_a_search_over_two_checkpoints_sends_each_array_task_its_own_checkpoint(cluster, tiny_bert, tiny_bert_no_dropout,
                                                                                tmp_path):
    film_task(tmp_path, ("good", "bad", "fine", "dull", "great", "awful"), train=48, dev=24)
    folder = tmp_path / "both"
    done = advise_here(
        [*ADVISE, str(folder), "--size", "16", "--budget", "0.5", "--seeds", "1",
         "--models", tiny_bert, tiny_bert_no_dropout, "--methods", "probe", "--save", str(tmp_path / "saved"),
         "--splits-dir", str(tmp_path / "splits"), "--slurm", "--slurm-max", "2", "--", "--dataset", "tiny",
         "--train-file", str(tmp_path / "train.tsv"), "--dev-file", str(tmp_path / "dev.tsv"),
         "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"], env=cluster)
    assert done.returncode == 0 and "advise: decided: " in done.stdout, done.stdout + done.stderr
    for checkpoint in (tiny_bert, tiny_bert_no_dropout):  # each task ran the checkpoint its folder names
        made = list((folder / os.path.basename(checkpoint)).glob("freeze*.json"))
        assert made and all(json.loads(p.read_text())["config"]["model"] == checkpoint for p in made)
    # a round goes as one array per checkpoint it runs (an array's tasks share their options): each
    # checkpoint's arrays in its own folder, listing the runs it made
    rounds = [json.loads(line)["runs"] for line in (folder / "advise.rounds").read_text().splitlines()]
    for checkpoint in (tiny_bert, tiny_bert_no_dropout):
        name = os.path.basename(checkpoint)
        arrays = list((folder / name / ".slurm").glob("*.runs"))
        assert len(arrays) == sum(any(run.startswith(name + "/") for run in runs) for runs in rounds)
        listed = sorted(os.path.basename(run) for array in arrays for run in array.read_text().split())
        assert listed == sorted(p.name for p in (folder / name).glob("freeze*.json"))
