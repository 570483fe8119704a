"""
A linear probe: with every layer frozen, how good are the features themselves? The study's k = L
trains a fresh head at lr 5e-5 for at most 630 steps, which may say more about that budget than
about the features. The probe fits a linear model properly to the model's sentence embedding (as
the checkpoint pools it, or its first token), with its L2 strength chosen by cross-validation on
the training subset alone; the dev split is scored once, at the end.

Classification is scikit-learn's LogisticRegressionCV with its defaults, written out: ten inverse
strengths C from 1e-4 to 1e4, five stratified folds in the subset's order, the C whose folds score
best in total (the strongest penalty of equal bests), refitted on the whole subset. The folds are
scored in the task's metric: accuracy, as scikit-learn scores them, except where the task reads
another (CoLA's MCC). The features go
in as the model gives them, unscaled, as scikit-learn's users (and SetFit's head) feed a sentence
embedding. Each fit is minimised exactly (full batch, Newton's method, float64). Regression: ridge, in
closed form, its strength by five contiguous folds in order. A few lines of torch, so no new
dependency; every choice is deterministic, so the probe has no seed.
"""

import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

import loop
import metrics
from machine import autocast
from rows import length_sorted_batches

CS = np.logspace(-4, 4, 10)  # LogisticRegressionCV's Cs=10: inverse L2 strengths, strongest first
RIDGE_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)  # ridge's penalty per example, weakest first
FOLDS = 5
# the examples each class's preconditioner keeps exactly (least_sure_preconditioner)
LEAST_SURE = 16


def fit(features, labels, num_labels, l2):
    """A linear model (weight (H, C), bias (C,)) minimising the mean loss + l2 * |weight|^2."""
    return fit_path(features, labels, num_labels, [l2])[0]


def fit_path(features, labels, num_labels, l2s):
    """fit at each penalty of `l2s` in turn, a classifier's each from the optimum before it (warm
    starts along the path, as scikit-learn's LogisticRegressionCV makes them): the same optima,
    in fewer Newton steps when the penalties go from strong to weak. [(weight, bias)]"""
    x = torch.as_tensor(features, dtype=torch.float64)
    if num_labels == 1:
        return [fit_ridge(x, torch.as_tensor(labels, dtype=torch.float64), l2) for l2 in l2s]
    labels, basis = torch.as_tensor(labels, dtype=torch.long), None
    if len(x) < x.shape[1]:
        # fewer examples than features: the optimum's weight lies in the span of the examples (a
        # part outside it changes no score and adds to the penalty), so fit in an orthonormal basis
        # of that span, n numbers an example instead of H; the same optimum, the same penalty
        basis, _ = torch.linalg.qr(x.T)  # (H, n)
        x = x @ basis
    models, start = [], None
    for l2 in l2s:
        weight, bias = fit_softmax(x, labels, num_labels, l2, start=start)
        start = torch.cat([weight, bias[None]])
        models.append((weight if basis is None else basis @ weight, bias))
    return models


def fit_ridge(x, y, l2):
    """Ridge: (X^T X / n + l2 I) w = X^T y / n, with the bias left unpenalised."""
    mean_x = x.mean(0)
    centred = x - mean_x
    gram = centred.T @ centred / len(x) + l2 * torch.eye(x.shape[1], dtype=torch.float64)
    weight = torch.linalg.solve(gram, centred.T @ (y - y.mean()) / len(x))[:, None]
    return weight, (y.mean() - mean_x @ weight[:, 0]).reshape(1)


def fit_softmax(x, y, num_labels, l2, tolerance=1e-10, max_steps=100, solve=None, start=None):
    """Softmax regression minimised by Newton's method, each step halved until the loss falls
    enough (Armijo), until the largest gradient is below `tolerance` or the step would take off the
    loss less than float64 can tell: a few steps to float64's precision, from `start` (D, C) or
    zero, without torch.optim (whose first use imports torch's compiler). Each step solves the
    Hessian's system: exactly for two classes (hessian_solve), by conjugate gradients with more
    (conjugate_gradient_solve), whose cost grows with the classes, not with their cube; the same
    optimum either way (tests/test_probe.py). x (n, H) float64, y (n,) long -> weight (H, C), bias (C,)."""
    n, C = len(x), num_labels
    x1 = torch.cat([x, x.new_ones(n, 1)], 1)  # (n, D): the bias as one more feature, D = H + 1
    D = x1.shape[1]
    onehot = F.one_hot(y, C).to(x.dtype)
    ridge = x.new_full((D, 1), 2 * l2)
    ridge[-1] = 0.0  # the bias is not penalised
    loss = lambda theta: F.cross_entropy(x1 @ theta, y) + l2 * (theta[:-1] ** 2).sum()
    # adding one number to every class's bias changes nothing: the Hessian's one flat direction,
    # given curvature 1 here so the solve is defined; the gradient has no part along it, so neither
    # has the step
    flat = x.new_zeros(D, C)
    flat[-1] = C ** -0.5
    if solve is None and C > 2:  # the preconditioner's Gram basis, once for every step of the fit
        whitened = whitened_gram(x1, ridge, flat)
        solve = lambda *problem: conjugate_gradient_solve(*problem, whitened=whitened)
    solve = solve or hessian_solve
    theta = x.new_zeros(D, C) if start is None else start.clone()  # (D, C): the weight, then the bias as its last row
    value = loss(theta)
    for _ in range(max_steps):
        p = torch.softmax(x1 @ theta, 1)  # (n, C)
        gradient = x1.T @ (p - onehot) / n + ridge * theta  # (D, C)
        if gradient.abs().max() < tolerance:
            break
        step = solve(x1, p, gradient, ridge, flat)
        if -(gradient * step).sum() < 1e-13 * value:  # Newton's decrement: what the step takes off the loss
            theta = theta + step  # too little for float64 to tell in the loss, so no line search can judge
            break                 # it: the quadratic model is exact here, and this step its optimum
        size = 1.0
        while (new_value := loss(theta + size * step)) > value + 1e-4 * size * (gradient * step).sum() and size > 1e-10:
            size /= 2
        theta, value = theta + size * step, new_value
    return theta[:-1], theta[-1]


def hessian_solve(x1, p, gradient, ridge, flat):
    """Newton's step from the Hessian built whole: a (C D)-square system, C^3 D^3 to solve."""
    (n, D), C = x1.shape, p.shape[1]
    hessian = x1.new_empty(C, D, C, D)  # block (a, b): x1^T diag(p_a (1[a = b] - p_b)) x1 / n
    for a in range(C):
        for b in range(a, C):
            hessian[a, :, b] = hessian[b, :, a] = (x1.T * (p[:, a] * (float(a == b) - p[:, b]))) @ x1 / n
    hessian = hessian.reshape(C * D, C * D) + torch.diag(ridge[:, 0].repeat(C)) + torch.outer(flat.T.reshape(-1), flat.T.reshape(-1))
    return torch.linalg.solve(hessian, -gradient.T.reshape(-1)).reshape(C, D).T


def hessian_times(x1, p, ridge, flat, v):
    """The Hessian times v (D, C), without the Hessian: each example's softmax curvature
    diag(p) - p p^T applied to its scores x v."""
    s = p * (x1 @ v)  # (n, C)
    return x1.T @ (s - p * s.sum(1, keepdim=True)) / len(x1) + ridge * v + flat * (flat * v).sum()


def conjugate_gradient_solve(x1, p, gradient, ridge, flat, whitened=None):
    """Newton's step by conjugate gradients on hessian_times, preconditioned by an approximation of
    each class's own block of the Hessian (least_sure_preconditioner), to a residual that shrinks with the gradient
    (inexact Newton's forcing term), so the last steps are as exact as hessian_solve's. It runs in
    the whitened basis (Whitened), where a step v is s U v in the features' own: there the penalty
    is the identity (but on the bias) and the preconditioner rotates nothing, so an iteration costs
    hessian_times' two products over the examples and no D x D product."""
    w = whitened or whitened_gram(x1, ridge, flat)
    whiten = lambda v: w.U.T @ (w.s[:, None] * v)  # (D, C): a gradient's coordinates in the whitened basis
    bias = w.U[-1]  # (D,): the bias's direction there, the one that s^2 R (1 on each weight) leaves unpenalised
    flat_whitened = whiten(flat)
    hessian = lambda v: hessian_times(w.examples, p, 1.0, flat_whitened, v) - bias[:, None] * (bias @ v)
    precondition = least_sure_preconditioner(p, w)
    target = whiten(-gradient)
    enough = min(0.5, gradient.norm().sqrt().item()) * target.norm()
    step, residual = torch.zeros_like(target), target.clone()
    z = precondition(residual)
    direction, rz = z, (residual * z).sum()
    for _ in range(target.numel()):
        h = hessian(direction)
        alpha = rz / (direction * h).sum()
        step, residual = step + alpha * direction, residual - alpha * h
        if residual.norm() <= enough:
            break
        z = precondition(residual)
        rz, previous = (residual * z).sum(), rz
        direction = z + (rz / previous) * direction
    step = w.s[:, None] * (w.U @ step)  # back in the features' basis
    return step - flat * (flat * step).sum()  # no part along the flat direction, as hessian_solve's


@dataclass
class Whitened:
    """What every Newton step of one fit shares: the features' Gram matrix G = x1^T x1 / n seen
    through the penalty, s G s = U diag(lam) U^T with s = R^-1/2 (R: the ridge on the weights,
    the flat direction's 1 / C on the bias), and the examples in that basis."""
    s: torch.Tensor  # (D,)
    lam: torch.Tensor  # (D,)
    U: torch.Tensor  # (D, D)
    examples: torch.Tensor  # (n, D): x1 s U
    norms: torch.Tensor  # (n,): |x1_i|^2


def whitened_gram(x1, ridge, flat):
    """Whitened for x1 (n, D) at this penalty: one eigendecomposition of D x D, once a fit."""
    r = ridge[:, 0].clone()
    r[-1] = flat[-1, 0] ** 2
    s = r.rsqrt()
    lam, U = torch.linalg.eigh(s[:, None] * (x1.T @ x1 / len(x1)) * s[None])
    return Whitened(s, lam.clamp_min(0), U, (x1 * s) @ U, (x1 ** 2).sum(1))


def least_sure_preconditioner(p, whitened, m=LEAST_SURE):
    """Each class's own block of the Hessian, x1^T diag(w_a) x1 / n + R with w_a = p_a (1 - p_a),
    kept exactly on the m examples the class is least sure of (its largest w_ia) and the rest
    spread evenly as c_a G (the same trace): c_a G + R + sum over those m of w_ia x_i x_i^T / n.
    In the whitened basis c_a G + R is diagonal, so each class's inverse there is Woodbury's identity
    around it, an m x m system: C m^2 D to build, where the blocks themselves are C n D^2 and C
    Cholesky factors of D x D at every Newton step. With m = n it is the blocks' inverse exactly."""
    n = len(p)
    w = p * (1 - p)  # (n, C)
    least_sure = w.topk(min(m, n), dim=0).indices.T  # (C, m)
    kept = torch.gather(w.T, 1, least_sure)  # (C, m)
    rest = (w * whitened.norms[:, None]).sum(0) - (kept * whitened.norms[least_sure]).sum(1)
    spread = rest.clamp_min(0) / whitened.norms.sum()  # (C,): c_a
    base = 1 / (spread[:, None] * whitened.lam + 1)  # (C, D): (c_a lam + 1)^-1, the base's inverse
    rows = whitened.examples[least_sure]  # (C, m, D)
    inner = torch.linalg.cholesky(torch.diag_embed(n / kept.clamp_min(1e-12)) + (rows * base[:, None]) @ rows.transpose(1, 2))

    def precondition(r):  # (D, C) -> (D, C), both in the whitened basis
        y = base * r.T  # (C, D)
        y = y - base * (rows.transpose(1, 2) @ torch.cholesky_solve(rows @ y[:, :, None], inner))[:, :, 0]
        return y.T
    return precondition


def l2_of(C, n, num_labels):
    """scikit-learn's LogisticRegression minimises 0.5 |w|^2 + C x the summed log-loss; fit minimises
    the mean loss + l2 |W|^2 over one column per class. A binary problem's one vector w is W's two
    columns as -w/2 and +w/2 (|W|^2 = |w|^2 / 2), so the same optimum is l2 = 1 / (C n) there, and
    1 / (2 C n) with more classes (scikit-learn's multinomial keeps a column per class)."""
    return (1.0 if num_labels == 2 else 0.5) / (C * n)


def outputs_of(model, features, num_labels):
    """A fitted linear head's outputs per example, as loop.outputs_of gives a classifier's: the
    class probabilities (N, C), the softmax of its scores (a binary head's two columns, -w/2 and
    +w/2, give the logistic's sigmoid), or the predicted score (N,) for regression."""
    weight, bias = model
    scores = torch.as_tensor(features, dtype=torch.float64) @ weight + bias
    return scores[:, 0].numpy() if num_labels == 1 else scores.softmax(-1).numpy()


def predict(model, features, num_labels):
    weight, bias = model
    scores = torch.as_tensor(features, dtype=torch.float64) @ weight + bias
    return scores[:, 0].numpy() if num_labels == 1 else scores.argmax(-1).numpy()


def stratified_folds(labels, folds=FOLDS):
    """Each example's held-out fold, as scikit-learn's StratifiedKFold(folds) assigns them: each
    class's examples, in the subset's order, go in blocks to folds 0, 1, ..., the blocks' sizes
    dealt round-robin over the labels sorted (classes numbered in order of first appearance)."""
    _, first_seen, inverse = np.unique(labels, return_index=True, return_inverse=True)
    encoded = np.argsort(np.argsort(first_seen))[inverse]  # 0: the class seen first
    dealt = np.sort(encoded)
    allocation = np.stack([np.bincount(dealt[i::folds], minlength=len(first_seen)) for i in range(folds)])  # (folds, C)
    fold_of = np.empty(len(labels), dtype=np.int64)
    for c in range(len(first_seen)):
        fold_of[encoded == c] = np.arange(folds).repeat(allocation[:, c])
    return fold_of


def cross_validate(features, labels, num_labels, metric):
    """{strength: the folds' mean `metric`} over the grid, and the pick: for classification
    {C: ...} with the first best C (the strongest penalty of equal bests, as scikit-learn picks),
    for regression {l2: ...} over folds in order with the first best l2 (the weakest penalty)."""
    if num_labels == 1:
        fold_of, grid = np.arange(len(labels)) * FOLDS // len(labels), RIDGE_GRID  # contiguous blocks, in order
        l2_for = lambda strength, n: strength
    else:
        fold_of, grid = stratified_folds(labels), CS
        l2_for = lambda C, n: l2_of(C, n, num_labels)
    totals = np.zeros(len(grid))
    for fold in range(FOLDS):  # each fold's fits along the grid, strongest penalty first, warm-started
        kept, held_out = fold_of != fold, fold_of == fold
        l2s = [l2_for(strength, kept.sum()) for strength in grid]
        order = np.argsort(l2s)[::-1]
        models = fit_path(features[kept], labels[kept], num_labels, [l2s[i] for i in order])
        for i, model in zip(order, models):
            totals[i] += metrics.scores(labels[held_out], predict(model, features[held_out], num_labels), num_labels)[metric]
    cv = {float(strength): float(total) / FOLDS for strength, total in zip(grid, totals)}
    return cv, max(cv, key=lambda strength: (cv[strength], -list(cv).index(strength)))


def run(train_features, train_labels, dev_features, dev_labels, num_labels, metric):
    """Choose the strength on the training subset, refit on all of it, and score the training
    subset and, once, the dev split."""
    cv, strength = cross_validate(train_features, train_labels, num_labels, metric)
    l2 = strength if num_labels == 1 else l2_of(strength, len(train_labels), num_labels)
    model = fit(train_features, train_labels, num_labels, l2)
    return dict(l2=l2, C=None if num_labels == 1 else strength, cross_validation=cv, model=model,
                train=metrics.scores(train_labels, predict(model, train_features, num_labels), num_labels),
                dev=metrics.dev_scores(dev_labels, predict(model, dev_features, num_labels), num_labels))


# ----------------------------------------------------------------------------------------------
# The checkpoint's own sentence embedding, which the probe fits and SetFit trains

def sentence_embeddings(model, inputs, cached_depth, device):
    """A sentence embedder's output (B, H) float32 for a batch: the pooled states, L2-normalised
    when the model says so (a checkpoint whose sentence-transformers modules end in Normalize)."""
    states = loop.pooled_states(model, inputs, cached_depth, device).float()
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


def train(model, config, inputs, log=print):
    """The probe as a method (methods.py): the frozen model's sentence embedding of the cached
    states after the last layer, pooled as the checkpoint pools them, in fp32; one fit, one dev score
    (and one on a test file, if given)."""
    began = time.perf_counter()
    embed = lambda states: all_sentence_embeddings(model, states, inputs.cached_depth, inputs.device, "fp32")  # (N, H)
    num_labels, dev_x = model.config.num_labels, embed(inputs.dev)
    fitted = run(embed(inputs.train), np.asarray(inputs.train_labels), dev_x, inputs.dev_labels, num_labels, config.metric)
    test_x = None if inputs.test is None else embed(inputs.test)
    test = None if test_x is None else metrics.scores(
        np.asarray(inputs.test_labels), predict(fitted["model"], test_x, num_labels), num_labels)
    return loop.TrainResult(chosen=dict(step=0, **fitted["dev"]), train_scores=fitted["train"],
                            details=dict(l2=fitted["l2"], C=fitted["C"], cross_validation=fitted["cross_validation"]),
                            fitted_head=fitted["model"], train_seconds=time.perf_counter() - began, test_scores=test,
                            dev_outputs=outputs_of(fitted["model"], dev_x, num_labels),
                            test_outputs=None if test_x is None else outputs_of(fitted["model"], test_x, num_labels))
