"""
The report's answer in words (report.md's "The answer" sections): per train size the table of
every cell, the recommendation and what qualifies it, each method's line search, and what did not
run. The rule they state is study/answer.py's; this module only says it.
"""

from methods import lr_text
from study.answer import answer_cells, dev_standard_error, kind_name, method_name, recommend, runner_up, size_order
from study.stats import number


def rates_by_depth(cells):
    """{method kind: {(depth, rate): row}} for the cells run at a rate (the probe has none)."""
    by_kind = {}
    for row in cells:
        if row["config"]["lr"] is not None:
            by_kind.setdefault(kind_name(row["config"]), {})[(row["freeze"], row["config"]["lr"])] = row
    return by_kind


def line_searches(cells):
    """{method kind: (depth, [(rate, fair mean, runs)], picked rate)} for each method's line search:
    the depth it ran at the most rates, two or more; the pick is the best fair mean."""
    searches = {}
    for name, grid in rates_by_depth(cells).items():
        depths = sorted({k for k, _ in grid})
        searched = max(depths, key=lambda k: (sum(depth == k for depth, _ in grid), k == 0))
        rates = sorted((lr, row["fair_mean"], row["runs"]) for (k, lr), row in grid.items() if k == searched)
        if len(rates) > 1:
            searches[name] = (searched, rates, max(rates, key=lambda rate: rate[1])[0])
    return searches


def noise_at_constant(row, metric):
    """The dev split's standard error at the constant prediction's score (the majority class's, ...)."""
    return dev_standard_error(row["constant"], metric, row["dev_size"])


def learns_nothing(rows, metric):
    """Every row's fair mean within the dev split's noise of the constant prediction's score."""
    return all(row["fair_mean"] <= row["constant"] + noise_at_constant(row, metric) for row in rows)


def rate_search_lines(cells, metric):
    """A line for each method's line search: the fair mean at each rate and the rate it picks; a
    pick at the largest (or smallest) rate tried says that a better one may lie beyond, so its
    cells are not yet its best, unless no rate learned anything; a rate with fewer runs than the
    search's most says how many."""
    lines = []
    for name, (searched, rates, best) in sorted(line_searches(cells).items()):
        most = max(runs for _, _, runs in rates)
        tried = ", ".join(f"{lr_text(lr)} {number(score)}" + (f" ({runs} of {most} runs)" if runs < most else "")
                          for lr, score, runs in rates)
        line = f"Rate search, {name} at k = {searched} (fair means): {tried}; it picks {lr_text(best)}."
        searched_rows = [row for (k, _), row in rates_by_depth(cells)[name].items() if k == searched]
        if learns_nothing(searched_rows, metric):
            noise = noise_at_constant(searched_rows[0], metric)
            line += (f" No rate tried beats the constant prediction by more than the dev split's noise (± {number(noise)}): "
                     "the search picks among rates that learn nothing measurable.")
        elif best in (rates[0][0], rates[-1][0]):
            side = "largest" if best == rates[-1][0] else "smallest"
            line += f" That is the {side} rate tried; a better one may lie {'above' if side == 'largest' else 'below'}."
        lines.append(line)
    return lines


def depths_at_rates_lines(cells):
    """Where a method's depths ran at two rates or more (the study's and the searched one): a table
    of its fair means, a row per depth and a column per rate, to read the depth at either rate."""
    lines = []
    for name, grid in sorted(rates_by_depth(cells).items()):
        depths = sorted({k for k, _ in grid})
        swept = sorted(lr for lr in {lr for _, lr in grid} if sum((k, lr) in grid for k in depths) > 1)
        if len(swept) < 2:
            continue
        lines += ["", f"{name}'s depths at each rate they ran at (fair mean ± std):", "",
                  "| frozen | " + " | ".join(lr_text(lr) for lr in swept) + " |", "|---|" + "---|" * len(swept)]
        for k in depths:
            lines.append(f"| {k} | " + " | ".join(
                f"{number(grid[k, lr]['fair_mean'])} ± {number(grid[k, lr]['fair_std'])}" if (k, lr) in grid else ""
                for lr in swept) + " |")
        lines.append("")
    return lines


def missing_text(cells, here):
    """'fine-tune, lr 2e-4 at k = -1, 1, 2; SetFit at k = 4': the cells (a method at a rate and a
    depth) run at some size but not at this one, less the depths at a rate this size's own line
    search did not pick; and the depths run here at another rate but not at the pick (a depth that
    trains nothing needs no rate). Each is named as this size's table would name it."""
    searches = line_searches(here)
    cell = lambda row: (kind_name(row["config"]), row["config"]["lr"], row["freeze"])
    configs = {cell(row): row["config"] for row in cells}  # one per cell, any size
    ran_here = {cell(row) for row in here}
    missing = {}  # (kind, lr) -> (a config at that rate, the depths not run)
    for (name, lr, k), config in sorted(configs.items(), key=lambda item: (item[0][0], item[0][1] or 0.0, item[0][2])):
        if name in searches and lr != searches[name][2] and k != searches[name][0]:
            continue  # a depth at a rate this size's search did not pick: not to run here
        if (name, lr, k) not in ran_here:
            missing.setdefault((name, lr), (config, set()))[1].add(k)
    for name, grid in rates_by_depth(here).items():
        if name in searches:
            pick = searches[name][2]
            for (k, _), row in sorted(grid.items()):
                if (k, pick) not in grid and row["steps"] != 0:
                    missing.setdefault((name, pick), ({**row["config"], "lr": pick}, set()))[1].add(k)
    size = here[0]["size"]
    return "; ".join(sorted(rates_text(group, size) for group in same_depths(missing)))


def same_depths(missing):
    """missing's entries grouped by method and missing depths: a search run elsewhere is one group."""
    groups = {}
    for (name, _), (config, depths) in missing.items():
        groups.setdefault((name, tuple(sorted(depths))), []).append(config)
    return [(configs, depths) for (_, depths), configs in groups.items()]


def rates_text(group, size):
    """'LoRA, lr 1e-3, 2e-3 at k = 0, 3' for several rates; one rate is named as the table at `size`
    names it ('fine-tune at k = 2', the method's own rate at that size unsaid)."""
    configs, depths = group
    at = f" at k = {', '.join(str(k) for k in depths)}"
    if len(configs) == 1:
        return method_name({**configs[0], "size": size}) + at
    rates = sorted(config["lr"] for config in configs)  # several configs: a method with rates (never the probe)
    return f"{kind_name(configs[0])}, lr {', '.join(lr_text(lr) for lr in rates)}" + at


def thin_lines(pick, best, here):
    """A line for the recommended and the best cell when either has fewer runs than the fullest
    cell at its size: the answer then rests on a part of a grid, and says so."""
    fullest = max(row["runs"] for row in here)
    thin = [row for row in ([pick] if pick is best else [pick, best]) if row["runs"] < fullest]
    return [f"Partial: {row['method']} at k = {row['freeze']} has {row['runs']} of the {fullest} runs of the fullest "
            f"cells here, so the answer may move as it fills." for row in thin]


def recommendation_lines(pick, best, band, here):
    """The recommendation at one size, and what qualifies it: a thin cell, nothing above the constant."""
    size = pick["size"]
    lines = ["", f"Recommended at n = {size}: **{pick['method']}, freeze {pick['freeze']}** (fair {number(pick['fair_mean'])}; "
             f"the best, {best['method']} at k = {best['freeze']}: {number(best['fair_mean'])}, noise ± {number(band)}), "
             f"{number(pick['cost'], 1)} s a run."]
    lines += thin_lines(pick, best, here)
    if best["fair_mean"] - band <= best["constant"]:
        lines.append(f"No cell is clear of the best constant prediction ({number(best['constant'])}) by more than the "
                     f"noise: at n = {size} nothing learns beyond it, and the pick is only the cheapest.")
    return lines


def answer_lines(runs, metric):
    """report.md lines: per train size the table of every cell, the recommendation, and what was
    not run there; with the rule they follow. Returns (lines, {size: (recommended row, runner-up
    row or None)})."""
    cells = answer_cells(runs, metric)
    if len({(row["method"], row["freeze"]) for row in cells}) < 2:
        return [], {}
    lines = ["## The answer: every method side by side", "",
             f"Every cell that ran, read alike. *Fair*: each run's dev {metric} at a point chosen without the dev split "
             "(the recipe's last evaluation; SetFit and the probe score the dev split once), beside the study's best of "
             "the evaluations. *Recommended*: the cheapest cell (median seconds a run; a rate does not change a run's "
             "work, so one method and depth cost the fastest of its rates' medians, and of equal costs the better "
             "fair mean wins) whose fair mean is within noise of the best fair mean, the noise being the larger of "
             "that cell's seed std and the dev split's own standard error at its score (binomial for accuracy and "
             "F1, (1 - r²) / √(N - 1) for correlations), so a "
             "deterministic cell does not shut out the others. *Rate search*: a method and depth run at several rates "
             "is a cell per rate, and the recommendation reads them all on the fair score, so the rate too is picked "
             "on it, never on the best of the evaluations; a method's other depths run at the rate its search picks at "
             "that size. *Not run*: the cells that ran at another size, less the depths at a rate this size's own "
             "search did not pick; and the depths a method ran here at another rate but not at the one its search "
             "picked here (a depth that trains nothing, such as SetFit with every layer frozen, needs no rate). "
             "*Partial*: a recommended or best cell with fewer runs than the fullest cell at its size.", ""]
    picks = {}
    for size in sorted({row["size"] for row in cells}, key=size_order):
        here = [row for row in cells if row["size"] == size]
        lines += [f"**n = {size}**", "",
                  "| method | frozen | runs | best of evaluations | fair: mean | std | train | s / run | peak MB | trainable |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| {row['method']} | {row['freeze']} | {row['runs']} | {number(row['best_mean'])} "
                  f"| {number(row['fair_mean'])} | {number(row['fair_std'])} | {number(row['train_mean'])} "
                  f"| {number(row['seconds'], 1)} | {number(row['peak_mb'], 0)} | {number(row['trainable'])} |" for row in here]
        try:
            pick, best, band = recommend(here, metric)
        except ValueError as e:
            lines += ["", f"No recommendation: {e}."]
        else:
            picks[size] = pick, runner_up(here, pick, best, band, metric)
            lines += recommendation_lines(pick, best, band, here)
        lines += rate_search_lines(here, metric)
        missing = missing_text(cells, here)
        lines += [f"Not run at n = {size}: {missing}." if missing else f"Every cell ran at n = {size}."]
        lines += depths_at_rates_lines(here) or [""]
    return lines, picks


def summary_lines(picks):
    """The report's opening: per train size the recommended cell, its fair score and cost, and the
    runner-up (answer_lines' picks)."""
    cell = lambda row: (f"{row['method']}, freeze {row['freeze']} | {number(row['fair_mean'])} | {number(row['cost'], 1)}"
                        if row else "| |")
    lines = ["## The answer", "",
             "Per train size, the recommended cell: the cheapest within noise of the best, every method and rate read "
             "alike on the fair score (each run's dev score at a point the dev split did not choose). *Runner-up*: the "
             "next cheapest cell of another method or depth within that noise, else the best of them. How the rule reads every cell: *The answer: "
             "every method side by side*, below.", "",
             "| train size | recommended | fair | s / run | runner-up | fair | s / run |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {size} | {cell(pick)} | {cell(second)} |" for size, (pick, second) in picks.items()]
    return lines + [""]
