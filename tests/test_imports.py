"""No two modules import each other, directly or round a longer circle: every module of the project
(top level, parts/, study/, study/search/, bench/, tools/) read for its imports, those inside
functions included."""

import ast
import os

from conftest import ROOT

FOLDERS = ("", "parts", "study", "study/search", "bench", "tools")  # bench's scripts import each other by file name


def project_modules(root):
    """{dotted name: path} of every Python module in the project's folders: 'loop', 'study.report', ..."""
    modules = {}
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if name.endswith(".py") and name != "__init__.py":
                modules[".".join(filter(None, (folder.replace("/", "."), name[:-3])))] = os.path.join(root, folder, name)
    return modules


def imports_of(name, path, modules):
    """The project modules that module `name` imports, wherever in the file the import stands."""
    package = name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # `from study import stats` names a module; `from data import write_atomically` a name in one
            targets = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for target in targets:
            for candidate in (f"{package}.{target}" if package else None, target):  # a sibling first (bench/)
                if candidate in modules and candidate != name:
                    found.add(candidate)
                    break
    return found


def circles(graph):
    """Every import circle in {module: modules it imports}, each as the list of its modules."""
    found, state = [], {}  # state: 1 while on the path being walked, 2 once finished

    def walk(module, path):
        state[module] = 1
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == 1:
                found.append(path[path.index(imported):] + [imported])
            elif imported not in state:
                walk(imported, path + [imported])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    return found


def import_graph(root):
    modules = project_modules(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_no_module_imports_itself_back():
    graph = import_graph(ROOT)
    assert {"freeze_study", "loop", "study.report", "study.figures", "bench.compare_trainer"} <= set(graph)
    assert "study.published" in graph["study.report"] and "rows" in graph["loop"]  # the reading works
    assert circles(graph) == []


def test_a_circle_is_found_however_the_import_is_written(tmp_path):
    for folder in FOLDERS[1:]:
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "study" / "__init__.py").write_text("")
    (tmp_path / "study" / "report.py").write_text("from study import figures\n")
    (tmp_path / "study" / "figures.py").write_text("def f():\n    from study.report import table  # lazily\n")
    (tmp_path / "bench" / "a.py").write_text("import b\nimport data\n")
    (tmp_path / "bench" / "b.py").write_text("import data\n")
    (tmp_path / "data.py").write_text("import os\n")
    graph = import_graph(str(tmp_path))
    assert graph["bench.a"] == {"bench.b", "data"}
    assert circles(graph) == [["study.figures", "study.report", "study.figures"]]


def test_a_run_needs_no_study():
    """The top level is what one run goes through; study/ turns many runs into a study. A run's own
    rules (what a results folder may hold among them) live with the run, so no top-level module,
    nor a family's part, imports study/ (bench/ may: it measures studies)."""
    graph = import_graph(ROOT)
    top_level = [name for name in graph if not name.startswith(("study.", "bench."))]
    assert "freeze_study" in top_level and "parts.deberta" in top_level
    assert {name: sorted(m for m in graph[name] if m.startswith("study.")) for name in top_level
            if any(m.startswith("study.") for m in graph[name])} == {}


def test_model_py_takes_a_family_s_parts_from_its_block_alone():
    """model.py builds any family from the parts its block in parts/families.py names, read through
    its config (config.family): it imports no family's part, no family's constant (MPNet's buckets,
    DeBERTa's attention live in parts/) and not the declarations themselves, so parts/ sits below it."""
    tree = ast.parse(open(os.path.join(ROOT, "model.py")).read())
    imported = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names]
    imported += [(alias.name, None) for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert not [module for module, _ in imported if module.startswith("parts") or "families" in module]


def test_the_search_is_a_package_the_study_does_not_reach_into():
    """study/search/ (make advise) reads study/'s modules; nothing of the top level or study/ reads
    it (bench/ measures its internals, tests test them), and it never imports the grid report's text."""
    graph = import_graph(ROOT)
    search = [name for name in graph if name.startswith("study.search.")]
    assert {"study.search.advise", "study.search.rounds", "study.search.standing"} <= set(search)
    outside = [name for name in graph if not name.startswith(("study.search.", "bench."))]
    assert {name: sorted(m for m in graph[name] if m.startswith("study.search.")) for name in outside
            if any(m.startswith("study.search.") for m in graph[name])} == {}
    assert {name: sorted(graph[name] & {"study.report", "study.answer_text", "study.sections"}) for name in search
            if graph[name] & {"study.report", "study.answer_text", "study.sections"}} == {}
