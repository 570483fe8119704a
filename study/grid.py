"""
A grid's result names, for make: every run of a grid, and the freeze_study.py options each name
stands for, both read from result.py's one grammar of names, so that make and the tool cannot
disagree:

    python -m study.grid names results/sst2/minilm --freeze -1 0 2 --sizes 50 100 --seeds 1 2 3
    python -m study.grid flags freeze2_size50_seed1_lora.json --epochs 10

Nothing here imports torch: make calls it once per run.
"""

import argparse
import os
import sys

import methods
import tables
from result import SUFFIXES, RunName, parse_name, train_size


def grid_names(folder, freeze, sizes, seeds, lrs=(None,), reinits=(0,), probe=False, method=methods.FINETUNE.name,
               split_examples=None):
    """Every result file of a grid, in the order make runs them: each depth, size, seed, rate and
    (at k = 0 only) reset; then, with probe, a probe at the last depth per size and seed. A method
    that runs only with every layer frozen (the probe) runs at the last depth alone. `split_examples`:
    the train file's examples, whose own rate a name leaves out at size 'all' (None: GLUE's split)."""
    freeze = freeze[-1:] if methods.get(method).every_layer_frozen else freeze
    runs = [RunName(k, n, s, lr, r, method, split_examples) for k in freeze for n in sizes for s in seeds for lr in lrs
            for r in (reinits if k == 0 else (0,))]
    runs += [RunName(freeze[-1], n, s, method=methods.PROBE.name) for n in sizes for s in seeds] if probe else []
    return [os.path.join(folder, run.file_name()) for run in runs]


def add_shared_options(parser):
    """The grid's options for every run, which flags() passes on to the runs they apply to."""
    parser.add_argument("--epochs", help="the grid's, for the runs whose method has epochs")
    parser.add_argument("--protocol", help="the grid's, for the runs whose method follows a protocol")
    parser.add_argument("--splits-dir", help="the grid's subsets, for the runs of a subset")
    parser.add_argument("--num-iterations", type=int, help="the grid's SetFit pairs per example, for SetFit's runs")
    parser.add_argument("--model", help="the checkpoint, where a search's runs have several (a grid's own is "
                        "in its run options)")


def shared_options(args):
    return dict(epochs=args.epochs, protocol=args.protocol, splits_dir=args.splits_dir, num_iterations=args.num_iterations,
                model=getattr(args, "model", None))


def shared_argv(shared):
    """shared_options' dict as the command line it was read from (a Slurm task reads it again)."""
    return [flag for name, value in shared.items() if value is not None
            for flag in (f"--{name.replace('_', '-')}", str(value))]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.grid", description="Result file names, for make: a grid's, or one name's options.")
    sub = p.add_subparsers(dest="command", required=True)
    names = sub.add_parser("names", help="every result file of a grid, one per line")
    names.error = lambda message: sys.exit(f"make: {message} (make's FREEZE, SIZES, SEEDS, LRS, REINITS)")
    names.add_argument("folder")
    for option, kind in (("--freeze", int), ("--sizes", str), ("--seeds", int), ("--lrs", float), ("--reinits", int)):
        names.add_argument(option, type=kind, nargs="+", required=option in ("--freeze", "--sizes", "--seeds"))
    names.add_argument("--probe", action="store_true")
    names.add_argument("--method", default=methods.FINETUNE.name, choices=methods.NAMES)
    names.add_argument("--train-file", help="your own task's: how many examples 'all' of it is")
    flags = sub.add_parser("flags", help="the freeze_study.py options a result file's name stands for")
    flags.add_argument("name")
    add_shared_options(flags)
    args = p.parse_args(argv)
    if args.command == "flags":
        run = parse_name(args.name)
        if run is None:
            sys.exit(f"study/grid.py: {args.name} is not a result's name (freeze<k>_size<n>_seed<s>[_lr<rate>]"
                     f"[_reinit<N>][{'|'.join(filter(None, SUFFIXES))}].json, rates written as 3e-4)")
        print(" ".join(run.flags(shared_options(args))))
        return
    bad = [size for size in args.sizes if train_size(size) is None]
    if bad:
        sys.exit(f"make: SIZES: {bad[0]!r} is neither a positive number of training examples nor all")
    for name, values, what in (("SEEDS", args.seeds, "a seed"), ("REINITS", args.reinits or [0], "a count of layers")):
        if min(values) < 0:  # its name would leave it out, or be no result's name
            sys.exit(f"make: {name}: {min(values)} is not {what}: 0 or more")
    sizes = [train_size(size) for size in args.sizes]
    try:
        split_examples = tables.examples_in(args.train_file) if args.train_file and "all" in sizes else None
    except ValueError as e:  # no such file, or not UTF-8
        sys.exit(f"make: TRAIN_FILE: {e}")
    print("\n".join(grid_names(args.folder, args.freeze, sizes, args.seeds, args.lrs or [None],
                               args.reinits or [0], args.probe, args.method, split_examples)))


if __name__ == "__main__":
    main()
