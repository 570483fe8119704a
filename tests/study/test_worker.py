"""study/worker.py: many runs in one process are the runs of processes of their own, bit for bit, and
a worker that is free is handed its next run while the others are under way."""

import contextlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time

from conftest import ROOT, film_task
from study import serve, worker

# one worker runs them in this order, so that what one kind of run leaves behind in the process
# (SetFit's pairs and frozen head, the probe's fit, a cache built, a fine-tune's weights) would show
# in the next
NAMES = ["freeze1_size8_seed1_setfit.json", "freeze0_size8_seed2.json", "freeze3_size8_seed1_probe.json",
         "freeze1_size8_seed1.json"]
# of the machine and its cache, not of the run: a worker pays no start-up, and the runs alone and
# the worker's share one cache (whichever computed a prefix first counts its texts)
MEASURES = ("seconds", "peak_memory_mb", "prefix_texts")


def tiny_task(folder):
    film_task(folder)


def record(path):
    run = json.loads(path.read_text())
    run["config"].pop("out")
    for point in run["curve"]:
        point.pop("seconds")  # the seconds since the run began, at each evaluation
    return {key: value for key, value in run.items() if key not in MEASURES}


def test_runs_in_one_worker_equal_runs_in_processes_of_their_own_and_a_failure_stops_it(tiny_bert, tmp_path):
    tiny_task(tmp_path)
    shared = dict(epochs=2, protocol=None, splits_dir=str(tmp_path / "splits"))
    options = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
               "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"),
               "--precision", "fp32", "--pooling", "mean", "--device", "cpu"]
    # on the CPU: CUDA's index_add_ (rows.mean_pool) sums with atomics, so two processes of their own
    # can differ there in a loss's last bit (bench/gpu.sh's tests phase, 11-28)
    alone, together = tmp_path / "alone", tmp_path / "together"
    processes = [subprocess.Popen([sys.executable, "freeze_study.py",
                                   *worker.job_of(str(alone / name), shared, options)["argv"]], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for name in NAMES]
    assert all(process.wait() == 0 for process in processes), [p.stderr.read() for p in processes]

    # the worker, one process: the runs above, then one the 3-layer model refuses, then one never started
    lines = []
    runs = [str(together / name) for name in NAMES + ["freeze9_size8_seed1.json", "freeze2_size8_seed1.json"]]
    code = worker.run_grid(runs, shared, options, jobs=1, echo=lines.append, warn=lines.append)
    for name in NAMES:
        assert record(together / name) == record(alone / name), name
    assert [line.split("]")[0] + "]" for line in lines[:len(NAMES)]] == [f"[{i}/6]" for i in range(1, 5)]
    assert code == 2 and "--freeze 9" in lines[-1] and len(lines) == len(NAMES) + 1
    assert not (together / "freeze9_size8_seed1.json").exists() and not (together / "freeze2_size8_seed1.json").exists()
    assert (together / "freeze9_size8_seed1.log").read_text().strip().splitlines()[-1] == lines[-1]


def test_several_workers_take_the_largest_size_and_fewest_frozen_layers_first():
    names = ["freeze12_size50_seed1.json", "freeze0_size1000_seed1.json", "freeze-1_size50_seed2.json",
             "freeze8_sizeall_seed1.json", "freeze12_size1000_seed1.json", "freeze-1_size1000_seed1.json"]
    assert worker.longest_first(names) == [
        "freeze8_sizeall_seed1.json", "freeze-1_size1000_seed1.json", "freeze0_size1000_seed1.json",
        "freeze12_size1000_seed1.json", "freeze-1_size50_seed2.json", "freeze12_size50_seed1.json"]


def test_a_free_worker_asks_for_the_next_round_while_the_last_is_under_way(tiny_bert, tmp_path):
    tiny_task(tmp_path)
    shared = dict(epochs=2, protocol=None, splits_dir=str(tmp_path / "splits"))
    options = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
               "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"]
    runs = [str(tmp_path / "runs" / name) for name in NAMES[1:]]
    rounds, asked = [runs[:2], runs[2:]], []

    def ask(in_flight):  # a round of two runs, then one of one
        asked.append(in_flight)
        return [(path, shared) for path in (rounds.pop(0) if rounds else [])]

    lines = []
    with worker.Workers(2) as workers:
        assert workers.run_asked(ask, options, echo=lines.append) == 0
    assert asked[0] == frozenset() and len(asked[1]) == 1  # asked again with the first round's other run under way
    assert all(os.path.exists(path) for path in runs) and len(lines) == 3


def test_a_run_the_search_no_longer_needs_is_stopped_and_leaves_no_result(tiny_bert, tmp_path):
    tiny_task(tmp_path)
    shared = dict(epochs=2, protocol=None, splits_dir=str(tmp_path / "splits"))
    options = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
               "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"]
    # two fine-tunes, one of 2 epochs, one that would take hours; then the probe
    short, long_, after = (str(tmp_path / "runs" / name) for name in (NAMES[3], NAMES[1], NAMES[2]))
    asked = []

    def ask(in_flight):  # two runs; once the short one ends, the long one stopped; then one more
        asked.append(in_flight)
        if len(asked) == 1:
            return [(short, shared), (long_, dict(shared, epochs=100000))]
        if in_flight:
            workers.stop(in_flight)
            return []
        return [(after, shared)] if len(asked) < 4 else []

    lines, was = [], signal.signal(signal.SIGINT, signal.SIG_IGN)  # as under make advise ... &: workers ignore Ctrl-C
    try:
        with worker.Workers(2) as workers:
            assert workers.run_asked(ask, options, echo=lines.append) == 0
    finally:
        signal.signal(signal.SIGINT, was)
    assert asked[1] == frozenset({long_}) and not os.path.exists(long_)
    assert os.path.exists(short) and os.path.exists(after)
    assert lines[1] == f"study.worker: {long_} stopped: the answer no longer needs it" and len(lines) == 3
    assert len(workers.started) == 2 and exit_code_within(workers.started[1].process, 30) is not None  # the stopped run's worker exited
    assert list(workers.stopped_after) == [long_] and workers.stopped_after[long_] > 0  # what it ran: spent


def test_a_pool_s_workers_take_one_default_precision_the_first_one_s(tiny_bert, tmp_path, monkeypatch):
    """Two workers measuring at once, each loading the cores, once fell either side of bf16's margin
    and mixed a grid's folder (CI): the first worker's answer is handed to the rest, and a worker
    handed one runs in it whatever it would measure."""
    import machine
    tiny_task(tmp_path)
    shared = dict(epochs=1, protocol=None, splits_dir=str(tmp_path / "splits"))
    options = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
               "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"), "--device", "cpu"]
    monkeypatch.delenv(machine.BF16_PAYS, raising=False)
    with worker.Workers(2) as workers:
        workers.take()
        assert workers.environment[machine.BF16_PAYS] in ("0", "1")  # measured by the first, for the next
    native = machine.multiplies_bf16()  # elsewhere bf16 is never the default: torch would emulate it
    for handed, precision in (("1", "bf16" if native else "fp32"), ("0", "fp32")):
        monkeypatch.setenv(machine.BF16_PAYS, handed)
        runs = [str(tmp_path / handed / name) for name in ("freeze0_size8_seed1.json", "freeze1_size8_seed1.json")]
        assert worker.run_grid(runs, shared, options, jobs=2, echo=lambda line: None) == 0
        assert [json.loads(open(path).read())["config"]["precision"] for path in runs] == [precision, precision]


def test_a_pool_started_in_another_folder_finds_the_project_and_a_worker_that_dies_fails_its_run(
        tiny_bert, tmp_path, monkeypatch):
    """A notebook's advise() in a folder of its own, the project on its sys.path alone: the workers
    import it all the same (the sys.path they are forked with). One that dies starting fails its
    run, and the pool goes on to answer rather than wait on it."""
    tiny_task(tmp_path)
    shared = dict(epochs=1, protocol=None, splits_dir=str(tmp_path / "splits"))
    options = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
               "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"), "--device", "cpu"]
    (tmp_path / "notebook").mkdir()
    monkeypatch.chdir(tmp_path / "notebook")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    run = tmp_path / "runs" / "freeze3_size8_seed1_probe.json"
    assert worker.run_grid([str(run)], shared, options, jobs=1, echo=lambda line: None) == 0 and run.exists()
    start = serve.start

    def dies_starting(environment):  # a worker killed before it reads a run (out of memory, say)
        started = start(environment)
        started.process.kill()
        started.process.join()
        return started
    monkeypatch.setattr(serve, "start", dies_starting)
    lines, failed = [], tmp_path / "runs" / "freeze2_size8_seed1_probe.json"
    assert worker.run_grid([str(failed)], shared, options, jobs=1, echo=lines.append, warn=lines.append) == 1
    assert not failed.exists() and "failed (exit code 1)" in lines[-1]


def test_a_search_killed_stops_its_runs_under_way_rather_than_wait_for_them(tiny_bert, tmp_path):
    """A kill of make advise's process alone (SIGTERM: serve.interrupted, as advise.py sets it) stops
    the runs its workers have under way; before, it waited for each to end, minutes on RTE's pairs.
    The pool's thread for a stopped run reads its worker's answer (130) whole: the pool once closed
    the connection under it, and the thread raised."""
    tiny_task(tmp_path)
    long_ = str(tmp_path / "runs" / NAMES[1])
    script = f"""
import os, signal, sys, threading, time
from study import serve, worker
import result
signal.signal(signal.SIGTERM, serve.interrupted)
raised = []
threading.excepthook = raised.append
log = result.log_of({long_!r})
def kill_once_under_way():
    while not os.path.exists(log):
        time.sleep(0.05)
    time.sleep(1)  # training: its run answers 130 as it stops
    os.kill(os.getpid(), signal.SIGTERM)
threading.Thread(target=kill_once_under_way, daemon=True).start()
options = ["--dataset", "tiny", "--model", {tiny_bert!r}, "--train-file", {str(tmp_path / "train.tsv")!r},
           "--dev-file", {str(tmp_path / "dev.tsv")!r}, "--cache-dir", {str(tmp_path / "cache")!r}, "--precision", "fp32"]
workers = worker.Workers(1)
try:
    with workers:
        workers.run_all([{long_!r}], dict(epochs=100000, splits_dir={str(tmp_path / "splits")!r}), options)
except KeyboardInterrupt:
    for thread in threading.enumerate():
        if thread is not threading.current_thread():
            thread.join(timeout=30)
    print(" ".join(str(p.process.exitcode) for p in workers.started), len(raised))
    sys.exit(130)
"""
    search = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=dict(os.environ, PYTHONPATH=ROOT), start_new_session=True)
    try:
        out, err = search.communicate(timeout=180)
    finally:  # a worker left training its 100,000 epochs would take a core from the rest of the suite
        with contextlib.suppress(ProcessLookupError):
            os.killpg(search.pid, signal.SIGKILL)
    assert search.returncode == 130, out + err
    *codes, raised = out.split()
    assert codes and all(code != "None" for code in codes) and raised == "0", out + err  # its worker exited
    assert not os.path.exists(long_)  # the stopped run left no result


def test_a_worker_spawned_where_a_process_cannot_fork_runs_the_forked_one_s_computation(tiny_bert, tmp_path, monkeypatch):
    """macOS and Windows start each worker as a process of its own that imports torch (serve.START):
    the same pool, the same run."""
    tiny_task(tmp_path)
    shared = dict(epochs=2, protocol=None, splits_dir=str(tmp_path / "splits"))
    options = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
               "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"),
               "--precision", "fp32", "--device", "cpu"]
    for start in ("forkserver", "spawn"):
        monkeypatch.setattr(serve, "START", start)
        run = str(tmp_path / start / "freeze1_size8_seed1.json")
        assert worker.run_grid([run], shared, options, jobs=1, echo=lambda line: None) == 0
    assert record(tmp_path / "spawn" / "freeze1_size8_seed1.json") == record(tmp_path / "forkserver" / "freeze1_size8_seed1.json")


def test_a_script_that_starts_a_pool_at_its_top_level_runs_once_not_again_in_each_worker(tiny_bert, tmp_path):
    """A user's script calling advise() (here the pool it starts) unguarded by `if __name__ ==
    "__main__"`: multiprocessing would run the script again in every worker it starts."""
    tiny_task(tmp_path)
    run, ran = tmp_path / "runs" / "freeze3_size8_seed1_probe.json", tmp_path / "ran.txt"
    script = tmp_path / "mine.py"
    script.write_text(f"""
import sys
sys.path.insert(0, {ROOT!r})
from study import worker
with open({str(ran)!r}, "a") as f:
    f.write("ran\\n")
options = ["--dataset", "tiny", "--model", {tiny_bert!r}, "--train-file", {str(tmp_path / "train.tsv")!r},
           "--dev-file", {str(tmp_path / "dev.tsv")!r}, "--cache-dir", {str(tmp_path / "cache")!r}, "--device", "cpu"]
sys.exit(worker.run_grid([{str(run)!r}], dict(epochs=1, splits_dir={str(tmp_path / "splits")!r}), options, jobs=1))
""")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert run.exists() and ran.read_text() == "ran\n"


def test_a_worker_whose_first_sigterm_is_lost_is_asked_again_until_it_ends(monkeypatch):
    """A KeyboardInterrupt raised while C code runs Python (numpy.random's first import, on a
    worker's first run) can be cleared there, and the run goes on; stop asks again until it ends."""
    fork = multiprocessing.get_context("fork")  # a function of this test's own: no import in the child
    ready = fork.Event()

    def loses_the_first():
        def lost(signum, frame):
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
        signal.signal(signal.SIGTERM, lost)
        ready.set()
        time.sleep(60)
    process = fork.Process(target=loses_the_first)
    process.start()
    assert ready.wait(timeout=30)
    monkeypatch.setattr(worker, "ASK_AGAIN_AFTER", 0.2)
    workers = worker.Workers(1)
    workers.running = {"run.json": serve.Worker(process, connection=None)}
    workers.stop(["run.json"])
    try:
        assert exit_code_within(process, 30) == 130
    finally:
        process.kill()


def exit_code_within(process, seconds):
    """`process`'s exit code once it has one (None after `seconds`), read while another thread may be
    reaping it: stop's thread that asks again joins it too, and a join that loses that race returns
    before the winner has stored the code (multiprocessing's poll meets ECHILD and says None)."""
    deadline = time.monotonic() + seconds
    while process.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return process.exitcode


def test_by_cell_makes_one_job_of_a_cell_s_seeds_in_a_folder_where_its_method_trains_them_at_once():
    names = ["a/freeze0_size8_seed1.json", "a/freeze2_size8_seed1.json", "a/freeze0_size8_seed2.json",
             "b/freeze0_size8_seed1.json", "a/freeze0_size8_seed1_lora.json", "a/freeze0_size8_seed3.json",
             "a/freeze1_size8_seed1_setfit-fast.json", "a/freeze1_size8_seed2_setfit-fast.json",
             "a/freeze0_size8_seed2_lora.json"]
    assert worker.by_cell(names) == [("a/freeze0_size8_seed1.json", "a/freeze0_size8_seed2.json",
                                      "a/freeze0_size8_seed3.json"), ("a/freeze2_size8_seed1.json",),
                                     ("b/freeze0_size8_seed1.json",),
                                     ("a/freeze0_size8_seed1_lora.json", "a/freeze0_size8_seed2_lora.json"),
                                     ("a/freeze1_size8_seed1_setfit-fast.json",), ("a/freeze1_size8_seed2_setfit-fast.json",)]


def test_seeds_at_once_a_grid_s_cells_each_one_job_leave_each_run_its_result_and_log(tiny_bert, tmp_path):
    """make grid SEEDS_AT_ONCE=1: each cell's missing seeds as one job (the probe's each a job of its
    own), every run's result and log written, a progress line for each."""
    tiny_task(tmp_path)
    shared = dict(epochs=2, protocol=None, splits_dir=str(tmp_path / "splits"))
    options = ["--dataset", "tiny", "--model", tiny_bert, "--train-file", str(tmp_path / "train.tsv"),
               "--dev-file", str(tmp_path / "dev.tsv"), "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"]
    names = ["freeze1_size8_seed1.json", "freeze1_size8_seed2.json", "freeze3_size8_seed1_probe.json",
             "freeze3_size8_seed2_probe.json", "freeze0_size8_seed1.json"]
    runs = [str(tmp_path / "grid" / name) for name in names]
    lines = []
    assert worker.run_grid(runs, shared, options, jobs=2, echo=lines.append, seeds_at_once=True) == 0
    at_once = {name: json.loads((tmp_path / "grid" / name).read_text())["config"].get("at_once") for name in names}
    assert at_once == {"freeze1_size8_seed1.json": 2, "freeze1_size8_seed2.json": 2, "freeze3_size8_seed1_probe.json": None,
                       "freeze3_size8_seed2_probe.json": None, "freeze0_size8_seed1.json": None}
    for name in names:
        assert name.removesuffix(".json") in (tmp_path / "grid" / name.replace(".json", ".log")).read_text()
    # a line a run, its own summary in it; a cell's seeds end together and take places one by one
    assert sorted(line.split(" | ")[-2] for line in lines) == sorted(runs) and lines[-1].startswith("[5/5]")
    places = {line.split(" | ")[-2]: line.split("]")[0] for line in lines}
    assert places[runs[0]] != places[runs[1]]
