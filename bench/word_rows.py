"""
What AdamW on the word embedding's used rows saves in a k = 0 training step (loop.AdamW's `rows`;
the same weights bit for bit, tests/test_loop.py):

    python bench/word_rows.py --model minilm --glue-dir ../shared/glue

Batches of 16 drawn at random from the n = 1000 subset (the protocol's shuffle), every layer and
the embeddings trained, in the precision asked. The two optimizers alternate in blocks of
--steps steps, --blocks times, each from the same starting weights, so that the machine's drift
reaches both alike; each block's mean step time, then the medians and the paired difference.
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import checkpoint  # noqa: E402
import data  # noqa: E402
import loop  # noqa: E402


def full_fine_tune(args):
    """--model on --dataset's subset of --size, tokenized, nothing frozen: (classifier, inputs, labels)."""
    task = data.load_glue(args.dataset, args.glue_dir)
    classifier = checkpoint.from_pretrained(args.model, task.num_labels)
    tokenizer = checkpoint.load_tokenizer(classifier.folder)
    indices = data.load_subset(task, args.size, args.splits_dir)
    inputs = data.tokenize(tokenizer, [task.train_texts[i] for i in indices],
                           min(tokenizer.model_max_length, classifier.config.max_length))
    loop.freeze(classifier, 0)
    return classifier, inputs, torch.as_tensor(task.train_labels[indices])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir")
    p.add_argument("--splits-dir", default="splits")
    p.add_argument("--size", type=int, default=1000)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--precision", default="fp32")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--blocks", type=int, default=6)
    args = p.parse_args()
    device = torch.device("cpu")
    classifier, inputs, labels = full_fine_tune(args)
    params = [p for p in classifier.parameters() if p.requires_grad]
    start_weights = {n: p.detach().clone() for n, p in classifier.named_parameters()}
    config = loop.TrainConfig(precision=args.precision, weight_decay=args.weight_decay)
    used = loop.word_rows(classifier, inputs, None)
    print(f"{args.model}, {args.dataset} n = {args.size}: {len(next(iter(used.values())))} of "
          f"{classifier.config.vocab_size} word rows used; {torch.get_num_threads()} threads, {args.precision}, "
          f"weight decay {args.weight_decay}")

    def block(rows, seed):
        classifier.load_state_dict(start_weights)
        optimizer = loop.AdamW([dict(params=params, weight_decay=args.weight_decay)], lr=2e-5, rows=rows)
        scaler = torch.amp.GradScaler("cpu", enabled=False)
        batches = torch.randperm(len(inputs), generator=torch.Generator().manual_seed(seed)).split(16)
        loop.train_step(classifier, optimizer, scaler, params, [inputs[i] for i in batches[0]], labels[batches[0]],
                        None, device, config)  # the first step makes AdamW's state: not timed
        began = time.perf_counter()
        for batch in batches[1:args.steps + 1]:
            loop.train_step(classifier, optimizer, scaler, params, [inputs[i] for i in batch], labels[batch],
                            None, device, config)
        return (time.perf_counter() - began) / args.steps

    times = {"every row": [], "used rows": []}
    block({}, 0)  # warm-up
    for b in range(args.blocks):
        for name, rows in (("every row", {}), ("used rows", used)) if b % 2 == 0 else (("used rows", used), ("every row", {})):
            times[name].append(block(rows, b))
            print(f"block {b} {name}: {times[name][-1] * 1000:.1f} ms a step", flush=True)
    saved = [a - b for a, b in zip(times["every row"], times["used rows"])]
    se = statistics.stdev(saved) / len(saved) ** 0.5 if len(saved) > 1 else float("nan")
    print(f"\nmedian ms a step: every row {statistics.median(times['every row']) * 1000:.1f}, used rows "
          f"{statistics.median(times['used rows']) * 1000:.1f}; paired saving {statistics.mean(saved) * 1000:.1f} ms "
          f"(SE {se * 1000:.1f}), {statistics.mean(saved) / statistics.mean(times['every row']):.1%} of a step")


if __name__ == "__main__":
    main()
