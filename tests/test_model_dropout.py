"""model.py's dropout: masks drawn by numpy on a CPU are the computation of F.dropout and SDPA
given the same mask, and training-mode logits have the distribution of torch's own masks."""

import contextlib

import pytest
import torch

import checkpoint
import model
from conftest import padded_batch, tiny_hf_model


def test_dropout_is_f_dropout_given_its_mask(monkeypatch):
    x = torch.randn(64, 384, generator=torch.Generator().manual_seed(0)) + 5.0  # no zeros of its own
    torch.manual_seed(3)
    plain = torch.nn.functional.dropout(x, 0.1, True)
    monkeypatch.setattr(model, "keep_mask", lambda shape, p, device: plain != 0)  # torch's own mask
    assert torch.equal(model.dropout(x, 0.1, True), plain)  # to the bit
    assert model.dropout(x, 0.1, False) is x and model.Dropout(0.1).eval()(x) is x


def test_keep_mask_keeps_one_minus_p_and_follows_the_seed():
    torch.manual_seed(7)
    first, second = model.keep_mask((1000, 1000), 0.1), model.keep_mask((1000, 1000), 0.1)
    kept = first.float().mean().item()
    assert abs(kept - 0.9) < 4 * (0.9 * 0.1 / 1e6) ** 0.5  # within 4 standard errors of 1 - p
    assert not torch.equal(first, second)  # each call draws anew
    torch.manual_seed(7)
    assert torch.equal(model.keep_mask((1000, 1000), 0.1), first)  # torch's seed fixes the masks
    rows_kept = first.float().mean(1)  # and no row is favoured: each row's share about 0.9 too
    assert (rows_kept - 0.9).abs().max() < 5 * (0.9 * 0.1 / 1000) ** 0.5


def test_drawn_masks_change_nothing_on_a_cpu_and_draw_tensors_elsewhere(tmp_path):
    _, folder = tiny_hf_model("bert", tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3).train()
    ids = [torch.tensor([2, 7, 8, 9, 3]), torch.tensor([2, 5, 3])]  # a vocabulary of 99
    logits = []
    for context in (contextlib.nullcontext(), model.drawn_masks()):
        torch.manual_seed(4)
        with context:
            logits.append(ours(ids))
    assert torch.equal(*logits)  # a CPU run draws its masks so already
    cuda = torch.device("cuda")  # a device named, not used
    with model.drawn_masks():
        assert model.draws_masks(cuda)
    assert not model.draws_masks(cuda) and model.draws_masks(torch.device("cpu"))
    mask = model.keep_mask((4, 5), 0.1, torch.device("meta"))  # off the CPU: torch.rand on the device
    assert mask.shape == (4, 5) and mask.dtype == torch.bool and mask.device.type == "meta"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_drawn_masks_on_cuda_keep_one_minus_p_and_follow_the_seed():
    x = torch.ones(1000, 1000, device="cuda")
    with model.drawn_masks():
        torch.manual_seed(7)
        first, second = model.dropout(x, 0.1, True), model.dropout(x, 0.1, True)
        torch.manual_seed(7)
        again = model.dropout(x, 0.1, True)
    assert abs((first != 0).float().mean().item() - 0.9) < 4 * (0.9 * 0.1 / 1e6) ** 0.5
    assert torch.equal(first, again) and not torch.equal(first, second)
    torch.testing.assert_close(first[first != 0], torch.full_like(first[first != 0], 1 / 0.9))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs CUDA"))])
def test_uniforms_filled_into_a_place_are_keep_mask_s_numbers(device):
    """A mask drawn into its corner of a larger tensor (several seeds at once' grid) is the mask
    keep_mask draws alone from the same stream, on the CPU (numpy's) and on CUDA (torch.rand's)."""
    grid = torch.zeros(2, 6, 3, 9, 9, device=device)  # (seeds, B, heads, T, T), a mask of (4, 3, 7, 7) in it
    stream, again = torch.Generator(device).manual_seed(5), torch.Generator(device).manual_seed(5)
    model.fill_uniforms(grid[1][:4, :, :7, :7], stream)
    alone = model.keep_mask((4, 3, 7, 7), 0.1, torch.device(device), again)
    assert torch.equal(grid[1][:4, :, :7, :7] >= 0.1, alone)
    assert torch.equal(stream.get_state(), again.get_state())  # the stream moved on alike
    assert not grid[0].any() and not grid[1][4:].any() and not grid[1][:, :, 7:].any()  # nothing else written


@pytest.mark.parametrize("mask_kind", ["bool", "float", "float and scale"])
def test_attention_written_out_is_sdpa(monkeypatch, mask_kind):
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(3, 4, 9, 8, generator=g) for _ in range(3))  # (B, nh, T, hd)
    mask = torch.rand(3, 1, 1, 9, generator=g) > 0.3
    mask[:, :, :, 0] = True  # every query has a key
    scale = 0.2 if mask_kind == "float and scale" else None
    if mask_kind != "bool":  # an additive mask, as MPNet's relative bias and DeBERTa's terms are
        mask = torch.randn(3, 4, 9, 9, generator=g).masked_fill(~mask, float("-inf"))
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    monkeypatch.setattr(model, "keep_mask", lambda shape, p, device: torch.ones(shape, dtype=torch.bool))
    torch.testing.assert_close(model.attention(q, k, v, mask, 0.1, scale), sdpa / 0.9, atol=1e-6, rtol=1e-5)
    assert torch.equal(model.attention(q, k, v, mask, 0.0, scale), sdpa)  # without dropout: SDPA itself


def test_train_mode_logits_have_the_distribution_of_torch_s_masks(tmp_path, monkeypatch):
    # not the same draws, the same distribution: 6,000 copies of a batch through a training-mode
    # BERT, each copy drawing its own masks, numpy's (a CPU run's) against torch's own
    _, folder = tiny_hf_model("bert", tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3).train()
    _, _, sentences = padded_batch(ours.config.pad_token_id)

    def logits_of_copies():  # (6000, 4 sentences, 3 labels)
        with torch.no_grad():
            return torch.cat([ours(sentences * 500).view(500, len(sentences), -1) for _ in range(12)])

    torch.manual_seed(0)
    numpy_masks = logits_of_copies()
    monkeypatch.setattr(model, "dropout", torch.nn.functional.dropout)
    monkeypatch.setattr(model, "attention", lambda q, k, v, mask, p, scale=None:
                        torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p, scale=scale))
    torch_masks = logits_of_copies()
    standard_error = ((numpy_masks.var(0) + torch_masks.var(0)) / len(numpy_masks)).sqrt()
    assert ((numpy_masks.mean(0) - torch_masks.mean(0)).abs() / standard_error).max() < 4.5
    assert (numpy_masks.std(0) / torch_masks.std(0) - 1).abs().max() < 0.06  # about 4.5 standard errors
