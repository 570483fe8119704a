"""
The encoder, written out: BERT- and RoBERTa-family sequence classifiers that compute exactly what
transformers' BertForSequenceClassification and RobertaForSequenceClassification compute, loaded
from the same checkpoints (checkpoint.py loads them). Only reading config.json, the weights and
the tokenizer comes from the Hugging Face libraries; every module below is ours.

A batch of sentences of unequal lengths is carried as rows: one row per real token, the
sentences one after another, (N, H) with N the batch's number of tokens. Every module acts on each
token alone except attention, which needs each sentence whole: it puts the rows into the padded
(B, T) grid, attends there, and takes the rows back out (Layer.forward, two lines). So padding
costs only attention's share of the work; a Layout says where each row sits in the grid, and
pack(..., skip_padding=False) gives the plain padded layout (a row for every cell of the grid),
which computes the same logits and gradients (tests/test_model.py).

The forward pass is split so the training loop can cache what frozen layers produce:
    embed(input_ids, layout)                    (N,) -> (N, H)
    run_layers(hidden, layout, start, stop)     layers [start, stop) of the stack
    sentence_states(hidden, layout, start)      layers [start, L), then one state per sentence (B, H):
                                                its first token, or the mean of its tokens (pooling)
    classify(sentence_states)                   (B, H) -> (B, num_labels)
forward(sequences) is their composition.
"""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SUPPORTED_MODEL_TYPES = ("bert", "roberta")
ACTIVATIONS = {
    "gelu": F.gelu,  # the exact, erf-based GELU
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}
REQUIRED_KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                 "intermediate_size", "max_position_embeddings")


@dataclass
class EncoderConfig:
    model_type: str  # "bert" or "roberta": decides position ids and the head's layout
    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    hidden_act: str
    hidden_dropout: float
    attention_dropout: float
    classifier_dropout: float
    max_position_embeddings: int
    type_vocab_size: int
    layer_norm_eps: float
    pad_token_id: int
    initializer_range: float
    num_labels: int = 2

    @classmethod
    def from_hf(cls, hf: dict, num_labels: int) -> "EncoderConfig":
        """Read a checkpoint's config.json (as a dict); nothing about the size is assumed."""
        model_type = hf.get("model_type")
        if model_type not in SUPPORTED_MODEL_TYPES:
            raise ValueError(f"unsupported model_type {model_type!r} in config.json: "
                             f"this tool runs the {' and '.join(SUPPORTED_MODEL_TYPES)} families")
        if not isinstance(num_labels, int) or num_labels < 1:  # 1: a regression head, one output
            raise ValueError(f"num_labels must be an integer >= 1 (got {num_labels!r})")
        if hf.get("hidden_act", "gelu") not in ACTIVATIONS:
            raise ValueError(f"unsupported hidden_act {hf['hidden_act']!r} in config.json")
        if hf.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported "
                             f"(config.json says {hf['position_embedding_type']!r})")
        missing = [key for key in REQUIRED_KEYS if key not in hf]
        if missing:
            raise ValueError(f"config.json lacks {', '.join(missing)}")
        hidden_dropout = hf.get("hidden_dropout_prob", 0.1)
        classifier_dropout = hf.get("classifier_dropout")
        return cls(
            model_type=model_type,
            vocab_size=hf["vocab_size"],
            hidden_size=hf["hidden_size"],
            num_layers=hf["num_hidden_layers"],
            num_heads=hf["num_attention_heads"],
            intermediate_size=hf["intermediate_size"],
            hidden_act=hf.get("hidden_act", "gelu"),
            hidden_dropout=hidden_dropout,
            attention_dropout=hf.get("attention_probs_dropout_prob", 0.1),
            # transformers falls back to the hidden dropout when classifier_dropout is unset
            classifier_dropout=hidden_dropout if classifier_dropout is None else classifier_dropout,
            max_position_embeddings=hf["max_position_embeddings"],
            type_vocab_size=hf.get("type_vocab_size", 2),
            layer_norm_eps=hf.get("layer_norm_eps", 1e-12),
            pad_token_id=hf.get("pad_token_id", 0 if model_type == "bert" else 1),
            initializer_range=hf.get("initializer_range", 0.02),
            num_labels=num_labels,
        )

    @property
    def max_length(self) -> int:
        """Longest sequence the position table can hold (RoBERTa's positions start at pad + 1)."""
        if self.model_type == "roberta":
            return self.max_position_embeddings - self.pad_token_id - 1
        return self.max_position_embeddings


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


class Embeddings(nn.Module):
    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.config = config
        self.word = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout)

    def forward(self, tokens: torch.Tensor, layout: Layout) -> torch.Tensor:
        # tokens: (N,) token ids, one per row; or (N, 2) token and segment ids (BERT's sentence
        # pairs: segment 0 up to the first [SEP], 1 after it). Without segment ids, every token is
        # segment 0, as it is for single sentences and for RoBERTa (one segment embedding only).
        input_ids, segments = (tokens, None) if tokens.dim() == 1 else tokens.unbind(-1)
        positions = layout.position
        if self.config.model_type == "roberta":
            # RoBERTa numbers the real tokens pad+1, pad+2, ... and gives padding the pad position,
            # so a token's position never depends on how much padding its batch carries.
            positions = torch.where(layout.is_token, positions + self.config.pad_token_id + 1,
                                    self.config.pad_token_id)
        if segments is None:
            segment = self.token_type.weight[0]
        else:  # padding cells (the padded layout only) are segment 0, as transformers pads them
            segment = self.token_type(torch.where(layout.is_token, segments, 0))
        x = self.word(input_ids) + self.position(positions) + segment
        return self.dropout(self.norm(x))  # (N, H)


class Layer(nn.Module):
    """One post-LayerNorm transformer layer: x = LN(x + attn(x)); x = LN(x + ffn(x))."""

    def __init__(self, config: EncoderConfig):
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
        self.dropout = nn.Dropout(config.hidden_dropout)

    def forward(self, x: torch.Tensor, layout: Layout, first_token_only=False) -> torch.Tensor:
        # x: (N, H), one row per token. first_token_only: return each sentence's first token
        # alone, (B, H). Every token is still a key and a value, but queries, the output
        # projection and the FFN run for one row per sentence instead of all of them.
        B, H = layout.grid[0], x.shape[-1]
        heads = lambda t: t.view(B, -1, self.num_heads, H // self.num_heads).transpose(1, 2)
        queries = x[layout.first] if first_token_only else x  # (Nq, H): the rows we return
        q, k, v = self.query(queries), self.key(x), self.value(x)  # per token: no padding here
        # attention sees each sentence whole: padding goes in here ...
        q = q.view(B, 1, H) if first_token_only else layout.to_grid(q)
        q, k, v = heads(q), heads(layout.to_grid(k)), heads(layout.to_grid(v))  # (B, nh, T*, hd)
        # softmax(q k^T / sqrt(hd), masked) @ v, with dropout on the attention probabilities
        p = self.attention_dropout if self.training else 0.0
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=layout.key_is_token, dropout_p=p)
        attended = attended.transpose(1, 2).reshape(B, -1, H)  # (B, Tq, H)
        # ... and comes back out here
        attended = attended[:, 0] if first_token_only else layout.from_grid(attended)  # (Nq, H)
        x = self.attn_norm(queries + self.dropout(self.attn_out(attended)))
        return self.ffn_norm(x + self.dropout(self.ffn_out(self.activation(self.ffn_in(x)))))


class ClassificationHead(nn.Module):
    """
    Reads each sentence's state (its first token, <s> or [CLS], unless pooling says mean). BERT:
    pooler (dense + tanh, pretrained) -> dropout -> classifier. RoBERTa: dropout -> dense -> tanh ->
    dropout -> out_proj. Same modules, one extra dropout for RoBERTa.
    """

    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.dropout_first = config.model_type == "roberta"
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.out_proj = nn.Linear(config.hidden_size, config.num_labels)
        self.dropout = nn.Dropout(config.classifier_dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (B, H), one state per sentence
        if self.dropout_first:
            x = self.dropout(x)
        x = self.dropout(torch.tanh(self.dense(x)))
        return self.out_proj(x)  # (B, num_labels)


def mean_pool(hidden, layout):
    """(N, H) rows -> (B, H): each sentence's mean over its real tokens, as sentence-transformers'
    mean pooling computes it (the padded layout's padding cells left out)."""
    B, T = layout.grid
    sentence = layout.cell // T  # (N,) the sentence each row belongs to
    weight = layout.is_token.to(hidden.dtype)[:, None]  # (N, 1)
    sums = hidden.new_zeros(B, hidden.shape[-1]).index_add_(0, sentence, hidden * weight)
    counts = weight.new_zeros(B, 1).index_add_(0, sentence, weight)
    return sums / counts.clamp(min=1e-9)


class Classifier(nn.Module):
    def __init__(self, config: EncoderConfig, pooling: str = "first", normalize: bool = False):
        super().__init__()
        self.config = config
        # what stands for a sentence: its "first" token (<s> or [CLS]), which the studies'
        # *ForSequenceClassification reads, or the "mean" of its tokens, a sentence embedder's own;
        # normalize: a sentence embedder's output is L2-normalised (loop.sentence_embeddings)
        self.pooling, self.normalize = pooling, normalize
        self.embed = Embeddings(config)
        self.layers = nn.ModuleList(Layer(config) for _ in range(config.num_layers))
        self.head = ClassificationHead(config)

    def run_layers(self, hidden, layout, start=0, stop=None, first_token_only=False):
        """Layers [start, stop) on hidden (N, H) laid out by `layout`. first_token_only: return each
        sentence's first token alone, (B, H); the last of these layers computes nothing else."""
        layers = self.layers[start:stop]
        for i, layer in enumerate(layers):
            hidden = layer(hidden, layout, first_token_only and i == len(layers) - 1)
        if first_token_only and not layers:  # every layer frozen and cached: nothing to run
            hidden = hidden[layout.first]
        return hidden

    def sentence_states(self, hidden, layout, start=0):
        """Layers [start, L) on hidden (N, H), then one state per sentence (B, H). First-token
        pooling lets the last layer compute the first token alone (the same states, less work);
        mean pooling needs every token of the last layer."""
        if self.pooling == "first":
            return self.run_layers(hidden, layout, start, first_token_only=True)
        return mean_pool(self.run_layers(hidden, layout, start), layout)

    def classify(self, sentence_states):
        return self.head(sentence_states)

    def forward(self, sequences, skip_padding=True):
        """Logits (B, num_labels) for a batch of token ids (T_i,), or token and segment ids (T_i, 2)."""
        input_ids, layout = pack(sequences, skip_padding, self.config.pad_token_id)
        layout = layout.to(input_ids.device)
        return self.classify(self.sentence_states(self.embed(input_ids, layout), layout))


@torch.no_grad()
def initialize_(module: nn.Module, initializer_range: float):
    """Initialise every Linear and LayerNorm in `module` as transformers initialises a fresh
    one: weights normal(0, initializer_range), biases 0; LayerNorm weight 1, bias 0."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            m.weight.normal_(mean=0.0, std=initializer_range)
            m.bias.zero_()
        elif isinstance(m, nn.LayerNorm):
            m.weight.fill_(1.0)
            m.bias.zero_()


def count_parameters(model: nn.Module):
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return trainable, sum(p.numel() for p in model.parameters())
