import json
import os
import shutil
import sys

import pytest

# tests import the top-level modules (model, data, loop, ...) the way freeze_study.py does
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
GLUE_DIR = os.environ.get("GLUE_DIR") or os.path.join(ROOT, "..", "shared", "glue")


def cuda_available():
    import torch
    return torch.cuda.is_available()


# tests that take `device` run on the CPU, and again on CUDA where there is a GPU (bench/gpu.sh
# runs the suite on one; CI has none, so there they are skipped)
@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not cuda_available(), reason="needs a CUDA GPU (bench/gpu.sh runs the suite on one)"))])
def device(request):
    import torch
    return torch.device(request.param)


@pytest.fixture(scope="session")
def glue_dir():
    assert os.path.isdir(GLUE_DIR), f"the tests read the real GLUE files in {GLUE_DIR} (or $GLUE_DIR)"
    return GLUE_DIR


def save_tiny_bert(folder, dropout=0.1, layers=3, num_labels=2):
    """A random 32-wide BertForSequenceClassification with MiniLM's real tokenizer: a checkpoint
    that trains in seconds on the real data."""
    import torch
    import transformers
    import checkpoint
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=layers,
                                     num_attention_heads=4, intermediate_size=64,
                                     hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
                                     num_labels=num_labels)
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    minilm = checkpoint.checkpoint_folder("minilm")
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(os.path.join(minilm, name), folder)
    return str(folder)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_bert_no_dropout(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert-no-dropout"), dropout=0.0)


@pytest.fixture(scope="session")
def tiny_bert_regression(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert-regression"), num_labels=1)


def write_result(folder, freeze, size, seed, accuracy, mcc=0.0, task="sst2", model="minilm", num_layers=6,
                 precision="fp32"):
    """A run's result JSON as freeze_study.py names it, with what the reports read."""
    result = dict(config=dict(freeze=freeze, size=size, seed=seed, task=task, model=model, num_layers=num_layers,
                              precision=precision, device="cpu"),
                  best_accuracy=accuracy, best_mcc=mcc, majority_accuracy=0.509)
    (folder / f"freeze{freeze}_size{size}_seed{seed}.json").write_text(json.dumps(result))
