"""The temporary allowances of ``known_problems.py``: they silence exactly their problem, and
each still points at one (remove an entry when its fix lands; conftest.py fails a session
in which a notebook ran whole and one of its entries matched nothing)."""

from __future__ import annotations

import ast

import known_problems as kp
import notebook_sources as sources
import pytest
import verdict_margins as vm

CHECKS = ("figure audit", "verdict margin", "unchecked verdict", "chain samples")


def test_an_allowance_silences_its_line_and_logs_its_use(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(kp, "KNOWN", [("01_x", "figure audit", "fig01_y", "touches")])
    log = tmp_path / "used.log"
    report = kp.Reporter("01_x", str(log))
    report("figure audit: fig01_y 'a' — the legend of axes 1 touches its left axis line")
    report("figure audit: fig01_y 'a' — texts overlap: 'a' and 'b'")
    kp.Reporter("02_x", str(log))("figure audit: fig01_y 'a' — the legend touches it")
    kp.Reporter(None, str(log))("figure audit: fig01_y 'a' — the legend touches it")
    assert capsys.readouterr().err.splitlines() == [
        "figure audit: fig01_y 'a' — texts overlap: 'a' and 'b'",
        "figure audit: fig01_y 'a' — the legend touches it",
        "figure audit: fig01_y 'a' — the legend touches it",
    ]
    assert kp.used(str(log)) == {0}
    assert kp.used(str(tmp_path / "missing.log")) == set()


def _expressions(path) -> set[str]:
    texts = set()
    for source in sources.code_cells(path):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Compare, ast.Call)):
                texts.add(vm._short(ast.unparse(node)))
    return texts


@pytest.mark.parametrize("index", range(len(kp.KNOWN)))
def test_each_allowance_still_points_at_its_problem(index):
    """A figure allowance names a figure its notebook still draws, a verdict allowance an
    expression it still computes, a static allowance a line the static check still finds."""
    entry = kp.KNOWN[index]
    stem, check, key, *_ = entry
    paths = [p for p in sources.NOTEBOOKS if p.stem == stem]
    assert paths, f"{entry}: no notebook {stem}"
    assert check in CHECKS, f"{entry}: the second string names the check, one of {CHECKS}"
    path = paths[0]
    if check == "figure audit":
        assert key in "\n".join(sources.code_cells(path)), f"{entry}: {key!r} is not drawn"
    elif check == "verdict margin":
        assert key in _expressions(path), f"{entry}: {key!r} is no longer computed"
    else:
        found = sources.unchecked_lines(path) + sources.unshown_chains(path)
        assert any(kp.allowance(stem, line) == index for line in found), f"{entry}: fixed"
