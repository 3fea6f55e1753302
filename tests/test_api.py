"""bmlab stays thin: one name per concept, no name that only tests use, small functions."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted((ROOT / "bmlab").rglob("*.py"))
#: Where a public name may be used for it to count as used (tests do not count).
USERS = [
    *sorted((ROOT / "notebooks").glob("*.py")),
    *sorted((ROOT / "dashboards").glob("*.ipynb")),
    *sorted((ROOT / "benchmarks").glob("*.py")),
    *sorted((ROOT / "docs").glob("*.py")),
    *MODULES,
]
MAX_LINES, MAX_FUNCTION, MAX_CLASS = 3500, 80, 300


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _public_definitions(path: Path) -> list[str]:
    """Top-level functions, classes and constants of a module whose names do not start with _."""
    names = []
    for node in _tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [n for n in names if not n.startswith("_") and n != "__version__"]


def _definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in MODULES:
        if path.name == "__init__.py":
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


def test_bmlab_is_thin():
    lines = sum(len(path.read_text().splitlines()) for path in MODULES)
    assert lines <= MAX_LINES, f"bmlab has {lines} lines; the target is <= {MAX_LINES}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT / "bmlab")))
def test_functions_and_classes_are_small(path):
    too_long = []
    for node in ast.walk(_tree(path)):
        limit = {ast.FunctionDef: MAX_FUNCTION, ast.ClassDef: MAX_CLASS}.get(type(node))
        if limit and node.end_lineno - node.lineno + 1 > limit:
            too_long.append(f"{node.name} ({node.end_lineno - node.lineno + 1} lines > {limit})")
    assert not too_long, too_long
