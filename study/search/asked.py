"""
What a search is asked (study/search/advise.py), checked before any run: its train size (all: your
file's examples, as a number), its budget, the test file and FINAL=all where they can go, one
labelled file's folds (study/search/folds.py), and its space: one checkpoint's depths, or several checkpoints' each at
its protocol's (study/search/policy.py's Space); then each of its methods planned on the task as a
run of it would be (checked_runs).
"""

import os
from dataclasses import replace

from atomic import check_can_hold
import methods
import protocol
import result
import tables
from study import slurm
from study.search import folds
from study.search.search_folder import options_of
from study.search.space import joined, space_for
from study.search.standing import Cell

SEARCHED = [method.name for method in methods.METHODS if method.searched]  # a search's methods, unless named


def checked(args, run_flags):
    """(args, run_flags, size, the space) of a search, or ValueError's one line before any run."""
    if not args.folder or args.budget is None:
        raise ValueError("a search needs its results folder and --budget (hours); or --replay FOLDER")
    check_can_hold("the results folder", args.folder)
    if not args.budget > 0:
        raise ValueError(f"--budget must be a positive number of hours (got {args.budget:g})")
    if args.seeds < 1:
        raise ValueError(f"--seeds (make: FOLDS=) is the most seeds a cell gets, 1 or more (got {args.seeds})")
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs (make -j N) is the runs at once, 1 or more (got {args.jobs})")
    if args.slurm:
        slurm.check_counts({"--slurm-max (make: SLURM_MAX=), an array's tasks at once,": args.slurm_max})
    if args.test_file:
        if "--train-file" not in run_flags:
            raise ValueError("--test-file goes with your own --train-file (TRAIN_FILE): GLUE's test labels are not public")
        if not os.path.isfile(args.test_file):
            raise ValueError(f"--test-file {args.test_file}: no such file")
    if args.final and "--train-file" not in run_flags:
        raise ValueError("--final all (FINAL=all) trains the pick on your own --train-file and --dev-file together")
    args, run_flags = one_checkpoint(args, run_flags)
    size = result.train_size(args.size)
    if size is None:
        raise ValueError(f"--size {args.size} (make: SIZE=) is neither a positive number of training examples nor all")
    if size == "all" and "--train-file" in run_flags:  # each method's rate and ladder are set for n (methods.py)
        size = tables.examples_in(run_flags[run_flags.index("--train-file") + 1])
    if folds.one_file(run_flags):  # its folds are the dev splits: a fold a seed
        run_flags = [*run_flags, "--folds", str(args.seeds)]
        folds.check(run_flags, size, args.seeds)
    return args, run_flags, size, replace(space_of(args, size, run_flags), prefer=args.prefer)


def checked_runs(space, size, run_flags, shared, methods_named, configs_there=()):
    """The space without the methods that cannot run the task (SetFit a regression task, the probe
    fewer than 5 training examples: Method.fewest_examples) unless METHODS named them, and each
    method in it planned as its first run will be (`run_flags`: every run's, the test file among
    them), on the task as its runs read it, the test file's labels too: ValueError's one line where
    a run would refuse, before the checkpoints are scored or any run starts. A run refuses the same,
    but only once the search has spent its first rounds. `configs_there`: the records' configs of the runs
    the folder holds, which the search would read as its own: another task (an edited train file)
    or another dev file is refused."""
    from freeze_study import load_task
    from plan import check_examples, parse_args, plan_run, training_examples
    argv_of = lambda cell: (result.RunName(cell.freeze, size, 1, cell.lr, 0, cell.method).flags(options_of(cell, shared))
                            + run_flags)
    first = lambda key: Cell(key[1], max(space.depths[key]), space.own_rate[key], key[0])
    first_args = parse_args(argv_of(first(next(iter(space.depths)))))
    task = load_task(first_args)  # every run reads the same files
    other = sorted({config["task"] for config in configs_there} - {task.name})
    if other:
        raise ValueError(f"the folder holds runs of {other[0]}, and this search's task is {task.name} (your own "
                         "file's name and content name its task: was it edited?): give another results folder")
    other = sorted({config.get("dev") for config in configs_there} - {task.dev_name, None})
    if task.dev_name and other:
        raise ValueError(f"the folder holds runs scored on {other[0]}, and this search's dev file is {task.dev_name} "
                         "(your own file's name and content name it: was it edited?): give another results folder")
    trained_on = training_examples(first_args, task)  # the run's options name its size, folds and final as a plan does
    cannot = lambda method: (task.regression and method.needs_classes) or trained_on < method.fewest_examples
    if not methods_named:
        space = replace(space, depths={key: depths for key, depths in space.depths.items()
                                       if not cannot(methods.get(key[1]))})
    for key in space.depths:
        check_examples(plan_run(parse_args(argv_of(first(key))), task), task)
    return space



def space_of(args, size, run_flags):
    """The policy's space: one checkpoint's (the run options' --model, at --depths), or several's
    (--models, each at its protocol's depths). Refused in one line before any run: an unknown
    checkpoint, two whose folders would collide, --model among the run options beside --models."""
    if not args.models:
        if not args.depths:
            raise ValueError("a search of one checkpoint needs --depths (make's FREEZE), or give --models")
        return space_for(size, max(args.depths), args.depths, args.methods or SEARCHED)
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
        spaces.append(space_for(size, max(depths), depths, args.methods or SEARCHED, model=model))
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
