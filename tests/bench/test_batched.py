"""bench/batched.py: several rates of one cell trained at once are each rate's run alone (loop.train)."""

import dataclasses

import pytest
import torch

from bench import batched
import freeze_study
import loop
from plan import plan_run


def prepared(tmp_path, checkpoint, glue_dir, *extra):
    """A run's model (built from its seed, frozen as planned) and its inputs, as freeze_study.run makes them."""
    args = freeze_study.parse_args(["--model", checkpoint, "--glue-dir", glue_dir, "--size", "50", "--epochs", "1",
                                    "--precision", "fp32", "--device", "cpu", "--cache-dir", str(tmp_path / "cache"),
                                    "--splits-dir", str(tmp_path / "splits"), "--out", str(tmp_path / "r.json"), *extra])
    task, indices = freeze_study.load_task_and_subset(args)
    plan = plan_run(args, task)
    model, inputs, _, _ = freeze_study.prepare(plan, task, indices)
    return plan, model, inputs


@pytest.mark.parametrize("extra", [["--freeze", "1"], ["--freeze", "2", "--method", "lora"], ["--freeze", "0"]])
def test_rates_at_once_are_each_rate_alone(tmp_path, tiny_bert, glue_dir, extra):
    rates = [2e-5, 1e-4, 5e-4]
    plan, model, inputs = prepared(tmp_path, tiny_bert, glue_dir, *extra)
    together = batched.train_rates(model, plan.train_config, rates, inputs, log=lambda line: None)
    for rate, result in zip(rates, together):
        plan, model, inputs = prepared(tmp_path, tiny_bert, glue_dir, *extra)  # dropout 0.1: the seed's masks
        alone = loop.train(model, dataclasses.replace(plan.train_config, lr=rate), inputs, log=lambda line: None)
        assert result.losses == pytest.approx(alone.losses, abs=1e-5)
        assert [p["accuracy"] for p in result.curve] == [p["accuracy"] for p in alone.curve]
        assert [p["lr"] for p in result.curve] == [p["lr"] for p in alone.curve]
        assert result.chosen["step"] == alone.chosen["step"] and result.train_scores == alone.train_scores
    assert len({tuple(r.losses) for r in together}) == len(rates)  # the rates did train apart


def test_fp16_is_refused(tmp_path, tiny_bert, glue_dir):
    plan, model, inputs = prepared(tmp_path, tiny_bert, glue_dir, "--freeze", "1")
    with pytest.raises(ValueError, match="fp32 or bf16"):
        batched.train_rates(model, dataclasses.replace(plan.train_config, precision="fp16"), [1e-4], inputs)


def test_cuda_is_refused_before_any_step(tmp_path, tiny_bert, glue_dir):
    plan, model, inputs = prepared(tmp_path, tiny_bert, glue_dir, "--freeze", "1")
    with pytest.raises(ValueError, match="CPU only"):
        batched.train_rates(model, plan.train_config, [1e-4], dataclasses.replace(inputs, device=torch.device("cuda")))
