"""This record's searches beside the last of advise-emotion-keep-2026-11-30 (`again/`, the same
command at 0d0f38a): wall clock, runs, run-seconds, how fast their common runs ran against
`again/`'s, when the last run that landed ended, the worker-seconds with nothing to run
(timeline.txt; a stopped run lands nothing, so its seconds count there), the runs stopped, the pick.
python docs/records/advise-emotion-stop-2026-11-30/side_by_side.py"""
import glob
import json
import os
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
AGAIN = os.path.join(HERE, "..", "advise-emotion-keep-2026-11-30", "again")


def runs_of(folder):
    return {os.path.basename(path): json.load(open(path)) for path in glob.glob(os.path.join(folder, "freeze*.json"))}


def summary(folder):
    clock = dict(line.split() for line in open(os.path.join(folder, "clock.txt")) if not line.startswith("rc"))
    at = lambda text: datetime.strptime(text, "%H:%M:%S")
    output = open(os.path.join(folder, "output.txt")).read().splitlines()
    decided = next(line for line in output if line.startswith("advise: decided"))
    runs, again = runs_of(folder), runs_of(AGAIN)
    both = sorted(set(runs) & set(again))
    line = dict(wall_minutes=round((at(clock["ended"]) - at(clock["began"])).total_seconds() / 60, 1),
                runs=len(runs), run_seconds=round(sum(r["seconds"]["total"] for r in runs.values())),
                common_runs_against_again=round(sum(runs[n]["seconds"]["total"] for n in both)
                                                / sum(again[n]["seconds"]["total"] for n in both), 3),
                same_scores=all(runs[n]["score"] == again[n]["score"] for n in both),
                stopped=[l.split("/")[-1].split()[0] for l in output if "stopped: the answer" in l],
                pick=decided.split("|")[0].removeprefix("advise: decided: ").strip(),
                test_file=decided.split("|")[1].split(",")[0].strip())
    timeline = os.path.join(folder, "timeline.txt")
    if os.path.exists(timeline):
        tail = open(timeline).read().splitlines()[-2:]
        line.update(idle_worker_seconds=int(tail[0].split(": ")[1]), last_landed_s=int(tail[1].split()[5].rstrip(";")))
    return line


for name, folder in [("again, 0d0f38a", AGAIN), ("unstopped, 18325df", os.path.join(HERE, "unstopped")),
                     ("stopped, 3d2121d", os.path.join(HERE, "stopped")), ("longest, c139da5", os.path.join(HERE, "longest"))]:
    if os.path.isdir(folder):
        print(f"{name:19s}", json.dumps(summary(folder)))
