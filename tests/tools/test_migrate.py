"""tools/migrate.py: an earlier version's run results brought to today's format, once."""

import json

from conftest import result_record
from study import report
from tools import migrate


def test_old_runs_gain_what_they_lack_and_today_s_name(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    for seed in (1, 2):
        old = result_record(0, "all", seed, 0.8, lr=5e-5)
        for key in ("pooling", "method", "reinit"):
            del old["config"][key]
        old["config"].update(probe=False, skip_padding=True)  # once a flag beside --method; once recorded
        old.update(probe=None, setfit=None)
        del old["processor"], old["train_at_score"]
        old["selection"] = "last"
        (folder / f"freeze0_sizeall_seed{seed}_lr5e-5.json").write_text(json.dumps(old))  # as make once named it
    (folder / "notes.json").write_text(json.dumps(["not a run"]))
    migrate.main([str(folder)])
    assert "2 run results changed" in capsys.readouterr().out
    assert sorted(p.name for p in folder.iterdir()) == ["freeze0_sizeall_seed1.json", "freeze0_sizeall_seed2.json", "notes.json"]
    run = json.loads((folder / "freeze0_sizeall_seed1.json").read_text())
    assert {k: run["config"][k] for k in ("pooling", "method", "reinit", "selection")} == \
        dict(pooling="first", method="finetune", reinit=0, selection="last")
    assert "probe" not in run["config"] and "skip_padding" not in run["config"] and "probe" not in run
    assert run["processor"] is None and run["train_at_score"] is None and run["constant"] == dict(accuracy=0.509, mcc=0.0)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    migrate.main([str(folder)])
    assert "0 run results changed" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    report.main([str(folder), "--seeds", "2"])  # what the reports read, without a path for old formats
    assert "| all | 0 | 2 | 0.800 |" in (folder / "report.md").read_text()


def test_a_run_without_the_constant_gets_it_from_its_dev_split(tmp_path, glue_dir):
    old = result_record(0, "all", 1, task="mrpc", metric="f1", glue_dir=glue_dir, selection="last")
    del old["constant"]
    assert "constant" in migrate.migrate(old, None)
    # MRPC's dev split: 279 of 408 pairs are paraphrases, so always "paraphrase" scores F1 558 / 687
    assert old["constant"]["f1"] == 2 * 279 / (408 + 279)
