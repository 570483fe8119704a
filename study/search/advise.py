"""
`make advise`: the grid's answer for one train size without the grid, and with several
checkpoints, which checkpoint too. The search (study/search/rounds.py) runs the runs the policy
(study/search/policy.py) asks for, round by round, as ordinary runs in ordinary results folders (the
report reads them, a later `make grid` reuses them), until the answer is decided or the budget
spent; then this module keeps the pick and writes its report (study/search/advise_report.py). Before
any run, each checkpoint's layers are scored without training (study/search/prior.py: the report's table,
and the order the checkpoints are screened in), and a checkpoint that cannot take the task refused.

    make advise DATASET=sst2 MODEL=minilm SIZE=200 BUDGET=2
    make advise DATASET=sst2 MODEL="minilm mpnet" SIZE=200 BUDGET=2       (which checkpoint too)
    python -m study.search.advise results/sst2/minilm --size 200 --budget 2 --depths -1 0 1 2 3 4 5 6 -- RUN_OPTIONS
    python -m study.search.advise results/sst2/minilm+mpnet --models minilm mpnet --size 200 --budget 2 -- RUN_OPTIONS
    python -m study.search.advise --replay docs/results/sst2-minilm/runs [MORE GRIDS] --size 200   (study/search/replay.py)

    from study.search.advise import advise                                       (a notebook's way in)
    advice = advise(("train.csv", "dev.csv"), ["minilm", "mpnet"], size=200, budget=2, folder="results/mine")

Picked on the whole dev split, cells told apart on its examples: every run keeps its outputs on
each dev example (result.outputs_in), so two cells are compared by their paired difference
(study/paired.py) and the pick's honest score is the bootstrap's, corrected for having been chosen
(BBC). The answer is the cell of the highest mean, unless choosing the highest gains nothing over
SetFit fast's defaults on the examples each choice left out (study/search/standing.py's
answer_of); PREFER=cost (--prefer cost), the cheapest cell within noise of the best, the grid
report's. A folder a search of the halves began (its runs keep
no outputs) is read as then: picked on the first half, judged on the second (search_folder.reading).
A run evaluates once (--evaluations last): the search reads nothing else. With several
checkpoints, each one's runs go to a folder of its own inside the search's (study/search/search_folder.py),
at its protocol's depths. A folder holds one search at a time (a lock file names its process).
"""

import argparse
import os
import signal
import sys
import time
from dataclasses import dataclass

import methods
import result
from atomic import check_can_hold
from study import grid, serve, slurm, worker
from study.progress import make_jobs
from study.search import asked, folds, policy, prior
from study.search.advise_report import REPORT, scored_on, scores_on_test, write_report
from study.search.given import as_csv, parts_of, removed_if_refused
from study.search.keep import check_save, keep, kept_model, kept_test_score, pick_runs
from study.search.lock import holder, refuse_if_held, take_lock
from study.search.rounds import Search, search
from study.search.search_folder import TEST, drop_kept, options_of, path_of, reading, runs_by_cell
from study.search.standing import Cell
from study.search.space import models_of, ordered

LOCK = "advise.lock"


# ----------------------------------------------------------------------------------------------
# The command line, and the Python call

def parser():
    p = argparse.ArgumentParser(prog="python -m study.search.advise", description="The grid's answer at one train size, "
                                "searched cheapest first (make advise), or replayed over committed grids' runs.")
    p.add_argument("folder", nargs="?", help="the results folder the search's runs go to")
    p.add_argument("--size", required=True, help="the train size (a number, or all)")
    p.add_argument("--budget", type=float, help="hours of the runs' own seconds (each run's wall clock)")
    p.add_argument("--models", nargs="+", metavar="MODEL", help="the checkpoints to choose among (make advise "
                   "MODEL=\"minilm mpnet\"), each at its protocol's depths, its runs in FOLDER/<its name>")
    p.add_argument("--methods", nargs="+", choices=methods.NAMES,
                   help="default: every method a search runs (not the library's SetFit; none that needs classes "
                        "on a regression task)")
    p.add_argument("--depths", type=int, nargs="+", help="one checkpoint's depths (make's FREEZE); the deepest is L")
    p.add_argument("--seeds", type=int, default=5, help="the most seeds a cell gets (the grid's 5)")
    p.add_argument("--prefer", choices=("best", "cost"), default="best", help="best: the cell of the highest mean "
                   "unless choosing it gains nothing over SetFit fast's defaults (the default); cost: the cheapest "
                   "cell within noise of the best, the grid report's answer (make advise PREFER=cost)")
    p.add_argument("--jobs", type=int, help="runs at once (default: make -j N's N)")
    p.add_argument("--save", help="where the pick is kept, as make best keeps it (default: saved/FOLDER-nSIZE)")
    p.add_argument("--test-file", help="your labelled test file (with your own --train-file): every run scores it as "
                   "it ends, no choice reads it, and the report gives the pick's seeds' mean there (and the final model's)")
    p.add_argument("--final", choices=("all",), help="all: the pick trained again on every label, the --dev-file's "
                   "too, as the model kept (make advise FINAL=all); with --train-file alone (its folds the dev splits) "
                   "always so")
    p.add_argument("--replay", nargs="+", metavar="FOLDER", help="drive the policy with this grid's runs instead of "
                   "new ones (several grids, one checkpoint each: the checkpoint is chosen too)")
    p.add_argument("--shown-from", metavar="DIR", help="the folder the paths it prints are named from (make -C: the "
                   "folder make was called in); default: here")
    p.add_argument("--slurm", action="store_true", help="each round's runs as a Slurm job array (make advise SLURM=1)")
    slurm.add_options(p, prefix="slurm-")
    grid.add_shared_options(p)
    return p


def runners(args):
    """What runs a round: make -j N's workers here, or a Slurm job array a round (its cluster checked
    before the checkpoints were scored: search_and_keep)."""
    if args.slurm:
        return slurm.Rounds(*slurm.sbatch_options(args, prefix="slurm-"))
    return worker.Workers(args.jobs or make_jobs())


def fail(message):
    print(f"advise: error: {message}", file=sys.stderr)
    sys.exit(2)


class RunFailed(RuntimeError):
    def __init__(self, code):
        super().__init__(f"a run failed (exit code {code}); its log is beside its result file")
        self.code = code


@dataclass
class Advice:
    """What a search answers: its pick (a Cell; .model names the checkpoint where it chose among
    several), whether it decided, the pick's honest score (the bootstrap's, corrected for the
    choice; a search of the halves: the second half's), the kept model's score on the test file
    (None without one), where its runs are, its report, the kept pick, and whether its honest score
    is clear of what a constant prediction scores (False: the examples cannot tell it from a model
    that learnt nothing; None: a search of the halves)."""
    pick: Cell
    decided: bool
    honest_score: float
    test_score: float | None
    folder: str
    report: str
    saved: str
    clear_of_constant: bool | None = None


def zero_training_step(folder, size, space, run_flags, shared):
    """Each checkpoint's layers scored before any run, on the subset its runs train on (study/search/prior.py):
    {checkpoint: its prior}; ValueError's one line where a checkpoint cannot take the task."""
    models = models_of(space)
    subsets = ["--splits-dir", shared["splits_dir"]] if shared["splits_dir"] and size != "all" else []
    argv = {model: [*run_flags, *(["--model", model] if model else []), "--size", str(size), *subsets] for model in models}
    return prior.search_priors(folder, size, argv, {model: model and result.model_label(model) for model in models})


def advise_in(args, run_flags):
    """The search of `args` (parser's) with every run taking `run_flags`: its rounds, the pick's
    seeds on the test file, the pick kept and the report written. Returns its Advice; ValueError
    or RuntimeError with one line where it cannot."""
    args, run_flags, size, space = asked.checked(args, run_flags)
    import machine  # torch, once the settings are checked: a refusal of one answers in a moment
    with machine.one_default_precision():  # every run of it, the kept and final ones too
        return search_and_keep(args, run_flags, size, space)


def search_and_keep(args, run_flags, size, space):
    """advise_in's work once its settings are checked."""
    shared, lock, began = grid.shared_options(args), None, time.time()
    refuse_if_held(args.folder, LOCK)  # before the checkpoints are scored for a search that cannot run
    save = args.save or os.path.join("saved", os.path.basename(os.path.normpath(args.folder)) + f"-n{size}")
    there = [run["config"] for runs in runs_by_cell(args.folder, size, space).values() for run in runs]
    check_save(save, size, {config["task"] for config in there})  # refused before any run
    if args.slurm:
        slurm.check_cluster()  # before the checkpoints are scored (mpnet at n = 200: 10 s on 2 cores) or a file written
    scores_test = ["--test-file", args.test_file] if args.test_file else []  # read by no choice
    space = asked.checked_runs(space, size, run_flags + scores_test, shared, bool(args.methods), there)
    priors = zero_training_step(args.folder, size, space, run_flags, shared)
    space = ordered(space, prior.ranked(priors))
    try:
        lock = take_lock(args.folder, LOCK)
        prior.write_priors(args.folder, size, priors)
        with runners(args) as workers:
            final = folds.one_file(run_flags) or args.final == "all"  # kept: the pick trained on every label
            s = Search(args.folder, size, space, args.budget * 3600, shared,
                       run_flags + ["--evaluations", "last"] + scores_test, workers, args.seeds, keeps_ahead=not final,
                       shown_from=args.shown_from)
            found = search(s)
            if found.code:
                raise RunFailed(found.code)
            observed, runs, metric = found.observed, found.runs, found.metric
            dev_size = reading(runs)[1]
            chosen, decided = policy.pick(found.space, observed, metric, dev_size)
            waiting = None if decided else policy.next_runs(found.space, observed, metric, dev_size, workers.jobs)
            picks = pick_runs(found, chosen)
            test = on_test_file(s, args.test_file, found, chosen, picks, run_flags)
            final_flags = folds.final_flags(run_flags, args.test_file) + ["--evaluations", "last"] if final else None
            kept, code, unlearnt = kept_model(s, chosen, picks, save, run_flags, final_flags, metric)
            if code:
                raise RunFailed(code)
        final, seed = final and not unlearnt, kept.seed
        keep_line, command = keep(chosen, run_flags, save, kept, args.shown_from)
        keep_line = f"{unlearnt} {keep_line}" if unlearnt else keep_line
        drop_kept(args.folder)
        examples, kept_test = folds.final_of(save, found.metric) if final else (None, kept_test_score(save, metric))
        final_line = folds.final_line(examples, kept_test) if final else None
        row = write_report(s, found, chosen, waiting, test, (keep_line, final_line, kept_test, seed), time.time() - began)
        print(command)
        return Advice(chosen, decided, row["honest"], kept_test, args.folder, os.path.join(args.folder, REPORT), save,
                      row["clear_of_constant"])
    finally:
        if lock and holder(lock) == os.getpid():
            os.remove(lock)


def on_test_file(s, test_file, found, chosen, picks, run_flags):
    """The pick's seeds (`picks`, pick_runs') on the test file: (the file, their mean there, how
    many), or None without one. The search's runs scored it as they ended (--test-file, a figure no
    choice read); a seed whose run did not (a folder an older search began) is run again with the
    test file as its dev split."""
    if not test_file:
        return None
    scored = scored_on(test_file, picks, found.metric)
    again = sorted(set(picks) - set(scored))
    if again:
        paths = [path_of(os.path.join(s.folder, TEST), chosen, s.size, seed) for seed in again]
        scored.update(zip(again, scores_on_test(paths, found.metric, options_of(chosen, s.shared), run_flags, test_file,
                                                s.workers)))
    return test_file, sum(scored.values()) / len(scored), len(scored)


# make advise's settings as the Python call names them (TEST_FILE, FINAL, METHODS, -j, PREFER, SAVE, the runs'
# CACHE_DIR, SPLITS_DIR, PRECISION, METRIC, EPOCHS, NUM_ITERATIONS; seeds: the most a cell gets, FOLDS),
# your CSVs' columns, and more freeze_study.py options for every run (run_options); None: make
# advise's default
SETTINGS = dict(test_file=None, final=None, methods=None, jobs=1, seeds=5, prefer="best", save=None, cache_dir="cache", splits_dir="splits",
                precision=None, metric=None, epochs=None, num_iterations=None, text_column="text",
                label_column="label", run_options=())


def advise(data, models, size, budget, folder, **settings):
    """make advise from Python: the search over `models` (a name or path, or several to choose
    among) at n = `size` for at most `budget` hours of runs, its runs in `folder` (the same folder,
    data and settings resume it, one that make advise began too). `data`: (train, dev), each a CSV's
    path, (texts, labels) or a DataFrame (study/search/given.py: what is not a path is kept as
    FOLDER/train.csv and dev.csv); or one labelled file, cross-validated (study/search/folds.py).
    `settings`: SETTINGS' (test_file: a path, (texts, labels) or a DataFrame; final="all": the pick
    kept trained on train and dev together). Returns the Advice (its kept model labels texts:
    predict.predictions(advice.saved, texts)); ValueError with one line where the search cannot run."""
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ValueError(f"advise() takes no {', '.join(unknown)}: its settings are {', '.join(SETTINGS)}")
    given = {name: os.fspath(value) if isinstance(value, os.PathLike) else value  # a notebook's pathlib.Path
             for name, value in {**SETTINGS, **settings}.items()}
    folder = os.fspath(folder)
    check_can_hold("the folder", folder)  # before your texts are written into it
    columns = given["text_column"], given["label_column"]
    parts = dict(zip(("train", "dev"), parts_of(data)))  # each kept as FOLDER/NAME.csv where it is not a path
    if given["test_file"] is not None:
        parts["test"] = given["test_file"]
    targets = {name: os.path.join(folder, f"{name}.csv") for name in parts}
    models = [os.fspath(models)] if isinstance(models, (str, os.PathLike)) else [os.fspath(m) for m in models]
    p = parser()
    p.error = refuse  # a notebook gets the line, not an exit
    with removed_if_refused(folder, [path for path in targets.values() if not os.path.exists(path)]):
        files = {name: as_csv(part, targets[name], columns) for name, part in parts.items()}
        given["test_file"] = files.get("test")
        option = lambda flag, name: [flag, str(given[name])] if given[name] is not None else []
        argv = [folder, "--size", str(size), "--budget", str(budget), "--models", *models, "--jobs", str(given["jobs"]),
                "--seeds", str(given["seeds"]), "--prefer", given["prefer"],
                *option("--test-file", "test_file"), *option("--final", "final"), *option("--save", "save"),
                *option("--splits-dir", "splits_dir"),
                *option("--epochs", "epochs"), *option("--num-iterations", "num_iterations"),
                *(["--methods", *given["methods"]] if given["methods"] else [])]
        run_flags = ["--dataset", os.path.basename(os.path.abspath(folder)),  # the task's name in the report: the folder's
                     "--train-file", files["train"], *(["--dev-file", files["dev"]] if "dev" in files else []), "--text-column",
                     columns[0], "--label-column", columns[1], *option("--cache-dir", "cache_dir"),
                     *option("--precision", "precision"), *option("--metric", "metric"), *given["run_options"]]
        return advise_in(p.parse_args(argv), run_flags)


def refuse(message):
    raise ValueError(message)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ours, run_flags = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    p = parser()
    p.error = fail
    args = p.parse_args(ours)
    try:
        if args.replay:
            from study.search.replay import print_replay
            return print_replay(args.replay, args.size, args.budget, args.prefer)
        advise_in(args, run_flags)
    except RunFailed as e:
        sys.exit(e.code)  # the run said why
    except (ValueError, RuntimeError) as e:
        fail(e)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, serve.interrupted)
    main()
