"""This record's three searches beside the last one of advise-emotion-rolling-2026-11-30 (the same
command, the code before the pick's last seed saved its model): wall clock, runs, run-seconds,
the runs each made that the one before did not, the keep, the pick.
python docs/records/advise-emotion-keep-2026-11-30/side_by_side.py"""
import glob
import json
import os
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, "..", "advise-emotion-rolling-2026-11-30", "rolling")


def runs_of(folder):
    return {os.path.basename(path): json.load(open(path)) for path in glob.glob(os.path.join(folder, "freeze*.json"))}


def summary(folder):
    clock = dict(line.split() for line in open(os.path.join(folder, "clock.txt")) if not line.startswith("rc"))
    at = lambda text: datetime.strptime(text, "%H:%M:%S")
    steps = [json.loads(line)["step"] for line in open(os.path.join(folder, "advise.rounds"))]
    decided = [line for line in open(os.path.join(folder, "output.txt")) if line.startswith("advise: decided")]
    report = open(os.path.join(folder, "advise.md")).read()
    kept = next(line for line in report.splitlines() if line.startswith("- Saved in"))
    runs = runs_of(folder)
    return dict(wall_minutes=round((at(clock["ended"]) - at(clock["began"])).total_seconds() / 60, 1),
                runs=len(runs), run_seconds=round(sum(r["seconds"]["total"] for r in runs.values())),
                rounds=len(steps), keep_ahead_runs=steps.count("keep ahead"), kept=kept[kept.index("("):kept.index(")") + 1],
                pick=decided[0].split("|")[0].removeprefix("advise: decided: ").strip(),
                test_file=decided[0].split("|")[1].split(",")[0].strip())


searches = [("rolling, 068bb47", BEFORE), ("search, ab15df0", os.path.join(HERE, "search")),
            ("ahead, 20aaf64", os.path.join(HERE, "ahead")), ("again, 0d0f38a", os.path.join(HERE, "again"))]
for name, folder in searches:
    print(f"{name:17s}", json.dumps(summary(folder)))
for (name, folder), (last, before_it) in zip(searches[1:], searches):
    runs, before = runs_of(folder), runs_of(before_it)
    both = sorted(set(runs) & set(before))
    print(f"{name} against {last}: {len(both)} runs both made, {sum(before[n]['seconds']['total'] for n in both):.0f} "
          f"run-seconds then, {sum(runs[n]['seconds']['total'] for n in both):.0f} now; every one scored the same: "
          f"{all(before[n]['score'] == runs[n]['score'] for n in both)}")
    print("  only then:", sorted(set(before) - set(runs)))
    print("  only now:", {n: round(runs[n]["seconds"]["total"], 1) for n in sorted(set(runs) - set(before))})
