"""The mutation list of ``make mutation`` stays in step with the code (CONTRIBUTING, "Mutation
check"): every planted mistake's snippet occurs exactly once in its module, so a refactor that
stales the list fails here, fast, instead of in the slow mutation run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutants", ROOT / "tests/mutation/mutants.py")
mutants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutants)


@pytest.mark.parametrize("mutant", mutants.MUTANTS, ids=lambda m: m.name)
def test_snippet_occurs_exactly_once_and_tests_exist(mutant):
    source = (ROOT / mutant.module).read_text()
    assert source.count(mutant.original) == 1, f"stale mutant {mutant.name!r}: update its snippet"
    assert mutant.mutated != mutant.original
    assert mutant.tests and all((ROOT / t).is_file() for t in mutant.tests)
    assert not any("browser" in t or t.startswith("notebooks") for t in mutant.tests)


def test_names_are_unique_and_the_list_is_large():
    names = [m.name for m in mutants.MUTANTS]
    assert len(names) == len(set(names)) and len(names) >= 50
