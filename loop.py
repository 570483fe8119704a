"""
Fine-tuning, written out: freezing by requires_grad, AdamW, the warmup / linear-decay schedule,
mixed precision, one optimizer step, evaluation, and the training loop with its choice of
evaluation.

Every function that runs the model takes `cached_depth`: None when its inputs are token ids (the
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
from torch.optim.adamw import adamw as adamw_update  # torch's functional AdamW

import metrics
from machine import autocast
from model import initialize_
from rows import length_sorted_batches, pack


@dataclass
class TrainConfig:
    """The study's protocol (the Hugging Face Trainer's defaults it ran with)."""
    freeze: int = 0  # -1: embeddings only; 0: nothing; k >= 1: embeddings + layers [0, k)
    epochs: int = 10
    batch_size: int = 16
    lr: float = 5e-5
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    warmup_epochs: int = 1  # linear warmup over this many epochs (the study: one; Lee et al.: none)
    eval_at_end: bool = False  # also evaluate after the last step when it is not on the interval
    metric: str = "accuracy"  # the task's primary metric: it picks the run's evaluation
    selection: str = "best"  # the run's evaluation: its best (the study), or its last (Lee et al.)
    eval_batch_size: int = 64  # evaluation only: it changes speed, not results
    seed: int = 1
    precision: str = "fp32"  # fp32, bf16 (autocast), or on CUDA fp16 (autocast + gradient scaler)
    skip_padding: bool = True  # False: the plain padded layout, the same computation (for tests)


def lr_at(step, warmup_steps, total_steps, peak_lr):
    """Learning rate of optimizer step `step` (0-based): linear warmup from 0 over warmup_steps,
    then linear decay to 0 at total_steps. Step 0 runs at lr 0, as in transformers."""
    if step < warmup_steps:
        return peak_lr * step / max(1, warmup_steps)
    return peak_lr * max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))


class AdamW:
    """torch.optim.AdamW(fused=True), the Trainer's adamw_torch_fused: the same state and torch's
    own fused update (its functional form), so the same weights bit for bit (tests/test_loop.py).
    Written without torch's Optimizer class, whose first use imports torch's compiler; GradScaler
    drives it as any optimizer, through param_groups and step().

    used_rows: {parameter: row indices}, the only rows of that parameter whose gradient can be
    nonzero (the word embedding's rows of the tokens a training set uses). A row whose gradient has
    always been zero has zero moments, so AdamW moves it by weight decay alone: the fused update
    runs on the used rows only and the decay on the whole tensor, the same weights bit for bit."""

    def __init__(self, groups, lr, betas=(0.9, 0.999), eps=1e-8, used_rows=None):
        # groups: dicts of params and weight_decay, as torch's optimizers take them
        self.param_groups = [dict(params=list(group["params"]), weight_decay=group.get("weight_decay", 0.0), lr=lr)
                             for group in groups]
        self.betas, self.eps, self.used_rows = betas, eps, used_rows or {}
        self.state = {}  # parameter -> (step, exp_avg, exp_avg_sq), made at its first gradient

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            whole = [p for p in params if p not in self.used_rows]
            self.update(whole, [p.grad for p in whole], whole, group["lr"], group["weight_decay"])
            for p in params:
                if p in self.used_rows:
                    rows = self.used_rows[p]
                    if group["weight_decay"]:
                        decay(p, group["lr"], group["weight_decay"])
                    view = p.index_select(0, rows)  # (R, H), a copy
                    self.update([view], [p.grad.index_select(0, rows)], [p], group["lr"], 0.0)
                    p.index_copy_(0, rows, view)

    def update(self, params, grads, keys, lr, weight_decay):
        """torch's fused AdamW step on params; the moments are kept under keys (the parameters)."""
        for p, key in zip(params, keys):
            if key not in self.state:  # a float32 step on the parameter's device, as fused AdamW keeps it
                self.state[key] = (torch.zeros((), dtype=torch.float32, device=p.device),
                                   torch.zeros_like(p, memory_format=torch.preserve_format),
                                   torch.zeros_like(p, memory_format=torch.preserve_format))
        steps, exp_avgs, exp_avg_sqs = ([self.state[key][i] for key in keys] for i in range(3))
        if params:
            adamw_update(params, grads, exp_avgs, exp_avg_sqs, [], steps, fused=True, amsgrad=False,
                         beta1=self.betas[0], beta2=self.betas[1], lr=lr, weight_decay=weight_decay, eps=self.eps,
                         maximize=False)


def decay(p, lr, weight_decay):
    """AdamW's decoupled decay, p *= 1 - lr * weight_decay, rounded as torch's fused update rounds
    it on p's device: on the CPU p * (1 - lr * weight_decay) in float32; on CUDA, as its kernel's
    `param -= lr * weight_decay * param` in float32 with one rounding (docs/gpu.md)."""
    if p.is_cuda:
        lr32, decay32 = torch.tensor([lr, weight_decay], dtype=torch.float32)
        rate = (lr32 * decay32).item()  # the kernel's lr x decay, rounded to float32
        wide = p.double()  # rate * p is exact in float64, so p - rate * p rounds as a float32 FMA does
        p.copy_(wide - rate * wide)
    else:
        p.mul_(1 - lr * weight_decay)


def used_word_rows(model, inputs, cached_depth):
    """AdamW's `used_rows` for a training set: {the word embedding: the rows of the token ids
    `inputs` hold}, when the word embedding trains on them; else {} (it is frozen, or the inputs
    are cached states). The pad token's row is in too: the padded layout looks it up."""
    word = model.embed.word.weight
    if cached_depth is not None or not word.requires_grad:
        return {}
    ids = torch.cat([x if x.dim() == 1 else x[:, 0] for x in inputs] + [torch.tensor([model.config.pad_token_id])])
    return {word: torch.unique(ids).to(word.device)}


def optimizer_step(loss, optimizer, scaler, params, max_grad_norm):
    """Backward, clip, step: the one optimizer step of every method. In fp16 the scaler scales the
    loss up (fp16 gradients can underflow), unscales before clipping and skips a step with an
    inf; elsewhere it is a no-op."""
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
    scaler.step(optimizer)
    scaler.update()


def freeze(model, k):
    """requires_grad=False on the embeddings and the first k layers (k=-1: embeddings only); from
    k = 1 on MPNet's relative position bias too, since it feeds the frozen (and cached) layers."""
    if not -1 <= k <= model.config.num_layers:
        raise ValueError(f"--freeze {k} is outside [-1, {model.config.num_layers}] for this "
                         f"{model.config.num_layers}-layer model")
    model.requires_grad_(True)
    if k != 0:
        model.embed.requires_grad_(False)
        model.layers[:max(k, 0)].requires_grad_(False)
    if k >= 1 and model.relative_bias is not None:
        model.relative_bias.requires_grad_(False)


def reinitialize_top(model, n, k):
    """Reset the top n layers to a fresh layer's initialisation before fine-tuning (Zhang et al.
    2021, "Revisiting Few-sample BERT Fine-tuning"): the counterpart of freezing the bottom k, and
    with it at most the whole model."""
    L = model.config.num_layers
    if not 0 <= n <= L - max(k, 0):
        raise ValueError(f"--reinit {n} with --freeze {k}: the reset layers and the frozen ones must not overlap "
                         f"(k + N <= {L} for this {L}-layer model)")
    for layer in model.layers[L - n:]:
        initialize_(layer, model.config.initializer_range)


def pooled_states(model, inputs, cached_depth, device, skip_padding=True):
    """One state per example (B, H), as the model pools it. `inputs` are token ids (T_i,) when
    cached_depth is None, else cached hidden states (T_i, H) entering layer cached_depth."""
    packed, layout = pack(inputs, skip_padding, model.config.pad_token_id if cached_depth is None else 0.0)
    packed, layout = packed.to(device), layout.to(device)
    hidden = model.embed(packed, layout) if cached_depth is None else packed
    return model.sentence_states(hidden, layout, cached_depth or 0)


def logits_for(model, inputs, cached_depth, device, skip_padding=True):
    """Logits for a batch of examples (inputs as for pooled_states)."""
    return model.classify(pooled_states(model, inputs, cached_depth, device, skip_padding))


def sentence_embeddings(model, inputs, cached_depth, device):
    """A sentence embedder's output (B, H) float32 for a batch: the pooled states, L2-normalised
    when the model says so (a checkpoint whose sentence-transformers modules end in Normalize)."""
    states = pooled_states(model, inputs, cached_depth, device).float()
    return F.normalize(states, dim=-1) if model.normalize else states


@torch.inference_mode()
def all_sentence_embeddings(model, inputs, cached_depth, device, precision, batch_size=64):
    """sentence_embeddings of every example, in eval mode and length-sorted batches: (N, H) numpy."""
    model.eval()
    out = np.empty((len(inputs), model.config.hidden_size), dtype=np.float32)
    for batch in length_sorted_batches([len(x) for x in inputs], batch_size):
        with autocast(device, precision):
            out[batch] = sentence_embeddings(model, [inputs[i] for i in batch], cached_depth, device).cpu().numpy()
    return out


# ----------------------------------------------------------------------------------------------
# Evaluation and training

def loss_of(logits, labels):
    """Cross-entropy over the classes; mean squared error for a regression head (one output), as
    transformers' *ForSequenceClassification computes it for num_labels == 1."""
    if logits.shape[-1] == 1:
        return F.mse_loss(logits.float().squeeze(-1), labels)
    return F.cross_entropy(logits.float(), labels)


@torch.inference_mode()
def predict(model, inputs, cached_depth, device, config):
    """Predicted class (or score, for regression) per example, in the order of `inputs`, from
    length-sorted batches."""
    model.eval()
    regression = model.config.num_labels == 1
    predictions = np.empty(len(inputs), dtype=np.float32 if regression else np.int64)
    for batch in length_sorted_batches([len(x) for x in inputs], config.eval_batch_size):
        with autocast(device, config.precision):
            logits = logits_for(model, [inputs[i] for i in batch], cached_depth, device, config.skip_padding)
        predictions[batch] = (logits.float()[:, 0] if regression else logits.argmax(-1)).cpu().numpy()
    return predictions


def train_step(model, optimizer, scaler, params, inputs, labels, cached_depth, device, config):
    """One optimizer step on one batch; returns its loss."""
    model.train()  # dropout on, in every layer that runs (frozen ones too, without the cache)
    with autocast(device, config.precision):
        logits = logits_for(model, inputs, cached_depth, device, config.skip_padding)
    loss = loss_of(logits, labels)
    optimizer_step(loss, optimizer, scaler, params, config.max_grad_norm)
    return loss.item()


@dataclass
class TrainResult:
    """What a method's training returns, whichever method (the recipe's fine-tune, SetFit, the
    probe): the run's chosen evaluation and how it got there."""
    chosen: dict  # the run's evaluation: its step and every dev metric there
    train_scores: dict  # the training subset scored with the chosen evaluation's weights
    curve: list = field(default_factory=list)  # every evaluation (the recipe's; one fit has none)
    losses: list = field(default_factory=list)  # every optimizer step's loss
    total_steps: int = 0
    warmup_steps: int = 0
    eval_every: int = 0
    train_seconds: float = 0.0
    eval_seconds: float = 0.0
    probe: dict | None = None  # the probe's strength and its cross-validation
    setfit: dict | None = None  # SetFit's pairs
    optimizer_state_bytes: int | None = None  # AdamW's moments and steps at the end (None: no optimizer)


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


def state_bytes(optimizer):
    """The bytes AdamW keeps: its moments (for the used word rows only, where it updates those) and steps."""
    return sum(t.numel() * t.element_size() for state in optimizer.state.values() for t in state)


def log_point(log, point, total_steps):
    dev = " | ".join(f"{name} {point[name]:.4f}" for name in metrics.NAMES if name in point)
    log(f"step {point['step']:4d}/{total_steps} | epoch {point['epoch']:5.2f} | loss {point['train_loss']:.4f} "
        f"| lr {point['lr']:.2e} | dev {dev} | {point['seconds']:.1f}s")


def train(model, config, train_inputs, train_labels, dev_inputs, dev_labels, cached_depth, device, log=print):
    """
    Fine-tune the parameters that require grad (inputs as for pooled_states). Evaluates on the
    whole dev split every half epoch and picks the run's evaluation (config.selection: its best,
    the first of equal bests, or its last); then scores the training subset with that
    evaluation's weights, restored.
    """
    n = len(train_labels)
    steps_per_epoch, total_steps, warmup_steps, eval_every = schedule(n, config)
    labels = torch.as_tensor(train_labels).to(device)
    params = [p for p in model.parameters() if p.requires_grad]  # frozen ones never reach AdamW
    optimizer = AdamW([dict(params=params, weight_decay=config.weight_decay)], lr=config.lr, betas=config.betas,
                      eps=config.eps, used_rows=used_word_rows(model, train_inputs, cached_depth))
    scaler = torch.amp.GradScaler(device.type, enabled=config.precision == "fp16")
    shuffle = torch.Generator().manual_seed(config.seed)
    curve, losses, eval_seconds, began = [], [], 0.0, time.perf_counter()
    chosen, chosen_weights, step = None, None, 0
    for epoch in range(config.epochs):
        for batch in torch.randperm(n, generator=shuffle).split(config.batch_size):
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step, warmup_steps, total_steps, config.lr)
            losses.append(train_step(model, optimizer, scaler, params, [train_inputs[i] for i in batch],
                                     labels[batch.to(device)], cached_depth, device, config))
            step += 1
            if step % eval_every == 0 or (config.eval_at_end and step == total_steps):
                eval_began = time.perf_counter()
                predictions = predict(model, dev_inputs, cached_depth, device, config)
                eval_seconds += time.perf_counter() - eval_began
                point = dict(step=step, epoch=round(step / steps_per_epoch, 2),
                             train_loss=float(np.mean(losses[-eval_every:])), lr=optimizer.param_groups[0]["lr"],
                             **metrics.scores(dev_labels, predictions, model.config.num_labels),
                             seconds=round(time.perf_counter() - began, 2))
                curve.append(point)
                if config.selection == "last" or chosen is None or point[config.metric] > chosen[config.metric]:
                    chosen, chosen_weights = point, trainable_copy(model)  # the first of equal bests
                log_point(log, point, total_steps)
    train_seconds = time.perf_counter() - began - eval_seconds
    # the training subset scored once, in eval mode, with the chosen evaluation's weights: its gap
    # to the dev score is how far the run over-fits
    scoring_began = time.perf_counter()
    model.load_state_dict(chosen_weights, strict=False)
    train_scores = metrics.scores(np.asarray(train_labels), predict(model, train_inputs, cached_depth, device, config),
                                  model.config.num_labels)
    return TrainResult(chosen=chosen, train_scores=train_scores, curve=curve, losses=losses, total_steps=total_steps,
                       warmup_steps=warmup_steps, eval_every=eval_every, train_seconds=train_seconds,
                       eval_seconds=eval_seconds + time.perf_counter() - scoring_began,
                       optimizer_state_bytes=state_bytes(optimizer))
