"""The record's table: each variant's seeds, mean dev score, steps and median train seconds, and the
capped runs against today's 40 epochs, run beside each other (seed 1 of the 40-epoch runs at n = 1000
and on CLINC150 is records/setfit-fast-2026-11-29's, the same computation in fp32 on another CPU:
its score, not its seconds).

    python docs/records/setfit-fast-cap-2026-11-30/table.py docs/records/setfit-fast-cap-2026-11-30/runs
"""
import glob
import json
import math
import os
import statistics
import sys

EARLIER = "docs/records/setfit-fast-2026-11-29/runs"
SEED_ONE = {"n1000-e40-lr1e-5": f"{EARLIER}/q9-fast-sst2-40epochs/freeze0_size1000_seed1_setfit-fast.json",
            "clinc-e40-lr1e-5": f"{EARLIER}/q9-clinc-cap40/freeze4_size750_seed1_setfit-fast.json"}
PAIRS = [("n1000-cap-lr2e-5", "n1000-e40-lr1e-5"), ("n1000-cap-lr1e-5", "n1000-e40-lr1e-5"),
         ("n500-cap-lr2e-5", "n500-e40-lr1e-5"), ("n500-cap-lr1e-5", "n500-e40-lr1e-5"),
         ("clinc-cap-lr2e-5", "clinc-e40-lr1e-5")]


def variants(folder):
    runs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*", "*.json"))):
        run = json.load(open(path))
        runs.setdefault(os.path.basename(os.path.dirname(path)), {})[run["config"]["seed"]] = run
    for name, path in SEED_ONE.items():
        if name in runs and 1 not in runs[name] and os.path.exists(path):
            runs[name][1] = dict(json.load(open(path)), earlier=True)
    return runs


def main(folder):
    runs = variants(folder)
    print("| variant | seeds | scores | mean | steps | median train s (this session's runs) |\n|---|---|---|---|---|---|")
    for name, seeds in runs.items():
        here = [r["seconds"]["train"] for r in seeds.values() if not r.get("earlier")]
        scores = " ".join(f"{seeds[s]['score']:.4f}" for s in sorted(seeds))
        print(f"| {name} | {' '.join(map(str, sorted(seeds)))} | {scores} "
              f"| {statistics.mean(r['score'] for r in seeds.values()):.4f} | {next(iter(seeds.values()))['total_steps']} "
              f"| {statistics.median(here):.0f} |")
    print("\n| capped | against | seeds | difference | 2 x SE | fewer train s |\n|---|---|---|---|---|---|")
    for capped, full in PAIRS:
        if capped not in runs or full not in runs:
            continue
        seeds = sorted(set(runs[capped]) & set(runs[full]))
        a, b = ([runs[v][s]["score"] for s in seeds] for v in (capped, full))
        se = 2 * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b)) if len(seeds) > 1 else math.nan
        speed = (statistics.median(r["seconds"]["train"] for r in runs[full].values() if not r.get("earlier"))
                 / statistics.median(r["seconds"]["train"] for r in runs[capped].values()))
        print(f"| {capped} | {full} | {' '.join(map(str, seeds))} | {statistics.mean(a) - statistics.mean(b):+.4f} "
              f"| {se:.4f} | {speed:.1f}x |")


if __name__ == "__main__":
    main(sys.argv[1])
