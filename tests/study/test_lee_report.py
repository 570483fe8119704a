"""study/lee_report.py: the line search's pick, the operating point and the shares, against the paper's rows."""

import json

import pytest

import result
from conftest import result_record
from study import lee_report


def write_run(folder, task, metric, freeze, seed, lr, score, num_layers=6, constant=0.0, device="cpu", **fields):
    record = result_record(freeze, "all", seed, task=task, metric=metric, score=score, lr=lr, num_layers=num_layers,
                           device=device, **fields)
    record["constant"] = {metric: constant}
    name = result.name_of(record["config"]).file_name()
    if device != "cpu":  # a results folder the GPU's runs were copied into
        name = name.replace(".json", "_gpu.json")
    (folder / name).write_text(json.dumps(record))


@pytest.fixture
def mrpc(tmp_path):
    folder = tmp_path / "mrpc"
    folder.mkdir()
    run = lambda *args: write_run(folder, "mrpc", "f1", *args, constant=0.75)  # always class 1: F1 0.75
    for lr, base in ((1e-5, 0.80), (3e-5, 0.86), (5e-5, 0.84)):  # the line search: 3e-5 is best
        run(0, 1, lr, base)
        run(0, 2, lr, base + 0.02)
    for k, score in ((3, 0.85), (4, 0.80), (5, 0.78), (6, 0.76)):  # 0.9 x 0.87 = 0.783
        run(k, 1, 3e-5, score - 0.01)
        run(k, 2, 3e-5, score + 0.01)
        run(k, 1, 1e-5, 0.99)  # another rate: never read
    return folder


def test_line_search_pick_operating_point_and_shares(mrpc):
    runs = lee_report.load_results(str(mrpc), figure="score")
    summary = lee_report.summarize(runs)
    assert summary["lr"] == 3e-5 and summary["search"][3e-5] == {1: 0.86, 2: 0.88}
    assert summary["seeds"] == [1, 2] and summary["search_score"][3e-5] == pytest.approx(0.87)
    depths = summary["depths"]
    assert depths[0]["mean"] == pytest.approx(0.87) and depths[6]["mean"] == pytest.approx(0.76)
    assert depths[6]["share"] == pytest.approx(0.76 / 0.87)
    assert summary["operating_point"] == 4  # k = 5's 0.78 falls below 0.783
    # against the constant 0.75: k = 3 keeps (0.85 - 0.75) / (0.87 - 0.75) = 83% of the gain, so
    # only the full fine-tune keeps 90% of it; k = 6 (0.76 +- 0.014) is no better than the constant
    assert depths[3]["gain_share"] == pytest.approx(0.10 / 0.12) and summary["gain_point"] == 0
    assert depths[6]["constant_level"] and not depths[5]["constant_level"]


def test_a_depth_no_better_than_the_constant_is_never_the_operating_point(tmp_path):
    # MRPC's real case: everything frozen predicts "paraphrase" for all, F1 0.812, 94% of 0.864
    for seed, score in ((1, 0.871), (2, 0.857)):
        write_run(tmp_path, "mrpc", "f1", 0, seed, 5e-5, score, constant=0.812)
    for k, scores in ((4, (0.830, 0.840)), (6, (0.812, 0.8146))):
        for seed, score in enumerate(scores, 1):
            write_run(tmp_path, "mrpc", "f1", k, seed, 5e-5, score, constant=0.812)
    runs = lee_report.load_results(str(tmp_path), figure="score")
    summary = lee_report.summarize(runs)
    assert summary["depths"][6]["share"] > 0.9 and summary["depths"][6]["constant_level"]
    assert summary["operating_point"] == 4 and not summary["depths"][4]["constant_level"]


def test_report_and_figure_beside_the_paper(mrpc, tmp_path):
    lee_report.main([str(mrpc), "--out", str(tmp_path / "out")])
    text = (tmp_path / "out" / "report.md").read_text()
    # bert-base on MRPC keeps 81.5 / 90.3 = 90.3% with all 12 frozen, roberta-base 81.2 / 92.3 = 88.0%
    # bert-base on MRPC keeps 85.4 / 90.3 = 94.6% at 9 of 12 and 81.5 / 90.3 = 90.3% with all 12 frozen
    assert ("| mrpc | f1 | 0.750 | 0.870 | 4 of 6 (92.0%) | 0 of 6 | 87.4% (8.3%), no better than the constant "
            "| 9 of 12 (94.6%), 90.3% | 7 of 12 (97.0%), 88.0% |") in text
    assert "| mrpc | 0.00003 |" not in text and "| mrpc | 3e-05 | 1 2 | 0.870 | 2 | 0.870 | 0.014 | yes |" in text
    assert "| best constant prediction | | | | 0.750 | | | | |" in text
    assert "| bert-base (paper) | 9 | 0.75 | 5 | 0.854 | | 94.6% | 68.0% | |" in text
    assert (tmp_path / "out" / "figure.png").stat().st_size > 10000


def test_seeds_the_depth_sweep_adds_never_change_the_pick(tmp_path):
    # STS-B's real case: seed 1 picked 5e-5 (0.860 against 0.854); its four more seeds at 5e-5 bring
    # that rate's mean to 0.854 - 0.0003, under 4e-5's single run, yet the line search still says 5e-5
    for lr, score in ((3e-5, 0.8536), (4e-5, 0.8540), (5e-5, 0.8600)):
        write_run(tmp_path, "stsb", "spearman", 0, 1, lr, score)
    for seed, score in ((2, 0.8504), (3, 0.8573), (4, 0.8535), (5, 0.8472)):
        write_run(tmp_path, "stsb", "spearman", 0, seed, 5e-5, score)
    write_run(tmp_path, "stsb", "spearman", 4, 1, 5e-5, 0.77)
    runs = lee_report.load_results(str(tmp_path), figure="score")
    summary = lee_report.summarize(runs)
    assert summary["seeds"] == [1] and summary["lr"] == 5e-5
    full = summary["depths"][0]["mean"]  # every seed counts in the cell's mean
    assert full == pytest.approx(0.85368) and full < summary["search_score"][4e-5]
    assert list(summary["depths"]) == [0, 4]


def test_rates_that_share_no_seed_are_one_line(tmp_path, capsys):
    write_run(tmp_path, "rte", "accuracy", 0, 1, 2e-5, 0.6)
    write_run(tmp_path, "rte", "accuracy", 0, 2, 3e-5, 0.6)
    with pytest.raises(SystemExit) as exit_:
        lee_report.main([str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "share no seed" in err


def test_no_full_fine_tune_is_one_line(tmp_path, capsys):
    write_run(tmp_path, "rte", "accuracy", 4, 1, 2e-5, 0.6)
    with pytest.raises(SystemExit) as exit_:
        lee_report.main([str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "no k = 0 runs" in err


def test_a_task_with_only_its_line_search_says_so(tmp_path):
    for lr, score in ((1e-5, 0.80), (2e-5, 0.83)):
        write_run(tmp_path, "mrpc", "f1", 0, 1, lr, score)
    lee_report.main([str(tmp_path)])
    assert "| mrpc | f1 | 0.000 | 0.830 | (no frozen depth run yet) |" in (tmp_path / "report.md").read_text()


def test_a_gpu_pools_with_the_cpu_only_where_they_agree(tmp_path):
    # SST-2's plan: the line search on the CPU, seed 1 again and the other seeds on a lent GPU
    for lr, score in ((4e-5, 0.896), (5e-5, 0.899)):
        write_run(tmp_path, "sst2", "accuracy", 0, 1, lr, score, constant=0.509)
    write_run(tmp_path, "sst2", "accuracy", 0, 1, 4e-5, 0.893, constant=0.509, device="cuda:0")  # the seed's mean
    for seed, score in ((1, 0.897), (2, 0.901), (3, 0.895)):
        write_run(tmp_path, "sst2", "accuracy", 0, seed, 5e-5, score, constant=0.509, device="cuda:0")
    for seed, score in ((1, 0.860), (2, 0.862)):  # k = 4 on the GPU, far from the CPU's run
        write_run(tmp_path, "sst2", "accuracy", 4, seed, 5e-5, score, constant=0.509, device="cuda:0")
    write_run(tmp_path, "sst2", "accuracy", 4, 3, 5e-5, 0.80, constant=0.509)
    lee_report.main([str(tmp_path)])
    summary = lee_report.summarize(lee_report.load_results(str(tmp_path), figure="score"))
    assert summary["search"][4e-5] == {1: pytest.approx(0.8945)} and summary["lr"] == 5e-5
    assert summary["depths"][0]["scores"] == [pytest.approx(0.898), 0.901, 0.895]  # seed 1: both devices' mean
    assert summary["depths"][0]["devices"].endswith("within 2 SE, pooled")
    assert sorted(summary["depths"][4]["scores"]) == [0.860, 0.862]  # the GPU's two, the CPU's one set aside
    assert "read from cuda alone" in summary["depths"][4]["devices"]
    text = (tmp_path / "report.md").read_text()
    assert "9 runs, in fp32, on cpu (3 runs: cpu) and cuda (6 runs: cuda). " in text
    assert "| minilm | 4 | 0.67 | 2 | 0.861 |" in text and "differ by more than 2 SE, read from cuda alone |" in text


def test_a_pick_at_the_edge_of_the_line_search_says_so(mrpc, tmp_path):
    lee_report.main([str(mrpc), "--out", str(tmp_path / "inside")])
    assert "the best rate may lie" not in (tmp_path / "inside" / "report.md").read_text()  # 3e-5 of 1e-5..5e-5
    for seed in (1, 2):
        write_run(mrpc, "mrpc", "f1", 0, seed, 7e-5, 0.95, constant=0.75)
    lee_report.main([str(mrpc), "--out", str(tmp_path / "edge")])
    assert "- mrpc: the pick, 7e-05, is the largest rate tried; the best rate may lie above it" in \
        (tmp_path / "edge" / "report.md").read_text()


def test_another_method_has_its_own_line_search_beside_the_recipe(mrpc, tmp_path):
    lee_report.main([str(mrpc), "--out", str(tmp_path / "recipe")])
    lora = lambda k, seed, lr, score: write_run(mrpc, "mrpc", "f1", k, seed, lr, score, constant=0.75, method="lora",
                                                seconds=dict(total=100.0 - 20 * k))
    for lr, base in ((5e-4, 0.83), (1e-3, 0.90), (2e-3, 0.85)):  # its own pick, 1e-3, above the recipe's best
        lora(0, 1, lr, base)
        lora(0, 2, lr, base + 0.02)
    lora(3, 1, 1e-3, 0.86)
    lora(3, 2, 1e-3, 0.84)
    lora(3, 1, 5e-4, 0.99)  # another rate: never read
    lee_report.main([str(mrpc), "--out", str(tmp_path / "both")])
    recipe, both = ((tmp_path / name / "report.md").read_text() for name in ("recipe", "both"))
    # the recipe's tables are untouched: LoRA's k = 0 runs take no part in its line search
    others = both.split("## Other methods")[1].split("## Beside the LoRA paper's")[0]
    without_methods = lambda report: report.split("## Summary")[1].split("## Other methods")[0].split("## Beside")[0] \
        + report.split("## Per task")[1]
    assert without_methods(both) == without_methods(recipe)
    # LoRA at its pick: k = 0 0.91 (104.6% of the recipe's 0.87), k = 3 0.85 beside the recipe's 0.85
    assert ("| mrpc | LoRA | 5e-4 0.840, **1e-3 0.910**, 2e-3 0.860 | 0 | 2 | 0.910 | 0.014 | 104.6% "
            "| 0.870 | 100 |  |") in others
    assert "| mrpc | LoRA |  | 3 | 2 | 0.850 | 0.014 | 97.7% | 0.850 | 40 |  |" in others


def test_another_method_without_its_full_model_runs_is_one_line(mrpc, capsys):
    write_run(mrpc, "mrpc", "f1", 3, 1, 1e-3, 0.8, method="bitfit")
    with pytest.raises(SystemExit) as exit_:
        lee_report.main([str(mrpc)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "BitFit: mrpc: no k = 0 runs" in err


def test_the_lora_paper_s_rows_beside_ours_in_its_metric(mrpc, tmp_path):
    # the recipe's runs all record accuracy 0.5 at their score (F1 is what the rest of the report reads)
    lora = lambda seed, lr, score, accuracy: write_run(mrpc, "mrpc", "f1", 0, seed, lr, score, constant=0.75,
                                                       method="lora", accuracy=accuracy)
    lora(1, 1e-3, 0.90, 0.52)  # the pick: LoRA's accuracy at it is 0.53
    lora(2, 1e-3, 0.92, 0.54)
    lora(1, 5e-4, 0.80, 0.99)  # another rate: never read
    lora(2, 5e-4, 0.80, 0.99)
    lee_report.main([str(mrpc), "--out", str(tmp_path)])
    section = (tmp_path / "report.md").read_text().split("## Beside the LoRA paper's")[1].split("## Per task")[0]
    # the paper's MRPC accuracies (90.2, 92.7, 89.7), ours in accuracy too, each a share of its own full fine-tune
    assert "| mrpc | accuracy | 0.902 | 0.927 (102.8%) | 0.897 (99.4%) | 0.500 | not run | 0.530 (106.0%) |" in section
    assert "start from LoRA weights adapted to MNLI" in section  # the caveat travels with the rows


def test_a_task_the_lora_paper_did_not_run_has_no_such_section(tmp_path):
    folder = tmp_path / "mytask"
    folder.mkdir()
    for seed, score in ((1, 0.6), (2, 0.7)):
        write_run(folder, "mytask", "accuracy", 0, seed, 2e-5, score)
    lee_report.main([str(folder), "--out", str(tmp_path)])
    assert "LoRA paper" not in (tmp_path / "report.md").read_text()
