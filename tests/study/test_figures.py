"""study/figures.py: figure.png's rows and panels, cost.png's panels."""

import pytest

from conftest import result_record
from study import figures

pytest.importorskip("matplotlib")


def run(task, k, size, seed, accuracy, mcc):
    return result_record(k, size, seed, accuracy, mcc=mcc, task=task)


def png_size(path):
    png = path.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # IHDR: width, height


def test_cola_figure_has_a_row_of_mcc_panels(tmp_path):
    """CoLA's accuracy can sit on the majority class while MCC moves: its figure plots both."""
    heights = {}
    for task in ("sst2", "cola"):
        (tmp_path / task).mkdir()
        runs = [run(task, 0, 50, seed, 0.7 + 0.01 * seed, 0.1 * seed) for seed in (1, 2)]
        assert figures.write_figure(tmp_path / task, runs)
        heights[task] = png_size(tmp_path / task / "figure.png")[1]
    assert heights["cola"] > 1.8 * heights["sst2"]


def test_a_panel_per_train_size(tmp_path):
    rows = [dict(train_size=n, frozen_layers=k, accuracy_mean=0.7, accuracy_std=0.01, seconds_median=10.0 * (k + 1))
            for n in (50, 100, 200) for k in (0, 2)]
    for sizes, folder in (((50,), tmp_path / "one"), ((50, 100, 200), tmp_path / "three")):
        folder.mkdir()
        assert figures.write_cost_figure(folder, [row for row in rows if row["train_size"] in sizes])
        assert figures.write_figure(folder, [run("sst2", r["frozen_layers"], r["train_size"], 1, 0.7, 0.1)
                                             for r in rows if r["train_size"] in sizes])
    for name in ("cost.png", "figure.png"):
        assert png_size(tmp_path / "three" / name)[0] > 1.5 * png_size(tmp_path / "one" / name)[0]
