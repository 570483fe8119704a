"""
Where the blog grid's run-seconds went, and whether two versions of it give the same answers
(the GPU sessions' 350 runs, docs/gpu.md):

    python -m bench.blog_seconds dump RESULTS_DIR... > runs.jsonl      # one line a run
    python -m bench.blog_seconds table runs.jsonl [--against other.jsonl] [--label now --against-label before]

`table` prints the run-seconds split into the frozen prefix, training, evaluation and the rest
(loading, the worker's first run on its card), by task and size; each depth's median seconds at the
largest size; and, with --against, how many runs gave the same best score and each cell (task,
size, depth) whose 5 seeds both files hold: the two means, their difference and twice its standard
error (the same subsets and seeds, so a different draw of dropout is the only noise).
"""

import argparse
import glob
import json
import math
import os
import statistics
import sys
from collections import defaultdict

PARTS = ("prefix", "train", "eval", "other")


def dump(folders):
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            run = json.load(open(path))
            c = run["config"]
            print(json.dumps(dict(task=c["dataset"], freeze=c["freeze"], size=c["size"], seed=c["seed"],
                                  cuda_graphs=c.get("cuda_graphs", False), seconds=run["seconds"],
                                  peak_mib=round(run["peak_memory_mb"]),
                                  best={k: run["best"][k] for k in ("accuracy", "mcc")},
                                  precision=c["precision"], processor=run["processor"])))


def load(path):
    runs = [json.loads(line) for line in open(path)]
    return [r for r in runs if r.get("part", "blog").startswith("blog")]  # 11-28's file also holds MPS's A/B


def split(runs):
    total = defaultdict(float)
    for r in runs:
        for part in ("prefix", "train", "eval", "total"):
            total[part] += r["seconds"][part]
    total["other"] = total["total"] - total["prefix"] - total["train"] - total["eval"]
    return total


def metric(task):
    return "mcc" if task == "cola" else "accuracy"


def table(runs, label, against=None, against_label="before"):
    files = [(label, runs)] + ([(against_label, against)] if against else [])
    print("| runs | task | n | " + " | ".join(PARTS) + " | total |\n|---|---|---|---|---|---|---|---|")
    for name, these in files:
        for task in sorted({r["task"] for r in these}):
            for n in sorted({r["size"] for r in these if r["task"] == task}):
                s = split([r for r in these if r["task"] == task and r["size"] == n])
                print(f"| {name} | {task} | {n} | " + " | ".join(f"{s[p]:.0f}" for p in PARTS) + f" | {s['total']:.0f} |")
        s = split(these)
        print(f"| {name} | all {len(these)} | | " + " | ".join(f"{s[p]:.0f}" for p in PARTS) + f" | {s['total']:.0f} |")
    depths = sorted({r["freeze"] for r in runs})
    print("\nmedian seconds of a run at the largest size (training's in brackets)\n")
    print("| runs | task | " + " | ".join(f"k = {k}" for k in depths) + " |\n|---|---|" + "---|" * len(depths))
    for name, these in files:
        for task in sorted({r["task"] for r in these}):
            largest = max(r["size"] for r in these if r["task"] == task)
            cells = []
            for k in depths:
                cell = [r["seconds"] for r in these if (r["task"], r["size"], r["freeze"]) == (task, largest, k)]
                cells.append(f"{statistics.median(s['total'] for s in cell):.1f} "
                             f"({statistics.median(s['train'] for s in cell):.1f})" if cell else "-")
            print(f"| {name} | {task}, n = {largest} | " + " | ".join(cells) + " |")
    if against:
        compare(runs, against, label, against_label)


def compare(runs, against, label, against_label):
    key = lambda r: (r["task"], r["size"], r["freeze"], r["seed"])
    theirs = {key(r): r for r in against}
    paired = [(r, theirs[key(r)]) for r in runs if key(r) in theirs]
    same = sum(all(a["best"][m] == b["best"][m] for m in ("accuracy", "mcc")) for a, b in paired)
    print(f"\n{same} of {len(paired)} runs held by both give the same best accuracy and MCC")
    cells = defaultdict(list)
    for a, b in paired:
        cells[key(a)[:3]].append((a["best"][metric(a["task"])], b["best"][metric(a["task"])]))
    within, rows = 0, []
    for cell, scores in sorted(cells.items()):
        if len(scores) < 5:
            continue
        ours, other = [s[0] for s in scores], [s[1] for s in scores]
        difference = statistics.mean(ours) - statistics.mean(other)
        two_se = 2 * math.sqrt(statistics.variance(ours) / len(ours) + statistics.variance(other) / len(other))
        within += abs(difference) <= two_se
        rows.append(f"| {cell[0]} | {cell[1]} | {cell[2]} | {statistics.mean(ours):.4f} | {statistics.mean(other):.4f} "
                    f"| {difference:+.4f} | {two_se:.4f} |")
    print(f"{within} of {len(rows)} cells of 5 seeds within twice the standard error of their difference "
          f"({label} against {against_label}; accuracy on SST-2, MCC on CoLA)\n")
    print(f"| task | n | k | {label} | {against_label} | difference | 2 x SE |\n|---|---|---|---|---|---|---|")
    print("\n".join(rows))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["dump", "table"])
    p.add_argument("paths", nargs="+")
    p.add_argument("--against")
    p.add_argument("--label", default="now")
    p.add_argument("--against-label", default="before")
    args = p.parse_args(argv)
    if args.command == "dump":
        return dump(args.paths)
    table(load(args.paths[0]), args.label, args.against and load(args.against), args.against_label)


if __name__ == "__main__":
    sys.exit(main())
