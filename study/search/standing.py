"""
Where make advise's search stands (study/search/policy.py decides from it what runs next): the cells, what
each has scored, the best, the noise band around it, and which cells are out of it or in it. The
band is the report's (study/answer.py) once the best has the pick's seeds; before, its spread is
every cell's pooled (best_spread).

A cell is (method, depth, rate, model); what it has cost and scored is `observed`: {Cell: [(fair
score, seconds, outcome, examples), ...]} (seen(); the outcome and the examples may be left out, as
the tests do). Where every run kept its outputs on the dev examples (study/paired.py's Examples),
a cell is held against the best by their paired difference (band_of); else by the level's band. A search
over one checkpoint leaves the model empty; over several (make
advise MODEL="minilm mpnet"), each cell names its checkpoint, and the band, the best and the
answer read all of them together.
"""

import functools
import math
from dataclasses import dataclass, field

import numpy as np

import methods
import result
from study.answer import dev_standard_error
from study.paired import gain_over, noise_between, noise_of, paired_error

# A cell is out when even Z_OUT of its mean's standard errors above its mean fall short of the band
# (with a spread measured on few seeds, Student's t at Z_OUT's level, within bounds: Standing.rise)
Z_OUT = 2.0
# the seeds a pick needs (the grids ran 5): a cell in the band with these is in
PICK_SEEDS = 5
# a seed's spread before two seeds of a cell measure it: the upper quartile of the committed minilm
# grids' cells' seed std (0.018 SST-2, 0.020 CoLA; docs/findings-advise.md), on the side that keeps a
# cell in; measured spreads replace it. Not the dev split's noise: more seeds of a cell average the
# seeds' spread away, never the dev split's, which the band already holds (docs/findings-advise.md)
PRIOR_SEED_STD = 0.02


@dataclass(frozen=True, order=True)
class Cell:
    method: str  # a name of methods.py's table
    freeze: int
    lr: float | None  # the run's rate (None: fitted, the probe)
    model: str = ""  # the checkpoint, in a search over several ("": the search's one)

    @classmethod
    def of(cls, config, model=""):
        """A run's cell in a search (one size: its method, depth and rate; `model`, the checkpoint as
        the search names it), from its recorded configuration; result.cell_of is the report's, a
        run's name less its seed."""
        return cls(config["method"], config["freeze"], config["lr"], model)


def label_of(cell, several):
    """A cell's method, and its checkpoint where the search had several: 'SetFit fast (mpnet)'."""
    return methods.get(cell.method).label + (f" ({result.model_label(cell.model)})" if several and cell.model else "")


def rate_text(cell):
    """A cell's rate as its result's name writes it, or "fitted" (the probe's, which has none)."""
    return methods.lr_text(cell.lr) if cell.lr is not None else "fitted"


def same_work(cell):
    """What a run's seconds depend on: its checkpoint, method and depth, never its rate (as the report reads cost)."""
    return cell.model, cell.method, cell.freeze


@dataclass
class Standing:
    """Where the search stands: the best cell, the noise band around it, and each cell's state."""
    best: Cell | None
    band: float
    seed_std: float
    means: dict  # {Cell: mean fair score}
    costs: dict  # {Cell: median seconds a run, shared across rates (the fastest of the same work)}
    out: set  # cells that cannot reach the band
    inside: set  # cells in the band with PICK_SEEDS seeds, or whose runs repeat themselves
    contenders: list  # cells that could still be the best, best mean first
    repeats: set = frozenset()  # cells whose runs all scored alike: more seeds cannot move their mean
    z: float = Z_OUT  # standard errors a cell's mean may still rise: Z_OUT, or t at the spread's degrees of freedom
    paired: dict = field(default_factory=dict)  # {cell: paired_error against the best}, where both kept outputs
    counts: dict = field(default_factory=dict)  # {cell: its runs}
    spread: float = 0.0  # the best's seed spread, best_spread: every band's floor
    runs: dict = field(default_factory=dict)  # {cell: its observed runs}, for noise_between
    metric: str = ""
    # the seeds' spread less the examples': seed_std itself on one dev split; over one file's folds,
    # where a fold's examples move its score too (fold_variance), what training alone moves it by
    train_std: float = PRIOR_SEED_STD
    on_folds: bool = False  # the runs were read on one file's folds

    def band_of(self, cell):
        """The noise band `cell` is held to against the best: noise_between, from the paired error
        standing() measured once per cell (the best's own is the level's band)."""
        return noise_of(self.paired.get(cell), self.spread, self.band)

    def noise_between(self, a, b):
        """The band two cells are told apart by: paired.noise_between, the one rule, over the best's
        seed spread and, for runs that kept no outputs, the level's band."""
        return noise_between(examples_of(self.runs.get(a, [])), examples_of(self.runs.get(b, [])), self.metric,
                             self.spread, self.band)

    def margin(self, a, b):
        """How far `a` must score above `b` to be told apart from it: Z_OUT standard errors of their
        difference, the examples' share (their paired error) and the seeds' (the pooled spread over
        both cells' seeds); the level's band where either kept no outputs."""
        error = paired_error(examples_of(self.runs.get(a, [])), examples_of(self.runs.get(b, [])), self.metric)
        if error is None:
            return self.band
        seeds = 0.0 if {a, b} <= self.repeats else self.train_std ** 2 * (1 / self.counts[a] + 1 / self.counts[b])
        return Z_OUT * math.sqrt(error ** 2 + seeds)

    def gain_over(self, anchor):
        """What choosing the best gains over keeping `anchor`, the choice's luck left out
        (paired.gain_over: every cell that ran, on the same draws); None where a run kept no outputs
        or the runs were read on one file's folds."""
        return gain_over({cell: examples_of(runs) for cell, runs in self.runs.items()}, self.metric, anchor)

    def apart(self, a, b):
        """Whether `a` scores above `b` by more than the margin that tells them apart."""
        return self.means[a] - self.means[b] > self.margin(a, b)

    def floor_of(self, cell):
        """The least mean that keeps `cell` within noise of the best."""
        return self.means[self.best] - self.band_of(cell)

    def settled(self, cell):
        """Whether more seeds could no longer tell `cell` from the best: the seeds' share of their
        difference's error (the pooled spread over both cells' seeds) is at most the examples' share
        (the paired error), so that seeds can shrink it by at most sqrt(2). Only where both kept outputs,
        on one dev split: over one file's folds, a fold more is examples more, and shrinks the paired error too."""
        if cell not in self.paired or cell == self.best or cell in self.repeats or self.on_folds:
            return False
        return self.train_std * math.sqrt(1 / self.counts[cell] + 1 / self.counts[self.best]) <= self.paired[cell]

    @property
    def rise(self):
        """How far a one-seed mean may still rise: t x the pooled spread, so that two seeds agreeing by
        chance put no cell out; but no more than Z_OUT x the larger of that spread and the prior's,
        since t at one or two degrees of freedom (13.97, 4.53) read a single disagreement as a
        spread of a third of the scale and put every cell back in reach (TweetEval emotion: a
        fine-tune line search and 40 fine-tune runs, all out in the end; docs/findings-advise.md)."""
        return min(self.z * self.seed_std, Z_OUT * max(self.seed_std, PRIOR_SEED_STD))

    def reach(self, cell, runs):
        """The highest a cell's mean could still rise to with more seeds (its mean with `runs` of them)."""
        return self.means[cell] + (0.0 if cell in self.repeats else self.rise / math.sqrt(runs))


def seed_std(observed, fold_var=0.0):
    """(the pooled within-cell standard deviation of the cells with two seeds or more, its degrees of
    freedom): how far a cell's mean may still move with more seeds. A cell whose runs all scored
    alike repeats itself (the probe, or SetFit with every layer frozen: a fit with no randomness)
    and measures no spread: it is left out of the pool. (PRIOR_SEED_STD, 0) before any cell measures
    one; over one file's folds, whose examples move a score by `fold_var` too, that and the prior's."""
    groups = [np.array([score for score, *_ in runs]) for runs in observed.values()
              if len(runs) > 1 and not repeats_itself(runs)]
    freedom = sum(len(g) - 1 for g in groups)
    if not freedom:
        return math.sqrt(PRIOR_SEED_STD ** 2 + fold_var), 0
    return math.sqrt(sum(((g - g.mean()) ** 2).sum() for g in groups) / freedom), freedom


def fold_variance(observed, metric):
    """How far the examples of one file's fold move a run's score: the mean, over the runs read on
    folds, of their score's variance across the bootstrap draws of their fold's examples (0 for runs
    on one dev split, where every seed reads the same examples and seeds differ by training alone)."""
    folds = [run[3] for runs in observed.values() for run in runs
             if len(run) > 3 and run[3] is not None and run[3].fold is not None]
    return float(np.mean([np.var(run.draws(metric)[0], ddof=1) for run in folds])) if folds else 0.0


def less_examples(spread, fold_var):
    """A spread over one file's folds less what their examples account for: what training moves a score by."""
    return math.sqrt(max(spread ** 2 - fold_var, 0.0)) if fold_var else spread


@functools.lru_cache(maxsize=None)
def t_multiplier(freedom, z=Z_OUT):
    """Student's t quantile at the normal's level of `z` standard errors (z = 2: 97.7%) for a spread
    measured with `freedom` degrees of freedom (0: the prior, z itself): a spread from two seeds of
    one cell is a guess, and reading it as if known would put a cell out on a chance agreement
    (13.97 at 1, 2.28 at 10, 2.03 at 100). Its CDF integrated numerically, then inverted."""
    if not freedom:
        return z
    x = np.linspace(0.0, 200.0, 400_001)
    log_scale = math.lgamma((freedom + 1) / 2) - math.lgamma(freedom / 2) - 0.5 * math.log(freedom * math.pi)
    density = np.exp(log_scale - (freedom + 1) / 2 * np.log1p(x * x / freedom))
    cdf = 0.5 + np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2 * np.diff(x))])
    return float(np.interp(0.5 * (1 + math.erf(z / math.sqrt(2))), cdf, x))


def seen(scores, metric, seconds, examples=None):
    """One run as the search reads it: (its score on `metric`, its seconds, its outcome: every metric
    of the split that score is read on, its outputs on that split's examples: paired.Examples, or
    None where it kept none). `scores`: {metric: score} of that split."""
    return scores[metric], seconds, tuple(sorted(scores.items())), examples


def examples_of(runs):
    """A cell's runs' paired.Examples (None for a run that kept none, or was observed without)."""
    return [run[3] if len(run) > 3 else None for run in runs]


def outcome(run):
    """What two runs are compared on to tell whether they scored alike: their outcome where it is
    recorded (every metric of the split: as a rule, the same predictions), else their score."""
    return run[2] if len(run) > 2 else run[0]


def repeats_itself(runs):
    """Whether a cell's runs (two or more) all scored alike on every metric: a fit with no randomness
    (the probe, SetFit with every layer frozen) gives every seed the same predictions, and a third
    seed would too. One metric alone ties by chance: two of SetFit fast's seeds on mpnet at
    n = 1000 (k = 8, 1e-5) scored 0.9025 accuracy on SST-2's 872 sentences, and 0.8057 and 0.8059 MCC."""
    return len(runs) > 1 and len({outcome(run) for run in runs}) == 1


def shared_costs(observed):
    """{Cell: its cost}: the fastest median seconds among the cells of the same work, as study/answer.py reads it."""
    medians = {}
    for cell, runs in observed.items():
        if runs:
            medians.setdefault(same_work(cell), []).append(float(np.median([s for _, s, *_ in runs])))
    return {cell: min(medians[same_work(cell)]) for cell, runs in observed.items() if runs}


def best_first(cells, means, costs, seeds=None):
    """`cells`, the best mean first. Of equal means: the more seeds (`seeds`, where given: the better
    measured), then the cheaper, then the cells' own order, so that the order the runs were read in
    (a folder's files, a replay's runs) never decides between two cells that tie on the dev split."""
    seeds = seeds or {}
    return sorted(cells, key=lambda cell: (-means[cell], -seeds.get(cell, 0), costs[cell], cell))


def best_spread(runs, pooled):
    """The best cell's share of the band: its seed std, as the report reads it on PICK_SEEDS seeds;
    before it has them, the pooled spread of every cell's seeds (`pooled`), since its own two or
    three are a guess (SST-2 at n = 50: SetFit fast's 0.662 and 0.759 made a band of 0.069, the
    grid's is 0.019, and put the probe in it). 0 on one run, or for runs that repeat themselves."""
    if len(runs) < 2 or repeats_itself(runs):
        return 0.0
    return float(np.std([score for score, *_ in runs], ddof=1)) if len(runs) >= PICK_SEEDS else pooled


def standing(observed, metric, dev_size):
    """The search's state from what has run: a cell's band is the larger of the best cell's seed
    spread (best_spread: the report's once it has PICK_SEEDS seeds) and the noise of its difference
    from the best: the paired error on the same examples where both kept their outputs
    (study/paired.py), else the dev split's standard error at the best's mean (the level's); a cell
    is out when its reach (its mean plus the rise / √its seeds) falls short of the best less its band."""
    ran = {cell: runs for cell, runs in observed.items() if runs}
    if not ran:
        return Standing(None, 0.0, PRIOR_SEED_STD, {}, {}, set(), set(), [])
    means, costs = {cell: float(np.mean([score for score, *_ in runs])) for cell, runs in ran.items()}, shared_costs(ran)
    best = best_first(ran, means, costs, seeds={cell: len(runs) for cell, runs in ran.items()})[0]
    fold_var = fold_variance(ran, metric)
    (sd, freedom), repeats = seed_std(ran, fold_var), {cell for cell, runs in ran.items() if repeats_itself(runs)}
    spread = less_examples(best_spread(ran[best], sd), fold_var)
    band = max(spread, dev_standard_error(means[best], metric, dev_size))
    state = Standing(best, band, sd, means, costs, set(), set(), [], repeats, t_multiplier(freedom))
    state.counts, state.spread, state.runs, state.metric = {cell: len(runs) for cell, runs in ran.items()}, spread, ran, metric
    state.train_std, state.on_folds = less_examples(sd, fold_var), fold_var > 0
    for cell in ran:  # the paired rule, where both cells kept their outputs on the same examples
        error = None if cell == best else paired_error(examples_of(ran[best]), examples_of(ran[cell]), metric)
        if error is not None:
            state.paired[cell] = error
    reach = lambda cell: state.reach(cell, len(ran[cell]))
    state.out = {cell for cell in ran if reach(cell) < state.floor_of(cell)}
    state.inside = {cell for cell in ran if means[cell] >= state.floor_of(cell)
                    and (len(ran[cell]) >= PICK_SEEDS or cell in repeats)}
    for cell in best_first(ran, means, costs):  # one per method and depth: its rates are one choice
        if cell not in state.out and reach(cell) >= means[best] and same_work(cell) not in map(same_work, state.contenders):
            state.contenders.append(cell)
    return state


# ----------------------------------------------------------------------------------------------
# The answer the search stands at (`space`: study/search/policy.py's Space)

def cheapest_in(state, space):
    """(the answer's candidate, or None; the cells before it that are neither out nor in and can
    still run). Where the answer is the cheapest in the band: the cheapest cell in the band, and the
    cheaper cells open; where it is the best: the best, once in, else it is the one open. A cell that
    can run no more seeds is in with those it has if its mean is in the band, else it stays out of
    the answer."""
    if space.prefer == "best":
        return best_or_anchor(state, space)
    cheaper_open = []
    for cell in by_cost(state, [cell for cell in state.means if cell not in state.out]):
        if cell in state.inside or (not space.available(cell) and state.means[cell] >= state.floor_of(cell)):
            return cell, cheaper_open  # in the band with PICK_SEEDS seeds, or every seed it can have
        if space.available(cell):
            cheaper_open.append(cell)
    return None, cheaper_open


def anchor_of(space):
    """The tool's defaults (methods.py's anchor: SetFit fast, or the fine-tune where SetFit cannot
    run) at k = 0 and its own rate, on the first checkpoint that has it; None: none."""
    anchors = [(methods.get(name).anchor, -i, Cell(name, 0, space.own_rate[model, name], model))
               for i, ((model, name), depths) in enumerate(space.depths.items())
               if methods.get(name).anchor and 0 in depths]
    return max(anchors)[2] if anchors else None


def answer_of(state, space):
    """Where the answer is the best: the best cell, unless choosing the best gains nothing over the
    anchor, the tool's defaults, on the examples each choice left out (Standing.gain_over: BBC);
    then the anchor. Among many cells the best on the dev split is the luckiest too, and this reads
    what choosing it is worth with that luck left out. For runs that kept no outputs, or ran on one
    file's folds (a cell on fold 1 alone and one on all five were read on other examples), whether
    it is told apart from the anchor (Standing.apart). Over 19 searches' runs it differed from that
    rule, the one before it, on 4, and its answer scored higher on each test file (+0.009 to
    +0.061; docs/findings-advise.md)."""
    anchor = anchor_of(space)
    if anchor is None or anchor not in state.means or state.best == anchor:
        return state.best
    gain = state.gain_over(anchor)
    if gain is None:
        return state.best if state.apart(state.best, anchor) else anchor
    return state.best if gain > 0 else anchor


def best_or_anchor(state, space):
    """cheapest_in where the answer is the best: (answer_of, once the best is in and the anchor too
    or told apart from it, or tied with it; else None and those of the two still open)."""
    anchor, best = anchor_of(space), state.best
    open_ = [best] if best not in state.inside and space.available(best) else []
    if anchor in state.means and anchor != best and anchor not in state.inside and space.available(anchor) \
            and not state.apart(best, anchor) and not state.settled(anchor):
        open_.append(anchor)
    return (answer_of(state, space), []) if not open_ else (None, open_)


def by_cost(state, cells):
    """Cheapest first; of equal costs, the better mean (the report's order)."""
    return sorted(cells, key=lambda cell: (state.costs[cell], -state.means[cell], cell))
