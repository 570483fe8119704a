"""
SetFit (Tunstall et al. 2022, the setfit library's defaults), written out: few-shot classification
in two stages, reusing the encoder, the frozen-prefix cache and the loop's pieces.

1. Contrastive fine-tuning of the body. Every pair of training sentences (each sentence with
   itself too) is positive when their labels agree and negative otherwise; the rarer kind is
   repeated until both are as many as the commoner (setfit's "oversampling"; 50 examples make
   about 1,300 pairs). One epoch over the shuffled pairs, batches of 16: each side's sentence
   embedding (the checkpoint's own pooling), their cosine, and its squared error against 1 or 0.
   AdamW at the run's rate (setfit's own is 2e-5; methods.py's default moves with n) with weight
   decay 0.01 (not on biases and LayerNorms), warmup over the first tenth, then linear decay;
   gradients clipped to norm 1.
2. A logistic-regression head (scikit-learn's LogisticRegression with its defaults: C = 1, L2,
   the intercept unpenalised) fitted to the fine-tuned embeddings of the training sentences, in
   eval mode; the dev split is scored once, at the end.

With k layers frozen, each sentence's frozen prefix comes from the cache, and every pair runs only
layers k+1..L, where the library runs every frozen layer again for both sides of every pair.
"""

import math
import time

import numpy as np
import torch
import torch.nn.functional as F

import metrics
import probe
from loop import TrainResult
from machine import autocast
from optim import AdamW, lr_at, optimizer_step, state_bytes, used_word_rows
from probe import all_sentence_embeddings, sentence_embeddings

# setfit 1.2's TrainingArguments defaults for the body's contrastive stage, but its rate: the run's
BATCH_SIZE = 16
WEIGHT_DECAY = 0.01
WARMUP_PROPORTION = 0.1
MAX_GRAD_NORM = 1.0
HEAD_C = 1.0  # LogisticRegression's inverse L2 strength


def contrastive_pairs(labels, rng, num_iterations=None):
    """(first, second, target) index arrays of setfit's pairs: every pair i <= j of the training
    sentences, in a random order, positive (target 1) when the labels agree; then as many of each
    kind as the commoner has (num_iterations: num_iterations x n of each instead), the rarer kind
    cycled from its start, positives and negatives alternating."""
    n = len(labels)
    first, second = np.triu_indices(n)  # with i == j: a sentence and itself is a positive pair
    order = rng.permutation(len(first))
    first, second = first[order], second[order]
    positive = labels[first] == labels[second]
    kinds = [np.flatnonzero(positive), np.flatnonzero(~positive)]
    if not len(kinds[0]) or not len(kinds[1]):
        raise ValueError("SetFit's pairs need two classes in the training subset, and this one has one")
    count = num_iterations * n if num_iterations else max(len(kinds[0]), len(kinds[1]))
    chosen = np.stack([np.resize(kind, count) for kind in kinds], axis=1).reshape(-1)  # pos, neg, pos, neg, ...
    return first[chosen], second[chosen], positive[chosen].astype(np.float32)


def decays(name):
    """The Trainer's rule: weight decay on every weight but biases and LayerNorms."""
    return not (name.endswith(".bias") or "norm" in name)


def train_body(model, inputs, labels, cached_depth, device, precision, seed, num_iterations, lr, log=print):
    """Stage 1: one epoch of the cosine-similarity loss over setfit's pairs. Returns the per-step
    losses and the number of pairs and of warmup steps."""
    rng = np.random.default_rng(seed)
    first, second, target = contrastive_pairs(np.asarray(labels), rng, num_iterations)
    order = torch.as_tensor(rng.permutation(len(target)))  # the Trainer's shuffled batches
    total_steps = math.ceil(len(target) / BATCH_SIZE)
    warmup_steps = math.ceil(total_steps * WARMUP_PROPORTION)
    named = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    if not named:  # every layer frozen: nothing to fine-tune; the head is fitted to the frozen body alone
        return dict(losses=[], pairs=len(target), total_steps=0, warmup_steps=0, optimizer_state_bytes=None)
    optimizer = AdamW([dict(params=[p for name, p in named if decays(name)], weight_decay=WEIGHT_DECAY),
                       dict(params=[p for name, p in named if not decays(name)], weight_decay=0.0)], lr=lr,
                      used_rows=used_word_rows(model, inputs, cached_depth))
    scaler = torch.amp.GradScaler(device.type, enabled=precision == "fp16")
    params, target, losses = [p for _, p in named], torch.as_tensor(target).to(device), []
    model.train()  # dropout on in every layer that runs, as the library trains its body
    for step, batch in enumerate(order.split(BATCH_SIZE)):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, warmup_steps, total_steps, lr)
        sides = [inputs[i] for i in first[batch]] + [inputs[i] for i in second[batch]]  # 2B sentences
        with autocast(device, precision):
            embeddings = sentence_embeddings(model, sides, cached_depth, device)  # (2B, H) float32
        a, b = embeddings.split(len(batch))
        loss = F.mse_loss(F.cosine_similarity(a, b), target[batch.to(device)])
        optimizer_step(loss, optimizer, scaler, params, MAX_GRAD_NORM)
        losses.append(loss.item())
        if (step + 1) % max(1, total_steps // 10) == 0 or step + 1 == total_steps:
            log(f"step {step + 1:4d}/{total_steps} | pairs {len(target)} | loss {np.mean(losses[-10:]):.4f} "
                f"| lr {optimizer.param_groups[0]['lr']:.2e}")
    return dict(losses=losses, pairs=len(target), total_steps=total_steps, warmup_steps=warmup_steps,
                optimizer_state_bytes=state_bytes(optimizer))


def fit_head(train_embeddings, train_labels, num_labels):
    """Stage 2: scikit-learn's default LogisticRegression, C = 1, fitted by probe.fit at the same
    optimum (probe.l2_of)."""
    return probe.fit(train_embeddings, train_labels, num_labels, probe.l2_of(HEAD_C, len(train_labels), num_labels))


def train(model, config, inputs, log=print):
    """SetFit as a method (methods.py): both stages at config's rate, seed and precision, then the
    training subset and the dev split scored with the head."""
    began = time.perf_counter()
    body = train_body(model, inputs.train, inputs.train_labels, inputs.cached_depth, inputs.device, config.precision,
                      config.seed, config.num_iterations, config.lr, log)
    train_seconds = time.perf_counter() - began
    embed = lambda states: all_sentence_embeddings(model, states, inputs.cached_depth, inputs.device, config.precision)
    train_x, train_labels, num_labels = embed(inputs.train), np.asarray(inputs.train_labels), model.config.num_labels
    head = fit_head(train_x, train_labels, num_labels)
    dev_x = embed(inputs.dev)
    score = lambda x, y: metrics.scores(y, probe.predict(head, x, num_labels), num_labels)
    dev = metrics.dev_scores(inputs.dev_labels, probe.predict(head, dev_x, num_labels), num_labels)
    return TrainResult(chosen=dict(step=body["total_steps"], **dev),
                       train_scores=score(train_x, train_labels), losses=body["losses"],
                       total_steps=body["total_steps"], warmup_steps=body["warmup_steps"],
                       details=dict(pairs=body["pairs"], num_iterations=config.num_iterations, lr=config.lr),
                       train_seconds=train_seconds, optimizer_state_bytes=body["optimizer_state_bytes"], fitted_head=head,
                       eval_seconds=time.perf_counter() - began - train_seconds)
