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
"""

import argparse
import glob
import os
import shlex
import subprocess
import sys

from result import log_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the Makefile's folder


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


def submit(args):
    waiting = in_queue(args.runs)
    pending = [run for run in args.runs if not os.path.exists(run) and run not in waiting]
    if not pending:
        print(f"slurm: nothing to submit ({len(args.runs) - len(waiting)} of {len(args.runs)} runs done, "
              f"{len(waiting)} in the queue)")
        return
    make = ["make", "-C", ROOT, "--no-print-directory"] + args.var
    folder = os.path.join(os.path.dirname(pending[0]), ".slurm")
    os.makedirs(folder, exist_ok=True)
    tasks = [" ".join(pending[i:i + args.runs_per_task]) for i in range(0, len(pending), args.runs_per_task)]
    # the run list travels inside the script: sbatch keeps a copy, so the tasks read what was submitted
    script = "\n".join(["#!/bin/bash", f"tasks=({shlex.join(tasks)})",
                        f'exec {shlex.join(make)} runs RUNS="${{tasks[$SLURM_ARRAY_TASK_ID]}}"', ""])
    options = [f"--array=0-{len(tasks) - 1}%{args.max}", "--job-name=freeze-study",
               f"--output={folder}/%A_%a.out"] + \
        ([f"--partition={args.partition}"] if args.partition else []) + \
        ([f"--time={args.time}"] if args.time else []) + \
        ([f"--gpus-per-task={args.gpus}"] if args.gpus else []) + shlex.split(args.sbatch)
    array = subprocess.run(["sbatch", "--parsable", *options], input=script, capture_output=True, text=True)
    if array.returncode != 0:
        sys.exit(f"slurm: sbatch refused the array: {array.stderr.strip()}")
    array = array.stdout.strip().split(";")[0]
    with open(os.path.join(folder, f"{array}.runs"), "w") as f:
        f.write("\n".join(tasks) + "\n")
    report = subprocess.run(["sbatch", "--parsable", f"--dependency=afterany:{array}", "--job-name=freeze-study-report",
                             f"--output={folder}/report-%j.out", *options[3:],
                             "--wrap", shlex.join(make + ["report"])], capture_output=True, text=True, check=True)
    print(f"slurm: submitted {len(pending)} runs as job array {array} of {len(tasks)} tasks (at most {args.max} at once); "
          f"the report follows as job {report.stdout.strip().split(';')[0]}")


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
    p.add_argument("--max", type=int, default=4, help="array tasks at once (%%N)")
    p.add_argument("--runs-per-task", type=int, default=1, help="runs one task runs, one after another")
    p.add_argument("--partition")
    p.add_argument("--time", help="each task's time limit")
    p.add_argument("--gpus", help="GPUs per task")
    p.add_argument("--sbatch", default="", help="more sbatch options")
    p.add_argument("runs", nargs="*", help="the grid's result files (after --)")
    argv = sys.argv[1:] if argv is None else argv
    runs = argv[argv.index("--") + 1:] if "--" in argv else []  # the grid's runs: after every option
    args = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.runs += runs
    if args.command == "submit":
        submit(args)
    else:
        print(status(args.runs))


if __name__ == "__main__":
    main()
