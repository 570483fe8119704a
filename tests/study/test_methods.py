"""study/methods.py, through the report: --reinit, --probe and SetFit runs in sections of their own,
and every method's cells side by side with the cheapest within a seed std of the best."""

import json

import numpy as np

from conftest import write_result
from study import report


def test_reinit_runs_are_rows_of_their_own(tmp_path):
    for seed, (plain, reset) in enumerate([(0.70, 0.74), (0.72, 0.75), (0.71, 0.76)], start=1):
        write_result(tmp_path, 0, 100, seed, plain)
        write_result(tmp_path, 0, 100, seed, reset)
        path = tmp_path / f"freeze0_size100_seed{seed}.json"  # the reset run, written last: rename it
        result = json.loads(path.read_text())
        result["config"]["reinit"] = 2
        (tmp_path / f"freeze0_size100_seed{seed}_reinit2.json").write_text(json.dumps(result))
        write_result(tmp_path, 0, 100, seed, plain)
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "| 100 | 0 | 3 | 0.710 |" in markdown  # the plain cell pools only the plain runs
    assert "| 100 | 0 | 2 | 3 | 0.750 | 0.010 | 0.710 | 0.040 | 0.016 | NO |" in markdown


def test_probe_rows_beside_k_equal_l(tmp_path):
    for seed in (1, 2):
        write_result(tmp_path, 0, 100, seed, 0.80)
        write_result(tmp_path, 6, 100, seed, 0.55)
        path = tmp_path / f"freeze6_size100_seed{seed}_probe.json"
        write_result(tmp_path, 6, 100, seed, 0.70)
        result = json.loads((tmp_path / f"freeze6_size100_seed{seed}.json").read_text())
        result["config"]["probe"], result["train_at_score"] = True, dict(accuracy=0.9)
        path.write_text(json.dumps(result))
        write_result(tmp_path, 6, 100, seed, 0.55)
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    # (0.70 - 0.55) / (0.80 - 0.55) = 60% of what freezing everything lost
    assert "| 100 | 2 | 0.700 | 0.000 | 0.900 | 0.550 | 0.800 | 60% |" in markdown


def test_setfit_runs_are_rows_of_their_own_or_a_grid_of_their_own(tmp_path):
    for seed, (plain, setfit) in enumerate([(0.60, 0.66), (0.62, 0.65), (0.61, 0.64)], start=1):
        write_result(tmp_path, 0, 50, seed, plain)
        result = json.loads((tmp_path / f"freeze0_size50_seed{seed}.json").read_text())
        result["config"]["method"], result["best_accuracy"] = "setfit", setfit
        result["seconds"], result["peak_memory_mb"] = dict(total=40.0 + seed), 800.0
        (tmp_path / f"freeze0_size50_seed{seed}_setfit.json").write_text(json.dumps(result))
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "| 50 | 0 | 3 | 0.610 |" in markdown  # the fine-tune's cell pools only its own runs
    two_se = 2 * np.sqrt(np.var([0.66, 0.65, 0.64], ddof=1) / 3 + np.var([0.60, 0.62, 0.61], ddof=1) / 3)
    assert f"| 50 | 0 | 3 | 0.650 | 0.010 | 42.0 | 800 | 0.610 |  | 0.040 | {two_se:.3f} |" in markdown
    for seed in (1, 2, 3):
        (tmp_path / f"freeze0_size50_seed{seed}.json").unlink()
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert markdown.startswith("# sst2 with minilm (SetFit)") and "| 50 | 0 | 3 | 0.650 |" in markdown
    assert "## SetFit" not in markdown


def write_method_cells(folder, cells, task="sst2"):
    """Runs of several methods at n = 50: (suffix, k, scores, seconds) a cell, a run per score
    (the best accuracy, or for CoLA the best MCC at the majority's accuracy)."""
    for suffix, k, scores, seconds in cells:
        for seed, score in enumerate(scores, start=1):
            if task == "cola":
                write_result(folder, k, 50, seed, 0.691, mcc=score, task=task)
            else:
                write_result(folder, k, 50, seed, score)
            path = folder / f"freeze{k}_size50_seed{seed}.json"
            result = json.loads(path.read_text())
            result["config"].update(method="setfit" if suffix == "_setfit" else "finetune", probe=suffix == "_probe")
            result.update(seconds=dict(total=seconds), peak_memory_mb=500.0, train_at_score=dict(accuracy=0.9))
            path.unlink()
            (folder / f"freeze{k}_size50_seed{seed}{suffix}.json").write_text(json.dumps(result))


def test_methods_side_by_side_recommend_the_cheapest_within_one_std_of_the_best(tmp_path):
    # fine-tune k = 0: 0.60 in 100 s; SetFit k = 0: 0.66 +- 0.01 in 40 s, k = 4: 0.655 in 15 s; probe 0.62 in 5 s
    write_method_cells(tmp_path, [("_setfit", 0, (0.65, 0.66, 0.67), 40.0), ("_setfit", 4, (0.65, 0.655, 0.66), 15.0),
                                  ("_probe", 6, (0.62, 0.62, 0.62), 5.0),
                                  ("", 0, (0.59, 0.60, 0.61), 100.0)])  # written through one name: plain last
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "## Methods side by side" in markdown and "| probe | 6 | 3 | 0.620 | 0.000 | 5.0 | 500 |" in markdown
    # the best is SetFit k = 0 (0.660 +- 0.010); SetFit k = 4 (0.655) is within it and the cheapest such cell
    assert "Recommended at n = 50: **SetFit, freeze 4** (0.655 against the best, SetFit at k = 0: 0.660 ± 0.010), 15.0 s a run." in markdown


def test_cola_s_methods_are_set_side_by_side_by_mcc(tmp_path):
    # every CoLA cell sits on the majority class (accuracy 0.691); MCC is what tells them apart:
    # SetFit k = 0 0.05 +- 0.01 in 100 s, the probe 0.10 in 5 s, the fine-tune k = 6 0.0 in 3 s
    write_method_cells(tmp_path, [("_setfit", 0, (0.04, 0.05, 0.06), 100.0), ("_probe", 6, (0.10, 0.10, 0.10), 5.0),
                                  ("", 6, (0.0, 0.0, 0.0), 3.0)], task="cola")
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "mean best dev MCC" in markdown and "| SetFit | 0 | 3 | 0.050 | 0.010 | 100.0 | 500 |" in markdown
    assert "Recommended at n = 50: **probe, freeze 6** (0.100 against the best, probe at k = 6: 0.100 ± 0.000)" in markdown
