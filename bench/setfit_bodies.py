"""
SetFit's two bodies side by side (--method setfit and setfit-fast, contrastive.py): for each cell
(task, size, depth, rate) that both folders hold, the seeds both ran, each body's mean score and
median train seconds, their difference against twice its standard error, and how many times fewer
seconds the fast body took. Its runs are ordinary result files (freeze_study.py --out ...):

    python -m bench.setfit_bodies FAST_DIR... --library LIBRARY_DIR... [--fast-lr 5e-5] [--library-lr 1e-5]

Each side's runs at one rate a cell (a folder holding several: name the one to read with --fast-lr
or --library-lr, where each task and size takes it; the other cells read their one rate).

A library folder may be a committed grid's runs (docs/results/.../runs): the same subsets and seeds,
its seconds from another session, so the speed column is read only where both ran here, side by
side (docs/findings-setfit-fast.md says which).
"""

import argparse
import glob
import json
import math
import os
import statistics

import methods


def body_of(config):
    """Which body a SetFit run trained: the method says (the first fast runs, made before the fast
    body was a method of its own, were --method setfit --setfit-body fast), None for another method."""
    if config["method"] == methods.SETFIT_FAST.name or config.get("setfit_body") == "fast":
        return "fast"
    return "library" if config["method"] == methods.SETFIT.name else None


def setfit_runs(folders, body, lr=None):
    """{(task, size, depth, seed): run} of one body's SetFit runs; lr: only those at this rate."""
    runs = {}
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            run = json.load(open(path))
            c = run["config"]
            if body_of(c) != body or (lr is not None and c["lr"] != lr):
                continue
            key = (c["task"], c["size"], c["freeze"], c["seed"])
            if key in runs and runs[key]["config"]["lr"] != c["lr"]:
                raise SystemExit(f"{path}: {body} runs of one cell at two rates; name one with --{body}-lr")
            runs[key] = run
    return runs


def two_se(a, b):
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    return 2 * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))


def table(fast, library):
    cells = sorted({key[:3] for key in fast} & {key[:3] for key in library}, key=str)
    print("| task | n | k | rates (fast, library) | seeds | metric | fast | library | difference | 2 x SE | "
          "fast train s | library train s | fewer seconds |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cell in cells:
        seeds = sorted(key[3] for key in fast if key[:3] == cell and cell + (key[3],) in library)
        if not seeds:
            continue
        metric = fast[cell + (seeds[0],)]["config"]["metric"]
        ours = [fast[cell + (s,)]["score"] for s in seeds]
        theirs = [library[cell + (s,)]["score"] for s in seeds]
        ours_s = statistics.median(fast[cell + (s,)]["seconds"]["train"] for s in seeds)
        theirs_s = statistics.median(library[cell + (s,)]["seconds"]["train"] for s in seeds)
        task, size, freeze = cell
        rates = f"{fast[cell + (seeds[0],)]['config']['lr']:g}, {library[cell + (seeds[0],)]['config']['lr']:g}"
        print(f"| {task} | {size} | {freeze} | {rates} | {' '.join(map(str, seeds))} | {metric} | "
              f"{statistics.mean(ours):.4f} | {statistics.mean(theirs):.4f} | "
              f"{statistics.mean(ours) - statistics.mean(theirs):+.4f} | {two_se(ours, theirs):.4f} | "
              f"{ours_s:.1f} | {theirs_s:.1f} | {theirs_s / ours_s:.1f}x |")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("fast", nargs="+", help="folders of --method setfit-fast runs")
    p.add_argument("--library", nargs="+", required=True, help="folders of --method setfit runs")
    p.add_argument("--fast-lr", type=float, help="read the fast runs at this rate only")
    p.add_argument("--library-lr", type=float, help="read the library runs at this rate only")
    args = p.parse_args(argv)
    table(setfit_runs(args.fast, "fast", args.fast_lr), setfit_runs(args.library, "library", args.library_lr))


if __name__ == "__main__":
    main()
