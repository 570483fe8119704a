"""
Several seeds of one cell trained at once, as one model over stacked weights: a cell's seeds share
its subset, its frozen prefix and its frozen layers, and differ in their head's first weights,
their batches (each seed's shuffle) and their dropout masks (each seed's stream). The folds of one
labelled file are such seeds too, each with its own training examples and dev split.

    train_seeds(models, configs, inputs, streams, log) -> [loop.TrainResult], one per seed

    the seeds' trainable weights   ->  stacked (S, ...), one slice per seed, from each seed's model,
                                       which then reads its slice (and the first's frozen weights)
    each step                          each seed's batch, packed (rows.pack), then laid in one grid:
                                       the longest seed's T, the most rows, padding rows in cells
                                       no token holds (masked as keys, pooled by no sentence), and
                                       a fold's smaller last batch filled with empty sentences
                                       each mask of the grid, every seed's at once: (S, ...),
                                       seed s's numbers drawn from its own stream at its own
                                       shape, as its run alone draws them, into its corner
                                       (two passes on the meta device name the shapes once)
                                       logits of every seed at once: torch.func.vmap over the
                                       slices, the grids and the masks (model.masks_from)
                                       then stacked.py's step: one backward, per seed its clip
                                       and its AdamW
    each evaluation, the end           stacked.py's, in each seed's own model (it reads its slices)

A seed's run is loop.train's on its seed, its numbers equal to float tolerance (tests/study/
test_seeds_at_once.py): padding adds terms that are exactly zero, and a batched product sums in
another order. What it saves is the fixed cost of a step (kernel launches, Python), which a GPU
pays and a 2-core CPU barely does; it adds the padding's work. fp32 and bf16 (fp16's loss scaling
is per run). The methods loop.train trains (the fine-tune, LoRA, BitFit): not SetFit's loop of its
own, nor the probe's fit.

A grid uses it on request: make grid SEEDS_AT_ONCE=1 -> study/worker.py hands each cell's missing
seeds to a worker as one job -> run_seeds (at the end) makes each seed's model with
freeze_study.py's own steps, as its run does, and trains them here where its method says it can
(methods.py). On CUDA a run alone draws its masks inside torch's fused kernels, which cannot be
shared this way: there each seed's masks are drawn as tensors, a draw of their own (the same
distribution, not the same masks).
"""

import signal
import time

import torch
import torch.nn as nn
from torch.func import functional_call, vmap

import freeze_study
import loop
import machine
from machine import autocast
from model import fill_uniforms, masks_from
from optim import lr_at
from plan import parse_args, plan_run
from rows import Layout, pack
from study.stacked import Logits, evaluate, new_runs, optimizers_for, results_of, stacked_weights, step_all

LAYOUT_FIELDS = ("cell", "position", "is_token", "first", "key_is_token")


def stream_of(device):
    """A generator holding the state torch's default one has now on `device`: the masks a run made
    here would draw from it next (take it once the run's model is built, before it trains)."""
    stream = torch.Generator(device)
    stream.set_state(torch.get_rng_state() if device.type == "cpu" else torch.cuda.get_rng_state(device))
    return stream


def on_meta(model):
    """The model's weights and buffers as meta tensors: their shapes alone, for functional_call."""
    return {name: torch.empty_like(t, device="meta") for name, t in (*model.named_parameters(), *model.named_buffers())}


def mask_shapes(model, meta_weights, batch, cached_depth):
    """[(shape, p)] of every dropout mask a run alone draws on this batch, in the order it draws them:
    its forward on the meta device (meta_weights: on_meta's), which computes nothing."""
    drawn = []

    def record(shape, p, device):
        drawn.append((tuple(shape), p))
        return torch.ones(shape, dtype=torch.bool, device=device)

    with masks_from(record):
        functional_call(Logits(model, cached_depth, torch.device("meta")),
                        {f"model.{name}": t for name, t in meta_weights.items()}, (batch,))
    return drawn


# Two made-up batches' sizes (B sentences, the longest T tokens, N rows): a mask's dimension that
# moves between them is the batch's, and which one its values say
MADE_UP_SIZES = (dict(B=5, T=7, N=29), dict(B=6, T=9, N=41))


def made_up_batch(example, B, T, N):
    """B sequences like `example` (token ids, or states), the first of T, N rows in all."""
    lengths = [T] * ((N - B) // (T - 1)) + [1 + (N - B) % (T - 1)]
    lengths += [1] * (B - len(lengths))
    return [example.new_zeros((length, *example.shape[1:])) for length in lengths]


def mask_template(model, meta_weights, example, cached_depth):
    """mask_shapes of any batch, or of the grid, as a function of its B, T and N: [(shape, p)], each
    dimension an int or the name of the size it is. A meta pass costs milliseconds of Python (its
    operations run torch's Python references), on every step and seed; two passes of made-up batches
    name the dimensions once (mask_shapes on each batch is the plain way, tested equal). ValueError
    where a dimension moves as no size does (no family here has one): its masks would not lie in one
    grid, and the seeds run alone."""
    first, second = MADE_UP_SIZES
    passes = [mask_shapes(model, meta_weights, made_up_batch(example, **sizes), cached_depth)
              for sizes in (first, second)]
    template = []
    for (shape, p), (other, _) in zip(*passes):
        named = []
        for size, other_size in zip(shape, other):
            name = next((n for n, v in first.items() if v == size and second[n] == other_size), None)
            if size != other_size and name is None:
                raise ValueError(f"a mask of shape {shape} moves with the batch as no size of it does, so several "
                                 "seeds cannot train at once: run them alone (without SEEDS_AT_ONCE)")
            named.append(size if size == other_size else name)
        template.append((tuple(named), p))
    return template


def shapes_at(template, **sizes):
    """The masks' shapes at these sizes (B, T, N), from mask_template's template."""
    return [(tuple(sizes[d] if isinstance(d, str) else d for d in shape), p) for shape, p in template]


def shapes_of(template, batch):
    """mask_shapes of `batch`, from mask_template's template."""
    return shapes_at(template, B=len(batch), T=max(len(x) for x in batch), N=sum(len(x) for x in batch))


def in_grid(rows, layout, B, T, N, pad_value):
    """A run's packed batch (rows (N_s, ...), its Layout over (B_s, T_s)) laid in a (B, T) grid with N
    rows: its own rows first, in the same order and places; then, for a batch of fewer sentences (a
    fold's last), an empty sentence's one row each, its key alone unmasked (attention over no key
    would be NaN); then padding rows in cells no token holds. No real row reads any of them: their
    keys are masked, pooling weighs them 0, and the loss reads the run's own sentences alone."""
    own_B, own_T = layout.grid
    sentence, place = layout.cell // own_T, layout.cell % own_T
    cell, empty = sentence * T + place, torch.arange(own_B, B) * T
    free = torch.ones(B * T, dtype=torch.bool)
    free[cell], free[empty] = False, False
    padding = free.nonzero().squeeze(1)[:N - len(cell) - len(empty)]
    key_is_token = torch.zeros(B, 1, 1, T, dtype=torch.bool)
    key_is_token[:own_B, ..., :own_T] = layout.key_is_token
    key_is_token[own_B:, ..., 0] = True
    added = len(empty) + len(padding)
    laid = Layout(torch.cat([cell, empty, padding]), torch.cat([layout.position, torch.cat([empty, padding]) % T]),
                  torch.cat([layout.is_token, torch.zeros(added, dtype=torch.bool)]),
                  torch.cat([layout.first, torch.arange(len(cell), len(cell) + len(empty))]), key_is_token, (B, T))
    return torch.cat([rows, rows.new_full((added, *rows.shape[1:]), pad_value)]), laid


def seeds_masks(own_shapes, grid_shapes, streams, device):
    """Every mask of the grid, all seeds' at once: [(S, *its shape in the grid)], seed s's numbers
    drawn from its stream at its own shape (own_shapes[s]), in its run alone's order, into the corner
    its rows and keys hold (model.fill_uniforms: >= p is its run's mask), False in the rest (padding,
    which no real row reads). One draw a seed and mask, where a mask drawn then padded and stacked
    took four and a stack."""
    masks = []
    for i, (shape, p) in enumerate(grid_shapes):
        uniforms = torch.zeros((len(streams), *shape), device=device)  # 0 < p: padding's mask is False
        for s, (own, stream) in enumerate(zip(own_shapes, streams)):
            fill_uniforms(uniforms[s][tuple(slice(0, size) for size in own[i][0])], stream)
        masks.append(uniforms >= p)
    return masks


class SeedsMasks:
    """model.masks_from's source inside the vmapped forward: its i-th mask, the seed's own i-th of
    the grid's (seeds_masks', vmapped: set by GridLogits)."""

    def __init__(self):
        self.masks, self.drawn = None, 0

    def __call__(self, shape, p, device):
        mask = self.masks[self.drawn]
        if tuple(mask.shape) != tuple(shape):
            raise RuntimeError(f"the grid's mask {self.drawn} is {tuple(mask.shape)}, the forward draws {tuple(shape)}")
        self.drawn += 1
        return mask


class GridLogits(nn.Module):
    """loop.states_of_rows and the head, on one seed's rows, masks and grid, as torch.func calls it."""

    def __init__(self, model, cached_depth, grid, source):
        super().__init__()
        self.model, self.cached_depth, self.grid, self.source = model, cached_depth, grid, source

    def forward(self, rows, masks, *fields):
        self.source.masks, self.source.drawn = masks, 0
        layout = Layout(*fields, self.grid)
        return self.model.classify(loop.states_of_rows(self.model, rows, layout, self.cached_depth))


def check_precision(configs):
    """fp16 refused: its loss scaling (a gradient scaler's) is per run, and skips a run's step alone."""
    if any(config.precision == "fp16" for config in configs):
        raise ValueError("several seeds at once train in fp32 or bf16, as fp16's loss scaling is per run: pass "
                         "--precision bf16 (make: PRECISION=bf16)")


def check_shared(models):
    """Every frozen weight the same in each seed's model: the seeds share them (the checkpoint's)."""
    first = dict(models[0].named_parameters())
    for model in models[1:]:
        for name, p in model.named_parameters():
            frozen_apart = not p.requires_grad and not torch.equal(p, first[name])
            if p.requires_grad != first[name].requires_grad or frozen_apart:
                raise ValueError(f"the seeds' models differ in {name}, which does not train: several seeds at once "
                                 "share every frozen weight")


def share_weights(models, stacked):
    """Each seed's model made to read its trainable weights from its slice of the stacked ones, and
    its frozen ones from the first model: a job holds each weight once. Otherwise each model keeps a
    copy of its slice beside it (roberta-base at k = 0: 0.5 GB a seed in float32; a job of five
    peaked 2.4 GB lower on a CPU, docs/records/seeds-at-once-masks-2026-12-05)."""
    first = dict(models[0].named_parameters())
    with torch.no_grad():
        for r, model in enumerate(models):
            for name, p in model.named_parameters():
                p.data = stacked[name].detach()[r] if name in stacked else first[name].data


def seeds_logits(models, template, stacked, fixed, batches, streams, inputs_of, config):
    """Every run's logits on its batch, (S, B, num_labels), B its largest batch's: its masks from its
    stream (at the shapes its run alone draws: template, mask_template's), all in one grid."""
    device, cached_depth = inputs_of[0].device, inputs_of[0].cached_depth
    pad_value = loop.pad_value(models[0], cached_depth)
    packed = [pack(batch, True, pad_value) for batch in batches]
    B, T = max(len(batch) for batch in batches), max(layout.grid[1] for _, layout in packed)
    N = max(len(rows) + B - len(batch) for (rows, _), batch in zip(packed, batches))
    masks = seeds_masks([shapes_of(template, batch) for batch in batches], shapes_at(template, B=B, T=T, N=N),
                        streams, device)
    laid = [in_grid(rows, layout, B, T, N, pad_value) for rows, layout in packed]
    rows = torch.stack([rows for rows, _ in laid]).to(device)
    fields = [torch.stack([getattr(layout, name) for _, layout in laid]).to(device) for name in LAYOUT_FIELDS]
    logits_of = GridLogits(models[0], cached_depth, (B, T), SeedsMasks())
    call = lambda weights, *seed_inputs: functional_call(
        logits_of, {**{f"model.{k}": v for k, v in weights.items()}, **fixed}, seed_inputs)
    with masks_from(logits_of.source), autocast(device, config.precision):
        return vmap(call, randomness="error")(stacked, rows, masks, *fields)


def step_plans(configs, inputs_of):
    """Each run's loop.step_plan, as lists; the runs must step and evaluate alike (one n, or folds
    whose training examples make the same steps)."""
    plans = [list(loop.step_plan(len(inputs.train_labels), config)) for config, inputs in zip(configs, inputs_of)]
    if len({tuple((step, evaluates) for step, _, evaluates in plan) for plan in plans}) > 1:
        raise ValueError("several runs at once step and evaluate alike: these runs' training examples make other "
                         "steps (folds of other sizes?)")
    return plans


def train_seeds(models, configs, inputs, streams, log=print):
    """loop.train of each seed's model on its config (the same but for the seed), all at once. models:
    each built from its seed (its head's first weights), its frozen weights the others'; inputs: their
    one RunInputs, or each run's (the folds of one labelled file: a fold's own training examples and
    dev split); streams: each seed's generator (stream_of, taken as its model was built). Each seed's
    chosen weights are returned in its result, and its model is left holding them."""
    check_precision(configs)
    check_shared(models)
    inputs_of = inputs if isinstance(inputs, list) else [inputs] * len(models)
    plans, device = step_plans(configs, inputs_of), inputs_of[0].device
    schedules = [loop.schedule(len(i.train_labels), config) for config, i in zip(configs, inputs_of)]
    labels_of = [torch.as_tensor(i.train_labels).to(device) for i in inputs_of]
    stacked = stacked_weights(models)
    share_weights(models, stacked)
    fixed = {f"model.{name}": p for name, p in models[0].named_parameters() if not p.requires_grad}
    models[0].train()  # the masks a training step draws
    template = mask_template(models[0], on_meta(models[0]), inputs_of[0].train[0], inputs_of[0].cached_depth)
    optimizers, slices = optimizers_for(models[0], stacked, [config.lr for config in configs], configs[0], inputs_of)
    runs, began = new_runs(len(models)), time.perf_counter()
    for steps in zip(*plans):
        step, evaluates = steps[0][0], steps[0][2]  # alike in every run (step_plans)
        lrs = [lr_at(step, warmup, total, config.lr) for (_, total, warmup, _), config in zip(schedules, configs)]
        for model in models:
            model.train()
        batches = [[i.train[e] for e in batch] for (_, batch, _), i in zip(steps, inputs_of)]
        logits = seeds_logits(models, template, stacked, fixed, batches, streams, inputs_of, configs[0])
        labels = [run_labels[batch.to(device)] for (_, batch, _), run_labels in zip(steps, labels_of)]
        losses = step_all([logits[r, :len(batch)] for r, batch in enumerate(batches)], stacked, optimizers, slices,
                          labels, lrs, configs[0])
        for run, loss in zip(runs, losses):
            run["losses"].append(loss)
        if evaluates:
            for r, (model, run) in enumerate(zip(models, runs)):
                evaluate(model, stacked, r, run, configs[r], inputs_of[r], step, lrs[r], began, log)
    return results_of(models, configs, optimizers, runs, inputs_of, began)


# ----------------------------------------------------------------------------------------------
# A grid's job: a cell's seeds, each its own run but for the training

def main_seeds(argvs):
    """Several seeds of one cell at once (study/worker.py's jobs under --seeds-at-once): run_seeds,
    as freeze_study.main runs one."""
    signal.signal(signal.SIGTERM, freeze_study.interrupt)
    runs_args = [parse_args(argv) for argv in argvs]
    freeze_study.as_a_command(lambda: run_seeds(runs_args, log=lambda line: print(line, flush=True)))


def run_seeds(runs_args, log=print):
    """Several seeds of one cell, their training steps taken together: each seed's plan, checks,
    model, record and log line as freeze_study.run makes them (its own steps). Returns their
    records. A method whose steps cannot be taken at once (SetFit's loop, the probe's fit) runs
    each seed alone, one after another."""
    began = time.perf_counter()
    task = freeze_study.load_task(runs_args[0])
    plans = [plan_run(args, task) for args in runs_args]
    if not plans[0].method.seeds_at_once:
        return [freeze_study.run(args, log) for args in runs_args]
    check_precision([plan.train_config for plan in plans])  # before any work: one line
    subsets = [freeze_study.checked_subset(plan, task) for plan in plans]
    machine.prepare(plans[0].device)
    tasks, prepared, streams = [], [], []
    for plan, indices in zip(plans, subsets):
        its_task, indices, held = freeze_study.one_file_splits(plan, task, indices)  # a fold: its own dev split
        tasks.append(its_task)
        prepared.append(freeze_study.prepare(plan, its_task, indices, held))
        streams.append(stream_of(plan.device))  # its dropout masks' stream, as its run alone has it
    if plans[0].device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(plans[0].device)
    train_log = (lambda line: None) if plans[0].quiet else log
    histories = train_seeds([model for model, *_ in prepared], [plan.train_config for plan in plans],
                            [inputs for _, inputs, *_ in prepared], streams, train_log)
    share, count = (time.perf_counter() - began) / len(plans), len(plans)  # each seed's share of the seconds
    return [freeze_study.finish(plan, its_task, classifier, inputs, history, max_length, prefix_cost, share, log,
                                at_once=count)
            for plan, its_task, (classifier, inputs, max_length, prefix_cost), history
            in zip(plans, tasks, prepared, histories)]
