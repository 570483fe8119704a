"""The documents: the figures they quote are what today's code prints (the README's offline run,
and, slow: FREEZE_STUDY_SLOW=1 or `make check-quotes`, the example grid's table in docs/grid.md;
timings may differ from run to run, accuracies, steps and parameter counts may not), the README
stays short, and docs/ and bench/ map every file they hold."""

import os
import re
import shlex
import subprocess
import sys

import pytest

from conftest import GLUE_DIR, ROOT, needs_glue


def quoted(path, after):
    """The fenced blocks of a document after the line that starts `after`: [(language, lines)]."""
    text = open(os.path.join(ROOT, path)).read()
    text = text[text.index(after):]
    return [(m.group(1), m.group(2).strip().splitlines()) for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]


def without_timings(line):
    """A printed line with its seconds and the result's path taken out."""
    line = re.sub(r"\| [\d.]+s( \||$)", r"| <s>\1", line)
    return re.sub(r"\| \S+\.json$", "| <path>", line)


@needs_glue
def test_one_run_prints_what_the_readme_quotes(tmp_path):
    blocks = quoted("README.md", "## One run")
    command = next(line for line in blocks[0][1] if "--model minilm" in line).split("#")[0]
    argv = shlex.split(command)[1:]  # without .venv/bin/python
    argv[argv.index("--glue-dir") + 1] = GLUE_DIR
    output = subprocess.run([sys.executable, *argv, "--out", str(tmp_path / "r.json"), "--cache-dir",
                             str(tmp_path / "cache"), "--splits-dir", str(tmp_path / "splits")],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    printed = {without_timings(line) for line in output.splitlines()}
    quotes = [line for line in blocks[1][1] if line != "..."]
    assert len(quotes) == 3
    for line in quotes:
        assert without_timings(line) in printed, f"README quotes a line the run no longer prints:\n{line}\n\n{output}"


@needs_glue
@pytest.mark.skipif(not os.environ.get("FREEZE_STUDY_SLOW"), reason="about two minutes: make check-quotes")
def test_example_grid_reports_what_docs_grid_quotes(tmp_path):
    blocks = quoted("docs/grid.md", "A small real grid")
    command = shlex.split(blocks[0][1][0])
    command = [arg for arg in command if not arg.startswith(("RESULTS=", "GLUE_DIR="))]
    subprocess.run([*command, f"RESULTS={tmp_path / 'grid'}", f"GLUE_DIR={GLUE_DIR}", f"PYTHON={sys.executable}",
                    f"CACHE_DIR={tmp_path / 'cache'}", f"SPLITS_DIR={tmp_path / 'splits'}"],
                   cwd=ROOT, capture_output=True, text=True, check=True)
    report = (tmp_path / "grid" / "report.md").read_text()
    text = open(os.path.join(ROOT, "docs/grid.md")).read()
    rows = [line for line in text.splitlines() if line.startswith("| 50 | ")]
    assert len(rows) == 3
    for row in rows:
        assert row in report, f"docs/grid.md quotes a row the example grid no longer reports:\n{row}\n\n{report}"


def test_the_readme_stays_short_and_its_findings_take_a_glance():
    text = open(os.path.join(ROOT, "README.md")).read()
    lines = text.splitlines()
    assert len(text.split()) <= 1200 and len(lines) <= 200
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("|---")]
    assert rows and max(len(cell.strip()) for row in rows for cell in row.strip("|").split("|")) <= 100


def test_what_the_readme_says_to_pick_is_each_report_s_answer():
    """Each row of the README's table is the recommendation its report opens with (docs/results/...)."""
    text = open(os.path.join(ROOT, "README.md")).read()
    reports = dict(re.findall(r"\[([^]]+)\]\((docs/results/[^)]+/report\.md)\)", text))
    task, model, checked = None, None, 0
    for row in re.findall(r"^\| (.*) \|$", text.split("## What to pick")[1].split("##")[0], re.M)[1:]:
        cells = [cell.strip() for cell in row.split("|")]
        task, model = cells[0] or task, cells[1] or model
        name = f"{task.split()[0]}, {'mpnet' if 'mpnet' in model else 'minilm'}"
        report = open(os.path.join(ROOT, reports[name])).read()
        opening = report.split("## The answer\n")[1].split("##")[0]
        assert f"| {cells[2]} | {cells[3]} | {cells[4]} | {cells[5]} |" in opening, (row, reports[name])
        checked += 1
    assert checked == 13


def test_docs_and_bench_map_every_file_they_hold():
    docs = open(os.path.join(ROOT, "docs", "README.md")).read()
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name != "README.md":
            assert f"]({name}" in docs, f"docs/README.md does not link docs/{name}"
    bench = open(os.path.join(ROOT, "bench", "README.md")).read()
    for name in sorted(os.listdir(os.path.join(ROOT, "bench"))):
        if name.endswith((".py", ".sh")) and name != "__init__.py":
            assert f"`{name}`" in bench, f"bench/README.md does not list bench/{name}"
            source = open(os.path.join(ROOT, "bench", name)).read()
            assert "sys.path" not in source, f"bench/{name} reaches the project through sys.path"


def test_the_readme_maps_every_file_a_run_goes_through():
    """Its map section names every top-level module, and every module study/ and study/search/ hold,
    as their __init__.py list them."""
    section = open(os.path.join(ROOT, "README.md")).read().split("## The map")[1].split("\n## ")[0]
    top_level = sorted(name for name in os.listdir(ROOT) if name.endswith(".py"))
    assert "freeze_study.py" in top_level and [name for name in top_level if f"`{name}`" not in section] == []
    for folder in ("study", os.path.join("study", "search")):  # each package's map lists its every module
        listed = re.findall(r"^    (\w+\.py) ", open(os.path.join(ROOT, folder, "__init__.py")).read(), re.M)
        modules = sorted(name for name in os.listdir(os.path.join(ROOT, folder)) if name.endswith(".py") and name != "__init__.py")
        assert len(listed) > 8 and sorted(listed) == modules, folder
        assert [name for name in listed if f"`{name}`" not in section] == []
