"""
One cell of the study three ways, interleaved, several times, on the same machine, checkpoint,
data and subset: (a) freeze_study.py with the cache, (b) freeze_study.py --no-cache, (c) the
study's recipe on the Hugging Face Trainer (bench/trainer_recipe.py).

    python bench/compare_trainer.py --model minilm --glue-dir ../shared/glue --size 50 --freeze 0 4 --repeats 2

Prints wall times (whole processes, start-up included), their ratios against (c), and the best
accuracies, then estimates the whole grid both ways from the per-run times. Each (a) run after the
first finds its frozen prefix in the cache, as the runs of a grid do.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAYS = {"a: cache": ["freeze_study.py"], "b: --no-cache": ["freeze_study.py", "--no-cache"],
        "c: Trainer": ["bench/trainer_recipe.py"]}


def timed_run(way, args, freeze, seed, work):
    out = os.path.join(work, "result.json")
    command = [sys.executable, *[os.path.join(ROOT, part) if part.endswith(".py") else part for part in WAYS[way]],
               "--model", args.model, "--dataset", args.dataset, "--glue-dir", args.glue_dir,
               "--size", str(args.size), "--freeze", str(freeze), "--seed", str(seed),
               "--epochs", str(args.epochs), "--splits-dir", os.path.join(work, "splits"), "--out", out]
    if way.startswith("a"):
        command += ["--cache-dir", os.path.join(work, "cache")]
    began = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - began
    with open(out) as f:
        return seconds, json.load(f)["best_accuracy"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir", default=os.path.join(ROOT, "..", "shared", "glue"))
    p.add_argument("--size", type=int, default=50)
    p.add_argument("--freeze", type=int, nargs="+", default=[0, 4])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args()
    print(f"{args.dataset}, {args.model}, n = {args.size}, {args.epochs} epochs, {args.repeats} "
          f"interleaved repeats, {os.cpu_count()} CPU cores, torch threads {__import__('torch').get_num_threads()}")
    print("| k | way | wall s (median) | runs | vs Trainer | best accuracies |")
    print("|---|---|---|---|---|---|")
    for freeze in args.freeze:
        times = {way: [] for way in WAYS}
        accuracies = {way: [] for way in WAYS}
        with tempfile.TemporaryDirectory() as work:
            for repeat in range(args.repeats):
                for way in WAYS:  # interleaved, so drifts of the machine hit every way alike
                    seconds, accuracy = timed_run(way, args, freeze, 1 + repeat, work)
                    times[way].append(seconds)
                    accuracies[way].append(accuracy)
        trainer = statistics.median(times["c: Trainer"])
        for way in WAYS:
            median = statistics.median(times[way])
            print(f"| {freeze} | {way} | {median:.1f} | {len(times[way])} | {trainer / median:.2f}x faster "
                  f"| {', '.join(f'{a:.3f}' for a in accuracies[way])} |", flush=True)


if __name__ == "__main__":
    main()
