"""
What `make advise` ends with (study/search/advise.py): its report, RESULTS/advise.md (the pick and its
honest score first, then score against cost in a figure, each checkpoint's layers scored before any
run (study/search/prior.py), every cell with why it stopped getting seeds, and every round), the pick
kept's words (study/search/keep.py keeps it), and the pick's seeds scored on the user's test file.
"""

import json
import math
import os
from dataclasses import dataclass

import methods
import result
from atomic import write_atomically
from study import figures, paired
from study.answer import fair_score
from study.search import prior
from study.search.keep import named_from
from study.search.rounds import spent
from study.search.search_folder import halves_read, reading, rounds_of, runs_by_cell, stopped_seconds
from study.search.space import expected_seconds, grid_seconds, models_of
from study.search.standing import PICK_SEEDS, anchor_of, by_cost, examples_of, label_of, rate_text, standing
from study.stats import counted

REPORT = "advise.md"


def write_report(s, found, chosen, waiting, test, kept, wall_seconds):
    """RESULTS/advise.md, and its first lines printed. `waiting`: None for a decided search, else the
    round it stopped before; kept: (the keep's line, the final model's line (study/search/folds.py)
    or None, the kept model's score on the test file or None, its seed). Returns the pick's row,
    its honest score and whether that is clear of a constant prediction (clear_of_constant) in it."""
    keep_line, final_line, kept_test, seed = kept
    observed, runs, metric = found.observed, found.runs, found.metric
    dev_size = reading(runs)[1]
    models = models_of(found.space)
    by_cell = runs_by_cell(s.folder, s.size, found.space)
    rows, state = cell_rows(observed, by_cell, metric, dev_size, waiting and set(waiting.cells),
                            label=lambda cell: label_of(cell, len(models) > 1), prefer=found.space.prefer)
    next_seconds = waiting and sum(expected_seconds(cell, observed, found.space) for cell in waiting.cells)
    words, short = verdict(waiting, s.budget_seconds, spent(observed), found.space.prefer, state.on_folds, next_seconds)
    honest = honest_of(found.space, observed, metric, dev_size, chosen)
    constant = constant_of(by_cell[chosen], metric)
    checkpoints = " or ".join(map(result.model_label, models)) if models != [""] else \
        result.model_label(runs[0]["config"]["model"])
    title = f"make advise: {runs[0]['config']['dataset']}, {checkpoints}, n = {s.size}"
    grid_cost = grid_seconds(found.space, observed, s.seeds)
    stopped = stopped_seconds(s.folder)  # spent too, though no result shows it
    total = spent(observed) + stopped
    spending = Spending(rounds_of(s.folder), total, wall_seconds if found.rounds else None, grid_cost, stopped)
    judged = Judged(test, honest, None if final_line else (seed, kept_test), constant)
    lines = report_lines(title, chosen, words, (rows, state), spending, keep_line, judged)
    if final_line:  # after the test file's line of the pick's runs
        lines.insert(lines.index(f"- {keep_line}"), final_line)
    at = lines.index("## Every cell that ran")  # after the answer, before the cells: the figure, the prior
    priors = prior.read_priors(s.folder, s.size)
    lines[at:at] = prior.report_lines(priors) if priors else []
    if figures.write_search_figure(s.folder, rows, chosen, len(models) > 1):
        lines[at:at] = ["![every cell: score against seconds, the pick ringed](advise.png)", ""]
    report = os.path.join(s.folder, REPORT)
    write_atomically(report, lambda f: f.write("\n".join(lines).encode()))
    row = next(row for row in rows if row["cell"] == chosen)
    row["honest"] = row["reported"] if honest is None else honest.score
    row["clear_of_constant"] = judged.clear_of_constant
    read = f"second half {row['reported']:.3f}, first half {row['picked']:.3f}" if honest is None else \
        f"honest {honest.score:.3f} ± {honest.error:.3f}, dev split {row['picked']:.3f}"
    if row["clear_of_constant"] is False:
        read += f", not clear of a constant prediction's {constant:.3f}"
    model = "the final model" if final_line else f"the model kept, seed {seed}"
    on_test = (f"test file {kept_test:.3f} ({model}; the pick's runs {test[1]:.3f}), " if kept_test is not None
               else f"test file {test[1]:.3f}, " if test else "")
    print(f"advise: {short}: {row['label']}, freeze {chosen.freeze}, rate {rate_text(chosen)} | " + on_test + read
          + f" | {total / 3600:.2f} h of runs, {total / grid_cost:.0%} of the grid's estimated"
          + f" | {named_from(report, s.shown_from)}")
    return row


def reported_score(run, metric):
    """The score a search of the halves reports: the fair score on the second half, which no choice read."""
    return run["dev_halves"][1][metric]


def cell_rows(observed, by_cell, metric, dev_size, waiting=None, label=lambda cell: methods.get(cell.method).label,
              prefer="cost"):
    """Per cell that ran ({Cell: [its runs]} `by_cell`): its runs, the mean the search read
    (`observed`), the second half's where it read the first (else None), the whole split's, cost
    and why it stopped getting seeds (`waiting`: as stop_reason reads it); the full cells
    cheapest first, or best first where the answer is the best (`prefer`)."""
    state = standing(observed, metric, dev_size)
    mean = lambda values: sum(values) / len(values)
    halves = halves_read([run for runs in by_cell.values() for run in runs])
    row = lambda cell: dict(
        cell=cell, label=label(cell), runs=len(by_cell[cell]), picked=state.means[cell],
        reported=mean([reported_score(r, metric) for r in by_cell[cell]]) if halves else None,
        whole=mean([fair_score(r, metric) for r in by_cell[cell]]),
        cost=state.costs[cell], why=stop_reason(cell, state, observed, waiting))
    order = by_cost(state, list(state.means)) if prefer == "cost" else \
        sorted(state.means, key=lambda cell: (-state.means[cell], state.costs[cell], cell))
    return [row(cell) for cell in order], state


def honest_of(space, observed, metric, dev_size, pick):
    """The pick's honest score where its runs kept their outputs (paired.honest_score: the choice
    made again on each bootstrap draw's in-bag dev examples, read on its out-of-bag ones), by the
    search's own rule (space.prefer); None for runs from before outputs were kept."""
    cells = {cell: examples_of(runs) for cell, runs in observed.items() if runs}
    state, anchor = standing(observed, metric, dev_size), anchor_of(space)
    if space.prefer == "best" and anchor in cells and paired.on_one_split(cells):
        return paired.honest_score(cells, metric, lambda in_bag: paired.highest_unless_no_gain(in_bag, cells, metric, anchor), pick)
    if space.prefer == "best" and anchor in cells:  # one file's folds: the margin (standing.answer_of)
        margins = {cell: state.margin(cell, anchor) if cell != anchor else 0.0 for cell in cells}
        return paired.honest_score(cells, metric, lambda in_bag: paired.highest_unless_near(in_bag, anchor, margins), pick)
    if space.prefer == "best":
        return paired.honest_score(cells, metric, paired.highest, pick)
    return paired.honest_score(cells, metric, lambda in_bag: paired.cheapest_in_band(
        in_bag, {cell: state.costs[cell] for cell in in_bag}, {cell: state.band_of(cell) for cell in in_bag}), pick, "cost")


def stop_reason(cell, state, observed, waiting=None):
    """Why a cell got no more seeds, for the search's report. `waiting`: None for a decided search,
    else the cells of the round it stopped before (the budget could not pay for it; none: nothing
    that could decide it can run)."""
    runs = len(observed.get(cell, []))
    if cell in state.out and cell in state.repeats:
        return f"out: {state.means[cell]:.3f} on each of its {runs} runs, below the band"
    if cell in state.out:
        return f"out: {state.means[cell]:.3f} + {state.rise:.3f}/√{runs} below the band"
    if cell in state.inside:
        return ("in the band" + (", the best" if cell == state.best else "")
                + (f" (the same score on each of its {runs} runs)" if cell in state.repeats else ""))
    if cell == state.best:
        return "the best"
    if not runs:
        return "not run"
    if state.settled(cell):  # seeds can no longer shrink their difference's error: the examples hold it
        against = f"{state.means[cell]:.3f} against {state.means[state.best]:.3f}, paired error {state.paired[cell]:.3f}"
        if state.means[cell] >= state.floor_of(cell):  # within the band
            return f"tied with the best: {against}: more seeds could not tell them apart"
        return f"below the best by more than its paired error: {against}: more seeds could not narrow that"
    if runs >= PICK_SEEDS:  # neither out nor in: its mean just below the band on every seed it can have
        return "below the band on its {} seeds: {} < {}".format(runs, *digits_apart(state.means[cell], state.floor_of(cell)))
    if waiting is None and state.reach(cell, runs) <= state.means[state.best]:
        return f"cannot overtake the best: {state.means[cell]:.3f} + {state.rise:.3f}/√{runs} below {state.means[state.best]:.3f}"
    if waiting is None:
        return "open: cheaper cells decided the answer"
    return "open: next to run when the search stopped" if cell in waiting else "open: the search stopped first"


def digits_apart(*values):
    """The values at 3 decimals, or at as many more (up to 6) as shows them apart: a mean just below
    the band read "0.300 < 0.300" at 3."""
    for places in range(3, 7):
        shown = [f"{value:.{places}f}" for value in values]
        if len(set(shown)) == len(set(values)):
            return shown
    return shown


def verdict(waiting, budget_seconds, spent_seconds, prefer="cost", on_folds=False, next_seconds=None):
    """(the report's words on whether the search decided, the printed line's). `waiting`: None for a
    decided search, else the policy.Round it stopped before; `prefer`: the answer sought (space.Space);
    `on_folds`: the runs were read on one file's folds (standing.answer_of's margin, not the gain);
    `next_seconds`: what the waiting round's runs should cost (the budget that resumes it names it)."""
    if waiting is None and prefer == "best":
        unless = "the margin of their difference does not tell it from" if on_folds else \
            "choosing it gains nothing over"
        return (f"decided: the best cell unless {unless} the anchor (the tool's defaults: k = 0 at its own rate), every "
                "other out of its reach or read against it as closely as these dev examples allow (more seeds could not narrow it)"), "decided"
    if waiting is None:
        return "decided: the cheapest cell within noise of the best, as the report's rule reads it", "decided"
    rule = "the pick is the best over what ran" if prefer == "best" else "the pick is the report's rule over what ran"
    if not waiting.cells:  # every cell that could decide it has all the seeds the folder allows
        return f"**not decided**: no run that could decide it can run here (--seeds); {rule}", "NOT decided (no run left)"
    first, count = waiting.cells[0], len(waiting.cells)
    resume = next_seconds and f"BUDGET={math.ceil(10 * (spent_seconds + next_seconds) / 3600) / 10:g}"
    more = f" (about {next_seconds / 3600:.2g} h: {resume} resumes the search to run it)" if resume else ""
    return (f"**not decided**: its next round ({waiting.step}, {count} run{'s' * (count > 1)}, the first "
            f"{methods.get(first.method).label} at freeze {first.freeze}){more} did not fit the budget, "
            f"{spent_seconds / 3600:.2f} of {budget_seconds / 3600:.2g} h spent; {rule}"), \
        "NOT decided (budget spent" + (f"; {resume} runs its next round)" if resume else ")")


@dataclass
class Spending:
    """What a search spent: its rounds [(step, [run names])], its runs' seconds, the last command's wall
    clock (None: it ran no round), what the grid it stands in for would cost here (space.grid_seconds;
    None: unknown), and the seconds of runs stopped once the answer was decided (in spent_seconds)."""
    rounds: list
    spent_seconds: float
    wall_seconds: float | None = None
    grid_seconds: float | None = None
    stopped_seconds: float = 0.0


def constant_of(runs, metric):
    """What the best constant prediction scores on the dev split (one class for every example; for a
    regression one score, no correlation: 0): the mean over the pick's `runs`, as one file's folds
    each hold a dev split of their own."""
    return sum(run["constant"][metric] for run in runs) / len(runs)


def clear_of_constant(honest, constant):
    """Whether the pick's honest score stands more than twice its standard error above the constant
    prediction's score: below that, the examples cannot tell the pick from a model that learnt
    nothing. None for a search of the halves (whose score has no error to read it by)."""
    return None if honest is None else honest.score - 2 * honest.error > constant


def constant_line(constant, metric):
    """The report's warning where the pick is not clear of the constant prediction."""
    one = "one score for every dev example (no correlation)" if metric in ("pearson", "spearman") else \
        "the best one class for every dev example"
    return (f"- **Not clear of a constant prediction**: {one} scores {constant:.3f}, and the honest score is not two "
            "standard errors above it: these examples cannot tell the pick from a model that learnt nothing. More "
            "examples, another checkpoint (MODEL) or a look at the labels may change that.")


def honest_line(row, honest):
    """The report's line on the pick's honest score: the bootstrap's, corrected for the choice
    (`honest`: paired.Honest), or the second half's for a search of the halves."""
    if honest is None:
        return (f"- Its honest score: **{row['reported']:.3f}** on the dev split's second half, which no choice read "
                f"({counted(row['runs'], 'run')}); {row['picked']:.3f} on the first half, which picked it.")
    return (f"- Its honest score: **{honest.score:.3f} ± {honest.error:.3f}**, corrected for having been chosen as "
            f"the {'best' if honest.rule == 'best' else 'cheapest within noise of the best'} of every cell that ran: "
            f"the choice made again on "
            f"each of {paired.DRAWS} bootstrap draws of the dev examples, each read on the examples its draw left out "
            f"(BBC; it agrees with this pick on {honest.agreement:.0%} of them). {row['picked']:.3f} on the whole dev "
            f"split ({counted(row['runs'], 'run')}) is the score that picked it, the maximum's: it reads high.")


@dataclass
class Judged:
    """What the report says judges the pick, besides the score that chose it: the user's test file,
    (the file, the mean of the pick's fair scores on it, its seeds) or None; its honest score, a
    paired.Honest, or None for a search of the halves (the second half's); the model kept, (its
    seed, its own score on the test file), or None (the final model: folds.final_line's); what the
    constant prediction scores on the dev split (constant_of)."""
    test: tuple | None = None
    honest: object = None
    kept: tuple | None = None
    constant: float | None = None

    @property
    def clear_of_constant(self):
        """clear_of_constant's verdict on this pick; None where no constant was read."""
        return None if self.constant is None else clear_of_constant(self.honest, self.constant)


def report_lines(title, chosen, verdict_words, cells, spending, keep_line, judged=Judged()):
    """advise.md's lines; verdict_words: verdict's first; cells: cell_rows' (rows, state); `judged`: a Judged."""
    test, honest = judged.test, judged.honest
    (rows, state), rounds, spent_seconds = cells, spending.rounds, spending.spent_seconds
    wall_seconds, grid_seconds = spending.wall_seconds, spending.grid_seconds
    chosen_row = next(row for row in rows if row["cell"] == chosen)
    best = next(row for row in rows if row["cell"] == state.best)
    read_on = "the first half" if honest is None else "the dev split"
    lines = [f"# {title}", "",
             f"**Pick: {chosen_row['label']}, freeze {chosen.freeze}, rate {rate_text(chosen)}** ({verdict_words}).",
             "",
             honest_line(chosen_row, honest),
             *([constant_line(judged.constant, state.metric)] if judged.clear_of_constant is False else []),
             *([f"- On your test file ({test[0]}): " + test_words(test, judged.kept)
                + " (a run a seed; from one file, a fold; each scored it as it ended, and no choice read it)."] if test else []),
             f"- The best cell on {read_on}: {best['label']}, freeze {best['cell'].freeze}, rate {rate_text(best['cell'])}: "
             f"{best['picked']:.3f} ({counted(best['runs'], 'run')}); noise band ± {state.band_of(chosen) if chosen != state.best else state.band:.3f}"
             + (" (the paired difference's, on the same examples)." if chosen in state.paired else ".")
             + (anchor_kept_words(state, chosen, best['picked'] - chosen_row['picked'])
                if honest and honest.rule == "best" and chosen != state.best else ""),
             f"- Spent: {spent_seconds / 3600:.2f} h of runs ({sum(row['runs'] for row in rows)} runs in {len(rounds)} rounds"
             + (f", and {spending.stopped_seconds:.0f} s of runs stopped once the answer was decided)"
                if spending.stopped_seconds else ")")
             + (f"; {wall_seconds / 3600:.2f} h of wall clock for the last command's rounds" if wall_seconds else "")
             + (f"; the grid (every method at every depth at its own rate, 5 seeds, at this machine's seconds a run) "
                f"would take about {grid_seconds / 3600:.2f} h, so the search spent {spent_seconds / grid_seconds:.0%} of it."
                if grid_seconds else "."),
             f"- {keep_line}", "",
             "## Every cell that ran", "",
             *cells_header(honest is None)]
    lines += [f"| {row['label']} | {row['cell'].freeze} | {rate_text(row['cell'])} | {row['runs']} | {row['picked']:.3f} "
              + (f"| {row['reported']:.3f} " if honest is None else "")
              + f"| {row['whole']:.3f} | {row['cost']:.1f} | {row['why']} |" for row in rows]
    lines += ["", "## The rounds", "", "| round | step | runs |", "|---|---|---|"]
    lines += [f"| {i} | {step} | {', '.join(names)} |" for i, (step, names) in enumerate(rounds, 1)]
    return lines + [""]


def anchor_kept_words(state, anchor, lead):
    """Why the best cell, `lead` above the pick, was not taken over the defaults the pick keeps
    (standing.answer_of): no gain out of bag, or for runs read on one file's folds or that kept no
    outputs, within the margin."""
    gain = state.gain_over(anchor)
    why = f"choosing the best gains nothing over it on the examples each choice left out (BBC: {gain:+.3f})" \
        if gain is not None else f"no more than the {state.margin(state.best, anchor):.3f} that would tell them apart " \
        + ("(read on one file's folds, cells on other folds read other examples)" if state.on_folds else
           "(runs that kept no outputs: no gain out of bag is read)")
    return f" It leads the pick by {lead:.3f}, but {why}: the pick stays with the anchor, the tool's defaults."


def test_words(test, kept):
    """The test file's scores: the model kept's own where it scored the file, and the pick's runs' mean."""
    mean = f"the mean of the pick's {counted(test[2], 'run')} there"
    if kept is None or kept[1] is None:
        return f"**{test[1]:.3f}**, {mean}"
    return f"**{kept[1]:.3f}**, the model kept (seed {kept[0]}); {test[1]:.3f}, {mean}"


def cells_header(halves):
    """The cells table's words and head: a search of the halves shows both, one of the whole split its mean there."""
    cost = ("*s / run*: what a run of the cell costs, the fastest median among the rates run at its method and depth "
            "(a rate does not change the work), as the grid's report costs it.")
    if halves:
        return ["Cheapest first. *First half*: the fair score the search picks by; *second half*: the same runs on the "
                "half no choice read; *whole*: the whole dev split, as the grid's report reads it; " + cost, "",
                "| method | frozen | rate | runs | first half | second half | whole | s / run | why it stopped |",
                "|---|---|---|---|---|---|---|---|---|"]
    return ["*Read*: the mean fair score on the dev split the search picks by (the report's *whole* is the same "
            "reading of each run, kept for a search of the halves); " + cost, "",
            "| method | frozen | rate | runs | read | whole | s / run | why it stopped |", "|---|---|---|---|---|---|---|---|"]


def scores_on_test(paths, metric, shared, run_flags, test_file, workers, echo=print):
    """The pick's seeds (their result `paths`, under FOLDER/test/) run again with the test file as
    their dev split: their fair scores on it, a figure no choice of the search has read."""
    echo(f"advise: the pick's {len(paths)} seeds on {test_file}")
    code = workers.run_all(paths, shared, with_dev_file(run_flags, test_file) + ["--evaluations", "last"], echo)
    if code:
        raise RuntimeError(f"a run of the pick on {test_file} failed (exit code {code})")
    scores = []
    for path in paths:
        with open(path) as f:
            scores.append(fair_score(json.load(f), metric))
    return scores


def scored_on(test_file, runs_by_seed, metric):
    """{seed: its run's score on `test_file`} for the runs that scored that file as they ended (--test-file)."""
    same = lambda path: path and os.path.realpath(path) == os.path.realpath(test_file)
    return {seed: run["test_at_score"][metric] for seed, run in runs_by_seed.items()
            if run.get("test_at_score") and same(run["config"].get("test_file"))}


def with_dev_file(run_flags, test_file):
    """The run options with `test_file` in place of --dev-file's file."""
    if "--dev-file" not in run_flags:
        raise ValueError("--test-file goes with your own --train-file and --dev-file (TRAIN_FILE, DEV_FILE): "
                         "GLUE's test labels are not public")
    at = run_flags.index("--dev-file") + 1
    return run_flags[:at] + [test_file] + run_flags[at + 1:]
