"""
The two hot paths against this machine's matrix-product peak, in fp32 and in bf16 mixed precision:

    python -m bench.throughput --model minilm --glue-dir ../shared/glue

- evaluation: the whole dev split from token ids (cache off: every layer) and from the cached
  states entering layer L - 2 (cache on: two layers);
- one training step (loop.train_step, batches of 16 drawn at random from the n = 1000 subset, as
  the protocol's shuffle draws them), in the padded layout and with padding skipped: k = 0, where
  every layer trains, and k = L - 2 from the cache. Its forward + backward is the step minus the
  optimizer's part (clipping and AdamW, timed alone), and GFLOP/s are those of forward + backward.
The FLOPs are those of real tokens only: the matrix products of the layers that run, for each
sentence's tokens, and attention over each sentence's own length (the embeddings' lookup, the head
and the optimizer are left out; a training step counts 3x the forward). Padding is work a path
does on top of these, so a path that pads shows it as a lower GFLOP/s. The peak is the best of a
few 2048^3 products in each precision.
"""

import argparse
import os
import statistics
import time

import torch

import cache
import checkpoint
import data
import loop
import protocol
import trainable

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def seconds(fn, repeats, sync=lambda: None):
    fn()  # warm-up
    sync()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def matmul_peak(dtype, device="cpu"):
    """FLOP/s of the best of a few 2048^3 products in `dtype` on `device` (a GPU's waited for)."""
    a, b = (torch.randn(2048, 2048, dtype=dtype, device=device) for _ in range(2))
    sync = torch.cuda.synchronize if torch.device(device).type == "cuda" else (lambda: None)
    return 2 * 2048 ** 3 / min(seconds(lambda: a @ b, 5, sync) for _ in range(3))


def forward_flops(config, lengths, layers, first_token_last=True):
    """FLOPs of `layers` layers over sentences of these lengths, real tokens only; the last layer
    computes the first token only (model.Layer's first_token_only), unless first_token_last is
    False (the frozen prefix: every token of every layer)."""
    if not layers:
        return 0
    H, I = config.hidden_size, config.intermediate_size
    tokens, pairs = sum(lengths), sum(t * t for t in lengths)  # attention: every query x key
    full = 2 * tokens * (4 * H * H + 2 * H * I) + 4 * pairs * H
    last = 2 * tokens * 2 * H * H + 2 * len(lengths) * (2 * H * H + 2 * H * I) + 4 * tokens * H
    return (layers - 1) * full + (last if first_token_last else full)


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
    indices = data.load_subset(task, 1000, args.splits_dir)
    train_ids = data.tokenize(tokenizer, [task.train_texts[i] for i in indices], max_length)
    train_labels = torch.as_tensor(task.train_labels[indices])
    L = classifier.config.num_layers
    peaks = {precision: matmul_peak(dtype) for precision, dtype in DTYPES.items()}
    print(f"{args.model} ({L} layers, hidden {classifier.config.hidden_size}), {args.dataset}, "
          f"{os.cpu_count()} CPU cores, {torch.get_num_threads()} torch threads, torch {torch.__version__}")
    print("matmul peak (2048^3): " + ", ".join(f"{p} {peak / 1e9:.0f} GFLOP/s" for p, peak in peaks.items()) + "\n")
    print("| path | precision | k | layers run | padding | seconds | examples/s | GFLOP/s (real tokens) | of peak |")
    print("|---|---|---|---|---|---|---|---|---|")

    def row(path, precision, k, layers, padding, elapsed, examples, flops):
        print(f"| {path} | {precision} | {k} | {layers} | {padding} | {elapsed:.3f} | {examples / elapsed:.0f} | "
              f"{flops / elapsed / 1e9:.0f} | {flops / elapsed / peaks[precision]:.0%} |", flush=True)

    for precision in DTYPES:
        for k, skip_padding in ((0, False), (0, True), (L - 2, True)):
            trainable.freeze(classifier, k)
            start = None if k == 0 else k
            inputs = dev_ids if k == 0 else cache.frozen_prefix(classifier, dev_ids, k, device, precision)
            elapsed = seconds(lambda: loop.predict(classifier, inputs, start, device, precision, skip_padding=skip_padding),
                              args.repeats)
            flops = forward_flops(classifier.config, [len(t) for t in dev_ids], L - max(k, 0))
            row(f"evaluation, dev split ({len(dev_ids)})", precision, k, L - max(k, 0),
                "skipped" if skip_padding else "padded (length-sorted)", elapsed, len(dev_ids), flops)

    # the protocol's batches: 16 drawn at random, so each is padded to its longest sentence
    batches = [b for b in torch.randperm(len(train_ids), generator=torch.Generator().manual_seed(1)).split(16)]
    lengths = [[len(train_ids[i]) for i in b] for b in batches]
    steps = 20 * args.repeats
    real = sum(map(sum, lengths[:steps]))
    share = real / sum(len(b) * max(b) for b in lengths[:steps])
    print(f"\ntraining steps on {steps} batches of 16 drawn from the n = 1000 subset: {real / steps:.0f} real "
          f"tokens a batch, real-token share of the padded grid {share:.0%}. A step is forward + backward (which "
          f"scale with the tokens) and the optimizer (gradient clipping and AdamW over every trainable "
          f"parameter, which does not).\n")
    print("| precision | k | padding | step s | forward + backward s | optimizer s | GFLOP/s (real tokens) | of peak |")
    print("|---|---|---|---|---|---|---|---|")
    for precision in DTYPES:
        for k, skip_padding in ((0, False), (0, True), (L - 2, False), (L - 2, True)):
            config = protocol.TrainConfig(precision=precision)
            trainable.freeze(classifier, k)
            start = None if k == 0 else k
            inputs = train_ids if k == 0 else cache.frozen_prefix(classifier, train_ids, k, device, precision)
            params = [p for p in classifier.parameters() if p.requires_grad]
            optimizer = torch.optim.AdamW(params, lr=1e-5, fused=True)
            scaler = torch.amp.GradScaler("cpu", enabled=False)

            def all_steps():
                for b in batches[:steps]:
                    loop.train_step(classifier, optimizer, scaler, params, [inputs[i] for i in b],
                                    train_labels[b], start, device, config, skip_padding)

            def optimizer_only():  # what train_step does after backward, on the last step's gradients
                for _ in range(steps):
                    torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
                    optimizer.step()

            step = seconds(all_steps, 1) / steps
            update = seconds(optimizer_only, 1) / steps
            flops = sum(3 * forward_flops(classifier.config, b, L - max(k, 0)) for b in lengths[:steps]) / steps
            print(f"| {precision} | {k} | {'skipped' if skip_padding else 'padded'} | {step:.4f} | {step - update:.4f} "
                  f"| {update:.4f} | {flops / (step - update) / 1e9:.0f} | {flops / (step - update) / peaks[precision]:.0%} |",
                  flush=True)


if __name__ == "__main__":
    main()
