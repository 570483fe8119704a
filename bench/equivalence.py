"""
Do this project's runs give the study's answers? For each cell (task x k, n = 200, seeds 1-5)
the best dev accuracy of (b) freeze_study.py --no-cache and (c) the Trainer recipe, and of
(a) the cached runs where k > 0 (at k = 0 nothing is frozen, so (a) is (b)):

    python bench/equivalence.py --model minilm --glue-dir ../shared/glue

Runs are appended to bench/out/equivalence.jsonl and skipped when already there, so an
interrupted comparison resumes. Writes docs/equivalence.md: per cell and way the mean and
seed-standard-deviation, and the difference of means against the Trainer with its standard
error; "agrees" when the difference is under twice that error.
"""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_trainer import ROOT, timed_run  # noqa: E402  one way to run and time a run

sys.path.insert(0, ROOT)
import data  # noqa: E402  write_atomically
import report  # noqa: E402  difference: one way to weigh two sets of seeds


def summary(values):
    return statistics.mean(values), statistics.stdev(values)


def table(records, cells, seeds):
    lines = ["| task | k | metric | way | runs | mean ± sd | minus Trainer | 2 x SE | agrees |",
             "|---|---|---|---|---|---|---|---|---|"]
    for task, k in cells:
        runs = {way: [r for r in records if (r["dataset"], r["freeze"], r["way"]) == (task, k, way)
                      and r["seed"] in seeds] for way in ("a: cache", "b: --no-cache", "c: Trainer")}
        for metric in ("best_accuracy", "best_mcc") if task == "cola" else ("best_accuracy",):
            trainer = [r[metric] for r in runs["c: Trainer"]]
            for way, mine in runs.items():
                if len(mine) < 2:
                    continue
                mean, sd = summary([r[metric] for r in mine])
                row = f"| {task} | {k} | {metric.replace('best_', 'best ')} | {way} | {len(mine)} | {mean:.4f} ± {sd:.4f} |"
                if way != "c: Trainer" and len(trainer) >= 2:
                    # equal means with no spread at all (every run at the majority class) agree
                    diff, two_se = report.difference([r[metric] for r in mine], trainer)
                    row += f" {diff:+.4f} | {two_se:.4f} | {'yes' if abs(diff) <= two_se else 'NO'} |"
                else:
                    row += " | | |"
                lines.append(row)
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir", default=os.path.join(ROOT, "..", "shared", "glue"))
    p.add_argument("--tasks", nargs="+", default=["sst2", "cola"])
    p.add_argument("--freeze", type=int, nargs="+", default=[0, 4], help="0 and L - 2")
    p.add_argument("--size", type=int, default=200)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--record", default=os.path.join(ROOT, "bench", "out", "equivalence.jsonl"))
    p.add_argument("--table", default=os.path.join(ROOT, "docs", "equivalence.md"))
    args = p.parse_args()
    os.makedirs(os.path.dirname(args.record), exist_ok=True)
    records = []
    if os.path.exists(args.record):
        with open(args.record) as f:
            records = [r for r in map(json.loads, f) if r["model"] == args.model and r["size"] == args.size
                       and r["epochs"] == args.epochs]
    done = {(r["dataset"], r["freeze"], r["way"], r["seed"]) for r in records}
    cells = [(task, k) for task in args.tasks for k in args.freeze]
    work = os.path.join(ROOT, "bench", "out", "equivalence")  # splits and cache shared by every run
    for seed in args.seeds:  # seed by seed, so a partial record already covers every cell
        for task, k in cells:
            for way in ("b: --no-cache", "c: Trainer") + (("a: cache",) if k != 0 else ()):
                if (task, k, way, seed) in done:
                    continue
                args.dataset = task
                record = timed_run(way, args, k, seed, work)
                print(f"{task} k={k} {way} seed {seed}: {record['best_accuracy']:.4f} ({record['wall']:.0f} s)",
                      flush=True)
                records.append(record)
                with open(args.record, "a") as f:
                    f.write(json.dumps(record) + "\n")
    text = (f"# Equivalence with the Trainer recipe\n\n{args.model}, n = {args.size}, {args.epochs} epochs, "
            f"seeds {' '.join(map(str, args.seeds))}, the same stratified subset for every way. Written by\n"
            f"`python bench/equivalence.py --model {args.model} --glue-dir ../shared/glue`.\n\n"
            + table(records, cells, args.seeds))
    data.write_atomically(args.table, lambda f: f.write(text.encode()))
    print(text)


if __name__ == "__main__":
    main()
