"""
The zero-training step (#87): how well each layer's frozen features of the training examples fit
the labels, before anything trains, in seconds at any number of classes.

    python -m study.search.prior --model minilm --glue-dir ../shared/glue --dataset sst2 --size 200 \
        [--against docs/results/sst2-minilm/runs]

The score is LogME (You et al., "LogME: Practical Assessment of Pre-trained Models for Transfer
Learning", ICML 2021): for each target column y (n,) (a class's one-hot column, or a regression
target) and features F (n, D), a Bayesian linear model y ~ N(F w, 1/beta), w ~ N(0, 1/alpha),
whose log marginal evidence

    log p(y | alpha, beta) = D/2 log alpha + n/2 log beta - n/2 log 2 pi - 1/2 log |alpha + beta F^T F|
                             - beta/2 |y - F m|^2 - alpha/2 |m|^2,     m = beta (alpha + beta F^T F)^-1 F^T y

is maximised over alpha and beta by MacKay's fixed point (gamma = sum beta s / (alpha + beta s) over
F^T F's eigenvalues s; alpha = gamma / |m|^2; beta = (n - gamma) / |y - F m|^2), here iterated to
convergence; the score is its mean over the columns, per example. One eigendecomposition of F^T F
(D x D) serves every column, so 150 classes cost about what 2 do.

A layer's features are the checkpoint's own sentence pooling (the mean of the tokens for a sentence
embedder, else the first token) of its hidden states after the embeddings (layer 0) and after each
layer 1..L, the frozen prefix's output at every depth, in one pass (layer_features). Depth k reads
layer max(k, 0): a run at k trains the layers above it, and LogME says how good its starting point is.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

import result

# torch is imported where features are computed: a search that reads its folder's stored scores
# (a resumed one, or one refused by its lock) never loads it

TOLERANCE = 1e-8  # relative change of alpha and beta at which the fixed point has converged
MAX_ITERATIONS = 1000
# where features say nothing of a column, the evidence grows as alpha -> infinity (w = 0: the noise
# alone); it is flat long before this, and alpha stops here rather than overflow
ALPHA_MAX = 1e200
RANK_TOLERANCE = 1e-10  # an eigenvalue of F^T F below this share of the largest is rounding: zero


def targets_of(labels, num_labels):
    """The columns LogME scores: the one-hot column of each class the labels hold (n, C), or the
    regression target (n, 1)."""
    labels = np.asarray(labels)
    if num_labels == 1:
        return labels.astype(np.float64)[:, None]
    return (labels[:, None] == np.unique(labels)[None]).astype(np.float64)


def evidence_at(s, z, y_squared, n, alpha, beta):
    """(evidence per example (K,), gamma (K,), |m|^2 (K,), |y - F m|^2 (K,)) in the eigenbasis of
    F^T F's r nonzero eigenvalues s (r,)."""
    D = len(s)  # r: the zero eigenvalues' terms cancel
    denominator = alpha[None] + beta[None] * s[:, None]  # (D, K)
    m = beta[None] * z / denominator  # the posterior mean, in the eigenbasis
    m_squared = (m ** 2).sum(0)
    residual = np.maximum(y_squared - 2 * (m * z).sum(0) + (s[:, None] * m ** 2).sum(0), 1e-12 * y_squared)
    gamma = (beta[None] * s[:, None] / denominator).sum(0)
    log_evidence = (D / 2 * np.log(alpha) + n / 2 * np.log(beta) - n / 2 * math.log(2 * math.pi)
                    - 0.5 * np.log(denominator).sum(0) - beta / 2 * residual - alpha / 2 * m_squared)
    return log_evidence / n, gamma, m_squared, residual


def max_evidence(features, y):
    """Each column of y (n, K)'s maximum evidence per example over alpha and beta (K,), and the
    alpha (K,) and beta (K,) that reach it, for features (n, D)."""
    x = np.asarray(features, dtype=np.float64)
    n = len(x)
    # F^T F's zero eigenvalues (all but n of them where n < D) drop out of the evidence (their
    # log alpha terms cancel), so the rank's directions alone are kept; with fewer examples than
    # features they come from the smaller F F^T (n x n): F F^T = U diag(s) U^T, V = F^T U / sqrt(s)
    s, V = np.linalg.eigh(x @ x.T if n < x.shape[1] else x.T @ x)
    kept = s > RANK_TOLERANCE * s.max()
    s, V = s[kept], V[:, kept]
    if n < x.shape[1]:
        V = x.T @ V / np.sqrt(s)
    z, y_squared = V.T @ (x.T @ y), (y ** 2).sum(0)  # F^T y in the eigenbasis (r, K), |y|^2 (K,)
    alpha, beta = np.ones(y.shape[1]), np.ones(y.shape[1])
    for _ in range(MAX_ITERATIONS):
        _, gamma, m_squared, residual = evidence_at(s, z, y_squared, n, alpha, beta)
        new_alpha, new_beta = np.minimum(gamma / np.maximum(m_squared, 1e-300), ALPHA_MAX), (n - gamma) / residual
        converged = np.all(np.abs(new_alpha - alpha) <= TOLERANCE * alpha) and \
            np.all(np.abs(new_beta - beta) <= TOLERANCE * beta)
        alpha, beta = new_alpha, new_beta
        if converged:
            break
    return evidence_at(s, z, y_squared, n, alpha, beta)[0], alpha, beta


def logme(features, labels, num_labels):
    """LogME of features (n, D) for these labels (num_labels 1: a regression target): the mean over
    the target columns of each one's maximum evidence per example."""
    return float(max_evidence(features, targets_of(labels, num_labels))[0].mean())


# ----------------------------------------------------------------------------------------------
# Every layer's features, in one pass

def layer_features(model, token_ids, device, precision="fp32", batch_size=64):
    """[(N, H) float64 numpy] for layers 0..L: each example's hidden states after the embeddings and
    after each layer, pooled as the model pools its sentence (mean or first token), normalised where
    its sentence embedding is."""
    import torch
    from rows import length_sorted_batches, pack
    model.eval()
    out = [np.empty((len(token_ids), model.config.hidden_size)) for _ in range(model.config.num_layers + 1)]
    with torch.no_grad():
        for batch in length_sorted_batches([len(t) for t in token_ids], batch_size):
            ids, layout = pack([token_ids[i] for i in batch])
            for layer, pooled in enumerate(pooled_layers(model, ids.to(device), layout.to(device), device, precision)):
                out[layer][batch] = pooled.cpu().double().numpy()
    return out


def pooled_layers(model, ids, layout, device, precision):
    """[(B, H) float32] for layers 0..L of one packed batch: its sentences as the model pools them."""
    import torch
    from machine import autocast
    from model import mean_pool
    pooled, num_layers = [], model.config.num_layers
    with autocast(device, precision):
        hidden = model.embed(ids, layout)  # (N tokens, H)
        for layer in range(num_layers + 1):
            if layer:
                hidden = model.run_layers(hidden, layout, layer - 1, layer)
            states = hidden if layer < num_layers or model.final_norm is None else model.final_norm(hidden)
            sentence = (mean_pool(states, layout) if model.pooling == "mean" else states[layout.first]).float()
            pooled.append(torch.nn.functional.normalize(sentence, dim=-1) if model.normalize else sentence)
    return pooled


def layer_scores(model, token_ids, labels, num_labels, device, precision="fp32"):
    """[LogME of layer 0, 1, ..., L]'s features, and the seconds the pass and the scores took."""
    began = time.perf_counter()
    features = layer_features(model, token_ids, device, precision)
    passed = time.perf_counter()
    scores = [logme(x, labels, num_labels) for x in features]
    return scores, dict(features=passed - began, scores=time.perf_counter() - passed)


# ----------------------------------------------------------------------------------------------
# The table, checkpoint by layer, beside a grid's best at each depth

def ranks(values):
    """Each value's rank (1 = the smallest), ties sharing their mean rank."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    ranked = np.empty(len(values))
    ranked[order] = np.arange(1, len(values) + 1)
    for value in np.unique(values):
        ranked[values == value] = ranked[values == value].mean()
    return ranked


def spearman(a, b):
    """Spearman's rank correlation: Pearson's on the ranks (ties at their mean rank)."""
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def best_by_depth(folder, size):
    """{depth: (the best fair mean of any cell at n = size, its row)} of a grid's runs (study/answer.py)."""
    from study.answer import answer_cells, judged_by
    from study.folder import load_results
    runs = [run for run in load_results(folder, "score") if str(run["config"]["size"]) == str(size)]
    best = {}
    for row in answer_cells(runs, judged_by(runs)) if runs else []:
        if row["freeze"] not in best or row["fair_mean"] > best[row["freeze"]][0]:
            best[row["freeze"]] = (row["fair_mean"], row)
    return best


def table_lines(model_name, size, scores, seconds, best):
    """The prior's table at one size (a markdown table), and the rank correlation with the grid's best."""
    lines = [f"LogME of {model_name}'s layers at n = {size} (features {seconds['features']:.1f} s, "
             f"scores {seconds['scores']:.2f} s)", "", "| depth k | layer read | LogME | grid's best fair mean | by |",
             "|---|---|---|---|---|"]
    depths = sorted(best) if best else range(len(scores))
    for k in depths:
        layer = max(k, 0)
        fair, row = best.get(k, (float("nan"), None))
        lines.append(f"| {k} | {layer} | {scores[layer]:.4f} | {fair:.4f} | {row['method'] if row else ''} |")
    if best:
        correlated = [k for k in depths if max(k, 0) < len(scores)]
        lines += ["", f"Spearman's rank correlation over the {len(correlated)} depths: "
                      f"{spearman([scores[max(k, 0)] for k in correlated], [best[k][0] for k in correlated]):.2f}"]
    return lines


# ----------------------------------------------------------------------------------------------
# A search's zero-training step (study/search/advise.py): each checkpoint's layers, before any run

# in a search's folder, read back on resuming: {size: {checkpoint: its prior}} (JSON, named apart
# from the results, as advise.rounds is)
PRIORS = "advise.prior"
# a checkpoint that reads more of the task's tokens than this as its unknown token cannot take the texts
UNKNOWN_SHARE = 0.5
# the most training examples the step scores (n = all: a sample), so that it stays seconds
MOST_EXAMPLES = 1000


def prepared(run_argv):
    """(plan, task, the training subset's indices, the checkpoint frozen whole and pooled as its
    sentence, their token ids) for a run's options; ValueError's one line where the run would refuse."""
    from parts import families
    import hub
    import methods
    import plan as planning
    from freeze_study import build_and_freeze, load_task_and_subset, tokenize_task
    args = planning.parse_args(run_argv)
    num_layers = families.read_config(hub.checkpoint_folder(args.model)).num_layers
    args = planning.parse_args(run_argv + ["--probe", "--freeze", str(num_layers)])  # pooled as a sentence
    args = planning.without_misfits(args, methods.get(args.method))  # a search's options for its other methods
    task, indices = load_task_and_subset(args)
    if len(indices) > MOST_EXAMPLES:
        indices = np.sort(np.random.default_rng(0).choice(indices, MOST_EXAMPLES, replace=False))
    plan = planning.plan_run(args, task)
    model = build_and_freeze(plan, task)
    token_ids, _ = tokenize_task(plan, model, task, indices)
    return plan, task, indices, model, token_ids["train"]


def unknown_share(model, token_ids):
    """(the share of the texts' tokens, special ones aside, that the checkpoint's tokenizer reads as
    its unknown token, that token)."""
    import torch
    from checkpoint import load_tokenizer
    tokenizer = load_tokenizer(model.folder)
    if tokenizer.unk_token_id is None:  # byte-level: every text has tokens
        return 0.0, None
    special = torch.tensor(sorted(set(tokenizer.all_special_ids) - {tokenizer.unk_token_id}))
    tokens = torch.cat([ids[:, 0] if ids.dim() == 2 else ids for ids in token_ids])  # a pair's (T, 2): its token ids
    tokens = tokens[~torch.isin(tokens, special)]
    return float((tokens == tokenizer.unk_token_id).float().mean()) if len(tokens) else 0.0, tokenizer.unk_token


def checkpoint_prior(run_argv, label):
    """One checkpoint's zero-training step: {"label", "layers": LogME of layer 0..L, "seconds", "examples"}
    on the training subset a run of `run_argv` trains on; ValueError's one line, naming the
    checkpoint (`label`; "": the run's own), where it cannot take the task."""
    try:
        plan, task, indices, model, train_ids = prepared(run_argv)
    except ValueError as e:
        raise ValueError(f"{label}: {e}" if label else str(e)) from None  # a run of it would refuse the same
    label = label or result.model_label(plan.options["model"])
    unknown, token = unknown_share(model, train_ids)
    if unknown > UNKNOWN_SHARE:
        raise ValueError(f"{label} reads {unknown:.0%} of the task's tokens as its unknown token {token}: "
                         f"its vocabulary cannot take these texts")
    scores, seconds = layer_scores(model, train_ids, task.train_labels[indices], task.num_labels, plan.device)
    return dict(label=label, layers=scores, seconds=seconds, examples=len(indices))


def read_priors(folder, size):
    path = os.path.join(folder, PRIORS)
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f).get(str(size), {})


def search_priors(folder, size, run_argvs, labels):
    """{checkpoint: its prior} for a search's checkpoints ({checkpoint: its runs' options}, {checkpoint:
    its name}), those a search in `folder` scored at this size read back; ValueError's one line
    naming a checkpoint that cannot take the task, before any run (a search over one names it "")."""
    made = read_priors(folder, size)
    return {model: made.get(model) or checkpoint_prior(argv, labels[model]) for model, argv in run_argvs.items()}


def write_priors(folder, size, priors):
    from atomic import write_atomically
    path = os.path.join(folder, PRIORS)
    every = {}
    if os.path.exists(path):
        with open(path) as f:
            every = json.load(f)
    every[str(size)] = priors
    write_atomically(path, lambda f: f.write(json.dumps(every, indent=1).encode()))


def ranked(priors):
    """The checkpoints, the one whose best layer LogME scores highest first: the order a search screens them in."""
    return sorted(priors, key=lambda model: -max(priors[model]["layers"]))


def report_lines(priors):
    """advise.md's table of the step: a row per layer, a column per checkpoint, in the prior's order."""
    order = ranked(priors)
    deepest = max(len(priors[model]["layers"]) for model in order)
    cell = lambda model, layer: f"{priors[model]['layers'][layer]:.3f}" if layer < len(priors[model]["layers"]) else ""
    seconds = ", ".join(f"{priors[model]['label']} {sum(priors[model]['seconds'].values()):.1f} s" for model in order)
    return ["## Before any training: LogME of each layer's frozen features", "",
            f"LogME (You et al., ICML 2021; study/search/prior.py) of the training examples' features after each layer, "
            f"as each checkpoint pools its sentence, higher better: the search screens the checkpoints in this order "
            f"(the best layer's score first). It scores where training starts, not what training makes of it, so it "
            f"orders the checkpoints and decides nothing ({seconds}).", "",
            "| layer | " + " | ".join(priors[model]["label"] for model in order) + " |", "|---|" + "---|" * len(order),
            *[f"| {layer} | " + " | ".join(cell(model, layer) for model in order) + " |" for layer in range(deepest)], ""]


def main(argv=None):
    """python -m study.search.prior [--against GRID_RUNS] RUN_OPTIONS: a run's task, subset and checkpoint
    options (freeze_study.py's), its method and depth aside."""
    import plan as planning
    p = argparse.ArgumentParser(prog="python -m study.search.prior", description=__doc__.split("\n\n")[0])
    p.add_argument("--against", help="a grid's runs folder: its best fair mean at each depth beside the prior")
    ours, run_argv = p.parse_known_args(argv)
    try:
        plan, task, indices, model, train_ids = prepared(run_argv)
    except ValueError as e:
        planning.fail(str(e))
    scores, seconds = layer_scores(model, train_ids, task.train_labels[indices], task.num_labels, plan.device)
    best = best_by_depth(ours.against, plan.size) if ours.against else {}
    print("\n".join(table_lines(plan.options["model"], plan.size, scores, seconds, best)))


if __name__ == "__main__":
    main(sys.argv[1:])
