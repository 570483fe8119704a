"""model.py against transformers' own models: same logits, same gradients, same real checkpoint."""

import json
import os

import pytest
import torch
import transformers

import cache
import checkpoint
from parts import families
import hub
import loop
import parts.mpnet
import rows
from conftest import padded_batch, tiny_hf_model


UNEQUAL = (2, 30, 5, 17, 1, 9)  # a batch that is mostly padding in the padded layout
FAMILIES = ["bert", "roberta", "mpnet", "xlm-roberta", "distilbert", "electra", "modernbert", "deberta-v2"]


@pytest.mark.parametrize("skip_padding", [True, False])
@pytest.mark.parametrize("family", FAMILIES)
def test_logits_and_gradients_match_transformers(family, skip_padding, tmp_path):
    hf, folder = tiny_hf_model(family, tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3).eval()
    ids, mask, sentences = padded_batch(hf.config.pad_token_id, UNEQUAL)
    labels = torch.tensor([0, 2, 1, 2, 0, 1])

    hf_logits = hf(input_ids=ids, attention_mask=mask).logits
    our_logits = ours(sentences, skip_padding=skip_padding)
    assert our_logits.shape == (6, 3)
    torch.testing.assert_close(our_logits, hf_logits, atol=1e-5, rtol=0)

    torch.nn.functional.cross_entropy(hf_logits, labels).backward()
    torch.nn.functional.cross_entropy(our_logits, labels).backward()
    hf_params = dict(hf.named_parameters())
    prefix = families.get(family).prefix
    for name, param in ours.named_parameters():
        source = checkpoint.hf_name(name, family)
        theirs = hf_params.get(prefix + source, hf_params.get(source))
        assert theirs is not None, source
        if name.startswith("embed.token_type"):  # only row 0 is used, by both
            theirs_grad, our_grad = theirs.grad[0], param.grad[0]
        else:
            theirs_grad, our_grad = theirs.grad, param.grad
        torch.testing.assert_close(our_grad, theirs_grad, rtol=1e-4, atol=1e-7, msg=name)


def pair_segments(mask):
    """Segment ids of sentence pairs: 0 for the first part of each sentence, 1 for the rest."""
    lengths = mask.sum(1, keepdim=True)
    return ((torch.arange(mask.shape[1])[None, :] >= (lengths + 1) // 2) & (mask == 1)).long()


@pytest.mark.parametrize("skip_padding", [True, False])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("task", ["pairs", "regression"])
def test_pairs_and_regression_match_transformers(task, family, skip_padding, tmp_path):
    # pairs: BERT reads segment ids (T_i, 2) rows; RoBERTa has one segment, so its pairs are
    # token ids alone (the </s></s> between the two texts is in the ids). regression: one output
    # and transformers' own mean squared error loss (num_labels == 1)
    num_labels = 1 if task == "regression" else 3
    hf, folder = tiny_hf_model(family, tmp_path, num_labels=num_labels)
    ours = checkpoint.from_pretrained(folder, num_labels=num_labels).eval()
    ids, mask, sentences = padded_batch(hf.config.pad_token_id, UNEQUAL)
    segments = pair_segments(mask) if family == "bert" else torch.zeros_like(ids)
    if family == "bert":
        sentences = [torch.stack([ids[b, :n], segments[b, :n]], dim=1) for b, n in enumerate(UNEQUAL)]
        assert any(s[:, 1].any() for s in sentences)
    labels = torch.tensor([0.5, 4.0, 1.25, 3.0, 0.0, 2.5]) if task == "regression" else torch.tensor([0, 2, 1, 2, 0, 1])

    segment_ids = {} if family in ("mpnet", "modernbert") else dict(token_type_ids=segments)  # they have no segments
    hf_out = hf(input_ids=ids, attention_mask=mask, labels=labels, **segment_ids)
    our_logits = ours(sentences, skip_padding=skip_padding)
    assert our_logits.shape == (6, num_labels)
    torch.testing.assert_close(our_logits, hf_out.logits.view(6, num_labels), atol=1e-5, rtol=0)  # DeBERTa's: (6,)
    our_loss = loop.loss_of(our_logits, labels)  # the training loop's loss for the head's kind
    torch.testing.assert_close(our_loss, hf_out.loss, atol=1e-5, rtol=0)
    hf_out.loss.backward()
    our_loss.backward()
    hf_params = dict(hf.named_parameters())
    for name, param in ours.named_parameters():
        source = checkpoint.hf_name(name, family)
        theirs = hf_params.get(families.get(family).prefix + source, hf_params.get(source))
        torch.testing.assert_close(param.grad, theirs.grad, rtol=1e-4, atol=1e-7, msg=name)


@pytest.mark.parametrize("family", FAMILIES)
def test_skipping_padding_is_the_padded_computation(family, tmp_path):
    # the fast path against the plain one, in training mode's arithmetic (dropout 0 so both draw
    # nothing at random): the same logits and every gradient, on a batch that is 70% padding
    _, folder = tiny_hf_model(family, tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3).train()
    for module in ours.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    for layer in ours.layers:
        layer.attention_dropout = 0.0
    _, _, sentences = padded_batch(ours.config.pad_token_id, UNEQUAL)
    packed, layout = rows.pack(sentences)
    assert packed.shape == (sum(UNEQUAL),) and layout.grid == (6, 30)
    gradients = {}
    for skip_padding in (True, False):
        ours.zero_grad()
        logits = ours(sentences, skip_padding=skip_padding)
        logits.sum().backward()
        gradients[skip_padding] = (logits.detach(), {n: p.grad.clone() for n, p in ours.named_parameters()})
    torch.testing.assert_close(gradients[True][0], gradients[False][0], atol=1e-5, rtol=0)
    for name, grad in gradients[True][1].items():
        torch.testing.assert_close(grad, gradients[False][1][name], rtol=1e-4, atol=1e-6, msg=name)


def test_pack_puts_rows_where_the_padded_grid_has_them():
    sentences = [torch.tensor([5, 6, 7]), torch.tensor([8]), torch.tensor([9, 4])]
    ids, layout = rows.pack(sentences)  # real tokens only
    assert ids.tolist() == [5, 6, 7, 8, 9, 4] and layout.grid == (3, 3)
    assert layout.cell.tolist() == [0, 1, 2, 3, 6, 7] and layout.position.tolist() == [0, 1, 2, 0, 0, 1]
    assert layout.first.tolist() == [0, 3, 4] and layout.is_token.all()
    assert layout.to_grid(ids[:, None].float()).squeeze(2).tolist() == [[5, 6, 7], [8, 0, 0], [9, 4, 0]]
    padded, padded_rows = rows.pack(sentences, skip_padding=False, pad_value=1)  # every cell
    assert padded.tolist() == [5, 6, 7, 8, 1, 1, 9, 4, 1] and padded_rows.first.tolist() == [0, 3, 6]
    assert padded_rows.is_token.tolist() == [True] * 4 + [False] * 2 + [True] * 2 + [False]
    assert layout.key_is_token.flatten(1).tolist() == [[1, 1, 1], [1, 0, 0], [1, 1, 0]]
    hidden = torch.randn(6, 4)  # hidden states go in and come back out unchanged
    torch.testing.assert_close(layout.from_grid(layout.to_grid(hidden)), hidden, rtol=0, atol=0)


@pytest.mark.parametrize("family", FAMILIES)
def test_split_calls_compose_to_forward(family, tmp_path):
    _, folder = tiny_hf_model(family, tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3).eval()
    _, _, sentences = padded_batch(ours.config.pad_token_id)
    ids, layout = rows.pack(sentences)
    hidden = ours.embed(ids, layout)
    hidden = ours.run_layers(hidden, layout, 0, 1)
    torch.testing.assert_close(ours.classify(ours.sentence_states(hidden, layout, 1)), ours(sentences), atol=0, rtol=0)


@pytest.mark.parametrize("family", FAMILIES)
def test_padding_does_not_change_an_example(family, tmp_path):
    _, folder = tiny_hf_model(family, tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3).eval()
    _, _, sentences = padded_batch(ours.config.pad_token_id)
    alone = ours(sentences[1:2])  # example 1 has 3 tokens; the padded layout pads it to 11
    for skip_padding in (True, False):
        in_batch = ours(sentences, skip_padding=skip_padding)[1:2]
        torch.testing.assert_close(alone, in_batch, atol=1e-6, rtol=0)


def test_real_minilm_matches_transformers_bert_model():
    ours = checkpoint.from_pretrained("minilm").eval()
    assert ours.config.num_layers == 6 and ours.config.hidden_size == 384
    tokenizer = checkpoint.load_tokenizer(ours.folder)
    batch = tokenizer(["a gripping, beautifully made film .", "it is dull ."], padding=True,
                      return_tensors="pt")
    hf = transformers.BertModel.from_pretrained(ours.folder, attn_implementation="eager").eval()
    with torch.no_grad():
        expected = hf(**batch).last_hidden_state
        real = batch["attention_mask"].bool()
        ids, layout = rows.pack([ids[keep] for ids, keep in zip(batch["input_ids"], real)])
        got = ours.run_layers(ours.embed(ids, layout), layout)  # (N, H): the real tokens, in order
    torch.testing.assert_close(got, expected[real], atol=1e-5, rtol=0)
    # the pretrained pooler is loaded into the head, not re-initialised
    torch.testing.assert_close(ours.head.dense.weight, hf.pooler.dense.weight, atol=0, rtol=0)


def test_last_layer_for_the_first_token_only_changes_nothing(tiny_bert_no_dropout):
    # the classifier's shortcut: the last layer computes position 0 alone, from every key
    ours = checkpoint.from_pretrained(tiny_bert_no_dropout).eval()
    sentences = [torch.randint(5, 100, (n,)) for n in (7, 3, 11)]
    for skip_padding in (True, False):
        ids, layout = rows.pack(sentences, skip_padding)
        hidden = ours.embed(ids, layout)
        full = ours.run_layers(hidden, layout)
        first = ours.run_layers(hidden, layout, first_token_only=True)
        assert first.shape == (3, full.shape[-1])
        torch.testing.assert_close(first, full[layout.first], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("skip_padding", [True, False])
def test_mean_pooling_is_transformers_masked_mean_with_and_without_the_cache(skip_padding, tmp_path):
    hf, folder = tiny_hf_model("bert", tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3).eval()
    ours.pooling = "mean"
    ids, mask, sentences = padded_batch(hf.config.pad_token_id, UNEQUAL)
    with torch.no_grad():
        states = hf.bert(input_ids=ids, attention_mask=mask).last_hidden_state  # (B, T, H)
        expected = (states * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)  # sentence-transformers' mean
        whole = loop.pooled_states(ours, sentences, None, torch.device("cpu"), skip_padding)
        prefix = cache.frozen_prefix(ours, sentences, 2, torch.device("cpu"), "fp32")  # layers 1-2 cached
        cached = loop.pooled_states(ours, prefix, 2, torch.device("cpu"), skip_padding)
    torch.testing.assert_close(whole, expected, atol=1e-5, rtol=0)
    torch.testing.assert_close(cached, expected, atol=1e-5, rtol=0)


def test_mpnet_relative_buckets_are_transformers():
    relative = torch.arange(-300, 301)[None, :] - torch.zeros(1, dtype=torch.long)[:, None]
    theirs = transformers.models.mpnet.modeling_mpnet.MPNetEncoder.relative_position_bucket(relative)
    assert torch.equal(parts.mpnet.relative_position_bucket(relative), theirs)
    # exact below 8 either way, log-spaced to 128: every bucket but 16 (a distance of 0 is in the first half)
    assert theirs.unique().tolist() == [b for b in range(32) if b != 16]


@pytest.mark.parametrize("skip_padding", [True, False])
def test_mpnet_with_a_larger_table_matches_transformers(skip_padding, tmp_path):
    # transformers looks up 32 buckets whatever the table's size: the other rows stay unused by both
    hf, folder = tiny_hf_model("mpnet", tmp_path, buckets=48)
    ours = checkpoint.from_pretrained(folder, num_labels=3).eval()
    ids, mask, sentences = padded_batch(1, UNEQUAL)
    hf_logits = hf(input_ids=ids, attention_mask=mask).logits
    our_logits = ours(sentences, skip_padding=skip_padding)
    torch.testing.assert_close(our_logits, hf_logits, atol=1e-5, rtol=0)
    hf_logits.sum().backward()
    our_logits.sum().backward()
    theirs = hf.mpnet.encoder.relative_attention_bias.weight.grad
    torch.testing.assert_close(ours.relative_bias.weight.grad, theirs, rtol=1e-4, atol=1e-7)
    assert theirs[32:].abs().sum() == 0 and theirs[:32].abs().sum() > 0


def test_mpnet_with_fewer_than_32_buckets_is_refused(tmp_path):
    _, folder = tiny_hf_model("mpnet", tmp_path, buckets=40)
    config = json.loads((tmp_path / "config.json").read_text())
    config["relative_attention_num_buckets"] = 16
    with pytest.raises(ValueError, match="relative_attention_num_buckets 16 in config.json: transformers' MPNet "
                                         "looks up 32 buckets"):
        families.EncoderConfig.from_hf(config, 2)


@pytest.mark.skipif(not os.path.exists(os.path.join(hub.MPNET_FOLDER, "model.safetensors")),
                    reason="all-mpnet-base-v2 is not installed (make mpnet)")
@pytest.mark.parametrize("pooling", ["first", "mean"])
def test_real_mpnet_matches_transformers_mpnet_model(pooling):
    ours = checkpoint.from_pretrained("mpnet").eval()
    ours.pooling = pooling
    assert ours.config.num_layers == 12 and ours.config.hidden_size == 768
    tokenizer = checkpoint.load_tokenizer(ours.folder)
    batch = tokenizer(["a gripping, beautifully made film that never lets its twenty characters blur together .",
                       "it is dull ."], padding=True, return_tensors="pt")
    hf = transformers.MPNetModel.from_pretrained(ours.folder).eval()
    with torch.no_grad():
        states = hf(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        mask = batch["attention_mask"][:, :, None].float()
        expected = states[:, 0] if pooling == "first" else (states * mask).sum(1) / mask.sum(1)
        real = batch["attention_mask"].bool()
        ids, layout = rows.pack([ids[keep] for ids, keep in zip(batch["input_ids"], real)])
        got = ours.sentence_states(ours.embed(ids, layout), layout)
    assert real.sum(1).max() > 16  # past the buckets' exact range
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=0)
