"""
The checkpoint families this tool runs, and a checkpoint's config.json read into EncoderConfig.
Each family is declared in one block: what its config.json says beyond the keys every family shares, how its parameters are named in a transformers checkpoint
(one list of (ours, theirs) patterns, read both ways by checkpoint.py), the prefix of its encoder's
tensors, its classification head's layout and the class transformers saves it as. Adding a family
is one Family here and, where it computes something the others do not, its own parts (a module
beside this one that the block names, or what model.py's parts call for it). model.py reads a
family through its config (EncoderConfig.family), so it imports nothing from here.
"""

import json
import os
import re
from dataclasses import dataclass

MPNET_BUCKETS = 32  # transformers buckets MPNet's relative positions into 32, whatever its config says
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu")  # the hidden_act values model.py computes
REQUIRED_KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                 "intermediate_size", "max_position_embeddings")
LAYER = r"encoder.layer.\1."
# what BERT named first and the others kept: our name pattern -> the checkpoint's, tried in order
SHARED_NAMES = (
    (r"^embed\.word\.", "embeddings.word_embeddings."),
    (r"^embed\.position\.", "embeddings.position_embeddings."),
    (r"^embed\.token_type\.", "embeddings.token_type_embeddings."),
    (r"^embed\.norm\.", "embeddings.LayerNorm."),
    (r"^layers\.(\d+)\.(query|key|value)\.", LAYER + r"attention.self.\2."),
    (r"^layers\.(\d+)\.attn_out\.", LAYER + "attention.output.dense."),
    (r"^layers\.(\d+)\.attn_norm\.", LAYER + "attention.output.LayerNorm."),
    (r"^layers\.(\d+)\.ffn_in\.", LAYER + "intermediate.dense."),
    (r"^layers\.(\d+)\.ffn_out\.", LAYER + "output.dense."),
    (r"^layers\.(\d+)\.ffn_norm\.", LAYER + "output.LayerNorm."),
)
POOLER_HEAD = ((r"^head\.dense\.", "pooler.dense."), (r"^head\.out_proj\.", "classifier."))
CLASSIFIER_HEAD = ((r"^head\.dense\.", "classifier.dense."), (r"^head\.out_proj\.", "classifier.out_proj."))


@dataclass(frozen=True)
class Family:
    model_type: str  # config.json's model_type
    architecture: str  # the class transformers loads a saved classifier as
    names: tuple  # (our parameter name pattern, the checkpoint's), tried in order
    dropout_first: bool  # the head: dropout -> dense -> tanh -> dropout -> out_proj (else BERT's pooler layout)
    default_pad_token_id: int
    position_pad: object  # pad_token_id -> the index real tokens are numbered after (pad + 1, ...); None: from 0
    segments: bool  # a token-type (segment) embedding
    relative_buckets: bool  # a relative position bias table shared by every layer
    encoder_name: str = ""  # the encoder's attribute in a *ForSequenceClassification (default: model_type)
    lee_epochs: int = 3  # Lee et al.'s epochs (3 for BERT, 10 for RoBERTa; protocol.py)
    config_keys: tuple = ()  # (the key BERT's config.json names, this family's) where they differ
    head_activation: str = "tanh"  # between the head's dense and its output (DistilBERT: relu; ELECTRA: gelu)
    attn_out_dropout: bool = True  # dropout on the attention's output projection (DistilBERT: none)
    top_level: tuple = ("classifier.",)  # head tensors a checkpoint keeps outside the encoder's prefix
    lora_targets: tuple = ("query", "value")  # LoRA's default projections (peft's for BERT and RoBERTa)
    parts: str = "model"  # the module whose Embeddings, Layer, ClassificationHead, layer_context and shared_by_layers compute it
    own_keys: object = lambda hf: {}  # config.json -> the EncoderConfig fields only this family reads
    biases: bool = True  # its linear layers and norms have biases (BitFit trains nothing without them)
    classifier_pools_mean: bool = False  # its *ForSequenceClassification can read the mean (classifier_pooling)

    @property
    def prefix(self):
        """The encoder's tensors' prefix in a *ForSequenceClassification checkpoint ("roberta.")."""
        return f"{self.encoder_name or self.model_type}."

    def hf_name(self, name):
        """Our parameter name -> the checkpoint's (without the prefix)."""
        for ours, theirs in self.names:
            if re.match(ours, name):
                return re.sub(ours, theirs, name)
        raise KeyError(name)


FAMILIES = {family.model_type: family for family in (
    Family("bert", "BertForSequenceClassification", SHARED_NAMES + POOLER_HEAD, dropout_first=False,
           default_pad_token_id=0, position_pad=None, segments=True, relative_buckets=False),
    Family("roberta", "RobertaForSequenceClassification", SHARED_NAMES + CLASSIFIER_HEAD, dropout_first=True,
           default_pad_token_id=1, position_pad=lambda pad: pad, segments=True, relative_buckets=False, lee_epochs=10),
    # XLM-RoBERTa: RoBERTa's computation and names (its encoder is `roberta.`), another vocabulary
    Family("xlm-roberta", "XLMRobertaForSequenceClassification", SHARED_NAMES + CLASSIFIER_HEAD, dropout_first=True,
           default_pad_token_id=1, position_pad=lambda pad: pad, segments=True, relative_buckets=False,
           encoder_name="roberta", lee_epochs=10),
    # DistilBERT: BERT's post-LayerNorm layers under its own names and config keys, no segments, no
    # dropout after the attention's projection, and a head of dense -> ReLU -> dropout -> classifier
    Family("distilbert", "DistilBertForSequenceClassification", (
        (r"^embed\.word\.", "embeddings.word_embeddings."),
        (r"^embed\.position\.", "embeddings.position_embeddings."),
        (r"^embed\.norm\.", "embeddings.LayerNorm."),
        (r"^layers\.(\d+)\.(query|key|value)\.", lambda m: f"transformer.layer.{m[1]}.attention.{m[2][0]}_lin."),
        (r"^layers\.(\d+)\.attn_out\.", r"transformer.layer.\1.attention.out_lin."),
        (r"^layers\.(\d+)\.attn_norm\.", r"transformer.layer.\1.sa_layer_norm."),
        (r"^layers\.(\d+)\.ffn_in\.", r"transformer.layer.\1.ffn.lin1."),
        (r"^layers\.(\d+)\.ffn_out\.", r"transformer.layer.\1.ffn.lin2."),
        (r"^layers\.(\d+)\.ffn_norm\.", r"transformer.layer.\1.output_layer_norm."),
        (r"^head\.dense\.", "pre_classifier."), (r"^head\.out_proj\.", "classifier."),
    ), dropout_first=False, default_pad_token_id=0, position_pad=None, segments=False, relative_buckets=False,
           config_keys=(("hidden_size", "dim"), ("num_hidden_layers", "n_layers"), ("num_attention_heads", "n_heads"),
                        ("intermediate_size", "hidden_dim"), ("hidden_act", "activation"),
                        ("hidden_dropout_prob", "dropout"), ("attention_probs_dropout_prob", "attention_dropout"),
                        ("classifier_dropout", "seq_classif_dropout")),
           head_activation="relu", attn_out_dropout=False, top_level=("classifier.", "pre_classifier.")),
    # ELECTRA: BERT's names and layers; embeddings of their own width, projected to the layers' (its
    # embeddings_project, when the widths differ); RoBERTa's head with a GELU for the tanh
    Family("electra", "ElectraForSequenceClassification",
           ((r"^embed\.project\.", "embeddings_project."),) + SHARED_NAMES + CLASSIFIER_HEAD, dropout_first=True,
           default_pad_token_id=0, position_pad=None, segments=True, relative_buckets=False, head_activation="gelu"),
    # ModernBERT: pre-norm layers without biases, one fused query-key-value projection, GeGLU, rotary
    # positions, local attention in all but every third layer, a final norm, and its own head
    # (parts/modernbert.py); no segments, no position table. LoRA adapts the fused projection (peft's Wqkv)
    Family("modernbert", "ModernBertForSequenceClassification", (
        (r"^embed\.word\.", "embeddings.tok_embeddings."),
        (r"^embed\.norm\.", "embeddings.norm."),
        (r"^layers\.(\d+)\.attn_norm\.", r"layers.\1.attn_norm."),
        (r"^layers\.(\d+)\.qkv\.", r"layers.\1.attn.Wqkv."),
        (r"^layers\.(\d+)\.attn_out\.", r"layers.\1.attn.Wo."),
        (r"^layers\.(\d+)\.ffn_norm\.", r"layers.\1.mlp_norm."),
        (r"^layers\.(\d+)\.ffn_in\.", r"layers.\1.mlp.Wi."),
        (r"^layers\.(\d+)\.ffn_out\.", r"layers.\1.mlp.Wo."),
        (r"^final_norm\.", "final_norm."),
        (r"^head\.dense\.", "head.dense."), (r"^head\.norm\.", "head.norm."), (r"^head\.out_proj\.", "classifier."),
    ), dropout_first=False, default_pad_token_id=50283, position_pad=None, segments=False, relative_buckets=False,
           encoder_name="model", head_activation="gelu", top_level=("classifier.", "head."), lora_targets=("qkv",),
           parts="parts.modernbert", own_keys=lambda hf: modernbert_keys(hf), biases=False, classifier_pools_mean=True,
           config_keys=(("hidden_act", "hidden_activation"), ("layer_norm_eps", "norm_eps"),
                        ("hidden_dropout_prob", "embedding_dropout"), ("attention_probs_dropout_prob", "attention_dropout"))),
    # DeBERTa-v2 and -v3: BERT's layers under its own names, disentangled attention over one table of
    # relative-position embeddings every layer shares (parts/deberta.py), no position table in v3, no
    # segments in v3; its head is a ContextPooler (dropout -> dense -> GELU) -> dropout -> classifier
    Family("deberta-v2", "DebertaV2ForSequenceClassification", (
        (r"^layers\.(\d+)\.(query|key|value)\.", r"encoder.layer.\1.attention.self.\2_proj."),
        (r"^relative_rows\.", "encoder.rel_embeddings."),
        (r"^relative_norm\.", "encoder.LayerNorm."),
        (r"^head\.dense\.", "pooler.dense."), (r"^head\.out_proj\.", "classifier."),
    ) + SHARED_NAMES, dropout_first=True, default_pad_token_id=0, position_pad=None, segments=True,
           relative_buckets=False, encoder_name="deberta", head_activation="gelu", top_level=("classifier.", "pooler."),
           config_keys=(("classifier_dropout", "cls_dropout"),), own_keys=lambda hf: deberta_keys(hf),
           parts="parts.deberta"),
    # MPNet names its attention's parts apart from BERT's, has no segments, and numbers positions from
    # 2 whatever pad_token_id says (transformers fixes its padding index at 1)
    Family("mpnet", "MPNetForSequenceClassification", (
        (r"^layers\.(\d+)\.(query|key|value)\.", lambda m: f"encoder.layer.{m[1]}.attention.attn.{m[2][0]}."),
        (r"^layers\.(\d+)\.attn_out\.", LAYER + "attention.attn.o."),
        (r"^layers\.(\d+)\.attn_norm\.", LAYER + "attention.LayerNorm."),
        (r"^relative_bias\.", "encoder.relative_attention_bias."),
    ) + SHARED_NAMES + CLASSIFIER_HEAD, dropout_first=True, default_pad_token_id=1, position_pad=lambda pad: 1, segments=False,
           relative_buckets=True, parts="parts.mpnet"),
)}


def get(model_type):
    if model_type not in FAMILIES:
        names = [family.architecture.removesuffix("ForSequenceClassification") for family in FAMILIES.values()]
        raise ValueError(f"unsupported model_type {model_type!r} in config.json: this tool runs the "
                         f"{', '.join(names[:-1])} and {names[-1]} families")
    return FAMILIES[model_type]


# ----------------------------------------------------------------------------------------------
# A checkpoint's config.json, read as its family reads it (nothing here imports torch: make reads a
# model's depth through it, python -m protocol depths)

@dataclass
class EncoderConfig:
    model_type: str  # its family (families.py): position ids, segments and the head's layout
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
    relative_attention_num_buckets: int = 0  # MPNet's relative position bias table: its rows (0: none)
    embedding_size: int = 0  # ELECTRA's embeddings, projected to hidden_size when they differ (0: hidden_size)
    # ModernBERT's (parts/modernbert.py): which layers attend globally, the local window, the rotary bases,
    # which of its linear layers and norms have biases, its MLP's dropout and its head's pooling
    global_layers: tuple = ()  # the layers that attend to every token (the others: within local_window)
    local_window: int = 0  # local attention's whole window: a key counts within half of it either side
    rope_theta: tuple = ()  # (global layers' rotary base, local layers')
    linear_bias: bool = True
    norm_bias: bool = True
    head_bias: bool = True  # the head's dense
    mlp_dropout: float = 0.0
    classifier_pooling: str = "cls"  # cls: the first token; mean: the mean of the tokens
    # DeBERTa's (parts/deberta.py): its relative-position table, how distances are bucketed into it, the
    # terms that read it, whether absolute positions are added to the input, its pooler's dropout
    relative_span: int = 0  # the table holds 2 x this many rows (0: no disentangled attention)
    position_buckets: int = 0  # distances under half of it exact, larger ones log-spaced (0: exact)
    max_relative_positions: int = 0
    relative_terms: tuple = ()  # "c2p", "p2c"
    norm_relative: bool = False  # the table's rows go through a LayerNorm (norm_rel_ebd)
    absolute_positions: bool = True  # a position table added to the input (DeBERTa's position_biased_input)
    pooler_dropout: float | None = None  # the head's first dropout (None: classifier_dropout)

    @classmethod
    def from_hf(cls, hf: dict, num_labels: int) -> "EncoderConfig":
        """Read a checkpoint's config.json (as a dict); nothing about the size is assumed."""
        model_type = hf.get("model_type")
        family = get(model_type)
        hf = {**hf, **{ours: hf[theirs] for ours, theirs in family.config_keys if theirs in hf}}
        if not isinstance(num_labels, int) or num_labels < 1:  # 1: a regression head, one output
            raise ValueError(f"num_labels must be an integer >= 1 (got {num_labels!r})")
        if hf.get("hidden_act", "gelu") not in ACTIVATIONS:
            raise ValueError(f"unsupported hidden_act {hf['hidden_act']!r} in config.json")
        own_keys = family.own_keys(hf)  # the keys only this family reads (ModernBERT's, DeBERTa's)
        if hf.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported "
                             f"(config.json says {hf['position_embedding_type']!r})")
        missing = [key for key in REQUIRED_KEYS if key not in hf]
        if missing:
            raise ValueError(f"config.json lacks {', '.join(missing)}")
        buckets = hf.get("relative_attention_num_buckets", MPNET_BUCKETS) if family.relative_buckets else 0
        if family.relative_buckets and buckets < MPNET_BUCKETS:
            raise ValueError(f"relative_attention_num_buckets {buckets} in config.json: transformers' MPNet looks up "
                             f"{MPNET_BUCKETS} buckets, so the table needs at least that many rows")
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
            type_vocab_size=hf.get("type_vocab_size", 2) if family.segments else 0,
            layer_norm_eps=hf.get("layer_norm_eps", 1e-12),
            pad_token_id=hf.get("pad_token_id", family.default_pad_token_id),
            relative_attention_num_buckets=buckets,
            embedding_size=hf.get("embedding_size", hf["hidden_size"]),
            initializer_range=hf.get("initializer_range", 0.02),
            num_labels=num_labels,
            **own_keys,
        )

    @property
    def family(self) -> Family:
        """Its family's declaration (this module's block), which model.py reads its head and parts from."""
        return get(self.model_type)

    @property
    def position_pad(self):
        """RoBERTa and MPNet number real tokens from this index + 1 (BERT: None, from 0)."""
        position_pad = get(self.model_type).position_pad
        return None if position_pad is None else position_pad(self.pad_token_id)

    @property
    def max_length(self) -> int:
        """Longest sequence the position table can hold (RoBERTa's and MPNet's start at pad + 1)."""
        if self.position_pad is not None:
            return self.max_position_embeddings - self.position_pad - 1
        return self.max_position_embeddings


def modernbert_keys(hf):
    """ModernBERT's config.json keys as EncoderConfig's fields: its layer types (or, in older
    files, global_attn_every_n_layers), rotary bases (rope_parameters, or global_/local_rope_theta)."""
    L, every = hf["num_hidden_layers"], hf.get("global_attn_every_n_layers", 3)
    types = hf.get("layer_types") or ["sliding_attention" if i % every else "full_attention" for i in range(L)]
    rope = hf.get("rope_parameters") or {}
    theta = lambda kind, old_key, default: (rope.get(kind) or {}).get("rope_theta", hf.get(old_key, default))
    if any((rope.get(kind) or {}).get("rope_type", "default") != "default" for kind in rope) or hf.get("rope_scaling"):
        raise ValueError("only ModernBERT's default rotary positions are supported (config.json scales them)")
    if hf.get("classifier_pooling", "cls") not in ("cls", "mean"):
        raise ValueError(f"classifier_pooling {hf['classifier_pooling']!r} in config.json: cls or mean")
    if hf.get("attention_bias", False) != hf.get("mlp_bias", False):
        raise ValueError("config.json gives ModernBERT's attention and MLP different biases: this tool reads them alike")
    if hf.get("classifier_activation", "gelu") != "gelu":
        raise ValueError(f"unsupported classifier_activation {hf['classifier_activation']!r} in config.json")
    return dict(global_layers=tuple(i for i, kind in enumerate(types) if kind == "full_attention"),
                local_window=hf.get("local_attention", 128),
                rope_theta=(theta("full_attention", "global_rope_theta", 160000.0),
                            theta("sliding_attention", "local_rope_theta", 10000.0)),
                linear_bias=hf.get("attention_bias", False), norm_bias=hf.get("norm_bias", False),
                head_bias=hf.get("classifier_bias", False), mlp_dropout=hf.get("mlp_dropout", 0.0),
                classifier_pooling=hf.get("classifier_pooling", "cls"))


def deberta_keys(hf):
    """DeBERTa-v2/v3's config.json keys as EncoderConfig's fields; what this tool does not compute
    (a convolution after the first layer, position projections of their own) refused in one line."""
    terms = hf.get("pos_att_type") or []
    terms = [t.strip() for t in (terms.lower().split("|") if isinstance(terms, str) else terms)]
    if not hf.get("relative_attention", False):
        raise ValueError("DeBERTa without relative attention (relative_attention false in config.json) is not supported")
    if hf.get("conv_kernel_size", 0) > 0:
        raise ValueError("DeBERTa with a convolution layer (conv_kernel_size in config.json) is not supported")
    if terms and not hf.get("share_att_key", False):
        raise ValueError("DeBERTa whose positions have projections of their own (share_att_key false in config.json) "
                         "is not supported: every v3 checkpoint shares them")
    if hf.get("embedding_size", hf["hidden_size"]) != hf["hidden_size"]:
        raise ValueError("DeBERTa with embeddings narrower than its layers (embedding_size) is not supported")
    if hf.get("pooler_hidden_act", "gelu") != "gelu" or hf.get("pooler_hidden_size", hf["hidden_size"]) != hf["hidden_size"]:
        raise ValueError("DeBERTa's pooler: this tool computes a GELU pooler as wide as the layers")
    max_relative = hf.get("max_relative_positions", -1)
    max_relative = max_relative if max_relative >= 1 else hf["max_position_embeddings"]
    buckets = hf.get("position_buckets", -1)
    span = buckets if buckets > 0 else max_relative
    return dict(relative_span=span, position_buckets=max(buckets, 0), max_relative_positions=max_relative,
                relative_terms=tuple(t for t in ("c2p", "p2c") if t in terms),
                norm_relative="layer_norm" in str(hf.get("norm_rel_ebd", "none")).lower(),
                absolute_positions=hf.get("position_biased_input", True), pooler_dropout=hf.get("pooler_dropout", 0.0))


def read_config(folder: str, num_labels: int = 2) -> EncoderConfig:
    return EncoderConfig.from_hf(read_config_json(folder), num_labels)


def read_config_json(folder: str) -> dict:
    """A checkpoint's config.json as transformers wrote it; a missing or broken one named."""
    path = os.path.join(folder, "config.json")
    if not os.path.exists(path):
        raise ValueError(f"checkpoint folder {folder!r} has no config.json")
    try:
        with open(path) as f:
            config = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is not a JSON config ({e}): copy the checkpoint again, or point --model at another folder") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path} is not a JSON config (a {type(config).__name__}, not an object)")
    return config
