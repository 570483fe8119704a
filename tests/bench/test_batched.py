"""bench/batched.py: several rates of one cell trained at once are each rate's run alone (loop.train),
on a CPU and, with a card, on CUDA."""

import dataclasses

import pytest

from bench import batched
from conftest import prepared_run
import loop
from model import drawn_masks


@pytest.mark.parametrize("extra", [["--freeze", "1"], ["--freeze", "2", "--method", "lora"], ["--freeze", "0"]])
def test_rates_at_once_are_each_rate_alone(tmp_path, tiny_bert, glue_dir, extra, device):
    """On CUDA the run alone draws its masks as the rates at once do (model.drawn_masks); on a CPU
    every run does."""
    rates = [2e-5, 1e-4, 5e-4]
    plan, model, inputs = prepared_run(tmp_path, tiny_bert, glue_dir, *extra, device=device)
    together = batched.train_rates(model, plan.train_config, rates, inputs, log=lambda line: None)
    for rate, result in zip(rates, together):
        plan, model, inputs = prepared_run(tmp_path, tiny_bert, glue_dir, *extra, device=device)  # the seed's masks again
        with drawn_masks():
            alone = loop.train(model, dataclasses.replace(plan.train_config, lr=rate), inputs, log=lambda line: None)
        assert result.losses == pytest.approx(alone.losses, abs=1e-5)
        assert [p["accuracy"] for p in result.curve] == [p["accuracy"] for p in alone.curve]
        assert [p["lr"] for p in result.curve] == [p["lr"] for p in alone.curve]
        assert result.chosen["step"] == alone.chosen["step"] and result.train_scores == alone.train_scores
    assert len({tuple(r.losses) for r in together}) == len(rates)  # the rates did train apart


def test_fp16_is_refused(tmp_path, tiny_bert, glue_dir):
    plan, model, inputs = prepared_run(tmp_path, tiny_bert, glue_dir, "--freeze", "1")
    with pytest.raises(ValueError, match="fp32 or bf16"):
        batched.train_rates(model, dataclasses.replace(plan.train_config, precision="fp16"), [1e-4], inputs)


