"""
The search's policy (`make advise`): given what has run, which runs come next, and when the answer
is decided, over the cells of a space (study/search/space.py). Its answer (Space.prefer) is the
cell of the highest fair mean, unless choosing it gains nothing, out of bag, over the defaults a
user would run alone (make advise's default; answer_of), or the report's (study/answer.py): the cheapest cell
whose fair mean is within noise of the best.
Noise is the paired difference on the same dev examples where the runs kept their outputs
(study/search/standing.py, study/paired.py). The search only spends its runs where they can change that
answer, in rounds:

    screen   one seed of every method at every other depth down to 0, at its own ───┐
             rate (methods.py), each checkpoint's in turn, the cheapest first      │
    refine   the depths the screen skipped that could still be the answer: cheaper │ what a cell
             than the cheapest cell in the band, not out on both sides (-1, the    │ is, one seed
             embeddings alone frozen, between 0 and 1)                             │ at a time
    rates    per method still in the race, a line search along its 1-2-5 ladder    │
             at its best depth; a rate that beats its own there by more than the   │
             band is screened at the others                                        │
    in/out   cheapest first, seeds for a cell until it is clearly out of the        │
             band, or in it with PICK_SEEDS seeds (two, if they score alike); the  │
             best alone where the answer is the best                               │
    best     seeds for the cells that could be the best, until its level is fixed; ┘
             where the answer is the best, until each is out of reach or settled
             (more seeds could not narrow its difference on these examples)
    decided  the candidate (the cheapest cell not out, or the best) is in, and
             nothing can still change it

With N runs at once (make advise -j N, a GPU, Slurm), an in/out or best round of fewer than N runs
gives its cells their next seeds too, up to those each can still use: seeds the search would
otherwise ask for one round at a time, while the other workers wait (filled). A screen of fewer
than N cells takes the depths it skips beside it, the cheapest first (skipped_depths): run with the
screen, refine reads them instead of waiting a round for them. And a worker that finds every run of
the current step under way takes the later steps' runs as they stand now (ahead): refine's, the
rates', then the in/out and best steps' seeds, which the next rounds would ask for if the runs
under way change nothing (where that pays: study/search/rounds.py's runs_ahead_pay).

(next_runs takes the first of these that has a run to make.)

What has run is `observed` (study/search/standing.py: the cells, and where the search stands). These
functions are plain and deterministic: the real search (study/search/advise.py) and its replay over a
committed grid's runs call the same ones. The constants are named below;
docs/findings-advise.md justifies them by that replay.
"""

import math
from collections import Counter
from dataclasses import dataclass

import methods
from study.search.space import deepest, models_of, prior_cost
from study.search.standing import PICK_SEEDS, Cell, answer_of, best_first, by_cost, cheapest_in, standing

# the best cell's seeds before its level counts as fixed, unless it could push the pick out of the
# band: then it is read as the pick is, with PICK_SEEDS
BEST_SEEDS = 2
# the cells that can still be the best get seeds together, at most this many in a round
BEST_CONTENDERS = 3


# ----------------------------------------------------------------------------------------------
# What to run next

def by_frozen(depths):
    """Depths from the least frozen: 0 (nothing), -1 (the embeddings alone), 1, 2, ... (the
    embeddings and k layers). -1 sits between 0 and 1 in what it trains and what it costs."""
    return sorted(depths, key=lambda k: 0.5 if k == -1 else k)


def coarse(depths):
    """Every other depth from the most frozen down to 0: 6 4 2 0 of -1 ... 6. -1 is refine's: it
    costs within a few percent of k = 0, and on the committed grids it never scored above k = 0
    by more than the band (docs/findings-advise.md, "The screen down to k = 0")."""
    layers = sorted((k for k in depths if k != -1), reverse=True) or list(depths)
    return sorted(set(layers[::2]) | {layers[-1]})


def screen(space, observed):
    """Round one: every method at every other depth (coarse) at its own rate, not yet run, checkpoint
    by checkpoint in the space's order, the cheapest first."""
    return at_own_rates(space, observed, coarse)


def skipped_depths(space, observed, room):
    """Beside a screen of fewer cells than there are workers (make advise -j N on a card), the depths
    it skips, which refine would weigh once it ends: run now, they take workers that would wait for
    the screen's longest run. The cheapest first, at most `room` of them."""
    skipped = lambda depths: [k for k in depths if k not in coarse(depths)]
    return at_own_rates(space, observed, skipped)[:max(room, 0)]


def at_own_rates(space, observed, depths_of):
    """Every method at the depths `depths_of(its depths)` picks, at its own rate, not yet run and
    able to run, checkpoint by checkpoint in the space's order, the cheapest first."""
    cells = [Cell(name, k, space.own_rate[model, name], model)
             for (model, name), depths in space.depths.items() for k in depths_of(depths)]
    models = models_of(space)
    return sorted((cell for cell in cells if not observed.get(cell) and space.available(cell)),
                  key=lambda cell: (models.index(cell.model), prior_cost(cell, space), cell))


def refine(space, observed, state, candidate):
    """The depths the screen skipped that could still be the answer: cheaper than `candidate` (the
    cheapest cell in the band; None: any), a score between its neighbours' (the nearest depths
    run on either side) that is not certainly out. A skipped depth costs at least its more frozen
    neighbour and scores, as a rule, between its two. It comes before the rates, so that a method's
    line search runs once, at the best depth of all (on TweetEval emotion the screen's best depth
    had its line search, then refine found a better one and it had another: docs/findings-advise.md)."""
    wanted = []
    for (model, name), depths in space.depths.items():
        at = lambda k: Cell(name, k, space.own_rate[model, name], model=model)
        ordered = by_frozen(depths)
        for i in range(1, len(ordered) - 1):
            cell = at(ordered[i])
            below = next((at(k) for k in reversed(ordered[:i]) if observed.get(at(k))), None)
            above = next((at(k) for k in ordered[i + 1:] if observed.get(at(k))), None)
            if observed.get(cell) or not space.available(cell) or below is None or above is None:
                continue
            if below in state.out and above in state.out:
                continue
            if candidate is None or state.costs[above] < state.costs[candidate]:
                wanted.append(cell)
    return wanted


def rate_search(space, observed, state):
    """Per method not yet out: its line search at its best depth (the next rung beside its best
    rate there); once a search ends at another rate than the method's own, that rate at the
    method's other depths. A rate within the band of the method's own rate there is noise: the
    search stops on it and the own rate stands (on TweetEval emotion 2e-5 beat SetFit fast's 5e-5
    by 0.014 on one seed, and screening it at every depth and seeding both rates cost a third of
    the search: docs/findings-advise.md). A depth where the method trains nothing at its rate
    (SetFit's fitted head over every layer frozen) keeps its own rate and is no best depth."""
    wanted = []
    for (model, name), depths in space.depths.items():
        ladder = space.ladder[model, name]
        mine = [cell for cell in state.means if (cell.model, cell.method) == (model, name)]
        if len(ladder) < 2 or not mine or all(cell in state.out for cell in mine):
            continue
        num_layers = deepest(space, model)
        at_rate = lambda k: methods.get(name).trains_at_rate(k, num_layers)
        searchable = [cell for cell in mine if at_rate(cell.freeze)]
        if not searchable:
            continue
        anchor = best_first(searchable, state.means, state.costs)[0]
        at_anchor = {cell.lr: state.means[cell] for cell in mine if cell.freeze == anchor.freeze}
        best_rate, own = anchor.lr, space.own_rate[model, name]
        own_cell, best_cell = (Cell(name, anchor.freeze, rate, model=model) for rate in (own, best_rate))
        if best_rate != own and at_anchor[best_rate] - at_anchor.get(own, -math.inf) <= state.noise_between(best_cell, own_cell):
            continue
        i = ladder.index(best_rate)
        rungs = [Cell(name, anchor.freeze, ladder[j], model=model) for j in (i - 1, i + 1) if 0 <= j < len(ladder)]
        untried = [cell for cell in rungs if cell.lr not in at_anchor and space.available(cell)]
        if untried:
            wanted += untried
        elif best_rate != own:
            wanted += [cell for k in depths if at_rate(k) for cell in [Cell(name, k, best_rate, model=model)]
                       if not observed.get(cell) and space.available(cell)]
    return wanted


@dataclass
class Round:
    step: str  # screen, refine, rates, in/out or best: why these cells run
    cells: list  # one more seed of each


def next_runs(space, observed, metric, dev_size, jobs=1):
    """The next round ([] cells when the answer is decided or nothing that could change it can
    run). `jobs` runs at once: the screen and the in/out step fill them."""
    first = screen(space, observed)
    if first:
        return Round("screen", first + skipped_depths(space, observed, jobs - len(first)))
    state = standing(observed, metric, dev_size)
    candidate, cheaper_open = cheapest_in(state, space)
    skipped = refine(space, observed, state, cost_bound(space, candidate))
    if skipped:
        return Round("refine", skipped)
    rates = rate_search(space, observed, state)
    if rates:
        return Round("rates", rates)
    if cheaper_open:
        return filled(Round("in/out", cheaper_open[:max(jobs, 1)]), jobs, observed, space, lambda cell: PICK_SEEDS)
    return filled(Round("best", unfixed_best(state, observed, space, candidate)), jobs, observed, space,
                  lambda cell: best_seeds(cell, state, candidate, space))


def cost_bound(space, candidate):
    """What bounds refine's depths: the cheapest cell in the band where the answer is the cheapest
    (a dearer depth cannot be it), nothing where it is the best."""
    return candidate if space.prefer == "cost" else None


STEPS = ("screen", "refine", "rates", "in/out", "best")  # next_runs's steps, in the order it takes them


def ahead(space, observed, metric, dev_size, current, jobs=1, under_way=()):
    """With workers free and the runs of the `current` step (next_runs's) all under way (make advise
    -j N), the later steps' rounds as they stand now, for the workers that would otherwise wait:
    refine's and the rates' cells not under way, then the in/out step's seeds, then the best step's,
    each cell's seeds counting those under way (`under_way`: their cells, one entry a run). What
    next_runs would ask once the current step ends if the runs under way change nothing; a cell
    named by two steps takes the larger of their seeds. At most `jobs` runs."""
    state = standing(observed, metric, dev_size)
    candidate, cheaper_open = cheapest_in(state, space)
    running = Counter(under_way)
    less_running = lambda seeds: lambda cell: seeds(cell) - running[cell]
    not_running = lambda cells: [cell for cell in cells if cell not in running]
    later = {
        "refine": lambda: not_running(refine(space, observed, state, cost_bound(space, candidate))),
        "rates": lambda: not_running(rate_search(space, observed, state)),
        "in/out": lambda: seeded(cheaper_open, jobs, observed, space, less_running(lambda cell: PICK_SEEDS)),
        "best": lambda: seeded(unfixed_best(state, observed, space, candidate), jobs, observed, space,
                               less_running(lambda cell: best_seeds(cell, state, candidate, space))),
    }
    cells, taken = [], Counter()
    for step in STEPS[STEPS.index(current) + 1:]:
        named = Counter()
        for cell in later[step]():
            named[cell] += 1
            if named[cell] > taken[cell]:  # beyond the seeds an earlier step took
                cells.append(cell)
                taken[cell] += 1
    return Round("ahead", cells[:max(jobs, 0)])


def seeded(cells, jobs, observed, space, seeds_used):
    """`cells` that lack seeds (seeds_used(cell) more than have run), filled with their next ones (filled)."""
    lacking = [cell for cell in cells if len(observed.get(cell, [])) < seeds_used(cell)]
    return filled(Round("", lacking), jobs, observed, space, seeds_used).cells


def best_seeds(cell, state, candidate, space):
    """The seeds a contender for the best is read on: where the answer is the best, the pick's, as
    the pick is read; else the pick's for the best itself once there is a pick it could push out of
    the band (the two are read alike), and BEST_SEEDS for the others."""
    if space.prefer == "best":
        return PICK_SEEDS
    return PICK_SEEDS if cell == state.best and candidate is not None else BEST_SEEDS


def unfixed_best(state, observed, space, candidate):
    """The cells that could still be the best by enough to change the answer, `candidate` (None:
    any), and lack their best_seeds. Where the answer is the cheapest in the band: by enough to push
    it out of the band; where it is the best: by anything, unless more seeds could no longer tell
    the two apart (Standing.settled). Only those that can run."""
    reach = lambda cell: state.reach(cell, len(observed[cell]))
    if candidate is None:
        floor = lambda cell: -math.inf
    elif space.prefer == "best":
        floor = lambda cell: state.means[state.best]  # could overtake the best (the answer: it, or the anchor)
    else:
        floor = lambda cell: state.means[candidate] + state.noise_between(cell, candidate)
    return [cell for cell in state.contenders[:BEST_CONTENDERS]
            if len(observed[cell]) < best_seeds(cell, state, candidate, space) and reach(cell) > floor(cell)
            and cell not in state.repeats and not (space.prefer == "best" and state.settled(cell))
            and space.available(cell)]


def filled(round_, jobs, observed, space, seeds_used):
    """A round of fewer runs than `jobs`, filled with its cells' next seeds in turn, each up to the
    seeds `seeds_used(cell)` says it can still use and the space can still run: the round takes
    the workers that would otherwise wait, for seeds the next rounds would ask for one at a time."""
    cells, taking = list(round_.cells), True
    while len(cells) < jobs and taking:
        taking = False
        for cell in dict.fromkeys(round_.cells):
            planned = cells.count(cell)
            if len(cells) < jobs and len(observed.get(cell, [])) + planned < seeds_used(cell) \
                    and planned < space.available(cell):
                cells.append(cell)
                taking = True
    return Round(round_.step, cells)


def pick(space, observed, metric, dev_size):
    """(the answer, decided). Decided: nothing is left to screen or search, the best is fixed, and
    the cheapest cell not out is in the band with its seeds: that cell. Else (a budget spent) the
    report's rule over what ran: the cheapest cell within the band of the best, whatever its seeds."""
    state = standing(observed, metric, dev_size)
    if state.best is None:
        return None, False
    cell, cheaper_open = cheapest_in(state, space)
    if cell is not None and not cheaper_open and not unfixed_best(state, observed, space, cell) \
            and not refine(space, observed, state, cost_bound(space, cell)) and not screen(space, observed) \
            and not rate_search(space, observed, state):
        return cell, True
    if space.prefer == "best":
        return answer_of(state, space), False
    return by_cost(state, [cell for cell in state.means if state.means[cell] >= state.floor_of(cell)])[0], False
