"""
model.py against transformers' *ForSequenceClassification of every family, on random configurations
the tests do not use (sizes, heads, depths, labels; ModernBERT's windows, global layers, biases,
rotary bases and pooling; DeBERTa's buckets, position terms and absolute positions; ELECTRA's
embedding widths), padded and padding-free: the largest logit
difference per family. MPNet's buckets have their own script (bench/mpnet_configs.py).

    python -m bench.family_configs --configs 10
"""

import argparse
import tempfile

import numpy as np
import torch
import transformers

import checkpoint
from parts import families


def common(rng):
    heads = int(rng.choice([2, 3, 4, 6, 8]))
    return dict(vocab_size=int(rng.integers(50, 400)), hidden_size=heads * int(rng.choice([4, 8, 16])),
                num_hidden_layers=int(rng.integers(1, 7)), num_attention_heads=heads,
                intermediate_size=int(rng.integers(16, 200)), num_labels=int(rng.integers(1, 5)),
                attn_implementation="eager")


def one_config(family, rng):
    """A random transformers config of the family, and the pad id its batches use."""
    shape = common(rng)
    if family == "bert":
        return transformers.BertConfig(**shape, max_position_embeddings=320), 0
    if family in ("roberta", "xlm-roberta"):
        kind = transformers.RobertaConfig if family == "roberta" else transformers.XLMRobertaConfig
        return kind(**shape, max_position_embeddings=322, pad_token_id=1, type_vocab_size=1), 1
    if family == "electra":
        return transformers.ElectraConfig(**shape, max_position_embeddings=320,
                                          embedding_size=int(rng.choice([8, 16, shape["hidden_size"]]))), 0
    if family == "distilbert":
        return transformers.DistilBertConfig(
            vocab_size=shape["vocab_size"], dim=shape["hidden_size"], n_layers=shape["num_hidden_layers"],
            n_heads=shape["num_attention_heads"], hidden_dim=shape["intermediate_size"], max_position_embeddings=320,
            num_labels=shape["num_labels"], attn_implementation="eager"), 0
    if family == "deberta-v2":
        terms = [["c2p", "p2c"], ["p2c", "c2p"], ["c2p"], ["p2c"]][int(rng.integers(0, 4))]
        absolute = bool(rng.integers(0, 2))
        return transformers.DebertaV2Config(
            **shape, max_position_embeddings=320, relative_attention=True, share_att_key=True, pos_att_type=terms,
            position_buckets=int(rng.choice([-1, 8, 32, 256])), max_relative_positions=int(rng.choice([-1, 64])),
            norm_rel_ebd=str(rng.choice(["layer_norm", "none"])), position_biased_input=absolute,
            type_vocab_size=int(rng.choice([0, 2])), layer_norm_eps=1e-7), 0
    bias = bool(rng.integers(0, 2))
    return transformers.ModernBertConfig(
        **shape, max_position_embeddings=320, pad_token_id=0, bos_token_id=1, cls_token_id=1, eos_token_id=2,
        sep_token_id=2, local_attention=2 * int(rng.integers(2, 40)), global_attn_every_n_layers=int(rng.integers(1, 5)),
        attention_bias=bias, mlp_bias=bias, norm_bias=bool(rng.integers(0, 2)), classifier_bias=bool(rng.integers(0, 2)),
        classifier_pooling=str(rng.choice(["cls", "mean"])), global_rope_theta=float(rng.choice([1e4, 16e4, 1e6])),
        local_rope_theta=float(rng.choice([1e3, 1e4]))), 0


def largest_difference(family, config, pad, lengths, seed):
    torch.manual_seed(seed)
    hf = transformers.AutoModelForSequenceClassification.from_config(config).eval()
    with torch.no_grad():  # norms and biases away from their fresh 1 and 0, so they matter
        for name, param in hf.named_parameters():
            if "norm" in name.lower() or name.endswith("bias"):
                param.normal_(1.0 if name.endswith("weight") else 0.0, 0.2)
            elif "rel_embeddings" in name:  # DeBERTa's fresh table is near zero
                param.normal_(0.0, 1.0)
            else:  # weights at 1 / sqrt(width), not their fresh 0.02: the logits spread, and a difference shows
                param.normal_(0.0, param.shape[-1] ** -0.5)
    with tempfile.TemporaryDirectory() as folder:
        hf.save_pretrained(folder)
        ours = checkpoint.from_pretrained(folder, num_labels=config.num_labels).eval()
    sentences = [torch.randint(3, config.vocab_size, (n,)) for n in lengths]
    ids = torch.nn.utils.rnn.pad_sequence(sentences, batch_first=True, padding_value=pad)
    mask = (torch.arange(ids.shape[1])[None] < torch.tensor(lengths)[:, None]).long()
    with torch.no_grad():
        theirs = hf(input_ids=ids, attention_mask=mask).logits
        difference = max((ours(sentences, skip_padding=skip) - theirs).abs().max().item() for skip in (True, False))
    return difference, theirs.abs().max().item()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--configs", type=int, default=10, help="per family")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--families", nargs="+", default=[f for f in families.FAMILIES if f != "mpnet"])
    args = p.parse_args()
    transformers.utils.logging.disable_progress_bar()
    transformers.utils.logging.set_verbosity_error()
    rng, worst = np.random.default_rng(args.seed), {}
    for family in args.families:
        for i in range(args.configs):
            config, pad = one_config(family, rng)
            lengths = [int(n) for n in rng.integers(1, 300, size=int(rng.integers(1, 7)))]
            diff, largest = largest_difference(family, config, pad, lengths, i)
            worst[family] = max(worst.get(family, 0.0), diff)
            extra = (f", window {config.local_attention}, global every {config.global_attn_every_n_layers}, "
                     f"pooling {config.classifier_pooling}" if family == "modernbert" else
                     f", buckets {config.position_buckets}, terms {'|'.join(config.pos_att_type)}, absolute positions "
                     f"{config.position_biased_input}" if family == "deberta-v2" else "")
            print(f"{family} config {i}: hidden {config.hidden_size}, {config.num_attention_heads} heads, "
                  f"{config.num_hidden_layers} layers, {config.num_labels} labels{extra}, lengths {lengths}: "
                  f"largest logit {largest:.2f}, largest difference {diff:.2e}", flush=True)
    for family, diff in worst.items():
        print(f"{family}: {args.configs} configurations, largest logit difference {diff:.2e} (the tests' bound: 1e-5)")


if __name__ == "__main__":
    main()
