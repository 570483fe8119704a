"""study/search/prior.py: LogME is the maximum of the Bayesian linear model's evidence, computed densely
here; every layer's features are the frozen prefix's output, pooled as the model pools a sentence."""

import math

import numpy as np
import pytest
import torch

import checkpoint
import probe
from conftest import film_task
from study.search import prior


def dense_evidence(x, y, alpha, beta):
    """log N(y; 0, I / beta + x x^T / alpha) per example: the evidence, from its definition."""
    n = len(x)
    covariance = np.eye(n) / beta + x @ x.T / alpha
    _, logdet = np.linalg.slogdet(covariance)
    return (-0.5 * (n * math.log(2 * math.pi) + logdet + y @ np.linalg.solve(covariance, y))) / n


@pytest.mark.parametrize("n, D", [(60, 8), (20, 50)])  # more examples than features, and fewer
def test_logme_is_the_evidence_at_its_maximum(n, D):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, D))
    labels = (x[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (x[:, 1] > 1)  # 3 classes, learnable
    y = prior.targets_of(labels, 3)
    per_column, alphas, betas = prior.max_evidence(x, y)
    for column, alpha, beta, value in zip(y.T, alphas, betas, per_column):
        assert value == pytest.approx(dense_evidence(x, column, alpha, beta), rel=1e-9)
        for a, b in ((alpha * 1.05, beta), (alpha / 1.05, beta), (alpha, beta * 1.05), (alpha, beta / 1.05)):
            assert dense_evidence(x, column, a, b) < value + 1e-12  # the fixed point is the maximum
    assert prior.logme(x, labels, 3) == pytest.approx(per_column.mean())


def test_logme_ranks_features_that_hold_the_labels_above_noise_and_reads_a_regression_target():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 150, size=600)  # CLINC150's shape: 150 classes, 4 examples each
    informative = np.eye(150)[labels] @ rng.normal(size=(150, 64)) + 0.3 * rng.normal(size=(600, 64))
    noise = rng.normal(size=(600, 64))
    assert prior.logme(informative, labels, 150) > prior.logme(noise, labels, 150)
    target = informative[:, 0] + 0.1 * rng.normal(size=600)
    assert prior.logme(informative, target, 1) > prior.logme(noise, target, 1)


@pytest.mark.parametrize("pooling", ["mean", "first"])
def test_each_layer_s_features_are_the_prefix_pooled_and_the_last_the_sentence_embedding(tiny_bert, pooling):
    model = checkpoint.from_pretrained(tiny_bert, num_labels=2)
    model.pooling, model.normalize = pooling, pooling == "mean"
    g = torch.Generator().manual_seed(0)
    token_ids = [torch.randint(5, 1000, (int(length),), generator=g) for length in (7, 3, 12, 5, 9)]
    features = prior.layer_features(model, token_ids, torch.device("cpu"))
    assert len(features) == model.config.num_layers + 1
    last = probe.all_sentence_embeddings(model, token_ids, None, torch.device("cpu"), "fp32")
    np.testing.assert_allclose(features[-1], last, atol=1e-5)
    for k in range(model.config.num_layers):  # the states a run frozen at k reads, pooled from layer k on
        import cache
        states = cache.frozen_prefix(model, token_ids, k, torch.device("cpu"), "fp32")
        pooled = [s.mean(0) if pooling == "mean" else s[0] for s in states]
        pooled = torch.stack(pooled)
        if model.normalize:
            pooled = torch.nn.functional.normalize(pooled, dim=-1)
        np.testing.assert_allclose(features[k], pooled.numpy(), atol=1e-5)


def test_the_search_s_step_takes_its_other_methods_options_and_refuses_texts_it_cannot_read(tiny_bert, tmp_path):
    # a search's run options for a fine-tune (--batch-size, --lr) are not the probe's concern
    film_task(tmp_path, suffix="csv")
    argv = ["--model", tiny_bert, "--train-file", str(tmp_path / "train.csv"), "--dev-file", str(tmp_path / "dev.csv"),
            "--text-column", "text", "--size", "16", "--splits-dir", str(tmp_path / "splits"),
            "--cache-dir", str(tmp_path / "cache"), "--precision", "fp32"]
    made = prior.checkpoint_prior(argv + ["--batch-size", "8", "--lr", "1e-4"], "tiny")
    assert made["label"] == "tiny" and len(made["layers"]) == 4 and made["examples"] == 16
    assert made["layers"] == prior.checkpoint_prior(argv, "tiny")["layers"]  # the same features either way
    for name, numbers in (("runic.csv", range(24)), ("runic-dev.csv", range(24, 34))):
        (tmp_path / name).write_text("text,label\n" + "".join(f"ᚠᚢᚦ ᚱᚲ{'ᚨ' * i},{i % 2}\n" for i in numbers))
    with pytest.raises(ValueError, match="^tiny reads 100% of the task's tokens as its unknown token"):
        prior.checkpoint_prior(argv[:2] + ["--train-file", str(tmp_path / "runic.csv"), "--dev-file",
                                           str(tmp_path / "runic-dev.csv")] + argv[6:], "tiny")
