"""study/published.py: the published figures as the reports read them, and the depths they line up at."""

import pytest

from study import published


def test_blog_rows_are_the_appendix_table():
    rows = {(r["train_size"], r["frozen_layers"]): r for r in published.blog_rows("sst2")}
    assert len(rows) == 5 * 7  # train sizes 50 ... 1000 x depths -1 0 2 4 8 10 12
    assert rows[(50, 2)]["accuracy_mean"] == 0.695 and rows[(50, 2)]["accuracy_std"] == 0.0713
    assert {(r["train_size"], r["frozen_layers"]) for r in published.blog_rows("cola")} == set(rows)
    assert published.blog_rows("mrpc") == []  # a task the blog did not run


def test_lee_rows_are_the_paper_s_operating_points_in_the_task_s_metric():
    mrpc = published.lee_rows("mrpc")  # MRPC is scored by F1
    assert mrpc["bert-base"] == {0: pytest.approx(0.903), 9: pytest.approx(0.854), 12: pytest.approx(0.815)}
    assert set(mrpc) == {"bert-base", "roberta-base"}
    assert set(published.lee_rows("rte")) == {"bert-base"}  # the paper ran RTE on BERT only
    assert published.lee_rows("mytask") == {}


def test_reference_depth_is_the_same_fraction_of_twelve_layers():
    assert [published.reference_depth(k, 6) for k in (-1, 0, 1, 2, 3, 6)] == [-1, 0, 2, 4, 6, 12]
    assert published.reference_depth(2, 12) == 2
    assert published.reference_depth(1, 8) is None  # 1.5 of 12: between two of its layers


def test_only_cola_reports_mcc():
    assert published.reports_mcc("cola") and not published.reports_mcc("sst2")


def test_lora_paper_rows_are_table_2_in_the_metric_our_runs_read_it_in():
    assert published.lora_paper_rows("mrpc") == ("accuracy", {"finetune": pytest.approx(0.902), "bitfit": pytest.approx(0.927),
                                                              "lora": pytest.approx(0.897)})
    assert published.lora_paper_rows("stsb")[0] == "pearson"  # where Lee's tables (and ours) read Spearman
    assert published.lora_paper_rows("cola") == ("mcc", {"finetune": pytest.approx(0.636), "bitfit": pytest.approx(0.620),
                                                         "lora": pytest.approx(0.634)})
    assert published.lora_paper_rows("mytask") is None
