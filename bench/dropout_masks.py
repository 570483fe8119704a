"""
Two ways of drawing dropout's masks, side by side: on a CPU, numpy's (model.keep_mask, what a CPU
run uses) against torch's own (F.dropout and SDPA's dropout, the plain computation); on a card,
`--ways drawn fused`: masks drawn as tensors (model.drawn_masks, what several runs at once need:
bench/batched.py) against the fused kernels a CUDA run uses. The same cells, subsets and seeds,
each seed's two runs at once, one thread each (as `make advise -j 2` runs them on 2 cores). Prints,
per cell, each way's dev and test scores (mean and sample std over the seeds), their difference
against twice its standard error, and the median train seconds of each way:

    python -m bench.dropout_masks --train-file ../shared/tasks/emotion/train.csv \\
        --dev-file ../shared/tasks/emotion/dev.csv --test-file ../shared/tasks/emotion/test.csv \\
        --text-column text --metric macro_f1 --size 200 --seeds 1 2 3 4 5 \\
        --cells setfit-fast:1 finetune:0 --out bench/out/dropout_masks

A run of one way is `python -m bench.dropout_masks --one WAY FREEZE_STUDY_ARGS...`.
"""

import argparse
import contextlib
import json
import os
import subprocess
import sys

import numpy as np
import torch.nn.functional as F

from study.stats import describe, difference

WAYS = ("numpy", "torch", "drawn", "fused")  # the first of two is read less the second


def one_run(way, argv):
    """One freeze_study.py run, its masks drawn `way`: numpy or fused (model.py as it is, on a CPU or
    on CUDA), torch (model.py's dropout and attention put back to F.dropout and SDPA's own), or drawn
    (inside model.drawn_masks)."""
    import freeze_study
    import model
    if way == "torch":
        model.dropout = F.dropout
        model.attention = lambda q, k, v, mask, p, scale=None: F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=p, scale=scale)
    with model.drawn_masks() if way == "drawn" else contextlib.nullcontext():
        freeze_study.main(argv)


def run_pair(args, method, freeze, seed):
    """Both ways of one seed at once, one thread each; returns {way: result}."""
    paths, processes = {}, []
    for way in args.ways:
        paths[way] = os.path.join(args.out, way, f"freeze{freeze}_size{args.size}_seed{seed}_{method}.json")
        if os.path.exists(paths[way]):
            continue
        argv = ["--model", args.model, "--train-file", args.train_file, "--dev-file", args.dev_file,
                "--text-column", args.text_column, "--metric", args.metric, "--size", str(args.size),
                "--seed", str(seed), "--freeze", str(freeze), "--method", method, "--precision", "fp32",
                "--evaluations", "last", "--quiet", "--out", paths[way],
                "--cache-dir", os.path.join(args.out, "cache"), "--splits-dir", os.path.join(args.out, "splits")]
        argv += ["--test-file", args.test_file] if args.test_file else []
        env = dict(os.environ, OMP_NUM_THREADS="1")
        processes.append(subprocess.Popen([sys.executable, "-m", "bench.dropout_masks", "--one", way, *argv], env=env))
    if any(p.wait() for p in processes):
        raise SystemExit(f"a run of {method} k = {freeze} seed {seed} failed")
    return {way: json.load(open(path)) for way, path in paths.items()}


def main():
    if sys.argv[1:2] == ["--one"]:
        return one_run(sys.argv[2], sys.argv[3:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--train-file", required=True)
    p.add_argument("--dev-file", required=True)
    p.add_argument("--test-file")
    p.add_argument("--text-column", default="sentence")
    p.add_argument("--metric", default="accuracy")
    p.add_argument("--size", type=int, default=200)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--cells", nargs="+", default=["setfit-fast:1", "finetune:0"], help="METHOD:FREEZE")
    p.add_argument("--ways", nargs=2, choices=WAYS, default=["numpy", "torch"],
                   help="the two compared, the first less the second (a card: drawn fused)")
    p.add_argument("--out", default="bench/out/dropout_masks")
    args = p.parse_args()
    print(f"| cell | way | seeds | dev {args.metric} | test {args.metric} | train s (median) |")
    print("|---|---|---|---|---|---|")
    for cell in args.cells:
        method, freeze = cell.split(":")
        runs = {way: [] for way in args.ways}
        for seed in args.seeds:
            for way, result in run_pair(args, method, int(freeze), seed).items():
                runs[way].append(result)
        figures = {}
        for way in args.ways:
            dev = [r["score"] for r in runs[way]]
            test = [r["test_at_score"][args.metric] for r in runs[way]] if args.test_file else [np.nan]
            seconds = np.median([r["seconds"]["train"] for r in runs[way]])
            figures[way] = dev, test, seconds
            d, t = describe(dev), describe(test)
            test_text = f"{t['mean']:.4f} ± {t['std']:.4f}" if args.test_file else ""
            print(f"| {method} k = {freeze} | {way} | {len(dev)} | {d['mean']:.4f} ± {d['std']:.4f} | {test_text} | "
                  f"{seconds:.1f} |")
        first, second = args.ways
        (dev_a, test_a, s_a), (dev_b, test_b, s_b) = figures[first], figures[second]
        for name, these, those in (("dev", dev_a, dev_b), ("test", test_a, test_b))[:2 if args.test_file else 1]:
            diff, two_se = difference(these, those)
            print(f"| {method} k = {freeze} | {first} - {second}, {name} | | {diff:+.4f} (2 x SE {two_se:.4f}) "
                  f"| {'within' if abs(diff) <= two_se else 'OUTSIDE'} | {s_a / s_b:.3f} x the seconds |")


if __name__ == "__main__":
    main()
