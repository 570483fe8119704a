"""
A grid's runs in a few long-lived processes instead of a process each: `make grid` (make runs)
hands its missing result files to this module, which starts N worker processes (make -j N) and
gives each run to the next one free. A worker (study/serve.py) is forked from a server that
imported torch once (on Linux), and runs one freeze_study run after another, so a run pays no
Python, torch or transformers start-up, which on a CPU is more than a run with every layer frozen
takes to train (docs/performance.md). A Slurm task runs its runs the same way (study/slurm.py).

    make ─► python -m study.worker --splits-dir S RESULT... -- --dataset sst2 --model minilm ...
                │  (this process: no torch; prints each finished run's place in the grid)
                ├─ {"argv": [...], "log": ...} ─► worker 1: freeze_study.main(argv), output into the log
                │◄──────────── its exit code ─────┘
                └─ ... worker N

A run in a worker is the same computation as in a process of its own, bit for bit
(tests/study/test_worker.py): every random draw of a run comes from its own seed, and nothing a run
computes outlives it. What a worker changes is what measures the machine: a run's seconds no
longer count the start-up, and its peak memory counts from its start (machine.restart_peak_memory).
The first worker measures whether bf16 pays on this CPU and the pool hands its answer to the
workers after it (machine.BF16_PAYS), so that a grid's runs share one default precision.
N workers share the cores (threads_each), and fp32 sums may round their last bit differently at
another thread count, as they would under OMP_NUM_THREADS.
The Makefile's rule for one result file (`make <result>`) still runs one process.
"""

import argparse
import contextlib
import math
import os
import queue
import shutil
import signal
import sys
import threading
import time

import methods
import result
from study import grid, serve
from study.progress import last_log_line, make_jobs, progress_line, time_left

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the project's folder (the Makefile's)


# ----------------------------------------------------------------------------------------------
# The pool: the runs not yet done, handed to N workers

def job_of(path, shared, run_flags):
    """A run's command line, as the Makefile's rule for its result file writes it."""
    run = result.parse_name(path)
    if run is None:
        raise ValueError(f"{path} is not a result's name")
    return dict(argv=run.flags(shared) + run_flags + ["--out", path], log=result.log_of(path))


def cell_job_of(paths, shared, run_flags):
    """One job for several seeds of one cell (--seeds-at-once): each run's command line, one log (the
    first run's, copied to the others' once it ends). One path: job_of's job."""
    if len(paths) == 1:
        return job_of(paths[0], shared, run_flags)
    return dict(argvs=[job_of(path, shared, run_flags)["argv"] for path in paths], log=result.log_of(paths[0]))


def by_cell(paths):
    """The jobs of a grid whose cells' seeds train at once: the paths in their order, those of one
    cell (result.cell_of_name) as one tuple where it first comes, if its method trains seeds at once
    (methods.py's seeds_at_once); another method's seeds (SetFit's, the probe's) each a job of its own,
    spread over the workers as without."""
    cells = {}
    for path in paths:
        run = result.parse_name(path)
        together = run is not None and methods.get(run.method).seeds_at_once
        cells.setdefault(result.cell_of_name(path) if together else path, []).append(path)
    return [tuple(cell) for cell in cells.values()]


def to_stderr(line):
    print(line, file=sys.stderr, flush=True)  # a failed run's last line: make's error, not its progress


def run_grid(runs, shared, run_flags, jobs, echo=print, warn=to_stderr, seeds_at_once=False):
    """Every run of `runs` (result paths) whose result is missing, by `jobs` workers; after each
    finished run its progress line (echo), after a failed one its last line (warn). The first
    failure stops the handing out (the runs under way finish, as under make); returns the exit code:
    0, or the first failed run's. With several workers the longest runs go first, so that no long
    run starts when the others are ending. seeds_at_once: a cell's missing seeds are one job, their
    steps taken together (study/seeds_at_once.py's run_seeds)."""
    with Workers(jobs) as workers:
        return workers.run_all(longest_first(runs) if jobs > 1 else runs, shared, run_flags, echo, warn, seeds_at_once)


def longest_first(runs):
    """A grid's result paths, the largest train size first and, within a size, the fewest layers
    frozen first: the order of what a run costs, read from its name (the whole training set,
    "all", is the largest). Handing the longest out first shortens a grid run by several workers
    (the longest-processing-time rule): a long run started last would leave the others idle."""
    def cost(path):
        run = result.parse_name(path)
        if run is None:
            return (0, 0)  # not a result's name: job_of refuses it before any run
        return (-math.inf if run.size == "all" else -run.size, run.freeze)
    return sorted(runs, key=cost)


class Workers:
    """Up to `jobs` worker processes, started as runs need them and kept until closed, so that
    rounds of runs (make advise's) pay one start-up, not one a round."""

    def __init__(self, jobs):
        self.jobs, self.idle = jobs, queue.Queue()
        self.environment = dict(os.environ, **threads_each(jobs))  # each its share, however many start
        self.started, self.running, self.stopped = [], {}, set()  # running: {result path: its worker}
        self.stopped_after = {}  # {result path: the seconds it ran before it was stopped}
        self.lock = threading.Lock()  # a run ends and is stopped one at a time: a signalled worker is never reused

    def __enter__(self):
        return self

    def __exit__(self, kind, *exception):
        if kind is not None:  # interrupted (a user's kill of make advise reaches it alone) or failed:
            self.stop(list(self.running))  # its runs under way are stopped, not waited for (an RTE run: minutes)
        with self.lock:
            busy = set(self.running.values())  # stopped: their threads read each one's answer to its end
        for started in self.started:
            if started not in busy:
                started.connection.close()  # no more runs: its serve returns
        for started in self.started:
            started.process.join()

    def take(self):
        """An idle worker, or a new one."""
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            started = serve.start(self.environment)
            self.started.append(started)
            # whether bf16 pays, as the first worker measured it: the workers after it are handed it
            with contextlib.suppress(EOFError):  # it died starting: its first run then fails
                self.environment.update(started.connection.recv())
            return started

    def run_all(self, runs, shared, run_flags, echo=print, warn=to_stderr, seeds_at_once=False):
        """run_grid's work, with these workers: each run whose result is missing (or each cell's
        missing seeds, seeds_at_once), by the next worker free."""
        pending = [path for path in runs if not os.path.exists(path)]
        for path in pending:
            job_of(path, shared, run_flags)  # every name checked before any run
        jobs = by_cell(pending) if seeds_at_once else pending
        rounds = iter([[(job, shared) for job in jobs]])
        return self.run_asked(lambda in_flight: next(rounds, []), run_flags, echo, runs, warn)

    def run_asked(self, ask, run_flags, echo=print, runs=None, warn=to_stderr):
        """Rounds of runs as `ask(in_flight)` hands them out, [(result path, its options)] (a tuple of
        paths: one cell's seeds as one job, cell_job_of): a round's jobs go to the workers as they are
        free, and once all have started, the next worker free asks for the next round, without
        waiting for the runs under way (make advise asks its policy, which reads the runs ended so
        far). Nothing is handed out after a failure; the runs under way finish (as under make).
        Returns 0 or the first failed run's exit code. `runs`: the grid the progress lines count in
        (default: the runs handed out so far)."""
        ended, in_flight, handed, round_, failures, busy = queue.Queue(), set(), [], [], [], 0
        while True:
            if busy < self.jobs and not round_ and not failures:
                round_ = list(ask(frozenset(in_flight)))
            while busy < self.jobs and round_ and not failures:
                job_paths, options = round_.pop(0)
                paths = job_paths if isinstance(job_paths, tuple) else (job_paths,)
                job = cell_job_of(paths, options, run_flags)
                in_flight.update(paths)
                handed.extend(paths)
                busy += 1
                taken = self.take()
                with self.lock:  # before its thread starts: a stop asked at once finds it
                    self.running.update((path, taken) for path in paths)
                threading.Thread(target=self.one_run, args=(taken, paths, job, ended), daemon=True).start()
            if not busy:
                return failures[0] if failures else 0
            paths, code = ended.get()
            busy -= 1
            in_flight.difference_update(paths)
            if code != 0 and not any(path in self.stopped for path in paths):
                failures.append(code)
                warn(last_log_line(paths[0]) or f"study.worker: {paths[0]} failed (exit code {code})")
            written = [path for path in paths if os.path.exists(path)]
            for path in paths:
                if path in self.stopped and path not in written:
                    echo(f"study.worker: {path} stopped: the answer no longer needs it")
            done = time_left(runs or handed)[0]  # a job of seeds at once: its runs take places one by one
            for place, path in enumerate(written, start=done - len(written) + 1):
                echo(progress_line(path, runs or handed, place))

    def stop(self, paths):
        """The runs under way at `paths` interrupted (SIGTERM, as when make is stopped; a run writes
        its result only once it has ended, so a stopped run leaves none): make advise's runs that its
        answer, decided on the runs that ended, no longer needs. Their workers exit; the next runs
        start new ones."""
        with self.lock:
            asked = set(paths) & set(self.running) - self.stopped
            self.stopped.update(asked)
            for stopped in {self.running[path] for path in asked}:
                stopped.process.terminate()  # SIGTERM
                threading.Thread(target=ask_again_until_it_ends, args=(stopped.process,), daemon=True).start()

    def one_run(self, worker, paths, job, ended):
        """One job by `worker` (a run, or a cell's seeds at once), its (paths, exit code) put on
        `ended`; the worker idle again after it, unless it died (no answer: exit code 1) or was
        stopped. A job of several runs leaves its log beside each one's result."""
        os.makedirs(os.path.dirname(os.path.abspath(paths[0])), exist_ok=True)
        began = time.perf_counter()
        try:
            worker.connection.send(job)
            answer = worker.connection.recv()
        except (EOFError, OSError):  # it died (its error is on stderr): the run fails, nothing waits on it
            answer = None
        for path in paths[1:] if os.path.exists(job["log"]) else ():
            shutil.copyfile(job["log"], result.log_of(path))
        with self.lock:
            for path in paths:
                del self.running[path]
            if any(path in self.stopped for path in paths):
                for path in paths:  # spent, though it leaves no result to say so (not one that ended first)
                    if path in self.stopped and not os.path.exists(path):
                        self.stopped_after[path] = time.perf_counter() - began
            elif answer is not None:
                self.idle.put(worker)  # before the run counts as ended: the next one may take it
        ended.put((paths, 1 if answer is None else answer))


ASK_AGAIN_AFTER = 5  # seconds: a worker that took its SIGTERM has ended well before (it writes nothing)


def ask_again_until_it_ends(process):
    """SIGTERM to a worker asked to stop, again every ASK_AGAIN_AFTER seconds while it runs: one that
    lands while C code runs Python (an extension module's first import, numpy.random's on a worker's
    first run) can have its KeyboardInterrupt cleared there, and the run would go on to its end."""
    while True:
        process.join(ASK_AGAIN_AFTER)
        if process.exitcode is not None:
            return
        process.terminate()  # SIGTERM


def threads_each(workers):
    """Each of `workers` processes its share of the cores, unless the user has set the thread count:
    torch would give every process all of them, and N processes each running every core's thread
    wait on each other (docs/performance.md measures it)."""
    if "OMP_NUM_THREADS" in os.environ or workers <= 1:  # one: torch's own choice, as a process of its own
        return {}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return {"OMP_NUM_THREADS": str(max(1, cores // workers))}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ours, run_flags = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    p = argparse.ArgumentParser(prog="python -m study.worker",
                                description="The missing runs of a grid, in N long-lived processes.")
    p.add_argument("runs", nargs="*", help="result files; those that exist are done")
    p.add_argument("--jobs", type=int, help="processes at once (default: make -j N's N, else 1)")
    p.add_argument("--seeds-at-once", action="store_true",
                   help="each cell's missing seeds as one job, their steps taken together (study/seeds_at_once.py; "
                        "the fine-tune, LoRA and BitFit, in bf16 or fp32): fewer, larger kernels for a GPU")
    grid.add_shared_options(p)
    args = p.parse_args(ours)
    signal.signal(signal.SIGTERM, serve.interrupted)
    try:
        sys.exit(run_grid(args.runs, grid.shared_options(args), run_flags, args.jobs or make_jobs(),
                          seeds_at_once=args.seeds_at_once))
    except KeyboardInterrupt:
        sys.exit(130)
    except ValueError as e:
        print(f"study.worker: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
