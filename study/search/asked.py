"""
What a search is asked (study/search/advise.py), checked before any run: its train size, its
budget, the test file and FINAL=all where they can go, one labelled file's folds
(study/search/folds.py), and its space: one checkpoint's depths, or several checkpoints' each at
its protocol's (study/search/policy.py's Space).
"""

import os
from dataclasses import replace

import protocol
import result
from study.search import folds
from study.search.space import joined, space_for


def checked(args, run_flags):
    """(args, run_flags, size, the space) of a search, or ValueError's one line before any run."""
    if not args.folder or args.budget is None:
        raise ValueError("a search needs its results folder and --budget (hours); or --replay FOLDER")
    if not args.budget > 0:
        raise ValueError(f"--budget must be a positive number of hours (got {args.budget:g})")
    if args.test_file:
        if "--train-file" not in run_flags:
            raise ValueError("--test-file goes with your own --train-file (TRAIN_FILE): GLUE's test labels are not public")
        if not os.path.isfile(args.test_file):
            raise ValueError(f"--test-file {args.test_file}: no such file")
    if args.final and "--train-file" not in run_flags:
        raise ValueError("--final all (FINAL=all) trains the pick on your own --train-file and --dev-file together")
    args, run_flags = one_checkpoint(args, run_flags)
    if args.size != "all" and not args.size.isdigit():
        raise ValueError(f"--size {args.size} (make: SIZE=) is neither a number of training examples nor all")
    size = args.size if args.size == "all" else int(args.size)
    if folds.one_file(run_flags):  # its folds are the dev splits: a fold a seed
        run_flags = [*run_flags, "--folds", str(args.seeds)]
        folds.check(run_flags, size, args.seeds)
    return args, run_flags, size, replace(space_of(args, size, run_flags), prefer=args.prefer)



def space_of(args, size, run_flags):
    """The policy's space: one checkpoint's (the run options' --model, at --depths), or several's
    (--models, each at its protocol's depths). Refused in one line before any run: an unknown
    checkpoint, two whose folders would collide, --model among the run options beside --models."""
    if not args.models:
        if not args.depths:
            raise ValueError("a search of one checkpoint needs --depths (make's FREEZE), or give --models")
        return space_for(size, max(args.depths), args.depths, args.methods)
    if "--model" in run_flags:
        raise ValueError("give the checkpoints with --models alone, not --model among the run options")
    if args.depths:
        raise ValueError("--depths is one checkpoint's: with --models each checkpoint searches its protocol's depths")
    folders = [result.model_label(model) for model in args.models]
    clashing = sorted({name for name in folders if folders.count(name) > 1})
    if clashing:
        raise ValueError(f"the checkpoints {' and '.join(m for m in args.models if result.model_label(m) in clashing)} "
                         f"would share the folder {clashing[0]}: name them by paths whose last parts differ")
    spaces = []
    for model in args.models:
        depths = protocol.depths_of(model, args.protocol or "blog")
        spaces.append(space_for(size, max(depths), depths, args.methods, model=model))
    return joined(spaces)


def one_checkpoint(args, run_flags):
    """(args, run_flags) with a single --models read as one checkpoint's search: its runs in the
    folder itself (as make advise MODEL=minilm keeps them), at --depths or its protocol's."""
    if args.models and len(args.models) == 1:
        model = args.models[0]
        if not args.depths:
            args.depths = protocol.depths_of(model, args.protocol or "blog")
        args.models, run_flags = None, [*run_flags, "--model", model]
    return args, run_flags
