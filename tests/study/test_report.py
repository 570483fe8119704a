"""study/report.py: the appendix table's statistics, partial cells, corrupt files, the operating point."""

import csv
import json

import numpy as np
import pytest

from conftest import result_record, write_result
import result
from study import published, report

pytestmark = pytest.mark.usefixtures("tables_only")  # conftest: the figures only where a test asks for `drawn`


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    for freeze in (0, 2, 6):
        for seed in range(1, 6):
            write_result(tmp_path, freeze, 50, seed, float(rng.uniform(0.5, 0.9)))
    for seed in (1, 2, 3):  # a partial cell
        write_result(tmp_path, 4, 50, seed, float(rng.uniform(0.5, 0.9)))
    (tmp_path / "freeze4_size50_seed4.json").write_text('{"config": {"freeze": 4')  # cut short
    (tmp_path / "freeze4_size50_seed5.json").write_text('{"other": 1}')  # not a run result
    return tmp_path


def test_statistics_match_numpy(folder, capsys):
    report.main([str(folder), "--seeds", "5"])
    err = capsys.readouterr().err
    assert "skipping" in err and "freeze4_size50_seed4.json" in err and "freeze4_size50_seed5.json" in err
    with open(folder / "report.csv") as f:
        rows = {int(r["frozen_layers"]): r for r in csv.DictReader(f)}
    assert sorted(rows) == [0, 2, 4, 6]
    for freeze, row in rows.items():
        values = [json.loads(p.read_text())["best_accuracy"] for p in folder.glob(f"freeze{freeze}_size50_seed[1-5].json")
                  if "best_accuracy" in p.read_text()]
        assert int(row["runs"]) == len(values)
        assert float(row["accuracy_mean"]) == pytest.approx(np.mean(values), abs=1e-4)
        assert float(row["accuracy_median"]) == pytest.approx(np.median(values), abs=1e-4)
        assert float(row["accuracy_std"]) == pytest.approx(np.std(values, ddof=1), abs=1e-4)
        assert float(row["accuracy_min"]) == pytest.approx(min(values), abs=1e-4)
        assert float(row["accuracy_max"]) == pytest.approx(max(values), abs=1e-4)
    markdown = (folder / "report.md").read_text()
    assert "| 50 | 4 | 3/5 |" in markdown and "| 50 | 2 | 5 |" in markdown
    assert "0.509" in markdown
    assert "all in fp32 on cpu" in markdown


def test_a_folder_that_mixes_precisions_is_refused(folder, tmp_path_factory, capsys):
    write_result(folder, 0, 100, 1, 0.8, precision="bf16")
    with pytest.raises(SystemExit) as stopped:
        report.main([str(folder), "--seeds", "5"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "mixes precisions (1 run bf16, 18 runs fp32)" in err and "--against" in err
    assert not (folder / "report.md").exists()
    # one precision per folder, compared across folders: the way to weigh bf16 against fp32
    other = tmp_path_factory.mktemp("bf16")
    (folder / "freeze0_size100_seed1.json").rename(other / "freeze0_size100_seed1.json")
    report.main([str(folder), "--seeds", "5", "--against", str(other)])
    assert "all in fp32 on cpu" in (folder / "report.md").read_text()


def test_operating_point_is_the_most_frozen_cell_within_90_percent():
    rows = [dict(train_size=50, frozen_layers=k, accuracy_mean=m)
            for k, m in [(-1, 0.80), (0, 0.80), (2, 0.75), (4, 0.73), (6, 0.60)]]
    point = report.operating_points(rows, num_layers=6)[50]
    assert point["frozen_layers"] == 4 and point["trainable_layers"] == 2  # 0.73 >= 0.72 > 0.60


def test_published_figures_beside_roberta_base(tmp_path):
    for seed in (1, 2):
        write_result(tmp_path, 2, 50, seed, 0.7, model="roberta-base", num_layers=12)
    report.main([str(tmp_path), "--seeds", "2"])
    with open(tmp_path / "report.csv") as f:
        row = next(csv.DictReader(f))
    assert float(row["published_mean"]) == 0.695 and float(row["published_std"]) == 0.0713  # the blog's table


def test_a_smaller_model_is_compared_at_the_same_fraction_frozen(tmp_path):
    for freeze in (2, 3):  # of 6 layers: roberta-base's k = 4 of 12, and k = 6, which it did not run
        write_result(tmp_path, freeze, 50, 1, 0.6)
    report.main([str(tmp_path), "--seeds", "1"])
    with open(tmp_path / "report.csv") as f:
        rows = {int(r["frozen_layers"]): r for r in csv.DictReader(f)}
    assert rows[2]["published_frozen_layers"] == "4" and float(rows[2]["published_mean"]) == 0.711
    assert rows[3]["published_mean"] == "" and rows[3]["accuracy_std"] == ""  # one run: no std
    assert "| 50 | 2 | 1 | 0.600 | 0.600 |  | 0.600 | 0.600 | 4 | 0.711 | 0.102 |" in (tmp_path / "report.md").read_text()


def test_findings_stop_at_the_first_drop_of_more_than_one_std():
    cells = [(0, 0.80, 0.02), (1, 0.79, 0.01), (2, 0.77, 0.03), (3, 0.79, 0.01), (6, 0.52, 0.04)]
    rows = [dict(train_size=100, frozen_layers=k, accuracy_mean=m, accuracy_std=s) for k, m, s in cells]
    f = report.findings(rows, num_layers=6, baseline=0.509)[100]
    assert f["within_one_std"] == 1  # 0.77 < 0.80 - 0.02 stops the walk; k = 3 does not count
    assert f["all_frozen_mean"] == 0.52 and f["all_frozen_above_baseline"] == pytest.approx(0.011)
    assert f["median_std"] == 0.02 and f["operating_point"] == 3  # 0.79 >= 0.72 > 0.52


def test_findings_of_the_published_grid():
    # the blog's SST-2 table at n = 1000: k = 0 0.905 +- 0.0063; 2, 4, 8 stay within, 10 (0.891) drops
    f = report.findings(published.blog_rows("sst2"), num_layers=12, baseline=0.509)[1000]
    assert f["within_one_std"] == 8 and f["operating_point"] == 10 and f["all_frozen_mean"] == 0.509


def test_a_report_of_your_own_file_is_titled_by_the_name_its_runs_were_given(tmp_path):
    """make's DATASET (else the train file's name), which a run records as its dataset; its task is
    that file's identity (the name and a hash of it), which tells folders apart, not the reader."""
    for seed in (1, 2):
        write_result(tmp_path, 0, 50, seed, 0.7 + seed / 100, task="train-1d41b672", dataset="reviews")
    report.main([str(tmp_path), "--seeds", "2"])
    assert (tmp_path / "report.md").read_text().splitlines()[0] == "# reviews with minilm"


def test_cola_table_has_mcc_and_empty_folder_fails(tmp_path, capsys):
    write_result(tmp_path, 0, 50, 1, 0.7, mcc=0.31, task="cola")
    report.main([str(tmp_path), "--seeds", "1"])
    with open(tmp_path / "report.csv") as f:
        assert float(next(csv.DictReader(f))["mcc_mean"]) == pytest.approx(0.31)
    (tmp_path / "empty").mkdir()
    for folder, words in (("empty", "no run results in"), ("nothing", "nothing: no such folder")):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_:
            report.main([str(tmp_path / folder)])
        assert exit_.value.code == 2 and words in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:  # REPORT_DIR under a file: once a traceback at the first write
        report.main([str(tmp_path), "--seeds", "1", "--out", str(tmp_path / "report.csv" / "here")])
    assert exit_.value.code == 2 and "report.csv is a file, where a folder would go" in capsys.readouterr().err


def test_against_a_second_folder_weighs_the_difference_against_seed_noise(tmp_path, capsys):
    cached, uncached, out = tmp_path / "cached", tmp_path / "nocache", tmp_path / "docs"
    cached.mkdir(), uncached.mkdir()
    for seed, (a, b) in enumerate([(0.70, 0.74), (0.72, 0.75), (0.71, 0.76)], start=1):
        write_result(cached, 2, 200, seed, a)
        write_result(uncached, 2, 200, seed, b)
    write_result(uncached, 4, 200, 1, 0.7)  # a cell only one folder has is left out
    report.main([str(uncached), "--against", str(cached), "--out", str(out), "--seeds", "3"])
    text = (out / "report.md").read_text()
    diff = 0.75 - 0.71
    two_se = 2 * np.sqrt(np.var([0.74, 0.75, 0.76], ddof=1) / 3 + np.var([0.70, 0.72, 0.71], ddof=1) / 3)
    assert f"| 200 | 2 | accuracy | 3 | 0.750 | 3 | 0.710 | {diff:.3f} | {two_se:.3f} | NO |" in text
    assert "| 200 | 4 | accuracy" not in text and (out / "report.csv").exists() and not (uncached / "report.md").exists()
    with pytest.raises(SystemExit) as exit_:
        report.main([str(uncached), "--against", str(tmp_path / "nothing")])
    assert exit_.value.code == 2 and "nothing: no such folder" in capsys.readouterr().err


def test_cost_per_depth_and_the_recommendation(tmp_path, drawn):
    # k = 0: 0.80 +- 0.01 in 100 s; k = 2 stays within one std in 40 s; k = 4 is cheaper but drops
    for k, accuracies, seconds in ((0, (0.79, 0.80, 0.81), 100.0), (2, (0.795, 0.80, 0.805), 40.0),
                                   (4, (0.70, 0.71, 0.72), 10.0)):
        for seed, accuracy in enumerate(accuracies, start=1):
            write_result(tmp_path, k, 100, seed, accuracy)
            path = tmp_path / f"freeze{k}_size100_seed{seed}.json"
            result = json.loads(path.read_text())
            result.update(seconds=dict(prefix=1.0 if k else 0.0, train=seconds / 2, eval=seconds / 2 - 1, total=seconds + seed),
                          peak_memory_mb=900.0 - 100 * k, trainable_parameters=1000 - 100 * k,
                          train_at_score=dict(accuracy=0.99 - 0.05 * k, mcc=0.0))
            path.write_text(json.dumps(result))
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    assert "| 2 | 0.800 | 0.890 | 0.090 | 42.0 | 1.0 | 2.4x | 700 | 800 |" in markdown
    assert "| 0 | 0.800 | 0.990 | 0.190 | 102.0 | 0.0 | 1.0x | 900 | 1000 |" in markdown
    assert "The recipe's cheapest depth at n = 100: freeze 2 (0.800 against 0.800 ± 0.010 at k = 0), 2.4x faster a run" in markdown
    assert (tmp_path / "cost.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cola_s_depths_are_recommended_by_mcc_not_by_the_majority_s_accuracy(tmp_path):
    # every run at the majority class's accuracy (0.691); k = 0 MCC 0.20 +- 0.01 in 100 s, k = 4 0.05 in 10 s
    for k, mccs, seconds in ((0, (0.19, 0.20, 0.21), 100.0), (4, (0.04, 0.05, 0.06), 10.0)):
        for seed, mcc in enumerate(mccs, start=1):
            write_result(tmp_path, k, 100, seed, 0.691, mcc=mcc, task="cola")
            path = tmp_path / f"freeze{k}_size100_seed{seed}.json"
            result = json.loads(path.read_text())
            result.update(seconds=dict(prefix=0.0, train=seconds / 2, eval=seconds / 2, total=seconds), peak_memory_mb=500.0)
            path.write_text(json.dumps(result))
    report.main([str(tmp_path), "--seeds", "3"])
    markdown = (tmp_path / "report.md").read_text()
    # by accuracy every depth ties and the cheapest would win; by MCC only k = 0 is within its own std
    assert "The recipe's cheapest depth at n = 100: freeze 0 (MCC 0.200 against 0.200 ± 0.010 at k = 0)" in markdown


def test_the_summary_line_counts_every_run_it_read(folder, capsys):
    for seed in (1, 2):  # another rate: a cell of the answer, not of the recipe's tables
        write_result(folder, 0, 50, seed, 0.7, lr=1e-4)
    report.main([str(folder), "--seeds", "5"])
    assert "report: 20 runs (18 of the fine-tune at its own rate tabled) ->" in capsys.readouterr().out


@pytest.mark.parametrize("methods_here", [["lora"], ["bitfit"], ["setfit"], ["finetune", "lora", "setfit"],
                                          ["lora", "bitfit"]])
def test_a_folder_of_any_method_or_mix_has_a_report(tmp_path, capsys, methods_here):
    import methods
    rng = np.random.default_rng(1)
    for method in methods_here:
        lr = methods.get(method).default_lr(50)
        for freeze in (0, 2):
            for seed in (1, 2, 3):
                write_result(tmp_path, freeze, 50, seed, float(rng.uniform(0.5, 0.9)), method=method, lr=lr,
                             seconds=dict(total=10.0), peak_memory_mb=100.0)
    report.main([str(tmp_path), "--seeds", "3"])
    text = (tmp_path / "report.md").read_text()
    tabled = methods.get(methods_here[0])
    assert text.startswith(f"# sst2 with minilm{'' if tabled is methods.FINETUNE else f' ({tabled.label})'}")
    for other in methods_here[1:]:  # each other method a section of its own, beside the tabled cells
        assert f"## {methods.get(other).label}\n" in text
    assert "## The answer" in text or "recommended" in text.lower()
    assert f"of the {tabled.label} at its own rate tabled" in capsys.readouterr().out


def test_a_folder_of_probes_alone_is_its_answer(tmp_path, capsys):
    for seed in (1, 2, 3):
        write_result(tmp_path, 6, 50, seed, 0.6 + seed / 100, method="probe", lr=None, seconds=dict(total=3.0))
    report.main([str(tmp_path), "--seeds", "3"])
    text = (tmp_path / "report.md").read_text()
    assert "fitted a probe" in text and "| probe | 6 | 50 | 3 | 0.620 |" in text


def test_a_folder_of_a_regression_s_runs_is_its_answer_read_by_its_correlation(tmp_path, capsys):
    """The study's tables read the best accuracy, which a regression's run has not: its grid's
    report is the answer alone, saying why, and no run of it is named unreadable."""
    for freeze, score in ((2, 0.70), (4, 0.55)):
        for seed in (1, 2, 3):
            record = result_record(freeze, 50, seed, task="stsb", metric="spearman", score=score + seed / 100,
                                   seconds=dict(total=10.0 + freeze))
            for figure in ("best_accuracy", "best_mcc", "majority_accuracy"):
                del record[figure]
            record.update(best=dict(pearson=score, spearman=score), at_score=dict(pearson=score, spearman=score),
                          constant=dict(pearson=0.0, spearman=0.0), dev_size=1500)
            (tmp_path / result.name_of(record["config"]).file_name()).write_text(json.dumps(record))
    report.main([str(tmp_path), "--seeds", "3"])
    text, err = (tmp_path / "report.md").read_text(), capsys.readouterr().err
    assert "These runs predict a score (a regression task, read by spearman)" in text
    assert "fine-tune, freeze 2" in text and "skipping" not in err, err
