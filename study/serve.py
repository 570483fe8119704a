"""
One worker process of a pool (study/worker.py): it runs freeze_study runs one after another and
answers each one's exit code. Workers are forked from a server that imported torch once, so a
worker starts in a fraction of a second instead of torch's import (2-4 s on a CPU), whether it is
a pool's first, the next one after a stopped run's worker exited, or the next call's in a notebook.

    pool (no torch) ── start(environment) ──► forkserver (imported freeze_study once, ran nothing)
                                                  │ fork
    connection.send({"argv": ..., "log": ...}) ──► worker: serve(connection, environment)
    ◄────────────── connection: its exit code ───┘   freeze_study.main(argv), output into the log

The server ran no computation: nothing a worker computes comes from it, every random draw of a run
comes from its own seed, and a run in a worker is the same computation as in a process of its own,
bit for bit (tests/study/test_worker.py). It never touches CUDA, which a forked process could not
use afterwards; each worker initialises its own device. On Linux only (START): elsewhere each worker
is a process of its own, as the spawn start method makes it, the same pool and the same runs.
"""

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import types
from dataclasses import dataclass

# what the server imports once, for every worker it forks: torch and the project. Not transformers,
# which reads the environment as it is imported (HF_HUB_OFFLINE, HF_HOME): a worker imports it in its own
PRELOAD = ["freeze_study", "machine", "study.seeds_at_once", __name__]
# Linux forks; elsewhere each worker is a process of its own that imports torch (macOS's frameworks,
# Metal's among them, are not safe to use in a forked process; Windows cannot fork)
START = "forkserver" if sys.platform.startswith("linux") else "spawn"


@dataclass(eq=False)  # a worker is itself: the pool keeps sets of them
class Worker:
    process: multiprocessing.Process
    connection: multiprocessing.connection.Connection


def start(environment):
    """A worker forked from the server (started on the first call, kept while this process runs;
    spawned where START says), run in `environment` (os.environ as a process started with it would
    have it)."""
    context = multiprocessing.get_context(START)
    if START == "forkserver":
        context.set_forkserver_preload(PRELOAD)
    ours, its = context.Pipe()
    process = context.Process(target=serve, args=(its, environment), daemon=True, name="study.worker")
    with caller_hidden():
        process.start()
    its.close()  # its own copy went with it: a dead worker's end reads as EOF here
    return Worker(process, ours)


@contextlib.contextmanager
def caller_hidden():
    """multiprocessing has a new process run its caller's main module again, as `__mp_main__`: a
    script that calls advise() at its top level, unguarded by `if __name__ == "__main__"`, would
    call it again in every worker. A worker runs serve and nothing else, so its caller's main is
    hidden from it while it starts."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def serve(connection, environment):
    """Receive runs, {"argv": ...} or {"argvs": [...]} (one cell's seeds at once) with their "log";
    run each; send back its exit code. SIGTERM (make stopped, or Workers.stop) interrupts the run as
    Ctrl-C would: SIGINT itself is ignored where make advise runs in the background, and then by its
    workers too."""
    signal.signal(signal.SIGTERM, interrupted)
    os.environ.clear()
    os.environ.update(environment)  # the server's is the environment of the process that started it first
    os.dup2(2, 1)  # stray prints between runs go to stderr, never into the pool's progress lines
    import freeze_study  # forked: the server's import, taken as it is; spawned: imported now, in this environment
    import machine
    import torch
    from study import seeds_at_once
    threads = environment.get("OMP_NUM_THREADS", "")
    if threads.isdigit() and int(threads) > 0:  # OpenMP read the server's at torch's import; libgomp ignores 0
        torch.set_num_threads(int(threads))
    machine.spare_imports_from_collection()
    try:
        connection.send(machine.handed_on())  # measured by a pool's first, taken by the rest
        while True:
            try:
                job = connection.recv()
            except EOFError:  # the pool closed it: no more runs
                return
            machine.restart_peak_memory()
            with output_to(job["log"]):
                code = (exit_code(seeds_at_once.main_seeds, job["argvs"]) if "argvs" in job
                        else exit_code(freeze_study.main, job["argv"]))
            connection.send(code)
            if code == 130:  # interrupted: make is being stopped
                return
    except (KeyboardInterrupt, BrokenPipeError):  # stopped while waiting for a run, or the pool is gone
        sys.exit(130)


def interrupted(signum, frame):
    raise KeyboardInterrupt  # make's SIGTERM: the workers, in the same process group, stop their runs


def exit_code(main, argv):
    """What `python freeze_study.py argv` would exit with: 0, 2 for bad input (plan.fail), 130 when
    interrupted, 1 for an error (its traceback in the log)."""
    try:
        main(argv)
        return 0
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except Exception:
        import traceback
        traceback.print_exc()
        return 1


@contextlib.contextmanager
def output_to(path):
    """Everything the process writes to stdout and stderr, Python's or not, into the file at `path`."""
    sys.stdout.flush(), sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    try:
        with open(path, "w") as log:
            os.dup2(log.fileno(), 1), os.dup2(log.fileno(), 2)
            try:
                yield
            finally:
                sys.stdout.flush(), sys.stderr.flush()
    finally:
        os.dup2(saved[0], 1), os.dup2(saved[1], 2)
        os.close(saved[0]), os.close(saved[1])
