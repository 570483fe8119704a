"""This record's search (`refine/`: the screen down to k = 0, refine before the rates; 2504038)
beside the same command's `masks/` of advise-emotion-masks-2026-11-30 (the policy before, d83b82e;
the same code for the runs): wall clock, runs, run-seconds, the runs both made and their train and
eval seconds here against there (per method), their scores, the pick.
python docs/records/advise-emotion-refine-2026-11-30/side_by_side.py"""
import glob
import json
import os
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDERS = {"masks (the policy before)": os.path.join(HERE, "..", "advise-emotion-masks-2026-11-30", "masks"),
           "refine (this record)": os.path.join(HERE, "refine")}


def runs_of(folder):
    return {os.path.basename(p): json.load(open(p)) for p in glob.glob(os.path.join(folder, "freeze*.json"))}


def wall_minutes(folder):
    clock = dict(line.split() for line in open(os.path.join(folder, "clock.txt")) if not line.startswith("rc"))
    at = lambda text: datetime.strptime(text, "%H:%M:%S")
    return (at(clock["ended"]) - at(clock["began"])).total_seconds() / 60


def decided(folder):
    """The decided line's pick, its test score and its hours, without the report's path."""
    line = next(line for line in open(os.path.join(folder, "output.txt")) if line.startswith("advise: decided"))
    return "; ".join(line.removeprefix("advise: decided: ").split(" | ")[:3])


runs = {name: runs_of(folder) for name, folder in FOLDERS.items()}
print("| search | wall clock | runs landed | run-seconds | decided |")
print("|---|---|---|---|---|")
for name, folder in FOLDERS.items():
    seconds = sum(r["seconds"]["total"] for r in runs[name].values())
    print(f"| {name} | {wall_minutes(folder):.1f} min | {len(runs[name])} | {seconds:,.0f} | {decided(folder)} |")
there, here = runs.values()
both = sorted(set(there) & set(here))
print(f"\nthe {len(both)} runs both searches made, their seconds here over there:")
print("| method | runs | train here / there | eval here / there | total here / there |")
print("|---|---|---|---|---|")
method = lambda name: next((part for part in name.removesuffix(".json").split("_")[3:] if not part.startswith("lr")), "finetune")
for m in sorted({method(n) for n in both}):
    names = [n for n in both if method(n) == m and there[n]["seconds"]["total"] > 1]
    ratio = lambda part: (f"{sum(here[n]['seconds'][part] for n in names) / sum(there[n]['seconds'][part] for n in names):.3f}"
                          if sum(there[n]["seconds"][part] for n in names) else "")
    if names:
        print(f"| {m} | {len(names)} | {ratio('train')} | {ratio('eval')} | {ratio('total')} |")
same = sum(here[n]["score"] == there[n]["score"] for n in both)
print(f"\nof the {len(both)} runs both made, {same} scored the same to the last digit")
