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

Stage 1 has a second body (train_body_fast; methods.py's setfit-fast): batches of 32 distinct
sentences, each embedded once, the same loss on all 496 pairs among them, for an eighth of the
library's sentence passes, at most 40 epochs and 400 steps; a different computation, measured
against the library's in docs/findings-setfit-fast.md. `--method setfit` stays the library's.
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


def body_optimizer(model, inputs, cached_depth, lr):
    """AdamW on what trains, as setfit's Trainer sets it: (the optimizer, its parameters), or
    (None, []) when every layer is frozen (the head is then fitted to the frozen body alone)."""
    named = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    if not named:
        return None, []
    optimizer = AdamW([dict(params=[p for name, p in named if decays(name)], weight_decay=WEIGHT_DECAY),
                       dict(params=[p for name, p in named if not decays(name)], weight_decay=0.0)], lr=lr,
                      used_rows=used_word_rows(model, inputs, cached_depth))
    return optimizer, [p for _, p in named]


def log_step(log, step, total_steps, pairs, losses, optimizer):
    if (step + 1) % max(1, total_steps // 10) == 0 or step + 1 == total_steps:
        log(f"step {step + 1:4d}/{total_steps} | pairs {pairs} | loss {np.mean(losses[-10:]):.4f} "
            f"| lr {optimizer.param_groups[0]['lr']:.2e}")


def train_body(model, inputs, labels, cached_depth, device, precision, seed, num_iterations, lr, log=print):
    """Stage 1 as setfit 1.2 runs it ("library"): one epoch of the cosine-similarity loss over
    setfit's pairs. Returns the per-step losses and the number of pairs and of warmup steps."""
    rng = np.random.default_rng(seed)
    first, second, target = contrastive_pairs(np.asarray(labels), rng, num_iterations)
    order = torch.as_tensor(rng.permutation(len(target)))  # the Trainer's shuffled batches
    total_steps = math.ceil(len(target) / BATCH_SIZE)
    warmup_steps = math.ceil(total_steps * WARMUP_PROPORTION)
    optimizer, params = body_optimizer(model, inputs, cached_depth, lr)
    if optimizer is None:
        return dict(losses=[], pairs=len(target), total_steps=0, warmup_steps=0, optimizer_state_bytes=None)
    scaler = torch.amp.GradScaler(device.type, enabled=precision == "fp16")
    target, losses = torch.as_tensor(target).to(device), []
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
        log_step(log, step, total_steps, len(target), losses, optimizer)
    return dict(losses=losses, pairs=len(target), total_steps=total_steps, warmup_steps=warmup_steps,
                optimizer_state_bytes=state_bytes(optimizer))


# ----------------------------------------------------------------------------------------------
# The fast body: every pair among a batch's distinct sentences

FAST_BATCH = 32  # distinct sentences a step: 496 pairs among them, where the library's step has 16 pairs
FAST_SHARE = 8  # the fast body spends 1 / FAST_SHARE of the library's sentence passes
# and at most MOST_EPOCHS epochs and MOST_STEPS steps: the library's passes grow with n squared (every
# pair, the rarer kind repeated: 4,366 fast steps, 182 epochs, at CLINC150's n = 750; 3,914 at SST-2's
# n = 1000), and past 40 epochs of the same sentences, or 400 steps of 32 (12,800 sentence passes), the
# fast body gained nothing measured (docs/findings-setfit-fast.md); TweetEval emotion's 31 epochs (216
# steps) at n = 200, which fewer steps did not hold, stay below both
MOST_EPOCHS = 40
MOST_STEPS = 400


def library_passes(labels, num_iterations=None):
    """The sentences the library's body runs through the encoder: 2 per pair, as many pairs as
    contrastive_pairs makes (each kind as many as the commoner, or num_iterations x n each)."""
    n, counts = len(labels), np.unique(labels, return_counts=True)[1]
    positives = int(np.sum(counts * (counts + 1) // 2))  # pairs i <= j of one class
    pairs = 2 * (num_iterations * n if num_iterations else max(positives, n * (n + 1) // 2 - positives))
    return 2 * pairs


def class_blocks(labels, rng, batch_size=FAST_BATCH):
    """One epoch of batches of distinct sentences in which classes come in blocks of about K =
    max(2, batch_size // classes) of their examples (P x K sampling): every batch holds positive
    pairs, with 2 classes or 150. Each class's blocks are spread evenly over the epoch (a block's
    place: its rank among its class's blocks, jittered, over their number), so a common class does
    not fill the last batches alone. A last batch of one sentence, which has no pair, joins the one
    before it (n = 385, 12 x 32 + 1: SetFit fast on counterfactual's 50 and dev.csv's 335)."""
    classes = np.unique(labels)
    K = max(2, batch_size // len(classes))
    blocks, places = [], []
    for c in classes:
        members = rng.permutation(np.flatnonzero(labels == c))
        own = np.array_split(members, math.ceil(len(members) / K))
        blocks += own
        places += list((np.arange(len(own)) + rng.random(len(own))) / len(own))
    order = np.concatenate([blocks[i] for i in np.argsort(places, kind="stable")])
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if len(batches) > 1 and len(batches[-1]) == 1:
        batches[-2:] = [np.concatenate(batches[-2:])]
    return batches


def fast_steps(labels, num_iterations=None):
    """The fast body's steps: an eighth of the library's sentence passes in batches of FAST_BATCH,
    at most MOST_EPOCHS epochs and MOST_STEPS steps, and at least one epoch (an epoch: one batch
    for every FAST_BATCH sentences, rounded up, or more where class blocks leave batches short)."""
    epoch = len(class_blocks(labels, np.random.default_rng(0)))
    eighth = math.ceil(library_passes(labels, num_iterations) / FAST_SHARE / FAST_BATCH)
    return max(min(eighth, MOST_EPOCHS * epoch, MOST_STEPS), epoch)


def all_pairs_loss(embeddings, labels):
    """SetFit's loss, (cos - same label)^2, on every pair i < j of a batch's sentences (B, H), its
    positive and its negative pairs weighted half and half, as setfit's oversampling balances them.
    The cosines are one product (B, B), each pair read once above its diagonal: gathering each
    sentence's row once per pair summed its gradient over duplicate indices in an order torch's CPU
    kernel does not fix, so two runs of one seed differed (docs/records/advise-one-file-small-2026-12-06)."""
    unit = F.normalize(embeddings, dim=-1)
    cosine = unit @ unit.T
    pair = torch.ones_like(cosine, dtype=torch.bool).triu(1)
    same = labels[:, None] == labels[None, :]
    kinds = [(cosine[pair & same] - 1) ** 2, cosine[pair & ~same] ** 2]
    kinds = [kind.mean() for kind in kinds if len(kind)]
    return sum(kinds) / len(kinds)


def train_body_fast(model, inputs, labels, cached_depth, device, precision, seed, num_iterations, lr, log=print):
    """Stage 1 at an eighth of the library's sentence passes, at most MOST_EPOCHS epochs and
    MOST_STEPS steps ("fast"): class-blocked batches of FAST_BATCH distinct sentences, each embedded
    once, SetFit's loss on every pair among them; epochs until the passes are spent, AdamW as the
    library's (warmup over the first tenth, then linear decay, clipping at 1). Returns what
    train_body returns."""
    rng, labels = np.random.default_rng(seed), np.asarray(labels)
    total_steps = fast_steps(labels, num_iterations)
    warmup_steps = math.ceil(total_steps * WARMUP_PROPORTION)
    optimizer, params = body_optimizer(model, inputs, cached_depth, lr)
    pairs = total_steps * FAST_BATCH * (FAST_BATCH - 1) // 2  # about: the last batch of an epoch is smaller
    if optimizer is None:
        return dict(losses=[], pairs=pairs, total_steps=0, warmup_steps=0, optimizer_state_bytes=None)
    scaler = torch.amp.GradScaler(device.type, enabled=precision == "fp16")
    device_labels, losses, batches = torch.as_tensor(labels).to(device), [], []
    model.train()
    for step in range(total_steps):
        batches = batches or class_blocks(labels, rng)  # the next epoch's
        batch = batches.pop(0)
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, warmup_steps, total_steps, lr)
        with autocast(device, precision):
            embeddings = sentence_embeddings(model, [inputs[i] for i in batch], cached_depth, device)  # (B, H)
        loss = all_pairs_loss(embeddings.float(), device_labels[torch.as_tensor(batch).to(device)])
        optimizer_step(loss, optimizer, scaler, params, MAX_GRAD_NORM)
        losses.append(loss.item())
        log_step(log, step, total_steps, pairs, losses, optimizer)
    return dict(losses=losses, pairs=pairs, total_steps=total_steps, warmup_steps=warmup_steps,
                optimizer_state_bytes=state_bytes(optimizer))


def fit_head(train_embeddings, train_labels, num_labels):
    """Stage 2: scikit-learn's default LogisticRegression, C = 1, fitted by probe.fit at the same
    optimum (probe.l2_of)."""
    return probe.fit(train_embeddings, train_labels, num_labels, probe.l2_of(HEAD_C, len(train_labels), num_labels))


def train(model, config, inputs, log=print):
    """SetFit as setfit 1.2 trains it (methods.py's setfit)."""
    return train_with(train_body, "library", model, config, inputs, log)


def train_fast(model, config, inputs, log=print):
    """SetFit with the fast body (methods.py's setfit-fast)."""
    return train_with(train_body_fast, "fast", model, config, inputs, log)


def train_with(body_of, body_name, model, config, inputs, log):
    """Both stages, the body trained by `body_of` (named `body_name` in the result) at config's
    rate, seed and precision, then the training subset, the dev split (and a test file) scored with the head."""
    began = time.perf_counter()
    body = body_of(model, inputs.train, inputs.train_labels, inputs.cached_depth, inputs.device,
                   config.precision, config.seed, config.num_iterations, config.lr, log)
    train_seconds = time.perf_counter() - began
    embed = lambda states: all_sentence_embeddings(model, states, inputs.cached_depth, inputs.device, config.precision)
    train_x, train_labels, num_labels = embed(inputs.train), np.asarray(inputs.train_labels), model.config.num_labels
    head = fit_head(train_x, train_labels, num_labels)
    dev_x = embed(inputs.dev)
    test_x = None if inputs.test is None else embed(inputs.test)
    score = lambda x, y: metrics.scores(y, probe.predict(head, x, num_labels), num_labels)
    dev = metrics.dev_scores(inputs.dev_labels, probe.predict(head, dev_x, num_labels), num_labels)
    test = None if test_x is None else score(test_x, np.asarray(inputs.test_labels))
    return TrainResult(chosen=dict(step=body["total_steps"], **dev),
                       train_scores=score(train_x, train_labels), losses=body["losses"],
                       total_steps=body["total_steps"], warmup_steps=body["warmup_steps"],
                       details=dict(pairs=body["pairs"], num_iterations=config.num_iterations, lr=config.lr,
                                    body=body_name),
                       train_seconds=train_seconds, optimizer_state_bytes=body["optimizer_state_bytes"], fitted_head=head,
                       eval_seconds=time.perf_counter() - began - train_seconds, test_scores=test,
                       dev_outputs=probe.outputs_of(head, dev_x, num_labels),
                       test_outputs=None if test_x is None else probe.outputs_of(head, test_x, num_labels))
