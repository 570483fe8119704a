"""
A run's result, in one place: the name of the file it is written to (the one grammar of result
names, which the Makefile, the study and the tool share), what the file holds, and the line the run
prints.

A result's file name says what the run was, and nothing else does:

    freeze<k>_size<n>_seed<s>[_lr<rate>][_reinit<N>][_<method>].json

the learning rate only where it is not the method's default at that train size (methods.py; a
probe has none), written as 3e-4; the reset top layers only where there are some; the method's
suffix (methods.py), none for the protocol's fine-tune. Runs that differ in nothing but their seed
form a cell (cell_of), and a report pools them; settings_of names what else a cell's runs must
share (their precision and pooling, SetFit's pairs, LoRA's rank, ...), and check_folder refuses a
run that would mix a folder's cells before it starts. make asks study/grid.py for a grid's names and
for the options each name stands for.

Nothing here imports torch: study/grid.py, which make calls, reads the names here.
"""

import base64
import glob
import json
import os
import re
from dataclasses import dataclass, field, replace

import numpy as np

import methods
import metrics
from atomic import write_atomically
from methods import lr_text

SUFFIXES = {method.suffix: method.name for method in methods.METHODS}
NAME = re.compile(r"freeze(-?\d+)_size(\d+|all)_seed(\d+)(?:_lr([0-9.]+e-?\d+))?(?:_reinit(\d+))?"
                  + "(" + "|".join(re.escape(suffix) for suffix in SUFFIXES) + r")\.json")


def train_size(text):
    """A train size as written (a run's --size, make's SIZES and SIZE): 'all', or a positive number of
    examples as an int; None for anything else, which each way in refuses in its own words."""
    if text == "all":
        return text
    return int(text) if text.isdigit() and int(text) > 0 else None


@dataclass(frozen=True)
class RunName:
    """What a run's file name says: the options that make a run, less those every run of a grid shares."""
    freeze: int
    size: int | str  # a number of examples, or "all"
    seed: int
    lr: float | None = None  # None: the method's default rate
    reinit: int = 0
    method: str = methods.FINETUNE.name  # a name of methods.py's table
    # at size 'all', the train split's examples, which set the method's own rate (Method.own_lr; None:
    # not known, read as thousands); not part of what the name says, so not of what tells runs apart
    split_examples: int | None = field(default=None, compare=False, repr=False)

    def file_name(self):
        """The name, its rate left out where it is the method's own (methods.Method.own_lr)."""
        return self.written(rate=self.lr not in (None, methods.get(self.method).own_lr(self.size, self.split_examples)))

    def written(self, rate):
        return (f"freeze{self.freeze}_size{self.size}_seed{self.seed}"
                + (f"_lr{lr_text(self.lr)}" if rate else "")
                + (f"_reinit{self.reinit}" if self.reinit else "")
                + methods.get(self.method).suffix + ".json")

    def flags(self, shared=None):
        """freeze_study.py's options for this run, and of `shared` ({option: value}, a grid's options
        for every run: EPOCHS, PROTOCOL, the subsets' folder, SetFit's pairs) those that apply to it:
        those its method reads (another method's own option, such as SetFit's pairs, is not), and the
        subsets' folder but for the whole train split."""
        method = methods.get(self.method)
        ignored = set(method.ignores) | (set(methods.OPTIONS) - set(method.options)) \
            | ({"splits_dir"} if self.size == "all" else set())
        return (["--freeze", str(self.freeze), "--size", str(self.size), "--seed", str(self.seed)]
                + (["--lr", lr_text(self.lr)] if self.lr is not None else [])
                + (["--reinit", str(self.reinit)] if self.reinit else [])
                + method.flags()
                + [text for name, value in (shared or {}).items() if value is not None and name not in ignored
                   for text in ("--" + name.replace("_", "-"), str(value))])


def parse_name(name):
    """The RunName a result's file name stands for, or None when it is not a run's name (or is not
    written as this module writes it: a name is read back only if it is written back the same)."""
    match = NAME.fullmatch(os.path.basename(name))
    if not match:
        return None
    freeze, size, seed, lr, reinit, suffix = match.groups()
    run = RunName(int(freeze), size if size == "all" else int(size), int(seed), float(lr) if lr else None,
                  int(reinit or 0), SUFFIXES[suffix])
    # at 'all', a rate is left out where it is the method's own for the train split's examples, which
    # the name does not say (a file of 150, GLUE's thousands): a rate written there is read as written
    written = {run.file_name()} | ({run.written(rate=True)} if run.size == "all" and run.lr is not None else set())
    return run if os.path.basename(name) in written else None


def method_of(config):
    """The name of the method a run used (methods.py), from its recorded configuration."""
    return config["method"]


# What else changes a run's answer beyond what its name says (and each method's own, methods.py):
# runs that differ in one of these are two experiments, never one cell's seeds
SETTINGS = ("pooling", "precision", "normalize", "folds")  # folds: one file's folds, or None: a dev split


def settings_of(config):
    """{setting: its value as text} for every setting a cell's runs must share."""
    names = SETTINGS + methods.get(method_of(config)).settings
    values = {name: config.get(name) for name in names}
    return {name: ",".join(value) if isinstance(value, list) else str(value) for name, value in values.items()}


def name_of(config):
    """The RunName of a run's configuration (freeze_study.py's options, or a result's config)."""
    method = method_of(config)
    split_examples = config.get("train_split_examples") if config["size"] == "all" else None
    lr = None if config["lr"] == methods.get(method).own_lr(config["size"], split_examples) else config["lr"]
    return RunName(config["freeze"], config["size"], config["seed"], lr, config["reinit"], method, split_examples)


def cell_of(config):
    """A run's cell, the runs a report pools: its name less its seed (None for a record too old to say)."""
    try:
        return replace(name_of(config), seed=None)
    except KeyError:
        return None


def cell_of_name(path):
    """A result path's cell: (its folder, its name less its seed), or None where it is not a run's name."""
    run = parse_name(path)
    return None if run is None else (os.path.dirname(os.path.abspath(path)), replace(run, seed=None))


def mixed_setting(configs):
    """(a setting of settings_of, its values) where runs of one cell differ in it, else None. A
    record too old to hold a setting is not counted against the others."""
    settings = [settings_of(config) for config in configs]
    for name in settings[0]:
        values = sorted({those[name] for those, config in zip(settings, configs) if name in config})
        if len(values) > 1:
            return name, values
    return None


def model_label(model):
    """'roberta-base', 'minilm', 'FacebookAI/roberta-base' -> 'roberta-base', ./ckpt/ -> 'ckpt'."""
    return os.path.basename(os.path.normpath(model))


def default_path(task_name, model, run):
    return os.path.join("results", task_name, model_label(model), run.file_name())


# ----------------------------------------------------------------------------------------------
# The record

def build(config, task, history, trainable, total, seconds, peak_memory_mb, processor, versions):
    """The result JSON: the run's configuration, its score (the metric it is judged by, the task's
    own unless --metric names another, at the chosen evaluation) with every other metric there and on the training subset, the curve, and
    what the run cost. history: what training returned (loop.TrainResult)."""
    curve, chosen = history.curve, history.chosen
    names = [name for name in metrics.NAMES if name in chosen]
    method = methods.get(method_of(config))
    result = dict(
        config=config, metric=config["metric"], score=chosen[config["metric"]], score_step=chosen["step"],
        selection=method.name if method.scored_once else config["selection"],  # scored once, or the protocol's
        **({method.name: history.details} if history.details is not None else {}),  # the probe's fit, SetFit's pairs
        at_score={name: chosen[name] for name in names},  # every metric at that evaluation
        # the training subset, scored with the weights of that evaluation: the gap shows over-fitting
        train_at_score=history.train_scores,
        test_at_score=history.test_scores,  # --test-file, scored with those weights; no choice reads it (make advise)
        # per example, the truth and the model's outputs, on the dev split at the fair point and on the
        # test file: what make advise compares cells on, example by example (outputs_in reads them)
        predictions=dict(dev=encoded_outputs(task.dev_labels, history.dev_outputs),
                         test=encoded_outputs(task.test_labels, history.test_outputs))
        if history.dev_outputs is not None else None,
        best={name: max(point[name] for point in curve or [chosen]) for name in names},  # each metric's own best
        # the fair score (the last evaluation, or the one score) on the dev split's two fixed halves (make advise)
        dev_halves=(curve[-1] if curve else chosen).get("halves"),
        constant=metrics.constant_scores(task.dev_labels, task.num_labels),  # what one class for all scores
        dev_size=len(task.dev_labels),  # how far the dev split alone moves a score (study/answer.py)
        label_names=task.label_names, curve=curve, train_losses=history.losses,
        total_steps=history.total_steps, warmup_steps=history.warmup_steps, eval_every=history.eval_every,
        trainable_parameters=trainable, total_parameters=total,
        # what training holds beyond the frozen model, exactly: the trained weights and their gradients
        # (float32) and the optimizer's state; the process's peak below is too coarse to show it on a CPU
        training_memory_mb=None if history.optimizer_state_bytes is None else dict(
            parameters=round(trainable * 4 / 2**20, 3), gradients=round(trainable * 4 / 2**20, 3),
            optimizer=round(history.optimizer_state_bytes / 2**20, 3)),
        seconds=dict(prefix=round(seconds["prefix"], 3), train=round(history.train_seconds, 3),
                     eval=round(history.eval_seconds, 3), total=round(seconds["total"], 3)),
        # the texts the frozen prefix ran through in its seconds (0: the cache held them): they price
        # a trained layer before any has run (study/search/space.py's layer_seconds)
        prefix_texts=seconds["prefix_texts"],
        peak_memory_mb=round(peak_memory_mb, 1), processor=processor, versions=versions,
    )
    if not task.regression:  # the blog study's figures: the best accuracy (and MCC) of the run
        best = max(curve or [chosen], key=lambda point: point["accuracy"])
        result.update(best_accuracy=best["accuracy"], mcc_at_best=best["mcc"], best_step=best["step"],
                      best_mcc=result["best"]["mcc"],
                      majority_accuracy=float(np.bincount(task.dev_labels).max() / len(task.dev_labels)))
    return result


# ----------------------------------------------------------------------------------------------
# Per-example outputs, compact: a run's record holds them in a few kilobytes

# a classification's probabilities are kept for its likeliest classes only past this many classes
# (CLINC150's 150: the rest of each row are near 0); its predicted class is kept whole
TOP_CLASSES = 10


@dataclass
class Outputs:
    """One split's per-example record: the truth, the prediction scored (a class, or a score for
    regression), and the class probabilities (N, C) for classification (None for regression; past
    TOP_CLASSES classes, the likeliest TOP_CLASSES of each row, the others 0)."""
    truth: np.ndarray
    predicted: np.ndarray
    probabilities: np.ndarray | None


def packed(array, dtype):
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode()


def unpacked(text, dtype, shape):
    return np.frombuffer(base64.b64decode(text), dtype=dtype).reshape(shape)


def encoded_outputs(truth, outputs):
    """A split's truth and outputs (loop.outputs_of's: (N, C) probabilities, or (N,) scores) as the
    record keeps them: base64 of little arrays, the probabilities in float16; None without outputs."""
    if outputs is None:
        return None
    if outputs.ndim == 1:  # regression: the scores themselves
        return dict(n=len(outputs), classes=1, truth=packed(truth, "<f4"), predicted=packed(outputs, "<f4"))
    n, classes = outputs.shape
    kept = min(classes, TOP_CLASSES)
    top = np.argsort(-outputs, axis=1, kind="stable")[:, :kept] if kept < classes else np.arange(classes)[None].repeat(n, 0)
    return dict(n=n, classes=classes, truth=packed(truth, "<u2"), predicted=packed(outputs.argmax(-1), "<u2"),
                top=packed(top, "<u2") if kept < classes else None,
                probabilities=packed(np.take_along_axis(outputs, top, axis=1), "<f2"))


def outputs_in(record, split="dev"):
    """The Outputs a run's record holds for `split` (dev, or test: the test file), or None for a
    record without them (a run from before they were kept, or no test file)."""
    kept = (record.get("predictions") or {}).get(split)
    if not kept:
        return None
    n, classes = kept["n"], kept["classes"]
    if classes == 1:
        return Outputs(unpacked(kept["truth"], "<f4", (n,)), unpacked(kept["predicted"], "<f4", (n,)), None)
    width = min(classes, TOP_CLASSES)
    probabilities = np.zeros((n, classes), dtype=np.float32)
    top = unpacked(kept["top"], "<u2", (n, width)) if kept.get("top") else np.arange(classes)[None].repeat(n, 0)
    np.put_along_axis(probabilities, top.astype(np.int64), unpacked(kept["probabilities"], "<f2", (n, width)), axis=1)
    return Outputs(unpacked(kept["truth"], "<u2", (n,)).astype(np.int64),
                   unpacked(kept["predicted"], "<u2", (n,)).astype(np.int64), probabilities)


def summary_line(result, path):
    """'best dev accuracy 0.7787 (mcc 0.5590, f1 0.7753) at step 70, train accuracy 0.9700 | ...'"""
    metric, at_score = result["metric"], result["at_score"]
    others = ", ".join(f"{name} {value:.4f}" for name, value in at_score.items() if name != metric)
    return (f"{result['selection']} dev {metric} {at_score[metric]:.4f} ({others}) at step {result['score_step']}, "
            f"train {metric} {result['train_at_score'][metric]:.4f} | {result['trainable_parameters']:,} of "
            f"{result['total_parameters']:,} parameters trained | {result['seconds']['total']:.1f}s | {path}")


def write(path, result):
    write_atomically(path, lambda f: f.write(json.dumps(result, indent=1).encode()))


def log_of(path):
    """A run's log, beside its result file: what it printed (make's rule and study/worker.py write it)."""
    return path.removesuffix(".json") + ".log"


# ----------------------------------------------------------------------------------------------
# What a folder of runs may hold

def check_folder(folder, config, precision_chosen):
    """Refuse a run that would mix a folder's cells: one task, one dev file, one precision and one
    metric per folder, one pooling per method (the recipe may read the first token where the probe reads the
    mean, never two of one method), and one value of each of settings_of per cell. config: the
    run's, as recorded (at least its name's fields and its settings). precision_chosen: whether the
    user asked for the precision (else the default)."""
    cell, settings = cell_of(config), settings_of(config)
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        if os.path.isdir(path[:-len(".json")]):
            continue  # a pick kept beside its model (make best, make advise: SAVE.json): no run of this folder's
        try:
            with open(path) as f:
                theirs = json.load(f)["config"]
            their_precision, their_pooling, their_method = theirs["precision"], theirs["pooling"], method_of(theirs)
        except (ValueError, KeyError, TypeError, OSError):
            continue  # not a run result; the report names such files
        name = os.path.basename(path)
        if None not in (theirs.get("task"), config.get("task")) and theirs["task"] != config["task"]:
            raise ValueError(f"{folder} holds runs of {theirs['task']} ({name}) and this one is of {config['task']}: a "
                             "folder holds one task's runs (your own file's name and content name its task: was it "
                             "edited?); write elsewhere (--out, make: RESULTS=...)")
        if None not in (theirs.get("dev"), config.get("dev")) and theirs["dev"] != config["dev"]:
            raise ValueError(f"{folder} holds runs scored on {theirs['dev']} ({name}) and this one is scored on "
                             f"{config['dev']}: a folder's runs are scored on one dev split (your own file's name "
                             "and content name it: was it edited?); write elsewhere (--out, make: RESULTS=...)")
        if their_precision != config["precision"]:
            raise ValueError(f"{folder} holds {their_precision} runs ({name}) and this run would be {config['precision']}"
                             f"{'' if precision_chosen else ' (the default here)'}: pass --precision {their_precision} "
                             f"(make: PRECISION={their_precision}) to add to them, or write elsewhere (--out, make: RESULTS=...)")
        if None not in (theirs.get("metric"), config.get("metric")) and theirs["metric"] != config["metric"]:
            raise ValueError(f"{folder} holds runs judged by {theirs['metric']} ({name}) and this one would be judged "
                             f"by {config['metric']}: a folder's answer reads one metric; pass --metric {theirs['metric']} "
                             f"(make: METRIC={theirs['metric']}) to add to them, or write elsewhere (--out, make: RESULTS=...)")
        method = method_of(config)
        if their_method == method and their_pooling != config["pooling"]:
            raise ValueError(f"{folder} holds {method} runs pooled by the {their_pooling} ({name}) and this one would "
                             f"pool by the {config['pooling']}: pass --pooling {their_pooling} to add to them, or "
                             "write elsewhere (--out, make: RESULTS=...)")
        if cell_of(theirs) != cell:
            continue
        mixed = mixed_setting([theirs, config])
        if mixed:
            setting, _ = mixed
            raise ValueError(f"{folder} holds this cell's runs with {setting} {settings_of(theirs)[setting]} ({name}) "
                             f"and this one would have {settings[setting]}: a cell's seeds share their settings; "
                             "match them, or write elsewhere (--out, make: RESULTS=...)")
