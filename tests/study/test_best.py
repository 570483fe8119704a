"""make best: the report's pick trained again with the options its runs recorded, its method's own
(SetFit's pairs, LoRA's rank and targets) included, so the kept model is the cell the report read,
at its seed that scored best on the dev split."""

import pytest

from conftest import write_result
from study.best import best_flags, main, own_options


def test_a_setfit_pick_is_trained_again_on_the_pairs_its_runs_used(tmp_path):
    for seed in (1, 2):
        write_result(tmp_path, 2, 500, seed, 0.8, method="setfit", lr=1e-5, num_iterations=20, seconds=dict(total=10.0))
    flags, why = best_flags(str(tmp_path), "500", 1)
    assert why == "seed 1, as asked" and flags[:8] == ["--freeze", "2", "--size", "500", "--seed", "1", "--method", "setfit"]
    assert flags[flags.index("--num-iterations") + 1] == "20"


def test_the_seed_kept_is_the_pick_s_best_on_the_dev_split_the_lowest_of_equals(tmp_path):
    for seed, accuracy in ((1, 0.80), (2, 0.84), (3, 0.84), (4, 0.78)):
        write_result(tmp_path, 2, 200, seed, accuracy, seconds=dict(total=10.0))
    write_result(tmp_path, 4, 200, 1, 0.70, seconds=dict(total=5.0))  # out of the band: not the pick
    flags, why = best_flags(str(tmp_path), "200")
    assert flags[:6] == ["--freeze", "2", "--size", "200", "--seed", "2"]
    assert why == "seed 2, the best of its 4 runs on the dev split (accuracy 0.840 there)"


def test_a_method_s_own_options_are_written_as_its_command_line_reads_them():
    lora = dict(method="lora", lora_rank=8, lora_alpha=8.0, lora_dropout=0.0, lora_targets=["query", "value"])
    assert own_options(lora) == ["--lora-rank", "8", "--lora-alpha", "8.0", "--lora-dropout", "0.0",
                                 "--lora-targets", "query", "value"]
    assert own_options(dict(method="setfit", num_iterations=None)) == []  # setfit's oversampling: no flag
    assert own_options(dict(method="finetune")) == []


def test_a_make_advise_folder_is_refused_in_one_line_its_pick_kept_by_its_own_rule(tmp_path, capsys):
    """make advise picks by its own rule (the paired noise band, its honest half) and keeps that model
    itself: the grid's rule over a search's few cells could name another, and a search over two
    checkpoints keeps its runs in their folders, where make best found none."""
    for seed in (1, 2):
        write_result(tmp_path, 2, 200, seed, 0.8, seconds=dict(total=10.0))
    (tmp_path / "advise.rounds").write_text("")
    with pytest.raises(SystemExit) as refused:
        main([str(tmp_path), "--size", "200"])
    err = capsys.readouterr().err
    assert refused.value.code == 2 and err == (f"best.py: error: {tmp_path} is a make advise search: it kept its pick "
                                               "where its report says (SAVE); make best trains a grid's\n")
