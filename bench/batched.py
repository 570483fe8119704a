"""
Several rates of one cell trained at once, as one model over stacked weights: the runs a line search
makes (one seed, one depth, rates along a ladder) share every batch, every dropout mask and every
frozen layer, and differ only in their weights once the first step has moved them.

    train_rates(model, config, rates, inputs, log) -> [loop.TrainResult], one per rate

    the model's trainable weights  ->  stacked (R, ...), one slice per rate; the frozen ones shared
    each step                          logits of every rate at once: torch.func.vmap over the slices
                                       of loop.logits_for, the batch and its dropout masks the same
                                       ("same" randomness: one draw, as each run alone would draw it)
                                       one backward of the rates' summed losses: each slice gets its
                                       own rate's gradient
                                       per rate: clip its gradient, AdamW at its rate (optim.py's apply,
                                       on the word embedding's used rows as a run alone)
    each evaluation, the end           a rate's slices loaded into the model: loop's own evaluation,
                                       choice and scoring of the training subset

The plan of steps, the choice and the scoring are loop.py's, so each rate's run is loop.train's at
that rate: the same batches, masks and schedule, its numbers equal to float tolerance (a batched
matrix product sums in another order; tests/bench/test_batched.py). Its step, evaluation and
results over stacked weights are several seeds at once's too (batched_seeds.py). What it saves is
the fixed cost a step pays whatever its size (kernel launches, Python), which a GPU pays and a
2-core CPU barely does. fp32 and bf16; fp16's loss scaling is per run and is not here.

On CUDA a run alone draws its masks inside torch's fused kernels, which vmap cannot share among the
rates: there every dropout mask is drawn as a tensor (model.drawn_masks), and a rate's run equals
its run alone only when that run draws them so too (its masks otherwise part at the first step: an
H200, 11-28, docs/gpu.md). Whether drawn masks train as well as the fused kernel's is a measurement
of its own (bench/dropout_masks.py --ways fused drawn, on a card).
"""

import time

import torch
import torch.nn as nn
from torch.func import functional_call, vmap

import loop
from machine import autocast
from model import drawn_masks
from optim import AdamW, lr_at, used_word_rows


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
    """Run r's weights into the model (its evaluations and its scoring read the model)."""
    with torch.no_grad():
        parameters = dict(model.named_parameters())
        for name, weights in stacked.items():
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


def train_rates(model, config, rates, inputs, log=print):
    """loop.train of `model` at each of `rates` (config.lr ignored), all at once. The model holds
    the shared starting weights; each rate's chosen weights are returned in its result, and the
    model is left with the last rate's."""
    if config.precision == "fp16":
        raise ValueError("several runs at once run in fp32 or bf16: fp16's loss scaling is per run")
    with drawn_masks():  # on CUDA: masks vmap can share, as a run alone draws them inside it
        return rates_at_once(model, config, rates, inputs, log)


def rates_at_once(model, config, rates, inputs, log):
    n, device = len(inputs.train_labels), inputs.device
    _, total_steps, warmup_steps, _ = loop.schedule(n, config)
    labels = torch.as_tensor(inputs.train_labels).to(device)
    stacked = stacked_weights([model] * len(rates))
    fixed = {f"model.{name}": p for name, p in model.named_parameters() if not p.requires_grad}
    logits_of = Logits(model, inputs.cached_depth, device)
    optimizers, slices = optimizers_for(model, stacked, rates, config, [inputs] * len(rates))
    runs, began = new_runs(len(rates)), time.perf_counter()
    for step, batch, evaluates in loop.step_plan(n, config):
        lrs = [lr_at(step, warmup_steps, total_steps, rate) for rate in rates]
        model.train()
        with autocast(device, config.precision):
            logits = vmap(lambda weights: functional_call(logits_of, {**{f"model.{k}": v for k, v in weights.items()},
                                                                      **fixed}, ([inputs.train[i] for i in batch],)),
                          randomness="same")(stacked)  # (R, B, num_labels)
        losses = step_all(logits, stacked, optimizers, slices, [labels[batch.to(device)]] * len(rates), lrs, config)
        for run, loss in zip(runs, losses):
            run["losses"].append(loss)
        if evaluates:
            for r, run in enumerate(runs):
                evaluate(model, stacked, r, run, config, inputs, step, lrs[r], began, log)
    return results_of([model] * len(rates), [config] * len(rates), optimizers, runs, [inputs] * len(rates), began)
