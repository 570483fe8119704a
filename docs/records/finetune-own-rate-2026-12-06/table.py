"""Each search of searches.sh beside the other code's on the same task: its printed answer, the
model kept and the pick's runs on test.csv, the defaults' runs there (SetFit fast, k = 0, its rate:
what a user would run alone), its runs and wall clock.

    .venv/bin/python docs/records/finetune-own-rate-2026-12-06/table.py OUT
"""
import glob
import json
import os
import re
import sys

import numpy as np

out = sys.argv[1]
clock = {}  # {(task, side): seconds of wall clock}
for line in open(os.path.join(out, "clock.txt")):
    side, task, seconds = re.match(r"(\w+) (\w+): rc \d+, (\d+) s", line).groups()
    clock[task, side] = int(seconds)


print("| task | code | pick | the model kept, test | the pick's runs, test | the defaults' runs, test | fine-tune runs (their best cell's dev) | runs | minutes |")
print("|---|---|---|---|---|---|---|---|---|")
for task in ("counterfactual", "emotion", "sst5"):
    for side in ("before", "after"):
        folder = os.path.join(out, side, task)
        if not os.path.exists(os.path.join(folder, "output.txt")):
            continue
        line = next(l for l in open(os.path.join(folder, "output.txt")) if l.startswith("advise: decided") or l.startswith("advise: NOT"))
        pick = re.search(r": (.+?) \| test file", line).group(1).replace("decided: ", "")
        kept = re.search(r"test file ([0-9.]+)", line).group(1)
        mean = re.search(r"the pick's runs ([0-9.]+)", line)
        runs = [json.load(open(f)) for f in glob.glob(os.path.join(folder, "runs", "freeze*.json"))]
        defaults = [f for f in glob.glob(os.path.join(folder, "runs", "freeze0_*_setfit-fast.json"))
                    if re.fullmatch(r"freeze0_size\w+_seed\d+_setfit-fast\.json", os.path.basename(f))]  # its own rate
        sff = [json.load(open(f))["test_at_score"][runs[0]["metric"]] for f in defaults]
        ft = {}
        for r in runs:
            c = r["config"]
            if c["method"] == "finetune":
                ft.setdefault((c["freeze"], c["lr"]), []).append(r["score"])
        ft_words = "0"
        if ft:
            (k, lr), scores = max(ft.items(), key=lambda item: np.mean(item[1]))
            rate = f"{lr:.0e}".replace("e-0", "e-")
            ft_words = f"{sum(map(len, ft.values()))} (k = {k}, {rate}: {np.mean(scores):.3f}, {len(scores)})"
        seconds = clock.get((task, side))
        minutes = f"{seconds / 60:.1f}" if seconds else "running"
        print(f"| {task} | {side} | {pick} | {kept} | {mean.group(1) if mean else kept} | "
              f"{np.mean(sff):.3f} ± {np.std(sff, ddof=1) / np.sqrt(len(sff)):.3f} ({len(sff)}) | {ft_words} | {len(runs)} | "
              f"{minutes} |")
