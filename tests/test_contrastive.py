"""contrastive.py: SetFit's pairs with the library's statistics, its head's objective, and a run
through the frozen-prefix cache that trains as the whole network does."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import contrastive
import data
import freeze_study
from conftest import run


def test_pairs_are_setfit_s_oversampled_pairs():
    labels = np.array([1] * 28 + [0] * 22)  # SST-2's 50-example subset: 28 positive, 22 negative
    first, second, target = contrastive.contrastive_pairs(labels, np.random.default_rng(0))
    # every pair i <= j: 28 x 29 / 2 + 22 x 23 / 2 = 659 positive (a sentence with itself among
    # them), 28 x 22 = 616 negative, oversampled to 659: 1318 pairs, as the library makes
    assert len(target) == 1318 and target.sum() == 659
    assert np.all(first <= second) and np.all((labels[first] == labels[second]) == (target == 1))
    assert list(target[:6]) == [1, 0, 1, 0, 1, 0]  # positives and negatives alternate
    distinct = lambda kind: {(i, j) for i, j, t in zip(first, second, target) if t == kind}
    assert len(distinct(1)) == 659 and len(distinct(0)) == 616  # every pair once; 43 negatives twice
    first, second, target = contrastive.contrastive_pairs(labels, np.random.default_rng(0), num_iterations=20)
    assert len(target) == 2 * 20 * 50 and target.sum() == 20 * 50
    with pytest.raises(ValueError, match="one"):
        contrastive.contrastive_pairs(np.zeros(8, dtype=int), np.random.default_rng(0))


@pytest.mark.parametrize("num_labels", [2, 3])
def test_head_minimises_scikit_learn_s_logistic_regression_objective(num_labels):
    g = torch.Generator().manual_seed(0)
    x = F.normalize(torch.randn(40, 6, generator=g, dtype=torch.float64), dim=-1)
    y = torch.arange(40) % num_labels
    weight, bias = contrastive.fit_head(x.numpy(), y.numpy(), num_labels)
    if num_labels == 2:  # scikit-learn's binomial form: one vector, the logit difference
        w = (weight[:, 1] - weight[:, 0]).clone().requires_grad_(True)
        b = (bias[1] - bias[0]).clone().requires_grad_(True)
        objective = 0.5 * (w ** 2).sum() + contrastive.HEAD_C * F.binary_cross_entropy_with_logits(
            x @ w + b, y.double(), reduction="sum")
        grads = torch.autograd.grad(objective, [w, b])
    else:  # multinomial: 0.5 |W|^2 + C x the summed cross-entropy
        w, b = weight.clone().requires_grad_(True), bias.clone().requires_grad_(True)
        objective = 0.5 * (w ** 2).sum() + contrastive.HEAD_C * F.cross_entropy(x @ w + b, y, reduction="sum")
        grads = torch.autograd.grad(objective, [w, b])
    # at the optimum: the gradient of the objective per example vanishes (the solver's tolerance); the
    # binary form's penalty taken as the multinomial one (half as strong) would leave it at ~1e-2
    assert max(float(g.abs().max()) for g in grads) / len(y) < 1e-5


def test_setfit_through_the_cache_trains_as_the_whole_network(tmp_path, tiny_bert_no_dropout, glue_dir):
    common = ("--method", "setfit", "--freeze", "1", "--precision", "fp32", "--pooling", "mean", "--size", "8")
    cached = run(tmp_path, tiny_bert_no_dropout, glue_dir, *common)
    full = run(tmp_path, tiny_bert_no_dropout, glue_dir, *common, "--no-cache", out="full.json")
    assert cached["config"]["cache"] and not full["config"]["cache"]
    task = data.load_glue("sst2", glue_dir)
    counts = np.bincount(task.train_labels[data.load_subset(task, 8, str(tmp_path / "splits"))])
    same, different = sum(c * (c + 1) // 2 for c in counts), counts[0] * counts[1]
    assert cached["selection"] == "setfit" and cached["setfit"]["pairs"] == 2 * max(same, different)
    assert cached["train_losses"] == pytest.approx(full["train_losses"], abs=1e-5)
    assert cached["at_score"] == pytest.approx(full["at_score"], abs=1e-6)
    assert cached["config"]["normalize"] is False and cached["config"]["pooling"] == "mean"  # no sentence-transformers files


def test_setfit_with_adamw_on_the_used_word_rows_trains_as_on_every_row(tmp_path, tiny_bert, glue_dir, monkeypatch):
    # the body's weight decay (0.01) reaches the word embedding: the rows no pair uses decay, bit for bit
    common = ("--method", "setfit", "--freeze", "0", "--precision", "fp32", "--size", "8")
    used = run(tmp_path, tiny_bert, glue_dir, *common)
    monkeypatch.setattr(contrastive, "used_word_rows", lambda *args: {})
    every = run(tmp_path, tiny_bert, glue_dir, *common, out="every.json")
    assert used["train_losses"] == every["train_losses"] and used["at_score"] == every["at_score"]


@pytest.mark.parametrize("method", ["setfit", "setfit-fast"])
def test_a_regression_task_and_the_protocol_s_options_are_refused(tmp_path, tiny_bert, glue_dir, capsys, method):
    # SetFit trains its body on its own schedule and steps: --epochs 20 would be ignored
    for extra, message in ((["--dataset", "stsb"], "stsb is a regression task"),
                           (["--epochs", "20"], f"--method {method} would ignore --epochs: it trains its body"),
                           (["--batch-size", "32"], f"--method {method} would ignore --batch-size"),
                           (["--protocol", "lee"], f"--method {method} would ignore --protocol"),
                           (["--lora-rank", "4"], f"--lora-rank goes with --method lora, not --method {method}")):
        with pytest.raises(SystemExit) as exit_:
            freeze_study.main(["--model", tiny_bert, "--glue-dir", glue_dir, "--method", method, "--quiet",
                               "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / "r.json"), *extra])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.count("\n") == 1 and message in err and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()


# ----------------------------------------------------------------------------------------------
# The fast body (--method setfit-fast)

# 33 and 385 sentences: one past a whole number of batches, whose last sentence joins the batch before
@pytest.mark.parametrize("counts", [[25, 25], [120, 40, 30, 10], [2] * 150, [20, 13], [193, 192]])
def test_class_blocks_give_every_sentence_once_an_epoch_and_every_batch_positives(counts):
    labels = np.repeat(np.arange(len(counts)), counts)
    batches = contrastive.class_blocks(labels, np.random.default_rng(0))
    assert sorted(np.concatenate(batches).tolist()) == list(range(len(labels)))  # each once: distinct sentences
    assert all(len(b) == contrastive.FAST_BATCH for b in batches[:-1] if len(labels) % contrastive.FAST_BATCH != 1)
    assert len(batches) == max(1, len(labels) // contrastive.FAST_BATCH) if len(labels) % contrastive.FAST_BATCH == 1 \
        else len(batches) == -(-len(labels) // contrastive.FAST_BATCH)
    for batch in batches:
        assert len(np.unique(labels[batch])) < len(batch)  # some class twice: positive pairs in every batch
        assert len(np.unique(labels[batch])) > 1  # and negative ones


def test_all_pairs_loss_is_setfit_s_loss_on_every_pair_weighted_half_and_half():
    g = torch.Generator().manual_seed(0)
    embeddings, labels = torch.randn(10, 8, generator=g), torch.tensor([0, 1, 2, 0, 1, 1, 2, 0, 0, 1])
    positives, negatives = [], []
    for i in range(10):
        for j in range(i + 1, 10):
            cosine = F.cosine_similarity(embeddings[i], embeddings[j], dim=0)
            (positives if labels[i] == labels[j] else negatives).append((cosine - float(labels[i] == labels[j])) ** 2)
    expected = (torch.stack(positives).mean() + torch.stack(negatives).mean()) / 2
    torch.testing.assert_close(contrastive.all_pairs_loss(embeddings, labels), expected)
    only_negatives = contrastive.all_pairs_loss(embeddings[:3], labels[:3])  # no positive pair: the negatives alone
    cosines = [F.cosine_similarity(embeddings[i], embeddings[j], dim=0) for i, j in ((0, 1), (0, 2), (1, 2))]
    torch.testing.assert_close(only_negatives, torch.stack(cosines).square().mean())


def test_all_pairs_loss_gives_one_gradient_every_time():
    """Its gradient is the same on every call: a sum over duplicate indices (each sentence in 31
    pairs of a batch of 32) came out in another order from one call to the next, on two threads
    (the suite runs torch on one, where that order is fixed)."""
    labels = torch.randint(0, 2, (32,), generator=torch.Generator().manual_seed(0))
    grads, threads = set(), torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        for _ in range(10):
            embeddings = torch.randn(32, 384, generator=torch.Generator().manual_seed(1)).requires_grad_()
            contrastive.all_pairs_loss(embeddings, labels).backward()
            grads.add(embeddings.grad.numpy().tobytes())
    finally:
        torch.set_num_threads(threads)
    assert len(grads) == 1


@pytest.mark.parametrize("num_iterations", [None, 5])
def test_library_passes_count_the_library_s_pairs_twice(num_iterations):
    for counts in ([25, 25], [120, 40, 30, 10], [2] * 150):
        labels = np.repeat(np.arange(len(counts)), counts)
        first, _, _ = contrastive.contrastive_pairs(labels, np.random.default_rng(0), num_iterations)
        assert contrastive.library_passes(labels, num_iterations) == 2 * len(first)


def test_a_fast_setfit_run_spends_its_steps_and_says_which_body_ran(tmp_path, tiny_bert, glue_dir):
    common = ("--freeze", "1", "--precision", "fp32", "--size", "40")
    fast = run(tmp_path, tiny_bert, glue_dir, "--method", "setfit-fast", *common, out="fast/r.json")
    library = run(tmp_path, tiny_bert, glue_dir, "--method", "setfit", *common, out="library/r.json")
    assert fast["config"]["method"] == "setfit-fast" and fast["setfit-fast"]["body"] == "fast"
    assert library["config"]["method"] == "setfit" and library["setfit"]["body"] == "library"
    task = data.load_glue("sst2", glue_dir)
    labels = task.train_labels[data.load_subset(task, 40, str(tmp_path / "splits"))]
    passes = contrastive.library_passes(labels)
    assert passes == 2 * library["setfit"]["pairs"]  # 2 sentences a pair
    assert len(fast["train_losses"]) == fast["total_steps"] == contrastive.fast_steps(labels)
    assert np.isfinite(fast["train_losses"]).all() and 0 <= fast["at_score"]["accuracy"] <= 1


@pytest.mark.parametrize("num_iterations", [None, 20])
def test_the_fast_body_spends_an_eighth_of_the_library_s_passes_within_forty_epochs_and_400_steps(num_iterations):
    capped = 0
    for counts in ([25, 25], [100, 100], [120, 40, 30, 10], [2] * 150, [500, 500], [5] * 150, [8000, 8000]):
        labels = np.repeat(np.arange(len(counts)), counts)
        steps, epoch = contrastive.fast_steps(labels, num_iterations), len(contrastive.class_blocks(labels, np.random.default_rng(0)))
        eighth, most = contrastive.library_passes(labels, num_iterations) / 8, min(40 * epoch, 400)
        assert steps >= epoch and (steps <= most or steps == epoch)  # one epoch at least, else the cap at most
        assert steps in (epoch, most) or (steps - 1) * 32 < eighth <= steps * 32
        capped += steps == most < eighth / 32
    # without num_iterations: n = 300 and 750 of 150 classes, n = 1000 of 2; n = 16,000: one epoch, 500 steps
    assert capped == (3 if num_iterations is None else 0)
    assert contrastive.fast_steps(np.repeat([0, 1], 500)) == 400 and contrastive.fast_steps(np.repeat([0, 1], 8000)) == 500


def test_the_two_bodies_are_two_methods_their_names_say_which():
    import result
    fast, library = (result.parse_name(f"freeze0_size200_seed1_{suffix}.json") for suffix in ("setfit-fast", "setfit"))
    assert (fast.method, library.method) == ("setfit-fast", "setfit")
    assert fast.file_name() == "freeze0_size200_seed1_setfit-fast.json"
    config = dict(method="setfit-fast", freeze=0, size=200, seed=1, lr=3e-4, reinit=0)
    assert result.name_of(config).file_name() == "freeze0_size200_seed1_lr3e-4_setfit-fast.json"


def test_a_fast_setfit_run_in_half_precision_follows_fp32_on_the_device(tmp_path, tiny_bert_no_dropout, glue_dir,
                                                                       device):
    """SetFit fast as make advise runs it on a card (fp16, CUDA's default, with its gradient scaler)
    and on a bf16 CPU: the same run's losses as in fp32, step by step, within half precision's
    rounding (dropout off, so nothing random differs between them). 41 steps at a high rate, so the
    loss moves (on a CPU, bf16 strayed 7e-4 from fp32 at most)."""
    losses, halves = {}, ("bf16", "fp16") if device.type == "cuda" else ("bf16",)  # a run refuses fp16 on a CPU
    for precision in ("fp32", *halves):
        result = run(tmp_path, tiny_bert_no_dropout, glue_dir, "--method", "setfit-fast", "--freeze", "0", "--size", "100",
                     "--lr", "5e-3", "--precision", precision, "--device", str(device), out=f"{precision}/r.json")
        losses[precision] = result["train_losses"]
    assert losses["fp32"][-1] < losses["fp32"][0] - 0.05  # it learns, so following it means something
    for half in halves:
        assert losses[half] == pytest.approx(losses["fp32"], abs=1e-3 if half == "fp16" else 5e-3)
        assert losses[half] != losses["fp32"]  # it did run in half precision
