"""
Several seeds of one cell at once (batched_seeds.py) against the same seeds one after another in the
same process (loop.train), each drawing its masks as the seeds at once do (on CUDA, model.drawn_masks;
also as a CUDA run does, in torch's fused kernels): the seconds of their training and evaluations,
and whether the numbers agree (with the runs that draw alike; the fused kernels draw other masks).

    .venv/bin/python -m bench.seeds_at_once --model minilm --glue-dir ../shared/glue --freeze 4 --size 200
"""

import argparse
import time

import torch

import freeze_study
import loop
import methods
from model import drawn_masks
from plan import plan_run
from bench import batched_seeds


def prepared(argv, seed):
    """A run's model (built from its seed), its inputs, its plan, and its stream (batched_seeds.stream_of)."""
    run_args = freeze_study.parse_args(argv + ["--seed", str(seed)])
    task, indices = freeze_study.load_task_and_subset(run_args)
    plan = plan_run(run_args, task)
    model, inputs, _, _ = freeze_study.prepare(plan, task, indices)
    return plan, model, inputs, batched_seeds.stream_of(plan.device)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir", required=True)
    p.add_argument("--freeze", default="4")
    p.add_argument("--size", default="200")
    p.add_argument("--method", default="finetune")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--precision", default="fp32")
    p.add_argument("--epochs", default="10")
    args = p.parse_args()
    argv = ["--model", args.model, "--glue-dir", args.glue_dir, "--freeze", args.freeze, "--size", args.size,
            "--method", args.method, "--precision", args.precision, "--epochs", args.epochs,
            "--out", "bench/out/seeds_at_once.json"]
    quiet = lambda line: None
    try:
        runs = [prepared(argv, seed) for seed in args.seeds]
    except ValueError as e:  # the run would refuse these options
        p.error(str(e))
    if runs[0][0].method.train is not methods.loop_train:
        p.error(f"--method {args.method} does not train by loop.train (batched_seeds.py trains what it trains)")
    began = time.perf_counter()
    together = batched_seeds.train_seeds([model for _, model, _, _ in runs], [plan.train_config for plan, *_ in runs],
                                         runs[0][2], [stream for *_, stream in runs], quiet)
    together_seconds = time.perf_counter() - began
    alone_seconds, fused_seconds, worst = 0.0, 0.0, 0.0
    for seed, result in zip(args.seeds, together):
        plan, model, inputs, _ = prepared(argv, seed)
        began = time.perf_counter()
        with drawn_masks():
            alone = loop.train(model, plan.train_config, inputs, quiet)
        alone_seconds += time.perf_counter() - began
        worst = max(worst, max(abs(a - b) for a, b in zip(result.losses, alone.losses)))
        print(f"seed {seed}: chosen step {result.chosen['step']} / {alone.chosen['step']}, dev accuracy "
              f"{result.chosen['accuracy']:.4f} / {alone.chosen['accuracy']:.4f} (at once / alone)")
        if plan.device.type == "cuda":  # a CUDA run as it is: dropout in the fused kernels
            plan, model, inputs, _ = prepared(argv, seed)
            began = time.perf_counter()
            fused = loop.train(model, plan.train_config, inputs, quiet)
            torch.cuda.synchronize()
            fused_seconds += time.perf_counter() - began
            print(f"seed {seed}, fused kernels alone: chosen step {fused.chosen['step']}, dev accuracy "
                  f"{fused.chosen['accuracy']:.4f}")
    fused_text = f", one after another in the fused kernels {fused_seconds:.1f} s" if fused_seconds else ""
    print(f"{len(args.seeds)} seeds, {args.model}, k = {args.freeze}, n = {args.size}, {args.method}, {args.precision}: "
          f"at once {together_seconds:.1f} s, one after another {alone_seconds:.1f} s "
          f"({alone_seconds / together_seconds:.2f}x){fused_text}; largest loss difference {worst:.1e}")


if __name__ == "__main__":
    main()
