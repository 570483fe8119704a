"""Each run's start and end, in seconds from the search's start, from a live results folder's file
times (a run's result is written as it ends; a commit keeps no file times), and the seconds a
worker waited with nothing to run: python timeline.py RESULTS CLOCK_TXT > timeline.txt"""
import glob
import json
import os
import sys
from datetime import datetime

results, clock = sys.argv[1], sys.argv[2]
began = next(line.split()[1] for line in open(clock) if line.startswith("began"))
day = datetime.fromtimestamp(os.path.getmtime(clock)).strftime("%Y-%m-%d")
t0 = datetime.strptime(f"{day} {began}", "%Y-%m-%d %H:%M:%S").timestamp()
runs = []
for path in glob.glob(os.path.join(results, "freeze*.json")):
    end = os.path.getmtime(path) - t0
    runs.append((end - json.load(open(path))["seconds"]["total"], end, os.path.basename(path)))
runs.sort(key=lambda run: run[1])
print(f"{'start':>7} {'end':>7}  run")
for start, end, name in runs:
    print(f"{start:7.1f} {end:7.1f}  {name}")
# two workers: at each moment, how many runs are under way; a worker waits while fewer than 2 are
events = sorted([(start, 1) for start, _, _ in runs] + [(end, -1) for _, end, _ in runs])
busy, last, idle = 0, runs[0][0], 0.0
for at, step in events:
    idle += max(0, 2 - busy) * (at - last) if at > runs[0][0] else 0.0
    busy, last = busy + step, at
print(f"worker-seconds with nothing to run between the first run's start and the last run's end: {idle:.0f}")
print(f"the last run ended at {runs[-1][1]:.0f} s; run-seconds {sum(end - start for start, end, _ in runs):.0f}")
