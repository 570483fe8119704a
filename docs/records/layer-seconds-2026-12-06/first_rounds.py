"""The first screen round of each search recorded with its runs (its probe the only run of its
checkpoint before it): each run priced by its checkpoint's layer_seconds (study/search/space.py:
the probe's seconds a pass times the passes a run makes) and by the rule before (PROBE_TO_TRAINED
times the probe's seconds a layer), against what it took.

    .venv/bin/python docs/records/layer-seconds-2026-12-06/first_rounds.py $(dirname $(grep -l . docs/records/*/*/advise.rounds)) [FOLDER...]

A record from before prefix_texts is read as its probe's prefix having computed every text it read:
its subset, the dev split and the test file (seed 1's probe, the first run of a fresh folder).
"""
import glob
import json
import os
import sys
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "expected-seconds-2026-12-06"))
import estimates  # noqa: E402
import tables  # noqa: E402
from study.search import space as sp  # noqa: E402
from study.search.standing import Cell  # noqa: E402


def examples_in(path):
    """A test file's examples, read where the record names it or in ../shared/tasks/<task>/."""
    shared = os.path.join("..", "shared", "tasks", os.path.basename(os.path.dirname(path)), os.path.basename(path))
    return len(tables.read_table(path if os.path.exists(path) else shared)) - 1  # less its header


def prefix_texts(probe):
    """The probe record's prefix_texts, or what a fresh folder's first probe computed."""
    if "prefix_texts" in probe:
        return probe["prefix_texts"]
    config = probe["config"]
    test = examples_in(config["test_file"]) if config.get("test_file") else 0
    return (config.get("train_examples") or config["size"]) + probe["dev_size"] + test


def layer_seconds_of(folder):
    """{model: layer_seconds} from each checkpoint's seed-1 probe in the search's folder."""
    priced = {}
    for path in glob.glob(os.path.join(folder, "**", "*seed1_probe.json"), recursive=True):
        rel = os.path.relpath(path, folder)
        if rel.split(os.sep)[0] in ("test", "kept"):  # the pick's runs scored again, a kept model
            continue
        probe = json.load(open(path))
        cell = Cell.of(probe["config"], os.path.dirname(rel))
        config = {**probe["config"], "train_examples": probe["config"].get("train_examples") or probe["config"]["size"]}
        priced[cell.model] = sp.layer_seconds({**probe, "config": config, "prefix_texts": prefix_texts(probe)}, cell.freeze)
    return priced


def first_round(folder, estimate):
    """[(estimate, seconds)] of the first screen round's runs over 5 s."""
    return [(e, s) for e, s, only_probe in estimates.in_search(folder, estimate) if only_probe and s > 5]


folders = [f for f in sys.argv[1:] if estimates.runs_in_order(f)]
before, now = [], []
print("log2(expected / real) of the first screen round's runs over 5 s, and the round's sum of expected over real")
print(f"{'search':62s} {'runs':>4s}  {'before: mean |.|':>16s} {'sum':>5s}  {'now: mean |.|':>13s} {'sum':>5s}")
for folder in folders:
    priced = layer_seconds_of(folder)
    rules = (sp.expected_seconds, lambda cell, observed, space: sp.expected_seconds(
        cell, observed, replace(space, layer_seconds={(model, name): priced[model] for model, name in space.depths
                                                      if model in priced})))
    pairs = [first_round(folder, rule) for rule in rules]
    if not pairs[0]:
        continue
    before += pairs[0]
    now += pairs[1]
    cols = [(np.mean([abs(np.log2(e / s)) for e, s in p]), sum(e for e, _ in p) / sum(s for _, s in p)) for p in pairs]
    print(f"{folder[-62:]:62s} {len(pairs[0]):4d}  {cols[0][0]:16.2f} {cols[0][1]:5.2f}  {cols[1][0]:13.2f} {cols[1][1]:5.2f}")
print(f"every search, before: {estimates.summary(before)}")
print(f"every search, now:    {estimates.summary(now)}")
