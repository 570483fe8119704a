"""
The methods, one declaration each: how a run adapts the checkpoint to the task above its k frozen,
cached layers. Everything that differs between methods is here (the command line's choices, the
result file's name, the reports' labels and the Makefile's METHOD read this table); what trains
under each is drawn in trainable.py, and how each trains is one function with one signature:

    train(model, config, inputs, log) -> loop.TrainResult     (config: protocol.TrainConfig, inputs: loop.RunInputs)

    finetune     loop.train              the protocol's AdamW steps on the head and the layers above k
    lora         loop.train              the same steps on low-rank updates of query and value, and the head
    bitfit       loop.train              the same steps on every bias and the classifier
                                         (the three: a cell's seeds at once too, study/seeds_at_once.py)
    setfit       contrastive.train       pairs' cosine on the layers above k (setfit 1.2's pairs), then a
                                         fitted logistic head
    setfit-fast  contrastive.train_fast  the same loss on every pair among 32 distinct sentences a step,
                                         an eighth of the library's passes, at most 40 epochs and 400
                                         steps; the same head
    probe        probe.train             nothing trains: a linear model fitted to the frozen model's embedding

--save keeps finetune, lora and bitfit as a transformers classifier (checkpoint.save_classifier),
both SetFits and the probe as a sentence-transformers body and their fitted head (checkpoint.save_embedder).
A seventh method is one Method in METHODS and its functions. `python -m methods` prints the table
with each method's default rate and the rates a search tries at each train size.

Nothing here imports torch (study/grid.py, which make calls, reads the table): the functions a method
names import their module when first called.
"""

import math
from dataclasses import dataclass
from typing import Callable


# ----------------------------------------------------------------------------------------------
# The functions the table names, each its module's, imported at its first call (a reader follows
# each to its module: loop.train, trainable.lora, ...)

def loop_train(model, config, inputs, log):
    import loop
    return loop.train(model, config, inputs, log)


def contrastive_train(model, config, inputs, log):
    import contrastive
    return contrastive.train(model, config, inputs, log)


def contrastive_train_fast(model, config, inputs, log):
    import contrastive
    return contrastive.train_fast(model, config, inputs, log)


def probe_train(model, config, inputs, log):
    import probe
    return probe.train(model, config, inputs, log)


def trainable_everything_above(model, k, options):
    import trainable
    return trainable.everything_above(model, k, options)


def trainable_lora(model, k, options):
    import trainable
    return trainable.lora(model, k, options)


def trainable_biases(model, k, options):
    import trainable
    return trainable.biases(model, k, options)


def trainable_body_above(model, k, options):
    import trainable
    return trainable.body_above(model, k, options)


def trainable_nothing(model, k, options):
    import trainable
    return trainable.nothing(model, k, options)


def save_classifier(model, history, folder, label_names=None, max_length=None, inputs=None):
    import checkpoint
    return checkpoint.save_classifier(model, history, folder, label_names, max_length, inputs)


def save_embedder(model, history, folder, label_names=None, max_length=None, inputs=None):
    import checkpoint
    return checkpoint.save_embedder(model, history, folder, label_names, max_length, inputs)


# ----------------------------------------------------------------------------------------------
# Rates: the 1-2-5 ladder every default and every search lies on

def on_ladder(rate):
    """The 1-2-5 rate nearest `rate` in log scale: 4e-3 -> 5e-3, 1.25e-5 -> 1e-5."""
    exponent = math.floor(math.log10(rate))
    candidates = [m * 10.0 ** e for e in (exponent - 1, exponent, exponent + 1) for m in (1, 2, 5)]
    return float(f"{min(candidates, key=lambda c: abs(math.log(c / rate))):.0e}")


def ladder_around(rate, steps=2):
    """The 1-2-5 rates from `steps` below `rate` to `steps` above: 1e-3 -> 2e-4 5e-4 1e-3 2e-3 5e-3."""
    exponent = math.floor(math.log10(rate))
    rungs = sorted(float(f"{m}e{e}") for e in range(exponent - 2, exponent + 3) for m in (1, 2, 5))
    i = rungs.index(on_ladder(rate))
    return rungs[i - steps:i + steps + 1]


def lr_text(lr):
    """A learning rate as names and reports write it: 5e-5, 3e-4, 1.5e-5."""
    mantissa, exponent = f"{float(lr):e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def examples(n):
    """A train size as a number: 'all' (a whole train split, thousands of examples) reads as infinity."""
    return math.inf if n == "all" else n


def scaled(rate, at, n, power=1, floor=None):
    """`rate` at `at` examples, scaled by (at / n) ** power at other sizes and never below `floor`
    (default: `rate`), on the 1-2-5 ladder: the best rates the line searches found fall as n grows."""
    return on_ladder(max(rate * (at / examples(n)) ** power, rate if floor is None else floor))


def fast_setfit_rate(n):
    return min(5e-4, scaled(2e-4, 100, n, power=2, floor=2e-5))


# ----------------------------------------------------------------------------------------------
# The table

PROTOCOL_SETTINGS = ("protocol", "epochs", "batch_size", "warmup_epochs", "weight_decay")


@dataclass(frozen=True)
class Method:
    name: str  # as --method and Makefile's METHOD write it
    label: str  # as a report writes it
    suffix: str  # what it adds to a result file's name (result.py): freeze2_size50_seed1_lora.json
    default_lr: Callable  # n -> the rate a run takes without --lr, and that a result's name leaves out (None: fitted; own_lr)
    best_lr: Callable  # n -> where this project's line searches found the best rate (docs/findings-*.md)
    make_trainable: Callable  # (model, k, options): what trains above the frozen prefix (trainable.py)
    train: Callable  # (model, config, inputs, log) -> loop.TrainResult
    counts: Callable  # (trainable, fitted_head) -> the parameters the record counts as trained
    sentence_embedding: bool  # pools as the checkpoint's own sentence embedding, else reads the first token
    scored_once: bool  # scores the dev split once, at the end (else each evaluation, and the protocol picks)
    # loop.train's steps, which several seeds of a cell can take at once over stacked weights
    # (study/seeds_at_once.py, make grid SEEDS_AT_ONCE=1); else each seed trains alone
    seeds_at_once: bool = False
    options: tuple = ()  # options of its own: refused, in one line, with any other method
    ignores: tuple = ()  # common options it would ignore: refused, in one line ...
    ignores_why: str = ""  # ... which says why
    settings: tuple = PROTOCOL_SETTINGS  # beyond pooling and precision, what a cell's runs must share
    every_layer_frozen: bool = False  # runs only with --freeze L
    # its head is fitted once the body has trained: at --freeze L nothing trains at its rate
    fitted_head: bool = False
    needs_classes: bool = False  # cannot run a regression task
    fewest_examples: int = 1  # the fewest training examples a run can use, and why (refused below it)
    fewest_why: str = ""
    # how --save keeps it: (model, loop.TrainResult, folder, label_names, max_length, inputs) -> a folder predict.py reads
    save: Callable = save_classifier
    cost_factor: float = 1.0  # a run's work per layer trained against the fine-tune's, before any has run (make advise)
    reference: bool = False  # the method the reports read every other against, and a run's default (no --method)
    searched: bool = True  # in make advise's methods unless METHODS names others
    # make advise's pick stays with the anchor, the tool's defaults (k = 0, the method's own rate; what they
    # score beside the setfit library's a user would run alone: docs/findings-advise.md)
    # unless choosing the best gains over them out of bag: of the methods a search has, the highest rank (0: never)
    anchor: int = 0

    def own_lr(self, size, split_examples=None):
        """The rate a run takes without --lr: default_lr at its n, where n for 'all' is the train
        split's examples where they are known (`split_examples`): a file of 150 examples trains at
        the rate for 150, not for GLUE's thousands, which 'all' reads as where they are not."""
        return self.default_lr(split_examples if size == "all" and split_examples else size)

    def flags(self):
        """freeze_study.py's options that choose this method: none for the reference, the default."""
        return [] if self.reference else ["--method", self.name]

    def trains_at_rate(self, freeze, num_layers):
        """Whether a run at this depth trains anything at its rate: not a fitted head over every
        layer frozen, where each rate gives the same run (make advise tries no other there)."""
        return not (self.fitted_head and freeze >= num_layers)

    def ladder(self, n):
        """The rates a search tries at n: two 1-2-5 steps either side of the best rate found ([] fitted)."""
        return ladder_around(self.best_lr(n)) if self.best_lr(n) else []


LORA_OPTIONS = ("lora_rank", "lora_alpha", "lora_dropout", "lora_targets")
# What SetFit's two bodies share: the checkpoint's own pooling, a fitted logistic head, how they are
# kept, and setfit's own epoch, batch and schedule (contrastive.py), so they refuse the protocol's
SETFIT_BOTH = dict(make_trainable=trainable_body_above, sentence_embedding=True, scored_once=True,
                   counts=lambda trainable, fitted_head: trainable + fitted_head,
                   options=("num_iterations",), settings=("num_iterations",), ignores=("epochs", "batch_size", "protocol"),
                   ignores_why="it trains its body on setfit's schedule by its own steps (contrastive.py)",
                   needs_classes=True, fitted_head=True, save=save_embedder)
METHODS = (
    # the blog's rate at every n (the protocol's); its line searches found 2e-4 at n = 50, 1e-4 at 100
    # and 5e-5 from 200 up (docs/findings-sst2.md, "The rate falls as n grows")
    Method("finetune", "fine-tune", "", default_lr=lambda n: 5e-5, best_lr=lambda n: scaled(5e-5, 200, n),
           make_trainable=trainable_everything_above, train=loop_train, seeds_at_once=True,
           counts=lambda trainable, fitted_head: trainable, sentence_embedding=False, scored_once=False, reference=True,
           anchor=1),  # the defaults a user runs alone where SetFit cannot run (regression)
    # 1e-3 x 200 / n, at least 1e-3: the searches' 5e-3 at n = 50, 2e-3 at 100, 1e-3 at 200, 1000 and
    # under Lee's protocol on RTE (docs/findings-peft.md); the LoRA paper's 5e-4 learns nothing at n = 200
    Method("lora", "LoRA", "_lora", default_lr=lambda n: scaled(1e-3, 200, n), best_lr=lambda n: scaled(1e-3, 200, n),
           make_trainable=trainable_lora, train=loop_train, seeds_at_once=True,
           counts=lambda trainable, fitted_head: trainable, sentence_embedding=False, scored_once=False,
           options=LORA_OPTIONS, settings=PROTOCOL_SETTINGS + LORA_OPTIONS),
    # 5e-3 x 100 / n, at least 5e-3: the searches' 1e-2 at n = 50 and 5e-3 from 100 to 1000 (findings-peft.md)
    Method("bitfit", "BitFit", "_bitfit", default_lr=lambda n: scaled(5e-3, 100, n), best_lr=lambda n: scaled(5e-3, 100, n),
           make_trainable=trainable_biases, train=loop_train, seeds_at_once=True,
           counts=lambda trainable, fitted_head: trainable, sentence_embedding=False, scored_once=False),
    # 2e-4 x (50 / n)^2, at least 1e-5 (SetFit's pairs grow as n^2): the searches' 2e-4 at n = 50, 5e-5 at
    # 100, 1e-5 at 1000 (docs/findings-sst2.md); setfit's own 2e-5 learns little at n = 50
    Method("setfit", "SetFit", "_setfit", default_lr=lambda n: scaled(2e-4, 50, n, power=2, floor=1e-5),
           best_lr=lambda n: scaled(2e-4, 50, n, power=2, floor=1e-5), train=contrastive_train,
           cost_factor=4.0, searched=False, **SETFIT_BOTH),  # its pairs: about four times the fine-tune's steps
    # the same two stages, the body trained on every pair among 32 distinct sentences a step for an
    # eighth of the library's sentence passes; 2e-4 x (100 / n)^2 (its steps grow as n^2), at most
    # 5e-4: its line searches' 5e-4 at n = 50, 2e-4 at 100 and 5e-5 at 200, on SST-2, seeds 4-8; and at
    # least 2e-5, where its steps stop growing (400 from n = 320 on two classes, contrastive.MOST_STEPS):
    # at n = 1000, 1e-5 fell short in 400 steps, 2e-5 held (docs/findings-setfit-fast.md)
    Method("setfit-fast", "SetFit fast", "_setfit-fast", default_lr=fast_setfit_rate, best_lr=fast_setfit_rate,
           train=contrastive_train_fast, **SETFIT_BOTH, anchor=2,  # make advise's baseline: SetFit at its defaults
           cost_factor=3.0),  # the fine-tune's train seconds 2.3 times on SST-2 (n = 200, k = 0), 2.7 to 4.6 on emotion
    # fitted, not trained: its L2 strength is chosen by cross-validation (probe.py), at no rate
    Method("probe", "probe", "_probe", default_lr=lambda n: None, best_lr=lambda n: None,
           make_trainable=trainable_nothing, train=probe_train,
           counts=lambda trainable, fitted_head: fitted_head, sentence_embedding=True, scored_once=True,
           fewest_examples=5, fewest_why="it cross-validates its strength on 5 folds of them",  # probe.FOLDS
           ignores=("lr", "epochs", "batch_size", "no_cache"), settings=("protocol",), every_layer_frozen=True,
           fitted_head=True, ignores_why="it fits a linear model to the cached frozen features, its strength chosen by cross-validation",
           save=save_embedder),
)
BY_NAME = {method.name: method for method in METHODS}
NAMES = tuple(BY_NAME)
# the methods other modules name: the protocol's own (the default), the probe (--probe, make's PROBE=1),
# SetFit (tools/migrate.py brings its older records' rates up to date) and SetFit fast (the runs a
# replay makes beside grids of the library's SetFit, study/search/replay.py)
FINETUNE, PROBE, SETFIT, SETFIT_FAST = BY_NAME["finetune"], BY_NAME["probe"], BY_NAME["setfit"], BY_NAME["setfit-fast"]
OPTIONS = tuple(dict.fromkeys(option for method in METHODS for option in method.options))  # every method's own options


def get(name):
    if name not in BY_NAME:
        raise ValueError(f"unknown method {name!r}: {', '.join(NAMES)}")
    return BY_NAME[name]


def table(sizes=(50, 100, 200, 500, 1000, "all")):
    """The table as text: each method's default rate, the rate a search screens it at (its best) and
    its search's ladder at each size."""
    lines = []
    for method in METHODS:
        lines.append(f"{method.name} ({method.label}): trains by {method.train.__name__.replace('_', '.', 1)}, "
                     f"pools {'as its sentence embedding' if method.sentence_embedding else 'the first token'}")
        for n in sizes:
            default = method.default_lr(n)
            lines.append(f"  n = {n}: " + ("fitted, no rate" if default is None else
                         f"default {lr_text(default)}; a search screens {lr_text(method.best_lr(n))}, tries "
                         f"{' '.join(map(lr_text, method.ladder(n)))}"))
    lines.append("(n = all: a split of thousands, as GLUE's; all of your own file is n = its examples: Method.own_lr)")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m methods
    print(table())
