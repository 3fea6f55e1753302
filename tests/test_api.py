"""bmlab stays thin and has one shape: a core, its panels, one name per concept, small
functions, an export list that the notebooks use, panels listed in one registry."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bmlab
from bmlab.widgets import PANELS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "bmlab"
MODULES = sorted(PACKAGE.rglob("*.py"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
DASHBOARDS = sorted((ROOT / "dashboards").glob("*.ipynb"))
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))
#: Where a public name may be used for it to count as used (tests do not count).
USERS = [*NOTEBOOKS, *DASHBOARDS, *BENCHMARKS, *sorted((ROOT / "tools").glob("*.py")), *MODULES]
#: The spherical machine (notebook 06), the RBM's phase diagram (notebook 07) and the
#: spherical posterior (notebook 06b; its core module with its exports in bmlab/__init__.py)
#: are counted apart: each may add its own size, no more. Their panel modules are counted
#: apart from the panels' budget in the same way, each by its own size.
APART = {
    PACKAGE / "spherical.py",
    PACKAGE / "widgets" / "spherical.py",
    PACKAGE / "phases.py",
    PACKAGE / "widgets" / "phases.py",
    PACKAGE / "posterior.py",
    PACKAGE / "widgets" / "posterior.py",
}
#: Modules whose exports in bmlab/__init__.py are counted apart with them.
APART_EXPORTS = {"posterior"}
PANEL_MODULES = [p for p in MODULES if "widgets" in p.parts or p.name == "panel.py"]
CORE_MODULES = [p for p in MODULES if p not in PANEL_MODULES]
#: Line budgets (formatted code, docstrings included) and sizes of one function or class.
#: Issue 26 (section 5) gave every figure a notebook shows alt text: bmlab.panel.describe and
#: the display hook that use_style switches on (core +3, the call in use_style; the panels'
#: 48 lines are inside their 1400 below).
#: Issue 30 brought the core back to 2300 with bmlab/posterior.py and its exports counted apart.
#: Panels (issue 30): 1400, with builders that take no arguments (literal start values, one
#: line per control; tests drive panels through Panel.set) and figure helpers that return
#: (fig, draw); bmlab/widgets/spherical.py, phases.py and posterior.py (notebooks 06, 07,
#: 06b) count apart, and so do the two lines (import, registry entry) by which
#: bmlab/widgets/__init__.py lists each of their panels (3 x 2).
MAX_CORE, MAX_PANELS, MAX_FUNCTION = 2300, 1400 + 3 * 2, 80
MAX_CLASS = 300


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _apart_exports() -> int:
    """Lines of bmlab/__init__.py that import and list the names of APART_EXPORTS' modules."""
    tree, text = _tree(PACKAGE / "__init__.py"), (PACKAGE / "__init__.py").read_text()
    imports = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module in APART_EXPORTS
    ]
    names = {alias.name for node in imports for alias in node.names}
    listed = sum(line.strip() in {f'"{name}",' for name in names} for line in text.splitlines())
    return sum(node.end_lineno - node.lineno + 1 for node in imports) + listed


def _lines(paths) -> int:
    total = sum(len(path.read_text().splitlines()) for path in paths if path not in APART)
    return total - (_apart_exports() if PACKAGE / "__init__.py" in paths else 0)


def _public_definitions(path: Path) -> list[str]:
    """Top-level functions, classes and constants of a module whose names do not start with _."""
    names = []
    for node in _tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if not n.startswith("_") and n != "__version__"]


def _definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in MODULES:
        if path.name == "__init__.py" and path.parent == PACKAGE:
            continue
        for name in _public_definitions(path):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def test_no_public_name_is_defined_in_two_modules():
    twice = {name: where for name, where in _definitions().items() if len(where) > 1}
    assert not twice, f"one name per concept; defined in several modules: {twice}"


def test_every_public_name_is_used_outside_the_tests():
    texts = {path: path.read_text() for path in USERS}
    unused = []
    for name, (where,) in ((n, w[:1]) for n, w in _definitions().items()):
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        home = ROOT / where
        uses = sum(len(pattern.findall(text)) for path, text in texts.items() if path != home)
        # inside its own module a name counts as used when it appears beyond its definition
        if uses == 0 and len(pattern.findall(texts[home])) <= 1:
            unused.append(f"{where}: {name}")
    assert not unused, f"public names used by no notebook, dashboard, benchmark or module: {unused}"


def _used_through_bmlab(name: str) -> list[str]:
    """The notebooks, dashboards and benchmarks that use ``bmlab.<name>`` or import it with
    ``from bmlab import``."""
    imports = re.compile(r"from bmlab import \(?([\w\s,]+)\)?")
    users = []
    for path in [*NOTEBOOKS, *DASHBOARDS, *BENCHMARKS]:
        text = path.read_text()
        imported = {n.strip() for m in imports.finditer(text) for n in m.group(1).split(",")}
        if re.search(rf"\bbmlab\.{re.escape(name)}\b", text) or name in imported:
            users.append(path.name)
    return users


def test_the_export_list_is_what_notebooks_dashboards_and_benchmarks_use():
    unused = [name for name in bmlab.__all__ if not _used_through_bmlab(name)]
    assert not unused, f"in bmlab.__all__ but used by none through bmlab.: {unused}"
    # sorted as ruff (RUF022) sorts it: CONSTANTS, then Classes, then functions
    order = sorted(
        bmlab.__all__, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n)
    )
    assert bmlab.__all__ == order


def test_core_budget():
    """The core (exact enumeration, samplers, RBM, learning, data, plotting, checks, records,
    exercises): everything outside the panels, counted as ruff formats it."""
    lines = _lines(CORE_MODULES)
    assert lines <= MAX_CORE, f"bmlab's core has {lines} lines; the budget is {MAX_CORE}"


def test_panels_budget():
    """The panel mechanism (``bmlab/panel.py``) and the builders of ``bmlab/widgets/``."""
    lines = _lines(PANEL_MODULES)
    assert lines <= MAX_PANELS, f"the panels have {lines} lines; the budget is {MAX_PANELS}"


def test_the_budgets_count_formatted_code():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "bmlab"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"run `ruff format bmlab`:\n{result.stdout}{result.stderr}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_functions_and_classes_are_small(path):
    too_long = []
    for node in ast.walk(_tree(path)):
        limit = {ast.FunctionDef: MAX_FUNCTION, ast.ClassDef: MAX_CLASS}.get(type(node))
        if limit and node.end_lineno - node.lineno + 1 > limit:
            too_long.append(f"{node.name} ({node.end_lineno - node.lineno + 1} lines > {limit})")
    assert not too_long, too_long


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nothing_imports_back_from_the_widgets_package(path):
    """The registry imports the panel modules; no module imports the registry's package."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom):
            absolute = node.level == 0 and (node.module or "").startswith("bmlab.widgets")
            package = path.parent.name == "widgets" and node.level == 1 and node.module is None
            assert not (absolute or package), f"line {node.lineno} imports from bmlab.widgets"


def _number(path: Path) -> str:
    """A notebook's or dashboard's number: "06" of 06_spherical_machine, "06b" of 06b_..."""
    return path.name.split("_")[0]


def test_every_dashboard_shows_its_notebooks_panels_from_the_registry():
    numbers = {_number(path) for path in DASHBOARDS}
    assert set(PANELS) <= numbers, "a notebook with panels has no dashboard"
    notebooks = {_number(path) for path in NOTEBOOKS}
    assert set(PANELS) <= notebooks
    for path in DASHBOARDS:
        text = path.read_text()
        assert f'PANELS.get(\\"{_number(path)}\\"' in text, path.name
        assert "__module__" not in text, f"{path.name} picks panels by module"


def test_notebooks_train_one_way():
    """One training loop, reached one way: ``bmlab.train``."""
    for path in NOTEBOOKS:
        text = path.read_text()
        assert not re.search(r"from bmlab\.learning import|bmlab\.learning\.train", text), path
