"""
DeBERTa-v2 and -v3's disentangled attention (He et al. 2021), as transformers' DebertaV2 computes it
with share_att_key (every v3 checkpoint): BERT's post-LayerNorm layer (model.py's Layer), whose
attention scores add two terms read from one table of relative-position embeddings that every layer
shares, normalised once (norm_rel_ebd):

    score(i, j) = [ q_i . k_j  +  q_i . K(r)  +  k_j . Q(r) ] / sqrt(head_dim x 3)
                    content       c2p: content   p2c: position
                                  to position    to content
    r = bucket(i - j): exact within position_buckets / 2 of the query, log-spaced beyond
    K, Q: the layer's own key and query projections applied to the table's rows

The table, its norm and its dropout are the Classifier's (shared_by_layers); layer_context hands
every layer relative_scores bound to the batch's Relative, and model.py's Layer calls it for the two
terms. The rest of the family is model.py's.
"""

import functools
import math
from dataclasses import dataclass

import torch
import torch.nn as nn

from parts.families import EncoderConfig
from model import ClassificationHead, Dropout, Embeddings, Layer, final_norm  # noqa: F401  BERT's, the rest of the family


def shared_by_layers(config: EncoderConfig):
    """What every layer reads and no layer owns, by the Classifier's attribute name: the table of
    relative-position embeddings (2S, H), its norm (norm_rel_ebd), and the dropout on its rows."""
    span, H = config.relative_span, config.hidden_size
    shared = {"relative_rows": nn.Embedding(2 * span, H)}
    if config.norm_relative:
        shared["relative_norm"] = nn.LayerNorm(H, eps=config.layer_norm_eps)
    return {**shared, "relative_dropout": Dropout(config.hidden_dropout)}


def layer_context(model, layout):
    """relative_scores bound to the batch's Relative: the position terms every layer adds."""
    rows = model.relative_rows.weight
    rows = model.relative_norm(rows) if hasattr(model, "relative_norm") else rows
    return functools.partial(relative_scores, relative_context(model.config, rows, layout, model.relative_dropout))


@dataclass
class Relative:
    """What every layer's disentangled attention shares for one batch, computed once."""
    rows: torch.Tensor  # (2S, H): the normalised relative-position embeddings
    index: torch.Tensor  # (T, T) long: the row each (query, key) pair reads, bucket(i - j) + S
    mask: torch.Tensor  # (B, 1, 1, T): -inf where the key is padding, else 0
    terms: tuple  # of "c2p", "p2c": the position terms the checkpoint uses
    dropout: torch.nn.Module  # on the rows, each layer its own draw (transformers' pos_dropout)


def log_bucket(relative, buckets, max_position):
    """transformers' make_log_bucket_position: distances under buckets / 2 exact, larger ones
    log-spaced up to max_position, the sign kept."""
    sign = torch.sign(relative)
    mid = buckets // 2
    absolute = torch.where((relative < mid) & (relative > -mid), torch.tensor(mid - 1).type_as(relative),
                           torch.abs(relative))
    log_position = torch.ceil(torch.log(absolute / mid) / torch.log(torch.tensor((max_position - 1) / mid))
                              * (mid - 1)) + mid
    return torch.where(absolute <= mid, relative.type_as(log_position), log_position * sign).long()


def relative_context(config, rows, layout, dropout):
    """The batch's Relative: (query, key) distances of its grid bucketed as the checkpoint's
    config says, into rows of the table (2S, H)."""
    T, span = layout.grid[1], rows.shape[0] // 2
    position = torch.arange(T, device=rows.device)
    relative = position[:, None] - position[None, :]  # (T, T): query - key
    if config.position_buckets > 0:
        relative = log_bucket(relative, config.position_buckets, config.max_relative_positions)
    mask = torch.zeros(layout.key_is_token.shape, dtype=rows.dtype, device=rows.device)
    return Relative(rows, (relative + span).clamp(0, 2 * span - 1), mask.masked_fill(~layout.key_is_token, float("-inf")),
                    config.relative_terms, dropout)


def relative_scores(relative, q, k, query, key, num_heads):
    """The c2p and p2c terms (B, nh, Tq, T) for queries q (B, nh, Tq, hd) at positions 0..Tq-1 and
    keys k (B, nh, T, hd), already divided by the scores' scale, plus the padding mask."""
    rows = relative.dropout(relative.rows)
    span2, hd = rows.shape[0], q.shape[-1]
    heads = lambda t: t.view(span2, num_heads, hd).transpose(0, 1)  # (nh, 2S, hd)
    index = relative.index[:q.shape[2]]  # (Tq, T)
    scale = math.sqrt(hd * (1 + len(relative.terms)))
    scores = relative.mask.to(q.dtype)
    if "c2p" in relative.terms:  # the query's content against the key's relative position
        c2p = q @ heads(key(rows)).transpose(-1, -2)  # (B, nh, Tq, 2S)
        scores = scores + c2p.gather(-1, index.expand(*c2p.shape[:2], *index.shape)) / scale
    if "p2c" in relative.terms:  # the key's content against the query's relative position
        p2c = k @ heads(query(rows)).transpose(-1, -2)  # (B, nh, T, 2S)
        scores = scores + p2c.gather(-1, index.T.expand(*p2c.shape[:2], *index.T.shape)).transpose(-1, -2) / scale
    return scores, 1 / scale
