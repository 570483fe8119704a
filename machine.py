"""
Where a run runs: the device, its default precision, autocast for the mixed precisions, the
process's settings, and what the run's record says of the machine (processor, peak memory,
versions).
"""

import contextlib
import ctypes
import functools
import gc
import importlib.metadata
import os
import platform
import resource
import time

import numpy as np
import torch


def checked_device(name):
    """torch.device(name), or pick_device's where name is None; ValueError's one line for a name
    torch does not know or a CUDA device on a machine without one (before any model is read)."""
    try:
        device = torch.device(name or pick_device())
    except RuntimeError:
        raise ValueError(f"unknown --device {name!r}: use cpu, cuda or cuda:N") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda, but no CUDA GPU is available")
    return device


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
    32 MB afresh and unmaps it when freed, so a full fine-tune's word-embedding gradient, made at
    every backward, would fault its pages in at every step (docs/performance.md). Where memory
    comes from changes no number. Returns whether it could (not on macOS or musl)."""
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4  # <malloc.h>
    # no block is mapped on its own, and up to 1 GiB freed at the heap's top stays for reuse
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD, 1 << 30))


def spare_imports_from_collection():
    """Move every object made so far (torch's import makes hundreds of thousands) out of the cyclic
    garbage collector's generations, so that no collection walks them again, the interpreter's
    last one at exit included: about 0.7 s less at each process's end (docs/performance.md). For
    an entry point, after its imports; what a run makes afterwards is collected as before."""
    gc.freeze()


def processor_name(device):
    """What a run ran on, for its record: the GPU's name, or the CPU's model name. Runs made on
    two kinds of device pool in a report only where they agree (study/folder.py)."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "cpu")
    except OSError:  # not Linux
        return "cpu"


def peak_memory_mb(device):
    """The run's peak memory: the GPU's allocations, or on a CPU the process's resident set (its
    high-water mark, which restart_peak_memory lowers between the runs of one process)."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024  # kB
    except (OSError, StopIteration):  # not Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def restart_peak_memory():
    """Before each run of a process that runs several (study/worker.py): the heap an earlier run
    freed goes back to the system and the resident set's high-water mark restarts from what is
    resident now (Linux's clear_refs), so a run's peak is its own, as in a process of its own."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except (OSError, AttributeError):  # not Linux or not glibc: the process's peak so far
        pass


def versions():
    return dict(python=platform.python_version(), torch=torch.__version__,
                transformers=importlib.metadata.version("transformers"), numpy=np.__version__)


def multiplies_bf16(cpuinfo="/proc/cpuinfo"):
    """Whether this CPU multiplies bfloat16 natively (AVX-512 BF16 or AMX); elsewhere torch
    emulates bf16 matrix products, many times slower than float32 ones (docs/performance.md).
    Linux only; False where it cannot tell."""
    try:
        with open(cpuinfo) as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


# bf16 is the CPU default only where its matrix products run this many times as fast as float32's:
# a CPU can have the instructions and still be slower (below), and a margin keeps a CPU near the
# line from changing its default between one run of a grid and the next
BF16_MARGIN = 1.25


def products_per_second(dtype, repeats=5):
    """Multiply-adds per second of one product the size of a training step's feed-forward block
    (a batch of 32 sentences of 40 tokens, minilm's 384 x 1536), at torch's threads: the fastest of
    `repeats`, so that another process's moment on the CPU reads as little as it can."""
    rows, width, inner = 1280, 384, 1536
    x, w = torch.randn(rows, width, dtype=dtype), torch.randn(inner, width, dtype=dtype)
    x @ w.T  # the first product pays for the library's set-up
    fastest = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        x @ w.T
        fastest = min(fastest, time.perf_counter() - began)
    return rows * width * inner / fastest


# One measurement for every process of a grid or a search: two processes measuring at once, each
# loading the cores, can fall either side of the margin and mix a folder's precisions (seen in CI:
# a grid's two workers, one bf16 and one fp32). The first process's answer reaches the others in
# this variable (study/worker.py, make advise); set it to 1 or 0 to decide for a machine.
BF16_PAYS = "FREEZE_STUDY_BF16_PAYS"


@functools.cache
def bf16_pays():
    """Whether bf16 mixed precision makes this CPU's runs faster: it multiplies bfloat16 natively,
    and its bf16 products run at least BF16_MARGIN times as fast as float32's, measured once a
    process (0.1-0.25 s on 2 cores). An AMD EPYC with AVX512-BF16 ran a whole run 1.8 times as fast in
    bf16; an Intel Xeon with AVX512-BF16 and no AMX multiplied bf16 at 72 GFLOP/s a thread against
    float32's 128, and ran a run 1.45 times as slow
    (docs/records/precision-cpu-2026-11-29.txt). Measured at once, a product of each alone, the
    Xeon's default flipped to bf16 in a grid's run while the test suite loaded both cores.
    An answer handed on in BF16_PAYS is taken without measuring, where this CPU multiplies bf16 (a
    Slurm task can run on another machine than the search that handed it on)."""
    if not multiplies_bf16():
        return False
    handed = os.environ.get(BF16_PAYS)
    if handed in ("0", "1"):
        return handed == "1"
    fastest = {torch.bfloat16: 0.0, torch.float32: 0.0}
    for _ in range(3):  # in turn, so that a busy moment (a grid's other runs starting) slows both alike
        for dtype in fastest:
            fastest[dtype] = max(fastest[dtype], products_per_second(dtype, repeats=2))
    return fastest[torch.bfloat16] >= BF16_MARGIN * fastest[torch.float32]


def handed_on():
    """bf16_pays's answer as the environment that hands it to another process: {BF16_PAYS: "1" or "0"}."""
    return {BF16_PAYS: "1" if bf16_pays() else "0"}


@contextlib.contextmanager
def one_default_precision():
    """The processes started inside it in this process's default precision (bf16_pays, measured
    once): handed on in the environment they inherit, and taken back after, so that a notebook's own
    process is left as it was (make advise's runs, study/search/advise.py)."""
    before = {name: os.environ.get(name) for name in handed_on()}
    os.environ.update(handed_on())
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def default_precision(device):
    """fp16 mixed precision on CUDA, as the study trained. On a CPU, bf16 mixed precision where it
    is faster (bf16_pays; the same answers as fp32: docs/equivalence.md), else fp32."""
    if device.type == "cuda":
        return "fp16"
    return "bf16" if bf16_pays() else "fp32"


def eval_batch_size(device):
    """Sentences per evaluation batch. A GPU is bound by what each batch costs whatever its size
    (kernel launches, Python): SST-2's dev split in 2 batches instead of 14 (docs/gpu.md). A CPU
    gains nothing from larger ones. Each sentence's logits are its own at any batch size."""
    return 512 if device.type == "cuda" else 64


def autocast(device, precision):
    """Matrix products and attention in the low precision; the residual stream (so LayerNorm),
    the embeddings, the loss, the weights and the optimizer stay float32."""
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    return torch.autocast(device.type, dtype=dtype, enabled=dtype is not None)


def scored_as_trained(precision, device):
    """The precision a kept model predicts in on `device`: its run's (`precision`; None for a model
    kept before it was recorded), so that predict.py labels a file as the run scored it, where this
    device computes it natively (fp16: CUDA; bf16: CUDA that has it, or a CPU that multiplies it),
    else fp32."""
    native = {"fp16": device.type == "cuda",
              "bf16": torch.cuda.is_bf16_supported() if device.type == "cuda" else multiplies_bf16()}
    return precision if native.get(precision) else "fp32"


def prepare(device):
    """The process-wide settings a run wants: freed memory kept for reuse and, on CUDA, cuDNN's
    attention off (it plans anew for every batch shape, and ours change length at every step)."""
    keep_freed_memory()
    if device.type == "cuda":
        torch.backends.cuda.enable_cudnn_sdp(False)
