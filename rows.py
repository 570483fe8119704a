"""
A batch of sentences of unequal lengths, carried as rows: one row per real token, the sentences one
after another, (N, H) with N the batch's number of tokens. Every module of the encoder acts on each
token alone except attention, which needs each sentence whole: it puts the rows into the padded
(B, T) grid, attends there, and takes the rows back out (model.Layer.forward, two lines). So
padding costs only attention's share of the work; a Layout says where each row sits in the grid,
and pack(..., skip_padding=False) gives the plain padded layout (a row for every cell of the grid),
which computes the same logits and gradients (tests/test_model.py).
"""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn


@dataclass
class Layout:
    """Where the rows of a batch's (N, ...) tensors sit in its right-padded (B, T) grid."""
    cell: torch.Tensor          # (N,) long: b * T + t for the row holding token t of sentence b
    position: torch.Tensor      # (N,) long: t, the token's place in its sentence
    is_token: torch.Tensor      # (N,) bool: False for a padding cell (only in the padded layout)
    first: torch.Tensor         # (B,) long: the row holding each sentence's first token
    key_is_token: torch.Tensor  # (B, 1, 1, T) bool: attention's mask, False where the key is padding
    grid: tuple                 # (B, T)

    def to_grid(self, x):
        """(N, D) -> (B, T, D), zeros in the cells no row holds: where padding goes in."""
        grid = x.new_zeros(self.grid[0] * self.grid[1], x.shape[-1])
        return grid.index_copy(0, self.cell, x).view(*self.grid, x.shape[-1])

    def from_grid(self, grid):
        """(B, T, D) -> (N, D): where padding comes back out."""
        return grid.reshape(-1, grid.shape[-1]).index_select(0, self.cell)

    def to(self, device):
        return Layout(*(getattr(self, f).to(device) for f in ("cell", "position", "is_token", "first",
                                                              "key_is_token")), self.grid)


def pack(sequences, skip_padding=True, pad_value=0):
    """
    A batch of token ids (T_i,) or hidden states (T_i, H) -> their rows (N,) or (N, H), and their Layout.
    skip_padding: the real tokens only, N = sum of T_i. Otherwise the plain padded layout, a row
    for every cell of the (B, T) grid, N = B * T, the padding cells holding pad_value.
    """
    lengths = torch.tensor([len(s) for s in sequences])
    B, T = len(sequences), int(lengths.max())
    in_sentence = torch.arange(T)[None, :] < lengths[:, None]  # (B, T)
    if skip_padding:
        keep = in_sentence.flatten()
        values = torch.cat(list(sequences))
    else:
        keep = torch.ones(B * T, dtype=torch.bool)
        values = nn.utils.rnn.pad_sequence(list(sequences), batch_first=True, padding_value=pad_value).flatten(0, 1)
    cell = keep.nonzero().squeeze(1)
    position = cell % T
    first = (position == 0).nonzero().squeeze(1)
    layout = Layout(cell, position, in_sentence.flatten()[cell], first, in_sentence[:, None, None, :], (B, T))
    return values, layout


def length_sorted_batches(lengths, batch_size):
    """Index batches with examples of similar length together (longest first), so evaluation
    spends little compute on padding; the caller puts results back by these indices."""
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


def mean_pool(hidden, layout):
    """(N, H) rows -> (B, H): each sentence's mean over its real tokens, as sentence-transformers'
    mean pooling computes it (the padded layout's padding cells left out)."""
    B, T = layout.grid
    sentence = layout.cell // T  # (N,) the sentence each row belongs to
    weight = layout.is_token.to(hidden.dtype)[:, None]  # (N, 1)
    sums = hidden.new_zeros(B, hidden.shape[-1]).index_add_(0, sentence, hidden * weight)
    counts = weight.new_zeros(B, 1).index_add_(0, sentence, weight)
    return sums / counts.clamp(min=1e-9)
