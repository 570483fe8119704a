"""
Several runs of one model over stacked weights: each trainable weight held once as (R, ...), one
slice per run, the frozen ones shared. What several runs at once need beside their logits, which
each way of running them at once makes itself (seeds_at_once.py: a cell's seeds; bench/batched.py:
a seed's rates):

    stacked_weights(models)      the runs' trainable weights, stacked, from each run's model
    optimizers_for(...)          each run's AdamW over its own slices (views updated in place)
    step_all(logits, ...)        one backward of the runs' summed losses (each slice gets its own
                                 run's gradient), then per run its clip and its AdamW step
    evaluate(model, stacked, r)  run r's slices loaded into a model: loop's own evaluation and choice
    results_of(...)              each run's loop.TrainResult, scored with its chosen weights

Each is loop.train's step, evaluation and scoring for one run, so a run among several is its run
alone to float tolerance (tests/study/test_seeds_at_once.py, tests/bench/test_batched.py).
"""

import time

import torch
import torch.nn as nn

import loop
from optim import AdamW, used_word_rows


class Logits(nn.Module):
    """loop.logits_for as a module's forward, so torch.func can call it with other weights."""

    def __init__(self, model, cached_depth, device):
        super().__init__()
        self.model, self.cached_depth, self.device = model, cached_depth, device

    def forward(self, batch):
        return loop.logits_for(self.model, batch, self.cached_depth, self.device)


def stacked_weights(models):
    """{name: (R, ...) the runs' trainable weights, one slice per run, from each run's model}."""
    named = [dict(model.named_parameters()) for model in models]
    return {name: torch.stack([weights[name].detach() for weights in named]).requires_grad_(True)
            for name, p in named[0].items() if p.requires_grad}


def load(model, stacked, r):
    """Run r's weights into the model (its evaluations and its scoring read the model), unless the
    model reads them from its slice already (seeds_at_once.share_weights)."""
    with torch.no_grad():
        parameters = dict(model.named_parameters())
        for name, weights in stacked.items():
            if parameters[name].data_ptr() != weights[r].data_ptr():
                parameters[name].copy_(weights[r])


def optimizers_for(model, stacked, rates, config, inputs_of):
    """(each run's AdamW at its rate, over its slices; the slices, views updated in place), AdamW on
    the word embedding's rows its own training examples use (inputs_of: each run's), as a run alone."""
    slices = [[weights[r] for weights in stacked.values()] for r in range(len(rates))]
    used_of = {id(inputs): used_word_rows(model, inputs.train, inputs.cached_depth) for inputs in inputs_of}  # once each
    optimizers = []
    for rate, views, inputs in zip(rates, slices, inputs_of):
        used = used_of[id(inputs)]
        word = list(stacked).index("embed.word.weight") if used else None
        optimizers.append(AdamW([], lr=rate, betas=config.betas, eps=config.eps,
                                used_rows={views[word]: next(iter(used.values()))} if used else None))
    return optimizers, slices


def step_all(logits, stacked, optimizers, slices, labels, lrs, config):
    """One optimizer step of every run (logits[r], labels[r]: run r's batch's); returns each run's loss."""
    losses = [loop.loss_of(logits[r], labels[r]) for r in range(len(lrs))]
    for weights in stacked.values():
        weights.grad = None
    sum(losses).backward()
    for r, (optimizer, views) in enumerate(zip(optimizers, slices)):
        gradients = [weights.grad[r] for weights in stacked.values()]
        clip(gradients, config.max_grad_norm)
        optimizer.apply(views, gradients, lrs[r], config.weight_decay)
    return [loss.item() for loss in losses]


def clip(gradients, max_norm):
    """clip_grad_norm_'s arithmetic on one run's gradients: scaled by max_norm / (norm + 1e-6), at most 1."""
    total = torch.nn.utils.get_total_norm(gradients)
    torch._foreach_mul_(gradients, torch.clamp(max_norm / (total + 1e-6), max=1.0))


def new_runs(count):
    """What each run keeps as it goes: its curve, losses, chosen evaluation and its weights."""
    return [dict(curve=[], losses=[], chosen=None, weights=None, eval_seconds=0.0, dev_outputs=None)
            for _ in range(count)]


def evaluate(model, stacked, r, run, config, inputs, step, lr, began, log):
    """loop.train's evaluation after `step` steps, of run r's weights loaded into `model`."""
    eval_began = time.perf_counter()
    steps_per_epoch, total_steps, _, eval_every = loop.schedule(len(inputs.train_labels), config)
    load(model, stacked, r)
    point, run["dev_outputs"] = loop.evaluation_point(model, config, inputs, step + 1, steps_per_epoch,
                                                      run["losses"][-eval_every:], lr, began)
    run["eval_seconds"] += time.perf_counter() - eval_began
    run["curve"].append(point)
    if loop.chooses(point, run["chosen"], config):
        run["chosen"], run["weights"] = point, {name: w[r].detach().to("cpu", copy=True) for name, w in stacked.items()}
    loop.log_point(log, point, total_steps)


def results_of(models, configs, optimizers, runs, inputs_of, began):
    """Each run's loop.TrainResult: its training examples (and a test file) scored with its chosen
    weights, in its own model (inputs_of: each run's); the training seconds shared alike."""
    train_seconds = (time.perf_counter() - began - sum(run["eval_seconds"] for run in runs)) / len(runs)
    results = []
    for model, config, optimizer, run, inputs in zip(models, configs, optimizers, runs, inputs_of):
        _, total_steps, warmup_steps, eval_every = loop.schedule(len(inputs.train_labels), config)
        scoring_began = time.perf_counter()
        train_scores = loop.train_scores_with(model, run["weights"], config, inputs)
        test_scores, test_outputs = loop.test_scores_of(model, config, inputs)
        results.append(loop.TrainResult(
            chosen=run["chosen"], train_scores=train_scores, curve=run["curve"], losses=run["losses"],
            total_steps=total_steps, warmup_steps=warmup_steps, eval_every=eval_every, train_seconds=train_seconds,
            eval_seconds=run["eval_seconds"] + time.perf_counter() - scoring_began,
            optimizer_state_bytes=loop.state_bytes(optimizer), test_scores=test_scores,
            dev_outputs=run["dev_outputs"], test_outputs=test_outputs))
    return results
