"""graphed.py: a training step's passes replayed as CUDA graphs compute what the plain step
computes. On the CPU: a batch padded to its bucket's grid (graphed.Trained) gives the packed
layout's logits and gradients, for every family. On CUDA (bench/gpu.sh runs the suite on a card):
graphed runs give the plain runs' losses with dropout off, and repeat themselves with it on."""

import dataclasses

import numpy as np
import pytest
import torch

import checkpoint
import graphed
import loop
import machine
import methods
import protocol
import trainable
from conftest import cuda_available, tiny_hf_model
from rows import pack

FAMILIES = ["bert", "roberta", "mpnet", "xlm-roberta", "distilbert", "electra", "modernbert", "deberta-v2"]
needs_cuda = pytest.mark.skipif(not cuda_available(), reason="CUDA graphs need a CUDA GPU (bench/gpu.sh runs the suite on one)")


def sentences(n, low, high, seed=0, vocab=99):
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(3, vocab, (int(t),), generator=g) for t in torch.randint(low, high, (n,), generator=g)]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("cached_depth, pooling", [(None, "first"), (1, "first"), (None, "mean")])
def test_a_batch_padded_to_its_bucket_gives_the_packed_logits_and_gradients(family, cached_depth, pooling, tmp_path):
    torch.manual_seed(0)
    model = checkpoint.from_pretrained(tiny_hf_model(family, tmp_path)[1], num_labels=3).eval()
    model.pooling = pooling
    trainable.freeze(model, -1 if cached_depth is None else cached_depth)
    batch = sentences(5, 2, 12)
    if cached_depth is not None:  # the cached prefix's states entering layer 1
        with torch.no_grad():
            rows, layout = pack(batch, pad_value=model.config.pad_token_id)
            states = model.run_layers(model.embed(rows, layout), layout, 0, 1)
        batch = list(torch.split(states, [len(s) for s in batch]))
    plain = loop.logits_for(model, batch, cached_depth, torch.device("cpu"))
    plain_grads = torch.autograd.grad(plain.square().sum(), [p for p in model.parameters() if p.requires_grad])
    T = graphed.BUCKET * 2  # longer than any sentence: padding the layers must ignore
    pad_value = model.config.pad_token_id if cached_depth is None else 0.0
    rows, layout = pack(batch, skip_padding=False, pad_value=pad_value, grid_length=T)
    assert layout.grid == (5, T)
    padded = graphed.Trained(model, cached_depth, layout.grid, torch.device("cpu"))(rows, layout.is_token)
    padded_grads = torch.autograd.grad(padded.square().sum(), [p for p in model.parameters() if p.requires_grad])
    torch.testing.assert_close(padded, plain, rtol=1e-5, atol=1e-5)
    for ours, theirs in zip(padded_grads, plain_grads):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-5)


def tiny_run(folder, method, k, precision, graphs, epochs=3, n=40, seed=1):
    """loop.train of a method on random sentences over a tiny checkpoint, on CUDA."""
    device = torch.device("cuda")
    machine.prepare(device)  # cuDNN's attention off, as a run has it
    torch.manual_seed(seed)
    model = checkpoint.from_pretrained(folder)
    trainable.freeze(model, k)
    methods.get(method).make_trainable(model, k, dict(lora_rank=4, lora_alpha=8, lora_dropout=0.0,
                                                       lora_targets=["query", "value"]))
    model = model.to(device)
    vocab = min(1000, model.config.vocab_size)
    train, dev = sentences(n, 2, 40, seed=2, vocab=vocab), sentences(24, 2, 40, seed=3, vocab=vocab)
    cached_depth = None if k <= 0 else k
    if cached_depth is not None:
        import cache
        train, dev = (cache.frozen_prefix(model, ids, k, device, precision) for ids in (train, dev))
    config = protocol.TrainConfig(epochs=epochs, lr=2e-3, precision=precision, seed=seed, cuda_graphs=graphs)
    return loop.train(model, config, loop.RunInputs(train, np.arange(n) % 2, dev, np.arange(24) % 2, cached_depth, device),
                      log=lambda line: None)


@needs_cuda
@pytest.mark.parametrize("method, k", [("finetune", -1), ("finetune", 0), ("finetune", 2), ("lora", 0), ("lora", 2),
                                       ("bitfit", -1), ("bitfit", 2)])
@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_graphed_runs_give_the_plain_runs_losses_with_dropout_off(tiny_bert_no_dropout, method, k, precision):
    plain = tiny_run(tiny_bert_no_dropout, method, k, precision, graphs=False)
    graphs = tiny_run(tiny_bert_no_dropout, method, k, precision, graphs=True)
    tolerance = dict(rtol=2e-3, atol=2e-3) if precision == "fp16" else dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(graphs.losses, plain.losses, **tolerance)
    assert [p["step"] for p in graphs.curve] == [p["step"] for p in plain.curve]


@needs_cuda
@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_graphs_and_repeats_itself_with_dropout_on(family, tmp_path):
    folder = tiny_hf_model(family, tmp_path, num_labels=2)[1]
    runs = [tiny_run(folder, "finetune", 0, "fp16", graphs=True, epochs=2) for _ in range(2)]
    assert runs[0].losses == runs[1].losses  # the same seed, the same masks
    assert all(np.isfinite(runs[0].losses))
    plain = tiny_run(folder, "finetune", 0, "fp16", graphs=False, epochs=2)
    assert runs[0].losses != plain.losses  # other masks: the same distribution, another draw
