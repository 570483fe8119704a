"""
Several runs of one cell at once over stacked weights, its rates (batched.py: one seed) or its
seeds (study/seeds_at_once.py: one rate), against the same runs one after another in the same process
(loop.train), each drawing its masks as the runs at once do (model.drawn_masks), and on CUDA also
as a CUDA run does, in torch's fused kernels: the seconds of their training and evaluations, and
whether the numbers agree (with the runs that draw alike; the fused kernels draw other masks).

    .venv/bin/python -m bench.at_once --glue-dir ../shared/glue --freeze 4 --size 200 --rates 2e-5 1e-4 5e-4
    .venv/bin/python -m bench.at_once --glue-dir ../shared/glue --freeze 4 --size 200 --seeds 1 2 3
"""

import argparse
import contextlib
import dataclasses
import time

import torch

import freeze_study
import loop
import methods
from model import drawn_masks
from plan import plan_run
from bench import batched
from study import seeds_at_once


def prepared(argv, seed):
    """A run's plan, its model (built from its seed), its inputs and its stream (seeds_at_once.stream_of)."""
    run_args = freeze_study.parse_args(argv + ["--seed", str(seed)])
    task, indices = freeze_study.load_task_and_subset(run_args)
    plan = plan_run(run_args, task)
    model, inputs, _, _ = freeze_study.prepare(plan, task, indices)
    return plan, model, inputs, seeds_at_once.stream_of(plan.device)


def together(argv, rates, seeds):
    """The runs at once: (their results, seconds). Several rates of seeds[0], or several seeds at rates[0]."""
    if len(seeds) == 1:
        plan, model, inputs, _ = prepared(argv, seeds[0])
        began = time.perf_counter()
        return batched.train_rates(model, plan.train_config, rates, inputs, log=lambda line: None), began
    runs = [prepared(argv, seed) for seed in seeds]
    configs = [dataclasses.replace(plan.train_config, lr=rates[0]) for plan, *_ in runs]
    began = time.perf_counter()
    return seeds_at_once.train_seeds([model for _, model, _, _ in runs], configs, runs[0][2],
                                     [stream for *_, stream in runs], log=lambda line: None), began


def alone(argv, seed, rate, drawn):
    """One run by loop.train, its masks drawn as tensors (drawn) or as a CUDA run draws them: (result, seconds)."""
    plan, model, inputs, _ = prepared(argv, seed)
    began = time.perf_counter()
    with drawn_masks() if drawn else contextlib.nullcontext():
        result = loop.train(model, dataclasses.replace(plan.train_config, lr=rate), inputs, log=lambda line: None)
    if plan.device.type == "cuda":
        torch.cuda.synchronize()
    return result, time.perf_counter() - began


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir", required=True)
    p.add_argument("--freeze", default="4")
    p.add_argument("--size", default="200")
    p.add_argument("--method", default=methods.FINETUNE.name)
    p.add_argument("--rates", type=float, nargs="+", help="several: a seed's rates at once (default 2e-5 5e-5 1e-4, "
                   "or with several seeds the method's own rate)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1], help="several: a rate's seeds at once")
    p.add_argument("--precision", default="fp32")
    p.add_argument("--epochs", default="10")
    args = p.parse_args()
    if len(args.seeds) > 1 and args.rates and len(args.rates) > 1:
        p.error("several rates (--rates) or several seeds (--seeds) at once, not both")
    argv = ["--model", args.model, "--glue-dir", args.glue_dir, "--freeze", args.freeze, "--size", args.size,
            "--method", args.method, "--precision", args.precision, "--epochs", args.epochs,
            "--out", "bench/out/at_once.json"]
    try:
        plan = prepared(argv, args.seeds[0])[0]
    except ValueError as e:  # the run would refuse these options
        p.error(str(e))
    if plan.method.train is not methods.loop_train:
        p.error(f"--method {args.method} does not train by loop.train (what runs at once train)")
    args.rates = args.rates or ([plan.train_config.lr] if len(args.seeds) > 1 else [2e-5, 5e-5, 1e-4])
    runs = [(seed, rate) for seed in args.seeds for rate in args.rates]
    label = (lambda seed, rate: f"seed {seed}") if len(args.seeds) > 1 else (lambda seed, rate: f"rate {rate:g}")
    results, began = together(argv, args.rates, args.seeds)
    together_seconds = time.perf_counter() - began
    alone_seconds, fused_seconds, worst = 0.0, 0.0, 0.0
    for (seed, rate), result in zip(runs, results):
        run_alone, seconds = alone(argv, seed, rate, drawn=True)
        alone_seconds += seconds
        worst = max(worst, max(abs(a - b) for a, b in zip(result.losses, run_alone.losses)))
        print(f"{label(seed, rate)}: chosen step {result.chosen['step']} / {run_alone.chosen['step']}, dev accuracy "
              f"{result.chosen['accuracy']:.4f} / {run_alone.chosen['accuracy']:.4f} (at once / alone)")
        if plan.device.type == "cuda":  # a CUDA run as it is: dropout in the fused kernels
            fused, seconds = alone(argv, seed, rate, drawn=False)
            fused_seconds += seconds
            print(f"{label(seed, rate)}, fused kernels alone: chosen step {fused.chosen['step']}, dev accuracy "
                  f"{fused.chosen['accuracy']:.4f}")
    fused_text = f", one after another in the fused kernels {fused_seconds:.1f} s" if fused_seconds else ""
    what = f"{len(args.seeds)} seeds" if len(args.seeds) > 1 else f"{len(args.rates)} rates"
    print(f"{what}, {args.model}, k = {args.freeze}, n = {args.size}, {args.method}, {args.precision}: "
          f"at once {together_seconds:.1f} s, one after another {alone_seconds:.1f} s "
          f"({alone_seconds / together_seconds:.2f}x){fused_text}; largest loss difference {worst:.1e}")


if __name__ == "__main__":
    main()
