"""
ModernBERT (Warner et al. 2024), written out as transformers' ModernBertForSequenceClassification
computes it: the same interface as model.py's parts (model.py's Classifier builds a family from
the module its family names), so the frozen prefix is cached and training starts from a cached
layer as for every family. What differs from BERT:

    embed      token embedding -> LayerNorm -> dropout          no position table: positions rotate q, k
    layer i    x = x + Wo(attention(LN(x)))                     pre-norm (layer 0: no norm before attention)
               x = x + Wo'(GELU(x Wi_a) * (x Wi_b))             GeGLU on LN(x); no biases anywhere
    attention  rotary positions on q and k; layers in global_layers see every token (base 160k), the
               others the keys within local_window / 2 of the query (base 10k)
    final      LayerNorm after the last layer
    head       dense -> GELU -> LayerNorm -> dropout -> classifier, on the first token or the mean

Padding-free as every family here: a batch travels as rows of real tokens, attention alone sees the
padded grid (rows.py); the rotary angles come from each row's position in its sentence.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from parts.families import EncoderConfig
from model import Dropout, attention
from rows import Layout


class Embeddings(nn.Module):
    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.word = nn.Embedding(config.vocab_size, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps, bias=config.norm_bias)
        self.dropout = Dropout(config.hidden_dropout)

    def forward(self, tokens: torch.Tensor, layout: Layout) -> torch.Tensor:
        return self.dropout(self.norm(self.word(tokens)))  # (N,) token ids -> (N, H); no segments


def rotary(positions, head_dim, base):
    """The rotary angles' cos and sin for each row's position: (N, head_dim) each, float32."""
    inverse_frequency = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float, device=positions.device) / head_dim))
    angles = positions[:, None].float() * inverse_frequency
    angles = torch.cat([angles, angles], -1)
    return angles.cos(), angles.sin()


def rotate(x, cos, sin):
    """x (N, nh, hd) turned by each row's angles (cos, sin: (N, hd)), in float32 as transformers does."""
    half = x.shape[-1] // 2
    x32 = x.float()
    turned = torch.cat([-x32[..., half:], x32[..., :half]], -1)
    return (x32 * cos[:, None] + turned * sin[:, None]).to(x.dtype)


def attention_context(config: EncoderConfig, layout: Layout):
    """What every layer of one kind shares for a batch, computed once: {global: bool}: (the keys
    each query may see (B, 1, T, T) or (B, 1, 1, T), cos, sin). A padding cell's query sees every
    key, so no row of the softmax is empty (its output is never read)."""
    T, head_dim = layout.grid[1], config.hidden_size // config.num_heads
    position = torch.arange(T, device=layout.cell.device)
    near = (position[None, :] - position[:, None]).abs() <= config.local_window // 2  # (T, T)
    query_is_padding = ~layout.key_is_token.transpose(-1, -2)  # (B, 1, T, 1)
    local = (layout.key_is_token & near) | query_is_padding
    return {True: (layout.key_is_token, *rotary(layout.position, head_dim, config.rope_theta[0])),
            False: (local, *rotary(layout.position, head_dim, config.rope_theta[1]))}


def shared_by_layers(config: EncoderConfig):
    """What every layer reads and no layer owns: nothing (its rotary angles are computed, not learnt)."""
    return {}


def layer_context(model, layout: Layout):
    """What every layer's attention shares for a batch (model.py's Classifier asks each family's parts)."""
    return attention_context(model.config, layout)


class Layer(nn.Module):
    """One pre-LayerNorm ModernBERT layer; `index` says whether it attends globally, and layer 0
    has no norm before its attention (the embeddings' norm is just before it)."""

    def __init__(self, config: EncoderConfig, index: int):
        super().__init__()
        H, bias = config.hidden_size, config.linear_bias
        self.num_heads, self.is_global = config.num_heads, index in config.global_layers
        self.attn_norm = nn.LayerNorm(H, eps=config.layer_norm_eps, bias=config.norm_bias) if index else None
        self.qkv = nn.Linear(H, 3 * H, bias=bias)
        self.attn_out = nn.Linear(H, H, bias=bias)
        self.ffn_norm = nn.LayerNorm(H, eps=config.layer_norm_eps, bias=config.norm_bias)
        self.ffn_in = nn.Linear(H, 2 * config.intermediate_size, bias=bias)  # its input half, then its gate
        self.ffn_out = nn.Linear(config.intermediate_size, H, bias=bias)
        self.attention_dropout = config.attention_dropout
        self.out_dropout = Dropout(config.attention_dropout)
        self.mlp_dropout = Dropout(config.mlp_dropout)

    def forward(self, x: torch.Tensor, layout: Layout, first_token_only=False, context=None) -> torch.Tensor:
        # x: (N, H) rows; context: attention_context's, for this batch. first_token_only: every
        # token is a key and a value, the first token alone a query, (B, H) out
        B, H = layout.grid[0], x.shape[-1]
        mask, cos, sin = context[self.is_global]
        heads = lambda t: t.view(B, -1, self.num_heads, H // self.num_heads).transpose(1, 2)
        normed = x if self.attn_norm is None else self.attn_norm(x)
        q, k, v = self.qkv(normed).view(len(x), 3, self.num_heads, H // self.num_heads).unbind(1)  # (N, nh, hd)
        k = rotate(k, cos, sin)
        if first_token_only:  # the first rows alone are queries: only they turn
            queries, first = x[layout.first], layout.first
            q = rotate(q[first], cos[first], sin[first]).reshape(B, 1, H)
        else:
            queries, q = x, layout.to_grid(rotate(q, cos, sin).reshape(len(x), H))
        k, v = layout.to_grid(k.reshape(len(x), H)), layout.to_grid(v.reshape(len(x), H))
        q, k, v = heads(q), heads(k), heads(v)  # (B, nh, T*, hd)
        p = self.attention_dropout if self.training else 0.0
        attended = attention(q, k, v, mask[:, :, :q.shape[2]], p)
        attended = attended.transpose(1, 2).reshape(B, -1, H)
        attended = attended[:, 0] if first_token_only else layout.from_grid(attended)  # (Nq, H)
        x = queries + self.out_dropout(self.attn_out(attended))
        gelu_input, gate = self.ffn_in(self.ffn_norm(x)).chunk(2, dim=-1)
        return x + self.ffn_out(self.mlp_dropout(F.gelu(gelu_input) * gate))


def final_norm(config: EncoderConfig):
    return nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps, bias=config.norm_bias)


class ClassificationHead(nn.Module):
    """dense -> GELU -> LayerNorm -> dropout -> classifier (out_proj), on each sentence's state."""

    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size, bias=config.head_bias)
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps, bias=config.norm_bias)
        self.dropout = Dropout(config.classifier_dropout)
        self.out_proj = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out_proj(self.dropout(self.norm(F.gelu(self.dense(x)))))  # (B, H) -> (B, num_labels)
