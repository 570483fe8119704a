"""trainable.py: LoRA computes what transformers' model computes with the merged weight W + (alpha / r) B A
(logits, loss, and the gradients of A, B and the head), BERT, RoBERTa, MPNet, DistilBERT and ELECTRA, through the cache as without
it; BitFit trains exactly the parameters it names; bad LoRA flags are one line."""

import pytest
import torch

import cache
import checkpoint
from parts import families
import freeze_study
import loop
import trainable
from conftest import run, tiny_hf_model

def hf_linear(hf, family, i, name):
    """transformers' module for our layer i's projection `name`, by the family's declared names."""
    return hf.get_submodule(families.get(family).prefix
                            + checkpoint.hf_name(f"layers.{i}.{name}.weight", family).removesuffix(".weight"))


def lora_and_merged(family, tmp_path, k=0, targets=None):
    """Our classifier with LoRA (rank 4, alpha 8, a random non-zero B; targets: the family's) and
    transformers' with merged weights."""
    targets = targets or families.get(family).lora_targets
    hf, folder = tiny_hf_model(family, tmp_path, num_labels=2)
    ours = checkpoint.from_pretrained(folder, num_labels=2)
    trainable.freeze(ours, k)
    trainable.add_lora(ours, k, rank=4, alpha=8.0, dropout=0.0, targets=list(targets))
    torch.manual_seed(1)
    with torch.no_grad():
        for i, layer in enumerate(ours.layers):
            for name in targets if i >= max(k, 0) else ():
                getattr(layer, name).lora_B.normal_(std=0.05)
                hf_linear(hf, family, i, name).weight.copy_(getattr(layer, name).merged_weight())
    return ours.eval(), hf


def batch(family, pairs=False):
    g = torch.Generator().manual_seed(2)
    first = 1 if family == "bert" else 0
    ids = [torch.cat([torch.tensor([first + 2]), torch.randint(3, 99, (n,), generator=g)]) for n in (7, 3, 10)]
    if pairs and family == "bert":
        ids = [torch.stack([x, (torch.arange(len(x)) >= len(x) // 2).long()], 1) for x in ids]
    return ids


def padded(ids, pad):
    tokens = [x if x.dim() == 1 else x[:, 0] for x in ids]
    grid = torch.nn.utils.rnn.pad_sequence(tokens, batch_first=True, padding_value=pad)
    mask = (torch.arange(grid.shape[1])[None] < torch.tensor([len(x) for x in tokens])[:, None]).long()
    extra = {}
    if ids[0].dim() == 2:
        extra["token_type_ids"] = torch.nn.utils.rnn.pad_sequence([x[:, 1] for x in ids], batch_first=True)
    return dict(input_ids=grid, attention_mask=mask, **extra)


@pytest.mark.parametrize("family, pairs", [("bert", False), ("bert", True), ("roberta", False), ("mpnet", False),
                                           ("distilbert", False), ("electra", False), ("modernbert", False),
                                           ("deberta-v2", False)])
def test_lora_is_the_merged_weight_in_logits_loss_and_gradients(family, pairs, tmp_path):
    ours, hf = lora_and_merged(family, tmp_path)
    ids, labels = batch(family, pairs), torch.tensor([0, 1, 1])
    ours_loss = loop.loss_of(ours(ids), labels)
    out = hf(**padded(ids, ours.config.pad_token_id), labels=labels)
    torch.testing.assert_close(ours(ids), out.logits, atol=1e-5, rtol=1e-5)
    ours_loss.backward()
    out.loss.backward()
    torch.testing.assert_close(ours_loss, out.loss, atol=1e-6, rtol=1e-5)
    targets = families.get(family).lora_targets
    for i, layer in enumerate(ours.layers):
        lora = getattr(layer, targets[0])
        grad_w = hf_linear(hf, family, i, targets[0]).weight.grad  # dL/dW of the merged weight
        torch.testing.assert_close(lora.lora_B.grad, lora.scaling * grad_w @ lora.lora_A.T, atol=1e-6, rtol=1e-4)
        torch.testing.assert_close(lora.lora_A.grad, lora.scaling * lora.lora_B.T @ grad_w, atol=1e-6, rtol=1e-4)
    trained = {name for name, p in ours.named_parameters() if p.requires_grad}
    # the head as peft's task trains it: the checkpoint's `classifier` module (BERT's, DistilBERT's and
    # ModernBERT's output layer; RoBERTa's whole classification head)
    head = {name for name, _ in ours.head.named_parameters(prefix="head")
            if checkpoint.hf_name(name, family).startswith("classifier.")}
    assert "head.out_proj.weight" in head and ("head.dense.weight" in head) == (family in ("roberta", "mpnet", "electra"))
    assert trained == head | {f"layers.{i}.{t}.lora_{m}" for i in range(3) for t in targets for m in "AB"}


@pytest.mark.parametrize("family", ["bert", "roberta", "xlm-roberta", "distilbert", "electra", "modernbert",
                                    "deberta-v2", "mpnet"])  # ModernBERT's fused qkv has no bias
def test_a_merged_lora_saves_as_the_checkpoint_with_its_update_in_the_weights(family, tmp_path):
    import transformers
    ours, hf = lora_and_merged(family, tmp_path)
    ids = batch(family)
    with torch.no_grad():
        before = ours(ids)
        checkpoint.save_pretrained(trainable.merge_lora(ours), str(tmp_path / "saved"))
        after = ours(ids)
        saved = transformers.AutoModelForSequenceClassification.from_pretrained(tmp_path / "saved").eval()
        torch.testing.assert_close(after, before, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(saved(**padded(ids, ours.config.pad_token_id)).logits, before, atol=1e-5, rtol=1e-5)
    assert not any(isinstance(m, trainable.LoRALinear) for m in ours.modules())


def test_lora_above_a_cached_prefix_is_lora_over_the_whole_network(tmp_path):
    ours, _ = lora_and_merged("bert", tmp_path, k=2)
    ids = batch("bert")
    prefix = cache.frozen_prefix(ours, ids, 2, torch.device("cpu"), "fp32")
    with torch.no_grad():
        torch.testing.assert_close(loop.logits_for(ours, prefix, 2, torch.device("cpu")), ours(ids), atol=1e-5, rtol=1e-5)
    assert not any(hasattr(layer.query, "lora_A") for layer in ours.layers[:2]) and hasattr(ours.layers[2].query, "lora_A")


@pytest.mark.parametrize("family, k", [("bert", 0), ("bert", 2), ("roberta", 1), ("mpnet", 0), ("distilbert", 1),
                                      ("electra", 0), ("deberta-v2", 0), ("deberta-v2", 1)])
def test_bitfit_trains_every_bias_above_the_frozen_layers_and_the_classifier(family, k, tmp_path):
    _, folder = tiny_hf_model(family, tmp_path)
    ours = checkpoint.from_pretrained(folder, num_labels=3)
    trainable.freeze(ours, k)
    trainable.bitfit(ours, k)
    trained = {name for name, p in ours.named_parameters() if p.requires_grad}
    biases = {name for name, _ in ours.named_parameters() if name.endswith("bias") and (
        name.startswith("head.") or any(name.startswith(f"layers.{i}.") for i in range(k, 3))
        or (k == 0 and name.startswith("embed.")) or (k <= 0 and name.startswith("relative_norm.")))}  # DeBERTa's shared norm
    head = {"head.out_proj.weight"} | ({"head.dense.weight"} if family not in ("bert", "distilbert", "deberta-v2") else set())
    assert trained == biases | head and "head.dense.bias" in trained  # BERT's pooler bias trains, its weight not


def test_bitfit_refuses_a_family_without_biases(tmp_path):
    _, folder = tiny_hf_model("modernbert", tmp_path)
    with pytest.raises(ValueError, match="bitfit trains biases, and modernbert has none: use --method lora"):
        trainable.bitfit(checkpoint.from_pretrained(folder, num_labels=3), 1)


@pytest.mark.parametrize("argv, message", [
    (["--method", "lora", "--lora-rank", "0"], "--lora-rank 0: the rank of the update is at least 1"),
    (["--method", "lora", "--lora-alpha", "0"], "--lora-alpha 0: the update is scaled by alpha / r, so alpha is above 0"),
    (["--method", "lora", "--lora-dropout", "1"], "--lora-dropout 1: the chance an input of the update is dropped"),
    (["--method", "lora", "--lora-targets", "query", "gate"], "--lora-targets gate: a layer's projections are"),
    (["--lora-rank", "4"], "--lora-rank goes with --method lora, not --method finetune"),
])
def test_bad_lora_flags_are_one_line(tmp_path, tiny_bert, glue_dir, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        freeze_study.main(["--model", tiny_bert, "--glue-dir", glue_dir, "--size", "50", "--epochs", "1", "--quiet",
                           "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / "r.json"), *argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err and not (tmp_path / "r.json").exists()


def test_a_lora_run_records_its_rate_and_trains_a_few_parameters(tmp_path, tiny_bert, glue_dir):
    result = run(tmp_path, tiny_bert, glue_dir, "--method", "lora", "--freeze", "1", "--precision", "fp32",
                 out="freeze1_size50_seed1_lora.json")
    # rank 8 on query and value (32 wide) in layers 2 and 3: 2 x 2 x (8 x 32 + 32 x 8), and the classifier
    assert result["config"]["lr"] == 5e-3 and result["trainable_parameters"] == 2 * 2 * 512 + 33 * 2
    assert result["config"]["cache"] and result["selection"] == "best"
    # AdamW keeps two moments and a step per trained tensor: 2 x 2114 float32 numbers, and 10 steps
    memory = result["training_memory_mb"]
    assert memory["parameters"] == memory["gradients"] == round(2114 * 4 / 2**20, 3)
    assert memory["optimizer"] == round((2 * 2114 + 8 + 2) * 4 / 2**20, 3)
