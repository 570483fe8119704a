"""cache.py: atomic writes, the token cache, and the frozen prefix and its key."""

import os
import shutil

import numpy as np
import pytest
import torch

import atomic
import cache
import checkpoint
import hub
import data
import rows


def test_write_atomically_leaves_nothing_when_the_writer_fails(tmp_path):
    path = tmp_path / "sub" / "result.json"
    atomic.write_atomically(str(path), lambda f: f.write(b"old"))

    def half_then_fail(f):
        f.write(b"half")
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        atomic.write_atomically(str(path), half_then_fail)
    assert path.read_bytes() == b"old" and [p.name for p in path.parent.iterdir()] == ["result.json"]


def test_cached_tokens_are_the_tokenizer_s_and_are_read_back_without_it(tmp_path):
    folder = hub.checkpoint_folder("minilm")
    tokenizer = checkpoint.load_tokenizer(folder)
    sets = [(["a film .", "word " * 600], None), (["the first", "the second"], ["a pair", "another"])]
    calls = []

    def tokenize_sets():
        calls.append(1)
        return 128, [data.tokenize(tokenizer, texts, 128, pairs) for texts, pairs in sets]

    path = cache.token_cache_path(tmp_path, "sst2-50", folder, 512, sets)
    fresh = cache.cached_tokens(path, tokenize_sets)
    again = cache.cached_tokens(path, tokenize_sets)
    assert len(calls) == 1 and again[0] == fresh[0] == 128
    for plain, cached in zip(fresh[1], again[1]):
        assert [t.tolist() for t in plain] == [t.tolist() for t in cached]
    assert again[1][1][0].shape[1] == 2  # a pair keeps its segment ids
    # a corrupt file is said and rebuilt, never trusted
    with open(path, "wb") as f:
        f.write(b"cut short")
    assert [t.tolist() for t in cache.cached_tokens(path, tokenize_sets)[1][0]] == [t.tolist() for t in fresh[1][0]]
    assert len(calls) == 2


def test_token_cache_key_changes_with_the_tokenizer_the_limit_and_the_texts(tmp_path):
    minilm = hub.checkpoint_folder("minilm")
    copy = tmp_path / "tokenizer"
    copy.mkdir()
    for name in cache.TOKENIZER_FILES:
        if os.path.exists(os.path.join(minilm, name)):
            shutil.copy(os.path.join(minilm, name), copy)
    sets = [(["a film ."], None)]
    key = lambda folder=copy, limit=512, sets=sets: cache.token_cache_path(tmp_path, "t", folder, limit, sets)
    assert key() == key(minilm) == cache.token_cache_path(tmp_path, "t", copy, 512, [(["a film ."], None)])
    assert key(limit=128) != key()
    assert key(sets=[(["a film !"], None)]) != key() != key(sets=[(["a film ."], ["and a pair"])])
    with open(copy / "vocab.txt", "a") as f:
        f.write("newword\n")
    assert key() != key(minilm)


def test_frozen_prefix_equals_the_full_network(tiny_bert, device):
    classifier = checkpoint.from_pretrained(tiny_bert).eval().to(device)
    ids = [torch.tensor([101, 2000, 3000, 102]), torch.tensor([101, 4000, 102])]
    states = cache.frozen_prefix(classifier, ids, 2, device, "fp32")
    for example, hidden in zip(ids, states):
        with torch.no_grad():
            example_ids, layout = (t.to(device) for t in rows.pack([example]))
            full = classifier.run_layers(classifier.embed(example_ids, layout), layout, 0, 2)
        assert hidden.shape == (len(example), 32)
        torch.testing.assert_close(hidden, full, atol=1e-6, rtol=0)


def test_cache_key_holds_the_segment_ids():
    # the same tokens split into two segments at another place are other inputs: another file
    cpu = torch.device("cpu")
    ids = torch.tensor([101, 7, 8, 102, 9, 102])
    path = lambda examples: cache.prefix_cache_path("cache", "ckpt", "mrpc-dev", examples, 2, cpu, "fp32")
    first = path([torch.stack([ids, torch.tensor([0, 0, 0, 0, 1, 1])], 1)])
    other = path([torch.stack([ids, torch.tensor([0, 0, 1, 1, 1, 1])], 1)])
    assert len({first, other, path([ids])}) == 3
    assert first == path([torch.stack([ids, torch.tensor([0, 0, 0, 0, 1, 1])], 1)])


def test_length_sorted_batches_cover_every_example_once():
    lengths = [5, 9, 2, 9, 7, 1, 3]
    batches = rows.length_sorted_batches(lengths, 3)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(7))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
