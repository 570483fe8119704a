"""
The encoder, written out: sequence classifiers that compute exactly what transformers'
BertForSequenceClassification, RobertaForSequenceClassification (and XLMRobertaForSequenceClassification,
RoBERTa's computation), DistilBertForSequenceClassification, ElectraForSequenceClassification and
MPNetForSequenceClassification compute (DeBERTa-v2's attention: parts/deberta.py; ModernBERT's
parts: parts/modernbert.py), loaded from the same
checkpoints (checkpoint.py loads them). Only reading config.json, the weights and the tokenizer comes from the Hugging Face
libraries; every module below is ours.

A batch travels as rows, one per real token (rows.py: Layout, pack); attention alone sees the
padded grid. Every module is built from a `config`, an EncoderConfig read from config.json
(parts/families.py): its sizes, and through config.family its family's head and parts.

The forward pass is split so the training loop can cache what frozen layers produce:
    embed(input_ids, layout)                    (N,) -> (N, H)
    run_layers(hidden, layout, start, stop)     layers [start, stop) of the stack
    sentence_states(hidden, layout, start)      layers [start, L) (and a final norm), then one state
                                                per sentence (B, H): its first token, or the mean of
                                                its tokens (pooling)
    classify(sentence_states)                   (B, H) -> (B, num_labels)
forward(sequences) is their composition.
"""

import contextlib
import contextvars
import importlib
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from rows import Layout, mean_pool, pack

ACTIVATIONS = {  # config.json's hidden_act, as parts/families.py's ACTIVATIONS names them
    "gelu": F.gelu,  # the exact, erf-based GELU
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}


# ----------------------------------------------------------------------------------------------
# Dropout: nn.Dropout's and attention's computation, its masks drawn faster on a CPU

# On CUDA dropout is torch's fused kernel, which draws its masks inside it: several runs at once over
# stacked weights (torch.func.vmap: bench/batched.py) cannot share that draw. Inside drawn_masks()
# a CUDA run draws each mask as a tensor of its own (torch.rand, from the device's generator) and
# writes attention out, as a CPU run always does: other masks than the fused kernel's, so a choice
# of its own, to be measured against it on a card (docs/gpu.md). On a CPU it changes nothing.
DRAWN_MASKS = contextvars.ContextVar("drawn_masks", default=False)
# Inside masks_from(source) every mask is source(shape, p, device)'s: several seeds at once
# (study/seeds_at_once.py) hand each run the masks its own stream draws, as its run alone draws them.
MASK_SOURCE = contextvars.ContextVar("mask_source", default=None)


@contextlib.contextmanager
def drawn_masks():
    token = DRAWN_MASKS.set(True)
    try:
        yield
    finally:
        DRAWN_MASKS.reset(token)


@contextlib.contextmanager
def masks_from(source):
    token = MASK_SOURCE.set(source)
    try:
        yield
    finally:
        MASK_SOURCE.reset(token)


def draws_masks(device):
    """Whether dropout on `device` draws its masks as tensors (keep_mask) rather than in a fused kernel."""
    return device.type == "cpu" or DRAWN_MASKS.get() or MASK_SOURCE.get() is not None


def keep_mask(shape, p, device=torch.device("cpu"), generator=None):
    """A dropout mask (bool, on `device`): each element kept with probability 1 - p, independently.
    On a CPU torch draws a mask (bernoulli_) from one Mersenne Twister, one number at a time: 18% of a
    SetFit step on 2 cores (docs/performance.md). numpy's PCG64 (cpu_uniforms) is about 2.5 times as
    fast, and seeded from torch's generator, so --seed still fixes the masks. Elsewhere torch.rand on
    the device. `generator`: another than torch's default, a run's stream (study/seeds_at_once.py)."""
    source = MASK_SOURCE.get()
    if source is not None:
        return source(shape, p, device)
    if device.type != "cpu":
        return torch.rand(shape, device=device, generator=generator) >= p
    return torch.from_numpy(cpu_uniforms(math.prod(shape), generator) >= np.float32(p)).view(shape)


def cpu_uniforms(count, generator=None):
    """keep_mask's numbers on a CPU: count float32 in [0, 1), numpy's, seeded by one torch draw."""
    seed = int(torch.randint(2**62, (), generator=generator))
    return np.random.default_rng(seed).random(count, dtype=np.float32)


def fill_uniforms(out, generator=None):
    """out (a mask's place in seeds_at_once.py's grid) filled with the numbers keep_mask(out.shape, p,
    out.device, generator) compares with p: out >= p is its mask, drawn in place (no copy on a card)."""
    if out.device.type != "cpu":
        return out.uniform_(generator=generator)
    return out.copy_(torch.from_numpy(cpu_uniforms(out.numel(), generator)).view(out.shape))


def dropout(x, p, training):
    """F.dropout(x, p, training): x times its mask over 1 - p. On CUDA torch's own fused kernel,
    unless inside drawn_masks()."""
    if not training or p == 0 or not draws_masks(x.device):
        return F.dropout(x, p, training)
    return x * keep_mask(x.shape, p, x.device).to(x.dtype).div_(1 - p)


class Dropout(nn.Dropout):
    """nn.Dropout, its mask keep_mask's on a CPU."""

    def forward(self, x):
        return dropout(x, self.p, self.training)


def attention(q, k, v, mask, p, scale=None):
    """softmax(q k^T * scale, masked) @ v, dropout p on the probabilities: (B, nh, Tq, hd).
    F.scaled_dot_product_attention's computation (mask: bool, True where a key takes part, or
    added to the scores). Without dropout, or on CUDA, it runs it; on a CPU in training (or inside
    drawn_masks()) its dropout would draw masks of its own, so there the product is written out with
    keep_mask's."""
    if p == 0 or not draws_masks(q.device):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p, scale=scale)
    scores = (q @ k.transpose(-2, -1)).float() * (q.shape[-1] ** -0.5 if scale is None else scale)  # (B, nh, Tq, T)
    scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
    return dropout(scores.softmax(-1), p, True).to(v.dtype) @ v


class Embeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        E, H = config.embedding_size or config.hidden_size, config.hidden_size
        self.word = nn.Embedding(config.vocab_size, E)
        # DeBERTa-v3 has none: its positions are relative, in attention (parts/deberta.py)
        self.position = nn.Embedding(config.max_position_embeddings, E) if config.absolute_positions else None
        self.token_type = nn.Embedding(config.type_vocab_size, E) if config.type_vocab_size else None
        self.norm = nn.LayerNorm(E, eps=config.layer_norm_eps)
        self.dropout = Dropout(config.hidden_dropout)
        # ELECTRA's small embeddings (E < H) reach the layers through a projection
        self.project = nn.Linear(E, H) if E != H else None

    def forward(self, tokens: torch.Tensor, layout: Layout) -> torch.Tensor:
        # tokens: (N,) token ids, one per row; or (N, 2) token and segment ids (BERT's sentence
        # pairs: segment 0 up to the first [SEP], 1 after it). Without segment ids, every token is
        # segment 0, as it is for single sentences and for RoBERTa (one segment embedding only).
        # MPNet has no segment embedding at all.
        input_ids, segments = (tokens, None) if tokens.dim() == 1 else tokens.unbind(-1)
        positions, pad = layout.position, self.config.position_pad
        if pad is not None:
            # RoBERTa and MPNet number the real tokens pad+1, pad+2, ... and give padding the pad
            # position, so a token's position never depends on how much padding its batch carries.
            positions = torch.where(layout.is_token, positions + pad + 1, pad)
        if self.token_type is None:
            segment = 0.0
        elif segments is None:
            segment = self.token_type.weight[0]
        else:  # padding cells (the padded layout only) are segment 0, as transformers pads them
            segment = self.token_type(torch.where(layout.is_token, segments, 0))
        position = 0.0 if self.position is None else self.position(positions)
        x = self.dropout(self.norm(self.word(input_ids) + position + segment))  # (N, E)
        return x if self.project is None else self.project(x)  # (N, H)


class Layer(nn.Module):
    """One post-LayerNorm transformer layer: x = LN(x + attn(x)); x = LN(x + ffn(x)). Every layer
    of these families is alike (`index` matters to ModernBERT's)."""

    def __init__(self, config, index: int = 0):
        super().__init__()
        H = config.hidden_size
        self.num_heads = config.num_heads
        self.query, self.key, self.value = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, H)
        self.attn_out = nn.Linear(H, H)
        self.attn_norm = nn.LayerNorm(H, eps=config.layer_norm_eps)
        self.ffn_in = nn.Linear(H, config.intermediate_size)
        self.ffn_out = nn.Linear(config.intermediate_size, H)
        self.ffn_norm = nn.LayerNorm(H, eps=config.layer_norm_eps)
        self.activation = ACTIVATIONS[config.hidden_act]
        self.attention_dropout = config.attention_dropout
        self.dropout = Dropout(config.hidden_dropout)
        # DistilBERT adds the attention's projection to x without a dropout
        self.attn_out_dropout = self.dropout if config.family.attn_out_dropout else nn.Identity()

    def forward(self, x: torch.Tensor, layout: Layout, first_token_only=False, attention_bias=None) -> torch.Tensor:
        # x: (N, H), one row per token. first_token_only: return each sentence's first token
        # alone, (B, H). Every token is still a key and a value, but queries, the output
        # projection and the FFN run for one row per sentence instead of all of them.
        # attention_bias: (B, nh, T, T) added to the scores, -inf at padding keys (MPNet's relative
        # positions), or a function of the layer's queries and keys giving the mask and scale
        # (DeBERTa's position terms, parts/deberta.py); None: the padding mask alone.
        B, H = layout.grid[0], x.shape[-1]
        heads = lambda t: t.view(B, -1, self.num_heads, H // self.num_heads).transpose(1, 2)
        queries = x[layout.first] if first_token_only else x  # (Nq, H): the rows we return
        q, k, v = self.query(queries), self.key(x), self.value(x)  # per token: no padding here
        # attention sees each sentence whole: padding goes in here ...
        q = q.view(B, 1, H) if first_token_only else layout.to_grid(q)
        q, k, v = heads(q), heads(layout.to_grid(k)), heads(layout.to_grid(v))  # (B, nh, T*, hd)
        # softmax(q k^T / sqrt(hd), masked) @ v, with dropout on the attention probabilities
        p, scale = self.attention_dropout if self.training else 0.0, None
        if callable(attention_bias):  # the scores' position terms, from q and k and this layer's projections
            mask, scale = attention_bias(q, k, self.query, self.key, self.num_heads)
        else:
            mask = layout.key_is_token if attention_bias is None else attention_bias[:, :, :q.shape[2]].to(q.dtype)
        attended = attention(q, k, v, mask, p, scale)
        attended = attended.transpose(1, 2).reshape(B, -1, H)  # (B, Tq, H)
        # ... and comes back out here
        attended = attended[:, 0] if first_token_only else layout.from_grid(attended)  # (Nq, H)
        x = self.attn_norm(queries + self.attn_out_dropout(self.attn_out(attended)))
        return self.ffn_norm(x + self.dropout(self.ffn_out(self.activation(self.ffn_in(x)))))


def final_norm(config):
    """These families end at their last layer's own norm (ModernBERT adds one: parts/modernbert.py)."""
    return None


class ClassificationHead(nn.Module):
    """
    Reads each sentence's state (its first token, <s> or [CLS], unless pooling says mean). BERT:
    pooler (dense + tanh, pretrained) -> dropout -> classifier. RoBERTa and MPNet: dropout -> dense ->
    tanh -> dropout -> out_proj (ELECTRA: GELU for tanh). DistilBERT: pre_classifier (dense) -> ReLU ->
    dropout -> classifier. Same modules: one extra dropout for RoBERTa, MPNet and ELECTRA, another
    activation for DistilBERT and ELECTRA.
    """

    def __init__(self, config):
        super().__init__()
        family = config.family
        self.dropout_first = family.dropout_first
        self.activation = dict(tanh=torch.tanh, relu=F.relu, gelu=F.gelu)[family.head_activation]
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.out_proj = nn.Linear(config.hidden_size, config.num_labels)
        self.dropout = Dropout(config.classifier_dropout)
        # DeBERTa's pooler drops at its own rate before its dense
        first = config.classifier_dropout if config.pooler_dropout is None else config.pooler_dropout
        self.first_dropout = Dropout(first) if self.dropout_first else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (B, H), one state per sentence
        if self.dropout_first:
            x = self.first_dropout(x)
        x = self.dropout(self.activation(self.dense(x)))
        return self.out_proj(x)  # (B, num_labels)


class Classifier(nn.Module):
    def __init__(self, config, pooling: str | None = None, normalize: bool = False):
        super().__init__()
        self.config = config
        pooling = pooling or ("mean" if config.classifier_pooling == "mean" else "first")  # as its config.json says
        # what stands for a sentence: its "first" token (<s> or [CLS]), which the studies'
        # *ForSequenceClassification reads, or the "mean" of its tokens, a sentence embedder's own;
        # normalize: a sentence embedder's output is L2-normalised (probe.sentence_embeddings)
        self.pooling, self.normalize = pooling, normalize
        self.parts = parts_of(config)
        self.embed = self.parts.Embeddings(config)
        self.layers = nn.ModuleList(self.parts.Layer(config, i) for i in range(config.num_layers))
        self.final_norm = self.parts.final_norm(config)  # after the last layer (ModernBERT), else None
        # what every layer reads and no layer owns, as the family's parts declare it (MPNet's
        # relative bias table, DeBERTa's relative embeddings): attributes named as its checkpoint maps them
        shared = self.parts.shared_by_layers(config)
        for name, module in shared.items():
            setattr(self, name, module)
        self.shared_names = tuple(shared)
        self.head = self.parts.ClassificationHead(config)

    def run_layers(self, hidden, layout, start=0, stop=None, first_token_only=False):
        """Layers [start, stop) on hidden (N, H) laid out by `layout`. first_token_only: return each
        sentence's first token alone, (B, H); the last of these layers computes nothing else."""
        layers = self.layers[start:stop]
        context = self.layer_context(layout) if layers else None
        for i, layer in enumerate(layers):
            hidden = layer(hidden, layout, first_token_only and i == len(layers) - 1, context)
        if first_token_only and not layers:  # every layer frozen and cached: nothing to run
            hidden = hidden[layout.first]
        return hidden

    def layer_context(self, layout):
        """What every layer's attention shares for this batch, computed once, as the family's parts
        compute it (layer_context below, or ModernBERT's masks and rotary angles)."""
        return self.parts.layer_context(self, layout)

    def shared_by_layers(self):
        """The modules every layer reads and no layer owns (the family's parts'; trainable.freeze
        freezes them with the first layer)."""
        return [getattr(self, name) for name in self.shared_names]

    def sentence_states(self, hidden, layout, start=0):
        """Layers [start, L) on hidden (N, H), then one state per sentence (B, H). First-token
        pooling lets the last layer compute the first token alone (the same states, less work);
        mean pooling needs every token of the last layer."""
        last = self.final_norm or nn.Identity()  # per token: the first ones alone, or every token
        if self.pooling == "first":
            return last(self.run_layers(hidden, layout, start, first_token_only=True))
        return mean_pool(last(self.run_layers(hidden, layout, start)), layout)

    def classify(self, sentence_states):
        return self.head(sentence_states)

    def forward(self, sequences, skip_padding=True):
        """Logits (B, num_labels) for a batch of token ids (T_i,), or token and segment ids (T_i, 2)."""
        input_ids, layout = pack(sequences, skip_padding, self.config.pad_token_id)
        layout = layout.to(input_ids.device)
        return self.classify(self.sentence_states(self.embed(input_ids, layout), layout))


def layer_context(model, layout):
    """What every layer's attention shares for a batch of these families: nothing but the padding
    mask (layout.key_is_token). A family with relative positions shares them (parts/)."""
    return None


def shared_by_layers(config):
    """What every layer reads and no layer owns, {the Classifier's attribute name: module}: none here."""
    return {}


def parts_of(config):
    """The module whose Embeddings, Layer, final_norm, ClassificationHead and layer_context compute
    the family, as its block in parts/families.py names it: this one, or its own (parts/modernbert.py)."""
    return importlib.import_module(config.family.parts)


@torch.no_grad()
def initialize_(module: nn.Module, initializer_range: float):
    """Initialise every Linear and LayerNorm in `module` as transformers initialises a fresh
    one: weights normal(0, initializer_range), biases 0; LayerNorm weight 1, bias 0."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            m.weight.normal_(mean=0.0, std=initializer_range)
            if m.bias is not None:  # ModernBERT's have none
                m.bias.zero_()
        elif isinstance(m, nn.LayerNorm):
            m.weight.fill_(1.0)
            if m.bias is not None:
                m.bias.zero_()


def count_parameters(model: nn.Module):
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return trainable, sum(p.numel() for p in model.parameters())
