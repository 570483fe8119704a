"""methods.py: one declaration per method, read by the command line, result names, reports and make;
each method's default rate at a train size is where this project's line searches found the best."""

import ast
import os

import pytest

import methods
import plan
import result
from conftest import ROOT


@pytest.mark.parametrize("name, rates", [
    # n = 50, 100, 200, 500, 1000, all (docs/findings-sst2.md, findings-peft.md)
    ("finetune", (5e-5, 5e-5, 5e-5, 5e-5, 5e-5, 5e-5)),  # the blog's, at every n
    ("lora", (5e-3, 2e-3, 1e-3, 1e-3, 1e-3, 1e-3)),  # 1e-3 x 200 / n, at least 1e-3
    ("bitfit", (1e-2, 5e-3, 5e-3, 5e-3, 5e-3, 5e-3)),
    ("setfit", (2e-4, 5e-5, 1e-5, 1e-5, 1e-5, 1e-5)),  # 2e-4 x (50 / n)^2, at least 1e-5
    ("setfit-fast", (5e-4, 2e-4, 5e-5, 2e-5, 2e-5, 2e-5)),  # 2e-4 x (100 / n)^2, in 2e-5 .. 5e-4
    ("probe", (None,) * 6),  # fitted, at no rate
])
def test_each_method_s_default_rate_moves_with_n_as_its_searches_found(name, rates):
    method = methods.get(name)
    assert tuple(method.default_lr(n) for n in (50, 100, 200, 500, 1000, "all")) == rates


def test_all_of_a_train_split_takes_the_rate_for_its_examples():
    """'all' is n = the train split's examples where they are known (your own file of 48: LoRA's
    rate for 48), and a split of thousands (GLUE's, or not known) reads as such."""
    lora = methods.get("lora")
    assert lora.own_lr("all", 48) == lora.default_lr(48) == 5e-3 and lora.own_lr(48, 5000) == 5e-3
    assert lora.own_lr("all", 67349) == lora.own_lr("all") == lora.default_lr("all") == 1e-3
    assert methods.get("setfit-fast").own_lr("all", 150) == 1e-4 and methods.get("probe").own_lr("all", 150) is None


def test_a_search_ladder_is_five_1_2_5_rates_around_the_best_found():
    assert methods.get("lora").ladder(200) == [2e-4, 5e-4, 1e-3, 2e-3, 5e-3]
    assert methods.get("finetune").ladder(50) == [5e-5, 1e-4, 2e-4, 5e-4, 1e-3]  # its search's 2e-4 at n = 50
    assert methods.get("probe").ladder(50) == []
    assert [methods.on_ladder(rate) for rate in (4e-3, 1.25e-5, 3e-4, 7e-5)] == [5e-3, 1e-5, 2e-4, 5e-5]


def test_the_table_is_what_the_command_line_and_the_names_read():
    names = [method.name for method in methods.METHODS]
    suffixes = [method.suffix for method in methods.METHODS]
    assert len(set(names)) == len(names) == len(set(suffixes))
    choices = next(a.choices for a in plan.parser()._actions if a.dest == "method")
    assert tuple(choices) == methods.NAMES
    for method in methods.METHODS:  # every method's name is written and read back by result.py
        run = result.RunName(0, 50, 1, method=method.name)
        assert result.parse_name(run.file_name()) == run and run.file_name().endswith(method.suffix + ".json")


def test_no_module_but_the_table_lists_the_methods():
    """Outside methods.py (and the tests), no top-level or study/ module writes two method names in
    one literal tuple, list, set or dict: a list of the methods has one home."""
    for folder in ("", "study"):
        for file in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not file.endswith(".py") or file == "methods.py":
                continue
            tree = ast.parse(open(os.path.join(ROOT, folder, file)).read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                    items = node.keys + node.values if isinstance(node, ast.Dict) else node.elts
                    named = {item.value for item in items if isinstance(item, ast.Constant) and item.value in methods.NAMES}
                    assert len(named) < 2, f"{folder}/{file}:{node.lineno} lists methods {sorted(named)}"


def test_the_probe_needs_an_example_for_each_of_its_folds():
    """The fewest examples a probe's run is planned on (plan.py refuses below them) are the folds
    its strength is cross-validated on: one example each at least, or a fold's score is NaN."""
    import probe
    assert methods.PROBE.fewest_examples == probe.FOLDS
