"""
The study's own recipe on the Hugging Face Trainer, for comparison with freeze_study.py on the
same checkpoint, data and subset (needs `pip install accelerate`, which the Trainer requires):

    python -m bench.trainer_recipe --model minilm --glue-dir ../shared/glue --freeze 4 --size 50 --seed 1

AutoModelForSequenceClassification, requires_grad freezing, evaluation and a checkpoint save
every half epoch, load_best_model_at_end, fp16 on CUDA. --precision bf16 on a CPU: the Trainer's
bf16=True, use_cpu=True (CPU autocast to bfloat16). Writes a JSON with the best dev accuracy.
"""

import argparse
import json
import math
import tempfile
import time

import torch

import atomic
import hub  # only to resolve 'minilm' and hub names to a folder
import data  # the same subsets and examples as ours
import metrics  # the same accuracy and MCC


def cell_parser():
    """The options that name one cell of the study on a peer library: checkpoint, task, depth,
    subset, seed, where the subsets and the result go."""
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir")
    p.add_argument("--freeze", type=int, default=0)
    p.add_argument("--size", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--splits-dir", default="splits")
    p.add_argument("--out", required=True)
    return p


def main():
    p = cell_parser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--precision", choices=["fp16", "bf16", "fp32"],
                   help="default: fp16 on CUDA (the study's), fp32 on the CPU")
    args = p.parse_args()

    import transformers
    began = time.perf_counter()
    task, indices, folder = load_cell(args)
    transformers.set_seed(args.seed)
    hf = load_classifier(folder, task)
    if args.freeze != 0:  # the study's freezing: requires_grad only; modules stay in training mode
        hf.base_model.embeddings.requires_grad_(False)
        hf.base_model.encoder.layer[:max(args.freeze, 0)].requires_grad_(False)
    result = train_on_trainer(hf, task, indices, folder, args, learning_rate=5e-5, began=began)
    atomic.write_atomically(args.out, lambda f: f.write(json.dumps(result, indent=1).encode()))
    print(f"trainer recipe: best dev accuracy {result['best_accuracy']:.4f} at step {result['best_step']} "
          f"| {result['seconds']['total']:.1f}s")


def load_cell(args):
    """The task, the cell's subset (the same indices as ours) and the checkpoint's folder."""
    task = data.load_glue(args.dataset, args.glue_dir)
    return task, data.load_subset(task, args.size, args.splits_dir), hub.checkpoint_folder(args.model)


def load_classifier(folder, task):
    import transformers
    # float32 master weights whatever the checkpoint file stores (fp16=True needs them)
    return transformers.AutoModelForSequenceClassification.from_pretrained(folder, num_labels=task.num_labels,
                                                                           dtype=torch.float32)


def train_on_trainer(hf, task, indices, folder, args, learning_rate, began, save=True):
    """The blog's recipe on the Trainer for a model whose trainable parameters are already chosen:
    10 epochs of batch 16, warmup one epoch, an evaluation every half epoch (with a checkpoint
    save and load_best_model_at_end unless save=False). Returns the result record."""
    import transformers
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)

    def dataset(texts, labels):  # what datasets' map(tokenizer) gives, as a list the Trainer indexes
        encoded = tokenizer(texts, truncation=True)
        return [{**{key: values[i] for key, values in encoded.items()}, "label": int(label)}
                for i, label in enumerate(labels)]

    train = dataset([task.train_texts[i] for i in indices], task.train_labels[indices])
    dev = dataset(task.dev_texts, task.dev_labels)

    def dev_scores(prediction):  # ours, so both ways score alike
        return metrics.scores(prediction.label_ids, prediction.predictions.argmax(-1), task.num_labels)

    half_epoch = max(1, math.ceil(args.size / 32))
    precision = args.precision or ("fp16" if torch.cuda.is_available() else "fp32")
    with tempfile.TemporaryDirectory() as output_dir:
        training_args = transformers.TrainingArguments(
            output_dir=output_dir, num_train_epochs=args.epochs, learning_rate=learning_rate,
            per_device_train_batch_size=16, weight_decay=0.0,
            warmup_steps=math.ceil(args.size / 16), eval_strategy="steps", eval_steps=half_epoch,
            save_strategy="steps" if save else "no", save_steps=half_epoch, load_best_model_at_end=save,
            metric_for_best_model="accuracy", fp16=precision == "fp16", bf16=precision == "bf16",
            use_cpu=not torch.cuda.is_available(), seed=args.seed,
            report_to=[], disable_tqdm=True, logging_steps=half_epoch)
        trainer = transformers.Trainer(model=hf, args=training_args, train_dataset=train,
                                       eval_dataset=dev, processing_class=tokenizer,
                                       compute_metrics=dev_scores)
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        trainer.train()
        peak_mb = torch.cuda.max_memory_allocated() / 2**20 if torch.cuda.is_available() else None
    curve = [dict(step=e["step"], accuracy=e["eval_accuracy"], mcc=e["eval_mcc"])
             for e in trainer.state.log_history if "eval_accuracy" in e]
    # today's Trainer adds an evaluation at the last step when it is not a multiple of eval_steps
    # (n = 100, 200, 1000); the study's Trainer (v4) did not, so that point is not in the figure
    study_curve = [point for point in curve if point["step"] % half_epoch == 0]
    best = max(study_curve, key=lambda point: point["accuracy"])
    return dict(config={**vars(args), "precision": precision, "lr": learning_rate,
                        "eval_batch_size": training_args.per_device_eval_batch_size},
                best_accuracy=best["accuracy"], mcc_at_best=best["mcc"],
                best_mcc=max(point["mcc"] for point in study_curve), best_step=best["step"], curve=curve,
                trainable_parameters=sum(p.numel() for p in hf.parameters() if p.requires_grad),
                seconds=dict(total=round(time.perf_counter() - began, 3),
                             train=next(e["train_runtime"] for e in trainer.state.log_history
                                        if "train_runtime" in e),  # evaluations and saves included
                             eval=round(sum(e["eval_runtime"] for e in trainer.state.log_history
                                            if "eval_runtime" in e), 3)),
                peak_memory_mb=peak_mb and round(peak_mb, 1),
                versions=dict(torch=torch.__version__, transformers=transformers.__version__))


if __name__ == "__main__":
    main()
