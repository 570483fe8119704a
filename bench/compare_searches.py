"""
Two `make advise` searches of one task side by side, from their record folders (each holding its
runs' results, `output.txt` and a `clock.txt` of `began HH:MM:SS` and `ended HH:MM:SS`): wall
clock, runs landed, run-seconds and the decided line; then the runs both made, their seconds in
the second over the first per method, and how many scored the same to the last digit (the same
code and seed give the same score: what differs between two such searches is their path).

    .venv/bin/python -m bench.compare_searches FIRST SECOND [--names NAME NAME]

docs/records/advise-emotion-refine-2026-11-30/ quotes it.
"""

import argparse
import glob
import json
import os
from datetime import datetime

import result


def results(folder):
    """{file name: result} of a search folder's runs."""
    return {os.path.basename(path): json.load(open(path)) for path in glob.glob(os.path.join(folder, "freeze*.json"))}


def minutes(folder):
    """The search's wall clock, from its clock.txt."""
    times = {}
    for line in open(os.path.join(folder, "clock.txt")):
        key, value = line.split()
        if key in ("began", "ended"):
            times[key] = datetime.strptime(value, "%H:%M:%S")
    return (times["ended"] - times["began"]).total_seconds() / 60


def decision(folder):
    """The decided line's pick, test score and hours (without the report's path)."""
    for line in open(os.path.join(folder, "output.txt")):
        if line.startswith("advise: decided"):
            return "; ".join(line.removeprefix("advise: decided: ").split(" | ")[:3])
    return "not decided"


def method_of(name):
    """A run's method from its file name (freeze2_size200_seed1_lr1e-4_setfit-fast.json: setfit-fast)."""
    return result.parse_name(name).method


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--names", nargs=2, default=None, help="how the table names the two searches")
    args = p.parse_args(argv)
    folders = [args.first, args.second]
    names = args.names or folders
    ran = [results(folder) for folder in folders]
    print("| search | wall clock | runs landed | run-seconds | decided |")
    print("|---|---|---|---|---|")
    for name, folder, runs in zip(names, folders, ran):
        seconds = sum(run["seconds"]["total"] for run in runs.values())
        print(f"| {name} | {minutes(folder):.1f} min | {len(runs)} | {seconds:,.0f} | {decision(folder)} |")
    first, second = ran
    both = sorted(set(first) & set(second))
    print(f"\nthe {len(both)} runs both searches made, their seconds in the second over the first:")
    print("| method | runs | train | eval | total |")
    print("|---|---|---|---|---|")
    for method in sorted({method_of(name) for name in both}):
        timed = [name for name in both if method_of(name) == method and first[name]["seconds"]["total"] > 1]
        share = lambda part: sum(second[n]["seconds"][part] for n in timed) / sum(first[n]["seconds"][part] for n in timed)
        if timed:
            eval_share = f"{share('eval'):.3f}" if sum(first[n]["seconds"]["eval"] for n in timed) else ""
            print(f"| {method} | {len(timed)} | {share('train'):.3f} | {eval_share} | {share('total'):.3f} |")
    same = sum(first[name]["score"] == second[name]["score"] for name in both)
    print(f"\nof the {len(both)} runs both made, {same} scored the same to the last digit")


if __name__ == "__main__":
    main()
