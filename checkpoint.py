"""
A checkpoint in and out of model.py's Classifier: read config.json, and copy its tensors in by name
(a head the checkpoint lacks starts fresh, as transformers initialises it); and save a trained
classifier as a transformers checkpoint, the same names the other way (its family's, families.py).
Where a checkpoint's folder comes from ('minilm', 'mpnet', a local folder, the hub) is hub.py's.
"""

import json
import os
import re
import shutil

import torch

import families
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
    """A short hash of the weights file's bytes: names the frozen-prefix cache of this checkpoint."""
    return file_sha256(weights_file(folder))[:16]


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


def hf_name(name: str, model_type: str) -> str:
    """Our parameter name -> the checkpoint's (after read_state_dict's normalisation): its family's."""
    return families.get(model_type).hf_name(name)


def from_pretrained(name_or_path: str, num_labels: int = 2) -> Classifier:
    """
    Build our Classifier from a checkpoint and copy its tensors in by name. Every encoder tensor
    must be there with the right shape. The head's tensors are taken when the checkpoint has
    them (a *ForSequenceClassification save, or BERT's pretrained pooler); otherwise the head
    starts fresh the way transformers initialises it: normal(0, initializer_range), zero bias.
    """
    folder = checkpoint_folder(name_or_path)
    weights_file(folder)  # a folder without weights fails here, before anything is read
    config = families.read_config(folder, num_labels)
    tensors = read_state_dict(folder)
    model = Classifier(config)
    with torch.no_grad():
        for name, param in model.named_parameters():
            source = hf_name(name, config.model_type)
            if source not in tensors:
                if not name.startswith("head."):
                    raise ValueError(f"checkpoint {name_or_path!r} lacks tensor {source!r}")
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


def save_pretrained(model: Classifier, folder: str, label_names=None):
    """Write the classifier as a transformers checkpoint that AutoModelForSequenceClassification
    loads to the same logits: the source's config.json with this head's labels, its tensors under
    transformers' names, and the source's tokenizer files. Written beside, then renamed into place."""
    family = families.get(model.config.model_type)
    if (model.pooling != "first" and not family.classifier_pools_mean) or model.normalize:
        raise ValueError("--save writes a *ForSequenceClassification checkpoint, which reads the first token: "
                         "this run pools by the mean (SetFit, the probe); save a fine-tune, LoRA or BitFit")
    if os.path.exists(folder):
        raise ValueError(f"--save {folder} exists: name a new folder")
    with open(os.path.join(model.folder, "config.json")) as f:
        config = json.load(f)
    num_labels = model.config.num_labels
    names = label_names or [f"LABEL_{i}" for i in range(num_labels)]
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
        for name in TOKENIZER_FILES:
            if os.path.exists(os.path.join(model.folder, name)):
                shutil.copy(os.path.join(model.folder, name), tmp)
    write_folder_atomically(folder, fill)


def load_tokenizer(folder: str):
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
