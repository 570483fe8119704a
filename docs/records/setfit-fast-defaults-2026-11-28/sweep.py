"""#86: the fast body's steps and rate at n = 50 and 100 (SST-2, minilm, k = 0, fp32), seeds 4-8.

Run from a checkout of e4407e3 (where the fast body was --method setfit --setfit-body fast and its
share of the library's passes contrastive.FAST_SHARE), with the repository's .venv:

    python docs/records/setfit-fast-defaults-2026-11-28/sweep.py n50     # then n100

(the n200 stage was dropped before it ran: 11-28's one-seed ladder at n = 200 had put 5e-5 first).
"""
import sys, os
sys.path.insert(0, "/tmp/q/wt"); os.chdir("/tmp/q/wt")  # the checkout of e4407e3
import contrastive, freeze_study
from plan import parse_args
OUT = "/work/main/docs/records/setfit-fast-defaults-2026-11-28/runs"
BASE = "--model minilm --method setfit --cache-dir /work/main/cache --splits-dir /work/main/splits --glue-dir /work/shared/glue --quiet --freeze 0".split()
def go(tag, size, seed, lr=None, body="fast", share=8):
    contrastive.FAST_SHARE = share
    d = f"{OUT}/{tag}"
    argv = BASE + ["--size", str(size), "--seed", str(seed), "--setfit-body", body, "--out", f"{d}/seed{seed}_lr{lr}_share{share}.json"]
    if lr: argv += ["--lr", lr]
    out = f"{d}/seed{seed}_lr{lr}_share{share}.json"
    if os.path.exists(out): return
    os.makedirs(d, exist_ok=True)
    r = freeze_study.run(parse_args(argv), log=lambda l: None)
    print(tag, size, seed, lr, share, round(r["score"], 4), round(r["seconds"]["train"], 1), flush=True)
stage = sys.argv[1]
seeds = range(4, 9)
if stage == "n50":
    for seed in seeds:
        for share in (8, 4, 2):
            for lr in ("2e-4", "5e-4", "1e-3"):
                go(f"n50-fast", 50, seed, lr, share=share)
        go("n50-library", 50, seed, None, body="library")
if stage == "n100":
    for seed in seeds:
        for lr in ("1e-4", "2e-4", "5e-4"):
            go("n100-fast", 100, seed, lr)
if stage == "n200":  # not run
    for seed in seeds:
        for lr in ("2e-5", "5e-5", "1e-4"):
            go("n200-fast", 200, seed, lr)
