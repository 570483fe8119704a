"""
A checkpoint in and out of model.py's Classifier: read config.json, and copy its tensors in by name
(a head the checkpoint lacks starts fresh, as transformers initialises it); and save a trained
classifier as a transformers checkpoint, the same names the other way (its family's, parts/families.py).
Where a checkpoint's folder comes from ('minilm', 'mpnet', a local folder, the hub) is hub.py's.
"""

import functools
import hashlib
import json
import os
import re
import shutil

import torch

from parts import families
from atomic import write_folder_atomically
from hub import WEIGHT_FILES, checkpoint_folder, file_sha256
from model import Classifier, initialize_


# what AutoTokenizer reads; config.json is written anew by save_pretrained
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                   "vocab.txt", "vocab.json", "merges.txt", "sentencepiece.bpe.model", "spiece.model")


def weights_file(folder: str) -> str:
    for name in WEIGHT_FILES:
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    raise ValueError(f"checkpoint folder {folder!r} holds no weights ({' or '.join(WEIGHT_FILES)})")


def checkpoint_id(folder: str) -> str:
    """A short hash of the weights file's bytes: names the frozen-prefix cache of this checkpoint.
    Hashed once per process and file version (roberta-base's 500 MB take half a second, every
    run of a worker again otherwise)."""
    path = weights_file(folder)
    stat = os.stat(path)
    return weights_hash(os.path.realpath(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=None)
def weights_hash(path, size, mtime_ns):
    return file_sha256(path)[:16]


def read_state_dict(folder: str) -> dict:
    """The checkpoint's tensors, with names normalised: no 'bert.'/'roberta.' prefix, old
    'gamma'/'beta' LayerNorm names read as 'weight'/'bias'."""
    path = weights_file(folder)
    if path.endswith(".safetensors"):
        from safetensors.torch import load_file
        raw = load_file(path)
    else:
        raw = torch.load(path, map_location="cpu", weights_only=True)
    tensors = {}
    for name, tensor in raw.items():
        name = next((name.removeprefix(family.prefix) for family in families.FAMILIES.values()
                     if name.startswith(family.prefix)), name)
        name = re.sub(r"LayerNorm\.gamma$", "LayerNorm.weight", re.sub(r"LayerNorm\.beta$", "LayerNorm.bias", name))
        tensors[name] = tensor
    return tensors


# what the global generator holds after Classifier(config) drew its modules' default weights from
# a state: {(config, the state before): the state after}
GENERATOR_AFTER = {}


def constructed(config) -> Classifier:
    """Classifier(config) with its default weights unset (from_pretrained copies, draws or zeroes
    every one), the global generator left where drawing them leaves it: the fresh head is drawn
    next. The first build from a generator state draws them (1.7 s for roberta-base on one
    thread); a later one from the same state (a worker's next run of that seed) skips the drawing."""
    key = (repr(config), hashlib.sha256(torch.get_rng_state().numpy().tobytes()).hexdigest())
    if key not in GENERATOR_AFTER:
        model = Classifier(config)
        GENERATOR_AFTER[key] = torch.get_rng_state()
        return model
    with torch.device("meta"):
        model = Classifier(config)
    torch.set_rng_state(GENERATOR_AFTER[key])
    return model.to_empty(device="cpu")


def hf_name(name: str, model_type: str) -> str:
    """Our parameter name -> the checkpoint's (after read_state_dict's normalisation): its family's."""
    return families.get(model_type).hf_name(name)


def from_pretrained(name_or_path: str, num_labels: int = 2) -> Classifier:
    """
    Build our Classifier from a checkpoint and copy its tensors in by name. Every encoder tensor
    must be there with the right shape. The head's tensors are taken when the checkpoint has
    them (a *ForSequenceClassification save, or BERT's pretrained pooler); otherwise the head
    starts fresh the way transformers initialises it: normal(0, initializer_range), zero bias, and
    model.fresh_head names the tensors the checkpoint lacked (predict.py labels with none fresh).
    """
    folder = checkpoint_folder(name_or_path)
    weights_file(folder)  # a folder without weights fails here, before anything is read
    config = families.read_config(folder, num_labels)
    tensors = read_state_dict(folder)
    model = constructed(config)
    model.fresh_head = []
    with torch.no_grad():
        for name, param in model.named_parameters():
            source = hf_name(name, config.model_type)
            if source not in tensors:
                if not name.startswith("head."):
                    raise ValueError(f"checkpoint {name_or_path!r} lacks tensor {source!r}")
                model.fresh_head.append(source)
                if name.endswith("weight"):  # a fresh module (its bias, if the checkpoint has one, comes next)
                    initialize_(model.get_submodule(name.rsplit(".", 1)[0]), config.initializer_range)
                else:
                    param.zero_()
                continue
            if tensors[source].shape != param.shape:
                raise ValueError(f"checkpoint {name_or_path!r}: tensor {source!r} has shape "
                                 f"{tuple(tensors[source].shape)}, the config implies {tuple(param.shape)}"
                                 + (" (a head trained for another number of labels)" if name.startswith("head.") else ""))
            param.copy_(tensors[source].float())
    model.folder = folder  # where the tokenizer and the weights came from
    return model


def save_classifier(model: Classifier, history, folder: str, label_names=None, max_length=None, inputs=None):
    """How the fine-tune, LoRA and BitFit are kept (methods.py): LoRA's updates merged into the
    weights they adapt, then the classifier as a transformers checkpoint (save_pretrained)."""
    import trainable
    save_pretrained(trainable.merge_lora(model), folder, label_names, inputs)


def save_pretrained(model: Classifier, folder: str, label_names=None, inputs=None):
    """Write the classifier as a transformers checkpoint that AutoModelForSequenceClassification
    loads to the same logits: the source's config.json with this head's labels, its tensors under
    transformers' names, the source's tokenizer files and what the run read (write_inputs). Written
    beside, then renamed into place."""
    family = families.get(model.config.model_type)
    if (model.pooling != "first" and not family.classifier_pools_mean) or model.normalize:
        raise ValueError("--save writes a *ForSequenceClassification checkpoint, which reads the first token: "
                         "this run pools by the mean (SetFit, the probe); save a fine-tune, LoRA or BitFit")
    if os.path.exists(folder):
        raise ValueError(f"--save {folder} exists: name a new folder")
    with open(os.path.join(model.folder, "config.json")) as f:
        config = json.load(f)
    num_labels = model.config.num_labels
    names = label_names or [str(i) for i in range(num_labels)]  # integer classes: predict.py writes the integer
    if family.classifier_pools_mean:
        config["classifier_pooling"] = "mean" if model.pooling == "mean" else "cls"
    config.update(architectures=[family.architecture],
                  num_labels=num_labels, id2label=dict(enumerate(names)), label2id={n: i for i, n in enumerate(names)},
                  problem_type="regression" if num_labels == 1 else "single_label_classification")
    tensors = {}
    for name, param in model.named_parameters():
        theirs = hf_name(name, model.config.model_type)
        if not theirs.startswith(family.top_level):  # the encoder (and BERT's pooler) sit under the model's prefix
            theirs = family.prefix + theirs
        tensors[theirs] = param.detach().float().cpu().contiguous()
    from safetensors.torch import save_file

    def fill(tmp):
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        save_file(tensors, os.path.join(tmp, "model.safetensors"), metadata={"format": "pt"})
        copy_tokenizer(model.folder, tmp)
        write_inputs(tmp, inputs)
    write_folder_atomically(folder, fill)


# ----------------------------------------------------------------------------------------------
# What a saved model read, beside it (either kind)

INPUTS_FILE = "inputs.json"  # what the run read its texts as, and its precision: predict.py's defaults and its checks


def inputs_of(task, precision):
    """What a run on `task` read (data.Task), and how it computed: {pairs: whether sentence pairs,
    columns: your own files' [texts' column, second text's or None], None for GLUE's, precision:
    the run's, which predict.py scores in where it can (machine.scored_as_trained)}."""
    return dict(pairs=task.train_pairs is not None, columns=task.columns and list(task.columns), precision=precision)


def write_inputs(folder: str, inputs):
    if inputs is not None:
        with open(os.path.join(folder, INPUTS_FILE), "w") as f:
            json.dump(inputs, f, indent=2)


def read_inputs(folder: str):
    """A saved model's inputs_of, or None where it was saved without them (before they were kept)."""
    try:
        with open(os.path.join(folder, INPUTS_FILE)) as f:
            return json.load(f)
    except OSError:
        return None


# ----------------------------------------------------------------------------------------------
# SetFit and the probe: a sentence embedder and a fitted head

HEAD_FILE = "head.json"  # the fitted head, beside the sentence-transformers body


def save_embedder(model: Classifier, history, folder: str, label_names=None, max_length=None, inputs=None):
    """How SetFit and the probe are kept (methods.py): the body as a sentence-transformers model
    (the encoder as transformers' base model, with modules.json, its Pooling and, where the run
    normalised, Normalize: the sentence embedding the run read) and the fitted head in head.json,
    which predict.py reads (and scikit-learn's LogisticRegression or setfit's SetFitModel can
    hold: bench/embedder_save.py). max_length: the run's longest sequence, the body's max_seq_length;
    inputs: what the run read (write_inputs). Written beside, then renamed into place."""
    if os.path.exists(folder):
        raise ValueError(f"--save {folder} exists: name a new folder")
    family = families.get(model.config.model_type)
    with open(os.path.join(model.folder, "config.json")) as f:
        config = json.load(f)
    config["architectures"] = [family.architecture.removesuffix("ForSequenceClassification") + "Model"]
    tensors = {}
    for name, param in model.named_parameters():  # the encoder's alone: the head is the fitted one
        theirs = hf_name(name, model.config.model_type)
        if not name.startswith("head.") and not theirs.startswith(family.top_level):
            tensors[theirs] = param.detach().float().cpu().contiguous()
    weight, bias = history.fitted_head  # (H, C), (C,)
    names = label_names or [str(i) for i in range(weight.shape[1])]
    head = dict(kind="ridge" if model.config.num_labels == 1 else "softmax", label_names=names,
                weight=weight.T.tolist(), bias=bias.tolist())  # weight: (C, H), as scikit-learn's coef_
    pooling = {"pooling_mode_cls_token": model.pooling == "first", "pooling_mode_mean_tokens": model.pooling == "mean",
               "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
               "word_embedding_dimension": model.config.hidden_size}
    modules = [dict(idx=0, name="0", path="", type="sentence_transformers.models.Transformer"),
               dict(idx=1, name="1", path="1_Pooling", type="sentence_transformers.models.Pooling")]
    if model.normalize:
        modules.append(dict(idx=2, name="2", path="2_Normalize", type="sentence_transformers.models.Normalize"))
    from safetensors.torch import save_file

    def fill(tmp):
        for name, content in (("config.json", config), ("modules.json", modules), (HEAD_FILE, head),
                              ("sentence_bert_config.json", dict(max_seq_length=max_length or model.config.max_length,
                                                                 do_lower_case=False)),
                              (os.path.join("1_Pooling", "config.json"), pooling)):
            os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w") as f:
                json.dump(content, f, indent=2)
        if model.normalize:
            os.makedirs(os.path.join(tmp, "2_Normalize"))
        save_file(tensors, os.path.join(tmp, "model.safetensors"), metadata={"format": "pt"})
        copy_tokenizer(model.folder, tmp)
        write_inputs(tmp, inputs)
    write_folder_atomically(folder, fill)


def read_head(folder: str):
    """A saved embedder's fitted head: (weight (H, C), bias (C,) float64, label names), or None
    where the folder holds a classifier."""
    try:
        with open(os.path.join(folder, HEAD_FILE)) as f:
            head = json.load(f)
    except OSError:
        return None
    return (torch.tensor(head["weight"], dtype=torch.float64).T, torch.tensor(head["bias"], dtype=torch.float64),
            head["label_names"])


def copy_tokenizer(source: str, folder: str):
    """The source checkpoint's tokenizer files into a folder being saved: what AutoTokenizer reads."""
    for name in TOKENIZER_FILES:
        if os.path.exists(os.path.join(source, name)):
            shutil.copy(os.path.join(source, name), folder)


def load_tokenizer(folder: str):
    """AutoTokenizer's tokenizer of the folder, loaded once per process and version of its files (50 ms
    a load on 2 cores, every run of a pool's worker again otherwise). Shared: no caller changes it."""
    stamps = []  # each tokenizer file's version: a changed file is loaded anew
    for name in TOKENIZER_FILES:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            stat = os.stat(path)
            stamps.append((name, stat.st_size, stat.st_mtime_ns))
    return tokenizer_of(os.path.realpath(folder) if os.path.isdir(folder) else folder, tuple(stamps))


@functools.lru_cache(maxsize=8)
def tokenizer_of(folder, stamps):
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(folder)


NO_SENTENCE_EMBEDDING = dict(pooling="first", normalize=False, max_length=None)  # a folder without its files


def sentence_embedding_spec(folder: str) -> dict:
    """How the checkpoint itself turns token states into a sentence embedding, from its
    sentence-transformers files (modules.json, the Pooling module's config.json,
    sentence_bert_config.json): {pooling: "mean" | "first" | another of its modes, normalize,
    max_length}. A checkpoint without them is read as the studies' classifiers read it: the first
    token, not normalised."""
    spec = dict(NO_SENTENCE_EMBEDDING)
    try:
        with open(os.path.join(folder, "modules.json")) as f:
            modules = json.load(f)
    except (OSError, ValueError):
        return spec
    for module in modules:
        kind = module.get("type", "").rsplit(".", 1)[-1]
        if kind == "Pooling":
            with open(os.path.join(folder, module.get("path", ""), "config.json")) as f:
                pooling = json.load(f)
            modes = [mode.removeprefix("pooling_mode_") for mode, on in pooling.items() if mode.startswith("pooling_mode_") and on]
            spec["pooling"] = {"mean_tokens": "mean", "cls_token": "first"}.get("+".join(modes), "+".join(modes) or "nothing")
        elif kind == "Normalize":
            spec["normalize"] = True
    try:
        with open(os.path.join(folder, "sentence_bert_config.json")) as f:
            spec["max_length"] = json.load(f).get("max_seq_length")
    except (OSError, ValueError):
        pass
    return spec
