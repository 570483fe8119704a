"""study/grid.py: make's names for a grid's runs and the options each name stands for, from
result.py's one grammar, so that make and the tool cannot disagree."""

import subprocess
import sys

import result
from conftest import ROOT
from study import grid


def make_names(*variables):
    """The grid's result files as the Makefile lists them (make's own expansion of RUNS)."""
    out = subprocess.run(["make", "-C", ROOT, "--no-print-directory", "-f", "Makefile", "-f", "-", "print-runs",
                          f"PYTHON={sys.executable}", "RESULTS=out", *variables],
                         input="print-runs:\n\t@echo $(RUNS)\n", capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_makefile_names_its_runs_as_study_grid_does():
    names = make_names("FREEZE=-1 0 6", "SIZES=50 all", "SEEDS=1 2", "LRS=5e-5 3e-4", "REINITS=0 2", "PROBE=1")
    expected = grid.grid_names("out", [-1, 0, 6], [50, "all"], [1, 2], [5e-5, 3e-4], [0, 2], probe=True)
    assert make_names("FREEZE=0", "SIZES=50", "SEEDS=1", "METHOD=setfit") == ["out/freeze0_size50_seed1_setfit.json"]
    assert names == expected and len(names) == 3 * 2 * 2 * 2 + 2 * 2 * 2 + 2 * 2
    assert "out/freeze0_size50_seed1_reinit2.json" in names and "out/freeze0_size50_seed1_lr3e-4_reinit2.json" in names
    assert "out/freeze6_sizeall_seed2_probe.json" in names and "out/freeze-1_size50_seed1.json" in names
    assert make_names("FREEZE=0", "SIZES=50", "SEEDS=1", "LR=1e-4", "METHOD=setfit") == ["out/freeze0_size50_seed1_lr1e-4_setfit.json"]


def test_at_all_of_your_own_file_the_makefile_leaves_out_the_rate_for_its_examples(tmp_path):
    """TRAIN_FILE's examples set each method's own rate at SIZES=all (a file of 48: LoRA's 5e-3,
    GLUE's thousands: 1e-3), and the name leaves that one out, as the run does (result.name_of)."""
    train = tmp_path / "train.csv"
    train.write_text("text,label\n" + "".join(f"good {i},{i % 2}\n" for i in range(48)) + "\n")
    lora = ["FREEZE=0", "SIZES=all", "SEEDS=1", "LRS=1e-3 5e-3", "METHOD=lora"]
    assert make_names(*lora, f"TRAIN_FILE={train}") == ["out/freeze0_sizeall_seed1_lr1e-3_lora.json",
                                                        "out/freeze0_sizeall_seed1_lora.json"]
    assert make_names(*lora) == ["out/freeze0_sizeall_seed1_lora.json", "out/freeze0_sizeall_seed1_lr5e-3_lora.json"]
    for name in ("freeze0_sizeall_seed1_lr1e-3_lora.json", "freeze0_sizeall_seed1_lr5e-3_lora.json"):
        assert result.parse_name(name).lr is not None  # read back as written, whatever the file


def test_flags_are_the_options_a_name_stands_for():
    flags = lambda name: subprocess.run([sys.executable, "-m", "study.grid", "flags", name], cwd=ROOT, capture_output=True,
                                        text=True)
    assert flags("freeze-1_sizeall_seed2_lr3e-4_reinit1_probe.json").stdout.split() == [
        "--freeze", "-1", "--size", "all", "--seed", "2", "--lr", "3e-4", "--reinit", "1", "--method", "probe"]
    # no --lr where the name has none: each method's own rate at the size (SetFit's 2e-4 at n = 50)
    assert flags("freeze4_size50_seed1_setfit.json").stdout.split() == [
        "--freeze", "4", "--size", "50", "--seed", "1", "--method", "setfit"]
    assert result.name_of(dict(freeze=4, size=50, seed=1, lr=2e-4, reinit=0, method="setfit")) == \
        result.RunName(4, 50, 1, method="setfit")
    bad = flags("freeze4_size50_seed1_lr0.0001.json")
    assert bad.returncode != 0 and "3e-4" in bad.stderr and bad.stdout == ""


def test_your_own_task_is_named_by_its_train_file_or_the_folder_of_a_train_csv():
    """make's DATASET, where TRAIN_FILE is given and DATASET is not: it names RESULTS and SAVE, and the
    runs' task in make advise's report (GLUE's sst2 otherwise, and before: a user's file named sst2)."""
    named = lambda *variables: subprocess.run(
        ["make", "-C", ROOT, "--no-print-directory", "-f", "Makefile", "-f", "-", "print-results", *variables],
        input="print-results:\n\t@echo $(DATASET) $(RESULTS)\n", capture_output=True, text=True, check=True).stdout.split()
    assert named("TRAIN_FILE=../shared/tasks/emotion/train.csv", "MODEL=minilm") == ["emotion", "results/emotion/minilm"]
    assert named("TRAIN_FILE=data/reviews.tsv", "MODEL=minilm") == ["reviews", "results/reviews/minilm"]
    assert named("TRAIN_FILE=data/reviews.tsv", "DATASET=mine", "MODEL=minilm") == ["mine", "results/mine/minilm"]
    assert named("MODEL=minilm") == ["sst2", "results/sst2/minilm"]
