"""
Wall time of one run with and without the frozen-prefix cache, for several freezing depths:

    python bench/cache_table.py --model minilm --glue-dir ../shared/glue --freeze 0 2 4 6

Each cached run starts from an empty cache (so its time includes computing the prefix), then
runs once more with the cache warm. Prints a Markdown table for the README.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_trainer import cell_arguments, timed_run  # noqa: E402  one way to run and time a run


def main():
    p = cell_arguments(default_freeze=[0, 2, 4, 6])
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    args = p.parse_args()
    cache, no_cache = ("a: cache", "b: --no-cache") if args.precision == "fp32" else ("a: cache bf16", "b: --no-cache bf16")
    print("| frozen k | --no-cache (s) | cache, cold (s) | cache, warm (s) | speed-up (warm) | best acc, no-cache / cache |")
    print("|---|---|---|---|---|---|")
    for k in args.freeze:
        with tempfile.TemporaryDirectory() as work:  # an empty cache for each k
            full = timed_run(no_cache, args, k, 1, work)
            if k == 0:  # nothing is frozen, so there is nothing to cache: both are the same run
                print(f"| {k} | {full['wall']:.1f} | = | = | 1.0x | {full['best_accuracy']:.3f} |")
                continue
            cold = timed_run(cache, args, k, 1, work)
            warm = timed_run(cache, args, k, 1, work)
        print(f"| {k} | {full['wall']:.1f} | {cold['wall']:.1f} | {warm['wall']:.1f} | {full['wall'] / warm['wall']:.1f}x "
              f"| {full['best_accuracy']:.3f} / {warm['best_accuracy']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
