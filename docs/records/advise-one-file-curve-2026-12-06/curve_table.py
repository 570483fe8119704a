"""The table of curve.sh's runs: per search, each cell's mean over folds 1-5 of its fold score (out
of bag, the fair score: the last evaluation, as the search reads it) at three fifths and four fifths
of the rows, the same fold models' mean on test.csv, and the final models' (every label, seeds
1-3) on test.csv; then the pick's lead over the defaults read four ways. Run from the project's root:

    python docs/records/advise-one-file-curve-2026-12-06/curve_table.py /tmp/lc/*-n*
"""
import glob
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, ".")
from study.answer import fair_score  # noqa: E402

STEP = math.log(5 / 4) / math.log(4 / 3)  # a curve straight in log rows: the fifth fold's worth, in units of the fourth's


def runs(folder, which, kind):
    where = os.path.join(folder, "final") if kind == "final" else folder
    found = [json.load(open(path)) for path in sorted(glob.glob(os.path.join(where, f"{which}_{kind}_*.json")))]
    return {run["config"]["seed"]: run for run in found}


def read(folder, which, metric):
    four, three, final = (runs(folder, which, kind) for kind in ("four", "three", "final"))
    folds = sorted(set(four) & set(three))
    return dict(
        folds=folds,
        oob4=np.array([fair_score(four[f], metric) for f in folds]),
        oob3=np.array([fair_score(three[f], metric) for f in folds]),
        test4=np.array([four[f]["test_at_score"][metric] for f in folds]),
        test3=np.array([three[f]["test_at_score"][metric] for f in folds]),
        final=np.array([final[s]["score"] for s in sorted(final)]),
    )


def se(values):
    return float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else float("nan")


def main(folders):
    print("| search | cell | out of bag 3/5 | 4/5 | test 3/5 | 4/5 | finals on test |")
    print("|---|---|---|---|---|---|---|")
    leads = []
    for folder in folders:
        metric = json.load(open(glob.glob(os.path.join(folder, "pick_four_f1.json"))[0]))["config"]["metric"]
        cells = {which: read(folder, which, metric) for which in ("pick", "defaults")}
        name = os.path.basename(folder)
        for which, c in cells.items():
            print(f"| {name} | {which} | {c['oob3'].mean():.3f} | {c['oob4'].mean():.3f} | {c['test3'].mean():.3f} | "
                  f"{c['test4'].mean():.3f} | {c['final'].mean():.3f} ({', '.join(f'{s:.3f}' for s in c['final'])}) |")
        p, d = cells["pick"], cells["defaults"]
        lead4 = p["oob4"] - d["oob4"]  # per fold: paired
        slope = (p["oob4"] - p["oob3"]) - (d["oob4"] - d["oob3"])
        extrapolated = lead4 + STEP * slope
        test_slope = (p["test4"] - p["test3"]).mean() - (d["test4"] - d["test3"]).mean()
        n = min(len(p["final"]), len(d["final"]))
        final = p["final"][:n] - d["final"][:n]
        leads.append((name, lead4.mean(), se(lead4), extrapolated.mean(), se(extrapolated),
                      (p["test4"] - d["test4"]).mean(), test_slope, final.mean(), se(final)))
    print()
    print("| search | lead out of bag, 4/5 | its slope-corrected lead (+%.2f x the 3/5 -> 4/5 step) | lead on test, fold models | "
          "the 3/5 -> 4/5 step's lead on test | lead of the finals on test |" % STEP)
    print("|---|---|---|---|---|---|")
    for name, l4, l4se, ex, exse, t4, ts, f, fse in leads:
        print(f"| {name} | {l4:+.3f} ± {l4se:.3f} | {ex:+.3f} ± {exse:.3f} | {t4:+.3f} | {ts:+.3f} | {f:+.3f} ± {fse:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
