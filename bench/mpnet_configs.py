"""
model.py's MPNet against transformers' MPNetForSequenceClassification on random configurations the
tests do not use (sizes, heads, depths, tables of 32 to 96 buckets, sequences past the buckets'
128-token reach), padded and padding-free: the largest logit difference per configuration.

    python -m bench.mpnet_configs --configs 20
"""

import argparse
import tempfile

import torch
import transformers

import checkpoint


def one_config(rng):
    heads = int(rng.choice([2, 3, 4, 6, 8]))
    config = transformers.MPNetConfig(
        vocab_size=int(rng.integers(50, 400)), hidden_size=heads * int(rng.choice([4, 8, 16])),
        num_hidden_layers=int(rng.integers(1, 7)), num_attention_heads=heads,
        intermediate_size=int(rng.integers(16, 200)), max_position_embeddings=320, pad_token_id=1,
        relative_attention_num_buckets=int(rng.choice([32, 48, 64, 96])), num_labels=int(rng.integers(1, 5)),
        attn_implementation="eager")
    lengths = [int(n) for n in rng.integers(1, 300, size=int(rng.integers(1, 7)))]
    return config, lengths


def main():
    import numpy as np
    p = argparse.ArgumentParser()
    p.add_argument("--configs", type=int, default=20)
    p.add_argument("--seed", type=int, default=2026)
    args = p.parse_args()
    transformers.utils.logging.disable_progress_bar()  # save_pretrained's bar, once per configuration
    rng, worst = np.random.default_rng(args.seed), 0.0
    for i in range(args.configs):
        config, lengths = one_config(rng)
        torch.manual_seed(i)
        hf = transformers.MPNetForSequenceClassification(config).eval()
        with torch.no_grad():
            hf.mpnet.encoder.relative_attention_bias.weight.normal_(0, 1.0)
        with tempfile.TemporaryDirectory() as folder:
            hf.save_pretrained(folder)
            ours = checkpoint.from_pretrained(folder, num_labels=config.num_labels).eval()
        sentences = [torch.randint(3, config.vocab_size, (n,)) for n in lengths]
        ids = torch.nn.utils.rnn.pad_sequence(sentences, batch_first=True, padding_value=1)
        mask = (torch.arange(ids.shape[1])[None] < torch.tensor(lengths)[:, None]).long()
        with torch.no_grad():
            theirs = hf(input_ids=ids, attention_mask=mask).logits
            diff = max((ours(sentences, skip_padding=skip) - theirs).abs().max().item() for skip in (True, False))
        worst = max(worst, diff)
        print(f"config {i:2d}: hidden {config.hidden_size:3d}, {config.num_attention_heads} heads, "
              f"{config.num_hidden_layers} layers, {config.relative_attention_num_buckets:2d} buckets, "
              f"{config.num_labels} labels, lengths {lengths}: largest logit difference {diff:.2e}")
    print(f"{args.configs} configurations: largest logit difference {worst:.2e} (the tests' bound: 1e-5)")


if __name__ == "__main__":
    main()
