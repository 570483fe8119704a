"""
The cache, the project's central idea: what cannot change is computed once and read back.

Two things are cached, each in a file whose name is a hash of everything that decides its content:
- token ids (cache/tokens/): one file per tokenizer, length limit and set of texts. The key holds
  the tokenizer's own files, the installed versions of the libraries that run it, the limit and
  the texts themselves. Reading the file back needs no tokenizer, so a run whose tokens are cached
  never imports transformers.
- the frozen prefix (cache/<checkpoint>/): the hidden states after the embeddings and the first k
  layers, one (T_i, H) tensor per example, the rows of its real tokens.

A cached prefix is valid exactly while these hold, and its key holds each of them:
- the checkpoint: the hash of its weights file names the folder;
- the examples, their tokenizer and length limit: the token ids themselves (and BERT's segment ids)
  are hashed, so they stand for the task, the split, the texts and the tokenizer at once;
- the depth k, the device type and the precision it was computed in;
- nothing the run trains or changes is inside the prefix: freezing (trainable.freeze) sets
  requires_grad off for exactly the embeddings and layers 1..k (and, for k >= 1, what every layer
  reads: MPNet's relative position bias, DeBERTa's relative embeddings and their norm; k in the
  key says they are frozen), a reset (--reinit N) touches only
  the top N layers and is refused where they overlap the frozen ones, and the prefix is computed in
  eval mode (no dropout), so every seed and epoch reads the same states.

Every file here is written atomically (atomic.py), so a killed run leaves no broken cache behind.
"""

import hashlib
import importlib.metadata
import os
import sys

import numpy as np
import torch

import checkpoint
from atomic import write_atomically
from machine import autocast, eval_batch_size
from rows import length_sorted_batches, pack


def read_back(path, read):
    """read(path)'s value when `path` holds a good file; None when there is none, or when it is
    truncated, corrupt or holds something else (said on stderr: the caller rebuilds it)."""
    if not os.path.exists(path):
        return None
    try:
        value = read(path)
        if value is not None:
            return value
        problem = "holds other examples"
    except Exception as e:  # a truncated or corrupt file
        problem = f"is unreadable ({type(e).__name__})"
    print(f"cache file {path} {problem}; rebuilding it", file=sys.stderr)
    return None


# ----------------------------------------------------------------------------------------------
# Token ids

# what a tokenizer is made of: the files AutoTokenizer reads, and the libraries that run them
TOKENIZER_FILES = checkpoint.TOKENIZER_FILES + ("config.json",)
TOKENIZER_LIBRARIES = ("transformers", "tokenizers")


def token_cache_path(cache_dir, name, tokenizer_folder, limit, example_sets):
    """One file per tokenizer, length limit and sets of (texts, pairs)."""
    key = hashlib.sha256(f"{limit}".encode())
    for library in TOKENIZER_LIBRARIES:
        try:
            key.update(f"|{library} {importlib.metadata.version(library)}".encode())
        except importlib.metadata.PackageNotFoundError:
            key.update(f"|{library} none".encode())
    for file in TOKENIZER_FILES:
        path = os.path.join(tokenizer_folder, file)
        if os.path.exists(path):
            with open(path, "rb") as f:
                key.update(f"|{file}|".encode() + hashlib.sha256(f.read()).digest())
    for texts, pairs in example_sets:
        for text in list(texts) + list(pairs or []):
            key.update(b"|" + text.encode())
        key.update(b"||")
    return os.path.join(cache_dir, "tokens", f"{name}_{key.hexdigest()[:16]}.pt")


def read_tokens(path):
    saved = torch.load(path, map_location="cpu", weights_only=True)
    return saved["max_length"], [list(torch.split(ids, lengths.tolist()))
                                 for ids, lengths in zip(saved["ids"], saved["lengths"])]


def cached_tokens(path, tokenize_sets):
    """tokenize_sets() -> (max_length, [token ids per example, per set]), read from `path` when a
    good file is there, else computed and written."""
    saved = read_back(path, read_tokens)
    if saved is not None:
        return saved
    max_length, sets = tokenize_sets()
    flat = {"max_length": max_length, "lengths": [torch.tensor([len(t) for t in ids]) for ids in sets],
            "ids": [torch.cat(ids) for ids in sets]}  # per set: (sum T_i,) or (sum T_i, 2)
    write_atomically(path, lambda f: torch.save(flat, f))
    return max_length, sets


# ----------------------------------------------------------------------------------------------
# The frozen prefix

@torch.no_grad()
def frozen_prefix(model, token_ids, k, device, precision, batch_size=None):
    """Hidden states after the embeddings and the first max(k, 0) layers, one (T_i, H) float32
    tensor per example: the rows of its real tokens, as a batch will pack them again. Batches of
    batch_size (default: the device's evaluation batch, machine.eval_batch_size)."""
    model.eval()  # no dropout: these states are reused by every step and every seed
    states = [None] * len(token_ids)
    for batch in length_sorted_batches([len(t) for t in token_ids], batch_size or eval_batch_size(device)):
        ids, layout = pack([token_ids[i] for i in batch])
        ids, layout = ids.to(device), layout.to(device)
        with autocast(device, precision):
            hidden = model.run_layers(model.embed(ids, layout), layout, 0, max(k, 0))  # (N, H)
        for i, state in zip(batch, hidden.float().split([len(token_ids[i]) for i in batch])):
            states[i] = state
    return states


def prefix_cache_path(cache_dir, checkpoint_id, name, token_ids, k, device, precision):
    """One file per checkpoint, example set, depth, device type and precision."""
    key = hashlib.sha256(f"{k} {device.type} {precision}".encode())
    for ids in token_ids:
        key.update(ids.numpy().astype(np.int64).tobytes() + b"|")
    return os.path.join(cache_dir, checkpoint_id, f"{name}_k{k}_{key.hexdigest()[:16]}.pt")


def cached_frozen_prefix(model, token_ids, k, device, precision, path):
    """frozen_prefix, read from `path` when a good file is there, else computed and written: (the
    states, whether they were computed here; a search prices its runs by their seconds)."""
    lengths = [len(t) for t in token_ids]

    def read(path):
        saved = torch.load(path, map_location="cpu", weights_only=True)
        return list(torch.split(saved["hidden"].to(device), lengths)) if saved["lengths"].tolist() == lengths else None

    states = read_back(path, read)
    if states is not None:
        return states, False
    states = frozen_prefix(model, token_ids, k, device, precision)
    flat = {"lengths": torch.tensor(lengths), "hidden": torch.cat(states).cpu()}  # (sum T_i, H)
    write_atomically(path, lambda f: torch.save(flat, f))
    return states, True
