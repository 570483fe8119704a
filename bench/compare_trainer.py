"""
One cell of the study several ways, interleaved, several times, on the same machine, checkpoint,
data and subset: (a) freeze_study.py with the cache, (b) freeze_study.py --no-cache, (c) the
study's recipe on the Hugging Face Trainer (bench/trainer_recipe.py), each in fp32 or in bf16
mixed precision (--ways picks them).

    python -m bench.compare_trainer --model minilm --glue-dir ../shared/glue --size 50 --freeze 0 4 --repeats 2

Prints wall times (whole processes, start-up included), their ratios against (c) in fp32 and,
side against side, each in its fastest precision, and the best accuracies. Each (a) run after the first finds its frozen prefix in the cache, as the runs of a
grid do. Every run is also appended to --record (JSON lines); once that file holds n = 50 and
n = 1000 for some k, the whole grid's time is estimated both ways from it (estimate_grid).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

TRAINER_RECIPE = ["-m", "bench.trainer_recipe"]
WAYS = {"a: cache": ["freeze_study.py", "--precision", "fp32"],
        "a: cache bf16": ["freeze_study.py", "--precision", "bf16"],
        "b: --no-cache": ["freeze_study.py", "--no-cache", "--precision", "fp32"],
        "b: --no-cache bf16": ["freeze_study.py", "--no-cache", "--precision", "bf16"],
        "c: Trainer": [*TRAINER_RECIPE, "--precision", "fp32"],
        "c: Trainer bf16": [*TRAINER_RECIPE, "--precision", "bf16"],
        # on CUDA, as the study ran: fp16 autocast and the gradient scaler on both sides
        "a: cache fp16": ["freeze_study.py", "--precision", "fp16"],
        "c: Trainer fp16": [*TRAINER_RECIPE, "--precision", "fp16"]}
TRAINER = "c: Trainer"  # what the ratios are against (--against): fp32, as the published CPU comparisons


def timed_run(way, args, freeze, seed, work):
    out = os.path.join(work, way.replace(":", "").replace(" ", "_"), "result.json")  # one precision a folder
    command = [sys.executable, *WAYS[way],
               "--model", args.model, "--dataset", args.dataset, "--glue-dir", args.glue_dir,
               "--size", str(args.size), "--freeze", str(freeze), "--seed", str(seed),
               "--epochs", str(args.epochs), "--splits-dir", os.path.join(work, "splits"), "--out", out]
    if way.startswith("a"):
        command += ["--cache-dir", os.path.join(work, "cache")]
    began = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:  # the loaders' chatter stays out of the table; a failure's end does not
        sys.exit(f"{way} failed:\n{done.stderr[-2000:]}")
    seconds = time.perf_counter() - began
    with open(out) as f:
        result = json.load(f)
    return dict(way=way, dataset=args.dataset, model=args.model, freeze=freeze, size=args.size,
                seed=seed, epochs=args.epochs, wall=round(seconds, 2), evaluations=len(result["curve"]),
                best_accuracy=result["best_accuracy"], best_mcc=result["best_mcc"], seconds=result["seconds"],
                peak_memory_mb=result.get("peak_memory_mb"))  # on CUDA: allocated during training


def steps_and_evaluations(n, epochs=10, batch_size=16):
    steps = math.ceil(n / batch_size) * epochs
    return steps, steps // max(1, math.ceil(n / (2 * batch_size)))


def estimate_grid(records, freeze_grid, sizes=(50, 100, 200, 500, 1000), seeds=5):
    """
    Whole-grid seconds per way, from runs at n = 50 and n = 1000, in three parts: {"start-up":
    ..., "steps": ..., "evaluations": ...}. For one way and k, a run is start-up + steps x
    per-step + evaluations x per-evaluation: the per-evaluation seconds come from the runs' own
    logs, start-up and per-step from the two sizes. Between measured k the parts are interpolated
    linearly in k (the work per step and per evaluation is linear in the number of layers run);
    k = -1 is taken as k = 0. Start-up holds the frozen prefix: the measured (a) runs computed
    theirs, but a grid computes the dev split's once per k (every later run at that k reads the
    same file), so it is charged once per k. It is taken as the n = 50 run's whole prefix: its 50
    training sentences are 2% of that run's prefix tokens.
    """
    totals = {}
    for way in sorted({r["way"] for r in records}):
        per_k = {}  # k -> (start-up, per step, per evaluation, dev prefix) seconds
        for k in sorted({r["freeze"] for r in records if r["way"] == way}):
            runs = {n: [r for r in records if r["way"] == way and r["freeze"] == k and r["size"] == n]
                    for n in (50, 1000)}
            if not runs[50] or not runs[1000]:
                continue
            wall = {n: statistics.median(r["wall"] for r in runs[n]) for n in runs}
            per_eval = statistics.median(r["seconds"]["eval"] / r["evaluations"] for r in runs[50] + runs[1000])
            (s50, e50), (s1000, e1000) = steps_and_evaluations(50), steps_and_evaluations(1000)
            per_step = (wall[1000] - wall[50] - (e1000 - e50) * per_eval) / (s1000 - s50)
            startup = wall[50] - s50 * per_step - e50 * per_eval
            dev_prefix = statistics.median(r["seconds"].get("prefix", 0.0) for r in runs[50])
            per_k[k] = (startup, per_step, per_eval, dev_prefix)
        if not per_k:
            continue
        measured = sorted(per_k)
        parts = {"start-up": 0.0, "steps": 0.0, "evaluations": 0.0}
        for k in freeze_grid:
            startup, per_step, per_eval, dev_prefix = (float(np.interp(max(k, 0), measured, [per_k[m][i] for m in measured]))
                                                       for i in range(4))
            for n in sizes:
                steps, evaluations = steps_and_evaluations(n)
                parts["start-up"] += seeds * startup
                parts["steps"] += seeds * steps * per_step
                parts["evaluations"] += seeds * evaluations * per_eval
            parts["start-up"] -= (len(sizes) * seeds - 1) * dev_prefix
        totals[way] = (parts, measured)
    return totals


def cell_arguments(default_freeze):
    """The arguments timed_run reads: which cell of the study to run."""
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir", default="../shared/glue")
    p.add_argument("--size", type=int, default=50)
    p.add_argument("--freeze", type=int, nargs="+", default=default_freeze)
    p.add_argument("--epochs", type=int, default=10)
    return p


def fastest(ways_seconds, side):
    """(way, seconds) of the side's ('a', 'b' or 'c') fastest way among those measured."""
    mine = {way: seconds for way, seconds in ways_seconds.items() if way.startswith(side)}
    return min(mine.items(), key=lambda item: item[1]) if mine else (None, None)


def main():
    p = cell_arguments(default_freeze=[0, 4])
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--sizes", type=int, nargs="+", help="several train sizes in one invocation (else --size)")
    p.add_argument("--ways", nargs="+", default=["a: cache", "b: --no-cache", "c: Trainer"], choices=list(WAYS))
    p.add_argument("--record", default="bench/out/trainer_runs.jsonl",
                   help="every run is appended here; the grid estimate reads it")
    p.add_argument("--layers", type=int, default=6, help="the model's depth, for the grid's k")
    p.add_argument("--against", default=TRAINER, choices=list(WAYS), help="the way the ratios are against")
    args = p.parse_args()
    os.makedirs(os.path.dirname(args.record), exist_ok=True)
    print(f"{args.dataset}, {args.model}, n = {' '.join(map(str, args.sizes or [args.size]))}, {args.epochs} epochs, {args.repeats} "
          f"interleaved repeats, {os.cpu_count()} CPU cores, torch threads {__import__('torch').get_num_threads()}")
    print(f"| n | k | way | wall s (median) | runs | vs {args.against} | peak memory MiB | best accuracies |")
    print("|---|---|---|---|---|---|---|---|")
    for args.size, freeze in [(size, k) for size in args.sizes or [args.size] for k in args.freeze]:
        runs = []
        with tempfile.TemporaryDirectory() as work:
            for repeat in range(args.repeats):
                for way in args.ways:  # interleaved, so drifts of the machine hit every way alike
                    runs.append(timed_run(way, args, freeze, 1 + repeat, work))
                    with open(args.record, "a") as f:
                        f.write(json.dumps(runs[-1]) + "\n")
        medians = {way: statistics.median(r["wall"] for r in runs if r["way"] == way) for way in args.ways}
        for way in args.ways:
            accuracies = ", ".join(f"{r['best_accuracy']:.3f}" for r in runs if r["way"] == way)
            versus = f"{medians[args.against] / medians[way]:.2f}x faster" if args.against in medians else ""
            memory = max((r["peak_memory_mb"] or 0 for r in runs if r["way"] == way), default=0)
            print(f"| {args.size} | {freeze} | {way} | {medians[way]:.1f} | {args.repeats} | {versus} | {memory:.0f} "
                  f"| {accuracies} |", flush=True)
        (ours, our_seconds), (theirs, their_seconds) = fastest(medians, "a"), fastest(medians, "c")
        if ours and theirs:
            print(f"| {args.size} | {freeze} | fastest each | {ours} against {theirs} | | {their_seconds / our_seconds:.2f}x faster | | |")

    with open(args.record) as f:
        records = [r for r in map(json.loads, f) if r["dataset"] == args.dataset and r["model"] == args.model
                   and r["epochs"] == args.epochs]
    freeze_grid = range(-1, args.layers + 1)
    totals = estimate_grid(records, freeze_grid)
    if args.against in totals:
        print(f"\nwhole grid estimate (k = {freeze_grid[0]}..{freeze_grid[-1]}, n = 50..1000, 5 seeds), "
              f"from the runs in {args.record}:")
        grid_seconds = {way: sum(parts.values()) for way, (parts, _) in totals.items()}
        for way, (parts, measured) in totals.items():
            seconds = grid_seconds[way]
            print(f"  {way}: {seconds / 3600:.2f} h = {seconds / 60:.1f} min ({grid_seconds[args.against] / seconds:.2f}x faster "
                  f"than {args.against}; k measured: {', '.join(map(str, measured))}); "
                  + ", ".join(f"{name} {part / 60:.1f} min" for name, part in parts.items()))
        (ours, our_seconds), (theirs, their_seconds) = fastest(grid_seconds, "a"), fastest(grid_seconds, "c")
        if ours and theirs:
            print(f"  fastest each: {ours} against {theirs}: {their_seconds / our_seconds:.2f}x faster")


if __name__ == "__main__":
    main()
