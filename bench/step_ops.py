"""
How many kernels a training step asks of a card, several seeds at once against each run alone: the
operations of the training steps (forward, backward, clip, AdamW; no evaluation), counted by a
dispatch mode as they run on this CPU, less views and allocations, which launch no kernel. A card
that runs many small kernels one after another (docs/gpu.md) pays about per operation.

    .venv/bin/python -m bench.step_ops --model minilm --glue-dir ../shared/glue --freeze 0 --size 50 --seeds 1 2 3 4 5
"""

import argparse
import collections

from torch.utils._python_dispatch import TorchDispatchMode

import loop
from study import seeds_at_once
from bench.at_once import prepared  # a seed's plan, model, inputs and masks' stream, as a run makes them

# operations that only make a view of a tensor or allocate one: no kernel on a card
NO_KERNEL = {"select", "slice", "t", "transpose", "view", "_unsafe_view", "detach", "expand", "permute", "unsqueeze",
             "squeeze", "as_strided", "alias", "split", "split_with_sizes", "narrow", "unbind", "empty", "empty_like",
             "new_empty_strided", "empty_strided", "new_empty", "reshape", "lift_fresh", "_reshape_alias",
             "empty_permuted", "_local_scalar_dense", "is_nonzero", "diagonal", "movedim", "flatten", "unflatten",
             "contiguous"}


class Count(TorchDispatchMode):
    """Every operation run inside it, by name, but those in NO_KERNEL."""

    def __init__(self):
        super().__init__()
        self.ops = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = str(func.overloadpacket).removeprefix("aten.")
        if name not in NO_KERNEL:
            self.ops[name] += 1
        return func(*args, **(kwargs or {}))


def counted(module, name, counter):
    """module.name, its every call counted by `counter`."""
    real = getattr(module, name)

    def inside(*args, **kwargs):
        with counter:
            return real(*args, **kwargs)
    setattr(module, name, inside)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir", required=True)
    p.add_argument("--freeze", default="0")
    p.add_argument("--size", default="50")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    args = p.parse_args()
    argv = ["--model", args.model, "--glue-dir", args.glue_dir, "--freeze", args.freeze, "--size", args.size,
            "--epochs", "1", "--precision", "fp32", "--out", "bench/out/step_ops.json"]
    together, alone = Count(), Count()
    counted(seeds_at_once, "seeds_logits", together)  # each step's forward, every seed at once
    counted(seeds_at_once, "step_all", together)  # its backward, each seed's clip and AdamW
    counted(loop, "train_step", alone)  # a run's step: forward, backward, clip, AdamW
    runs = [prepared(argv, seed) for seed in args.seeds]
    seeds_at_once.train_seeds([model for _, model, _, _ in runs], [plan.train_config for plan, *_ in runs], runs[0][2],
                              [stream for *_, stream in runs], log=lambda line: None)
    for plan, model, inputs, _ in [prepared(argv, seed) for seed in args.seeds]:
        loop.train(model, plan.train_config, inputs, log=lambda line: None)
    at_once, each = sum(together.ops.values()), sum(alone.ops.values())
    print(f"{args.model}, k = {args.freeze}, n = {args.size}, 1 epoch, {len(args.seeds)} seeds: operations that launch "
          f"a kernel, at once {at_once}, each alone {each} ({at_once / each:.2f}x)")
    print("  more at once: " + ", ".join(f"{name} {n}" for name, n in (together.ops - alone.ops).most_common(8)))
    print("  more alone: " + ", ".join(f"{name} {n}" for name, n in (alone.ops - together.ops).most_common(8)))


if __name__ == "__main__":
    main()
