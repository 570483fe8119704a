"""
The two hot paths against this machine's float32 matrix-product peak:

    python bench/throughput.py --model minilm --glue-dir ../shared/glue

- evaluation: the whole dev split from token ids (cache off: every layer) and from the cached
  states entering layer L - 2 (cache on: two layers);
- one training step (loop.train_step, batch 16 of the n = 50 subset): k = 0, where every layer
  trains, and k = L - 2 from the cache.
The FLOPs are the matrix products and attention of the layers that run (the embeddings' lookup,
the head and the optimizer are left out); a training step counts 3x the forward FLOPs (backward
is about twice the forward). The peak is the best of a few 2048^3 float32 products (bfloat16 printed beside it).
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import data  # noqa: E402
import loop  # noqa: E402
import checkpoint  # noqa: E402


def seconds(fn, repeats):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def matmul_peak(dtype=torch.float32):
    a, b = torch.randn(2048, 2048, dtype=dtype), torch.randn(2048, 2048, dtype=dtype)
    return 2 * 2048 ** 3 / min(seconds(lambda: a @ b, 5) for _ in range(3))


def forward_flops(config, lengths, batch_size, layers):
    """FLOPs of `layers` layers over length-sorted padded batches; the last one computes the
    first token only (model.Layer's first_token_only)."""
    H, I = config.hidden_size, config.intermediate_size
    total = 0
    for batch in data.length_sorted_batches(lengths, batch_size):
        B, T = len(batch), max(lengths[i] for i in batch)
        full = 2 * B * T * (4 * H * H + 2 * H * I) + 4 * B * T * T * H
        last = 2 * B * T * 2 * H * H + 2 * B * (2 * H * H + 2 * H * I) + 4 * B * T * H
        total += (layers - 1) * full + last if layers else 0
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir")
    p.add_argument("--splits-dir", default="splits")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    torch.manual_seed(0)
    device = torch.device("cpu")
    task = data.load_glue(args.dataset, args.glue_dir)
    classifier = checkpoint.from_pretrained(args.model, task.num_labels)
    tokenizer = checkpoint.load_tokenizer(classifier.folder)
    max_length = min(tokenizer.model_max_length, classifier.config.max_length)
    dev_ids = data.tokenize(tokenizer, task.dev_texts, max_length)
    indices = data.load_subset(task, 50, args.splits_dir)
    train_ids = data.tokenize(tokenizer, [task.train_texts[i] for i in indices], max_length)
    train_labels = torch.as_tensor(task.train_labels[indices])
    L = classifier.config.num_layers
    peak = matmul_peak()
    print(f"{args.model} ({L} layers, hidden {classifier.config.hidden_size}), {args.dataset}, "
          f"{os.cpu_count()} CPU cores, {torch.get_num_threads()} torch threads, float32")
    print(f"float32 matmul peak (2048^3): {peak / 1e9:.0f} GFLOP/s "
          f"(bfloat16: {matmul_peak(torch.bfloat16) / 1e9:.0f}, what --precision bf16 would draw on)\n")
    print("| path | k | layers run | seconds | examples/s | GFLOP/s | of peak |")
    print("|---|---|---|---|---|---|---|")

    def row(path, k, layers, elapsed, examples, flops):
        print(f"| {path} | {k} | {layers} | {elapsed:.3f} | {examples / elapsed:.0f} | "
              f"{flops / elapsed / 1e9:.0f} | {flops / elapsed / peak:.0%} |", flush=True)

    config = loop.TrainConfig()
    for k in (0, L - 2):
        loop.freeze(classifier, k)
        start = None if k == 0 else k
        inputs = dev_ids if k == 0 else loop.frozen_prefix(classifier, dev_ids, k, device, "fp32")
        elapsed = seconds(lambda: loop.predict(classifier, inputs, start, device, config), args.repeats)
        flops = forward_flops(classifier.config, [len(t) for t in dev_ids], config.eval_batch_size, L - max(k, 0))
        row(f"evaluation, dev split ({len(dev_ids)})", k, L - max(k, 0), elapsed, len(dev_ids), flops)

    for k in (0, L - 2):
        loop.freeze(classifier, k)
        start = None if k == 0 else k
        inputs = train_ids if k == 0 else loop.frozen_prefix(classifier, train_ids, k, device, "fp32")
        params = [p for p in classifier.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(params, lr=1e-5, fused=True)
        scaler = torch.amp.GradScaler("cpu", enabled=False)
        batches = [b for b in torch.randperm(len(inputs)).split(config.batch_size) if len(b) == config.batch_size]

        def one_step(state={"i": 0}):
            batch = batches[state["i"] % len(batches)]
            state["i"] += 1
            loop.train_step(classifier, optimizer, scaler, params, [inputs[i] for i in batch],
                            train_labels[batch], start, device, config)

        elapsed = seconds(one_step, 10 * args.repeats)
        lengths = [len(t) for t in train_ids]
        flops = statistics.mean(3 * forward_flops(classifier.config, [lengths[i] for i in b], len(b), L - max(k, 0))
                                for b in batches)
        row(f"training step, batch {config.batch_size}", k, L - max(k, 0), elapsed, config.batch_size, flops)


if __name__ == "__main__":
    main()
