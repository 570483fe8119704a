"""
One fine-tuning run of the freezing study, start to finish:

    python freeze_study.py --dataset sst2 --freeze 12 --size 50 --seed 7

reads the task (data.py), loads the checkpoint into our encoder (checkpoint.py, model.py), freezes the
embeddings and the first k layers, computes (or reads) their cached output, fine-tunes the rest
with the study's protocol (loop.py), and writes the result as JSON. Offline here:
    python freeze_study.py --model minilm --glue-dir ../shared/glue --freeze 2 --size 200 --seed 1
"""

import argparse
import glob
import importlib.metadata
import json
import math
import os
import platform
import resource
import signal
import sys
import time
from dataclasses import asdict

import numpy as np
import torch

import data
import loop
import machine
import metrics
import probe
import checkpoint
import contrastive
import model as encoder


def parse_args(argv):
    p = argparse.ArgumentParser(description="One run of the layer-freezing study.")
    p.add_argument("--dataset", default="sst2", help="sst2, cola, mrpc, stsb or rte (GLUE); ignored with --train-file")
    p.add_argument("--model", default="roberta-base",
                   help="hub name, local checkpoint folder, or 'minilm' (offline all-MiniLM-L6-v2)")
    p.add_argument("--freeze", type=int, default=0,
                   help="-1: embeddings only; 0: nothing; k: embeddings and the first k layers")
    p.add_argument("--size", type=train_size, default=50,
                   help="training examples (a stratified subset), or 'all': the whole train split")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--reinit", type=int, default=0,
                   help="reset the top N layers to a fresh initialisation before fine-tuning (k + N <= L)")
    p.add_argument("--protocol", choices=["blog", "lee"], default="blog",
                   help="blog: the blog study's (the default); lee: Lee et al. 2019's (see protocol_config)")
    p.add_argument("--epochs", type=int, help="default: the protocol's (blog 10; lee 3 for BERT, 10 for RoBERTa)")
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--glue-dir", help="local GLUE folder (SST-2/, CoLA/, MRPC/, STS-B/, RTE/); default $GLUE_DIR, else the hub")
    p.add_argument("--train-file", help="your own task: a CSV/TSV with a header (needs --dev-file)")
    p.add_argument("--dev-file")
    p.add_argument("--text-column", default="sentence")
    p.add_argument("--text-pair-column", help="your own task: the second text of a sentence pair")
    p.add_argument("--label-column", default="label",
                   help="integer classes 0..C-1, or class names (numbered in sorted order)")
    p.add_argument("--regression", action="store_true", help="your own task: the labels are numbers to predict")
    p.add_argument("--out", help="result JSON (default results/<dataset>/<model>/freeze<k>_size<n>_seed<s>.json)")
    p.add_argument("--probe", action="store_true",
                   help="with --freeze L: fit a linear probe to the frozen model's features instead of training a head")
    p.add_argument("--method", choices=["finetune", "setfit"], default="finetune",
                   help="finetune: the protocol's head and fine-tune (the default); setfit: SetFit's contrastive "
                        "fine-tuning of the body, then a logistic-regression head (setfit's defaults; see contrastive.py)")
    p.add_argument("--num-iterations", type=int,
                   help="--method setfit: num_iterations x n pairs of each kind instead of setfit's oversampling")
    p.add_argument("--pooling", choices=["first", "mean"],
                   help="what stands for a sentence: its first token or the mean of its tokens. Default: the "
                        "first token for finetune (as the studies' classifiers read it); for --probe and "
                        "--method setfit the checkpoint's own sentence embedding (its sentence-transformers files)")
    p.add_argument("--no-cache", action="store_true",
                   help="run the whole network every step, frozen layers in training mode (the Trainer's way)")
    p.add_argument("--cache-dir", default="cache", help="frozen-prefix and token-id cache")
    p.add_argument("--splits-dir", help="the drawn training subsets (default splits; not with --size all)")
    p.add_argument("--precision", choices=["fp16", "bf16", "fp32"],
                   help="default: fp16 mixed precision on CUDA (the study's); on a CPU, bf16 mixed precision "
                        "where it multiplies bfloat16 natively (AVX512-BF16, AMX), else fp32")
    p.add_argument("--device", help="cpu, cuda, cuda:1, ... (default: cuda if available)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--print-freeze-grid", action="store_true",
                   help="print the protocol's freezing depths for --model's depth, and exit (for make grid)")
    p.error = lambda message: fail(message)  # one line, not argparse's usage block
    return p.parse_args(argv)


def train_size(text):
    if text == "all":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a number of examples nor all") from None


def fail(message):
    print(f"freeze_study.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def check_args(args):
    for name in ("lr", "epochs", "batch_size"):
        if getattr(args, name) is not None and not getattr(args, name) > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive (got {getattr(args, name)})")
    if bool(args.train_file) != bool(args.dev_file):
        raise ValueError("--train-file and --dev-file go together")
    if not args.train_file and (args.text_pair_column or args.regression):
        raise ValueError("--text-pair-column and --regression describe your own files: they go with --train-file")
    if args.size == "all" and args.splits_dir:
        raise ValueError("--size all trains on the whole train split: --splits-dir (subsets) does not apply")
    if args.method == "setfit" and args.probe:
        raise ValueError("--probe fits a head to a frozen model, --method setfit fine-tunes it first: pick one")
    if args.num_iterations is not None and (args.method != "setfit" or args.num_iterations < 1):
        raise ValueError("--num-iterations is a positive number of SetFit's pairs per example: it goes with --method setfit")
    try:
        device = torch.device(args.device or machine.pick_device())
    except RuntimeError:
        raise ValueError(f"unknown --device {args.device!r}: use cpu, cuda or cuda:N") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda, but no CUDA GPU is available")
    precision = args.precision or machine.default_precision(device)
    if precision == "fp16" and device.type != "cuda":
        raise ValueError("--precision fp16 needs a CUDA device; use fp32 (or bf16) on the CPU")
    return device, precision


def run_kind(config):
    """What a run is, for the folder's checks: a fine-tune, a probe or a SetFit run."""
    return "probe" if config.get("probe") else config.get("method", "finetune")


def check_results_folder(folder, precision, flag, pooling, kind):
    """A grid's cells pool their seeds, so one results folder holds one precision, and the runs
    of one kind one pooling: refuse to add a bf16 run to fp32 runs (say, a grid begun on another
    machine), or a mean-pooled probe to first-token probes, rather than mix them silently."""
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as f:
                theirs = json.load(f)["config"]
            their_precision = theirs["precision"]
        except (ValueError, KeyError, TypeError, OSError):
            continue  # not a run result; the report names such files
        if their_precision != precision:
            raise ValueError(f"{folder} holds {their_precision} runs ({os.path.basename(path)}) and this run would be "
                             f"{precision}{'' if flag else ' (the default here)'}: pass --precision {their_precision} "
                             f"(make: PRECISION={their_precision}) to add to them, or write elsewhere (--out, make: RESULTS=...)")
        their_pooling = theirs.get("pooling") or "first"  # runs from before --pooling read the first token
        if run_kind(theirs) == kind and their_pooling != pooling:
            raise ValueError(f"{folder} holds {kind} runs pooled by the {their_pooling} ({os.path.basename(path)}) and this "
                             f"one would pool by the {pooling}: pass --pooling {their_pooling} to add to them, or "
                             "write elsewhere (--out, make: RESULTS=...)")


def model_label(name):
    """'roberta-base', 'minilm', 'FacebookAI/roberta-base' -> 'roberta-base', ./ckpt/ -> 'ckpt'."""
    return os.path.basename(os.path.normpath(name))


def freeze_grid(num_layers, protocol="blog"):
    """The blog study's depths: -1 0 2 4 8 10 12 for a 12-layer model, else every depth -1..L.
    Lee et al.'s: 0, then L/2 ... L (the upper half of the model is where freezing starts to cost)."""
    if protocol == "lee":
        return [0] + list(range(num_layers // 2, num_layers + 1))
    return [-1, 0, 2, 4, 8, 10, 12] if num_layers == 12 else list(range(-1, num_layers + 1))


def protocol_config(args, model_type, precision, metric):
    """
    The run's TrainConfig and longest sequence (None: the model's own limit).
    blog: the blog study's protocol, the Trainer's defaults it ran with (../shared/reference/README.md): 10
      epochs, warmup over the first, the best of the evaluations every half epoch.
    lee: Lee, Tang & Lin 2019 as the paper states it: batch 16, AdamW without weight decay, 3
      epochs for BERT-family models and 10 for RoBERTa, the learning rate picked by a line search
      over 1e-5 ... 5e-5 on the full model (give the pick with --lr). What the paper does not
      state comes from transformers' run_glue.py of its time (2019): no warmup, linear decay to 0,
      sequences of at most 128 tokens, the dev score after the last step (not the best one).
    """
    lee = args.protocol == "lee"
    epochs = args.epochs or (10 if not lee or model_type == "roberta" else 3)
    config = loop.TrainConfig(freeze=args.freeze, epochs=epochs, batch_size=args.batch_size, lr=args.lr,
                              seed=args.seed, precision=precision, warmup_epochs=0 if lee else 1,
                              eval_at_end=lee, metric=metric, selection="last" if lee else "best")
    return config, 128 if lee else None


def fit_probe(classifier, train_states, train_labels, dev_states, task, device):
    """The linear probe (probe.py) on the frozen model's sentence embedding (the cached states
    after the last layer, pooled as the checkpoint pools them); shaped as loop.train's history (no
    curve: one fit, one dev score)."""
    began = time.perf_counter()
    L = classifier.config.num_layers
    embed = lambda states: loop.embed_all(classifier, states, L, device, "fp32")  # (N, H): no layer left to run
    fitted = probe.run(embed(train_states), train_labels, embed(dev_states), task.dev_labels,
                       task.num_labels, task.metric)
    return dict(curve=[], chosen=dict(step=0, **fitted["dev"]), train_scores=fitted["train"], losses=[],
                probe=dict(l2=fitted["l2"], C=fitted["C"], cross_validation=fitted["cross_validation"]), total_steps=0,
                warmup_steps=0, eval_every=0, train_seconds=time.perf_counter() - began, eval_seconds=0.0)


def load_task_and_subset(args):
    """The task's splits, the result file's path and the training subset's row indices."""
    if args.train_file:
        task = data.load_csv_task(args.train_file, args.dev_file, args.text_column, args.label_column,
                                  args.text_pair_column, args.regression)
    else:
        task = data.load_glue(args.dataset, args.glue_dir)
    if task.regression and args.method == "setfit":
        raise ValueError(f"{task.name} is a regression task, and SetFit's pairs and head need classes: use the default "
                         "--method finetune")
    out = args.out or os.path.join("results", task.name, model_label(args.model),
                                   f"freeze{args.freeze}_size{args.size}_seed{args.seed}"
                                   + (f"_reinit{args.reinit}" if args.reinit else "") + ("_probe" if args.probe else "")
                                   + ("_setfit" if args.method == "setfit" else "") + ".json")
    return task, data.load_subset(task, args.size, args.splits_dir or "splits"), out


def build_and_freeze(args, task, device, precision):
    """The checkpoint with a fresh head, its first layers frozen (and its top ones reset), on the
    device, pooling as the method reads it; the protocol's TrainConfig and longest sequence."""
    torch.manual_seed(args.seed)  # a fresh head's initial weights, then dropout, come from here
    classifier = checkpoint.from_pretrained(args.model, num_labels=task.num_labels)
    config, protocol_max_length = protocol_config(args, classifier.config.model_type, precision, task.metric)
    # the probe and SetFit read the checkpoint's own sentence embedding; the fine-tune its first token
    own = checkpoint.sentence_embedding_spec(classifier.folder)
    embeds = args.probe or args.method == "setfit"
    if embeds and not args.pooling and own["pooling"] not in ("first", "mean"):
        raise ValueError(f"{args.model}'s sentence embedding pools by {own['pooling']}; this tool pools by the "
                         "first token or the mean: pass --pooling first or --pooling mean")
    # (args records the pooling in the result)
    classifier.pooling = args.pooling = args.pooling or (own["pooling"] if embeds else "first")
    classifier.normalize = embeds and own["normalize"]
    if embeds and own["max_length"]:
        protocol_max_length = min(protocol_max_length or math.inf, own["max_length"])
    if args.probe and args.freeze != classifier.config.num_layers:
        raise ValueError(f"--probe fits a linear model to the frozen model's features: use it with --freeze "
                         f"{classifier.config.num_layers} (every layer of this model frozen)")
    loop.freeze(classifier, args.freeze)
    loop.reinitialize_top(classifier, args.reinit, args.freeze)  # after the head, from the same seed
    if args.method == "setfit":
        classifier.head.requires_grad_(False)  # SetFit fits its own head to the embeddings
    classifier.to(device)
    return classifier, config, protocol_max_length


def tokenize_task(args, classifier, task, indices, protocol_max_length):
    """The subset's and the dev split's token ids, cut at the shortest of the tokenizer's, the
    model's and the protocol's limits; computed once per tokenizer and texts, then read from the
    cache."""
    train = ([task.train_texts[i] for i in indices], task.train_pairs and [task.train_pairs[i] for i in indices])
    dev = (task.dev_texts, task.dev_pairs)
    limit = min(classifier.config.max_length, protocol_max_length or math.inf)

    def tokenize_sets():
        tokenizer = checkpoint.load_tokenizer(classifier.folder)
        max_length = min(tokenizer.model_max_length, limit)
        return max_length, [data.tokenize(tokenizer, texts, max_length, pairs) for texts, pairs in (train, dev)]

    path = data.token_cache_path(args.cache_dir, f"{task.name}-{args.size}", classifier.folder, limit, (train, dev))
    max_length, (train_ids, dev_ids) = data.cached_tokens(path, tokenize_sets)
    return train_ids, dev_ids, max_length


def prefix_is_cached(args):
    """Layers are frozen and read from the cache (--no-cache runs them every step, the Trainer's
    way; a probe has nothing to train and always reads the cache)."""
    return args.freeze != 0 and (args.probe or not args.no_cache)


def frozen_prefix_states(args, classifier, task, train_ids, dev_ids, device, precision):
    """What the trained layers read: the frozen prefix's output, computed once and cached (read
    back on every later run), or the token ids themselves when nothing is frozen or --no-cache."""
    if not prefix_is_cached(args):
        return train_ids, dev_ids
    weights_id = checkpoint.checkpoint_id(classifier.folder)
    return [loop.cached_frozen_prefix(classifier, ids, args.freeze, device, precision,
                                      loop.prefix_cache_path(args.cache_dir, weights_id, name, ids,
                                                             args.freeze, device, precision))
            for name, ids in ((f"{task.name}-train{args.size}", train_ids), (f"{task.name}-dev", dev_ids))]


def run(args, log=print):
    device, precision = check_args(args)
    machine.keep_freed_memory()  # else a full fine-tune faults a 47 MB gradient's pages in at every step
    if device.type == "cuda":
        # cuDNN's attention builds a plan for every new batch shape, and ours change length at
        # every step: on an H100 it made a minilm fp16 step 60 ms instead of 23 (docs/gpu.md)
        torch.backends.cuda.enable_cudnn_sdp(False)
    began = time.perf_counter()
    task, indices, out = load_task_and_subset(args)
    classifier, config, protocol_max_length = build_and_freeze(args, task, device, precision)
    check_results_folder(os.path.dirname(out) or ".", precision, args.precision, args.pooling, run_kind(vars(args)))
    train_ids, dev_ids, max_length = tokenize_task(args, classifier, task, indices, protocol_max_length)

    prefix_began = time.perf_counter()
    train_inputs, dev_inputs = frozen_prefix_states(args, classifier, task, train_ids, dev_ids, device, precision)
    cached = prefix_is_cached(args)
    prefix_seconds = time.perf_counter() - prefix_began
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)

    history = train_or_fit(args, classifier, config, task, indices, train_inputs, dev_inputs, cached, device, log)
    result = assemble_result(args, task, classifier, config, history, device, cached, max_length,
                             seconds=dict(prefix=prefix_seconds, total=time.perf_counter() - began))
    data.write_atomically(out, lambda f: f.write(json.dumps(result, indent=1).encode()))
    log(summary_line(result, out))
    return result


def train_or_fit(args, classifier, config, task, indices, train_inputs, dev_inputs, cached, device, log):
    """The protocol's fine-tuning (loop.py), SetFit's two stages (contrastive.py), or with --probe a
    linear model fitted to the frozen features; each returns a history shaped as loop.train's."""
    quiet_or_log = (lambda line: None) if args.quiet else log
    if args.probe:
        return fit_probe(classifier, train_inputs, task.train_labels[indices], dev_inputs, task, device)
    if args.method == "setfit":
        return contrastive.run(classifier, train_inputs, task.train_labels[indices], dev_inputs, task.dev_labels,
                               task.num_labels, max(args.freeze, 0) if cached else None, device, config.precision,
                               args.seed, args.num_iterations, quiet_or_log)
    return loop.train(classifier, config, train_inputs, task.train_labels[indices], dev_inputs, task.dev_labels,
                      max(args.freeze, 0) if cached else None, device, log=quiet_or_log)


def summary_line(result, out):
    """'best dev accuracy 0.7787 (mcc 0.5590, f1 0.7753) at step 70, train accuracy 0.9700 | ...'"""
    metric, at_score = result["metric"], result["at_score"]
    others = ", ".join(f"{name} {value:.4f}" for name, value in at_score.items() if name != metric)
    return (f"{result['selection']} dev {metric} {at_score[metric]:.4f} ({others}) at step {result['score_step']}, "
            f"train {metric} {result['train_at_score'][metric]:.4f} | {result['trainable_parameters']:,} of "
            f"{result['total_parameters']:,} parameters trained | {result['seconds']['total']:.1f}s | {out}")


def assemble_result(args, task, classifier, config, history, device, cached, max_length, seconds):
    """The result JSON: the run's configuration, its score (the task's primary metric at its best
    evaluation, the first of equal bests, or in Lee et al.'s protocol at its last) with every other
    metric there and on the training subset, the curve, and what the run cost."""
    curve, chosen = history["curve"], history["chosen"]
    names = [name for name in metrics.NAMES if name in chosen]
    trainable, total = encoder.count_parameters(classifier)
    fitted_head = (classifier.config.hidden_size + 1) * task.num_labels  # a fitted linear head's weight and bias
    if args.probe:  # the probe alone, not the head it stands in for
        trainable = fitted_head
    elif args.method == "setfit":  # the body's trained layers, then SetFit's head
        trainable += fitted_head
    if device.type == "cuda":
        peak_mb = torch.cuda.max_memory_allocated(device) / 2**20
    else:
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    result = dict(
        config={**vars(args), **asdict(config), "task": task.name, "device": str(device),
                "cache": cached, "max_length": max_length, "normalize": classifier.normalize,
                "model_type": classifier.config.model_type,
                "num_layers": classifier.config.num_layers, "num_labels": task.num_labels},
        metric=task.metric, score=chosen[task.metric], score_step=chosen["step"],
        selection="probe" if args.probe else "setfit" if args.method == "setfit" else config.selection,
        probe=history.get("probe"), setfit=history.get("setfit"),
        at_score={name: chosen[name] for name in names},  # every metric at that evaluation
        # the training subset, scored with the weights of that evaluation: the gap shows over-fitting
        train_at_score=history["train_scores"],
        best={name: max(point[name] for point in curve or [chosen]) for name in names},  # each metric's own best
        constant=metrics.constant_scores(task.dev_labels, task.num_labels),  # what one class for all scores
        label_names=task.label_names, curve=curve, train_losses=history["losses"],
        total_steps=history["total_steps"], warmup_steps=history["warmup_steps"],
        eval_every=history["eval_every"],
        trainable_parameters=trainable, total_parameters=total,
        seconds=dict(prefix=round(seconds["prefix"], 3), train=round(history["train_seconds"], 3),
                     eval=round(history["eval_seconds"], 3), total=round(seconds["total"], 3)),
        peak_memory_mb=round(peak_mb, 1), processor=machine.processor_name(device),
        versions=dict(python=platform.python_version(), torch=torch.__version__,
                      transformers=importlib.metadata.version("transformers"), numpy=np.__version__),
    )
    if not task.regression:  # the blog study's figures: the best accuracy (and MCC) of the run
        best = max(curve or [chosen], key=lambda point: point["accuracy"])
        result.update(best_accuracy=best["accuracy"], mcc_at_best=best["mcc"], best_step=best["step"],
                      best_mcc=result["best"]["mcc"],
                      majority_accuracy=float(np.bincount(task.dev_labels).max() / len(task.dev_labels)))
    return result


def interrupt(signum, frame):
    raise KeyboardInterrupt  # so a killed run (make's SIGTERM) cleans up like Ctrl-C


def main(argv=None):
    signal.signal(signal.SIGTERM, interrupt)
    args = parse_args(argv)
    try:
        if args.print_freeze_grid:
            config = checkpoint.read_config(checkpoint.checkpoint_folder(args.model))
            print(" ".join(map(str, freeze_grid(config.num_layers, args.protocol))))
            return
        run(args, log=lambda line: print(line, flush=True))  # a grid's log file shows each line as it comes
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt:
        print("freeze_study.py: interrupted; no result written", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
