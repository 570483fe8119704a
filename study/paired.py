"""
Cells told apart on the same examples (make advise, and the report where runs keep their outputs).

Every cell is scored on the same dev examples, so the noise of a *difference* between two cells is
far smaller than the noise of either's level: most of what makes one dev split easy or hard is
shared. This module is the one home of that comparison and of the honest score it makes possible:

    a run's outputs on the dev split (result.outputs_in)
      └─► its score under each of DRAWS fixed bootstrap draws of the examples (Examples.draws)
            └─► a cell's draws: its seeds' mean, draw by draw
                  ├─► two cells' paired error: the spread of their difference across the draws
                  ├─► what choosing the best gains over the anchor: each draw's best on its in-bag
                  │   examples, scored on its out-of-bag ones, less the anchor there (make advise's answer)
                  └─► the honest score: the pick's selection replayed on each draw's in-bag
                      examples, scored on that draw's out-of-bag ones (BBC: Tsamardinos et al. 2018)

The draws are the same for every run of a split (a seeded generator, by the split's size), so two
cells' draws pair example by example. Seeds enter as the search reads them (study/search/standing.py): a
cell's mean over its seeds, the seed spread beside it.
"""

import functools
import math
from dataclasses import dataclass

import numpy as np

import metrics
import result

DRAWS = 1000  # bootstrap draws of the dev examples: the paired error to about 2%, in milliseconds a run
INNER_DRAWS = 100  # each draw's own bootstrap of its in-bag examples, where the answer's rule is replayed


def draw_picks(size, draws=DRAWS, fold=0):
    """The examples (draws, size) of `draws` bootstrap draws of `size` examples, the same for every
    run of a split (seed 0), or of a file's fold (its own stream: two folds' examples are drawn apart)."""
    return np.random.default_rng([0, fold] if fold else 0).integers(0, size, size=(draws, size))


def counts_of(picks, size):
    """How often each of `size` examples is drawn in each row of `picks` (rows, size), float32."""
    rows = picks.shape[0]
    flat = (np.arange(rows)[:, None] * size + picks).ravel()
    return np.bincount(flat, minlength=rows * size).reshape(rows, size).astype(np.float32)


@functools.lru_cache(maxsize=16)
def draw_weights(size, draws=DRAWS, fold=0):
    """(in-bag counts (draws, size), out-of-bag indicator (draws, size)) of draw_picks' draws, float32."""
    counts = counts_of(draw_picks(size, draws, fold), size)
    return counts, (counts == 0).astype(np.float32)


def one_hot(values, classes):
    out = np.zeros((len(values), classes), dtype=np.float32)
    out[np.arange(len(values)), values] = 1.0
    return out


def weighted_scores(truth, predicted, weights, num_labels, metric):
    """`metric` (metrics.NAMES) of the predictions under each row of example weights (rows, N): the
    score of the sample that repeats example i weights[r, i] times, as metrics.scores computes it
    (Spearman: the Pearson correlation of the whole split's ranks, which a resample keeps)."""
    if num_labels == 1:
        x, y = (metrics.ranks(truth), metrics.ranks(predicted)) if metric == "spearman" else (truth, predicted)
        return weighted_pearson(np.asarray(x, np.float64), np.asarray(y, np.float64), weights)
    truth, predicted = np.asarray(truth), np.asarray(predicted)
    correct = (truth == predicted).astype(np.float32)
    total = weights.sum(1)
    if metric == "accuracy":
        return weights @ correct / total
    actual = weights @ one_hot(truth, num_labels)  # (rows, C): each class's examples
    guessed = weights @ one_hot(predicted, num_labels)  # each class's predictions
    hits = weights @ (one_hot(truth, num_labels) * correct[:, None])  # each class's right ones
    if metric == "macro_f1":  # over the classes the sample's labels or predictions hold
        present = (actual + guessed) > 0
        f1 = np.where(present, 2 * hits / np.maximum(actual + guessed, 1e-30), 0.0)
        return f1.sum(1) / np.maximum(present.sum(1), 1)
    if metric == "f1":
        return np.where(hits[:, 1] > 0, 2 * hits[:, 1] / np.maximum(actual[:, 1] + guessed[:, 1], 1e-30), 0.0)
    if metric == "mcc":
        right = hits.sum(1)
        numerator = right * total - (actual * guessed).sum(1)
        denominator = np.sqrt(np.maximum((total ** 2 - (guessed ** 2).sum(1)) * (total ** 2 - (actual ** 2).sum(1)), 0))
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1e-30), 0.0)
    raise ValueError(f"no weighted form of {metric}")


def weighted_pearson(x, y, weights):
    total = weights.sum(1)
    mean_x, mean_y = weights @ x / total, weights @ y / total
    xx = weights @ (x * x) / total - mean_x ** 2
    yy = weights @ (y * y) / total - mean_y ** 2
    xy = weights @ (x * y) / total - mean_x * mean_y
    denominator = np.sqrt(np.maximum(xx * yy, 0))
    return np.where(denominator > 0, xy / np.maximum(denominator, 1e-300), 0.0)


@dataclass(eq=False)
class Examples:
    """One run's outputs on a split (result.Outputs) as a comparison reads them."""
    outputs: object  # result.Outputs
    num_labels: int
    fold: int | None = None  # which examples: the fold scored, for one labelled file's folds; None: the dev split

    @property
    def size(self):
        return len(self.outputs.truth)

    def draws(self, metric):
        """(its score on each draw's in-bag sample (DRAWS,), on each draw's out-of-bag examples (DRAWS,))."""
        truth, predicted = self.outputs.truth, self.outputs.predicted
        return scores_on_draws(truth.tobytes(), str(truth.dtype), predicted.tobytes(), str(predicted.dtype),
                               self.num_labels, metric, self.fold or 0)


@functools.lru_cache(maxsize=4096)
def scores_on_draws(truth, truth_dtype, predicted, predicted_dtype, num_labels, metric, fold=0):
    """Examples.draws, once per predictions: a search reads its folder again each round."""
    truth, predicted = np.frombuffer(truth, truth_dtype), np.frombuffer(predicted, predicted_dtype)
    inside, outside = draw_weights(len(truth), DRAWS, fold)
    score = lambda weights: weighted_scores(truth, predicted, weights, num_labels, metric).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):  # a draw of a small split may leave nothing out: NaN there
        return score(inside), score(outside)


def examples_of(record, split="dev"):
    """A run's Examples on `split` from its result record, or None where it kept no outputs. A run
    of one labelled file's folds (--folds) is read on its fold, the fold its seed names."""
    outputs = result.outputs_in(record, split)
    config = record["config"]
    fold = config["seed"] if config.get("folds") and split == "dev" else None
    return None if outputs is None else Examples(outputs, config["num_labels"], fold)


def cell_draws(examples, metric, out_of_bag=False):
    """A cell's mean score on each draw (its runs' Examples), in-bag or out-of-bag: its seeds' mean on
    the dev split; over one file's folds, the mean of its folds' (each fold's examples drawn on
    their own), as the search reads a fold as a seed."""
    return np.mean([run.draws(metric)[1 if out_of_bag else 0] for run in examples], axis=0)


def paired_error(a, b, metric):
    """The standard error, over the examples, of the difference between two cells' mean scores read
    on the same examples (a, b: each cell's runs' Examples): the dev split, or one file's folds, each
    fold's examples paired with the other cell's on that fold and drawn apart from the other folds';
    None where a run kept no outputs, or the two were read on different examples."""
    if not a or not b or any(run is None for run in [*a, *b]) or not same_examples(a, b):
        return None
    return float(np.std(cell_draws(a, metric) - cell_draws(b, metric), ddof=1))


def same_examples(a, b):
    """Whether two cells' runs were read on one dev split (of one size), or on folds they share."""
    if any(run.fold is None for run in [*a, *b]):
        return all(run.fold is None for run in [*a, *b]) and a[0].size == b[0].size
    return bool({run.fold for run in a} & {run.fold for run in b})


def noise_between(a, b, metric, spread, level_band):
    """How far apart two cells' means may lie and still be within noise of each other: the one rule
    the search (study/search/standing.py), its replay and the grid's report (study/answer.py) all
    call. Where both kept their outputs on the same dev examples (a, b: their runs' Examples), the
    larger of the seeds' spread and the paired error of their difference; else, for runs from
    before outputs were kept, `level_band`, the noise of one cell's level on the dev split."""
    return noise_of(paired_error(a, b, metric), spread, level_band)


def noise_of(error, spread, level_band):
    """noise_between from a paired error already computed (None: the runs kept no outputs)."""
    return level_band if error is None else max(spread, error)


# ----------------------------------------------------------------------------------------------
# The honest score of a pick chosen as the maximum

@dataclass
class Honest:
    """The pick's score corrected for its choice: the mean, over the draws, of the out-of-bag score
    of the cell the rule picks on that draw's in-bag examples (BBC), and its standard error at the
    whole split's size; how often the draws pick the search's own pick."""
    score: float
    error: float
    agreement: float
    rule: str = "best"  # the choice replayed: "best", the highest mean; "cost", the cheapest in the band


def honest_score(cells, metric, chooses, pick, rule="best"):
    """BBC (Tsamardinos, Greasidou and Borboudakis 2018, "Bootstrapping the out-of-sample
    predictions for efficient and accurate cross-validation"): every draw makes the choice again on
    its in-bag examples and scores it on the examples it left out, so the score does not carry the
    luck that made the pick the maximum. `cells`: {cell: its runs' Examples} (every cell the choice
    read, with outputs); `chooses(in_bag)`: the rule, {cell: its in-bag scores (DRAWS,)} -> each
    draw's chosen cell (a list); `pick`: the search's own. None where a cell kept no outputs."""
    if not cells or any(run is None for runs in cells.values() for run in runs):
        return None
    in_bag = {cell: cell_draws(runs, metric) for cell, runs in cells.items()}
    out_of_bag = {cell: cell_draws(runs, metric, out_of_bag=True) for cell, runs in cells.items()}
    chosen = chooses(in_bag)
    scores = np.array([out_of_bag[cell][i] for i, cell in enumerate(chosen)])
    scores = scores[~np.isnan(scores)]  # a small split's draw may leave no example out, and score nothing there
    # a draw leaves about N/e of the N examples out, and its score's spread is theirs: at the whole
    # split's size the error is sqrt(1/e) of it
    return Honest(float(scores.mean()), float(scores.std(ddof=1) / math.sqrt(math.e)),
                  float(np.mean([cell == pick for cell in chosen])), rule)


def highest(in_bag):
    """The choice of the highest mean on each draw (make advise's default, PREFER=best)."""
    cells = list(in_bag)
    table = np.stack([in_bag[cell] for cell in cells])  # (cells, DRAWS)
    return [cells[i] for i in table.argmax(0)]


def choice_gain(in_bag, out_of_bag, anchor):
    """What choosing the highest gains over keeping `anchor`, the choice's luck left out: the mean,
    over the draws, of the out-of-bag score of the cell highest on each draw's in-bag examples, less
    the anchor's there (BBC of "always the best" against "always the anchor", on the same draws).
    in_bag, out_of_bag: {cell: its scores (draws,)}."""
    cells = list(in_bag)
    table, outside = np.stack([in_bag[cell] for cell in cells]), np.stack([out_of_bag[cell] for cell in cells])
    # nanmean: a small split's draw may leave no example out, and score nothing there
    return float(np.nanmean(outside[table.argmax(0), np.arange(table.shape[1])] - out_of_bag[anchor]))


def on_one_split(cells):
    """Whether every run of `cells` ({cell: its runs' Examples}) kept its outputs on the one dev split:
    not on one file's folds, where cells that ran on different folds were read on different examples."""
    return all(run is not None and run.fold is None for runs in cells.values() for run in runs)


def gain_over(cells, metric, anchor):
    """choice_gain of `cells` ({cell: its runs' Examples}) on the DRAWS; None unless on_one_split."""
    if not on_one_split(cells):
        return None
    return choice_gain({cell: cell_draws(runs, metric) for cell, runs in cells.items()},
                       {cell: cell_draws(runs, metric, out_of_bag=True) for cell, runs in cells.items()}, anchor)


def highest_unless_near(in_bag, anchor, margins):
    """Each draw's choice by make advise's answer where runs were read on one file's folds: the highest
    mean, unless it is within its margin of the anchor's (`margins`: {cell: how far it must score
    above the anchor}: Standing.margin); then the anchor."""
    cells = list(in_bag)
    table = np.stack([in_bag[cell] for cell in cells])  # (cells, DRAWS)
    tops = table.argmax(0)
    lead = table[tops, np.arange(table.shape[1])] - in_bag[anchor]
    return [cells[i] if cells[i] == anchor or lead[d] > margins[cells[i]] else anchor for d, i in enumerate(tops)]


def highest_unless_no_gain(in_bag, cells, metric, anchor, inner=INNER_DRAWS, chunk=20):
    """Each draw's choice by make advise's default rule (study/search/standing.py's answer_of): the
    highest on the draw's in-bag examples, unless choosing the highest gains nothing over the anchor
    (choice_gain), read as the search reads it, on those in-bag examples alone: a bootstrap inside
    each draw (`inner` draws of its in-bag examples, scored on those of them each leaves out).
    `cells`: {cell: its runs' Examples} on one dev split, whose draws `in_bag` holds."""
    names, best, size = list(in_bag), highest(in_bag), next(iter(cells.values()))[0].size
    picks, counts, rng, chosen = draw_picks(size), draw_weights(size)[0], np.random.default_rng(1), []
    for start in range(0, DRAWS, chunk):
        rows = np.arange(start, min(start + chunk, DRAWS))
        in_weights, out_weights = redrawn(picks, counts, rows, inner, rng)
        with np.errstate(invalid="ignore", divide="ignore"):  # an inner draw that leaves nothing out: nan
            inside = {cell: cell_scores(cells[cell], metric, in_weights).reshape(len(rows), inner) for cell in names}
            outside = {cell: cell_scores(cells[cell], metric, out_weights).reshape(len(rows), inner) for cell in names}
        for j, d in enumerate(rows):
            gain = choice_gain({cell: inside[cell][j] for cell in names}, {cell: outside[cell][j] for cell in names}, anchor)
            chosen.append(best[d] if gain > 0 else anchor)
    return chosen


def cell_scores(runs, metric, weights):
    """A cell's mean score under each row of example weights (its runs' Examples): cell_draws under
    weights of one's own, where cell_draws reads the DRAWS each run keeps."""
    return np.mean([weighted_scores(run.outputs.truth, run.outputs.predicted, weights, run.num_labels, metric)
                    for run in runs], axis=0)


def redrawn(picks, counts, rows, inner, rng):
    """Each of the draws `rows` drawn again `inner` times from its own in-bag examples (`picks`,
    `counts`: draw_picks' and draw_weights'): (in-bag counts, out-of-bag indicator), each
    (len(rows) * inner, size), out of bag only among the draw's in-bag examples."""
    size = picks.shape[1]
    drawn = counts_of(np.concatenate([picks[d][rng.integers(0, size, size=(inner, size))] for d in rows]), size)
    return drawn, ((drawn == 0) & (np.repeat(counts[rows], inner, axis=0) > 0)).astype(np.float32)


def cheapest_in_band(in_bag, costs, bands):
    """The choice of the cheapest cell within its band of each draw's best (PREFER=cost, the report's
    rule): `costs`, `bands`: {cell: its seconds a run, its band against the best}."""
    cells = sorted(in_bag, key=lambda cell: (costs[cell], cell))
    table = np.stack([in_bag[cell] for cell in cells])  # (cells, DRAWS), cheapest first
    within = table >= table.max(0) - np.array([bands[cell] for cell in cells])[:, None]
    return [cells[i] for i in within.argmax(0)]  # the first within: the cheapest


def ensemble_of(runs):
    """One model's Examples from several runs' (a cell's seeds): their class probabilities averaged
    example by example, the likeliest class its prediction (for regression, the scores averaged).
    None where a run kept no outputs."""
    if not runs or any(run is None for run in runs):
        return None
    outputs = [run.outputs for run in runs]
    if outputs[0].probabilities is None:
        mean = np.mean([o.predicted for o in outputs], axis=0)
        return Examples(result.Outputs(outputs[0].truth, mean, None), runs[0].num_labels)
    mean = np.mean([o.probabilities for o in outputs], axis=0)
    return Examples(result.Outputs(outputs[0].truth, mean.argmax(1), mean), runs[0].num_labels)
