"""
The space a search (make advise) may run, and what a run of it costs: each checkpoint's methods,
their depths and the rates of their ladders at one size, which cells can still run, each
checkpoint's first run (first_cell), and each cell's cost before it has run (prior_cost), before
any run has trained (layer_seconds, from the probe's frozen prefix) and once runs like it have
(expected_seconds). The policy (study/search/policy.py) decides which of these
cells run next; the loop (study/search/rounds.py) and the report read their costs here.
"""

from dataclasses import dataclass, field, replace

import numpy as np

import methods
from study.search.standing import PICK_SEEDS, Cell, same_work


@dataclass(frozen=True)
class Space:
    """What the search may run: each checkpoint's methods' depths and the rates of each method's
    ladder at this size, and which cells can run (the replay can run only what its grid ran). A
    search over one checkpoint names it "" (Cell.model); over several, joined() joins theirs."""
    depths: dict  # {(model, method name): [depths]}
    # {(model, method name): its own rate in a search at this size, where its line searches found the
    # best (methods.best_lr), None for the probe}: the rate it is screened and anchored at
    own_rate: dict
    ladder: dict  # {(model, method name): [rates, ascending]} ([] for the probe)
    available: callable  # Cell -> how many more seeds of it can run (0, or False: none)
    # the answer sought: "cost", the cheapest cell within noise of the best (the report's, the blog
    # study's question: what does freezing save?), or "best", the cell of the highest mean unless
    # choosing it gains nothing over the anchor out of bag (answer_of), its contenders seeded until
    # they are out or the examples can no longer tell them apart
    prefer: str = "cost"
    # {(model, method name): a trained layer's seconds before any trained run, from the checkpoint's
    # probe's frozen prefix} (with_layer_seconds; a checkpoint without one: PROBE_TO_TRAINED)
    layer_seconds: dict = field(default_factory=dict)


def space_for(size, num_layers, depths, method_names, available=lambda cell: PICK_SEEDS, model=""):
    """The grid's space at n = size: every method of `method_names` at the grid's depths (the probe
    at L only), its own rate, and its ladder; `model`: the checkpoint, where the search has several.
    A method's own rate is its line searches' best at n, not its run's default: the fine-tune's is
    the protocol's 5e-5 at every n, where 50 examples take 2e-4 (on Amazon counterfactual, 5e-5
    predicted one class for all; docs/records/finetune-own-rate-2026-12-06)."""
    chosen = [methods.get(name) for name in method_names]
    return Space(depths={(model, m.name): [num_layers] if m.every_layer_frozen else list(depths) for m in chosen},
                 own_rate={(model, m.name): m.best_lr(size) for m in chosen},
                 ladder={(model, m.name): sorted(set(m.ladder(size)) | {m.default_lr(size)}) if m.default_lr(size) else []
                         for m in chosen},
                 available=available)


def joined(spaces):
    """One space over several checkpoints' (each built by space_for with its model): their depths,
    rates and ladders side by side."""
    join = lambda part: {key: value for space in spaces for key, value in getattr(space, part).items()}
    return replace(spaces[0], depths=join("depths"), own_rate=join("own_rate"), ladder=join("ladder"))


def models_of(space):
    """The checkpoints of a space, in the order given ("" alone for a search over one)."""
    return list(dict.fromkeys(model for model, _ in space.depths))


def ordered(space, models):
    """The space with its checkpoints in the order of `models` (the zero-training step's, study/search/prior.py):
    their first runs and their screens go in that order."""
    position = {model: i for i, model in enumerate(models)}
    by_model = lambda part: dict(sorted(getattr(space, part).items(), key=lambda item: position[item[0][0]]))
    return replace(space, depths=by_model("depths"), own_rate=by_model("own_rate"), ladder=by_model("ladder"))


def first_cell(space, model=""):
    """The checkpoint's first run, made alone: the probe where the space has it (a fit over every
    frozen layer, whose cache the later runs read; its seconds price the first screen round:
    expected_seconds), else the first method at its deepest depth. It times a run here and learns the task."""
    own = [key for key in space.depths if key[0] == model]
    fitted = [key for key in own if methods.get(key[1]).every_layer_frozen]  # the probe: a fit alone
    key = (fitted or own)[0]
    return Cell(key[1], max(space.depths[key]), space.own_rate[key], model=model)


def prior_cost(cell, space):
    """Before a cell has run, how its cost compares with others': the layers it trains and the head
    (a tenth of a layer: the fine-tune of TweetEval emotion's head alone took 0.3 s, of two layers
    and the head 10.6), times the method's cost_factor (SetFit fast's pairs about three times a
    fine-tune's steps), the probe a fit alone. It orders a round, so that a budget spent mid-round
    has bought the cheap runs, and scales the seconds of the runs that ran (expected_seconds)."""
    if methods.get(cell.method).every_layer_frozen:  # the probe
        return 0.5
    return (deepest(space, cell.model) - max(cell.freeze, 0) + 0.1) * methods.get(cell.method).cost_factor


def deepest(space, model=""):
    """L of the checkpoint: the most layers a cell can freeze (a cell there trains its head alone, or nothing)."""
    return max(k for (owner, _), depths in space.depths.items() if owner == model for k in depths)


# Before any trained run, a trained layer costs the passes a run makes over its texts at the
# probe's seconds per layer and text (its frozen prefix: one forward pass over each): three per
# training example and epoch (the forward, and the backward at twice its cost), one per text it
# only scores (dev, a test file). The first screen rounds of 19 searches took 0.95 to 1.17 times
# that; it is priced at the high end, as a run priced too low overruns the budget for good, and one
# priced too high only waits for the next worker free, which prices it from the trained runs that
# ended by then (docs/records/layer-seconds-2026-12-06)
PASSES_PER_TRAINING_EXAMPLE = 3
FIRST_ROUND_MARGIN = 1.2
# where the probe's prefix came from the cache (no pass timed): a trained layer at this many times
# the probe's seconds per layer. A rough proxy: the factor that would have priced a first screen
# round right ran from 1.8 to 9.1 over 25 searches; the high end (docs/records/expected-seconds-2026-12-06)
PROBE_TO_TRAINED = 9.0


def layer_seconds(probe_run, num_layers, epochs=None):
    """A trained layer's seconds before any trained run, from the record of the probe's run over
    `num_layers` frozen layers (PASSES_PER_TRAINING_EXAMPLE), the runs training `epochs` (None:
    the protocol's, as the probe's record has them; the probe takes no --epochs); None where the
    cache held its prefix (or a record from before prefix_texts): no pass was timed."""
    if not timed_a_pass(probe_run):
        return None
    texts = probe_run["prefix_texts"]
    trained, epochs = probe_run["config"]["train_examples"], epochs or probe_run["config"]["epochs"]
    per_pass = probe_run["seconds"]["prefix"] / (num_layers * texts)
    return FIRST_ROUND_MARGIN * per_pass * (PASSES_PER_TRAINING_EXAMPLE * epochs * trained + texts - trained)


def timed_a_pass(run):
    """Whether the run's frozen prefix computed texts (not the cache's) in the seconds its record gives."""
    return bool(run.get("prefix_texts") and run["seconds"]["prefix"])


def with_layer_seconds(space, runs_by_cell, epochs=None):
    """The space with each checkpoint's methods' layer_seconds, from the first of its probe's runs
    among `runs_by_cell` ({Cell: its runs' records}) that timed its prefix. `epochs`: make's EPOCHS,
    where given, for the methods that take them (SetFit's bodies train by their own steps, their
    cost_factor against a fine-tune of the protocol's epochs)."""
    probes = {}  # {model: (its probe's run that timed its prefix, the layers it ran through)}
    for cell, runs in runs_by_cell.items():
        timed = [run for run in runs if timed_a_pass(run)]
        if methods.get(cell.method).every_layer_frozen and timed:
            probes.setdefault(cell.model, (timed[0], cell.freeze))
    takes = lambda name: "epochs" not in methods.get(name).ignores
    trained = [(model, name) for model, name in space.depths if model in probes and not methods.get(name).every_layer_frozen]
    return replace(space, layer_seconds={(model, name): layer_seconds(*probes[model], epochs if takes(name) else None)
                                         for model, name in trained})


def expected_seconds(cell, observed, space):
    """What a run of `cell` should cost: the median of its work's runs so far; for a work not yet
    run, its prior_cost at the seconds per unit the trained runs of its checkpoint took (of its own
    method where one ran); before any, at its checkpoint's layer_seconds, or PROBE_TO_TRAINED times
    the probe's seconds per layer (read per unit of prior cost, the probe's seconds, mostly a
    one-time prefix, put the first screen rounds at 3.7 times their seconds); else at what any run
    took per unit (0: none ran)."""
    seconds = [s for other, runs in observed.items() if same_work(other) == same_work(cell) for _, s, *_ in runs]
    if seconds:
        return float(np.median(seconds))
    fitted = lambda other: methods.get(other.method).every_layer_frozen  # the probe
    own = lambda other: other.model == cell.model
    per_unit = lambda keep: seconds_per_unit(observed, space, keep)
    if not fitted(cell):
        timed = per_unit(lambda other: own(other) and other.method == cell.method) or per_unit(
            lambda other: own(other) and not fitted(other))
        if timed:
            return prior_cost(cell, space) * timed
        if (cell.model, cell.method) in space.layer_seconds:
            return prior_cost(cell, space) * space.layer_seconds[cell.model, cell.method]
        probed = [s / deepest(space, cell.model) for other, runs in observed.items() if own(other) and fitted(other)
                  for _, s, *_ in runs]
        if probed:
            return prior_cost(cell, space) * PROBE_TO_TRAINED * float(np.median(probed))
    timed = per_unit(own) or per_unit(lambda other: True)
    return prior_cost(cell, space) * timed if timed else 0.0


def seconds_per_unit(observed, space, keep):
    """The seconds of the runs of the cells `keep` takes over their prior costs, each summed (None:
    none ran). Not a median of ratios: a head trained alone is a tenth of a unit, so its run's
    fixed seconds would read as ten times a layer's (mpnet on SST-2: 6.9 s, then 333 s expected
    of a fine-tune at k = 4 that took 79)."""
    timed = [(s, prior_cost(other, space)) for other, runs in observed.items() if keep(other) for _, s, *_ in runs]
    return sum(s for s, _ in timed) / sum(units for _, units in timed) if timed else None


def grid_seconds(space, observed, seeds):
    """What the grid this search stands in for would cost here: every method at every depth of the
    space at its own rate, `seeds` seeds each; a run the search made at its own seconds, each other
    at its expected_seconds. An estimate, for the report's "what it would have cost" (a grid's line
    searches would add to it); a search that made every run of the grid spent all of it, not the
    share its median says (a worker's first run pays its start)."""
    cells = [Cell(name, k, space.own_rate[model, name], model=model) for (model, name), depths in space.depths.items()
             for k in depths]
    made = {cell: [s for _, s, *_ in observed.get(cell, [])][:seeds] for cell in cells}
    return sum(sum(made[cell]) + (seeds - len(made[cell])) * expected_seconds(cell, observed, space) for cell in cells)


def fits(cell, observed, space, spent, budget_seconds):
    """Whether a run of `cell` fits what is left of the budget, at its expected cost: the search
    ends before a run that would overrun it."""
    return spent + expected_seconds(cell, observed, space) <= budget_seconds
