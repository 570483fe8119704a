"""
What a run's start-up costs, and what study/worker.py saves of it: one cell at each depth, run once
as the Makefile's rule for one result runs it (a process each) and once by one worker (one process
for them all), alternately, after a pass that builds the caches both read.

    .venv/bin/python -m bench.worker_startup --model minilm --glue-dir ../shared/glue --size 50 --rounds 2

Prints, per depth, the wall-clock seconds of the run in a process of its own and in the worker
(the worker's first run carries the worker's start-up), and the totals.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np

from parts import families
import hub
import protocol
from study import worker


def alone(runs, shared, options):
    """Each run in a process of its own; its wall-clock seconds."""
    seconds = []
    for path in runs:
        began = time.perf_counter()
        subprocess.run([sys.executable, "freeze_study.py", *worker.job_of(path, shared, options)["argv"]],
                       check=True, stdout=subprocess.DEVNULL)
        seconds.append(time.perf_counter() - began)
    return seconds


def together(runs, shared, options):
    """Every run in one worker; the seconds from one run's end to the next's (the first from the start)."""
    ends = [time.perf_counter()]
    assert worker.run_grid(runs, shared, options, jobs=1, echo=lambda line: ends.append(time.perf_counter())) == 0
    return list(np.diff(ends))


def main():
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir", default="../shared/glue")
    p.add_argument("--size", default="50")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--precision", default="fp32")
    p.add_argument("--out", default="bench/out/worker-startup")
    args = p.parse_args()
    depths = protocol.freeze_grid(families.read_config(hub.checkpoint_folder(args.model)).num_layers)
    shutil.rmtree(args.out, ignore_errors=True)
    shared = dict(epochs=None, protocol=None, splits_dir=os.path.join(args.out, "splits"))
    options = ["--dataset", args.dataset, "--model", args.model, "--glue-dir", args.glue_dir,
               "--cache-dir", os.path.join(args.out, "cache"), "--precision", args.precision]

    def runs(folder):
        return [os.path.join(args.out, folder, f"freeze{k}_size{args.size}_seed{args.seed}.json") for k in depths]

    together(runs("warm"), shared, options)  # the caches (tokens, subsets, each depth's prefix), built once
    times = {"alone": [], "worker": []}
    for round_ in range(args.rounds):
        times["alone"].append(alone(runs(f"alone{round_}"), shared, options))
        times["worker"].append(together(runs(f"worker{round_}"), shared, options))
    print(f"{args.dataset}, {args.model}, n = {args.size}, seed {args.seed}, {args.precision}; "
          f"wall-clock seconds a run, mean of {args.rounds} rounds (the worker's first run carries its start-up)")
    print("| k | a process each | one worker | saved |\n|---|---|---|---|")
    mean = {kind: np.mean(rounds, axis=0) for kind, rounds in times.items()}
    for k, a, w in zip(depths, mean["alone"], mean["worker"]):
        print(f"| {k} | {a:.1f} | {w:.1f} | {a - w:.1f} |")
    print(f"| all {len(depths)} | {mean['alone'].sum():.1f} | {mean['worker'].sum():.1f} | "
          f"{mean['alone'].sum() - mean['worker'].sum():.1f} |")


if __name__ == "__main__":
    main()
