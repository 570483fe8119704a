"""
The two protocols a run can follow, as numbers (TrainConfig): how long it trains, how its learning
rate moves, how long a sentence may be, which evaluation is its score; and the depths a grid
freezes, which make reads without importing torch:

    python -m protocol depths minilm [lee]

blog: the blog study's protocol, the Trainer's defaults it ran with (../shared/reference/README.md):
  10 epochs, warmup over the first, the best of the evaluations every half epoch.
lee: Lee, Tang & Lin 2019 as the paper states it: batch 16, AdamW without weight decay, 3 epochs
  for BERT-family models and 10 for RoBERTa, the learning rate picked by a line search over
  1e-5 ... 5e-5 on the full model (give the pick with --lr); another family takes BERT's 3 epochs
  unless parts/families.py says otherwise (XLM-RoBERTa: RoBERTa's 10). What the paper does not state comes
  from transformers' run_glue.py of its time (2019): no warmup, linear decay to 0, sequences of at
  most 128 tokens, the dev score after the last step (not the best one).
"""

import argparse
import math
import sys
from dataclasses import dataclass

from parts import families
import hub


@dataclass
class TrainConfig:
    """How a run trains: the protocol's numbers (the Hugging Face Trainer's defaults the study ran
    with; protocol.py), the method's rate, and SetFit's pairs."""
    epochs: int = 10
    batch_size: int = 16
    lr: float | None = 5e-5  # None: a fitted method (the probe) has no rate
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    warmup_epochs: int = 1  # linear warmup over this many epochs (the study: one; Lee et al.: none)
    eval_at_end: bool = False  # also evaluate after the last step when it is not on the interval
    evaluations: str = "every"  # every half epoch (the study's), or "last": only the last of them (make advise)
    metric: str = "accuracy"  # the task's primary metric: it picks the run's evaluation
    selection: str = "best"  # the run's evaluation: its best (the study), or its last (Lee et al.)
    eval_batch_size: int = 64  # evaluation only: it changes speed, not results
    seed: int = 1
    precision: str = "fp32"  # fp32, bf16 (autocast), or on CUDA fp16 (autocast + gradient scaler)
    num_iterations: int | None = None  # SetFit: pairs per example of each kind (None: setfit's oversampling)


def config(protocol, model_type, epochs, batch_size, lr, seed, precision, metric, num_iterations=None):
    """The run's TrainConfig and longest sequence (inf: the model's own limit). epochs, batch_size:
    None for the protocol's own (batch 16 in both)."""
    lee = protocol == "lee"
    epochs = epochs or (families.get(model_type).lee_epochs if lee else 10)
    train_config = TrainConfig(epochs=epochs, batch_size=batch_size or 16, lr=lr, seed=seed, num_iterations=num_iterations,
                               precision=precision, warmup_epochs=0 if lee else 1, eval_at_end=lee, metric=metric,
                               selection="last" if lee else "best")
    return train_config, 128 if lee else math.inf


def freeze_grid(num_layers, protocol="blog"):
    """The blog study's depths: -1 0 2 4 8 10 12 for a 12-layer model, else every depth -1..L.
    Lee et al.'s: 0, then L/2 ... L (the upper half of the model is where freezing starts to cost)."""
    if protocol == "lee":
        return [0] + list(range(num_layers // 2, num_layers + 1))
    return [-1, 0, 2, 4, 8, 10, 12] if num_layers == 12 else list(range(-1, num_layers + 1))


def depths_of(model, protocol="blog"):
    """The protocol's depths for a checkpoint (as freeze_study.py --model takes it), read from its
    config; ValueError where there is no such checkpoint."""
    return freeze_grid(families.read_config(hub.checkpoint_folder(model)).num_layers, protocol)


def main(argv=None):
    p = argparse.ArgumentParser(description="The protocol's depths for a model, for make's FREEZE.")
    p.add_argument("command", choices=["depths"])
    p.add_argument("model", help="as freeze_study.py --model takes it")
    p.add_argument("protocol", nargs="?", default="blog", choices=["blog", "lee"])
    args = p.parse_args(argv)
    try:
        depths = depths_of(args.model, args.protocol)
    except ValueError as e:
        print(f"protocol.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    print(" ".join(map(str, depths)))


if __name__ == "__main__":
    main()
