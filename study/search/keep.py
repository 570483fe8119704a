"""
The pick kept (make advise's SAVE, study/search/advise.py): which of its runs' models, where it comes
from, and its move into place.

    the pick's seeds ─► the best on the dev split (search_folder.kept_seed)
        ─► its model as its run saved it (FOLDER/kept/, as the search ran)
           or that seed trained again by the search's own workers (the final model: on every label)
        ─► moved to SAVE, its run's record beside it (SAVE.json), an earlier pick of the search replaced

A --save that holds anything else is refused before any run (check_save).
"""

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, replace

import methods
from atomic import check_can_hold
from study.search import folds
from study.search.search_folder import kept_path, kept_run, kept_seed, options_of, path_of
from study.search.standing import Cell
from study.worker import ROOT


def check_save(save, size, tasks):
    """Refuse before any run a --save that holds what the keep may not replace: anything but a pick
    an earlier search of these runs kept (a result beside it whose task, one of `tasks`, the
    folder's runs', and size are this search's), or where a file stands on its path. ValueError's one line."""
    check_can_hold("--save", os.path.dirname(os.path.abspath(save)))
    if not os.path.exists(save):
        return
    try:
        with open(save + ".json") as f:
            config = json.load(f)["config"]
    except (OSError, ValueError, KeyError):
        raise ValueError(f"--save {save} exists and is no pick a search kept: give another --save, or move it")
    if config.get("task") not in tasks or str(config.get("size")) != str(size):
        raise ValueError(f"--save {save} holds a pick of another search ({config.get('task')}, n = {config.get('size')}): "
                         f"give another --save, or move it")


@dataclass
class Kept:
    """Which model of the pick the keep holds: its seed, the best of `of` on the dev split
    (search_folder.kept_seed); the run that saved it, (its result, the folder it saved), or None
    where an earlier search kept it there already; how it was made: "saved as the search ran it",
    "trained again" (that seed, by the search's workers) or "trained on every label" (the final
    model, seed 1: study/search/folds.py)."""
    seed: int = 1
    of: int = 1
    saved: tuple | None = None
    how: str = "saved as the search ran it"


def earlier_pick(save):
    """The config of the pick an earlier search kept at `save` (its record beside it), or None."""
    if not (os.path.exists(save + ".json") and os.path.isdir(save)):
        return None
    with open(save + ".json") as f:
        return json.load(f)["config"]


def kept_earlier(save, chosen, size, seed, final):
    """Whether an earlier search kept this very pick at `save` (the same cell, size, seed, and final
    or not): then there is nothing to keep again."""
    earlier = earlier_pick(save)
    return earlier is not None and (earlier["method"], earlier["freeze"], earlier["lr"], str(earlier["size"]),
                                    bool(earlier.get("final")), earlier["seed"]) == \
        (chosen.method, chosen.freeze, chosen.lr, str(size), final, seed)


def to_keep(s, chosen, kept, save, final, flags):
    """`kept` (a Kept: the seed to keep) with the run that saved its model: its own, where it saved
    as the search ran (search_folder.kept_run); else that seed trained again into FOLDER/kept/, or
    the final model trained there (`flags`: its run's options, --final among them). Either is
    trained by the search's own workers: a run at another thread count rounds otherwise, and
    training carries the difference on (on STS-B from 200 pairs, a seed trained again in a process
    of its own at 2 threads scored 0.738 on the dev split where the search's run of it at 1 thread
    had scored 0.754). Nothing is trained where an earlier search kept this pick at `save`
    (Kept.saved None)."""
    if kept_earlier(save, chosen, s.size, kept.seed, final):
        return kept, 0
    saved = None if final else kept_run(s.folder, chosen, s.size, kept.seed)
    if saved:  # its own run's model, or the seed trained again by a worker that had nothing to run
        own = saved[0] == path_of(s.folder, chosen, s.size, kept.seed)
        return replace(kept, saved=saved, how="saved as the search ran it" if own else "trained again"), 0
    path = kept_path(s.folder, chosen, s.size, kept.seed, final)
    which = f"the best of its {kept.of}" if kept.of > 1 else "its only run"
    s.echo(f"advise: keeping the pick's seed {kept.seed}" + (" trained on every label" if final else
                                                            f", {which} on the dev split, trained again"))
    shutil.rmtree(path[:-len(".json")], ignore_errors=True)  # what a keep killed before it ended left
    if os.path.exists(path):
        os.remove(path)
    code = s.workers.run_all([path], dict(options_of(chosen, s.shared), save=path[:-len(".json")]), flags, s.echo)
    return replace(kept, saved=(path, path[:-len(".json")]), how="trained on every label" if final else "trained again"), code


def kept_model(s, chosen, picks, save, run_flags, final_flags, metric):
    """The pick's model kept (to_keep): with `final_flags` (the final run's options), the pick trained
    on every label, where it learnt them (folds.unlearnt); else one of its own runs' models, the seed
    best on the dev split, or from one file fold 1's (folds are other data: no seed to choose among).
    Returns (the Kept, its run's exit code, why a final model was not kept or None)."""
    unlearnt = None
    if final_flags:
        kept, code = to_keep(s, chosen, Kept(1, 1), save, True, final_flags)
        unlearnt = None if code else folds.unlearnt(kept.saved[0] if kept.saved else save + ".json", picks, metric)
        if not unlearnt:
            return kept, code, None
        s.echo(f"advise: {unlearnt}")
    one_file = folds.one_file(run_flags)
    seed = 1 if one_file else kept_seed(list(picks.values()), metric)
    kept, code = to_keep(s, chosen, Kept(seed, 1 if one_file else len(picks)), save, False, s.flags)
    return kept, code, unlearnt


def pick_runs(found, chosen):
    """{seed: its run} of the pick's runs the search ended with."""
    model_of = lambda config: config["model"] if chosen.model else ""
    return {r["config"]["seed"]: r for r in found.runs if Cell.of(r["config"], model_of(r["config"])) == chosen}


def named_from(path, shown_from=None):
    """`path` as the user names it from `shown_from`, the folder they typed the command in (None:
    here; make -C DIR: the folder make was called in): relative where it lies below, else whole."""
    folder = os.path.abspath(shown_from or os.getcwd())
    whole = os.path.abspath(path)
    return os.path.relpath(whole, folder) if whole.startswith(folder.rstrip(os.sep) + os.sep) else whole


def predict_py(shown_from=None):
    """How to run predict.py as the search ran: with this Python (the project's .venv under make, where
    a bare `python` may lack torch) and the project's script, each named from `shown_from`."""
    return f"{shlex.quote(named_from(sys.executable, shown_from))} " \
           f"{shlex.quote(named_from(os.path.join(ROOT, 'predict.py'), shown_from))}"


def keep(chosen, run_flags, save, kept, shown_from=None):
    """The pick kept with --save, as the search ran it: to its last evaluation, the score the search
    read (make best keeps the best of every evaluation, the study's). `kept` (a Kept): the run that
    saved it, moved into place. An earlier pick of the same search there (check_save) is replaced
    once the new one is kept. (line for the report, the command to label a CSV with it, its paths
    named from `shown_from`: named_from). A model trained again says its seconds: no search round
    counts them (the report's "Spent" is the search's runs)."""
    shown = named_from(save, shown_from)
    command = (f"{predict_py(shown_from)} --model {shlex.quote(shown)} --input YOUR.csv{text_columns(run_flags)}"
               " --out labelled.csv")
    if kept.saved is None:
        return f"Saved in {shown} (seed {kept.seed}) by an earlier search; label a CSV with `{command}`", command
    earlier = earlier_pick(save)  # another pick of this search, kept before
    into = save + ".new" if earlier else save
    if earlier:  # what a keep killed before its swap left
        shutil.rmtree(into, ignore_errors=True)
        if os.path.exists(into + ".json"):
            os.remove(into + ".json")
    result_path, saved = kept.saved
    os.makedirs(os.path.dirname(os.path.abspath(into)), exist_ok=True)
    shutil.move(saved, into)
    shutil.copyfile(result_path, into + ".json")  # the run's record stays among the search's results
    replaced = ""
    if earlier:
        shutil.rmtree(save)
        os.replace(into + ".json", save + ".json")
        os.replace(into, save)
        replaced = f"; it replaces the earlier pick kept there ({methods.get(earlier['method']).label}, freeze {earlier['freeze']})"
    which = f", the best of the pick's {kept.of} on the dev split" if kept.of > 1 else ""
    how = kept.how if kept.how == Kept.how else f"{kept.how} in {trained_seconds(save):.0f} s"
    return f"Saved in {shown} (seed {kept.seed}{which}, {how}){replaced}; label a CSV with `{command}`", command


def trained_seconds(save):
    """The seconds of the run that trained the model kept at `save` (its record, SAVE.json)."""
    with open(save + ".json") as f:
        return json.load(f)["seconds"]["total"]


def text_columns(run_flags):
    """predict.py's column options as the runs were given them (none: predict.py reads the file's
    'sentence' or 'text' column, as a run does), each with a space before it."""
    return "".join(f" {flag} {shlex.quote(run_flags[run_flags.index(flag) + 1])}"
                   for flag in ("--text-column", "--text-pair-column") if flag in run_flags)


def kept_test_score(save, metric):
    """The kept model's own score on the test file (its record beside it: save.json), or None without one."""
    with open(save + ".json") as f:
        record = json.load(f)
    return (record.get("test_at_score") or {}).get(metric)
