"""study/sections.py, through the report: --reinit, probe and SetFit runs in sections of their own,
and every method's cells side by side with the cheapest within a seed std of the best."""

import json

import numpy as np
import pytest

from conftest import write_result
from study import best, report


pytestmark = pytest.mark.usefixtures("tables_only")  # conftest: the figures only where a test asks for `drawn`


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
        result["config"].update(method="probe", lr=None)
        result["train_at_score"] = dict(accuracy=0.9)
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
        result["config"].update(method="setfit", lr=2e-4)  # its own rate at n = 50
        result["best_accuracy"] = setfit
        result["seconds"], result["peak_memory_mb"] = dict(total=40.0 + seed), 800.0
        (tmp_path / f"freeze0_size50_seed{seed}_setfit.json").write_text(json.dumps(result))
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "| 50 | 0 | 3 | 0.610 |" in markdown  # the fine-tune's cell pools only its own runs
    two_se = 2 * np.sqrt(np.var([0.66, 0.65, 0.64], ddof=1) / 3 + np.var([0.60, 0.62, 0.61], ddof=1) / 3)
    assert f"| 50 | 0 | 2e-4 | 3 | 0.650 | 0.010 | 42.0 | 800 | 0.610 |  | 0.040 | {two_se:.3f} |" in markdown
    for seed in (1, 2, 3):
        (tmp_path / f"freeze0_size50_seed{seed}.json").unlink()
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert markdown.startswith("# sst2 with minilm (SetFit)") and "| 50 | 0 | 3 | 0.650 |" in markdown
    assert "## SetFit" not in markdown


def test_setfit_s_section_keeps_each_rate_a_cell_of_its_own(tmp_path):
    # SetFit at its own 2e-4 (n = 50) and at 1e-4 at the same depth and size: two rows, never one of six runs
    for seed, (plain, own, faster) in enumerate([(0.60, 0.66, 0.70), (0.62, 0.65, 0.72), (0.61, 0.64, 0.74)], start=1):
        write_result(tmp_path, 0, 50, seed, plain)
        for lr, score in ((2e-4, own), (1e-4, faster)):
            write_result(tmp_path, 0, 50, seed, score, method="setfit", lr=lr)
    report.main([str(tmp_path), "--seeds", "3"])
    setfit_section = (tmp_path / "report.md").read_text().split("## SetFit")[1].split("##")[0]
    assert "| 50 | 0 | 2e-4 | 3 | 0.650 |" in setfit_section
    assert "| 50 | 0 | 1e-4 | 3 | 0.720 |" in setfit_section
    assert "| 50 | 0 | 2e-4 | 6 |" not in setfit_section and "| 50 | 0 | 6 |" not in setfit_section


def test_one_method_and_depth_costs_the_same_at_every_rate(tmp_path):
    # SetFit k = 0 at its own 2e-4 ran in a fast session (40 s), at 5e-6 in a slow one (60 s): the same work, so
    # both cost the faster median, 40 s, and the better of the two, 5e-6, is the answer
    for seed, (own, lower) in enumerate([(0.69, 0.70), (0.70, 0.71)], start=1):
        write_result(tmp_path, 0, 50, seed, 0.60, seconds=dict(total=100.0))
        for lr, score, seconds in ((2e-4, own, 40.0), (5e-6, lower, 60.0)):
            write_result(tmp_path, 0, 50, seed, score, method="setfit", lr=lr, seconds=dict(total=seconds))
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert "| SetFit | 0 | 2 | 0.695 | 0.695 | 0.007 |  | 40.0 |" in markdown  # each cell shows its own seconds
    assert ("Recommended at n = 50: **SetFit, lr 5e-6, freeze 0** (fair 0.705; the best, SetFit, lr 5e-6 at k = 0: "
            "0.705, noise ± 0.015), 40.0 s a run.") in markdown


def write_method_cells(folder, cells, task="sst2"):
    """Runs of several methods at n = 50: (suffix, k, scores, seconds) a cell, a run per score
    (the best accuracy, or for CoLA the best MCC at the majority's accuracy)."""
    for suffix, k, scores, seconds in cells:
        for seed, score in enumerate(scores, start=1):
            if task == "cola":
                write_result(folder, k, 50, seed, 0.691, mcc=score, task=task, metric="mcc")  # as CoLA's runs record it
            else:
                write_result(folder, k, 50, seed, score)
            path = folder / f"freeze{k}_size50_seed{seed}.json"
            result = json.loads(path.read_text())
            result["config"].update(method={"_setfit": "setfit", "_probe": "probe"}.get(suffix, "finetune"),
                                    lr={"_setfit": 2e-4, "_probe": None}.get(suffix, 5e-5))
            result.update(seconds=dict(total=seconds), peak_memory_mb=500.0, train_at_score=dict(accuracy=0.9, mcc=0.9))
            path.unlink()
            (folder / f"freeze{k}_size50_seed{seed}{suffix}.json").write_text(json.dumps(result))


def test_methods_side_by_side_recommend_the_cheapest_within_noise_of_the_best(tmp_path, drawn):
    # fine-tune k = 0: 0.60 in 100 s; SetFit k = 0: 0.66 +- 0.01 in 40 s, k = 4: 0.655 in 15 s; probe 0.62 in 5 s
    write_method_cells(tmp_path, [("_setfit", 0, (0.65, 0.66, 0.67), 40.0), ("_setfit", 4, (0.65, 0.655, 0.66), 15.0),
                                  ("_probe", 6, (0.62, 0.62, 0.62), 5.0),
                                  ("", 0, (0.59, 0.60, 0.61), 100.0)])  # written through one name: plain last
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "## The answer: every method side by side" in markdown
    assert "| probe | 6 | 3 | 0.620 | 0.620 | 0.000 | 0.900 | 5.0 | 500 |" in markdown
    # the best is SetFit k = 0 (0.660); the noise is the dev split's 0.016 (above its seed std, 0.010), and
    # SetFit k = 4 (0.655) is within it and the cheapest such cell
    assert ("Recommended at n = 50: **SetFit, freeze 4** (fair 0.655; the best, SetFit at k = 0: 0.660, noise ± 0.016), "
            "15.0 s a run.\nEvery cell ran at n = 50.") in markdown
    assert (tmp_path / "answer.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_recommendation_from_a_cell_with_fewer_runs_says_so(tmp_path):
    # SetFit k = 4 has 1 run of the 3 the others have, and is the pick; the best (SetFit k = 0) is full
    write_method_cells(tmp_path, [("_setfit", 0, (0.65, 0.66, 0.67), 40.0), ("_setfit", 4, (0.655,), 15.0),
                                  ("", 0, (0.59, 0.60, 0.61), 100.0)])
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "Recommended at n = 50: **SetFit, freeze 4**" in markdown
    assert ("Partial: SetFit at k = 4 has 1 of the 3 runs of the fullest cells here, so the answer may move as it "
            "fills.") in markdown
    assert "Partial: SetFit at k = 0" not in markdown


def test_a_deterministic_best_cell_does_not_shut_out_the_others(tmp_path):
    # the probe (no seed, std 0) scores 0.700 in 50 s; the fine-tune at k = 6 0.690 +- 0.002 in 3 s: within the
    # dev split's own standard error of 0.700 (sqrt(0.7 x 0.3 / 872) = 0.016), so it is the answer
    write_method_cells(tmp_path, [("_probe", 6, (0.70, 0.70), 50.0), ("", 6, (0.688, 0.692), 3.0), ("", 0, (0.60, 0.61), 90.0)])
    report.main([str(tmp_path), "--seeds", "2"])
    assert ("Recommended at n = 50: **fine-tune, freeze 6** (fair 0.690; the best, probe at k = 6: 0.700, noise ± 0.016)"
            in (tmp_path / "report.md").read_text())


def test_the_recommendation_reads_every_method_at_a_point_the_dev_split_did_not_choose(tmp_path):
    # the recipe's best evaluation says 0.70, its last 0.62; SetFit, scored once, 0.66
    write_method_cells(tmp_path, [("_setfit", 0, (0.66, 0.66), 40.0), ("", 0, (0.70, 0.70), 30.0)])
    for seed in (1, 2):
        path = tmp_path / f"freeze0_size50_seed{seed}.json"
        run = json.loads(path.read_text())
        run["curve"] = [dict(step=4, accuracy=0.70, mcc=0.0), dict(step=8, accuracy=0.62, mcc=0.0)]
        path.write_text(json.dumps(run))
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert "| fine-tune | 0 | 2 | 0.700 | 0.620 | 0.000 |" in markdown
    assert "Recommended at n = 50: **SetFit, freeze 0** (fair 0.660; the best, SetFit at k = 0: 0.660" in markdown


def test_a_cell_of_two_poolings_is_refused_in_one_line(tmp_path, capsys):
    for seed, pooling in ((1, "first"), (2, "first"), (3, "mean")):
        write_result(tmp_path, 0, 50, seed, 0.6, pooling=pooling)
    with pytest.raises(SystemExit) as exit_:
        report.main([str(tmp_path), "--seeds", "3"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert "the cell n = 50, fine-tune, k = 0 mixes pooling first and mean" in err


def test_a_cell_of_two_pair_counts_is_refused_in_one_line(tmp_path, capsys):
    # SetFit's pairs are not in a run's name: 20 x n pairs and setfit's oversampling are two experiments
    for seed, num_iterations in ((1, None), (2, 20)):
        write_result(tmp_path, 0, 50, seed, 0.6, lr=2e-4, method="setfit", pooling="mean",
                     num_iterations=num_iterations)
    with pytest.raises(SystemExit) as exit_:
        report.main([str(tmp_path), "--seeds", "2"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert "the cell n = 50, SetFit, k = 0 mixes num_iterations 20 and None" in err


def test_cola_s_methods_are_set_side_by_side_by_mcc(tmp_path):
    # every CoLA cell sits on the majority class (accuracy 0.691); MCC is what tells them apart:
    # SetFit k = 0 0.05 +- 0.01 in 100 s, the probe 0.10 in 5 s, the fine-tune k = 6 0.0 in 3 s
    write_method_cells(tmp_path, [("_setfit", 0, (0.04, 0.05, 0.06), 100.0), ("_probe", 6, (0.10, 0.10, 0.10), 5.0),
                                  ("", 6, (0.0, 0.0, 0.0), 3.0)], task="cola")
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "each run's dev mcc" in markdown and "| SetFit | 0 | 3 | 0.050 | 0.050 | 0.010 | 0.900 | 100.0 | 500 |" in markdown
    # the noise at MCC 0.10 over 872 sentences: (1 - 0.01) / sqrt(871) = 0.034; nothing else is within it
    assert "Recommended at n = 50: **probe, freeze 6** (fair 0.100; the best, probe at k = 6: 0.100, noise ± 0.034)" in markdown


def test_rates_are_cells_of_their_own_and_a_best_rate_at_the_edge_says_so(tmp_path):
    # the recipe at k = 0 at the blog's 5e-5 (0.55) and at 2e-4 (0.70, the largest rate tried); SetFit at its own 2e-4
    write_method_cells(tmp_path, [("_setfit", 0, (0.65, 0.66), 40.0), ("", 0, (0.55, 0.56), 30.0)])
    for seed, score in ((1, 0.70), (2, 0.71)):
        write_result(tmp_path, 0, 50, seed, score, lr=2e-4)
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert "| fine-tune, lr 2e-4 | 0 | 2 | 0.705 | 0.705 |" in markdown and "| fine-tune | 0 | 2 | 0.555 |" in markdown
    assert ("Rate search, fine-tune at k = 0 (fair means): 5e-5 0.555, 2e-4 0.705; it picks 2e-4. That is the largest "
            "rate tried; a better one may lie above.") in markdown
    assert "| 50 | 0 | 2 | 0.555 |" in markdown  # the recipe's own tables read it at the study's rate


def test_a_search_where_no_rate_learns_does_not_ask_for_rates_beyond_its_edge(tmp_path):
    # every rate within the dev split's noise of the majority class (0.509 + 0.017 over 872 sentences)
    for lr, score in ((1e-3, 0.509), (2e-3, 0.515), (5e-3, 0.520)):
        for seed in (1, 2):
            write_result(tmp_path, 0, 50, seed, score, lr=lr)
    write_method_cells(tmp_path, [("_setfit", 0, (0.65, 0.66), 40.0)])
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert ("Rate search, fine-tune at k = 0 (fair means): 1e-3 0.509, 2e-3 0.515, 5e-3 0.520; it picks 5e-3. No rate "
            "tried beats the constant prediction by more than the dev split's noise (± 0.017): the search picks among "
            "rates that learn nothing measurable.") in markdown
    assert "a better one may lie" not in markdown
    # one rate clear of that noise (0.530), and the edge counts again
    for seed in (1, 2):
        write_result(tmp_path, 0, 50, seed, 0.530, lr=5e-3)
    report.main([str(tmp_path), "--seeds", "2"])
    assert "That is the largest rate tried; a better one may lie above." in (tmp_path / "report.md").read_text()


def test_a_rate_search_still_running_names_its_rates_with_fewer_runs(tmp_path):
    # 5e-5 has its 3 seeds, 2e-4 one so far: its mean is one run's, and the line says so
    for seed, score in ((1, 0.55), (2, 0.56), (3, 0.57)):
        write_result(tmp_path, 0, 50, seed, score)
    write_result(tmp_path, 0, 50, 1, 0.70, lr=2e-4)
    report.main([str(tmp_path), "--seeds", "3"])
    assert ("Rate search, fine-tune at k = 0 (fair means): 5e-5 0.560, 2e-4 0.700 (1 of 3 runs); it picks 2e-4."
            in (tmp_path / "report.md").read_text())


def test_depths_at_the_searched_rate_are_read_beside_the_study_s(tmp_path):
    # k = 0 searched over three rates, then k = 2 and 4 run at the pick (2e-4) as well as at 5e-5
    for k, lr, score in ((0, 5e-5, 0.55), (0, 1e-4, 0.62), (0, 2e-4, 0.70), (2, 5e-5, 0.54), (2, 2e-4, 0.66),
                         (4, 5e-5, 0.52)):
        for seed in (1, 2):
            write_result(tmp_path, k, 50, seed, score + seed / 100, lr=lr)
    write_result(tmp_path, 4, 100, 1, 0.6, lr=2e-4)
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    # one line for the search, at the depth run at the most rates; none for k = 2's two rates
    assert "Rate search, fine-tune at k = 0 (fair means): 5e-5 0.565, 1e-4 0.635, 2e-4 0.715; it picks 2e-4." in markdown
    assert "Rate search, fine-tune at k = 2" not in markdown
    assert ("| frozen | 5e-5 | 2e-4 |\n|---|---|---|\n| 0 | 0.565 ± 0.007 | 0.715 ± 0.007 |\n"
            "| 2 | 0.555 ± 0.007 | 0.675 ± 0.007 |\n| 4 | 0.535 ± 0.007 |  |") in markdown
    # what ran at n = 50 and not at n = 100, a method's depths in one list
    assert "Not run at n = 100: fine-tune at k = 0, 2, 4; fine-tune, lr 1e-4 at k = 0; fine-tune, lr 2e-4 at k = 0, 2." in markdown


def test_depths_at_a_rate_a_size_s_own_search_did_not_pick_are_not_missing_there(tmp_path):
    # n = 50 searched k = 0 and ran k = 2 at its pick, 2e-4; n = 200's search picks 5e-5 instead
    for size, k, lr, score in ((50, 0, 5e-5, 0.55), (50, 0, 1e-4, 0.62), (50, 0, 2e-4, 0.70), (50, 2, 5e-5, 0.54),
                               (50, 2, 2e-4, 0.66), (200, 0, 5e-5, 0.75), (200, 0, 2e-4, 0.70)):
        for seed in (1, 2):
            write_result(tmp_path, k, size, seed, score + seed / 100, lr=lr)
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert "Rate search, fine-tune at k = 0 (fair means): 5e-5 0.765, 2e-4 0.715; it picks 5e-5." in markdown
    # 1e-4 at the searched depth is still to run at n = 200; 2e-4 at k = 2 is not, its search did not pick 2e-4
    assert "Not run at n = 200: fine-tune at k = 2; fine-tune, lr 1e-4 at k = 0." in markdown


def test_a_search_run_at_another_size_is_one_entry_of_what_is_not_run(tmp_path):
    # n = 50 searched k = 0 and 3 over three rates; n = 100 ran k = 1 only: the search is one entry there
    for k in (0, 3):
        for lr, score in ((5e-5, 0.55), (1e-4, 0.62), (2e-4, 0.70)):
            write_result(tmp_path, k, 50, 1, score - k / 100, lr=lr)
    write_result(tmp_path, 1, 100, 1, 0.6)
    report.main([str(tmp_path), "--seeds", "1"])
    markdown = (tmp_path / "report.md").read_text()
    assert "Not run at n = 100: fine-tune, lr 5e-5, 1e-4, 2e-4 at k = 0, 3." in markdown


def test_the_answer_figure_draws_one_method_at_many_rates(tmp_path, drawn):
    # more rates than markers: each rate is a cell, drawn in its method's marker and labelled with its rate
    for i, lr in enumerate((2e-3, 1e-3, 5e-4, 3e-4, 2e-4, 1e-4, 7e-5, 5e-5, 3e-5, 2e-5, 1e-5)):
        for seed in (1, 2):
            write_result(tmp_path, 0, 50, seed, 0.65 - i / 100 + seed / 1000, lr=lr)
    for path in tmp_path.glob("*.json"):  # a cost, so that every cell is drawn
        result = json.loads(path.read_text())
        result.update(seconds=dict(total=100.0), peak_memory_mb=500.0)
        path.write_text(json.dumps(result))
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert "Rate search, fine-tune at k = 0 (fair means): 1e-5 0.552, 2e-5 0.562" in markdown
    # the table lists a method's rates in order, its own among them
    assert "| fine-tune, lr 3e-5 | 0 | 2 | 0.572 |" in markdown.split("| fine-tune | 0 | 2 | 0.582 |")[0]
    assert "| fine-tune, lr 1e-4 | 0 | 2 |" in markdown.split("| fine-tune, lr 2e-4 |")[0].split("| fine-tune | 0 |")[1]
    assert (tmp_path / "answer.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_depths_run_only_at_a_rate_the_search_did_not_pick_are_missing(tmp_path):
    # n = 50's search picks 2e-4, where k = 2 has run and k = 4 and 6 have not; k = 6 trains nothing (as SetFit
    # with every layer frozen does), so no rate moves it
    for k, lr, score in ((0, 5e-5, 0.55), (0, 2e-4, 0.70), (2, 5e-5, 0.54), (2, 2e-4, 0.66), (4, 5e-5, 0.52),
                         (6, 5e-5, 0.51)):
        for seed in (1, 2):
            write_result(tmp_path, k, 50, seed, score + seed / 100, lr=lr)
    for path in tmp_path.glob("freeze6_*.json"):
        result = json.loads(path.read_text())
        path.write_text(json.dumps({**result, "total_steps": 0}))
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert "Not run at n = 50: fine-tune, lr 2e-4 at k = 4." in markdown


def test_cells_run_on_a_cpu_and_a_gpu_get_no_recommendation(tmp_path, capsys):
    # the fine-tune k = 4 ran on a GPU in 5 s: beside the CPU's k = 0 (100 s) it would win on seconds alone
    for seed, score in enumerate((0.60, 0.61), start=1):
        write_result(tmp_path, 0, 50, seed, score, seconds=dict(total=100.0))
        write_result(tmp_path, 4, 50, seed, score, seconds=dict(total=5.0), device="cuda:0")
    report.main([str(tmp_path), "--seeds", "2"])
    markdown = (tmp_path / "report.md").read_text()
    assert ("No recommendation: the cells at n = 50 ran on cpu and cuda, and the pick is by seconds a run: move one "
            "device's runs to a folder of their own.") in markdown and "Recommended at n = 50" not in markdown
    with pytest.raises(SystemExit) as exit_:
        best.main([str(tmp_path), "--size", "50"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "ran on cpu and cuda" in err
