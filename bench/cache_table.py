"""
Wall time of one run with and without the frozen-prefix cache, for several freezing depths:

    python bench/cache_table.py --model minilm --glue-dir ../shared/glue --freeze 0 2 4 6

Each cached run starts from an empty cache (so its time includes computing the prefix), then
runs once more with the cache warm. Prints a Markdown table for the README.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_run(args, freeze, cache_dir, *flags):
    out = os.path.join(cache_dir, "result.json")
    began = time.perf_counter()
    subprocess.run([sys.executable, os.path.join(ROOT, "freeze_study.py"), "--model", args.model,
                    "--dataset", args.dataset, "--glue-dir", args.glue_dir, "--size", str(args.size),
                    "--seed", "1", "--epochs", str(args.epochs), "--freeze", str(freeze),
                    "--cache-dir", cache_dir, "--out", out, "--quiet", *flags], check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    with open(out) as f:
        result = json.load(f)
    return wall, result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir", default=os.path.join(ROOT, "..", "shared", "glue"))
    p.add_argument("--size", type=int, default=50)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--freeze", type=int, nargs="+", default=[0, 2, 4, 6])
    args = p.parse_args()
    print("| frozen k | --no-cache (s) | cache, cold (s) | cache, warm (s) | speed-up (warm) | best acc, no-cache / cache |")
    print("|---|---|---|---|---|---|")
    for k in args.freeze:
        with tempfile.TemporaryDirectory() as cache_dir:
            full, full_result = one_run(args, k, cache_dir, "--no-cache")
            if k == 0:  # nothing is frozen, so there is nothing to cache: both are the same run
                print(f"| {k} | {full:.1f} | = | = | 1.0x | {full_result['best_accuracy']:.3f} |")
                continue
            cold, _ = one_run(args, k, cache_dir)
            warm, result = one_run(args, k, cache_dir)
        print(f"| {k} | {full:.1f} | {cold:.1f} | {warm:.1f} | {full / warm:.1f}x "
              f"| {full_result['best_accuracy']:.3f} / {result['best_accuracy']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
