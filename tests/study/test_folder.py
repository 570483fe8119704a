"""study/folder.py: a folder of runs read, its devices pooled where they agree, its cells and table."""

import pytest

from conftest import result_record, write_result
from study import folder


def test_a_folder_reads_its_runs_and_names_what_is_not_one(tmp_path, capsys):
    for seed, precision in ((1, "fp32"), (2, "fp32")):
        write_result(tmp_path, 0, 50, seed, 0.7 + seed / 100, precision=precision)
    (tmp_path / "freeze2_size50_seed1.json").write_text('{"config": {"freeze": 2')  # cut short
    runs = folder.load_results(str(tmp_path))
    assert [r["config"]["seed"] for r in runs] == [1, 2] and "freeze2_size50_seed1.json" in capsys.readouterr().err
    assert folder.precision_of(runs, "f") == "fp32" and list(folder.cells_of(runs)) == [(50, 0)]
    runs[1]["config"]["precision"] = "bf16"
    with pytest.raises(ValueError, match=r"mixes precisions \(1 run bf16, 1 run fp32\)"):
        folder.precision_of(runs, "f")


def runs_on(device, scores, processor=None):
    return [result_record(0, 200, seed, s, device=device, processor=processor) for seed, s in enumerate(scores, 1)]


def test_a_cell_pools_two_devices_only_where_they_agree():
    cpu = runs_on("cpu", [0.80, 0.82, 0.81], "AMD EPYC")
    near, far = runs_on("cuda:0", [0.815, 0.805], "NVIDIA H100"), runs_on("cuda", [0.90, 0.91], "NVIDIA H100")
    value = lambda r: r["best_accuracy"]
    assert folder.pool_devices(cpu, value) == (cpu, "")  # one device: nothing to say
    pooled, note = folder.pool_devices(cpu + near, value)
    assert pooled == cpu + near and note.endswith("within 2 SE, pooled")
    assert "cpu 3 runs, mean 0.810" in note and "cuda 2 runs, mean 0.810" in note
    # 0.09 apart against a within-device std of about 0.01: the cell is read from the device with more runs
    kept, note = folder.pool_devices(cpu + far, value)
    assert kept == cpu and note.endswith("differ by more than 2 SE, read from cpu alone")
    # one run on each: no seed noise to judge by; a tie goes to the cpu, where the published grids ran
    kept, note = folder.pool_devices(cpu[:1] + near[:1], value)
    assert kept == cpu[:1] and note.endswith("no seed noise to judge by, read from cpu alone")
    assert folder.devices_line(cpu) == "cpu"
    assert folder.devices_line(cpu + far) == "cpu (3 runs: AMD EPYC) and cuda (2 runs: NVIDIA H100)"
    for run in far:
        run["config"]["at_once"] = 2  # make grid SEEDS_AT_ONCE=1: what the seconds of those runs are
    assert folder.devices_line(cpu + far) == ("cpu (3 runs: AMD EPYC) and cuda (2 runs: NVIDIA H100); 2 of the 5 runs "
                                              "trained with their cell's other seeds at once, each timed by its share "
                                              "of their seconds")
    rows = folder.table(cpu + far)
    assert rows[0]["runs"] == 3 and rows[0]["accuracy_mean"] == pytest.approx(0.81) and "read from cpu" in rows[0]["devices"]
