"""
Is bf16 mixed precision the same answer as fp32? An equivalence test with a margin fixed before
the runs (docs/records/equivalence-precision.md says which and why). For each cell, the same seeds run in
both precisions with our own code, the same subset, the grid's options (the cache where k > 0);
per seed the difference bf16 - fp32 of the cell's own figure; the cell is equivalent when the 90%
confidence interval of the mean difference lies inside +- the margin (two one-sided t-tests at 5%):

    python -m bench.precision_equivalence --glue-dir ../shared/glue --seeds 1 2 3 4 5 6 7 8 9 10

Runs are appended to bench/out/precision.jsonl and skipped when already there, so an interrupted
test resumes; seed by seed, so a partial record covers every cell. Writes the table to --table.
"""

import argparse
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

import torch

import machine  # processor_name, multiplies_bf16
from atomic import write_atomically

MARGIN = 0.01  # one point of accuracy, MCC or F1; fixed before any run (docs/records/equivalence-precision.md)
# (task, k, size, protocol, the figure the report reads, more options): the four cells of
# docs/equivalence.md (n = 200, k = 0 and L - 2) and one of Lee et al.'s (MRPC's whole training
# set, k = 0, at its line search's pick, docs/findings-lee.md)
CELLS = [("sst2", 0, "200", "blog", "best_accuracy", []), ("sst2", 4, "200", "blog", "best_accuracy", []),
         ("cola", 0, "200", "blog", "best_mcc", []), ("cola", 4, "200", "blog", "best_mcc", []),
         ("mrpc", 0, "all", "lee", "score", ["--lr", "5e-5"])]
# Student's t, 95th percentile, by degrees of freedom (any statistics table): a 90% two-sided interval
T95 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833, 10: 1.812,
       11: 1.796, 12: 1.782, 13: 1.771, 14: 1.761, 15: 1.753, 16: 1.746, 17: 1.740, 18: 1.734, 19: 1.729}


def paired_interval(fp32, bf16):
    """Mean of the per-seed differences bf16 - fp32 and its 90% confidence interval."""
    differences = [b - a for a, b in zip(fp32, bf16)]
    mean = statistics.mean(differences)
    half = T95[len(differences) - 1] * statistics.stdev(differences) / math.sqrt(len(differences))
    return mean, mean - half, mean + half


def verdict(low, high, margin=MARGIN):
    return "equivalent" if -margin < low and high < margin else "not shown equivalent"


def run(cell, precision, seed, args, work):
    task, k, size, protocol, figure, options = cell
    # a results folder holds one precision (freeze_study.py refuses to mix them)
    os.makedirs(os.path.join(work, precision), exist_ok=True)
    out = os.path.join(work, precision, f"{task}-{k}-{size}-{seed}.json")
    command = [sys.executable, "freeze_study.py", "--model", args.model, "--dataset", task,
               "--glue-dir", args.glue_dir, "--size", size, "--freeze", str(k), "--seed", str(seed),
               "--protocol", protocol, "--precision", precision, "--cache-dir", os.path.join(work, "cache"),
               "--out", out, "--quiet", *options] + (["--splits-dir", os.path.join(work, "splits")] if size != "all" else [])
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"failed: {shlex.join(command)}\n{done.stderr[-2000:]}")
    with open(out) as f:
        result = json.load(f)
    device = result["config"]["device"].split(":")[0]
    processor = result.get("processor") or machine.processor_name(torch.device(device))
    native_bf16 = device == "cuda" or machine.multiplies_bf16()  # a GPU rounds the same inputs, accumulates in float32
    return dict(task=task, freeze=k, size=size, protocol=protocol, precision=precision, seed=seed,
                model=args.model, figure=figure, value=result[figure], seconds=result["seconds"]["total"],
                device=device, processor=processor, native_bf16=native_bf16)


def table(records, seeds):
    """A row per cell and device: a pair's two runs are made on the same device."""
    lines = ["| task | k | n | figure | device | seeds | fp32 mean ± sd | bf16 mean ± sd | pairs' correlation "
             "| difference | 90% interval | margin | verdict |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    devices = sorted({r.get("device", "cpu") for r in records})
    for (task, k, size, protocol, figure, _), device in ((cell, device) for cell in CELLS for device in devices):
        value = {(r["precision"], r["seed"]): r["value"] for r in records if r.get("device", "cpu") == device
                 and (r["task"], r["freeze"], r["size"], r["protocol"]) == (task, k, size, protocol)}
        paired = [s for s in seeds if ("fp32", s) in value and ("bf16", s) in value]
        if len(paired) < 3:
            continue
        fp32, bf16 = [value[("fp32", s)] for s in paired], [value[("bf16", s)] for s in paired]
        mean, low, high = paired_interval(fp32, bf16)
        spread = statistics.stdev(fp32) * statistics.stdev(bf16)
        correlation = f"{statistics.correlation(fp32, bf16):.2f}" if spread > 0 else ""
        lines.append(f"| {task} | {k} | {size} | {figure.replace('best_', '')} | {device} | {len(paired)} "
                     f"| {statistics.mean(fp32):.4f} ± {statistics.stdev(fp32):.4f} "
                     f"| {statistics.mean(bf16):.4f} ± {statistics.stdev(bf16):.4f} | {correlation} | {mean:+.4f} "
                     f"| [{low:+.4f}, {high:+.4f}] | ± {MARGIN} | {verdict(low, high)} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir", required=True)
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    p.add_argument("--cells", type=int, nargs="+", help="indices into CELLS (default: all five)")
    p.add_argument("--record", default="bench/out/precision.jsonl")
    p.add_argument("--table", default="bench/out/precision.md")
    args = p.parse_args()
    os.makedirs(os.path.dirname(args.record), exist_ok=True)
    records = []
    if os.path.exists(args.record):
        with open(args.record) as f:
            records = [r for r in map(json.loads, f) if r["model"] == args.model]
    here = "cuda" if torch.cuda.is_available() else "cpu"  # where freeze_study.py will run: a pair is made on one
    done = {(r["task"], r["freeze"], r["size"], r["precision"], r["seed"]) for r in records
            if r.get("device", "cpu") == here}
    work = tempfile.mkdtemp(prefix="precision-")
    cells = [CELLS[i] for i in args.cells] if args.cells else CELLS
    for seed in args.seeds:
        for cell in cells:
            for precision in ("fp32", "bf16"):
                if (*cell[:3], precision, seed) in done:
                    continue
                records.append(run(cell, precision, seed, args, work))
                print(f"{cell[0]} k={cell[1]} n={cell[2]} {precision} seed {seed}: {records[-1]['value']:.4f} "
                      f"({records[-1]['seconds']:.0f} s)", flush=True)
                with open(args.record, "a") as f:
                    f.write(json.dumps(records[-1]) + "\n")
    text = (f"{args.model}, the same seeds and subsets in both precisions; written by\n"
            f"`python -m bench.precision_equivalence {shlex.join(sys.argv[1:])}`.\n\n" + table(records, args.seeds))
    write_atomically(args.table, lambda f: f.write(text.encode()))
    print(text)


if __name__ == "__main__":
    main()
