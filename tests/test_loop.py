"""loop.py: the protocol's numbers, freezing, evaluation order, and the cache's equivalence."""

import math

import numpy as np
import pytest
import torch
import transformers

import cache
import checkpoint
import loop
import protocol
import optim
import trainable
from conftest import tiny_hf_model


def test_schedule_equals_transformers_linear_warmup():
    for n in (50, 1000):
        steps_per_epoch = math.ceil(n / 16)
        total = 10 * steps_per_epoch
        optimizer = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))], lr=5e-5)
        schedule = transformers.get_linear_schedule_with_warmup(optimizer, steps_per_epoch, total)
        for step in range(total):
            expected = optimizer.param_groups[0]["lr"]  # the lr this step runs at
            assert optim.lr_at(step, steps_per_epoch, total, 5e-5) == pytest.approx(expected, abs=1e-15)
            optimizer.step()
            schedule.step()
        assert optim.lr_at(0, steps_per_epoch, total, 5e-5) == 0.0


def trainable_names(classifier):
    return {name.split(".")[0] + ("." + name.split(".")[1] if name.startswith("layers") else "")
            for name, p in classifier.named_parameters() if p.requires_grad}


def test_freezing_trains_exactly_what_k_says(tiny_bert):
    classifier = checkpoint.from_pretrained(tiny_bert)  # 3 layers
    cases = {-1: {"layers.0", "layers.1", "layers.2", "head"},
             0: {"embed", "layers.0", "layers.1", "layers.2", "head"},
             1: {"layers.1", "layers.2", "head"},
             3: {"head"}}
    for k, expected in cases.items():
        trainable.freeze(classifier, k)
        assert trainable_names(classifier) == expected, k
    for k in (-2, 4):
        with pytest.raises(ValueError, match=r"outside \[-1, 3\] for this 3-layer model"):
            trainable.freeze(classifier, k)


@pytest.mark.parametrize("n, evaluations", [(50, 20), (100, 17), (200, 18), (500, 20), (1000, 19)])
def test_number_of_evaluations_over_ten_epochs(tiny_bert, n, evaluations):
    classifier = checkpoint.from_pretrained(tiny_bert)
    trainable.freeze(classifier, 3)  # head only, on one-token "cached" states: the loop's own count
    inputs = [torch.randn(1, 32) for _ in range(n)]
    dev = [torch.randn(1, 32) for _ in range(4)]
    history = loop.train(classifier, protocol.TrainConfig(), loop.RunInputs(inputs, np.arange(n) % 2, dev,
                         np.array([0, 1, 0, 1]), 3, torch.device("cpu")), log=lambda line: None)
    assert len(history.curve) == evaluations
    assert len(history.losses) == history.total_steps == 10 * math.ceil(n / 16)
    assert [p["step"] for p in history.curve][:2] == [history.eval_every, 2 * history.eval_every]


def test_predictions_come_back_in_the_original_order(tiny_bert):
    classifier = checkpoint.from_pretrained(tiny_bert).eval()
    g = torch.Generator().manual_seed(0)
    inputs = [torch.randint(1000, 2000, (int(length),), generator=g)
              for length in torch.randint(2, 30, (50,), generator=g)]
    one_by_one = lambda: [classifier([ids])[0] for ids in inputs]
    with torch.no_grad():  # move the decision boundary to the median, so both classes occur
        margins = torch.stack([logits[1] - logits[0] for logits in one_by_one()])
        classifier.head.out_proj.bias[1] -= margins.median() + 1e-4
        expected = [logits.argmax().item() for logits in one_by_one()]
    batched = loop.predict(classifier, inputs, None, torch.device("cpu"), batch_size=8)
    assert 20 <= sum(expected) <= 30
    assert batched.tolist() == expected


def logits_and_gradients(classifier, inputs, labels, start, skip_padding, device):
    classifier.zero_grad()
    logits = loop.logits_for(classifier, inputs, start, device, skip_padding)
    torch.nn.functional.cross_entropy(logits, labels).backward()
    return logits.detach(), {n: p.grad.clone() for n, p in classifier.named_parameters() if p.requires_grad}


@pytest.mark.parametrize("k", [0, 1, 3])
def test_skipping_padding_trains_as_the_padded_batch_from_ids_and_from_the_cache(tiny_bert_no_dropout, k, device):
    # the loop's two inputs: token ids (k = 0, nothing cached) and cached states entering layer k
    classifier = checkpoint.from_pretrained(tiny_bert_no_dropout).train().to(device)  # dropout 0: nothing random
    trainable.freeze(classifier, k)
    g = torch.Generator().manual_seed(0)
    ids = [torch.randint(1000, 2000, (n,), generator=g) for n in (3, 41, 8, 2, 25, 13, 1, 33)]
    labels = torch.tensor([0, 1, 1, 0, 1, 0, 0, 1], device=device)
    inputs = ids if k == 0 else cache.frozen_prefix(classifier, ids, k, device, "fp32")
    start = None if k == 0 else k
    classifier.train()
    packed = logits_and_gradients(classifier, inputs, labels, start, True, device)
    padded = logits_and_gradients(classifier, inputs, labels, start, False, device)
    torch.testing.assert_close(packed[0], padded[0], atol=1e-5, rtol=0)
    assert set(packed[1]) == set(padded[1]) and packed[1]
    for name, grad in packed[1].items():
        torch.testing.assert_close(grad, padded[1][name], rtol=1e-4, atol=1e-6, msg=name)


def test_adamw_is_torch_s_fused_adamw_bit_for_bit(tiny_bert_no_dropout, device):
    """Two groups (weight decay and none), a learning rate that moves, a parameter without a
    gradient in some steps, and the gradient scaler on, with one overflowing step it must skip."""
    ids = [torch.randint(1000, 2000, (n,), generator=torch.Generator().manual_seed(n)) for n in (5, 9, 3, 7)]
    labels = torch.tensor([0, 1, 1, 0], device=device)
    weights = {}
    for kind in ("torch", "ours"):
        torch.manual_seed(0)
        classifier = checkpoint.from_pretrained(tiny_bert_no_dropout).to(device)
        named = list(classifier.named_parameters())
        groups = [dict(params=[p for n, p in named if not n.endswith(".bias")], weight_decay=0.01),
                  dict(params=[p for n, p in named if n.endswith(".bias")], weight_decay=0.0)]
        optimizer = (torch.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.98), eps=1e-6, fused=True) if kind == "torch"
                     else optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.98), eps=1e-6))
        scaler = torch.amp.GradScaler(device.type, init_scale=2.0 ** 10)
        config = protocol.TrainConfig(precision="fp16")
        params = [p for _, p in named]
        for step in range(6):
            for group in optimizer.param_groups:
                group["lr"] = optim.lr_at(step, 2, 6, 1e-3)
            classifier.head.dense.weight.requires_grad_(step % 2 == 0)  # no gradient on odd steps
            if step == 3:
                scaler.update(2.0 ** 40)  # overflows float16 in the backward pass: a skipped step
            loop.train_step(classifier, optimizer, scaler, params, ids, labels, None, device, config)
        weights[kind] = {n: p.detach().clone() for n, p in named}
    assert weights["ours"].keys() == weights["torch"].keys()
    for name, weight in weights["torch"].items():
        assert torch.equal(weights["ours"][name], weight), name


def test_decay_rounds_as_fused_adamw_on_a_row_that_never_had_a_gradient(device):
    """A row whose gradient and moments have always been zero moves by weight decay alone:
    optim.decay gives fused AdamW's weights bit for bit on this device (the CPU's kernel multiplies
    by 1 - lr * decay; CUDA's subtracts lr * decay, a float32 product, rounding once: docs/gpu.md)."""
    start = torch.randn(4096, 64, generator=torch.Generator().manual_seed(0)).to(device)
    fused, ours = start.clone().requires_grad_(True), start.clone()
    optimizer = torch.optim.AdamW([fused], lr=1.0, weight_decay=0.01, fused=True)
    for lr in (3e-4, 1e-3, 7e-5, 2.5e-3):
        optimizer.param_groups[0]["lr"] = lr
        fused.grad = torch.zeros_like(fused)
        optimizer.step()
        optim.decay(ours, lr, 0.01)
        assert torch.equal(fused.detach(), ours), lr
    assert not torch.equal(ours, start)


@pytest.mark.parametrize("weight_decay,precision", [(0.0, "fp32"), (0.01, "fp32"), (0.01, "fp16")])
def test_adamw_on_the_used_word_rows_gives_the_plain_path_s_weights_bit_for_bit(tiny_bert, weight_decay, precision,
                                                                               device, monkeypatch):
    """loop.train over three epochs, dropout on, the learning rate warming up and decaying, with
    AdamW on the word embedding's used rows and with it on all 30,522 (the plain path)."""
    g = torch.Generator().manual_seed(5)
    sentences = lambda n: [torch.randint(1000, 1400, (int(t),), generator=g) for t in torch.randint(2, 10, (n,), generator=g)]
    train_inputs, dev_inputs = sentences(24), sentences(8)
    train_labels, dev_labels = np.arange(24) % 2, np.arange(8) % 2
    config = protocol.TrainConfig(epochs=3, lr=1e-3, weight_decay=weight_decay, precision=precision, selection="last")
    weights, states = {}, {}
    for kind in ("used rows", "every row"):
        if kind == "every row":
            monkeypatch.setattr(loop, "used_word_rows", lambda *args: {})
        torch.manual_seed(0)
        classifier = checkpoint.from_pretrained(tiny_bert).to(device)
        trainable.freeze(classifier, 0)
        states[kind] = optim.used_word_rows(classifier, train_inputs, None)
        loop.train(classifier, config, loop.RunInputs(train_inputs, train_labels, dev_inputs, dev_labels, None,
                                                      device), log=lambda line: None)
        weights[kind] = {n: p.detach().clone() for n, p in classifier.named_parameters()}
    rows = next(iter(states["used rows"].values()))
    assert 100 < len(rows) < 402  # the tokens drawn from 400 ids, and [PAD]: the restriction is real
    for name, weight in weights["every row"].items():
        assert torch.equal(weights["used rows"][name], weight), name
    word = weights["every row"]["embed.word.weight"]
    original = checkpoint.from_pretrained(tiny_bert).embed.word.weight.to(device)
    unused = torch.ones(len(word), dtype=torch.bool, device=device)
    unused[rows] = False
    assert not torch.equal(word[rows], original[rows])  # the used rows trained
    assert torch.equal(word[unused], original[unused]) == (weight_decay == 0)  # the others moved by decay alone


def test_word_rows_are_only_for_a_word_embedding_that_trains_on_token_ids(tiny_bert):
    classifier = checkpoint.from_pretrained(tiny_bert)
    ids = [torch.tensor([101, 7, 7, 102]), torch.stack([torch.tensor([101, 9, 102, 8, 102]), torch.tensor([0, 0, 0, 1, 1])], 1)]
    rows = optim.used_word_rows(classifier, ids, None)
    assert rows[classifier.embed.word.weight].tolist() == [0, 7, 8, 9, 101, 102]  # [PAD] is 0; segments are not ids
    assert optim.used_word_rows(classifier, ids, 2) == {}  # cached states: the embedding does not run
    trainable.freeze(classifier, 1)
    assert optim.used_word_rows(classifier, ids, None) == {}


def fp16_step(classifier, scaler, ids, labels, device):
    """One loop.train_step in fp16 mixed precision (on the CPU too, where CI can run it)."""
    params = [p for p in classifier.parameters() if p.requires_grad]
    optimizer = optim.AdamW([dict(params=params)], lr=1e-3)
    config = protocol.TrainConfig(precision="fp16")
    return loop.train_step(classifier, optimizer, scaler, params, ids, labels, None, device, config)


def test_gradient_scaler_skips_an_overflowing_step_and_lowers_its_scale(tiny_bert_no_dropout, device):
    classifier = checkpoint.from_pretrained(tiny_bert_no_dropout).to(device)
    ids = [torch.randint(1000, 2000, (n,)) for n in (5, 9, 3, 7)]
    labels = torch.tensor([0, 1, 1, 0], device=device)
    before = {n: p.detach().clone() for n, p in classifier.named_parameters()}
    # a loss scaled by 2^40 overflows float16 (max 65504) in the backward pass
    scaler = torch.amp.GradScaler(device.type, init_scale=2.0 ** 40)
    loss = fp16_step(classifier, scaler, ids, labels, device)
    assert math.isfinite(loss)  # the loss itself is fine: only the scaled gradients overflow
    assert scaler.get_scale() == 2.0 ** 39  # backed off by half
    for name, param in classifier.named_parameters():
        assert torch.equal(param, before[name]), f"{name} changed in a skipped step"
    # at a sane scale the next step is taken
    scaler = torch.amp.GradScaler(device.type, init_scale=2.0 ** 10)
    fp16_step(classifier, scaler, ids, labels, device)
    assert scaler.get_scale() == 2.0 ** 10
    assert not torch.equal(classifier.layers[0].ffn_in.weight, before["layers.0.ffn_in.weight"])


def test_fp16_and_bf16_training_follow_fp32(tiny_bert_no_dropout, device):
    g = torch.Generator().manual_seed(0)
    ids = [torch.randint(1000, 2000, (int(n),), generator=g) for n in torch.randint(3, 20, (32,), generator=g)]
    labels = torch.arange(32, device=device) % 2
    losses = {}
    for precision in ("fp32", "fp16", "bf16"):
        classifier = checkpoint.from_pretrained(tiny_bert_no_dropout).to(device)
        params = [p for p in classifier.parameters() if p.requires_grad]
        optimizer = optim.AdamW([dict(params=params)], lr=1e-3)
        scaler = torch.amp.GradScaler(device.type, enabled=precision == "fp16")
        config = protocol.TrainConfig(precision=precision)
        # eight steps on one batch: the model memorises it, so the losses move a long way
        losses[precision] = [loop.train_step(classifier, optimizer, scaler, params, ids[:16], labels[:16],
                                             None, device, config) for _ in range(12)]
    assert losses["fp32"][-1] < losses["fp32"][0] - 0.05  # it learns, so following it means something
    assert losses["fp16"] == pytest.approx(losses["fp32"], abs=1e-3)
    assert losses["bf16"] == pytest.approx(losses["fp32"], abs=5e-3)
    assert losses["fp16"] != losses["fp32"]  # it did run in half precision


@pytest.mark.parametrize("selection", ["best", "last"])
def test_the_chosen_evaluations_weights_are_restored_exactly(tiny_bert, selection, device):
    # after training, the model holds the weights of the evaluation the run reports: scoring the
    # dev split again reproduces that evaluation's figures, and the train scores are theirs too
    torch.manual_seed(0)
    classifier = checkpoint.from_pretrained(tiny_bert).to(device)
    trainable.freeze(classifier, 1)
    g = torch.Generator().manual_seed(3)
    sentences = lambda n: [torch.randint(1000, 2000, (int(t),), generator=g) for t in torch.randint(3, 12, (n,), generator=g)]
    train_inputs, dev_inputs = sentences(48), sentences(40)
    train_labels, dev_labels = np.arange(48) % 2, (np.arange(40) // 3) % 2
    config = protocol.TrainConfig(epochs=4, lr=1e-3, metric="accuracy", selection=selection, eval_at_end=True)
    history = loop.train(classifier, config, loop.RunInputs(train_inputs, train_labels, dev_inputs, dev_labels, None,
                                                            device), log=lambda line: None)
    chosen, curve = history.chosen, history.curve
    if selection == "best":
        assert chosen["step"] < curve[-1]["step"], "the test needs a best evaluation before the last"
        assert chosen["accuracy"] == max(p["accuracy"] for p in curve)
        assert all(p["accuracy"] < chosen["accuracy"] for p in curve if p["step"] < chosen["step"])
    else:
        assert chosen is curve[-1]
    dev = loop.metrics.scores(dev_labels, loop.predict(classifier, dev_inputs, None, device, config.precision), 2)
    assert dev == {name: chosen[name] for name in dev}
    train = loop.metrics.scores(train_labels, loop.predict(classifier, train_inputs, None, device, config.precision), 2)
    assert train == history.train_scores


def test_reinit_resets_exactly_the_top_layers_as_transformers_initialises_them(tiny_bert):
    classifier = checkpoint.from_pretrained(tiny_bert)  # 3 layers, 32 wide, initializer_range 0.02
    before = {name: p.detach().clone() for name, p in classifier.named_parameters()}
    trainable.freeze(classifier, 1)
    trainable.reinitialize_top(classifier, 2, 1)
    changed = {name for name, p in classifier.named_parameters() if not torch.equal(p, before[name])}
    assert {name.split(".")[1] for name in changed} == {"1", "2"} and all(n.startswith("layers.") for n in changed)
    assert trainable_names(classifier) == {"layers.1", "layers.2", "head"}  # freezing is untouched
    # transformers' own fresh layer, by its _init_weights: the same statistics per tensor
    config = transformers.BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64)
    torch.manual_seed(0)
    theirs = dict(transformers.BertModel(config).encoder.layer[0].named_parameters())
    ours = dict(classifier.layers[2].named_parameters())
    for name, param in ours.items():
        source = checkpoint.hf_name(f"layers.0.{name}", "bert").removeprefix("encoder.layer.0.")
        reference = theirs[source]
        if name.endswith("bias") or "norm" in name:
            assert torch.equal(param, reference), name  # zeros, and LayerNorm's ones
        else:
            assert param.std().item() == pytest.approx(reference.std().item(), rel=0.15), name
            assert abs(param.mean().item()) < 3 * 0.02 / param.numel() ** 0.5, name
    with pytest.raises(ValueError, match=r"--reinit 3 with --freeze 1: .* \(k \+ N <= 3 for this 3-layer model\)"):
        trainable.reinitialize_top(classifier, 3, 1)
    with pytest.raises(ValueError, match=r"--reinit -1: the number of top layers reset is 0 or more"):
        trainable.reinitialize_top(classifier, -1, 1)  # once read as the layers overlapping


def test_a_frozen_depth_freezes_mpnets_relative_bias_and_training_leaves_it_untouched(tmp_path):
    # the table feeds every layer, the frozen (cached) ones too: trained, it would make the cache stale
    _, folder = tiny_hf_model("mpnet", tmp_path)
    for k, trains in ((-1, True), (0, True), (1, False), (3, False)):
        classifier = checkpoint.from_pretrained(folder, num_labels=3)
        trainable.freeze(classifier, k)
        assert classifier.relative_bias.weight.requires_grad is trains, k
    before = classifier.relative_bias.weight.detach().clone()  # k = 1: train the top two layers
    classifier = checkpoint.from_pretrained(folder, num_labels=3)
    trainable.freeze(classifier, 1)
    ids = [torch.randint(5, 99, (n,)) for n in (12, 30, 4, 19)] * 4
    dev = ids[:4]
    inputs, dev_inputs = (cache.frozen_prefix(classifier, x, 1, torch.device("cpu"), "fp32") for x in (ids, dev))
    loop.train(classifier, protocol.TrainConfig(epochs=2, lr=1e-2), loop.RunInputs(inputs, np.arange(16) % 3, dev_inputs,
               np.array([0, 1, 2, 0]), 1, torch.device("cpu")), log=lambda line: None)
    torch.testing.assert_close(classifier.relative_bias.weight, before, rtol=0, atol=0)
    assert not torch.equal(classifier.layers[2].query.weight, checkpoint.from_pretrained(folder, 3).layers[2].query.weight)


def test_mpnet_trains_in_fp16_and_bf16_as_in_fp32(tmp_path, device):
    # the relative position bias joins the padding mask as a float mask in the scores' precision
    _, folder = tiny_hf_model("mpnet", tmp_path)
    g = torch.Generator().manual_seed(0)
    ids = [torch.randint(5, 99, (int(n),), generator=g) for n in torch.randint(3, 40, (16,), generator=g)]
    labels = torch.arange(16, device=device) % 3
    losses = {}
    for precision in ("fp32", "fp16", "bf16"):
        classifier = checkpoint.from_pretrained(folder, num_labels=3).to(device)
        for module in classifier.modules():  # nothing random, so the three follow one path
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
        for layer in classifier.layers:
            layer.attention_dropout = 0.0
        params = [p for p in classifier.parameters() if p.requires_grad]
        optimizer = optim.AdamW([dict(params=params)], lr=1e-3)
        scaler = torch.amp.GradScaler(device.type, enabled=precision == "fp16")
        config = protocol.TrainConfig(precision=precision)
        losses[precision] = [loop.train_step(classifier, optimizer, scaler, params, ids, labels, None, device, config)
                             for _ in range(12)]
    assert losses["fp32"][-1] < losses["fp32"][0] - 0.05
    assert losses["fp16"] == pytest.approx(losses["fp32"], abs=1e-3)
    assert losses["bf16"] == pytest.approx(losses["fp32"], abs=5e-3)
    assert losses["fp16"] != losses["fp32"]
