"""study/seeds_at_once.py: several seeds of one cell trained at once are each seed's run alone
(loop.train), on a CPU and, with a card, on CUDA, in every family."""

import dataclasses
import json

import pytest
import torch
from safetensors.torch import load_file

from conftest import prepared_run, save_tiny_bert
import freeze_study
import loop
import result
from study import seeds_at_once
from model import drawn_masks

SEEDS = (1, 2, 3)


def seeds_prepared(tmp_path, checkpoint, glue_dir, extra, device):
    """Each seed's model and its stream, as a run of that seed would start training; their inputs (one subset)."""
    models, configs, streams = [], [], []
    for seed in SEEDS:
        plan, model, inputs = prepared_run(tmp_path, checkpoint, glue_dir, *extra, "--seed", str(seed), device=device)
        models.append(model)
        configs.append(plan.train_config)
        streams.append(seeds_at_once.stream_of(torch.device(device)))  # its masks' stream, from here
    return models, configs, streams, inputs


def assert_each_seed_alone(tmp_path, checkpoint, glue_dir, extra, device=torch.device("cpu")):
    models, configs, streams, inputs = seeds_prepared(tmp_path, checkpoint, glue_dir, extra, device)
    together = seeds_at_once.train_seeds(models, configs, inputs, streams, log=lambda line: None)
    for seed, result in zip(SEEDS, together):
        plan, model, inputs = prepared_run(tmp_path, checkpoint, glue_dir, *extra, "--seed", str(seed), device=device)
        with drawn_masks():  # on CUDA, the masks drawn as tensors, as the seeds at once draw them
            alone = loop.train(model, plan.train_config, inputs, log=lambda line: None)
        assert result.losses == pytest.approx(alone.losses, abs=1e-5)
        assert [p["accuracy"] for p in result.curve] == [p["accuracy"] for p in alone.curve]
        assert result.chosen["step"] == alone.chosen["step"] and result.train_scores == alone.train_scores
        assert result.dev_outputs == pytest.approx(alone.dev_outputs, abs=1e-5)
    assert len({tuple(r.losses) for r in together}) == len(SEEDS)  # the seeds did train apart
    return together


@pytest.mark.parametrize("extra", [["--freeze", "1"], ["--freeze", "2", "--method", "lora"], ["--freeze", "0"],
                                   ["--freeze", "-1"], ["--freeze", "1", "--method", "bitfit", "--pooling", "mean"]])
def test_seeds_at_once_are_each_seed_alone(tmp_path, tiny_bert, glue_dir, extra, device):
    """Every depth (-1: the token ids, nothing cached), LoRA, BitFit and mean pooling."""
    assert_each_seed_alone(tmp_path, tiny_bert, glue_dir, extra, device)


@pytest.mark.parametrize("family", ["roberta", "xlm-roberta", "distilbert", "electra", "mpnet", "deberta-v2", "modernbert"])
def test_seeds_at_once_in_every_family(tmp_path, glue_dir, family):
    """Each family's own positions (relative ones: MPNet, DeBERTa; ModernBERT's rotary angles and
    local window) read the grid's padding as a run alone reads its own."""
    checkpoint = save_tiny_bert(tmp_path / family, layers=2, family=family)
    assert_each_seed_alone(tmp_path, checkpoint, glue_dir, ["--freeze", "0"])


@pytest.mark.parametrize("family, extra", [("bert", ["--freeze", "-1"]), ("bert", ["--freeze", "1", "--pooling", "mean"]),
                                           ("roberta", ["--freeze", "0"]), ("distilbert", ["--freeze", "0"]),
                                           ("mpnet", ["--freeze", "0"]), ("deberta-v2", ["--freeze", "0"]),
                                           ("modernbert", ["--freeze", "-1"])])
def test_the_masks_template_gives_each_batch_the_shapes_its_run_draws(tmp_path, glue_dir, family, extra):
    """mask_template's shapes of a batch are those its run's own forward draws (mask_shapes, on the
    meta device): the batches of a real subset, of every size the steps meet."""
    checkpoint = save_tiny_bert(tmp_path / family, layers=2, family=family)
    plan, model, inputs = prepared_run(tmp_path, checkpoint, glue_dir, *extra)
    model.train()
    meta = seeds_at_once.on_meta(model)
    template = seeds_at_once.mask_template(model, meta, inputs.train[0], inputs.cached_depth)
    for size in (1, 3, 16, 50):
        batch = inputs.train[:size]
        assert seeds_at_once.shapes_of(template, batch) == seeds_at_once.mask_shapes(model, meta, batch, inputs.cached_depth)


def test_masks_that_cannot_lie_in_one_grid_are_refused_before_any_step(tmp_path, tiny_bert, glue_dir, monkeypatch):
    """A family whose masks' dimensions mask_template cannot name (none today) is refused in one line,
    before a step changes a weight: its runs go alone."""
    def cannot_name(*args):
        raise ValueError("a mask of shape (5, 7) moves with the batch as no size of it does, so several seeds "
                         "cannot train at once: run them alone (without SEEDS_AT_ONCE)")
    monkeypatch.setattr(seeds_at_once, "mask_template", cannot_name)
    runs = [prepared_run(tmp_path, tiny_bert, glue_dir, "--freeze", "1", "--seed", str(seed)) for seed in SEEDS]
    before = [p.detach().clone() for p in runs[0][1].parameters()]
    with pytest.raises(ValueError, match="run them alone"):
        seeds_at_once.train_seeds([model for _, model, _ in runs], [plan.train_config for plan, *_ in runs], runs[0][2],
                                  [torch.Generator().manual_seed(seed) for seed in SEEDS], log=lambda line: None)
    assert all(torch.equal(a, b) for a, b in zip(before, runs[0][1].parameters()))


def test_the_folds_of_one_file_at_once_are_each_fold_alone(tmp_path, tiny_bert):
    """make advise on one labelled file: fold s scored on its own rows, trained on the others. Folds
    of 12, 12, 11 and 11 rows train on 34 or 35 (batches of 16, 16 and 2 or 3): a fold's smaller
    last batch lies in the grid beside the others' larger one, and 3 epochs evaluate after it."""
    rows = "".join(f"{['good fun', 'bad dull', 'fine plot', 'awful mess'][i % 4]} {i},{'pos' if i % 2 else 'neg'}\n"
                   for i in range(46))
    (tmp_path / "labelled.csv").write_text("text,label\n" + rows)
    flags = lambda fold: ["--train-file", str(tmp_path / "labelled.csv"), "--text-column", "text", "--size", "46",
                          "--folds", "4", "--seed", str(fold), "--freeze", "1", "--batch-size", "16", "--epochs", "3"]
    models, configs, streams, inputs_of = [], [], [], []
    for fold in (1, 2, 3, 4):
        plan, model, inputs = prepared_run(tmp_path, tiny_bert, None, *flags(fold))
        models.append(model)
        configs.append(plan.train_config)
        inputs_of.append(inputs)
        streams.append(seeds_at_once.stream_of(torch.device("cpu")))
    assert sorted(len(inputs.train_labels) for inputs in inputs_of) == [34, 34, 35, 35]
    together = seeds_at_once.train_seeds(models, configs, inputs_of, streams, log=lambda line: None)
    for fold, result in zip((1, 2, 3, 4), together):
        plan, model, inputs = prepared_run(tmp_path, tiny_bert, None, *flags(fold))
        alone = loop.train(model, plan.train_config, inputs, log=lambda line: None)
        assert result.losses == pytest.approx(alone.losses, abs=1e-5)
        assert [p["accuracy"] for p in result.curve] == [p["accuracy"] for p in alone.curve]
        assert result.dev_outputs == pytest.approx(alone.dev_outputs, abs=1e-5)
        assert result.chosen["step"] == alone.chosen["step"] and result.train_scores == alone.train_scores


def test_a_frozen_weight_that_differs_or_fp16_is_refused(tmp_path, tiny_bert, glue_dir):
    models, configs, streams, inputs = seeds_prepared(tmp_path, tiny_bert, glue_dir, ["--freeze", "1"], "cpu")
    with pytest.raises(ValueError, match="fp32 or bf16"):
        seeds_at_once.train_seeds(models, [dataclasses.replace(c, precision="fp16") for c in configs], inputs, streams)
    with torch.no_grad():
        models[1].layers[0].query.weight.add_(1.0)
    with pytest.raises(ValueError, match=r"the seeds' models differ in layers.0.query.weight, which does not train"):
        seeds_at_once.train_seeds(models, configs, inputs, streams)


# ----------------------------------------------------------------------------------------------
# Through the tool: run_seeds, a grid's job under --seeds-at-once (study/worker.py)

def seed_argv(tmp_path, checkpoint, glue_dir, seed, folder, extra):
    """A run of `seed` on 50 examples of SST-2, fp32, its result in tmp_path/folder (2 epochs where
    its method has epochs)."""
    epochs = [] if "--method" in extra else ["--epochs", "2"]
    return ["--model", checkpoint, "--glue-dir", glue_dir, "--size", "50", "--precision", "fp32", *epochs,
            "--cache-dir", str(tmp_path / "cache"), "--splits-dir", str(tmp_path / "splits"), "--seed", str(seed),
            "--out", str(tmp_path / folder / f"seed{seed}.json"), "--quiet", *extra]


def measures_apart(record):
    """A record less what measures the machine (and what the cache held when it ran), and less the
    config's own place."""
    config = {key: value for key, value in record["config"].items() if key not in ("out", "at_once")}
    curve = [{key: value for key, value in point.items() if key != "seconds"} for point in record["curve"]]
    return {**record, "config": config, "curve": curve, "seconds": None, "peak_memory_mb": None, "prefix_texts": None}


def test_a_cell_s_seeds_at_once_write_each_seed_s_own_run(tmp_path, tiny_bert, glue_dir):
    """run_seeds writes each seed's result where its run alone would, with the same curve, choice and
    scores, saying it trained with the others; its log says each one's line."""
    extra = ["--freeze", "1", "--lr", "2e-3"]  # a rate that moves the tiny model: its seeds' outputs part
    alone = [freeze_study.run(freeze_study.parse_args(seed_argv(tmp_path, tiny_bert, glue_dir, seed, "alone", extra)))
             for seed in SEEDS]
    lines = []
    together = seeds_at_once.run_seeds([freeze_study.parse_args(seed_argv(tmp_path, tiny_bert, glue_dir, seed,
                                                                         "together", extra)) for seed in SEEDS],
                                      log=lines.append)
    for seed, record, its_own in zip(SEEDS, together, alone):
        assert json.loads((tmp_path / "together" / f"seed{seed}.json").read_text()) == json.loads(json.dumps(record))
        assert record["config"]["at_once"] == len(SEEDS) and "at_once" not in its_own["config"]
        assert [p["accuracy"] for p in record["curve"]] == [p["accuracy"] for p in its_own["curve"]]
        assert record["score_step"] == its_own["score_step"] and record["train_at_score"] == its_own["train_at_score"]
        assert record["at_score"] == pytest.approx(its_own["at_score"], abs=1e-9)
        # its dev outputs at the chosen step, its own seed's (float16 as kept: within a rounding)
        assert result.outputs_in(record).probabilities == pytest.approx(result.outputs_in(its_own).probabilities, abs=1e-3)
        assert {k: v for k, v in record["config"].items() if k not in ("out", "at_once")} == \
            {k: v for k, v in its_own["config"].items() if k != "out"}
    assert len({result.outputs_in(record).probabilities.tobytes() for record in together}) == len(SEEDS)  # apart
    assert [line.split(" | ")[-1] for line in lines] == [str(tmp_path / "together" / f"seed{s}.json") for s in SEEDS]


def test_a_method_with_a_loop_of_its_own_runs_each_seed_alone(tmp_path, tiny_bert, glue_dir):
    """The probe has no way to train seeds at once: run_seeds runs each seed's run itself, the same run."""
    extra = ["--freeze", "3", "--method", "probe"]
    alone = [freeze_study.run(freeze_study.parse_args(seed_argv(tmp_path, tiny_bert, glue_dir, seed, "alone", extra)))
             for seed in SEEDS[:2]]
    together = seeds_at_once.run_seeds([freeze_study.parse_args(seed_argv(tmp_path, tiny_bert, glue_dir, seed,
                                                                         "together", extra)) for seed in SEEDS[:2]])
    assert [measures_apart(r) for r in together] == [measures_apart(r) for r in alone]
    assert "at_once" not in together[0]["config"]


def test_fp16_is_refused_before_any_work(tmp_path, tiny_bert, glue_dir, monkeypatch):
    """A cell's seeds in fp16 (CUDA's default): one line, before a subset or a model is made."""
    real_plan_run = seeds_at_once.plan_run
    as_fp16 = lambda args, task: dataclasses.replace(plan := real_plan_run(args, task), train_config=dataclasses.replace(
        plan.train_config, precision="fp16"))
    monkeypatch.setattr(seeds_at_once, "plan_run", as_fp16)
    monkeypatch.setattr(freeze_study, "prepare", lambda *a: pytest.fail("a model was made"))
    runs_args = [freeze_study.parse_args(seed_argv(tmp_path, tiny_bert, glue_dir, s, "r", ["--freeze", "1"])) for s in SEEDS]
    with pytest.raises(ValueError, match=r"fp32 or bf16, as fp16's loss scaling is per run: pass --precision bf16"):
        seeds_at_once.run_seeds(runs_args)
    assert not (tmp_path / "splits").exists() and not (tmp_path / "r").exists()


def test_each_seed_s_saved_model_is_its_own(tmp_path, tiny_bert, glue_dir):
    """--save at once keeps each seed's chosen weights, as its run alone keeps its own: the seeds'
    models read their slices of one stacked tensor (share_weights), and each folder holds its slice."""
    extra = ["--freeze", "1", "--lr", "2e-3"]
    saved = lambda way, seed: ["--save", str(tmp_path / way / f"model{seed}")]
    for seed in SEEDS:
        freeze_study.run(freeze_study.parse_args(seed_argv(tmp_path, tiny_bert, glue_dir, seed, "alone", extra)
                                                 + saved("alone", seed)))
    seeds_at_once.run_seeds([freeze_study.parse_args(seed_argv(tmp_path, tiny_bert, glue_dir, seed, "together", extra)
                                                     + saved("together", seed)) for seed in SEEDS])
    weights = lambda way, seed: load_file(str(tmp_path / way / f"model{seed}" / "model.safetensors"))
    for seed in SEEDS:
        together, alone = weights("together", seed), weights("alone", seed)
        assert together.keys() == alone.keys()
        for name in alone:
            torch.testing.assert_close(together[name], alone[name], atol=1e-5, rtol=1e-4)
    head = next(name for name in alone if name.startswith("classifier") and name.endswith("weight"))
    heads = {weights("together", seed)[head].numpy().tobytes() for seed in SEEDS}
    assert len(heads) == len(SEEDS)  # each its own, not one seed's written three times
