"""
Several rates of one cell at once (batched.py) against the same rates one after another in the same
process (loop.train), each drawing its masks as the rates at once do (model.drawn_masks), and on
CUDA also as a CUDA run does, in torch's fused kernels: the seconds of their training and
evaluations, and whether the numbers agree (with the runs that draw alike; the fused kernels draw
other masks).

    .venv/bin/python -m bench.batched_rates --model minilm --glue-dir ../shared/glue --freeze 4 --size 200
"""

import argparse
import dataclasses
import time

import freeze_study
import loop
from model import drawn_masks
from plan import plan_run
from bench import batched


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir", required=True)
    p.add_argument("--freeze", default="4")
    p.add_argument("--size", default="200")
    p.add_argument("--method", default="finetune")
    p.add_argument("--rates", type=float, nargs="+", default=[2e-5, 5e-5, 1e-4])
    p.add_argument("--precision", default="fp32")
    p.add_argument("--epochs", default="10")
    args = p.parse_args()
    run_args = freeze_study.parse_args(["--model", args.model, "--glue-dir", args.glue_dir, "--freeze", args.freeze,
                                        "--size", args.size, "--method", args.method, "--precision", args.precision,
                                        "--epochs", args.epochs,
                                        "--out", "bench/out/batched.json"])
    task, indices = freeze_study.load_task_and_subset(run_args)
    plan = plan_run(run_args, task)
    quiet = lambda line: None
    model, inputs, _, _ = freeze_study.prepare(plan, task, indices)
    began = time.perf_counter()
    together = batched.train_rates(model, plan.train_config, args.rates, inputs, quiet)
    together_seconds = time.perf_counter() - began
    alone_seconds, fused_seconds, worst = 0.0, 0.0, 0.0
    for rate, result in zip(args.rates, together):
        model, inputs, _, _ = freeze_study.prepare(plan, task, indices)
        began = time.perf_counter()
        with drawn_masks():
            alone = loop.train(model, dataclasses.replace(plan.train_config, lr=rate), inputs, quiet)
        alone_seconds += time.perf_counter() - began
        worst = max(worst, max(abs(a - b) for a, b in zip(result.losses, alone.losses)))
        print(f"rate {rate:g}: chosen step {result.chosen['step']} / {alone.chosen['step']}, dev accuracy "
              f"{result.chosen['accuracy']:.4f} / {alone.chosen['accuracy']:.4f} (at once / alone)")
        if plan.device.type == "cuda":  # a CUDA run as it is: dropout in the fused kernels
            model, inputs, _, _ = freeze_study.prepare(plan, task, indices)
            began = time.perf_counter()
            fused = loop.train(model, dataclasses.replace(plan.train_config, lr=rate), inputs, quiet)
            fused_seconds += time.perf_counter() - began
            print(f"rate {rate:g}, fused kernels alone: chosen step {fused.chosen['step']}, dev accuracy "
                  f"{fused.chosen['accuracy']:.4f}")
    fused_text = f", one after another in the fused kernels {fused_seconds:.1f} s" if fused_seconds else ""
    print(f"{len(args.rates)} rates, {args.model}, k = {args.freeze}, n = {args.size}, {args.method}, {args.precision}: "
          f"at once {together_seconds:.1f} s, one after another {alone_seconds:.1f} s "
          f"({alone_seconds / together_seconds:.2f}x){fused_text}; largest loss difference {worst:.1e}")


if __name__ == "__main__":
    main()
