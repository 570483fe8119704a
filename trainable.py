"""
What trains, under each method and depth: every parameter starts trainable, freeze(k) turns off the
embeddings and the first k layers, reinitialize_top resets the top N, and the method's own function
below chooses what trains above the frozen (and cached) prefix. With k = 2 of L = 6:

                 embeddings   layers 1-2   layers 3-6                       head
    finetune         .            .        # every weight                   # (fresh)
    lora             .            .        . weights, + A B on query, value # (BERT: the classifier alone)
    bitfit           .            .        # biases only                    # (BERT: the classifier alone)
    setfit           .            .        # every weight (pairs' cosine)   . a logistic head fitted after
    probe            .            .        . (k = L: every layer frozen)    . a linear model fitted instead

    #: trains   .: frozen   +: added, trains.   k = 0: the embeddings train too under finetune and
    setfit (BitFit: their biases); k = -1: the embeddings alone frozen. LoRA never trains them.

LoRA (Hu et al. 2021) adds to a projection W a low-rank update: W x + (alpha / r) B A dropout(x), A
(r, in) drawn as peft draws it (Kaiming-uniform), B (out, r) zero, so training starts from the
checkpoint; the head trains as peft's sequence-classification task trains it (BERT: the
classifier, its pretrained pooler frozen; RoBERTa, MPNet: the whole classification head). BitFit
(Ben Zaken et al. 2022) trains every bias (LayerNorm biases and BERT's pooler bias included) and
the classifier in full, as its reference code does.
"""

import math

import torch
import torch.nn as nn

from parts import families
from model import Dropout, initialize_

# peft's LoraConfig for BERT and RoBERTa; the default targets are the family's (parts/families.py: ModernBERT's qkv)
LORA_DEFAULTS = dict(rank=8, alpha=8.0, dropout=0.0, targets=["query", "value"])


def freeze(model, k):
    """requires_grad=False on the embeddings and the first k layers (k=-1: embeddings only); from
    k = 1 on what every layer shares too (MPNet's and DeBERTa's relative positions), since it feeds
    the frozen (and cached) layers."""
    if not -1 <= k <= model.config.num_layers:
        raise ValueError(f"--freeze {k} is outside [-1, {model.config.num_layers}] for this "
                         f"{model.config.num_layers}-layer model")
    model.requires_grad_(True)
    if k != 0:
        model.embed.requires_grad_(False)
        model.layers[:max(k, 0)].requires_grad_(False)
    if k >= 1:
        for shared in shared_by_layers(model):
            shared.requires_grad_(False)


def shared_by_layers(model):
    """What every layer reads and no layer owns (the family's parts': MPNet's relative bias,
    DeBERTa's relative embeddings and their norm). It feeds the frozen layers, so it trains only
    when none is frozen."""
    return model.shared_by_layers()


def check_reinit(n):
    """A count of top layers to reset, before the model is read (plan.check_options)."""
    if n < 0:
        raise ValueError(f"--reinit {n}: the number of top layers reset is 0 or more")


def reinitialize_top(model, n, k):
    """Reset the top n layers to a fresh layer's initialisation before fine-tuning (Zhang et al.
    2021, "Revisiting Few-sample BERT Fine-tuning"): the counterpart of freezing the bottom k, and
    with it at most the whole model."""
    L = model.config.num_layers
    check_reinit(n)
    if not n <= L - max(k, 0):
        raise ValueError(f"--reinit {n} with --freeze {k}: the reset layers and the frozen ones must not overlap "
                         f"(k + N <= {L} for this {L}-layer model)")
    for layer in model.layers[L - n:]:
        initialize_(layer, model.config.initializer_range)


# ----------------------------------------------------------------------------------------------
# Each method's choice of what trains above the first k layers: one signature, (model, k, options),
# options the method's own settings (methods.py)

def everything_above(model, k, options):
    """The fine-tune: every weight above the frozen prefix, and the fresh head."""


def body_above(model, k, options):
    """SetFit: the body above the frozen prefix; the head fits its own logistic regression afterwards."""
    model.head.requires_grad_(False)


def nothing(model, k, options):
    """The probe: nothing trains; a linear model is fitted to the frozen model's sentence embedding."""
    model.requires_grad_(False)


def lora(model, k, options):
    add_lora(model, k, options["lora_rank"], options["lora_alpha"], options["lora_dropout"], options["lora_targets"])


def biases(model, k, options):
    bitfit(model, k)


class LoRALinear(nn.Module):
    """A frozen nn.Linear plus its trained low-rank update."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float, dropout: float):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))  # peft's initialisation of A
        self.scaling = alpha / rank
        self.dropout = Dropout(dropout)

    def forward(self, x):
        return self.base(x) + (self.dropout(x) @ self.lora_A.T @ self.lora_B.T) * self.scaling

    def merged_weight(self):
        """W + (alpha / r) B A: the one matrix this module multiplies by (without dropout)."""
        return self.base.weight + self.scaling * self.lora_B @ self.lora_A


def merge_lora(model):
    """Each LoRALinear merged into its base projection in place, as peft's merge_and_unload does:
    the update (alpha / r) B A added to the base weight, its bias (where it has one: ModernBERT's
    have none) left as it was, and the base put back under the checkpoint's own name. The same
    function without dropout, as --save writes it."""
    for layer in model.layers:
        for name, module in list(layer.named_children()):
            if isinstance(module, LoRALinear):
                with torch.no_grad():
                    module.base.weight.copy_(module.merged_weight())
                setattr(layer, name, module.base)
    return model


def check_targets(model, targets):
    projections = [name for name, module in model.layers[0].named_children() if isinstance(module, nn.Linear)]
    unknown = [t for t in targets if t not in projections]
    if unknown:
        raise ValueError(f"--lora-targets {' '.join(unknown)}: a layer's projections are {', '.join(projections)}")


def train_head_only(model):
    """Everything frozen but the head peft's sequence-classification task trains: the checkpoint's
    `classifier` module (BERT's and DistilBERT's output layer; RoBERTa's whole classification head).
    BERT's dense is its pretrained pooler and DistilBERT's its pre_classifier, which peft freezes."""
    model.requires_grad_(False)
    model.head.out_proj.requires_grad_(True)
    if families.get(model.config.model_type).hf_name("head.dense.weight").startswith("classifier."):
        model.head.dense.requires_grad_(True)


def check_lora_settings(rank, alpha, dropout):
    """Refuse in one line settings under which LoRA trains nothing or cannot run (plan.py checks
    them before any run; add_lora again, for a caller from Python)."""
    if rank < 1:
        raise ValueError(f"--lora-rank {rank}: the rank of the update is at least 1")
    if not alpha > 0:
        raise ValueError(f"--lora-alpha {alpha:g}: the update is scaled by alpha / r, so alpha is above 0 "
                         "(at 0 it trains nothing)")
    if not 0 <= dropout < 1:
        raise ValueError(f"--lora-dropout {dropout:g}: the chance an input of the update is dropped, 0 or more and below 1")


def add_lora(model, k, rank, alpha, dropout, targets):
    """LoRA on `targets` of the layers above the first k; everything else frozen but the head. The
    embeddings never train, so k = -1 and k = 0 are the same computation (-1 caches them)."""
    check_lora_settings(rank, alpha, dropout)
    check_targets(model, targets)
    train_head_only(model)
    for layer in model.layers[max(k, 0):]:
        for name in targets:
            setattr(layer, name, LoRALinear(getattr(layer, name), rank, alpha, dropout))


def bitfit(model, k):
    """BitFit above the first k layers (the embeddings' biases too when k = 0): every bias, and the
    classifier in full."""
    if not families.get(model.config.model_type).biases:
        raise ValueError(f"--method bitfit trains biases, and {model.config.model_type} has none: use --method lora")
    train_head_only(model)
    trained = list(model.layers[max(k, 0):]) + ([model.embed] if k == 0 else []) + \
        (shared_by_layers(model) if k <= 0 else []) + [model.head]
    for module in trained:
        for name, p in module.named_parameters():
            if name.endswith("bias"):
                p.requires_grad_(True)
