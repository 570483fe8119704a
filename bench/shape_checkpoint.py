"""
A checkpoint folder of roberta-base's shape with random weights, for timing and memory where
roberta-base itself cannot be downloaded (the GPU machine reaches no hub):

    python -m bench.shape_checkpoint --out /tmp/roberta-base-shape

12 layers, 768 wide, 12 heads, 3072 in the feed-forward block, roberta-base's 50265-row
vocabulary and 514 positions: every matrix product, and so every step's time and memory, is
roberta-base's. The tokenizer is MiniLM's (BERT's WordPiece; ids below 30522, padding 0, which
the config's pad_token_id follows), so sentences split about as roberta-base's BPE splits them.
Its accuracies mean nothing: the weights are random.
"""

import argparse
import os
import shutil

import torch
import transformers

import hub  # only to find MiniLM's tokenizer files


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--layers", type=int, default=12)
    args = p.parse_args()
    torch.manual_seed(0)
    config = transformers.RobertaConfig(vocab_size=50265, hidden_size=768, num_hidden_layers=args.layers,
                                        num_attention_heads=12, intermediate_size=3072,
                                        max_position_embeddings=514, type_vocab_size=1,
                                        pad_token_id=0, bos_token_id=101, eos_token_id=102)
    transformers.RobertaModel(config, add_pooling_layer=False).save_pretrained(args.out)
    minilm = hub.checkpoint_folder("minilm")
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(os.path.join(minilm, name), args.out)
    print(f"{args.out}: roberta-base's shape, random weights, MiniLM's tokenizer")


if __name__ == "__main__":
    main()
