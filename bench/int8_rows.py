"""A checkpoint's weights as int8 rows, to carry to a lent GPU machine and back to float32 there.

A device call may send 64 MiB in all (bench/README.md): MiniLM's float32 weights (91 MB) and
all-mpnet-base-v2's (438 MB) do not pass. Each matrix travels as int8 rows with a float16 scale a
row (its largest weight maps to 127, so a weight moves by at most 1/254 of its row's largest), the
vectors (biases, LayerNorm) as float16: a quarter of the bytes. `--parts N` splits the tensors,
in order, into N files of about equal size, one a call, where even a quarter passes a call.

    python -m bench.int8_rows pack   model.safetensors OUT_PREFIX [--parts 2]   # here
    python -m bench.int8_rows unpack model.safetensors PART [PART ...]           # there: float32

The unpacked weights are not the checkpoint's: accuracies can differ a little from the CPU's.
"""
import argparse

import torch
from safetensors.torch import load_file, save_file


def pack(weights, parts=1):
    """{name: tensor} -> `parts` dicts of int8 rows, their scales and float16 vectors."""
    packed = {}  # name -> what travels for it
    for name, t in weights.items():
        if t.dim() == 2:
            scale = t.float().abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 127
            packed[name] = {name + ".int8": (t.float() / scale).round().to(torch.int8), name + ".scale": scale.half()}
        else:
            packed[name] = {name: t.half()}
    size = {name: sum(t.numel() * t.element_size() for t in entries.values()) for name, entries in packed.items()}
    total, filled, split = sum(size.values()), 0, [{} for _ in range(parts)]
    for name, entries in packed.items():  # in order, each part about total / parts
        split[min(parts - 1, filled * parts // total)].update(entries)
        filled += size[name]
    return split


def unpack(stored):
    """The inverse of pack over all its parts joined: {name: float32 tensor}."""
    weights = {name: t.float() for name, t in stored.items() if not name.endswith((".int8", ".scale"))}
    for name in [n[:-len(".int8")] for n in stored if n.endswith(".int8")]:
        weights[name] = stored[name + ".int8"].float() * stored[name + ".scale"].float()
    # float32, as the packages store it: transformers loads a checkpoint in its stored dtype
    return {name: t.contiguous() for name, t in weights.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("verb", choices=["pack", "unpack"])
    p.add_argument("checkpoint", help="the float32 model.safetensors (read by pack, written by unpack)")
    p.add_argument("files", nargs="+", help="pack: the output prefix; unpack: the packed parts")
    p.add_argument("--parts", type=int, default=1)
    args = p.parse_args()
    if args.verb == "pack":
        for i, part in enumerate(pack(load_file(args.checkpoint), args.parts), 1):
            path = f"{args.files[0]}.int8.safetensors" if args.parts == 1 else f"{args.files[0]}-{i}.int8.safetensors"
            save_file(part, path, metadata={"format": "pt"})
            print(path)
    else:
        stored = {}
        for path in args.files:
            stored.update(load_file(path))
        save_file(unpack(stored), args.checkpoint, metadata={"format": "pt"})


if __name__ == "__main__":
    main()
