"""
What machine.keep_freed_memory saves in a k = 0 training step: glibc otherwise maps the word
embedding's dense gradient (47 MB for minilm) afresh at every backward and unmaps it at every
zero_grad, so its pages fault in again at every step. The setting is the process's, so each side
runs in its own process, the two alternating --rounds times so that the machine's drift reaches
both alike:

    python bench/freed_memory.py --glue-dir ../shared/glue

Each process: batches of 16 drawn at random from the n = 1000 subset (the protocol's shuffle),
every layer and the embeddings trained (loop.train_step, fp32), --warmup steps, then --steps
timed; it prints its mean step time and the page faults (minor) of the timed steps.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import loop  # noqa: E402
import machine  # noqa: E402
import word_rows  # noqa: E402  full_fine_tune


def time_steps(args):
    """One side, in this process: (mean seconds a step, page faults a step)."""
    if args.side == "kept":
        assert machine.keep_freed_memory(), "not glibc"
    device = torch.device("cpu")
    classifier, inputs, labels = word_rows.full_fine_tune(args)
    params = [p for p in classifier.parameters() if p.requires_grad]
    config = loop.TrainConfig()
    optimizer = loop.AdamW([dict(params=params)], lr=2e-5, rows=loop.word_rows(classifier, inputs, None))
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    batches = torch.randperm(len(inputs), generator=torch.Generator().manual_seed(1)).split(config.batch_size)
    batches = (batches * (1 + (args.warmup + args.steps) // len(batches)))[:args.warmup + args.steps]
    for i, batch in enumerate(batches):
        if i == args.warmup:
            began, faults = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        loop.train_step(classifier, optimizer, scaler, params, [inputs[j] for j in batch], labels[batch], None,
                        device, config)
    return ((time.perf_counter() - began) / args.steps,
            (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / args.steps)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir")
    p.add_argument("--splits-dir", default="splits")
    p.add_argument("--size", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--side", choices=["kept", "default"], help="(internal) time one side in this process")
    args = p.parse_args()
    if args.side:
        print(*time_steps(args))
        return
    print(f"{args.model}, {args.dataset} n = {args.size}, k = 0, fp32, {torch.get_num_threads()} threads: "
          f"{args.steps} steps a process after {args.warmup}, {args.rounds} rounds")
    seconds = {"default": [], "kept": []}
    for round_ in range(args.rounds):
        for side in seconds:
            done = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--side", side],
                                  capture_output=True, text=True, check=True)
            step, faults = map(float, done.stdout.split()[-2:])
            seconds[side].append(step)
            print(f"round {round_ + 1}, glibc {side}: {step * 1000:.1f} ms a step, {faults:.0f} page faults a step")
    saved = [d - k for d, k in zip(seconds["default"], seconds["kept"])]
    print(f"median step: default {statistics.median(seconds['default']) * 1000:.1f} ms, kept "
          f"{statistics.median(seconds['kept']) * 1000:.1f} ms; paired saving {statistics.mean(saved) * 1000:.1f} ms "
          f"(standard error {statistics.stdev(saved) / len(saved) ** 0.5 * 1000:.1f} ms), "
          f"{statistics.mean(saved) / statistics.median(seconds['default']):.1%} of a step")


if __name__ == "__main__":
    main()
