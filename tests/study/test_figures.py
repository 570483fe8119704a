"""study/figures.py: figure.png's rows and panels, cost.png's panels."""

import pytest

from conftest import result_record
from study import answer_text, figures

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


def overlaps(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_labels_of_cells_at_one_point_do_not_overlap():
    """Cells of like cost and score (mpnet's k = -1 and 0 at n = 50) get labels apart, each beside its point."""
    anchors, sizes = [(100.0, 100.0)] * 3 + [(110.0, 100.0)], [(30.0, 8.0)] * 4
    offsets = figures.label_offsets(anchors, sizes, (0.0, 1000.0), gap=3.0)
    boxes = [(x + dx, y + dy, w, h) for (x, y), (dx, dy), (w, h) in zip(anchors, offsets, sizes)]
    assert not any(overlaps(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert all(abs(dy) <= 3.0 + 2 * 8.0 for _, dy in offsets)


def test_a_lone_label_sits_right_of_its_point_unless_the_panel_ends():
    sizes = [(30.0, 8.0)]
    assert figures.label_offsets([(100.0, 50.0)], sizes, (0.0, 1000.0), gap=3.0) == [(3.0, 3.0)]
    assert figures.label_offsets([(990.0, 50.0)], sizes, (0.0, 1000.0), gap=3.0) == [(-33.0, 3.0)]


def test_answer_figure_wraps_its_panels_in_rows_of_three(tmp_path):
    """Five train sizes in one row left each panel too narrow for its labels."""
    heights = {}
    for sizes in ((50, 100, 200), (50, 100, 200, 500, 1000)):
        folder = tmp_path / str(len(sizes))
        folder.mkdir()
        runs = [result_record(k, n, seed, 0.7 + 0.01 * k, seconds={"total": 10.0 * (k + 1)})
                for n in sizes for k in (0, 2) for seed in (1, 2)]
        picks = answer_text.answer_lines(runs, "accuracy")[1]  # {size: (the pick, the runner-up)}
        assert figures.write_answer_figure(folder, runs, picks, "accuracy")
        heights[len(sizes)] = png_size(folder / "answer.png")[1]
    assert heights[5] > 1.8 * heights[3]


def test_the_answer_figure_names_the_cells_on_the_score_against_cost_front():
    """The cells no other beats on both score and cost; the rest are drawn as plain points."""
    cell = lambda name, seconds, score: dict(method=name, freeze=0, seconds=seconds, fair_mean=score)
    cells = [cell("cheap", 1.0, 0.6), cell("dominated", 5.0, 0.55), cell("better", 10.0, 0.7),
             cell("as good, dearer", 20.0, 0.7), cell("best", 100.0, 0.8)]
    assert [row["method"] for row in figures.front(cells)] == ["cheap", "better", "best"]
