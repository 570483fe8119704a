"""
The grid on a Slurm cluster: the runs of `make grid` that are not done yet, handed to the
scheduler as one job array (a few runs per array task, --runs-per-task), and the report as a job
that waits for it. Each task runs `make runs RUNS="<its result files>"` with the grid's own
variables, one worker for its runs (study/worker.py), so a run is the same computation whichever
way it was launched, and a task of short runs pays one start-up. make calls this (make slurm,
make status):

    python -m study.slurm submit --var DATASET=sst2 --var ... [--runs-per-task 1 --max 4 --partition p --time 1:00:00 --gpus 1] -- RUNS...
    python -m study.slurm status -- RUNS...

Every submission leaves <results>/.slurm/<array job id>.runs (a line per task, its runs) and the
tasks' output beside it; a resubmission skips the runs that are done or still in the queue.

A search's rounds (make advise SLURM=1) go the same way, a round an array (Rounds, below):

    study/search/advise.py ─► round ─► Rounds.run_asked ─► sbatch --array (a task a run: python -m study.worker)
                        ▲                                │
                        └──── squeue: the array gone ◄───┘  (its results read as they land)
"""

import argparse
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

from result import log_of
from study import grid
from study.progress import last_log_line, progress_line
from study.stats import counted
from study.worker import ROOT, job_of


def importable(environment):
    """{PYTHONPATH: the project's folder first}: an array task's `python -m study.worker` finds the
    project from any folder, as the process that submits it did (a notebook's advise() run in a
    folder of its own, the project on its sys.path)."""
    return {"PYTHONPATH": os.pathsep.join([ROOT] + ([environment["PYTHONPATH"]] if environment.get("PYTHONPATH") else []))}


def queue():
    """{array job id: {task index: state}} of this user's freeze-study arrays still in the queue."""
    out = subprocess.run(["squeue", "-h", "-r", "--me", "--name", "freeze-study", "-o", "%F %K %T"],
                         capture_output=True, text=True, check=True).stdout
    jobs = {}
    for line in out.splitlines():
        array, index, state = line.split()
        if index.isdigit():
            jobs.setdefault(array, {})[int(index)] = state
    return jobs


def submitted(folder):
    """{array job id: [each task's runs, in task order]} of the submissions recorded in folder/.slurm."""
    arrays = {}
    for path in glob.glob(os.path.join(folder, ".slurm", "*.runs")):
        with open(path) as f:
            arrays[os.path.basename(path)[:-len(".runs")]] = [line.split() for line in f if line.strip()]
    return arrays


def in_queue(runs):
    """{run: 'PENDING' | 'RUNNING' | ...} for the grid's runs that an array task still holds."""
    states, jobs = {}, queue()
    for folder in {os.path.dirname(run) for run in runs}:
        for array, listed in submitted(folder).items():
            for index, state in jobs.get(array, {}).items():
                states.update(dict.fromkeys(listed[index], state))
    return states


def add_options(parser, prefix=""):
    """The cluster's options, for make slurm (no prefix) and make advise SLURM=1 (--slurm-...)."""
    parser.add_argument(f"--{prefix}max", type=int, default=4, help="array tasks at once (%%N)")
    parser.add_argument(f"--{prefix}partition")
    parser.add_argument(f"--{prefix}time", help="each task's time limit")
    parser.add_argument(f"--{prefix}gpus", help="GPUs per task")
    parser.add_argument(f"--{prefix}sbatch", default="", help="more sbatch options")


def check_counts(counts):
    """Each of `counts` ({how it is set: its value}: an array's tasks at once, a task's runs) is 1 or
    more: sbatch refuses an array's %0 only once the work before it is done. ValueError's one line."""
    for named, value in counts.items():
        if value < 1:
            raise ValueError(f"{named} is 1 or more (got {value})")


def sbatch_options(args, prefix=""):
    """(tasks at once, sbatch's other options) from add_options' arguments."""
    read = lambda name: getattr(args, prefix.replace("-", "_") + name)
    return read("max"), ["--job-name=freeze-study"] + \
        ([f"--partition={read('partition')}"] if read("partition") else []) + \
        ([f"--time={read('time')}"] if read("time") else []) + \
        ([f"--gpus-per-task={read('gpus')}"] if read("gpus") else []) + shlex.split(read("sbatch"))


def submit_array(tasks, command, folder, at_once, options):
    """One job array, a task per entry of `tasks` (a string each), at most `at_once` at a time; each
    task runs `command` (a shell line) with $TASK holding its entry, in this directory. Records
    folder/<array id>.runs; returns the array's id."""
    os.makedirs(folder, exist_ok=True)
    # the task list travels inside the script: sbatch keeps a copy, so the tasks read what was submitted
    script = "\n".join(["#!/bin/bash", f"tasks=({shlex.join(tasks)})", 'TASK="${tasks[$SLURM_ARRAY_TASK_ID]}"',
                        f"exec {command}", ""])
    options = [f"--array=0-{len(tasks) - 1}%{at_once}", *options, f"--output={folder}/%A_%a.out"]
    array = subprocess.run(["sbatch", "--parsable", *options], input=script, capture_output=True, text=True)
    if array.returncode != 0:
        raise RuntimeError(f"slurm: sbatch refused the array: {array.stderr.strip()}")
    array = array.stdout.strip().split(";")[0]
    with open(os.path.join(folder, f"{array}.runs"), "w") as f:
        f.write("\n".join(tasks) + "\n")
    return array


def submit(args):
    waiting = in_queue(args.runs)
    pending = [run for run in args.runs if not os.path.exists(run) and run not in waiting]
    if not pending:
        print(f"slurm: nothing to submit ({len(args.runs) - len(waiting)} of {len(args.runs)} runs done, "
              f"{len(waiting)} in the queue)")
        return
    make = ["make", "-C", ROOT, "--no-print-directory"] + args.var
    folder = os.path.join(os.path.dirname(pending[0]), ".slurm")
    tasks = [" ".join(pending[i:i + args.runs_per_task]) for i in range(0, len(pending), args.runs_per_task)]
    at_once, options = sbatch_options(args)
    try:
        array = submit_array(tasks, f'{shlex.join(make)} runs RUNS="$TASK"', folder, at_once, options)
    except RuntimeError as e:
        sys.exit(str(e))
    report = subprocess.run(["sbatch", "--parsable", f"--dependency=afterany:{array}", "--job-name=freeze-study-report",
                             f"--output={folder}/report-%j.out", *options[1:],
                             "--wrap", shlex.join(make + ["report"])], capture_output=True, text=True, check=True)
    print(f"slurm: submitted {counted(len(pending), 'run')} as job array {array} of {len(tasks)} tasks (at most {args.max} at once); "
          f"the report follows as job {report.stdout.strip().split(';')[0]}")


# ----------------------------------------------------------------------------------------------
# A search's rounds

def check_cluster():
    """Refuse in one line, before any run, where there is no Slurm cluster to send runs to."""
    if shutil.which("sbatch") is None or shutil.which("squeue") is None:
        raise ValueError("SLURM=1 needs Slurm's sbatch and squeue on the PATH (study/local_slurm.sh starts a local cluster)")
    answer = subprocess.run(["squeue", "-h", "--me"], capture_output=True, text=True)
    if answer.returncode != 0:
        said = answer.stderr.strip().splitlines() or [f"exit code {answer.returncode}"]
        raise ValueError(f"SLURM=1: squeue cannot reach the cluster: {said[-1]}")


class Rounds:
    """make advise's rounds as Slurm job arrays, with study.worker.Workers' interface (jobs,
    run_all, run_asked), so the search reads the same runs whichever way they ran: a round is one
    array (one for each checkpoint's options), a task a run, each task a worker of its own (python
    -m study.worker, the grid's tasks' worker), in the search's working directory and environment.
    A round waits for its whole array to leave the queue (a worker freed early is Slurm's, not the
    search's); a search stopped meanwhile cancels it."""

    def __init__(self, at_once, options, poll_seconds=1.0):
        # jobs: the policy fills an in/out round with this many runs, as it would make -j N's workers
        self.jobs, self.options, self.poll_seconds = at_once, options, poll_seconds
        self.array = None
        self.stopped_after = {}  # a round waits for its last run: none is stopped

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        if self.array is not None:  # stopped mid-round: the runs would land after the search is gone
            subprocess.run(["scancel", self.array], capture_output=True)

    def run_asked(self, ask, run_flags, echo=print, runs=None):
        """As Workers.run_asked, but a round waits for its last run: an array for each set of
        options, then `ask` again once they have left the queue."""
        while True:
            groups = {}
            for path, options in ask(frozenset()):
                groups.setdefault(json.dumps(options, sort_keys=True), (options, []))[1].append(path)
            if not groups:
                return 0
            for options, group in groups.values():
                code = self.run_all(group, options, run_flags, echo)
                if code:
                    return code

    def run_all(self, runs, shared, run_flags, echo=print):
        """As Workers.run_all: the runs whose result is missing, as one array. A run that saves its
        model (make advise's keep: `save` among its options, an array of its own) takes --save as a
        run's option: the worker's command line reads the grid's options alone."""
        if shared.get("save"):
            shared, run_flags = {k: v for k, v in shared.items() if k != "save"}, run_flags + ["--save", shared["save"]]
        runs = [os.path.abspath(path) for path in runs]
        allowed = [path for path in runs if not os.path.exists(path)]
        for path in allowed:
            job_of(path, shared, run_flags)  # every name checked before any submission
        if not allowed:
            return 0
        worker = [sys.executable, "-m", "study.worker", "--jobs", "1", *grid.shared_argv(shared)]
        # the project first on the node's PYTHONPATH (sbatch passes on this environment)
        path = "PYTHONPATH=" + importable(os.environ)["PYTHONPATH"]
        command = f'env {shlex.quote(path)} {shlex.join(worker)} "$TASK" -- {shlex.join(run_flags)}'
        folder = os.path.join(os.path.dirname(allowed[0]), ".slurm")
        self.array = submit_array(allowed, command, folder, self.jobs, self.options)
        self.wait(allowed, runs, echo)
        self.array = None
        failed = [path for path in allowed if not os.path.exists(path)]
        for path in failed:
            echo(last_log_line(path) or f"slurm: {path} left no result (see {os.path.dirname(path)}/.slurm/)")
        return 1 if failed else 0

    def wait(self, allowed, runs, echo):
        """Until the array has left the queue, each run's progress line as its result lands."""
        landed = set()
        while True:
            gone = self.array not in queue()
            for path in allowed:
                if path not in landed and os.path.exists(path):
                    landed.add(path)
                    echo(progress_line(path, runs))
            if gone:
                return
            time.sleep(self.poll_seconds)


def status(runs):
    """'queued 3, running 2, failed 1 (see results/.../freeze4_size50_seed2.log)' for the grid."""
    waiting = in_queue(runs)
    queued = sum(state == "PENDING" for state in waiting.values())
    running = sum(state in ("RUNNING", "CONFIGURING", "COMPLETING") for state in waiting.values())
    failed = [run for run in runs if not os.path.exists(run) and run not in waiting and os.path.exists(log_of(run))]
    text = f"Slurm: {queued} queued, {running} running, {len(failed)} failed"
    return text + (f" (see {log_of(failed[0])})" if failed else "")


def main(argv=None):
    p = argparse.ArgumentParser(description="The grid on Slurm: submit its missing runs, or say where they are.")
    p.add_argument("command", choices=["submit", "status"])
    p.add_argument("--var", action="append", default=[], help="a make variable of the grid, NAME=value")
    p.add_argument("--runs-per-task", type=int, default=1, help="runs one task runs, one after another")
    add_options(p)
    p.add_argument("runs", nargs="*", help="the grid's result files (after --)")
    argv = sys.argv[1:] if argv is None else argv
    runs = argv[argv.index("--") + 1:] if "--" in argv else []  # the grid's runs: after every option
    args = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.runs += runs
    try:
        check_counts({"SLURM_MAX (an array's tasks at once)": args.max, "SLURM_RUNS_PER_TASK": args.runs_per_task})
    except ValueError as e:
        sys.exit(f"make slurm: {e}")
    if args.command == "submit":
        submit(args)
    else:
        print(status(args.runs))


if __name__ == "__main__":
    main()
