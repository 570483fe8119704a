"""
One run of the freezing study, start to finish:

    python freeze_study.py --dataset sst2 --freeze 12 --size 50 --seed 7

reads the task and its training subset (data.py), decides what the run is (its plan, plan.py),
loads the checkpoint into our encoder (checkpoint.py, model.py) and freezes the embeddings and the
first k layers (trainable.py), reads the token ids and the frozen prefix's output from the cache or
computes them once (cache.py), trains the rest by its method (methods.py: the protocol's
fine-tune, loop.py, and LoRA or BitFit over it; SetFit, contrastive.py; a linear probe, probe.py),
and writes the result (result.py). Offline here:

    python freeze_study.py --model minilm --glue-dir ../shared/glue --freeze 2 --size 200 --seed 1
"""

import os
import signal
import sys
import time
from dataclasses import asdict

import torch

import cache
import checkpoint
import data
import loop
import machine
import model
import result
import trainable
from plan import check_examples, check_files, fail, parse_args, plan_run


def interrupt(signum, frame):
    raise KeyboardInterrupt  # so a killed run (make's SIGTERM) cleans up like Ctrl-C


def main(argv=None):
    signal.signal(signal.SIGTERM, interrupt)
    args = parse_args(argv)
    # a grid's log file shows each line as it comes
    as_a_command(lambda: run(args, log=lambda line: print(line, flush=True)))


def as_a_command(work):
    """work(), its bad input one line and exit 2 (plan.fail), Ctrl-C or make's kill exit 130."""
    try:
        work()
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt:
        print("freeze_study.py: interrupted; no result written", file=sys.stderr)
        sys.exit(130)


# ----------------------------------------------------------------------------------------------
# One run

def run(args, log=print):
    """One run; returns its result (result.build), written to plan.out."""
    began = time.perf_counter()
    task = load_task(args)
    plan = plan_run(args, task)
    indices = checked_subset(plan, task)
    machine.prepare(plan.device)
    task, indices, held = one_file_splits(plan, task, indices)
    classifier, inputs, max_length, prefix_cost = prepare(plan, task, indices, held)
    if plan.device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(plan.device)
    history = plan.method.train(classifier, plan.train_config, inputs, (lambda line: None) if plan.quiet else log)
    return finish(plan, task, classifier, inputs, history, max_length, prefix_cost, time.perf_counter() - began, log)


def checked_subset(plan, task):
    """The run's training subset's row indices, once the plan is checked against the examples its
    method needs, its results folder (and its folds against the subset): drawn, and written for the
    runs after it, only then."""
    check_examples(plan, task)
    result.check_folder(os.path.dirname(plan.out) or ".", {**cell_config(plan), **task_fields(task)},
                        plan.precision_chosen)
    if plan.folds:  # before the subset is written
        data.check_folds(task, data.subset_indices(task, plan.size, plan.splits_dir), plan.folds,
                         plan.options["train_file"])
    return data.load_subset(task, plan.size, plan.splits_dir)


def finish(plan, task, classifier, inputs, history, max_length, prefix_cost, seconds, log, at_once=None):
    """The trained run's record, written to plan.out, then its model kept where --save asks; returns
    the record. seconds: the run's, start to end (at_once: several seeds trained at once, each
    recorded with its share of their seconds)."""
    config = {**run_config(plan, task, classifier, max_length), "train_examples": len(inputs.train_labels),
              **({"at_once": at_once} if at_once else {})}
    record = result.build(config, task, history,
                          *trained_parameters(classifier, plan.method, task.num_labels),
                          seconds=dict(prefix_cost, total=seconds),
                          peak_memory_mb=machine.peak_memory_mb(plan.device),
                          processor=machine.processor_name(plan.device), versions=machine.versions())
    result.write(plan.out, record)  # first: a save that fails costs no finished run
    if plan.save:  # as the method is kept: a classifier, or a sentence embedder and its fitted head
        plan.method.save(classifier, history, plan.save, task.label_names, max_length, checkpoint.inputs_of(task, plan.precision))
    log(result.summary_line(record, plan.out))
    return record


def one_file_splits(plan, task, indices):
    """(task, the rows it trains on, None) as drawn; with --folds, the subset's fold --seed as the dev
    split, and (task, the subset, (the positions in it trained on, those scored on)); with --final,
    every label given as the train split (data.every_label)."""
    if plan.folds:
        trained, scored = data.fold_positions(task, indices, plan.folds, plan.train_config.seed)
        return data.held_out_fold(task, indices[scored]), indices, (trained, scored)
    if plan.final:
        return *data.every_label(task, indices), None
    return task, indices, None


def prepare(plan, task, indices, held=None):
    """The run's model, built from its seed and frozen as planned, and what it trains on: (model,
    loop.RunInputs, the longest sequence, what the frozen prefix cost: {prefix: its seconds,
    prefix_texts: the texts it ran through the frozen layers, 0 where the cache held them all}).
    `held`: (the positions of `indices` trained on, those of the fold scored on), whose frozen
    prefix is the whole subset's, computed once for every fold."""
    classifier = build_and_freeze(plan, task)
    token_ids, max_length = tokenize_task(plan, classifier, task, indices, with_dev=held is None)
    prefix_began = time.perf_counter()
    states, computed = frozen_prefix_states(plan, classifier, task, token_ids)
    labels = task.train_labels[indices]
    if held is not None:
        trained, scored = held
        states["dev"] = [states["train"][i] for i in scored]
        states["train"], labels = [states["train"][i] for i in trained], labels[trained]
    inputs = loop.RunInputs(states["train"], labels, states["dev"], task.dev_labels, plan.cached_depth,
                            plan.device, states.get("test"), task.test_labels)
    return classifier, inputs, max_length, dict(prefix=time.perf_counter() - prefix_began, prefix_texts=computed)


def load_task(args):
    """The task's splits (your own files' options checked first)."""
    check_files(args)
    if args.train_file:
        return data.load_csv_task(args.train_file, args.dev_file, args.text_column, args.label_column,
                                  args.text_pair_column, args.regression, args.test_file)
    return data.load_glue(args.dataset or "sst2", args.glue_dir)


def load_task_and_subset(args):
    """The task and its training subset's row indices, for a tool that needs them without a plan (the
    prior's features, the benchmarks)."""
    task = load_task(args)
    return task, data.load_subset(task, args.size, args.splits_dir or "splits")


def build_and_freeze(plan, task):
    """The checkpoint with a fresh head, pooling as the plan says, its first layers frozen (and its
    top ones reset), what the method trains made trainable, on the device."""
    torch.manual_seed(plan.train_config.seed)  # a fresh head's initial weights, then dropout, come from here
    classifier = checkpoint.from_pretrained(plan.folder, num_labels=task.num_labels)
    classifier.pooling, classifier.normalize = plan.pooling, plan.normalize
    trainable.freeze(classifier, plan.freeze)
    trainable.reinitialize_top(classifier, plan.reinit, plan.freeze)  # after the head, from the same seed
    plan.method.make_trainable(classifier, plan.freeze, plan.method_options)
    return classifier.to(plan.device)


def tokenize_task(plan, classifier, task, indices, with_dev=True):
    """The token ids of the subset, the dev split (with_dev, where the task has one) and a test file if
    the task has one ({set's name: ids}), and the longest sequence: cut at the shortest of the
    tokenizer's, the model's and the plan's limits, tokenized once per tokenizer and texts, then read
    from the cache."""
    sets = {"train": ([task.train_texts[i] for i in indices], task.train_pairs and [task.train_pairs[i] for i in indices])}
    if with_dev and task.dev_texts is not None:
        sets["dev"] = (task.dev_texts, task.dev_pairs)
    if task.test_texts is not None:
        sets["test"] = (task.test_texts, task.test_pairs)
    limit = min(classifier.config.max_length, plan.max_length)

    def tokenize_sets():
        tokenizer = checkpoint.load_tokenizer(classifier.folder)
        max_length = min(tokenizer.model_max_length, limit)
        return max_length, [data.tokenize(tokenizer, texts, max_length, pairs) for texts, pairs in sets.values()]

    path = cache.token_cache_path(plan.cache_dir, f"{task.name}-{plan.size}", classifier.folder, limit,
                                  tuple(sets.values()))
    max_length, ids = cache.cached_tokens(path, tokenize_sets)
    return dict(zip(sets, ids)), max_length


def frozen_prefix_states(plan, classifier, task, token_ids):
    """What the trained layers read, per set: the frozen prefix's output, computed once and cached,
    or the token ids themselves when nothing is frozen or the run does not cache; and how many
    texts went through the frozen layers here (the rest the cache held)."""
    if plan.cached_depth is None:
        return token_ids, 0
    weights_id = checkpoint.checkpoint_id(classifier.folder)
    cache_name = {"train": f"{task.name}-train{plan.size}", "dev": f"{task.name}-dev", "test": f"{task.name}-test"}
    states, computed = {}, 0
    for name, ids in token_ids.items():
        path = cache.prefix_cache_path(plan.cache_dir, weights_id, cache_name[name], ids, plan.freeze, plan.device,
                                       plan.precision)
        states[name], fresh = cache.cached_frozen_prefix(classifier, ids, plan.freeze, plan.device, plan.precision, path)
        computed += len(ids) if fresh else 0
    return states, computed


# ----------------------------------------------------------------------------------------------
# What the result records beside the scores

def cell_config(plan):
    """What the run's record will say of its cell and its settings, known before it starts."""
    return {**plan.options, **asdict(plan.train_config), "pooling": plan.pooling, "normalize": plan.normalize}


def task_fields(task):
    """What the record says of the examples it was trained and scored on: the task, and your own dev
    file where one was given (a folder's runs are scored on one dev split: result.check_folder)."""
    return {"task": task.name, **({"dev": task.dev_name} if task.dev_name else {})}


def run_config(plan, task, classifier, max_length):
    """The run's options and everything decided from them."""
    return {**cell_config(plan), **task_fields(task), "device": str(plan.device),
            "cache": plan.cached_depth is not None, "max_length": max_length,
            "model_type": classifier.config.model_type, "num_layers": classifier.config.num_layers,
            "num_labels": task.num_labels}


def trained_parameters(classifier, method, num_labels):
    """(trained, total) parameters, as the method counts them (a fitted linear head counts its weight
    and bias)."""
    trainable_count, total = model.count_parameters(classifier)
    fitted_head = (classifier.config.hidden_size + 1) * num_labels
    return method.counts(trainable_count, fitted_head), total


if __name__ == "__main__":
    machine.spare_imports_from_collection()
    main()
