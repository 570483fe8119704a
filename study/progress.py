"""
Where a grid stands, for make: after each run its place, its line and the time left, and `make
status`; what the time left is estimated from (the done runs of each kind), and make's job count.

    python -m study.progress progress results/sst2/minilm/freeze2_size200_seed1.json <every run of the grid>
    python -m study.progress status <every run of the grid>
"""

import json
import os
import re
import sys

import numpy as np

import result


def timing_kind(path):
    """What a run's time depends on, from its file name: (depth, size, reset layers, method), not
    its seed or learning rate."""
    run = result.parse_name(path)
    return (run.freeze, run.size, run.reinit, run.method) if run else os.path.basename(path)


def time_left(runs):
    """(runs done, seconds the pending runs of a timed kind will take one at a time or None before any
    run is done, pending runs of a kind not yet timed). A pending run is expected to take the median
    time of the done runs of its kind; one of a kind none of whose runs is done has no estimate, for
    depths differ by 20x and sizes as much, and a guess from another kind misleads a plan."""
    done, pending = {}, []
    for path in runs:
        try:
            with open(path) as f:
                done[path] = json.load(f)["seconds"]["total"]
        except (OSError, ValueError, KeyError, TypeError):
            pending.append(path)
    if not done:
        return 0, None, len(pending)
    timed = {}
    for path, seconds in done.items():
        timed.setdefault(timing_kind(path), []).append(seconds)
    estimable = [path for path in pending if timing_kind(path) in timed]
    left = sum(float(np.median(timed[timing_kind(path)])) for path in estimable)
    return len(done), left, len(pending) - len(estimable)


def duration(seconds):
    if seconds < 60:
        return "under a minute"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def make_jobs():
    """The N of `make -j N` this process was started under (1 without; all the cores for a bare -j)."""
    jobs = re.findall(r"(?:^|\s)-j\s*(\d*)", os.environ.get("MAKEFLAGS", ""))
    if not jobs:
        return 1
    return int(jobs[-1]) if jobs[-1] else os.cpu_count() or 1


def last_log_line(path):
    """The last line a run printed: its result's summary, or why it stopped ('' without a log). A job
    of several seeds at once logs each one's summary, which ends with its path: the run's own."""
    try:
        with open(result.log_of(path)) as f:
            lines = f.read().rstrip().splitlines() or [""]
    except OSError:
        return ""
    return ([line for line in lines if line.endswith(path)] or lines)[-1]


def progress_line(finished, runs, place=None):
    """A run just finished: its place in the grid (`place`, where a job of several runs ended at
    once; else the runs done), its result's line (the last of its log), the time left."""
    count = time_left(runs)[0] if place is None else place
    return f"[{count}/{len(runs)}] {last_log_line(finished)} | {where_the_grid_stands(runs).split(', ', 1)[-1]}"


def where_the_grid_stands(runs):
    """'57 of 200 runs done, about 1 h 12 min left' (divided over make -j N's runs at once); the runs
    of a depth and size not yet timed are counted apart, never guessed."""
    count, left, untimed = time_left(runs)
    jobs = make_jobs()
    text = f"{count} of {len(runs)} runs done"
    if left is None:
        return text + ", no estimate until one is"
    if left:
        text += (f", {'' if left / jobs < 60 else 'about '}{duration(left / jobs)} left"
                 + (f" at {jobs} at once" if jobs > 1 else "") + (" for the kinds timed" if untimed else ""))
    if untimed:
        text += f", {untimed} left of a depth and size not yet timed (no estimate until one of each has run)"
    return text


def main(argv):
    if len(argv) >= 2 and argv[0] == "progress":  # a run just finished: its place, its line, the time left
        print(progress_line(argv[1], argv[2:]))
    elif argv and argv[0] == "status":
        print(where_the_grid_stands(argv[1:]))
    else:
        sys.exit("usage: python -m study.progress progress RESULT RUNS... | status RUNS...")


if __name__ == "__main__":
    main(sys.argv[1:])
