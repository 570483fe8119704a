"""
Brings run results written by earlier versions of freeze_study.py to today's format, once, so that
no reader keeps a code path for an old one:

    python -m study.migrate docs/results --glue-dir ../shared/glue

For every run result below the folders: the keys it lacks, from what it recorded (a run from before
--pooling read the first token; one from before --method fine-tuned; an unrecorded processor or
training score is null; a SetFit run trained at setfit's 2e-5 whatever --lr said; a probe has no
rate), the best constant prediction's scores and the size of the dev split it read, and its file
renamed to the name result.py gives its configuration. Each file is rewritten atomically; a second
pass changes nothing.
"""

import argparse
import glob
import json
import os
import sys

import data
import metrics
import result

CONFIG_DEFAULTS = dict(pooling="first", normalize=False, method="finetune", num_iterations=None, probe=False, reinit=0)
RESULT_DEFAULTS = dict(processor=None, setfit=None, probe=None, train_at_score=None)


def dev_labels(config, glue_dir, tasks={}):
    """The dev split's labels and number of classes of the task a run read (loaded once per task)."""
    key = (config["task"], config.get("train_file"), config.get("dev_file"))
    if key not in tasks:
        if config.get("train_file"):
            task = data.load_csv_task(config["train_file"], config["dev_file"], config["text_column"],
                                      config["label_column"], config.get("text_pair_column"), config.get("regression"))
        else:
            task = data.load_glue(config["task"], glue_dir or config.get("glue_dir"))
        tasks[key] = task.dev_labels, task.num_labels
    return tasks[key]


def migrate(run, glue_dir):
    """Add what `run` lacks, in place; returns the names of the keys added."""
    added = []
    for key, value in CONFIG_DEFAULTS.items():
        if key not in run["config"]:
            run["config"][key] = value
            added.append(f"config.{key}")
    for key in ("metric", "selection"):  # recorded at the top from the start, in config later
        if key not in run["config"]:
            run["config"][key] = run[key]
            added.append(f"config.{key}")
    for key, value in RESULT_DEFAULTS.items():
        if key not in run:
            run[key] = value
            added.append(key)
    if "constant" not in run:
        run["constant"] = metrics.constant_scores(*dev_labels(run["config"], glue_dir))
        added.append("constant")
    method = result.method_of(run["config"])
    if method == "setfit" and "lr" not in run["setfit"]:  # --lr reached SetFit's body only later: it trained at 2e-5
        run["config"]["lr"] = run["setfit"]["lr"] = result.DEFAULT_LRS["setfit"]
        added.append("setfit.lr")
    if method == "probe" and run["config"]["lr"] is not None:  # a probe is fitted, at no rate
        run["config"]["lr"] = None
        added.append("config.lr (none)")
    if "dev_size" not in run:
        run["dev_size"] = len(dev_labels(run["config"], glue_dir)[0])
        added.append("dev_size")
    return added


def main(argv=None):
    p = argparse.ArgumentParser(description="Run results of earlier versions brought to today's format.")
    p.add_argument("folders", nargs="+", help="searched for run results (*.json) at any depth")
    p.add_argument("--glue-dir", help="the GLUE folder, for runs that lack the constant prediction's scores "
                                      "(default: where each run read it)")
    args = p.parse_args(argv)
    changed = 0
    for path in sorted(p for folder in args.folders for p in glob.glob(os.path.join(folder, "**", "*.json"), recursive=True)):
        with open(path) as f:
            run = json.load(f)
        if not isinstance(run, dict) or "config" not in run:
            continue  # not a run result
        added = migrate(run, args.glue_dir)
        target = os.path.join(os.path.dirname(path), result.name_of(run["config"]).file_name())
        if target != path and os.path.exists(target):
            sys.exit(f"migrate: {path} should be named {os.path.basename(target)}, which exists")
        if added or target != path:
            result.write(target, run)
            if target != path:
                os.remove(path)
            changed += 1
            print(f"{path}: {', '.join(added) or 'no key added'}" + (f"; renamed {os.path.basename(target)}"
                                                                       if target != path else ""))
    print(f"migrate: {changed} run results changed")


if __name__ == "__main__":
    main()
