"""
MPNet's relative positions (Song et al. 2020), as transformers' MPNetModel computes them: BERT's
post-LayerNorm layers (model.py's parts) whose attention scores add a per-head bias read from one
table that every layer shares:

    score(i, j) = q_i . k_j / sqrt(head_dim)  +  bias[bucket(j - i), head]
    bucket(d): half the buckets for keys before the query, half after; within each half, distances
               below a quarter of the buckets exact, larger ones log-spaced up to 128

The table is the Classifier's `relative_bias` (shared_by_layers); layer_context looks it up once a
batch, and model.py's Layer adds it to every layer's scores.
"""

import math

import torch
import torch.nn as nn

from parts.families import MPNET_BUCKETS, EncoderConfig
from model import ClassificationHead, Embeddings, Layer, final_norm  # noqa: F401  BERT's, the rest of the family
from rows import Layout


def shared_by_layers(config: EncoderConfig):
    """What every layer reads and no layer owns, by the Classifier's attribute name: the bias table."""
    return {"relative_bias": nn.Embedding(config.relative_attention_num_buckets, config.num_heads)}


def layer_context(model, layout: Layout):
    """The batch's relative position bias, computed once for all its layers: (B, nh, T, T), the
    table's entry for each (query, key) distance, -inf at padding keys."""
    T = layout.grid[1]
    position = torch.arange(T, device=layout.cell.device)
    buckets = relative_position_bucket(position[None, :] - position[:, None])  # (T, T): key - query
    bias = model.relative_bias(buckets).permute(2, 0, 1)[None]  # (1, nh, T, T)
    return bias.masked_fill(~layout.key_is_token, float("-inf"))


def relative_position_bucket(relative_position, num_buckets=MPNET_BUCKETS, max_distance=128):
    """MPNet's (and T5's) buckets: half for keys before the query, half after; within each half,
    distances below a quarter of the buckets exact, larger ones log-spaced up to max_distance."""
    n = -relative_position
    num_buckets //= 2
    bucket = (n < 0).long() * num_buckets
    n = n.abs()
    max_exact = num_buckets // 2
    log_spaced = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                              * (num_buckets - max_exact)).long()
    return bucket + torch.where(n < max_exact, n, log_spaced.clamp(max=num_buckets - 1))
