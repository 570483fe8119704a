"""
Where a run runs: the device, its default precision, autocast for the mixed precisions, the
memory allocator's settings, and the processor's name for the run's record.
"""

import ctypes
import os

import torch


def pick_device():
    """cuda if there is a GPU; with several, the first one no other run of ours holds (a lock
    file per GPU, released when its run ends), so `make -j N` spreads runs over the GPUs."""
    count = torch.cuda.device_count()
    if count <= 1:
        return "cuda" if count else "cpu"
    import fcntl
    os.makedirs("cache", exist_ok=True)
    for gpu in range(count):
        lock = open(os.path.join("cache", f".gpu{gpu}.lock"), "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            pick_device.held = lock  # keep the lock for as long as this process runs
            return f"cuda:{gpu}"
        except OSError:
            lock.close()
    return f"cuda:{os.getpid() % count}"  # more runs than GPUs: share


def keep_freed_memory():
    """Have glibc keep freed memory for the next allocation. By default it maps every block over
    32 MB afresh and unmaps it when freed: a full fine-tune's word-embedding gradient (47 MB for
    minilm) at every step, whose 11,500 pages every backward then faulted in again, 8% of a k = 0
    step on 2 cores (docs/performance.md). Where memory comes from changes no number. Returns
    whether it could (not on macOS or musl, where there is nothing to do)."""
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4  # <malloc.h>
    # no block is mapped on its own, and up to 1 GiB freed at the heap's top stays for reuse
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD, 1 << 30))


def processor_name(device):
    """What a run ran on, for its record: the GPU's name, or the CPU's model name. Runs made on
    two kinds of device pool in a report only where they agree (study/results.py)."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "cpu")
    except OSError:  # not Linux
        return "cpu"


def multiplies_bf16(cpuinfo="/proc/cpuinfo"):
    """Whether this CPU multiplies bfloat16 natively (AVX-512 BF16 or AMX): there bf16 matrix
    products run about 4 times as fast as float32 ones; elsewhere torch emulates them, up to 78
    times slower (docs/equivalence-precision.md). Linux only; False where it cannot tell."""
    try:
        with open(cpuinfo) as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def default_precision(device):
    """fp16 mixed precision on CUDA, as the study trained. On a CPU, bf16 mixed precision where it
    multiplies bfloat16 natively: about twice as fast there, and the same answers as fp32 within
    one point in every cell tested, 10 paired seeds each (docs/equivalence-precision.md); fp32
    where it does not, since emulated bf16 products would make a run many times slower."""
    if device.type == "cuda":
        return "fp16"
    return "bf16" if multiplies_bf16() else "fp32"


def autocast(device, precision):
    """Matrix products and attention in the low precision; the residual stream (so LayerNorm),
    the embeddings, the loss, the weights and the optimizer stay float32."""
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    return torch.autocast(device.type, dtype=dtype, enabled=dtype is not None)
