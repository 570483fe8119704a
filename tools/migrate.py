"""
Brings run results written by earlier versions of freeze_study.py to today's format, once, so that
no reader keeps a code path for an old one:

    python -m tools.migrate docs/results --glue-dir ../shared/glue

For every run result below the folders: the keys it lacks, from what it recorded (a run from before
--pooling read the first token; one from before --method fine-tuned; an unrecorded processor or
training score is null; a SetFit run trained at setfit's 2e-5 whatever --lr said; a probe has no
rate), the best constant prediction's scores and the size of the dev split it read; what later
versions say otherwise (a probe is --method probe, not a flag beside it; no method's record of its
own is null; skip_padding left the record); and its file renamed to the name result.py gives its
configuration (a rate is left out where it is the method's default at the run's size, methods.py).
Each file is rewritten atomically; the renames go through temporary names, so two files may swap
names; a second pass changes nothing.
"""

import argparse
import glob
import json
import os
import sys

import data
import methods
import metrics
import result

CONFIG_DEFAULTS = dict(pooling="first", normalize=False, method=methods.FINETUNE.name, num_iterations=None, reinit=0)
RESULT_DEFAULTS = dict(processor=None, train_at_score=None)
SETFIT_LIBRARY_LR = 2e-5  # what SetFit runs trained at before --lr reached SetFit's body


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
    if "probe" in run["config"]:  # a flag beside --method once; --method probe since
        if run["config"].pop("probe"):
            run["config"]["method"] = methods.PROBE.name
        added.append("config.method (no config.probe)")
    if run["config"].pop("skip_padding", None) is not None:
        added.append("no config.skip_padding")
    for name in methods.NAMES:  # a method's record of its own is there only for the method that made it
        if name in run and run[name] is None:
            del run[name]
            added.append(f"no null {name}")
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
    if method == methods.SETFIT.name and "lr" not in run[method]:  # --lr reached SetFit's body only later
        run["config"]["lr"] = run[method]["lr"] = SETFIT_LIBRARY_LR
        added.append("setfit.lr")
    if method == methods.PROBE.name and run["config"]["lr"] is not None:  # a probe is fitted, at no rate
        run["config"]["lr"] = None
        added.append("config.lr (none)")
    if "dev_size" not in run:
        run["dev_size"] = len(dev_labels(run["config"], glue_dir)[0])
        added.append("dev_size")
    return added


def rename_all(renames):
    """{path: new path} done through temporary names, so that two files may swap names."""
    for path in renames:
        os.replace(path, path + ".migrating")
    for path, target in renames.items():
        os.replace(path + ".migrating", target)


def main(argv=None):
    p = argparse.ArgumentParser(description="Run results of earlier versions brought to today's format.")
    p.add_argument("folders", nargs="+", help="searched for run results (*.json) at any depth")
    p.add_argument("--glue-dir", help="the GLUE folder, for runs that lack the constant prediction's scores "
                                      "(default: where each run read it)")
    args = p.parse_args(argv)
    changed, renames = 0, {}
    for path in sorted(p for folder in args.folders for p in glob.glob(os.path.join(folder, "**", "*.json"), recursive=True)):
        with open(path) as f:
            run = json.load(f)
        if not isinstance(run, dict) or "config" not in run:
            continue  # not a run result
        added = migrate(run, args.glue_dir)
        target = os.path.join(os.path.dirname(path), result.name_of(run["config"]).file_name())
        if added:
            result.write(path, run)
        if target != path:
            renames[path] = target
        if added or target != path:
            changed += 1
            print(f"{path}: {', '.join(added) or 'no key added'}"
                  + (f"; renamed {os.path.basename(target)}" if target != path else ""))
    taken = [target for target in renames.values() if target not in renames and os.path.exists(target)]
    if taken or len(set(renames.values())) < len(renames):
        sys.exit(f"migrate: two runs would share a name ({(taken or ['two of the renamed'])[0]}); nothing renamed")
    rename_all(renames)
    print(f"migrate: {changed} run results changed")


if __name__ == "__main__":
    main()
