"""The pick kept (study/search/keep.py): moved into place where a run saved it as the search ran,
else trained again by the search's own workers; an earlier pick of the same search replaced only once
the new one is in place; a --save holding anything else refused before any run; the command that
labels a CSV with it named from the folder the user typed make in."""

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import ADVISE, ROOT, advise_here, result_record
from study.search import rounds, search_folder
from study.search.keep import Kept, check_save, keep, to_keep
from study.search.standing import Cell


def test_a_pick_saved_as_the_search_ran_is_moved_into_place_not_trained_again(tmp_path):
    run = tmp_path / "freeze2_size200_seed5.json"  # the pick's last seed, which saved its model as it ran
    (tmp_path / "kept" / "freeze2_size200_seed5").mkdir(parents=True)
    (tmp_path / "kept" / "freeze2_size200_seed5" / "model.safetensors").write_text("its weights")
    run.write_text(json.dumps(result_record(2, 200, 5, 0.8)))
    save = tmp_path / "saved" / "pick"
    # options no run could take: the pick is not trained again
    line, _ = keep(Cell("finetune", 2, 5e-5), ["--dataset", "none"], str(save),
                   Kept(5, 5, (str(run), str(tmp_path / "kept" / "freeze2_size200_seed5"))))
    assert "(seed 5, the best of the pick's 5 on the dev split, saved as the search ran it)" in line and run.exists()  # the search's result stays
    assert (save / "model.safetensors").read_text() == "its weights"
    assert json.loads(Path(str(save) + ".json").read_text())["config"]["freeze"] == 2


class Training:
    """Workers that make each run asked of them as a run would: its result, and its model where --save names one."""
    def __init__(self):
        self.asked = []

    def run_all(self, runs, shared, run_flags, echo=print):
        self.asked.append((runs, shared, run_flags))
        for path in runs:
            os.makedirs(shared["save"])
            Path(path).write_text(json.dumps(result_record(2, 200, 3, 0.8, seconds=dict(total=36.2))))
        return 0


def test_a_seed_to_keep_that_no_run_saved_is_trained_again_by_the_search_s_own_workers(tmp_path):
    """Not in a process of its own: at another thread count a run rounds otherwise, and training
    carries it on (STS-B: 0.738 on dev against the search's 0.754). Nothing runs where an earlier
    search kept the same pick."""
    cell, workers = Cell("finetune", 2, 5e-5), Training()
    s = rounds.Search(str(tmp_path / "results"), 200, None, 1e9, {"model": "minilm"}, ["--evaluations", "last"], workers,
                      echo=lambda line: None)
    kept, code = to_keep(s, cell, Kept(3, 5), str(tmp_path / "saved"), False, s.flags)
    path = search_folder.kept_path(s.folder, cell, 200, 3)
    assert workers.asked == [([path], {"model": "minilm", "save": path[:-len(".json")]}, ["--evaluations", "last"])]
    assert code == 0 and kept == Kept(3, 5, (path, path[:-len(".json")]), "trained again")
    line, _ = keep(cell, [], str(tmp_path / "saved"), kept)
    assert "(seed 3, the best of the pick's 5 on the dev split, trained again in 36 s)" in line
    assert to_keep(s, cell, Kept(3, 5), str(tmp_path / "saved"), False, s.flags) == (Kept(3, 5), 0)  # kept already
    assert len(workers.asked) == 1
    final, _ = to_keep(s, cell, Kept(), str(tmp_path / "saved"), True, ["--final"])  # another model: trained
    assert final.saved[0] == search_folder.kept_path(s.folder, cell, 200, 1, final=True) and final.how == "trained on every label"
    assert workers.asked[-1][2] == ["--final"]


def test_a_keep_replaces_the_same_searchs_earlier_pick_once_the_new_one_is_in_place(tmp_path):
    save = tmp_path / "saved" / "pick"
    save.mkdir(parents=True)
    (save / "model.safetensors").write_text("the earlier pick")
    Path(str(save) + ".json").write_text(json.dumps(result_record(4, 200, 1, 0.7)))
    run = tmp_path / "freeze2_size200_seed5.json"
    (tmp_path / "kept" / "freeze2_size200_seed5").mkdir(parents=True)
    (tmp_path / "kept" / "freeze2_size200_seed5" / "model.safetensors").write_text("its weights")
    run.write_text(json.dumps(result_record(2, 200, 5, 0.8)))
    line, _ = keep(Cell("finetune", 2, 5e-5), ["--dataset", "none"], str(save),
                   Kept(5, 5, (str(run), str(tmp_path / "kept" / "freeze2_size200_seed5"))))
    assert "it replaces the earlier pick kept there (fine-tune, freeze 4)" in line
    assert (save / "model.safetensors").read_text() == "its weights" and not Path(str(save) + ".new").exists()
    assert json.loads(Path(str(save) + ".json").read_text())["config"]["freeze"] == 2


def test_a_save_holding_anything_but_this_searchs_pick_is_refused_before_any_run(tmp_path):
    save = tmp_path / "saved"
    check_save(str(save), 200, set())  # nothing there yet
    save.mkdir()
    with pytest.raises(ValueError, match="exists and is no pick a search kept: give another --save, or move it"):
        check_save(str(save), 200, {"sst2"})
    Path(str(save) + ".json").write_text(json.dumps(result_record(2, 200, 1, 0.8, task="cola")))
    with pytest.raises(ValueError, match=r"holds a pick of another search \(cola, n = 200\)"):
        check_save(str(save), 200, {"sst2"})  # the folder's runs are another task's
    with pytest.raises(ValueError, match="another search"):
        check_save(str(save), 100, {"cola"})
    check_save(str(save), 200, {"cola"})  # its own earlier pick: the keep may replace it
    (tmp_path / "taken").write_text("a file")  # the keep's move would fail once the search had run
    with pytest.raises(ValueError, match="is a file, where a folder would go"):
        check_save(str(tmp_path / "taken" / "saved"), 200, {"cola"})
    folder = tmp_path / "results"
    refused = advise_here([*ADVISE, str(folder), "--size", "16", "--budget", "1", "--depths", "1", "2", "--save", str(save),
                           "--", "--dataset", "sst2"])
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "holds a pick of another search" in refused.stderr and not folder.exists()


def test_the_printed_predict_command_names_the_user_s_columns():
    from study.search.keep import text_columns
    assert text_columns(["--train-file", "t.csv", "--text-column", "tweet"]) == " --text-column tweet"
    assert text_columns(["--text-column", "q", "--text-pair-column", "a"]) == " --text-column q --text-pair-column a"
    assert text_columns(["--dataset", "sst2"]) == ""  # predict.py finds a 'sentence' or 'text' column itself


def test_the_printed_predict_command_runs_with_the_search_s_own_python(tmp_path, monkeypatch):
    """make advise runs .venv/bin/python, and a bare `python` may lack torch: the command names the
    Python the search ran with, and predict.py, from where the search ran (relative below it)."""
    from study.search.keep import predict_py
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    monkeypatch.setattr(sys, "executable", venv_python)
    monkeypatch.chdir(ROOT)
    assert predict_py() == ".venv/bin/python predict.py"
    line, command = keep(Cell("finetune", 2, 5e-5), ["--text-column", "tweet"], "saved/mine", Kept(1, 1))
    assert command == ".venv/bin/python predict.py --model saved/mine --input YOUR.csv --text-column tweet --out labelled.csv"
    monkeypatch.chdir(tmp_path)  # a notebook elsewhere: whole paths
    assert predict_py() == f"{venv_python} {os.path.join(ROOT, 'predict.py')}"


def test_make_c_names_the_printed_paths_from_the_folder_make_was_called_in(tmp_path, monkeypatch):
    """make -C DIR advise runs the search in DIR while the user's shell stays where make was called:
    the predict.py command and the report's path are named from there (--shown-from), relative where
    they lie below it, else whole."""
    from study.search.keep import named_from, predict_py
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    monkeypatch.setattr(sys, "executable", venv_python)
    monkeypatch.chdir(ROOT)
    above, project = os.path.split(ROOT)
    _, command = keep(Cell("finetune", 2, 5e-5), [], "saved/mine", Kept(1, 1), shown_from=above)
    assert command == (f"{project}/.venv/bin/python {project}/predict.py --model {project}/saved/mine "
                       "--input YOUR.csv --out labelled.csv")
    assert predict_py(str(tmp_path)) == f"{venv_python} {os.path.join(ROOT, 'predict.py')}"
    assert named_from("results/advise.md", str(tmp_path)) == os.path.join(ROOT, "results", "advise.md")
    assert named_from("results/advise.md") == "results/advise.md"  # typed here: as given
    assert named_from(ROOT + "x/saved", ROOT) == ROOT + "x/saved"  # a sibling that shares the name's start
