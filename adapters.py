"""
Parameter-efficient fine-tuning, as a few functions over the same model: LoRA (Hu et al. 2021) and
BitFit (Ben Zaken et al. 2022). Each chooses what trains in layers k+1..L above a frozen (and
cached) prefix; the loop, the cache and the protocol are the recipe's.

LoRA adds to a projection W a low-rank update: W x + (alpha / r) B A dropout(x), A (r, in) drawn as
peft draws it (Kaiming-uniform), B (out, r) zero, so training starts from the checkpoint. Only A,
B and the head train; the head as peft's sequence-classification task trains it (BERT: the
classifier, its pretrained pooler frozen; RoBERTa, MPNet: the whole classification head).

BitFit trains every bias (LayerNorm biases and BERT's pooler bias included) and the classifier in
full (RoBERTa, MPNet: the whole classification head), as its reference code does.
"""

import math

import torch
import torch.nn as nn

TARGETS = ("query", "key", "value", "attn_out", "ffn_in", "ffn_out")  # the projections of a Layer
LORA_DEFAULTS = dict(rank=8, alpha=8.0, dropout=0.0, targets=["query", "value"])  # peft's LoraConfig for BERT, RoBERTa


class LoRALinear(nn.Module):
    """A frozen nn.Linear plus its trained low-rank update."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float, dropout: float):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))  # peft's initialisation of A
        self.scaling = alpha / rank
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.base(x) + (self.dropout(x) @ self.lora_A.T @ self.lora_B.T) * self.scaling

    def merged_weight(self):
        """W + (alpha / r) B A: the one matrix this module multiplies by (without dropout)."""
        return self.base.weight + self.scaling * self.lora_B @ self.lora_A


def check_targets(targets):
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise ValueError(f"--lora-targets {' '.join(unknown)}: a layer's projections are {', '.join(TARGETS)}")


def train_head_only(model):
    """Everything frozen but the head peft's sequence-classification task trains (BERT: the
    classifier; RoBERTa: the whole classification head)."""
    model.requires_grad_(False)
    model.head.out_proj.requires_grad_(True)
    if model.config.model_type != "bert":  # BERT's dense is its pretrained pooler, which peft freezes
        model.head.dense.requires_grad_(True)


def add_lora(model, k, rank, alpha, dropout, targets):
    """LoRA on `targets` of the layers above the first k; everything else frozen but the head. The
    embeddings never train, so k = -1 and k = 0 are the same computation (-1 caches them)."""
    if rank < 1:
        raise ValueError(f"--lora-rank {rank}: the rank of the update is at least 1")
    check_targets(targets)
    train_head_only(model)
    for layer in model.layers[max(k, 0):]:
        for name in targets:
            setattr(layer, name, LoRALinear(getattr(layer, name), rank, alpha, dropout))


def bitfit(model, k):
    """BitFit above the first k layers (the embeddings' biases too when k = 0): every bias, and the
    classifier in full."""
    train_head_only(model)
    trained = list(model.layers[max(k, 0):]) + ([model.embed] if k == 0 else []) + [model.head]
    for module in trained:
        for name, p in module.named_parameters():
            if name.endswith("bias"):
                p.requires_grad_(True)
