"""
How many kernels a training step asks of a card, several seeds at once against each run alone: the
operations of the training steps (forward, backward, clip, AdamW; no evaluation), counted by a
dispatch mode as they run on this CPU, less views and allocations, which launch no kernel. A card
that runs many small kernels one after another (docs/gpu.md) pays about per operation.

    .venv/bin/python -m bench.step_ops --model minilm --glue-dir ../shared/glue --freeze 0 --size 50 --seeds 1 2 3 4 5

--as-on-cuda counts what a CUDA run would issue: a run alone's dropout and attention as torch's
fused kernels there (one operation forward, one backward: FusedCount), and the masks of the seeds
at once as CUDA draws them (model.fill_uniforms' one draw into the grid, then >= p), in bf16.
"""

import argparse
import collections

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import loop
import model
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
        self.ops, self.paused, self.active = collections.Counter(), False, False

    def __enter__(self):
        self.active = True
        return super().__enter__()

    def __exit__(self, *exception):
        self.active = False
        return super().__exit__(*exception)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = str(func.overloadpacket).removeprefix("aten.")
        if name not in NO_KERNEL and not self.paused:
            self.ops[name] += 1
        return func(*args, **(kwargs or {}))


def fused(counter, name, compute):
    """compute(*tensors) counted as one fused kernel forward and one backward, as on CUDA: its own
    operations run, uncounted (the backward recomputes them under autograd)."""

    class FusedCount(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *tensors):
            ctx.save_for_backward(*tensors)
            outer, counter.paused = counter.paused, True  # inside another fused kernel: its part
            try:
                with torch.no_grad():
                    out = compute(*tensors)
            finally:
                counter.paused = outer
            counter.ops[f"fused {name}"] += counter.active and not outer
            return out

        @staticmethod
        def backward(ctx, grad):
            outer, counter.paused = counter.paused, True
            try:
                with torch.enable_grad():
                    tensors = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
                    out = compute(*tensors)
                    wanted = [t for t in tensors if t.requires_grad]
                    grads = iter(torch.autograd.grad(out, wanted, grad))
            finally:
                counter.paused = outer
            counter.ops[f"fused {name} backward"] += counter.active and not outer
            return tuple(next(grads) if t.requires_grad else None for t in tensors)

    return FusedCount.apply


def as_on_cuda(counter):
    """model's dropout and attention counted as CUDA's fused kernels (a run alone's), and the seeds'
    masks drawn as CUDA draws them (uniform_ into the grid's place)."""
    plain_dropout, plain_attention = model.dropout, model.attention

    def dropout(x, p, training):
        if not training or p == 0 or model.MASK_SOURCE.get() is not None:
            return plain_dropout(x, p, training)
        return fused(counter, "dropout", lambda x: plain_dropout(x, p, training))(x)

    def attention(q, k, v, mask, p, scale=None):
        if model.MASK_SOURCE.get() is not None:  # inside the seeds' vmapped forward: their own masks
            return plain_attention(q, k, v, mask, p, scale)
        return fused(counter, "attention", lambda q, k, v: plain_attention(q, k, v, mask, p, scale))(q, k, v)

    model.dropout, model.attention = dropout, attention
    seeds_at_once.fill_uniforms = lambda out, generator: out.uniform_(generator=generator)


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
    p.add_argument("--as-on-cuda", action="store_true", help="a run alone's dropout and attention as CUDA's fused "
                   "kernels, the seeds' masks as CUDA draws them, bf16")
    args = p.parse_args()
    argv = ["--model", args.model, "--glue-dir", args.glue_dir, "--freeze", args.freeze, "--size", args.size,
            "--epochs", "1", "--precision", "bf16" if args.as_on_cuda else "fp32", "--out", "bench/out/step_ops.json"]
    together, alone = Count(), Count()
    if args.as_on_cuda:
        as_on_cuda(alone)
    counted(seeds_at_once, "seeds_logits", together)  # each step's forward, every seed at once
    counted(seeds_at_once, "step_all", together)  # its backward, each seed's clip and AdamW
    counted(loop, "train_step", alone)  # a run's step: forward, backward, clip, AdamW
    runs = [prepared(argv, seed) for seed in args.seeds]
    seeds_at_once.train_seeds([classifier for _, classifier, _, _ in runs], [plan.train_config for plan, *_ in runs], runs[0][2],
                              [stream for *_, stream in runs], log=lambda line: None)
    for plan, classifier, inputs, _ in [prepared(argv, seed) for seed in args.seeds]:
        loop.train(classifier, plan.train_config, inputs, log=lambda line: None)
    at_once, each = sum(together.ops.values()), sum(alone.ops.values())
    print(f"{args.model}, k = {args.freeze}, n = {args.size}, 1 epoch, {len(args.seeds)} seeds"
          f"{', as on CUDA (bf16, fused kernels alone)' if args.as_on_cuda else ''}: operations that launch "
          f"a kernel, at once {at_once}, each alone {each} ({at_once / each:.2f}x)")
    print("  more at once: " + ", ".join(f"{name} {n}" for name, n in (together.ops - alone.ops).most_common(8)))
    print("  more alone: " + ", ".join(f"{name} {n}" for name, n in (alone.ops - together.ops).most_common(8)))


if __name__ == "__main__":
    main()
