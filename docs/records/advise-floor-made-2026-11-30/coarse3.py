"""The policy's replay with a screen of three depths, the ends and the middle (12 6 0 of mpnet's
0..12; 12 4 0 of its grid's 0 2 4 8 10 12 at n = 1000; 6 3 0 of minilm's) in place of every other
depth (12 8 4 0; 12 8 2 0; 6 4 2 0): tried for mpnet's 16%, not kept. Prints the replay's table
(as bench.advise_replay), then the order of mpnet's runs at n = 1000, where refine, with nothing
out after one seed, runs every depth the screen skipped.

    .venv/bin/python docs/records/advise-floor-made-2026-11-30/coarse3.py
"""
import os
import sys

sys.path.insert(0, os.getcwd())
from bench import advise_replay  # noqa: E402
from study import policy  # noqa: E402
from study.replay import Made, replay  # noqa: E402

R = "docs/results"
GRIDS = ("sst2-minilm", "cola-minilm", "sst2-mpnet")


def ends_and_middle(depths):
    layers = sorted((k for k in depths if k != -1), reverse=True) or list(depths)
    return sorted({layers[0], layers[len(layers) // 2], layers[-1]})


if __name__ == "__main__":
    policy.coarse = ends_and_middle
    advise_replay.main([f"{R}/{grid}/runs" for grid in GRIDS] + ["--made"] + [f"{R}/{grid}/made" for grid in GRIDS])
    outcome = replay([f"{R}/sst2-mpnet/runs"], 1000, made=Made((f"{R}/sst2-mpnet/made",)))
    print("\nsst2-mpnet, n = 1000:")
    for cell, seed, seconds, step in outcome["order"]:
        print(f"{step:7s} {cell.method:11s} k = {cell.freeze:<3d} lr {cell.lr} seed {seed} {seconds:7.1f} s")
    print("missing (not made):", ", ".join(f"{cell.method} k = {cell.freeze} lr {cell.lr} seed {seed}"
                                           for cell, seed in outcome["missing"]))
