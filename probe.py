"""
A linear probe: with every layer frozen, how good are the features themselves? The study's k = L
trains a fresh head at lr 5e-5 for at most 630 steps, which may say more about that budget than
about the features. The probe fits a linear model properly to the same features (each sentence's
first-token state after the last layer, which the head reads), with its L2 strength chosen by
cross-validation on the training subset alone; the dev split is scored once, at the end.

Classification: softmax regression, minimised exactly (full batch, L-BFGS). Regression: ridge, in
closed form. A few lines of torch, so no new dependency (scikit-learn's LogisticRegression would do
the same fit; it is not needed for it).
"""

import numpy as np
import torch
import torch.nn.functional as F

import metrics

L2_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)  # penalty per example, on standardised features
FOLDS = 5


def fit(features, labels, num_labels, l2):
    """A linear model (weight (H, C), bias (C,)) minimising the mean loss + l2 * |weight|^2."""
    x = torch.as_tensor(features, dtype=torch.float64)
    if num_labels == 1:  # ridge: (X^T X / n + l2 I) w = X^T y / n, with the bias left unpenalised
        mean_x, y = x.mean(0), torch.as_tensor(labels, dtype=torch.float64)
        centred = x - mean_x
        gram = centred.T @ centred / len(x) + l2 * torch.eye(x.shape[1], dtype=torch.float64)
        weight = torch.linalg.solve(gram, centred.T @ (y - y.mean()) / len(x))[:, None]
        return weight, (y.mean() - mean_x @ weight[:, 0]).reshape(1)
    y = torch.as_tensor(labels, dtype=torch.long)
    weight = torch.zeros(x.shape[1], num_labels, dtype=torch.float64, requires_grad=True)
    bias = torch.zeros(num_labels, dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([weight, bias], max_iter=500, tolerance_grad=1e-9, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        loss = F.cross_entropy(x @ weight + bias, y) + l2 * (weight ** 2).sum()
        loss.backward()
        return loss
    optimizer.step(closure)
    return weight.detach(), bias.detach()


def predict(model, features, num_labels):
    weight, bias = model
    scores = torch.as_tensor(features, dtype=torch.float64) @ weight + bias
    return scores[:, 0].numpy() if num_labels == 1 else scores.argmax(-1).numpy()


def choose_l2(features, labels, num_labels, metric, seed=0):
    """The L2 strength with the best mean `metric` over FOLDS folds of the training subset (the
    first of equal bests, the weakest penalty first): {l2: mean score}, and the pick."""
    order = np.random.default_rng(seed).permutation(len(labels))
    folds = [order[i::FOLDS] for i in range(FOLDS)]
    cv = {}
    for l2 in L2_GRID:
        scores = []
        for held_out in folds:
            kept = np.setdiff1d(order, held_out)
            model = fit(features[kept], labels[kept], num_labels, l2)
            predicted = predict(model, features[held_out], num_labels)
            scores.append(metrics.scores(labels[held_out], predicted, num_labels)[metric])
        cv[l2] = float(np.mean(scores))
    return cv, max(L2_GRID, key=lambda l2: (cv[l2], -l2))


def run(train_features, train_labels, dev_features, dev_labels, num_labels, metric, seed=0):
    """Standardise with the training subset's statistics, choose the L2 strength on it, refit on
    all of it, and score the training subset and, once, the dev split."""
    mean, std = train_features.mean(0), train_features.std(0) + 1e-6
    train_x, dev_x = (train_features - mean) / std, (dev_features - mean) / std
    cv, l2 = choose_l2(train_x, train_labels, num_labels, metric, seed)
    model = fit(train_x, train_labels, num_labels, l2)
    return dict(l2=l2, cross_validation=cv,
                train=metrics.scores(train_labels, predict(model, train_x, num_labels), num_labels),
                dev=metrics.scores(dev_labels, predict(model, dev_x, num_labels), num_labels))
