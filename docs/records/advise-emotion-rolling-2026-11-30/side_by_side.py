"""The searches of this record side by side: wall clock (clock.txt), runs, run-seconds, rounds, the
keep, the pick (output.txt). python docs/records/advise-emotion-rolling-2026-11-30/side_by_side.py"""
import glob
import json
import os
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))


def summary(folder):
    runs = [json.load(open(path)) for path in glob.glob(os.path.join(folder, "freeze*.json"))]
    clock = dict(line.split() for line in open(os.path.join(folder, "clock.txt")))
    at = lambda text: datetime.strptime(text, "%H:%M:%S")
    end = clock.get("ended") or clock["killed"]
    steps = [json.loads(line)["step"] for line in open(os.path.join(folder, "advise.rounds"))]
    kept = os.path.join(folder, "saved.json")
    decided = [line for line in open(os.path.join(folder, "output.txt")) if line.startswith("advise: decided")]
    return dict(wall_minutes=round((at(end) - at(clock["began"])).total_seconds() / 60, 1),
                ended="decided" if decided else "killed, undecided", runs=len(runs),
                run_seconds=round(sum(r["seconds"]["total"] for r in runs)),
                setfit_fast_runs_at_k_minus_1=sum(r["config"]["method"] == "setfit-fast" and r["config"]["freeze"] == -1
                                                  for r in runs),
                rounds=len(steps), kept_ahead="keep ahead" in steps,
                keep_run_seconds=round(json.load(open(kept))["seconds"]["total"]) if os.path.exists(kept) else None,
                pick=decided[0].split("|")[0].removeprefix("advise: decided: ").strip() if decided else None,
                test_file=decided[0].split("|")[1].split(",")[0].strip() if decided else None)


for name in ("rounds", "rolling-width", "rolling-keep-early", "rolling"):
    if os.path.isdir(os.path.join(HERE, name)):
        print(name, json.dumps(summary(os.path.join(HERE, name))))
