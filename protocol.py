"""
The two protocols a run can follow, as numbers: how long it trains, how its learning rate moves,
how long a sentence may be, which evaluation is its score; and the depths a grid freezes.

blog: the blog study's protocol, the Trainer's defaults it ran with (../shared/reference/README.md):
  10 epochs, warmup over the first, the best of the evaluations every half epoch.
lee: Lee, Tang & Lin 2019 as the paper states it: batch 16, AdamW without weight decay, 3 epochs
  for BERT-family models and 10 for RoBERTa, the learning rate picked by a line search over
  1e-5 ... 5e-5 on the full model (give the pick with --lr). What the paper does not state comes
  from transformers' run_glue.py of its time (2019): no warmup, linear decay to 0, sequences of at
  most 128 tokens, the dev score after the last step (not the best one).
"""

import math

from loop import TrainConfig


def config(protocol, model_type, freeze, epochs, batch_size, lr, seed, precision, metric):
    """The run's TrainConfig and longest sequence (inf: the model's own limit). epochs: None for
    the protocol's own."""
    lee = protocol == "lee"
    epochs = epochs or (10 if not lee or model_type == "roberta" else 3)
    train_config = TrainConfig(freeze=freeze, epochs=epochs, batch_size=batch_size, lr=lr, seed=seed,
                               precision=precision, warmup_epochs=0 if lee else 1, eval_at_end=lee, metric=metric,
                               selection="last" if lee else "best")
    return train_config, 128 if lee else math.inf


def freeze_grid(num_layers, protocol="blog"):
    """The blog study's depths: -1 0 2 4 8 10 12 for a 12-layer model, else every depth -1..L.
    Lee et al.'s: 0, then L/2 ... L (the upper half of the model is where freezing starts to cost)."""
    if protocol == "lee":
        return [0] + list(range(num_layers // 2, num_layers + 1))
    return [-1, 0, 2, 4, 8, 10, 12] if num_layers == 12 else list(range(-1, num_layers + 1))
