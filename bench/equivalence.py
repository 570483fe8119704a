"""
Do this project's runs give the study's answers? For each cell (task x k, n = 200, seeds 1-5)
the best dev accuracy of (b) freeze_study.py --no-cache and (c) the Trainer recipe, and of
(a) the cached runs where k > 0 (at k = 0 nothing is frozen, so (a) is (b)):

    python -m bench.equivalence --model minilm --glue-dir ../shared/glue

Runs are appended to bench/out/equivalence.jsonl and skipped when already there, so an
interrupted comparison resumes. Writes docs/records/equivalence-trainer.md: per cell and way the mean and
seed-standard-deviation, and the difference of means against the Trainer with its standard
error; "agrees" when the difference is under twice that error.

Our ways in bf16 mixed precision (the CPU default where the hardware does it), against the
Trainer's fp32 runs as published in the table above (their mean, sd and count), without rerunning
the Trainer:

    python -m bench.equivalence --ways "b: --no-cache bf16" "a: cache bf16" \
        --trainer-table docs/records/equivalence-trainer.md --table docs/records/equivalence-bf16.md
"""

import argparse
import json
import os
import shlex
import statistics
import sys

from bench.compare_trainer import timed_run  # one way to run and time a run
from atomic import write_atomically
from study import stats  # difference: one way to weigh two sets of seeds


def summary(values):
    return statistics.mean(values), statistics.stdev(values)


def published_trainer(path):
    """{(task, k, metric): (mean, sd, runs)} of the Trainer's rows in a table this script wrote."""
    rows = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 6 and cells[3] == "c: Trainer":
                mean, sd = (float(x) for x in cells[5].split("±"))
                rows[(cells[0], int(cells[1]), cells[2].replace("best ", "best_"))] = (mean, sd, int(cells[4]))
    return rows


def table(records, cells, seeds, ways, trainer_rows=None):
    lines = ["| task | k | metric | way | runs | mean ± sd | minus Trainer | 2 x SE | agrees |",
             "|---|---|---|---|---|---|---|---|---|"]
    if trainer_rows:  # the Trainer's published rows stand in for its runs
        ways = [way for way in ways if way != "c: Trainer"]
    for task, k in cells:
        runs = {way: [r for r in records if (r["dataset"], r["freeze"], r["way"]) == (task, k, way)
                      and r["seed"] in seeds] for way in ways}
        for metric in ("best_accuracy", "best_mcc") if task == "cola" else ("best_accuracy",):
            label = metric.replace("best_", "best ")
            if trainer_rows:  # (mean, sd, runs) of the published fp32 Trainer row
                trainer = trainer_rows.get((task, k, metric))
                lines.append(f"| {task} | {k} | {label} | c: Trainer (published) | {trainer[2]} "
                             f"| {trainer[0]:.4f} ± {trainer[1]:.4f} | | | |")
            else:
                values = [r[metric] for r in runs.get("c: Trainer", [])]
                trainer = (*summary(values), len(values)) if len(values) >= 2 else None
            for way, mine in runs.items():
                if len(mine) < 2:
                    continue
                mine = (*summary([r[metric] for r in mine]), len(mine))
                row = f"| {task} | {k} | {label} | {way} | {mine[2]} | {mine[0]:.4f} ± {mine[1]:.4f} |"
                if way != "c: Trainer" and trainer:
                    # equal means with no spread at all (every run at the majority class) agree
                    diff, two_se = stats.difference_of_summaries(mine, trainer)
                    if trainer_rows:  # a published mean is rounded to 4 digits: half a digit either way
                        two_se += 5e-5
                    row += f" {diff:+.4f} | {two_se:.4f} | {'yes' if abs(diff) <= two_se else 'NO'} |"
                else:
                    row += " | | |"
                lines.append(row)
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir", default="../shared/glue")
    p.add_argument("--tasks", nargs="+", default=["sst2", "cola"])
    p.add_argument("--freeze", type=int, nargs="+", default=[0, 4], help="0 and L - 2")
    p.add_argument("--size", type=int, default=200)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--record", default="bench/out/equivalence.jsonl")
    p.add_argument("--table", default="docs/records/equivalence-trainer.md")
    p.add_argument("--ways", nargs="+", default=["a: cache", "b: --no-cache", "c: Trainer"])
    p.add_argument("--trainer-table", help="take the Trainer's rows from this table instead of running it")
    args = p.parse_args()
    os.makedirs(os.path.dirname(args.record), exist_ok=True)
    records = []
    if os.path.exists(args.record):
        with open(args.record) as f:
            records = [r for r in map(json.loads, f) if r["model"] == args.model and r["size"] == args.size
                       and r["epochs"] == args.epochs]
    done = {(r["dataset"], r["freeze"], r["way"], r["seed"]) for r in records}
    cells = [(task, k) for task in args.tasks for k in args.freeze]
    work = os.path.join("bench", "out", "equivalence")  # splits and cache shared by every run
    for seed in args.seeds:  # seed by seed, so a partial record already covers every cell
        for task, k in cells:
            for way in args.ways:
                if (task, k, way, seed) in done or (way.startswith("a") and k == 0) \
                        or (way.startswith("c") and args.trainer_table):
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
            f"`python -m bench.equivalence {shlex.join(sys.argv[1:])}`.\n\n"
            + table(records, cells, args.seeds, args.ways,
                    published_trainer(args.trainer_table) if args.trainer_table else None))
    write_atomically(args.table, lambda f: f.write(text.encode()))
    print(text)


if __name__ == "__main__":
    main()
