"""
What would bring make advise's search, left to decide on its own, down to a few percent of a grid's
compute (#79): the search replayed over committed grids (study/search/replay.py), with no budget, and
three levers tried one at a time, each read by what it saves and whether the pick stays in the
grid's band at every size.

    .venv/bin/python -m bench.advise_levers docs/results/sst2-minilm/runs docs/results/cola-minilm/runs \
        docs/results/sst2-mpnet/runs

1. Where the seconds go: the search's, per method and per policy step, as a share of the grid's;
   and on the cells it ends calling out of the band, the most any rule that skips or stops the
   hopeless (a stopping rule, a prior from the cached features) could save.
2. Stopping what cannot win, from the grids' own curves (a run evaluated every half epoch): a run
   stops at a third, a half or two thirds of its steps when its dev score there plus the rise a
   run makes from that point to its end (a quantile of every run of the grids, pooled) is below
   the band's floor at the time. The curve is the whole dev split's, where a search would read its
   first half.
3. Fewer seeds: the pick's (policy.PICK_SEEDS) and the best's (BEST_SEEDS; the best is read on the
   pick's seeds where it could push the pick out, policy.best_seeds, but in the last such line).
   (SetFit's cheap screen, a third lever, was measured not to pay and then removed, its fast body
   making it moot: docs/records/advise-history.)
4. N runs at once (a GPU, Slurm, make -j N): the search's wall clock, a round after another, against
   the grid's, every run at once, with its in/out and best rounds filled (policy.filled) and not.
5. The floor: what a search that knew the grid's answer in advance would still spend to show it as
   the report's rule reads it: the answer on PICK_SEEDS seeds, the grid's best cell on BEST_SEEDS,
   and (to know each method's level at all) one run of each method at its least frozen depth.
"""

import argparse
import collections

import numpy as np

import methods
from study.search import policy
from study.search import standing as where
from study.answer import answer_cells, fair_score, recommend
from study.search.replay import grid_answer, grid_at, replay, runs_of, search_cost
from study.search.standing import Cell, standing

SIZES = (50, 100, 200, 500, 1000)
SHARES = (1 / 3, 1 / 2, 2 / 3)  # of a run's steps, where a stopping rule reads its curve


def score_at(run, share, metric):
    """The dev score of the run's last evaluation at or before `share` of its steps (None: none)."""
    points = [point for point in run["curve"] if point["step"] <= share * run["total_steps"] + 1e-9]
    return points[-1][metric] if points else None


def rises(folders, metric):
    """{share: the rises from the score at that share of a run's steps to its fair score}, every
    run of the grids judged by `metric` whose curve has three points or more."""
    found = collections.defaultdict(list)
    for folder in folders:
        for size in SIZES:
            runs, judged, _ = grid_at(folder, size)
            for run in runs if judged == metric else []:
                for share in SHARES if len(run["curve"]) >= 3 else ():
                    at = score_at(run, share, metric)
                    if at is not None:
                        found[share].append(fair_score(run, metric) - at)
    return found


def stopping_rule(headroom, metric):
    """policy's replay hook: stop at the first share where the score plus its headroom is below the floor."""
    def stop(run, floor):
        for share in SHARES if len(run["curve"]) >= 3 else ():
            at = score_at(run, share, metric)
            if at is not None and at + headroom[share] < floor:
                return share, at + headroom[share]
        return None
    return stop


def in_band(folder, size, pick):
    """Whether the pick's fair mean over all the grid's runs of its cell is in the grid's band."""
    runs, metric, _ = grid_at(folder, size)
    rows = answer_cells(runs, metric)
    _, best, band = recommend(rows, metric)
    row = next(row for row in rows if Cell.of(row["config"]) == Cell(**pick))
    return row["fair_mean"] >= best["fair_mean"] - band


def sweep(folders, stop_of=lambda folder: None, jobs=1):
    """{grid: share of its seconds the search spent}, the sizes whose pick left the band, and the
    replays' orders."""
    shares, outside, orders = {}, [], []
    for folder in folders:
        spent = grid = 0.0
        for size in SIZES:
            outcome = replay(folder, size, stop=stop_of(folder), jobs=jobs)
            spent, grid = spent + outcome["seconds"], grid + outcome["grid_seconds"]
            orders.append((folder, outcome))
            if not in_band(folder, size, outcome["pick"]):
                outside.append(f"{name_of(folder)} n = {size}")
        shares[name_of(folder)] = spent / grid
    return shares, outside, orders


def name_of(folder):
    return folder.rstrip("/").split("/")[-2]


def line(label, shares, outside):
    return (f"| {label} | " + " | ".join(f"{share:.1%}" for share in shares.values())
            + f" | {', '.join(outside) or 'none'} |")


def set_seeds(pick_seeds, best_seeds):
    """The policy's seed constants, where each module reads them (the pick's is also where it stands)."""
    where.PICK_SEEDS = policy.PICK_SEEDS = pick_seeds
    policy.BEST_SEEDS = best_seeds


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+")
    args = p.parse_args(argv)
    shares, outside, orders = sweep(args.folders)
    grid_total = collections.Counter()
    for folder in args.folders:
        grid_total[name_of(folder)] = sum(r["seconds"]["total"] for r in runs_of(folder)
                                          if r["config"]["size"] in SIZES)
    print("## 1. Where the search's seconds go (no budget), as a share of each grid's\n")
    by_method, by_step = collections.defaultdict(collections.Counter), collections.defaultdict(collections.Counter)
    ended_out = collections.Counter()
    for folder, outcome in orders:
        out = standing(outcome["observed"], outcome["metric"], outcome["dev_size"]).out
        for cell, _, seconds, step in outcome["order"]:
            ended_out[name_of(folder)] += seconds * (cell in out)
            by_method[name_of(folder)][cell.method] += seconds
            by_step[name_of(folder)][f"{'SetFit' if cell.method == methods.SETFIT.name else 'the others'} in {step}"] += seconds
    for name in by_method:
        shown = lambda counts: ", ".join(f"{key} {seconds / grid_total[name]:.1%}"
                                         for key, seconds in sorted(counts.items(), key=lambda item: -item[1]))
        print(f"- {name}: by method {shown(by_method[name])}; by step {shown(by_step[name])}; "
              f"on cells that ended out of the band {ended_out[name] / grid_total[name]:.1%}")
    print("\n## 2. Stopping what cannot win, and 3. fewer seeds\n")
    print("| change | " + " | ".join(shares) + " | picks outside the grid's band |")
    print("|---|" + "---|" * len(shares) + "---|")
    print(line("today", shares, outside))
    for quantile in (1.0, 0.99, 0.95, 0.5):
        headrooms = {}
        for metric in sorted({grid_at(folder, 50)[1] for folder in args.folders}):
            headrooms[metric] = {share: float(np.quantile(found, quantile)) for share, found in rises(args.folders, metric).items()}
        stop_of = lambda folder: stopping_rule(headrooms[grid_at(folder, 50)[1]], grid_at(folder, 50)[1])
        shown = ", ".join(f"{metric} " + "/".join(f"{h:.2f}" for h in headroom.values()) for metric, headroom in headrooms.items())
        print(line(f"stop at 1/3, 1/2, 2/3 of the steps, headroom the rises' {quantile:.0%} quantile ({shown})",
                   *sweep(args.folders, stop_of)[:2]))
    seeds = policy.PICK_SEEDS, policy.BEST_SEEDS
    for pick_seeds, best_seeds in ((3, 2), (2, 2), (2, 1)):
        set_seeds(pick_seeds, best_seeds)
        print(line(f"the pick on {pick_seeds} seeds, the best on {best_seeds}", *sweep(args.folders)[:2]))
    set_seeds(*seeds)
    read_alike = policy.best_seeds  # the best on the pick's seeds where it could push the pick out
    policy.best_seeds = lambda cell, state, candidate: policy.BEST_SEEDS
    print(line(f"the pick on {policy.PICK_SEEDS} seeds, the best always on {policy.BEST_SEEDS}", *sweep(args.folders)[:2]))
    policy.best_seeds = read_alike
    print("\n## 4. 8 runs at once: the search's wall clock against the grid's\n")
    print_walls(args.folders, 8)
    print("\n## 5. The floor: the grid's answer shown, by a search that knew it\n")
    print_floor(args.folders)


def print_floor(folders):
    """Per grid, an oracle's seconds as a share of the grid's: the answer on PICK_SEEDS seeds and
    the best cell on BEST_SEEDS (each at its runs' median search_cost), then with one run of each
    method at its least frozen depth too."""
    print("| grid | the answer and the best on their seeds | and each method's least frozen depth once |")
    print("|---|---|---|")
    for folder in folders:
        grid, shown, known = 0.0, 0.0, 0.0
        for size in SIZES:
            runs, metric, cells = grid_at(folder, size)
            cost = lambda cell: float(np.median([search_cost(run) for run in cells[cell]]))
            answer = grid_answer(runs, metric)
            means = {cell: np.mean([fair_score(run, metric) for run in ran]) for cell, ran in cells.items() if len(ran) >= 3}
            best = max(means, key=means.get)
            floor = policy.PICK_SEEDS * cost(answer) + (policy.BEST_SEEDS * cost(best) if best != answer else 0.0)
            least = {}  # per method, its least frozen depth at its cheapest rate
            for cell in sorted(cells, key=lambda cell: (cell.freeze, cost(cell))):
                least.setdefault(cell.method, cell)
            grid += sum(run["seconds"]["total"] for run in runs)
            shown += floor
            known += floor + sum(cost(cell) for cell in least.values() if cell not in (answer, best))
        print(f"| {name_of(folder)} | {shown / grid:.1%} | {known / grid:.1%} |")


def print_walls(folders, jobs):
    """Per grid, the search's run-seconds and wall clock on `jobs` workers, rounds filled and not."""
    fill = policy.filled
    print("| grid | rounds filled | search's run-seconds / grid's | search's wall clock / grid's | picks outside the band |")
    print("|---|---|---|---|---|")
    for filled in (False, True):
        policy.filled = fill if filled else (lambda round_, *rest: round_)
        _, outside, orders = sweep(folders, jobs=jobs)
        for folder in folders:
            mine = [outcome for where, outcome in orders if where == folder]
            total = lambda key: sum(outcome[key] for outcome in mine)
            print(f"| {name_of(folder)} | {'yes' if filled else 'no'} | {total('seconds') / total('grid_seconds'):.1%} "
                  f"| {total('wall_seconds') / 3600:.2f} h / {total('grid_wall_seconds') / 3600:.2f} h "
                  f"| {', '.join(o for o in outside if o.startswith(name_of(folder))) or 'none'} |")
    policy.filled = fill


if __name__ == "__main__":
    main()
