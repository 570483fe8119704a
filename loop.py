"""
The training loop, written out: what a training gets (protocol.TrainConfig, RunInputs) and returns
(TrainResult), one batch's logits, evaluation, one training step, and the loop with its schedule of
evaluations and its choice among them. The optimizer step is optim.py's; what trains is
trainable.py's.

Every function that runs the model reads `cached_depth`: None when its inputs are token ids (the
embeddings and every layer run), or k when they are the frozen prefix's states after the
embeddings and k layers (cache.py), so only layers k+1..L run. Frozen layers cannot change, so
with the cache training computes the same thing, but for dropout inside the frozen layers, which
--no-cache keeps, as the Hugging Face Trainer runs them.
"""

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

import metrics
from machine import autocast
from optim import AdamW, lr_at, optimizer_step, state_bytes, used_word_rows
from rows import length_sorted_batches, pack


@dataclass
class RunInputs:
    """What a method trains on and is scored on. train and dev hold, per example, token ids (T_i,)
    (or token and segment ids (T_i, 2)) when cached_depth is None, else the frozen prefix's states
    (T_i, H) entering layer cached_depth."""
    train: list
    train_labels: np.ndarray  # (n,) classes, or scores for regression
    dev: list
    dev_labels: np.ndarray
    cached_depth: int | None
    device: torch.device
    # your own test file (--test-file), held as train and dev are: scored at the end with the chosen
    # weights, read by no choice
    test: list | None = None
    test_labels: np.ndarray | None = None


@dataclass
class TrainResult:
    """What a method's training returns, whichever method: the run's chosen evaluation and how it
    got there."""
    chosen: dict  # the run's evaluation: its step and every dev metric there
    train_scores: dict  # the training subset scored with the chosen evaluation's weights
    curve: list = field(default_factory=list)  # every evaluation (the recipe's; one fit has none)
    losses: list = field(default_factory=list)  # every optimizer step's loss
    total_steps: int = 0
    warmup_steps: int = 0
    eval_every: int = 0
    train_seconds: float = 0.0
    eval_seconds: float = 0.0
    details: dict | None = None  # what the method records of itself (the probe's strength, SetFit's pairs)
    optimizer_state_bytes: int | None = None  # AdamW's moments and steps at the end (None: no optimizer)
    fitted_head: tuple | None = None  # a fitted linear head, (weight (H, C), bias (C,)) float64: the probe's, SetFit's
    test_scores: dict | None = None  # the test file (RunInputs.test) scored with the chosen weights; None without one
    # the model's outputs per example (outputs_of: class probabilities, or scores) on the dev split at
    # the fair point (the last evaluation, or the one score) and on the test file with the weights
    # test_scores reads (the same point for a run that evaluates once): what the search compares
    # cells on, example by example (study/paired.py)
    dev_outputs: np.ndarray | None = None
    test_outputs: np.ndarray | None = None


def pooled_states(model, inputs, cached_depth, device, skip_padding=True):
    """One state per example (B, H), as the model pools it (inputs as RunInputs holds them).
    skip_padding=False: the plain padded layout, the same computation."""
    packed, layout = pack(inputs, skip_padding, pad_value(model, cached_depth))
    return states_of_rows(model, packed.to(device), layout.to(device), cached_depth)


def pad_value(model, cached_depth):
    """What fills a padding row: the pad token's id, or zeros for the frozen prefix's states."""
    return model.config.pad_token_id if cached_depth is None else 0.0


def states_of_rows(model, rows, layout, cached_depth):
    """pooled_states of a batch already packed (rows.pack): its rows and their Layout, on the device."""
    hidden = model.embed(rows, layout) if cached_depth is None else rows
    return model.sentence_states(hidden, layout, cached_depth or 0)


def logits_for(model, inputs, cached_depth, device, skip_padding=True):
    """Logits for a batch of examples (inputs as for pooled_states)."""
    return model.classify(pooled_states(model, inputs, cached_depth, device, skip_padding))


# ----------------------------------------------------------------------------------------------
# Evaluation and training

def loss_of(logits, labels):
    """Cross-entropy over the classes; mean squared error for a regression head (one output), as
    transformers' *ForSequenceClassification computes it for num_labels == 1."""
    if logits.shape[-1] == 1:
        return F.mse_loss(logits.float().squeeze(-1), labels)
    return F.cross_entropy(logits.float(), labels)


@torch.inference_mode()
def outputs_of(model, inputs, cached_depth, device, precision="fp32", batch_size=64, skip_padding=True):
    """Per example, in the order of `inputs`, what the model outputs: its class probabilities (N, C),
    the softmax of its logits in float32, or its score (N,) for a regression head; from
    length-sorted batches (skip_padding=False: the plain padded layout, for benchmarks)."""
    model.eval()
    regression = model.config.num_labels == 1
    outputs = np.empty((len(inputs),) if regression else (len(inputs), model.config.num_labels), dtype=np.float32)
    for batch in length_sorted_batches([len(x) for x in inputs], batch_size):
        with autocast(device, precision):
            logits = logits_for(model, [inputs[i] for i in batch], cached_depth, device, skip_padding)
        outputs[batch] = (logits.float()[:, 0] if regression else logits.float().softmax(-1)).cpu().numpy()
    return outputs


def predicted(outputs):
    """The prediction per example of outputs_of's (or a fitted head's) outputs: the likeliest class, or the score."""
    return outputs if outputs.ndim == 1 else outputs.argmax(-1)


def predict(model, inputs, cached_depth, device, precision="fp32", batch_size=64, skip_padding=True):
    """Predicted class (or score, for regression) per example, in the order of `inputs`."""
    return predicted(outputs_of(model, inputs, cached_depth, device, precision, batch_size, skip_padding))


def train_step(model, optimizer, scaler, params, inputs, labels, cached_depth, device, config, skip_padding=True):
    """One optimizer step on one batch; returns its loss."""
    model.train()  # dropout on, in every layer that runs (frozen ones too, without the cache)
    with autocast(device, config.precision):
        logits = logits_for(model, inputs, cached_depth, device, skip_padding)
    loss = loss_of(logits, labels)
    optimizer_step(loss, optimizer, scaler, params, config.max_grad_norm)
    return loss.item()


def schedule(n, config):
    """The run's step counts for n training examples: (steps_per_epoch, total_steps, warmup_steps,
    eval_every). The dev split is scored every half epoch, as the study's Trainer did."""
    steps_per_epoch = math.ceil(n / config.batch_size)
    eval_every = max(1, math.ceil(n / (2 * config.batch_size)))
    return steps_per_epoch, steps_per_epoch * config.epochs, steps_per_epoch * config.warmup_epochs, eval_every


def trainable_copy(model):
    """The trainable weights, copied to host memory: only they change, so only they are kept, and
    a copy on the GPU would add their size to the run's peak memory."""
    return {name: p.detach().to("cpu", copy=True) for name, p in model.named_parameters() if p.requires_grad}


def log_point(log, point, total_steps):
    dev = " | ".join(f"{name} {point[name]:.4f}" for name in metrics.NAMES if name in point)
    log(f"step {point['step']:4d}/{total_steps} | epoch {point['epoch']:5.2f} | loss {point['train_loss']:.4f} "
        f"| lr {point['lr']:.2e} | dev {dev} | {point['seconds']:.1f}s")


def evaluation_point(model, config, inputs, step, steps_per_epoch, losses, lr, began):
    """One evaluation of the curve: the whole dev split scored, with where the run stands; and the
    model's outputs on each dev example (outputs_of), which the run keeps from its last evaluation."""
    outputs = outputs_of(model, inputs.dev, inputs.cached_depth, inputs.device, config.precision, config.eval_batch_size)
    point = dict(step=step, epoch=round(step / steps_per_epoch, 2), train_loss=float(np.mean(losses)), lr=lr,
                 **metrics.dev_scores(inputs.dev_labels, predicted(outputs), model.config.num_labels),
                 seconds=round(time.perf_counter() - began, 2))
    return point, outputs


def step_plan(n, config):
    """The run's optimizer steps in order: (step, 0-based; the batch's example indices, drawn by the
    seed's shuffle each epoch; whether the dev split is scored after it). config.evaluations ==
    "last": only the last of the half-epoch evaluations, and no step after it."""
    steps_per_epoch, total_steps, warmup_steps, eval_every = schedule(n, config)
    last_evaluation = total_steps if config.eval_at_end else total_steps - total_steps % eval_every
    shuffle = torch.Generator().manual_seed(config.seed)
    step = 0
    for epoch in range(config.epochs):
        for batch in torch.randperm(n, generator=shuffle).split(config.batch_size):
            if config.evaluations == "last" and step >= last_evaluation:
                return  # nothing after the last evaluation is read: a run that reads only it stops there
            step += 1
            evaluates = step % eval_every == 0 or (config.eval_at_end and step == total_steps)
            yield step - 1, batch, evaluates and (config.evaluations == "every" or step == last_evaluation)


def chooses(point, chosen, config):
    """Whether the evaluation `point` becomes the run's chosen one (config.selection: its best,
    the first of equal bests, or its last)."""
    return config.selection == "last" or chosen is None or point[config.metric] > chosen[config.metric]


def train_scores_with(model, weights, config, inputs):
    """The training subset scored once, in eval mode, with the chosen evaluation's weights: its
    gap to the dev score is how far the run over-fits."""
    model.load_state_dict(weights, strict=False)
    predictions = predict(model, inputs.train, inputs.cached_depth, inputs.device, config.precision, config.eval_batch_size)
    return metrics.scores(np.asarray(inputs.train_labels), predictions, model.config.num_labels)


def test_scores_of(model, config, inputs):
    """The test file, if the run has one, scored once as the dev split is, by the weights the model
    holds (the chosen evaluation's, after train_scores_with): (its scores, the outputs per example),
    a figure no choice of the run reads; (None, None) without one."""
    if inputs.test is None:
        return None, None
    outputs = outputs_of(model, inputs.test, inputs.cached_depth, inputs.device, config.precision, config.eval_batch_size)
    return metrics.scores(np.asarray(inputs.test_labels), predicted(outputs), model.config.num_labels), outputs


def train(model, config, inputs, log=print):
    """
    Fine-tune the parameters that require grad on inputs.train. Evaluates on the whole dev split
    every half epoch and picks the run's evaluation (config.selection: its best, the first of equal
    bests, or its last); then scores the training subset (and a test file, if given) with that
    evaluation's weights, restored.
    config.evaluations == "last": only the last of those evaluations (the fair score), and no step
    after it: the same computation up to there, for the search that reads nothing else.
    """
    n, device = len(inputs.train_labels), inputs.device
    steps_per_epoch, total_steps, warmup_steps, eval_every = schedule(n, config)
    labels = torch.as_tensor(inputs.train_labels).to(device)
    params = [p for p in model.parameters() if p.requires_grad]  # frozen ones never reach AdamW
    optimizer = AdamW([dict(params=params, weight_decay=config.weight_decay)], lr=config.lr, betas=config.betas,
                      eps=config.eps, used_rows=used_word_rows(model, inputs.train, inputs.cached_depth))
    scaler = torch.amp.GradScaler(device.type, enabled=config.precision == "fp16")
    curve, losses, eval_seconds, began = [], [], 0.0, time.perf_counter()
    chosen, chosen_weights, dev_outputs = None, None, None
    for step, batch, evaluates in step_plan(n, config):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, warmup_steps, total_steps, config.lr)
        losses.append(train_step(model, optimizer, scaler, params, [inputs.train[i] for i in batch],
                                 labels[batch.to(device)], inputs.cached_depth, device, config))
        if evaluates:
            eval_began = time.perf_counter()
            point, dev_outputs = evaluation_point(model, config, inputs, step + 1, steps_per_epoch, losses[-eval_every:],
                                                  optimizer.param_groups[0]["lr"], began)  # the last: the fair point's
            eval_seconds += time.perf_counter() - eval_began
            curve.append(point)
            if chooses(point, chosen, config):
                chosen, chosen_weights = point, trainable_copy(model)  # the first of equal bests
            log_point(log, point, total_steps)
    train_seconds = time.perf_counter() - began - eval_seconds
    scoring_began = time.perf_counter()
    train_scores = train_scores_with(model, chosen_weights, config, inputs)
    test_scores, test_outputs = test_scores_of(model, config, inputs)
    return TrainResult(chosen=chosen, train_scores=train_scores, curve=curve, losses=losses, total_steps=total_steps,
                       warmup_steps=warmup_steps, eval_every=eval_every, train_seconds=train_seconds,
                       eval_seconds=eval_seconds + time.perf_counter() - scoring_began,
                       optimizer_state_bytes=state_bytes(optimizer), test_scores=test_scores,
                       dev_outputs=dev_outputs, test_outputs=test_outputs)
