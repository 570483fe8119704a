"""
The run's plan: the command line's options, checked, and everything decided from them, the task and
the checkpoint before anything is computed (its method, rate, protocol, pooling, device, precision,
whether its inputs come from the frozen-prefix cache, and where its result goes). This is the last
code that reads the command line: every step of freeze_study.run after it reads the Plan.
"""

import argparse
import math
import os
import sys
from dataclasses import dataclass

import torch

import atomic
import checkpoint
from parts import families
import hub
import machine
import metrics
import methods
import protocol
import result
import trainable


# ----------------------------------------------------------------------------------------------
# The command line

def parse_args(argv):
    return parser().parse_args(argv)


def parser():
    p = argparse.ArgumentParser(description="One run of the layer-freezing study.")
    p.add_argument("--dataset", help="sst2 (the default), cola, mrpc, stsb or rte (GLUE); with --train-file, the task's "
                   "name in the record (without it, the train file's name and a hash of it)")
    p.add_argument("--model", default="roberta-base",
                   help="hub name, local checkpoint folder, 'minilm' (offline all-MiniLM-L6-v2) or 'mpnet' (all-mpnet-base-v2: make mpnet)")
    p.add_argument("--freeze", type=int,
                   help="-1: embeddings only; 0: nothing (the default); k: embeddings and the first k layers (LoRA never "
                        "trains the embeddings, so under it -1 is 0's computation with them cached; BitFit at -1 leaves "
                        "their biases frozen); a probe's default and only depth: every layer")
    p.add_argument("--size", type=train_size, default=50,
                   help="training examples (a stratified subset), or 'all': the whole train split")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--reinit", type=int, default=0, help="reset the top N layers before fine-tuning (k + N <= L)")
    p.add_argument("--protocol", choices=["blog", "lee"],
                   help="blog: the blog study's (the default); lee: Lee et al. 2019's (see protocol.py)")
    p.add_argument("--epochs", type=int, help="default: the protocol's (blog 10; lee 3 for BERT, 10 for RoBERTa)")
    p.add_argument("--lr", type=float, help="default: the method's at this train size (python -m methods lists them)")
    p.add_argument("--batch-size", type=int, help="default: the protocol's, 16")
    add_task_options(p)
    p.add_argument("--out", help="result JSON (default results/<task>/<model>/ and the run's name, result.py; the task "
                                 "is --dataset, or the train file's name and a hash of it), a new file unless --overwrite")
    p.add_argument("--overwrite", action="store_true", help="run again where the result file exists, replacing it")
    p.add_argument("--method", choices=methods.NAMES, default=methods.FINETUNE.name,
                   help="finetune: the protocol's head and fine-tune (the default); lora, bitfit: trainable.py; setfit: "
                        "SetFit's contrastive fine-tuning, then a logistic-regression head (contrastive.py); setfit-fast: "
                        "the same with every pair among 32 distinct sentences a step, at an eighth of the cost; probe (with "
                        "--freeze L): a linear model fitted to the frozen model's sentence embedding (probe.py)")
    p.add_argument("--probe", dest="method", action="store_const", const=methods.PROBE.name,
                   help="the same as --method probe")
    for name, default in trainable.LORA_DEFAULTS.items():  # --lora-rank, --lora-alpha, --lora-dropout, --lora-targets
        p.add_argument(f"--lora-{name}", type=type(default) if name != "targets" else str, default=default,
                       nargs="+" if name == "targets" else None, help=f"--method lora (default {default})")
    p.add_argument("--num-iterations", type=int,
                   help="--method setfit, setfit-fast: num_iterations x n pairs of each kind instead of setfit's oversampling")
    p.add_argument("--pooling", choices=["first", "mean"],
                   help="what stands for a sentence: its first token or the mean of its tokens. Default: the "
                        "first token for finetune, lora and bitfit (as the studies' classifiers read it); for probe and "
                        "setfit the checkpoint's own sentence embedding (its sentence-transformers files)")
    p.add_argument("--save", metavar="DIR", help="also keep what the run trained in the new folder DIR, which predict.py "
                   "labels a CSV with: finetune, lora (merged into its weights) and bitfit as a transformers "
                   "classifier; setfit and probe as a sentence-transformers body and their fitted head (head.json)")
    p.add_argument("--no-cache", action="store_true",
                   help="run the whole network every step, frozen layers in training mode (the Trainer's way)")
    p.add_argument("--cache-dir", default="cache", help="frozen-prefix and token-id cache")
    p.add_argument("--splits-dir", help="the drawn training subsets (default splits; not with --size all)")
    p.add_argument("--precision", choices=["fp16", "bf16", "fp32"],
                   help="default: fp16 mixed precision on CUDA (the study's); on a CPU, bf16 mixed precision "
                        "where it multiplies bfloat16 natively (AVX512-BF16, AMX), else fp32")
    p.add_argument("--device", help="cpu, cuda, cuda:1, ... (default: cuda if available)")
    p.add_argument("--evaluations", choices=["every", "last"], default="every",
                   help="every: the dev split every half epoch (the study's best of them); last: only the last of "
                        "those, the fair score, and no step after it (make advise reads nothing else)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.error = lambda message: fail(message)  # one line, not argparse's usage block
    return p


def add_task_options(p):
    """Where the task's examples come from: GLUE's files, or your own, and what judges it."""
    p.add_argument("--glue-dir", help="local GLUE folder (SST-2/, CoLA/, MRPC/, STS-B/, RTE/); default $GLUE_DIR, else the hub")
    p.add_argument("--train-file", help="your own task: a CSV/TSV with a header (with --dev-file, or --folds or --final)")
    p.add_argument("--dev-file")
    p.add_argument("--folds", type=int, help="one labelled file, no --dev-file: its subset cut into this many stratified "
                   "folds, and the run with --seed s (1..folds) scored on fold s, trained on the others (make advise "
                   "TRAIN_FILE alone)")
    p.add_argument("--final", action="store_true", help="train on every label given: the subset and the dev file "
                   "together (one file: the whole subset), scored on --test-file, else on what it trained on")
    p.add_argument("--test-file", help="your own task: a third file with the same columns, scored once at the end "
                                       "with the chosen weights; no choice reads it (make advise's TEST_FILE)")
    p.add_argument("--text-column", help="your own task: the texts' column (default: the header's 'sentence' or 'text')")
    p.add_argument("--text-pair-column", help="your own task: the second text of a sentence pair")
    p.add_argument("--label-column", default="label",
                   help="integer classes 0..C-1, or class names (numbered in sorted order; other integers, stars 1..5: numeric order)")
    p.add_argument("--regression", action="store_true", help="your own task: the labels are numbers to predict")
    p.add_argument("--metric", choices=metrics.NAMES,
                   help="what your task is judged by: it picks a run's evaluation and the report's answer "
                        "(default: the task's own; accuracy for your files, MCC for CoLA, F1 for MRPC, Pearson for STS-B)")


def train_size(text):
    size = result.train_size(text)
    if size is None:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a positive number of examples nor all")
    return size


def fail(message):
    print(f"freeze_study.py: error: {message}", file=sys.stderr)
    sys.exit(2)


@dataclass
class Plan:
    """What a run decides once, from its options, its task and its checkpoint, before it computes
    anything. Every step after it reads the plan, never the command line."""
    options: dict  # the command line's options, defaults resolved: what the record says of them
    method: methods.Method
    method_options: dict  # the method's own settings (LoRA's rank, ...), as trainable.py reads them
    folder: str  # the checkpoint's folder
    freeze: int  # -1: the embeddings; 0: nothing; k: the embeddings and the first k layers
    reinit: int  # the top layers reset before training
    size: int | str  # the training subset's size, or "all"
    device: torch.device
    precision: str
    precision_chosen: bool  # the user asked for it (else the device's default)
    pooling: str  # what stands for a sentence: its first token, or the mean of its tokens
    normalize: bool  # the sentence embedding is L2-normalised (a sentence embedder's own)
    cached_depth: int | None  # None: the inputs are token ids; k: the frozen prefix's states after k layers
    train_config: protocol.TrainConfig
    max_length: float  # the protocol's (and a sentence embedder's) longest sequence; inf: the model's own
    cache_dir: str
    splits_dir: str  # where the training subsets' indices are kept (data.load_subset)
    out: str  # the result file
    save: str | None  # keep the trained classifier in this new folder
    quiet: bool
    folds: int | None = None  # one labelled file cut into this many folds, the seed's scored (data.fold_of)
    final: bool = False  # trained on every label given (data.every_label)


def plan_run(args, task):
    """Decide the run from its options (checked), its task and its checkpoint."""
    method = methods.get(args.method)
    check_options(args, method, task)
    device, precision = device_and_precision(args)
    folder = hub.checkpoint_folder(args.model)
    config = families.read_config(folder)
    if args.freeze is None:  # none frozen, or for a method that trains no layer, all of them
        args = argparse.Namespace(**{**vars(args), "freeze": config.num_layers if method.every_layer_frozen else 0})
    if method.every_layer_frozen and args.freeze != config.num_layers:
        raise ValueError(f"--method {method.name} fits a linear model to the frozen model's features: use it with "
                         f"--freeze {config.num_layers} (every layer of this model frozen)")
    pooling, normalize, own_max_length = pooling_of(args, method, folder, config)
    check_save(args, method, pooling, config)
    options = resolved_options(args, method, config, task)
    train_config, max_length = protocol.config(options["protocol"], config.model_type,
                                               epochs=args.epochs, batch_size=args.batch_size, lr=options["lr"],
                                               seed=args.seed, precision=precision, metric=args.metric or task.metric,
                                               num_iterations=args.num_iterations)
    train_config.evaluations = args.evaluations
    train_config.eval_batch_size = machine.eval_batch_size(device)
    # frozen layers are read from the cache (--no-cache runs them every step, the Trainer's way; a
    # method that trains nothing always reads it)
    cached = args.freeze != 0 and (method.every_layer_frozen or not args.no_cache)
    return Plan(options, method, {name: options[name] for name in method.options}, folder, args.freeze, args.reinit,
                args.size, device, precision, precision_chosen=args.precision is not None, pooling=pooling,
                normalize=normalize, cached_depth=max(args.freeze, 0) if cached else None, train_config=train_config,
                max_length=min(max_length, own_max_length or math.inf), cache_dir=args.cache_dir,
                splits_dir=args.splits_dir or "splits", out=result_path(args, task, options), save=args.save, quiet=args.quiet, folds=args.folds, final=args.final)


def training_examples(plan, task):
    """How many examples the run trains on: the subset; with --folds, the subset less its largest
    fold (data.fold_of's sizes differ by one at most); with --final, the dev split's too (data.every_label)."""
    n = len(task.train_labels) if plan.size == "all" else plan.size
    if plan.folds:
        return n - math.ceil(n / plan.folds)
    return n + (len(task.dev_labels) if plan.final and task.dev_texts else 0)


def check_examples(plan, task):
    """Refuse, before the subset is drawn, a run on fewer examples than its method can fit (the
    probe's folds); kept out of plan_run, which also plans the frozen checkpoint a search scores."""
    if training_examples(plan, task) < plan.method.fewest_examples:
        raise ValueError(f"--method {plan.method.name} needs {plan.method.fewest_examples} training examples at "
                         f"least ({plan.method.fewest_why}), and this run trains on {training_examples(plan, task)}: "
                         "give a larger --size")


def given_options(args, defaults=None):
    """The options given a value other than their default, the method aside."""
    defaults = defaults or vars(parser().parse_args([]))
    return [name for name, value in vars(args).items() if name != "method" and value != defaults[name]]


def without_misfits(args, method):
    """`args` with each option `method` would refuse (misfit) set back to its default: a search's
    options for its other methods, where `method` runs beside them."""
    defaults = vars(parser().parse_args([]))
    for name in given_options(args, defaults):
        if misfit(name, method):
            setattr(args, name, defaults[name])
    return args


def misfit(name, method):
    """Why `method` does not take the option `name` (another method's own, or one it would ignore), or None."""
    flag = "--" + name.replace("_", "-")
    owners = [other.name for other in methods.METHODS if name in other.options]
    if owners and method.name not in owners:
        return f"{flag} goes with --method {' or '.join(owners)}, not --method {method.name}"
    if name in method.ignores:
        return f"--method {method.name} would ignore {flag}: {method.ignores_why}"
    return None


def check_files(args):
    """Your own files' options that cannot go together, refused in one line before any file is read."""
    if args.train_file and not args.dev_file and args.folds is None and not args.final:
        raise ValueError(f"--train-file {args.train_file} needs --dev-file, the labelled examples every run is scored "
                         "on (make: DEV_FILE=...), or --folds K to be scored on the file's own folds (make advise "
                         "TRAIN_FILE alone cross-validates it)")
    if args.folds is not None and (args.dev_file or not args.train_file):
        raise ValueError("--folds cross-validates one labelled file: it goes with --train-file and no --dev-file")
    if args.folds is not None and args.folds < 2:
        raise ValueError(f"--folds {args.folds}: cross-validating a file takes two folds or more (make advise: FOLDS=2 "
                         "or more; 5 unless set)")
    if args.folds is not None and not 1 <= args.seed <= args.folds:
        raise ValueError(f"--folds {args.folds} --seed {args.seed}: the seed names the fold scored, 1..{args.folds}")
    if args.final and args.folds is not None:
        raise ValueError("--final trains on every label, and --folds holds one fold out: give one of them")
    if args.dev_file and not args.train_file:
        raise ValueError(f"--dev-file {args.dev_file} goes with --train-file, your own training examples "
                         "(make: TRAIN_FILE=...); without both, a run reads GLUE's --dataset")
    if args.test_file and not args.train_file:
        raise ValueError("--test-file goes with your own --train-file and --dev-file: GLUE's test labels are not public")
    given = [flag for flag, value in (("--text-column", args.text_column), ("--text-pair-column", args.text_pair_column),
                                      ("--regression", args.regression)) if value]
    if not args.train_file and given:  # GLUE's tasks name their own columns: the flag would change nothing
        raise ValueError(f"{given[0]} describes your own files: it goes with --train-file")


def check_options(args, method, task):
    """The options that cannot go together, each refused in one line."""
    for name in ("lr", "epochs", "batch_size"):
        if getattr(args, name) is not None and not getattr(args, name) > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive (got {getattr(args, name)})")
    if args.seed < 0:
        raise ValueError(f"--seed {args.seed}: a seed is 0 or more (a result's name reads it as a count)")
    trainable.check_reinit(args.reinit)
    trainable.check_lora_settings(args.lora_rank, args.lora_alpha, args.lora_dropout)  # the defaults unless given
    if args.num_iterations is not None and args.num_iterations < 1:
        raise ValueError("--num-iterations is a positive number of SetFit's pairs per example")
    check_files(args)
    for flag, folder in (("--out", os.path.dirname(args.out or "")), ("--save", os.path.dirname(args.save or "")),
                         ("--cache-dir", args.cache_dir), ("--splits-dir", args.splits_dir or "")):
        atomic.check_can_hold(flag, folder or ".")
    if args.final and args.evaluations != "last":
        raise ValueError("--final trains on every label, the dev split's too: no evaluation can choose its step "
                         "(--evaluations last)")
    if args.size == "all" and args.splits_dir:
        raise ValueError("--size all trains on the whole train split: --splits-dir (subsets) does not apply")
    for name in given_options(args):
        if misfit(name, method):
            raise ValueError(misfit(name, method))
    if task.regression and method.needs_classes:
        raise ValueError(f"{task.name} is a regression task, and --method {method.name} needs classes: use the "
                         "default --method finetune")
    if args.metric and args.metric not in metrics.names_for(task.num_labels):
        raise ValueError(f"--metric {args.metric} does not score {task.name} ({task.num_labels} "
                         f"{'output' if task.regression else 'classes'}): use {', '.join(metrics.names_for(task.num_labels))}")


def device_and_precision(args):
    """Where the run runs, and in which precision: (device, precision)."""
    device = machine.checked_device(args.device)
    precision = args.precision or machine.default_precision(device)
    if precision == "fp16" and device.type != "cuda":
        raise ValueError("--precision fp16 needs a CUDA device; use fp32 (or bf16) on the CPU")
    return device, precision


def pooling_of(args, method, folder, config):
    """(pooling, normalize, longest sequence or None): a method that reads a sentence embedding reads
    the checkpoint's own (its sentence-transformers files); the others, and those without such
    files, read what the family's classifier reads: the first token (a ModernBERT config can say
    the mean)."""
    own = checkpoint.sentence_embedding_spec(folder)
    classifier_reads = "mean" if config.classifier_pooling == "mean" else "first"
    if not method.sentence_embedding:
        return args.pooling or classifier_reads, False, None
    if own == checkpoint.NO_SENTENCE_EMBEDDING:  # no sentence-transformers files: what its classifier reads
        own = dict(own, pooling=classifier_reads)
    if not args.pooling and own["pooling"] not in ("first", "mean"):
        raise ValueError(f"{args.model}'s sentence embedding pools by {own['pooling']}; this tool pools by the "
                         "first token or the mean: pass --pooling first or --pooling mean")
    return args.pooling or own["pooling"], own["normalize"], own["max_length"]


def resolved_options(args, method, config, task):
    """The options as the record says them: the task's name, the method's name, the protocol, the
    rate (the method's own at n; at 'all', n is the train split's examples, which the record keeps)
    and LoRA's default targets (the family's) resolved."""
    targets = args.lora_targets
    if targets == trainable.LORA_DEFAULTS["targets"]:
        targets = list(families.get(config.model_type).lora_targets)
    split_examples = len(task.train_labels)
    return {**vars(args), "dataset": args.dataset or task.name, "method": method.name, "protocol": args.protocol or "blog",
            "lr": args.lr or method.own_lr(args.size, split_examples), "lora_targets": targets,
            "train_split_examples": split_examples}


def result_path(args, task, options):
    """Where the result goes: --out, or results/<task>/<model>/ and the run's name (result.py)."""
    run_name = result.name_of(options)
    out = args.out or result.default_path(task.name, args.model, run_name)
    if result.NAME.fullmatch(os.path.basename(out)) and os.path.basename(out) != run_name.file_name():
        raise ValueError(f"{out}: a result's name says what ran, and this run is {run_name.file_name()} "
                         "(learning rates written as 3e-4, the method's own at this train size left out)")
    if os.path.exists(out) and not args.overwrite:
        raise ValueError(f"{out} exists (a result written before): name a new file (--out), or pass --overwrite to "
                         "run again and replace it")
    return out


def check_save(args, method, pooling, config):
    """What --save will write, checked before any training: a method kept as a classifier writes a
    *ForSequenceClassification checkpoint, which reads the first token (a ModernBERT one, the mean
    too); SetFit and the probe keep the sentence embedding they read (checkpoint.save_embedder)."""
    if (args.save and not method.sentence_embedding and pooling != "first"
            and not families.get(config.model_type).classifier_pools_mean):
        raise ValueError("--save writes a *ForSequenceClassification checkpoint, which reads the first token: "
                         "--pooling mean does not go with it")
    if args.save and os.path.exists(args.save):
        raise ValueError(f"--save {args.save} exists: name a new folder")
