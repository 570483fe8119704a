"""
make advise from one labelled file (TRAIN_FILE without DEV_FILE), and the final model trained on
every label given:

    labelled.csv ─► its subset (SIZE of it, stratified), cut into K stratified folds (data.fold_of),
                    K = the most seeds a cell gets (--seeds, the grid's 5)
      a run, seed s ─► trained on the other folds, scored on fold s (freeze_study.py --folds K --seed s);
                       every cell's seed 1 reads fold 1: cells are told apart fold by fold, on the
                       same examples (study/paired.py), each fold's prefix the subset's, cached once
      the pick ─► trained once more on the whole subset (freeze_study.py --final): the model kept,
                  and the one scored on your test file, unless it did not learn the labels it
                  trained on (unlearnt): then one of the pick's own runs' models

With a dev file, FINAL=all (--final all) keeps the pick trained on the subset and the dev file
together. The search itself is advise's: a fold is a seed to it, and its honest score the
bootstrap's over the folds' examples, corrected for the choice.
"""

import json

from study.answer import fair_score


def one_file(run_flags):
    """Whether the runs read your own --train-file with no --dev-file: its folds are their dev splits."""
    return "--train-file" in run_flags and "--dev-file" not in run_flags


def check(run_flags, size, folds):
    """The file's subset cut into `folds` folds, refused before any run where a class has fewer
    examples than folds, or the file too few (ValueError's one line naming the file and the class)."""
    import data  # torch: only a search of one file needs it here, so a refused setting answers without it
    import plan as planning
    from freeze_study import load_task
    args = planning.parse_args([*run_flags, "--size", str(size)])
    task = load_task(args)
    data.check_folds(task, data.subset_indices(task, args.size, args.splits_dir or "splits"), folds, args.train_file)


def final_flags(run_flags, test_file):
    """A run's options for the final model: --folds dropped, --final, scored on `test_file` (or None)."""
    at = run_flags.index("--folds") if "--folds" in run_flags else None
    flags = run_flags if at is None else run_flags[:at] + run_flags[at + 2:]
    return [*flags, "--final", *(["--test-file", test_file] if test_file else [])]


def final_of(save, metric):
    """(the examples the kept final model trained on, its score on the test file, or None without one)."""
    with open(save + ".json") as f:
        record = json.load(f)
    return record["config"]["train_examples"], fair_score(record, metric) if record["config"].get("test_file") else None


def final_line(examples, score):
    """The report's line on the final model (final_of's): what it trained on, its score on the test file."""
    return (f"- The model kept is the pick trained once more on every label given, {examples} examples"
            + (f"; on your test file: **{score:.3f}** (one model, no choice read it)." if score is not None else "."))


def unlearnt(record_path, picks, metric):
    """Why the final model (its record at `record_path`) is not to be kept, or None: it scores the
    labels it trained on below the pick's runs' (`picks`: {seed: its run}) mean on the dev examples
    they never trained on, so it did not learn them. The rate and epochs were chosen for SIZE
    examples, and on more labels they take more steps: on counterfactual, LoRA at 1e-2 chosen on
    50 and trained on those and dev.csv's 335 predicted one class for every example."""
    with open(record_path) as f:
        record = json.load(f)
    trained = (record.get("train_at_score") or {}).get(metric)
    unseen = sum(fair_score(run, metric) for run in picks.values()) / len(picks)
    if trained is not None and trained >= unseen:
        return None
    return (f"The pick trained on every label ({record['config']['train_examples']} examples) scored "
            f"{'nothing' if trained is None else f'{trained:.3f}'} on them, below the {unseen:.3f} its runs scored "
            "on dev examples they never trained on: it did not learn them (its rate and epochs were chosen for "
            "fewer), so it is not kept.")
