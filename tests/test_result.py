"""result.py: the one grammar of result names, which the Makefile (study/grid.py), the study and the
tool share, and a record's outputs read back as its run scored them."""

import json

import numpy as np
import pytest

import result
from conftest import result_record, write_result


@pytest.mark.parametrize("run, name", [
    (result.RunName(2, 200, 1), "freeze2_size200_seed1.json"),
    (result.RunName(-1, 50, 7, lr=3e-4), "freeze-1_size50_seed7_lr3e-4.json"),
    (result.RunName(0, "all", 2, lr=1.5e-5), "freeze0_sizeall_seed2_lr1.5e-5.json"),
    (result.RunName(0, 100, 3, reinit=2), "freeze0_size100_seed3_reinit2.json"),
    (result.RunName(6, 1000, 5, method="probe"), "freeze6_size1000_seed5_probe.json"),
    (result.RunName(4, 50, 1, lr=2e-3, method="setfit"), "freeze4_size50_seed1_lr2e-3_setfit.json"),
    (result.RunName(4, 50, 1, lr=5e-5, method="setfit"), "freeze4_size50_seed1_lr5e-5_setfit.json"),
    # a rate is left out where it is the method's default at that size (methods.py): LoRA's falls as n grows
    (result.RunName(0, 50, 1, method="lora"), "freeze0_size50_seed1_lora.json"),
    (result.RunName(0, 200, 1, lr=5e-3, method="lora"), "freeze0_size200_seed1_lr5e-3_lora.json"),
])
def test_a_name_is_written_and_read_back_the_same(run, name):
    assert run.file_name() == name and result.parse_name(f"results/sst2/minilm/{name}") == run


@pytest.mark.parametrize("name", ["freeze2_size200_seed1_lr5e-5.json",  # the default rate is left out
                                  "freeze2_size50_seed1_lr5e-3_lora.json",  # LoRA's at n = 50
                                  "freeze2_size200_seed1_lr0.0003.json",  # rates are written as 3e-4
                                  "freeze2_size200_seed1_reinit0.json", "result.json", "freeze2_size200.json"])
def test_a_name_written_otherwise_is_not_a_run_s(name):
    assert result.parse_name(name) is None


def test_at_all_a_name_leaves_out_the_rate_for_the_train_split_s_examples():
    """At size 'all' a method's own rate is the one for the train split's examples (a file of 150:
    SetFit fast's 1e-4, where GLUE's thousands take 2e-5): the name leaves that one out and writes
    any other, and a rate written there is read back as written, whatever the split."""
    config = lambda lr, examples: dict(freeze=0, size="all", seed=1, lr=lr, reinit=0, method="setfit-fast",
                                       train_split_examples=examples)
    assert result.name_of(config(1e-4, 150)).file_name() == "freeze0_sizeall_seed1_setfit-fast.json"
    thousands = result.name_of(config(2e-5, 150))
    assert thousands.file_name() == "freeze0_sizeall_seed1_lr2e-5_setfit-fast.json"
    assert result.parse_name(thousands.file_name()) == thousands  # read back without the split
    assert result.name_of(config(2e-5, 67349)).file_name() == "freeze0_sizeall_seed1_setfit-fast.json"
    assert result.name_of(config(1e-4, 67349)).file_name() == "freeze0_sizeall_seed1_lr1e-4_setfit-fast.json"
    assert result.parse_name("freeze0_sizeall_seed1_lr1.0e-4_setfit-fast.json") is None  # rates as 1e-4 still
    old = dict(config(2e-5, None)); del old["train_split_examples"]  # a record before the split was kept
    assert result.name_of(old).file_name() == "freeze0_sizeall_seed1_setfit-fast.json"


def test_a_run_s_default_name_and_its_configuration_agree():
    record = result_record(2, 200, 1, lr=3e-4, method="probe")
    assert result.name_of(record["config"]).file_name() == "freeze2_size200_seed1_lr3e-4_probe.json"
    assert result.default_path("sst2", "./checkpoints/mine/", result.RunName(0, 50, 1)) == \
        "results/sst2/mine/freeze0_size50_seed1.json"


def test_a_grid_s_options_go_to_the_runs_that_read_them():
    shared = dict(epochs="3", protocol=None, splits_dir="splits", num_iterations="20")
    setfit = result.RunName(1, 500, 1, method="setfit").flags(shared)
    finetune = result.RunName(1, 500, 1).flags(shared)
    assert setfit[setfit.index("--num-iterations") + 1] == "20" and "--epochs" not in setfit  # SetFit's own schedule
    assert "--num-iterations" not in finetune and finetune[finetune.index("--epochs") + 1] == "3"  # SetFit's pairs alone
    assert "--splits-dir" not in result.RunName(1, "all", 1).flags(shared)  # the whole train split: no subset


def test_a_folder_takes_one_precision_and_one_pooling_per_method(tmp_path):
    write_result(tmp_path, 6, 50, 1, 0.7)  # a fine-tune, first token, fp32
    write_result(tmp_path, 6, 50, 1, 0.7, method="probe", lr=None, pooling="mean")
    (tmp_path / "notes.json").write_text(json.dumps({"not": "a run"}))
    ok = dict(precision="fp32", pooling="first", method="finetune")
    result.check_folder(str(tmp_path), ok, precision_chosen=True)
    result.check_folder(str(tmp_path), dict(ok, pooling="mean", method="setfit"), precision_chosen=True)  # a new method
    with pytest.raises(ValueError, match=r"holds fp32 runs .* would be bf16 \(the default here\): pass --precision fp32"):
        result.check_folder(str(tmp_path), dict(ok, precision="bf16"), precision_chosen=False)
    with pytest.raises(ValueError, match="holds probe runs pooled by the mean .* would pool by the first"):
        result.check_folder(str(tmp_path), dict(ok, method="probe"), precision_chosen=True)


def test_a_folder_takes_one_task_s_runs(tmp_path):
    """Your own file's name and content name its task: runs of an edited train file do not join the
    runs of the file as it was."""
    write_result(tmp_path, 6, 50, 1, 0.7, task="train-813ecd99")
    run = dict(result_record(6, 50, 2, task="train-813ecd99")["config"], metric="accuracy")
    result.check_folder(str(tmp_path), run, precision_chosen=True)
    with pytest.raises(ValueError, match=r"holds runs of train-813ecd99 \(freeze6_size50_seed1.json\) and this one is "
                                         r"of train-5d8b7598: a folder holds one task's runs"):
        result.check_folder(str(tmp_path), dict(run, task="train-5d8b7598"), precision_chosen=True)


def test_a_folder_takes_the_runs_of_one_dev_file(tmp_path):
    """Your own dev file's name and content name the split a run is scored on; a run of a GLUE task
    or of one labelled file names none, and is not compared."""
    write_result(tmp_path, 6, 50, 1, 0.7, task="train-813ecd99", dev="dev-0a1b2c3d")
    run = dict(result_record(6, 50, 2, task="train-813ecd99", dev="dev-0a1b2c3d")["config"], metric="accuracy")
    result.check_folder(str(tmp_path), run, precision_chosen=True)
    result.check_folder(str(tmp_path), {k: v for k, v in run.items() if k != "dev"}, precision_chosen=True)
    with pytest.raises(ValueError, match=r"holds runs scored on dev-0a1b2c3d \(freeze6_size50_seed1.json\) and this one "
                                         r"is scored on dev-99999999: a folder's runs are scored on one dev split"):
        result.check_folder(str(tmp_path), dict(run, dev="dev-99999999"), precision_chosen=True)


def test_a_folder_of_saved_picks_is_no_results_folder(tmp_path):
    """make best and make advise keep a pick as SAVE/ and SAVE.json: the picks of CoLA (MCC) and
    SST-2 (accuracy) in one saved/ folder do not refuse each other, as runs of one folder would."""
    cola = result_record(2, 200, 1, task="cola")
    cola["config"]["metric"] = "mcc"
    (tmp_path / "cola-minilm-n200.json").write_text(json.dumps(cola))
    sst2 = dict(result_record(2, 200, 1)["config"], metric="accuracy")
    with pytest.raises(ValueError, match="holds runs of cola"):  # a run beside it: one folder, one task
        result.check_folder(str(tmp_path), sst2, precision_chosen=True)
    (tmp_path / "cola-minilm-n200").mkdir()  # the record of the model kept beside it
    result.check_folder(str(tmp_path), sst2, precision_chosen=True)


def test_a_run_never_joins_a_cell_of_other_settings(tmp_path):
    """SetFit's pairs per example (--num-iterations) are a setting its name does not carry: a run
    that would join seeds run with others is refused before it starts, in one line."""
    write_result(tmp_path, 0, 1000, 1, 0.82, method="setfit", lr=1e-5, pooling="mean", num_iterations=20)
    setfit = result_record(0, 1000, 2, method="setfit", lr=1e-5, pooling="mean", num_iterations=20)["config"]
    result.check_folder(str(tmp_path), setfit, precision_chosen=True)  # another seed of the cell
    result.check_folder(str(tmp_path), dict(setfit, size=500, num_iterations=None), precision_chosen=True)  # another cell
    with pytest.raises(ValueError, match=r"holds this cell's runs with num_iterations 20 \(freeze0_size1000_seed1_setfit"
                                         r".json\) and this one would have None"):
        result.check_folder(str(tmp_path), dict(setfit, num_iterations=None), precision_chosen=True)
    write_result(tmp_path, 2, 200, 1, 0.7, epochs=10)
    with pytest.raises(ValueError, match="with epochs 10 .* would have 3"):  # a shared setting, for any method
        result.check_folder(str(tmp_path), result_record(2, 200, 3, epochs=3)["config"], precision_chosen=True)


def test_a_record_s_outputs_read_back_as_they_were_scored():
    rng = np.random.default_rng(6)
    for classes in (2, 4, 150):
        probabilities = rng.dirichlet(np.ones(classes), size=50).astype(np.float32)
        truth = rng.integers(0, classes, 50)
        kept = result.outputs_in(dict(predictions=dict(dev=result.encoded_outputs(truth, probabilities))))
        assert (kept.truth == truth).all() and (kept.predicted == probabilities.argmax(1)).all()
        top = min(classes, result.TOP_CLASSES)
        order = np.argsort(-probabilities, axis=1)[:, :top]
        assert np.allclose(np.take_along_axis(kept.probabilities, order, 1),
                           np.take_along_axis(probabilities, order, 1), atol=1e-3)
    scores = rng.normal(size=30).astype(np.float32)
    kept = result.outputs_in(dict(predictions=dict(dev=result.encoded_outputs(scores + 1, scores))))
    assert (kept.predicted == scores).all() and kept.probabilities is None
    assert result.outputs_in(dict(config={})) is None and result.outputs_in(dict(predictions=dict(dev=None, test=None)), "test") is None
