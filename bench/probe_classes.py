"""
The probe's time with many classes against two: one `--method probe` run of minilm at n = 200 on
STS-B's pairs with their scores rounded to 6 classes (a CSV written under bench/out/probe6/ from
GLUE's STS-B) and one on SST-2's 2 classes, alternating, `--rounds` times; the medians and their
ratio, of the fit (the run's train seconds) and of the whole run.

    .venv/bin/python -m bench.probe_classes --glue-dir ../shared/glue [--rounds 5]
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

OUT = "bench/out/probe6"


def six_class_csvs(glue_dir):
    """STS-B's train and dev splits as CSVs with the score rounded to a class 0..5."""
    for split in ("train", "dev"):
        path = f"{OUT}/{split}.csv"
        if os.path.exists(path):
            continue
        with open(f"{glue_dir}/STS-B/{split}.tsv", newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
        os.makedirs(OUT, exist_ok=True)
        with open(path + ".tmp", "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["sentence1", "sentence2", "label"])
            writer.writerows([r["sentence1"], r["sentence2"], str(round(float(r["score"])))] for r in rows)
        os.replace(path + ".tmp", path)


def one_run(flags, out):
    common = ["--model", "minilm", "--method", "probe", "--freeze", "6", "--size", "200", "--seed", "1",
              "--precision", "fp32", "--cache-dir", f"{OUT}/cache", "--splits-dir", f"{OUT}/splits", "--out", out]
    subprocess.run([sys.executable, "freeze_study.py", *common, *flags], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--glue-dir", required=True)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    six_class_csvs(args.glue_dir)
    tasks = {"6 classes (STS-B rounded)": ["--dataset", "stsb6", "--train-file", f"{OUT}/train.csv", "--dev-file",
                                           f"{OUT}/dev.csv", "--text-column", "sentence1", "--text-pair-column",
                                           "sentence2", "--label-column", "label"],
             "2 classes (SST-2)": ["--dataset", "sst2", "--glue-dir", args.glue_dir]}
    seconds = {task: [] for task in tasks}
    for round_ in range(args.rounds):
        for task, flags in tasks.items():
            run = one_run(flags, f"{OUT}/{'six' if task.startswith('6') else 'two'}.json")
            seconds[task].append((run["seconds"]["train"], run["seconds"]["total"]))
            print(f"round {round_} | {task} | fit {run['seconds']['train']:.2f} s | run {run['seconds']['total']:.2f} s "
                  f"| C {run['probe']['C']:.4g} | dev accuracy {run['best_accuracy']:.4f}", flush=True)
    median = {task: [statistics.median(s[i] for s in values) for i in (0, 1)] for task, values in seconds.items()}
    (six_fit, six_run), (two_fit, two_run) = median.values()
    print(f"medians: 6 classes fit {six_fit:.2f} s, run {six_run:.2f} s; 2 classes fit {two_fit:.2f} s, run {two_run:.2f} s; "
          f"6 / 2: fit {six_fit / two_fit:.1f}x, run {six_run / two_run:.1f}x")


if __name__ == "__main__":
    main()
