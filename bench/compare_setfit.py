"""
`freeze_study.py --method setfit` against the setfit library (bench/setfit_library.py, in its own
environment: see that file), interleaved, on the same checkpoint, data and subsets, several seeds:

    python -m bench.compare_setfit --glue-dir ../shared/glue --sizes 50 --freeze 0 4 --seeds 1 2 3 4 5 \
        --library-python .venv-setfit/bin/python --record bench/out/setfit.jsonl

--cells 200:0 50:4 names (size, k) cells instead of every size with every k. --keep DIR also writes
our runs there, named as a grid names them (freeze{k}_size{n}_seed{s}_setfit.json), so that runs
timed here count as the grid's own. --tabulate FILE... runs nothing and prints the table of the
runs recorded by --record, seeds pooled across invocations.

For each seed, size and k: the library's run, then ours (each a whole process, start-up included;
ours reads its frozen prefix from the cache after the first seed, as a grid's runs do). Prints per
cell both means, their difference against twice its standard error, and the median wall times.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import result
from study.stats import difference  # one way to weigh two sets of seeds


def timed(command, out):
    began = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    seconds = time.perf_counter() - began
    with open(out) as f:
        return json.load(f)["best_accuracy"], seconds


def comparison_parser(library_python):
    """The options every library comparison takes: the cells, the seeds, the library's Python,
    where runs are recorded and kept."""
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir", help="needed unless --tabulate")
    p.add_argument("--sizes", type=int, nargs="+", default=[50])
    p.add_argument("--freeze", type=int, nargs="+", default=[0, 4])
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--library-python", default=library_python)
    p.add_argument("--cells", nargs="+", metavar="N:K", help="size:k pairs, instead of --sizes x --freeze")
    p.add_argument("--record", help="append every run here (JSON lines)")
    p.add_argument("--keep", help="also keep our run JSONs in this results folder")
    p.add_argument("--tabulate", nargs="+", metavar="JSONL", help="run nothing: the table of the runs recorded in "
                   "these files (seeds pooled across invocations: compare the times only within one)")
    return p


def main():
    args = comparison_parser(".venv-setfit/bin/python").parse_args()
    # ours in fp32, as the library trains on a CPU (not the bf16 default a BF16 CPU would pick), at the
    # library's own rate (methods.py's default for SetFit moves with n)
    interleave(args, library=["-m", "bench.setfit_library"],
               ours=["--method", "setfit", "--precision", "fp32", "--lr", "2e-5"], method="setfit", lr=2e-5)


def interleave(args, library, ours, method, lr=None):
    """For each seed and cell the library's run (`library`: its module and flags), then ours
    (`ours`: freeze_study.py's flags), each a whole process; then the table of both."""
    if args.tabulate:
        runs = [json.loads(line) for path in args.tabulate for line in open(path)]
        return print_table(runs, sorted({(r["size"], r["freeze"]) for r in runs}))
    if not args.glue_dir:
        sys.exit("--glue-dir is required to run")
    cells = ([tuple(int(x) for x in c.split(":")) for c in args.cells] if args.cells
             else [(size, k) for size in args.sizes for k in args.freeze])
    work = tempfile.mkdtemp(prefix=f"compare-{method}-")
    common = ["--model", args.model, "--dataset", args.dataset, "--glue-dir", args.glue_dir,
              "--splits-dir", os.path.join(work, "splits")]
    runs = []
    for seed in args.seeds:
        for size, k in cells:
            cell = ["--size", str(size), "--freeze", str(k), "--seed", str(seed)]
            for side, command in (
                    ("library", [args.library_python] + library),
                    ("ours", [sys.executable, "freeze_study.py"] + ours + ["--quiet", "--cache-dir",
                                                                          os.path.join(work, "cache")])):
                out = os.path.join(work, f"{side}-{size}-{k}-{seed}.json")
                accuracy, seconds = timed(command + common + cell + ["--out", out], out)
                if side == "ours" and args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    name = result.RunName(k, size, seed, lr=lr, method=method).file_name()  # as a grid names it
                    shutil.copy(out, os.path.join(args.keep, name))
                runs.append(dict(side=side, size=size, freeze=k, seed=seed, accuracy=accuracy,
                                 wall=round(seconds, 2)))
                print(f"{side:8s} n = {size} k = {k} seed {seed}: accuracy {accuracy:.4f}, {seconds:.1f} s", flush=True)
                if args.record:
                    with open(args.record, "a") as f:
                        f.write(json.dumps(runs[-1]) + "\n")
    print_table(runs, cells)


def print_table(runs, cells):
    print("\n| n | k | seeds | library mean | ours mean | difference | 2 x SE | within | library s | ours s | faster |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for size, k in cells:
        side = lambda name, key: [r[key] for r in runs if r["side"] == name and r["size"] == size and r["freeze"] == k]
        theirs, ours = side("library", "accuracy"), side("ours", "accuracy")
        diff, two_se = difference(ours, theirs) if len(ours) > 1 else (ours[0] - theirs[0], float("nan"))
        t_lib, t_ours = statistics.median(side("library", "wall")), statistics.median(side("ours", "wall"))
        print(f"| {size} | {k} | {len(ours)} | {statistics.mean(theirs):.4f} | {statistics.mean(ours):.4f} "
              f"| {diff:+.4f} | {two_se:.4f} | {'yes' if abs(diff) <= two_se else 'NO'} | {t_lib:.1f} "
              f"| {t_ours:.1f} | {t_lib / t_ours:.2f}x |")


if __name__ == "__main__":
    main()
