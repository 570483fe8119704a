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
results are study/stacked.py's, as several seeds at once's are (study/seeds_at_once.py). What it saves is the
fixed cost a step pays whatever its size (kernel launches, Python), which a GPU pays and a 2-core
CPU barely does. No run of the tool uses it: on a CPU it saves nothing (docs/performance.md). fp32
and bf16; fp16's loss scaling is per run and is not here.

On CUDA a run alone draws its masks inside torch's fused kernels, which vmap cannot share among the
rates: there every dropout mask is drawn as a tensor (model.drawn_masks), and a rate's run equals
its run alone only when that run draws them so too (its masks otherwise part at the first step: an
H200, 11-28, docs/gpu.md). Whether drawn masks train as well as the fused kernel's is a measurement
of its own (bench/dropout_masks.py --ways fused drawn, on a card).
"""

import time

import torch
from torch.func import functional_call, vmap

import loop
from machine import autocast
from model import drawn_masks
from optim import lr_at
from study.stacked import Logits, evaluate, new_runs, optimizers_for, results_of, stacked_weights, step_all


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
