"""
Each depth's runs beside their arithmetic floor: the FLOPs a run needs (its training steps' forward
and backward over the layers above k, its evaluations and its scoring of the training subset over
the same layers), from the token counts of its own batches, at this machine's matrix-product peak;
against the seconds its records measured, so only for runs made on this machine. The frozen
prefix's FLOPs are shown apart: every run of a cache shares them, and a run that finds its cache
pays none.

    .venv/bin/python -m bench.floor results/floor/sst2-minilm --size 200 --model minilm --glue-dir ../shared/glue

The batches are the run's own (loop.step_plan with its seed over its subset's tokens); the FLOPs count
real tokens only (bench/throughput.py's forward_flops: the matrix products and attention, not the
embeddings, the head or AdamW). The floor is the time those FLOPs take at the peak measured here, in
the runs' precision; a GPU session runs this on its grid's runs (bench/gpu.sh).
"""

import argparse
import collections
import statistics

import torch

import freeze_study
import loop
import methods
from bench.throughput import forward_flops, matmul_peak
from plan import plan_run
from study.folder import load_results
def run_flops(plan, config, train_lengths, dev_lengths, evaluations, layers_above, k):
    """(training FLOPs, evaluation and scoring FLOPs, prefix FLOPs) of one run."""
    training = sum(3 * forward_flops(config, [train_lengths[i] for i in batch], layers_above)
                   for _, batch, _ in loop.step_plan(len(train_lengths), plan.train_config))
    evaluating = evaluations * forward_flops(config, dev_lengths, layers_above) + \
        forward_flops(config, train_lengths, layers_above)
    prefix = forward_flops(config, train_lengths + dev_lengths, max(k, 0), first_token_last=False)
    return training, evaluating, prefix


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder")
    p.add_argument("--size", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--glue-dir", required=True)
    args = p.parse_args()
    runs = [r for r in load_results(args.folder, figure="score") if str(r["config"]["size"]) == args.size
            and r["config"]["method"] == methods.FINETUNE.name]
    if not runs:
        raise SystemExit(f"floor.py: {args.folder} has no fine-tune runs at n = {args.size}")
    precision, device = runs[0]["config"]["precision"], runs[0]["config"]["device"]
    peak = matmul_peak(dict(bf16=torch.bfloat16, fp16=torch.float16).get(precision, torch.float32), device)
    by_depth = collections.defaultdict(list)
    for run in runs:
        by_depth[run["config"]["freeze"]].append(run)
    print(f"{args.folder}, n = {args.size}, {precision} on {device}: matrix-product peak here {peak / 1e9:.0f} GFLOP/s; "
          f"the runs' processor: {runs[0].get('processor')}")
    print("| k | runs | median s (train, eval) | training GFLOP | eval GFLOP | prefix GFLOP (shared) | floor s | floor / measured |")
    print("|---|---|---|---|---|---|---|---|")
    for k in sorted(by_depth):
        mine = by_depth[k]
        run_args = freeze_study.parse_args(["--model", args.model, "--dataset", mine[0]["config"]["dataset"],
                                            "--splits-dir", mine[0]["config"]["splits_dir"],
                                            "--glue-dir", args.glue_dir, "--size", args.size,
                                            "--freeze", str(k), "--seed", str(mine[0]["config"]["seed"]),
                                            "--precision", "fp32", "--out", "bench/out/floor.json"])
        task, indices = freeze_study.load_task_and_subset(run_args)
        plan = plan_run(run_args, task)
        classifier = freeze_study.build_and_freeze(plan, task)
        token_ids, _ = freeze_study.tokenize_task(plan, classifier, task, indices)
        train_ids, dev_ids = token_ids["train"], token_ids["dev"]
        L = classifier.config.num_layers
        flops = run_flops(plan, classifier.config, [len(t) for t in train_ids], [len(t) for t in dev_ids],
                          statistics.median(len(r["curve"]) for r in mine), L - max(k, 0), k)
        seconds = {part: statistics.median(r["seconds"][part] for r in mine) for part in ("total", "train", "eval")}
        floor = (flops[0] + flops[1]) / peak  # the prefix is computed once for every run of its cache
        print(f"| {k} | {len(mine)} | {seconds['total']:.1f} ({seconds['train']:.1f}, {seconds['eval']:.1f}) "
              f"| {flops[0] / 1e9:.0f} | {flops[1] / 1e9:.0f} | {flops[2] / 1e9:.0f} | {floor:.1f} "
              f"| {floor / seconds['total']:.0%} |", flush=True)


if __name__ == "__main__":
    main()
