"""
Where a training step's time goes on a GPU: milliseconds per step and per evaluation batch of
loop.train_step / loop.predict on real SST-2 batches, under a few switches, then the profiler's
top operators. For bench/gpu.sh's `profile` phase:

    python -m bench.gpu_profile --model minilm --glue-dir ../shared/glue
"""

import argparse
import time

import torch

import checkpoint
import data
import loop
import protocol


def timed_steps(classifier, ids, labels, device, config, steps):
    params = [p for p in classifier.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.lr, fused=True)
    scaler = torch.amp.GradScaler(device.type, enabled=config.precision == "fp16")
    order = torch.randperm(len(ids), generator=torch.Generator().manual_seed(0))
    batches = [order[i:i + 16] for i in range(0, len(ids), 16)]
    def run(count):
        for batch in (batches * 10)[:count]:
            loop.train_step(classifier, optimizer, scaler, params, [ids[i] for i in batch],
                            labels[batch.to(device)], None, device, config)
    run(20)
    torch.cuda.synchronize()
    began = time.perf_counter()
    run(steps)
    torch.cuda.synchronize()
    return (time.perf_counter() - began) / steps * 1000


def timed_eval(classifier, ids, device, config, repeats=3):
    loop.predict(classifier, ids, None, device, config.precision)
    torch.cuda.synchronize()
    began = time.perf_counter()
    for _ in range(repeats):
        loop.predict(classifier, ids, None, device, config.precision)
    torch.cuda.synchronize()
    return (time.perf_counter() - began) / repeats * 1000


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--glue-dir")
    p.add_argument("--steps", type=int, default=100)
    args = p.parse_args()
    device = torch.device("cuda")
    task = data.load_glue("sst2", args.glue_dir)
    classifier = checkpoint.from_pretrained(args.model).to(device)
    tokenizer = checkpoint.load_tokenizer(classifier.folder)
    ids = data.tokenize(tokenizer, task.train_texts[:1000], 512)
    labels = torch.as_tensor(task.train_labels[:1000]).to(device)
    dev_ids = data.tokenize(tokenizer, task.dev_texts, 512)
    print(f"{args.model}, {torch.cuda.get_device_name()}, torch {torch.__version__}, {torch.get_num_threads()} threads")
    for name, switch in [("default", lambda: None),
                         ("no cuDNN attention", lambda: torch.backends.cuda.enable_cudnn_sdp(False)),
                         ("and 1 CPU thread", lambda: torch.set_num_threads(1))]:
        switch()
        for precision in ("fp16", "fp32"):
            config = protocol.TrainConfig(precision=precision)
            step = timed_steps(classifier, ids, labels, device, config, args.steps)
            evaluation = timed_eval(classifier, dev_ids, device, config)
            print(f"{name:>20} {precision}: {step:6.1f} ms a training step, {evaluation:7.1f} ms an evaluation "
                  f"of {len(dev_ids)} sentences", flush=True)
    torch.backends.cuda.enable_cudnn_sdp(True)
    config = protocol.TrainConfig(precision="fp16")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof:
        timed_steps(classifier, ids, labels, device, config, 20)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15, max_name_column_width=50))
    print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=10, max_name_column_width=50))


if __name__ == "__main__":
    main()
