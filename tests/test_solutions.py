"""Run All reveals no answer: the worked solutions live in notebooks of their own.

The convention (CONTRIBUTING, "Exercises"): a main notebook ``notebooks/NN_name.ipynb`` states
each exercise in markdown with a link to its worked solution, then has a check cell::

    my_answer = None  # ..., to 3 decimals
    bmlab.check("NN.k", my_answer)

and nothing that computes the answer. ``notebooks/solutions/NN_solutions.ipynb`` (a jupytext
pair, executed, under strict nbval like every notebook) has one section ``## Exercise k``
(cell id ``Exercise-k``, the anchor of the links) per exercise, which computes ``answer`` and
ends with
``assert bmlab.check("NN.k", answer)``. Since nbval makes the stored outputs of a main
notebook what Run All prints, none of them may contain an exercise's answer.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

from bmlab.exercises import EXERCISES, check
from tools.notebooks import heading_ids

ROOT = Path(__file__).resolve().parent.parent
MAIN = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))  # 05b_... too
SOLUTIONS = ROOT / "notebooks" / "solutions"
CHECK = re.compile(r"""bmlab\.check\(\s*["'](\d\d[a-z]?\.\d+)["']\s*,\s*(.*?)\)\s*$""", re.M)
DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?")
HOW = (
    "move the worked solution to {solutions} (one '## Exercise k' section per exercise, "
    "ending in assert bmlab.check(...)); see CONTRIBUTING, 'Exercises'"
)


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _ids(path: Path) -> list[str]:
    """The exercises of a notebook: the ids of exercises.json that start with its number
    ("05." for 05_contrastive_divergence, "05b." for 05b_rbm_in_practice)."""
    return sorted(i for i in EXERCISES if i.startswith(path.name.split("_")[0] + "."))


def solutions_of(path: Path) -> Path:
    """``notebooks/solutions/05_solutions.ipynb`` for ``05_contrastive_divergence.ipynb``: short,
    so that JupyterLab's tab shows what tells it from the notebook's own tab."""
    return SOLUTIONS / f"{path.name.split('_')[0]}_solutions.ipynb"


def _how(path: Path) -> str:
    return HOW.format(solutions=solutions_of(path).relative_to(ROOT))


def test_the_main_notebooks_are_there():
    assert len(MAIN) >= 5, MAIN


@pytest.mark.parametrize("path", MAIN, ids=lambda p: p.stem)
def test_no_cell_of_a_main_notebook_computes_an_answer(path):
    """No cell tagged ``solution``; every check gets ``my_answer``, and ``my_answer`` and
    ``answer`` are never given a value other than None."""
    problems = []
    for number, cell in enumerate(_cells(path), 1):
        if cell["cell_type"] != "code":
            continue
        source = _source(cell)
        first = source.strip().splitlines()[0][:60] if source.strip() else ""
        if "solution" in cell["metadata"].get("tags", ()):
            problems.append(f"cell {number} is tagged 'solution' ({first})")
        if re.search(r"^\s*assert\s+bmlab\.check\(", source, re.M):
            problems.append(f"cell {number} asserts a check ({first})")
        for exercise, argument in CHECK.findall(source):
            if argument.strip() != "my_answer":
                problems.append(f"cell {number} checks {exercise} with {argument.strip()!r}")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Name) and target.id in ("answer", "my_answer"):
                    given = isinstance(node.value, ast.Constant) and node.value.value is None
                    if not given:
                        problems.append(f"cell {number} computes {target.id} ({first})")
    assert not problems, f"{path.name}: " + "; ".join(problems) + f" — {_how(path)}"


def _revealed(exercise: str, text: str) -> list[str]:
    """Numbers printed in ``text`` with at least the exercise's decimals that check."""
    decimals = EXERCISES[exercise]["decimals"]
    found = []
    for match in DECIMAL.finditer(text.replace("−", "-")):
        written = match[0].split("e")[0].split("E")[0]
        if len(written.split(".")[1]) >= decimals and check(exercise, float(match[0])):
            found.append(match[0])
    return found


@pytest.mark.parametrize("path", MAIN, ids=lambda p: p.stem)
def test_no_stored_output_or_prose_of_a_main_notebook_shows_an_answer(path):
    """What Run All prints (the stored outputs; nbval holds them to it) and the prose never
    contain an answer that checks. Whole-number answers (decimals 0, counts) are left out:
    small integers are printed everywhere."""
    leaks = []
    for number, cell in enumerate(_cells(path), 1):
        texts = [_source(cell)] if cell["cell_type"] == "markdown" else []
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")))
            texts += ["".join(v) for k, v in out.get("data", {}).items() if k.startswith("text/")]
        for exercise in _ids(path):
            if EXERCISES[exercise]["decimals"] > 0:
                for text in texts:
                    leaks += [
                        f"cell {number}: {x} answers {exercise}" for x in _revealed(exercise, text)
                    ]
    assert not leaks, f"{path.name} shows answers: {leaks} — {_how(path)}"


@pytest.mark.parametrize("path", MAIN, ids=lambda p: p.stem)
def test_each_exercise_has_a_check_cell_and_a_link_to_its_solution(path):
    cells = _cells(path)
    checks = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            for exercise, argument in CHECK.findall(_source(cell)):
                if argument.strip() == "my_answer":
                    checks[exercise] = _source(cell)
    markdown = "\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")
    link = f"solutions/{solutions_of(path).name}#cell-id=Exercise-"
    problems = []
    for exercise in _ids(path):
        k = exercise.split(".")[1]
        source = checks.get(exercise)
        if source is None:
            problems.append(f"{exercise} has no check cell (bmlab.check({exercise!r}, my_answer))")
        elif not re.search(r"^my_answer = None\b", source, re.M):
            problems.append(f"the check cell of {exercise} does not start from my_answer = None")
        if f"]({link}{k})" not in markdown:
            problems.append(f"{exercise} has no link [worked solution]({link}{k})")
    assert len(_ids(path)) >= 3, f"{path.name}: fewer than 3 exercises in exercises.json"
    assert not problems, f"{path.name}: " + "; ".join(problems)


def _exercise_sections(path: Path) -> list[list]:
    """``[heading, code of the cells under it, id of the heading's cell]`` per ``##`` heading
    (repeated headings kept)."""
    sections, current = [], None
    for cell in _cells(path):
        if cell["cell_type"] == "markdown":
            for line in _source(cell).splitlines():
                heading = re.match(r"##\s+(.*)", line)
                if heading:
                    current = [heading[1].strip(), [], cell.get("id")]
                    sections.append(current)
        elif current is not None:
            current[1].append(_source(cell))
    return sections


@pytest.mark.parametrize("path", MAIN, ids=lambda p: p.stem)
def test_each_exercise_has_one_worked_solution_that_asserts_its_check(path):
    solutions = solutions_of(path)
    assert solutions.exists(), f"{path.name}: no solutions notebook — {_how(path)}"
    assert solutions.with_suffix(".py").exists(), f"{solutions.name} has no paired .py"
    sections = _exercise_sections(solutions)
    problems = []
    for exercise in _ids(path):
        k = exercise.split(".")[1]
        own = [code for heading, code, _ in sections if heading == f"Exercise {k}"]
        if len(own) != 1:
            problems.append(f"{len(own)} sections '## Exercise {k}' (want exactly one)")
            continue
        ids = [cell_id for heading, _, cell_id in sections if heading == f"Exercise {k}"]
        if ids != [f"Exercise-{k}"]:
            problems.append(
                f"'## Exercise {k}' has cell id {ids[0]!r}, not 'Exercise-{k}' (the links' "
                "anchor; python -m tools sync or execute gives it)"
            )
        code = "\n".join(own[0])
        if not re.search(rf"""^assert bmlab\.check\(["']{re.escape(exercise)}["'], """, code, re.M):
            problems.append(f"'## Exercise {k}' does not assert bmlab.check({exercise!r}, ...)")
        others = {e for e, _ in CHECK.findall(code)} - {exercise}
        if others:
            problems.append(f"'## Exercise {k}' also checks {sorted(others)}")
    known = {f"Exercise {e.split('.')[1]}" for e in _ids(path)}
    problems += [
        f"'## {h}' is no exercise of {path.name} (headings are exactly 'Exercise k': the "
        "links' anchors #cell-id=Exercise-k point to them)"
        for h, _, _ in sections
        if h.startswith("Exercise") and h not in known
    ]
    assert not problems, f"{solutions.relative_to(ROOT)}: " + "; ".join(problems)


def test_every_solutions_notebook_belongs_to_a_main_notebook():
    stems = {solutions_of(p).stem for p in MAIN}
    stray = [p.name for p in SOLUTIONS.glob("*.ipynb") if p.stem not in stems]
    assert not stray, f"solutions notebooks without a main notebook: {stray}"


# -- the tests above, on a converted notebook of their own --------------------------------------


def _write(path: Path, cells: list[tuple[str, str]]) -> Path:
    nb = {
        "cells": [
            {"cell_type": kind, "source": source, "metadata": {}}
            | ({"execution_count": 1, "outputs": []} if kind == "code" else {})
            for kind, source in cells
        ]
    }
    heading_ids(nb)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    path.with_suffix(".py").write_text("# paired\n")
    return path


@pytest.fixture
def converted(tmp_path, monkeypatch):
    """A main notebook 99 and its solutions notebook that follow the convention."""
    from bmlab.exercises import answer_hash

    fake = {
        f"99.{k}": {
            "decimals": 3,
            "sha256": answer_hash(f"99.{k}", 0.1 * k + 0.0123, 3),
            "hint": "h",
        }
        for k in (1, 2, 3)
    }
    monkeypatch.setattr(sys.modules[__name__], "EXERCISES", fake)
    monkeypatch.setattr("bmlab.exercises.EXERCISES", fake)
    monkeypatch.setattr(sys.modules[__name__], "SOLUTIONS", tmp_path / "solutions")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    main = [("markdown", "## Exercises")]
    solved = [("markdown", "# Solutions")]
    for k in (1, 2, 3):
        link = f"[worked solution](solutions/99_solutions.ipynb#cell-id=Exercise-{k})"
        main += [
            ("markdown", f"**{k} · Question.** To 3 decimals. {link}"),
            ("code", f'my_answer = None  # to 3 decimals\nbmlab.check("99.{k}", my_answer)'),
        ]
        solved += [
            ("markdown", f"## Exercise {k}\nWhy it is so."),
            ("code", f'answer = 0.1 * {k} + 0.0123\nassert bmlab.check("99.{k}", answer)'),
        ]
    _write(tmp_path / "solutions" / "99_solutions.ipynb", solved)
    return _write(tmp_path / "99_fake.ipynb", main)


CONVENTION = [
    test_no_cell_of_a_main_notebook_computes_an_answer,
    test_no_stored_output_or_prose_of_a_main_notebook_shows_an_answer,
    test_each_exercise_has_a_check_cell_and_a_link_to_its_solution,
    test_each_exercise_has_one_worked_solution_that_asserts_its_check,
]


def test_a_notebook_that_follows_the_convention_passes(converted):
    for test in CONVENTION:
        test(converted)


@pytest.mark.parametrize(
    ("test", "edit"),
    [
        (
            0,
            lambda nb: nb["cells"][2].update(
                source='my_answer = 0.1123\nbmlab.check("99.1", my_answer)'
            ),
        ),
        (
            1,
            lambda nb: nb["cells"][2].update(
                outputs=[{"output_type": "stream", "text": "p = 0.112"}]
            ),
        ),
        (2, lambda nb: nb["cells"][1].update(source="**1 · Question.** No link.")),
    ],
    ids=["answer computed", "answer printed", "link missing"],
)
def test_a_main_notebook_that_breaks_the_convention_fails(converted, test, edit):
    nb = json.loads(converted.read_text())
    edit(nb)
    converted.write_text(json.dumps(nb))
    with pytest.raises(AssertionError):
        CONVENTION[test](converted)


def test_a_solution_heading_without_its_cell_id_fails(converted):
    path = solutions_of(converted)
    nb = json.loads(path.read_text())
    nb["cells"][1]["id"] = "a1b2c3d4"  # '## Exercise 1', as jupytext names a new cell
    path.write_text(json.dumps(nb))
    with pytest.raises(AssertionError, match="cell id"):
        test_each_exercise_has_one_worked_solution_that_asserts_its_check(converted)


def test_a_solution_that_asserts_another_exercise_fails(converted):
    path = solutions_of(converted)
    nb = json.loads(path.read_text())
    nb["cells"][2]["source"] = 'answer = 0.2223\nassert bmlab.check("99.2", answer)'
    path.write_text(json.dumps(nb))
    with pytest.raises(AssertionError, match="does not assert"):
        test_each_exercise_has_one_worked_solution_that_asserts_its_check(converted)
