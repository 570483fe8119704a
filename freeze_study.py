"""
One run of the freezing study, start to finish:

    python freeze_study.py --dataset sst2 --freeze 12 --size 50 --seed 7

reads the task and its training subset (data.py), decides what the run is (its plan), loads the
checkpoint into our encoder (checkpoint.py, model.py) and freezes the embeddings and the first k
layers, reads the token ids and the frozen prefix's output from the cache or computes them once
(cache.py), trains the rest with the study's protocol (loop.py; or SetFit, contrastive.py; or fits
a linear probe, probe.py), and writes the result (result.py). Offline here:

    python freeze_study.py --model minilm --glue-dir ../shared/glue --freeze 2 --size 200 --seed 1
"""

import argparse
import os
import signal
import sys
import time
from dataclasses import asdict, dataclass

import torch

import adapters
import cache
import checkpoint
import contrastive
import data
import loop
import machine
import model
import probe
import protocol
import result


# ----------------------------------------------------------------------------------------------
# The command line

def parse_args(argv):
    p = argparse.ArgumentParser(description="One run of the layer-freezing study.")
    p.add_argument("--dataset", default="sst2", help="sst2, cola, mrpc, stsb or rte (GLUE); ignored with --train-file")
    p.add_argument("--model", default="roberta-base",
                   help="hub name, local checkpoint folder, 'minilm' (offline all-MiniLM-L6-v2) or 'mpnet' (all-mpnet-base-v2: make mpnet)")
    p.add_argument("--freeze", type=int, default=0,
                   help="-1: embeddings only; 0: nothing; k: embeddings and the first k layers (LoRA never trains the "
                        "embeddings, so under it -1 is 0's computation with them cached; BitFit at -1 leaves their biases frozen)")
    p.add_argument("--size", type=train_size, default=50,
                   help="training examples (a stratified subset), or 'all': the whole train split")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--reinit", type=int, default=0, help="reset the top N layers before fine-tuning (k + N <= L)")
    p.add_argument("--protocol", choices=["blog", "lee"], default="blog",
                   help="blog: the blog study's (the default); lee: Lee et al. 2019's (see protocol.py)")
    p.add_argument("--epochs", type=int, help="default: the protocol's (blog 10; lee 3 for BERT, 10 for RoBERTa)")
    p.add_argument("--lr", type=float, help="default: the method's (the blog's 5e-5 for finetune, setfit's 2e-5)")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--glue-dir", help="local GLUE folder (SST-2/, CoLA/, MRPC/, STS-B/, RTE/); default $GLUE_DIR, else the hub")
    p.add_argument("--train-file", help="your own task: a CSV/TSV with a header (needs --dev-file)")
    p.add_argument("--dev-file")
    p.add_argument("--text-column", default="sentence")
    p.add_argument("--text-pair-column", help="your own task: the second text of a sentence pair")
    p.add_argument("--label-column", default="label",
                   help="integer classes 0..C-1, or class names (numbered in sorted order)")
    p.add_argument("--regression", action="store_true", help="your own task: the labels are numbers to predict")
    p.add_argument("--out", help="result JSON (default results/<dataset>/<model>/ and the run's name, result.py)")
    p.add_argument("--probe", action="store_true",
                   help="with --freeze L: fit a linear probe to the frozen model's features instead of training a head")
    p.add_argument("--method", choices=["finetune", "setfit", "lora", "bitfit"], default="finetune",
                   help="finetune: the protocol's head and fine-tune (the default); setfit: SetFit's contrastive "
                        "fine-tuning, then a logistic-regression head (contrastive.py); lora, bitfit: adapters.py")
    for name, default in adapters.LORA_DEFAULTS.items():  # --lora-rank, --lora-alpha, --lora-dropout, --lora-targets
        p.add_argument(f"--lora-{name}", type=type(default) if name != "targets" else str, default=default,
                       nargs="+" if name == "targets" else None, help=f"--method lora (default {default})")
    p.add_argument("--num-iterations", type=int,
                   help="--method setfit: num_iterations x n pairs of each kind instead of setfit's oversampling")
    p.add_argument("--pooling", choices=["first", "mean"],
                   help="what stands for a sentence: its first token or the mean of its tokens. Default: the "
                        "first token for finetune (as the studies' classifiers read it); for --probe and "
                        "--method setfit the checkpoint's own sentence embedding (its sentence-transformers files)")
    p.add_argument("--save", metavar="DIR", help="also keep the trained fine-tune in the new folder DIR as a "
                   "transformers checkpoint (predict.py labels a CSV with it)")
    p.add_argument("--no-cache", action="store_true",
                   help="run the whole network every step, frozen layers in training mode (the Trainer's way)")
    p.add_argument("--cache-dir", default="cache", help="frozen-prefix and token-id cache")
    p.add_argument("--splits-dir", help="the drawn training subsets (default splits; not with --size all)")
    p.add_argument("--precision", choices=["fp16", "bf16", "fp32"],
                   help="default: fp16 mixed precision on CUDA (the study's); on a CPU, bf16 mixed precision "
                        "where it multiplies bfloat16 natively (AVX512-BF16, AMX), else fp32")
    p.add_argument("--device", help="cpu, cuda, cuda:1, ... (default: cuda if available)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--print-freeze-grid", action="store_true", help="print the protocol's depths for --model, and exit")
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


def interrupt(signum, frame):
    raise KeyboardInterrupt  # so a killed run (make's SIGTERM) cleans up like Ctrl-C


def main(argv=None):
    signal.signal(signal.SIGTERM, interrupt)
    args = parse_args(argv)
    try:
        if args.print_freeze_grid:
            config = checkpoint.read_config(checkpoint.checkpoint_folder(args.model))
            print(" ".join(map(str, protocol.freeze_grid(config.num_layers, args.protocol))))
            return
        run(args, log=lambda line: print(line, flush=True))  # a grid's log file shows each line as it comes
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt:
        print("freeze_study.py: interrupted; no result written", file=sys.stderr)
        sys.exit(130)


# ----------------------------------------------------------------------------------------------
# One run

@dataclass
class Plan:
    """What a run decides once, from its options and its checkpoint, before it computes anything."""
    device: torch.device
    precision: str
    method: str  # finetune, probe, setfit, lora or bitfit
    pooling: str  # what stands for a sentence: its first token, or the mean of its tokens
    normalize: bool  # the sentence embedding is L2-normalised (a sentence embedder's own, for probe and SetFit)
    cached_depth: int | None  # None: the inputs are token ids; k: the frozen prefix's states after k layers
    train_config: loop.TrainConfig
    max_length: float  # the protocol's (and a sentence embedder's) longest sequence; inf: the model's own
    out: str  # the result file


def run(args, log=print):
    """One run; returns its result (result.build), written to plan.out."""
    began = time.perf_counter()
    device, precision = check_args(args)
    machine.prepare(device)
    task, indices = load_task_and_subset(args)
    folder = checkpoint.checkpoint_folder(args.model)
    plan = plan_run(args, task, folder, device, precision)
    result.check_folder(os.path.dirname(plan.out) or ".", cell_config(args, plan),
                        precision_chosen=args.precision is not None)
    classifier = build_and_freeze(args, plan, task, folder)
    train_ids, dev_ids, max_length = tokenize_task(args, plan, classifier, task, indices)

    prefix_began = time.perf_counter()
    train_inputs, dev_inputs = frozen_prefix_states(args, plan, classifier, task, train_ids, dev_ids)
    prefix_seconds = time.perf_counter() - prefix_began
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)

    history = train_or_fit(args, plan, classifier, task, indices, train_inputs, dev_inputs, log)
    record = result.build(run_config(args, plan, task, classifier, max_length), task, history,
                          *trained_parameters(classifier, plan.method, task.num_labels),
                          seconds=dict(prefix=prefix_seconds, total=time.perf_counter() - began),
                          peak_memory_mb=machine.peak_memory_mb(device), processor=machine.processor_name(device),
                          versions=machine.versions())
    if args.save:  # before the result, which tells make the run is done
        checkpoint.save_pretrained(classifier, args.save, task.label_names)
    result.write(plan.out, record)
    log(result.summary_line(record, plan.out))
    return record


def check_args(args):
    """The options that cannot go together, and where the run runs: (device, precision)."""
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
    lora_flags = [f"--lora-{name}" for name, default in adapters.LORA_DEFAULTS.items()
                  if getattr(args, f"lora_{name}") != default]
    if lora_flags and args.method != "lora":
        raise ValueError(f"{' '.join(lora_flags)} shape LoRA's update: they go with --method lora")
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


def load_task_and_subset(args):
    """The task's splits and the training subset's row indices."""
    if args.train_file:
        task = data.load_csv_task(args.train_file, args.dev_file, args.text_column, args.label_column,
                                  args.text_pair_column, args.regression)
    else:
        task = data.load_glue(args.dataset, args.glue_dir)
    if task.regression and args.method == "setfit":
        raise ValueError(f"{task.name} is a regression task, and SetFit's pairs and head need classes: use the default "
                         "--method finetune")
    return task, data.load_subset(task, args.size, args.splits_dir or "splits")


def plan_run(args, task, folder, device, precision):
    """Decide the run: its method, how it pools a sentence, whether its inputs come from the
    frozen-prefix cache, its protocol, and where its result goes."""
    config = checkpoint.read_config(folder)
    method = "probe" if args.probe else args.method
    if method == "probe" and args.freeze != config.num_layers:
        raise ValueError(f"--probe fits a linear model to the frozen model's features: use it with --freeze "
                         f"{config.num_layers} (every layer of this model frozen)")
    # the probe and SetFit read the checkpoint's own sentence embedding; the fine-tune its first token
    own = checkpoint.sentence_embedding_spec(folder)
    embeds = method in ("probe", "setfit")
    if embeds and not args.pooling and own["pooling"] not in ("first", "mean"):
        raise ValueError(f"{args.model}'s sentence embedding pools by {own['pooling']}; this tool pools by the "
                         "first token or the mean: pass --pooling first or --pooling mean")
    if method == "probe" and args.lr is not None:
        raise ValueError("--lr does not apply to --probe: a probe is fitted, its strength chosen by cross-validation")
    lr = args.lr or result.DEFAULT_LRS[method]
    train_config, max_length = protocol.config(args.protocol, config.model_type, freeze=args.freeze, epochs=args.epochs,
                                               batch_size=args.batch_size, lr=lr, seed=args.seed,
                                               precision=precision, metric=task.metric)
    if embeds and own["max_length"]:
        max_length = min(max_length, own["max_length"])
    # frozen layers are read from the cache (--no-cache runs them every step, the Trainer's way; a
    # probe has nothing to train and always reads it)
    cached = args.freeze != 0 and (args.probe or not args.no_cache)
    run_name = result.name_of(vars(args))
    out = args.out or result.default_path(task.name, args.model, run_name)
    if result.NAME.fullmatch(os.path.basename(out)) and os.path.basename(out) != run_name.file_name():
        raise ValueError(f"{out}: a result's name says what ran, and this run is {run_name.file_name()} "
                         "(learning rates written as 3e-4, the method's own left out)")
    pooling = args.pooling or (own["pooling"] if embeds else "first")
    if args.save and (method != "finetune" or pooling != "first"):
        raise ValueError("--save writes a *ForSequenceClassification checkpoint, which reads the first token: it goes "
                         "with the protocol's fine-tune (not --probe, --method setfit or --pooling mean)")
    if args.save and os.path.exists(args.save):
        raise ValueError(f"--save {args.save} exists: name a new folder")
    return Plan(device, precision, method, pooling=pooling,
                normalize=embeds and own["normalize"], cached_depth=max(args.freeze, 0) if cached else None,
                train_config=train_config, max_length=max_length, out=out)


def build_and_freeze(args, plan, task, folder):
    """The checkpoint with a fresh head, pooling as the plan says, its first layers frozen (and its
    top ones reset), on the device."""
    torch.manual_seed(args.seed)  # a fresh head's initial weights, then dropout, come from here
    classifier = checkpoint.from_pretrained(folder, num_labels=task.num_labels)
    classifier.pooling, classifier.normalize = plan.pooling, plan.normalize
    loop.freeze(classifier, args.freeze)
    loop.reinitialize_top(classifier, args.reinit, args.freeze)  # after the head, from the same seed
    if plan.method == "setfit":
        classifier.head.requires_grad_(False)  # SetFit fits its own head to the embeddings
    elif plan.method == "lora":
        adapters.add_lora(classifier, args.freeze, args.lora_rank, args.lora_alpha, args.lora_dropout, args.lora_targets)
    elif plan.method == "bitfit":
        adapters.bitfit(classifier, args.freeze)
    return classifier.to(plan.device)


def tokenize_task(args, plan, classifier, task, indices):
    """The subset's and the dev split's token ids, cut at the shortest of the tokenizer's, the
    model's and the plan's limits: tokenized once per tokenizer and texts, then read from the cache."""
    train = ([task.train_texts[i] for i in indices], task.train_pairs and [task.train_pairs[i] for i in indices])
    dev = (task.dev_texts, task.dev_pairs)
    limit = min(classifier.config.max_length, plan.max_length)

    def tokenize_sets():
        tokenizer = checkpoint.load_tokenizer(classifier.folder)
        max_length = min(tokenizer.model_max_length, limit)
        return max_length, [data.tokenize(tokenizer, texts, max_length, pairs) for texts, pairs in (train, dev)]

    path = cache.token_cache_path(args.cache_dir, f"{task.name}-{args.size}", classifier.folder, limit, (train, dev))
    max_length, (train_ids, dev_ids) = cache.cached_tokens(path, tokenize_sets)
    return train_ids, dev_ids, max_length


def frozen_prefix_states(args, plan, classifier, task, train_ids, dev_ids):
    """What the trained layers read: the frozen prefix's output, computed once and cached, or the
    token ids themselves when nothing is frozen or the run does not cache."""
    if plan.cached_depth is None:
        return train_ids, dev_ids
    weights_id = checkpoint.checkpoint_id(classifier.folder)
    return [cache.cached_frozen_prefix(classifier, ids, args.freeze, plan.device, plan.precision,
                                       cache.prefix_cache_path(args.cache_dir, weights_id, name, ids, args.freeze,
                                                               plan.device, plan.precision))
            for name, ids in ((f"{task.name}-train{args.size}", train_ids), (f"{task.name}-dev", dev_ids))]


def train_or_fit(args, plan, classifier, task, indices, train_inputs, dev_inputs, log):
    """The protocol's fine-tuning (loop.py), SetFit's two stages (contrastive.py), or a linear
    probe fitted to the frozen features (probe.py): each returns a loop.TrainResult."""
    quiet_or_log = (lambda line: None) if args.quiet else log
    train_labels = task.train_labels[indices]
    if plan.method == "probe":
        return probe.fit_to_model(classifier, train_inputs, train_labels, dev_inputs, task, plan.device)
    if plan.method == "setfit":
        return contrastive.run(classifier, train_inputs, train_labels, dev_inputs, task.dev_labels, task.num_labels,
                               plan.cached_depth, plan.device, plan.precision, args.seed, args.num_iterations,
                               plan.train_config.lr, quiet_or_log)
    return loop.train(classifier, plan.train_config, train_inputs, train_labels, dev_inputs, task.dev_labels,
                      plan.cached_depth, plan.device, log=quiet_or_log)


# ----------------------------------------------------------------------------------------------
# What the result records beside the scores

def cell_config(args, plan):
    """What the run's record will say of its cell and its settings, known before it starts."""
    return {**vars(args), **asdict(plan.train_config), "pooling": plan.pooling, "normalize": plan.normalize}


def run_config(args, plan, task, classifier, max_length):
    """The run's options and everything decided from them."""
    return {**cell_config(args, plan), "task": task.name, "device": str(plan.device),
            "cache": plan.cached_depth is not None, "max_length": max_length,
            "model_type": classifier.config.model_type, "num_layers": classifier.config.num_layers,
            "num_labels": task.num_labels}


def trained_parameters(classifier, method, num_labels):
    """(trained, total) parameters: the probe counts its fitted linear model alone, SetFit the
    body's trained layers and its fitted head."""
    trainable, total = model.count_parameters(classifier)
    fitted_head = (classifier.config.hidden_size + 1) * num_labels  # a fitted linear head's weight and bias
    if method == "probe":
        trainable = fitted_head
    elif method == "setfit":
        trainable += fitted_head
    return trainable, total


if __name__ == "__main__":
    main()
