"""study/results.py: a folder of runs read and summarised, what a folder may hold, and where a grid stands."""

import json

import numpy as np
import pytest

from conftest import result_record, write_result
from study import results


def test_time_left_takes_each_kind_of_run_at_its_own_pace(tmp_path):
    def run(name, seconds=None):
        path = tmp_path / name
        if seconds is not None:
            path.write_text(json.dumps({"seconds": {"total": seconds}}))
        return str(path)
    runs = [run("freeze0_size50_seed1.json", 60), run("freeze0_size50_seed2.json", 64), run("freeze6_size50_seed1.json", 8),
            run("freeze0_size50_seed3.json"), run("freeze6_size50_seed2.json"), run("freeze4_size50_seed1.json"),
            run("freeze0_size1000_seed1.json")]
    done, left, untimed = results.time_left(runs)
    # k = 0: the median of 60 and 64; k = 6: 8; k = 4 and n = 1000 (none of their kind done): no guess
    assert done == 3 and left == 62 + 8 and untimed == 2
    assert results.where_the_grid_stands(runs) == ("3 of 7 runs done, about 1 min left for the kinds timed, 2 left of a "
                                                   "depth and size not yet timed (no estimate until one of each has run)")
    assert results.where_the_grid_stands(runs[:5]) == "3 of 5 runs done, about 1 min left"
    assert results.where_the_grid_stands(runs[3:]) == "0 of 4 runs done, no estimate until one is"
    assert results.duration(30) == "under a minute" and results.duration(4000) == "1 h 07 min"
    assert results.timing_kind("a/freeze0_sizeall_seed1_lr3e-5.json") == (0, "all", 0, "finetune")
    assert results.timing_kind("freeze0_size100_seed2_reinit1_probe.json") == (0, 100, 1, "probe")


def test_a_folder_reads_its_runs_and_names_what_is_not_one(tmp_path, capsys):
    for seed, precision in ((1, "fp32"), (2, "fp32")):
        write_result(tmp_path, 0, 50, seed, 0.7 + seed / 100, precision=precision)
    (tmp_path / "freeze2_size50_seed1.json").write_text('{"config": {"freeze": 2')  # cut short
    runs = results.load_results(str(tmp_path))
    assert [r["config"]["seed"] for r in runs] == [1, 2] and "freeze2_size50_seed1.json" in capsys.readouterr().err
    assert results.precision_of(runs, "f") == "fp32" and list(results.cells_of(runs)) == [(50, 0)]
    runs[1]["config"]["precision"] = "bf16"
    with pytest.raises(ValueError, match=r"mixes precisions \(1 runs bf16, 1 runs fp32\)"):
        results.precision_of(runs, "f")


def test_difference_is_against_twice_the_standard_error_of_the_difference():
    these, those = [0.70, 0.72, 0.71], [0.74, 0.75, 0.76, 0.77]
    diff, two_se = results.difference(these, those)
    assert diff == pytest.approx(np.mean(these) - np.mean(those))
    assert two_se == pytest.approx(2 * np.sqrt(np.var(these, ddof=1) / 3 + np.var(those, ddof=1) / 4))
    stats = results.describe([0.5, 0.7, 0.6])
    assert stats["median"] == 0.6 and stats["std"] == pytest.approx(0.1) and np.isnan(results.describe([0.5])["std"])


def runs_on(device, scores, processor=None):
    return [result_record(0, 200, seed, s, device=device, processor=processor) for seed, s in enumerate(scores, 1)]


def test_a_cell_pools_two_devices_only_where_they_agree():
    cpu = runs_on("cpu", [0.80, 0.82, 0.81], "AMD EPYC")
    near, far = runs_on("cuda:0", [0.815, 0.805], "NVIDIA H100"), runs_on("cuda", [0.90, 0.91], "NVIDIA H100")
    value = lambda r: r["best_accuracy"]
    assert results.pool_devices(cpu, value) == (cpu, "")  # one device: nothing to say
    pooled, note = results.pool_devices(cpu + near, value)
    assert pooled == cpu + near and note.endswith("within 2 SE, pooled")
    assert "cpu 3 runs, mean 0.810" in note and "cuda 2 runs, mean 0.810" in note
    # 0.09 apart against a within-device std of about 0.01: the cell is read from the device with more runs
    kept, note = results.pool_devices(cpu + far, value)
    assert kept == cpu and note.endswith("differ by more than 2 SE, read from cpu alone")
    # one run on each: no seed noise to judge by; a tie goes to the cpu, where the published grids ran
    kept, note = results.pool_devices(cpu[:1] + near[:1], value)
    assert kept == cpu[:1] and note.endswith("no seed noise to judge by, read from cpu alone")
    assert results.devices_line(cpu) == "cpu"
    assert results.devices_line(cpu + far) == "cpu (3 runs: AMD EPYC) and cuda (2 runs: NVIDIA H100)"
    rows = results.table(cpu + far)
    assert rows[0]["runs"] == 3 and rows[0]["accuracy_mean"] == pytest.approx(0.81) and "read from cpu" in rows[0]["devices"]
