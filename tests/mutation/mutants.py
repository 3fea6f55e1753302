"""The planted mistakes of ``make mutation``: plausible one-line slips in bmlab's core.

Each mutant names the module, a snippet that occurs there exactly once, its mutated form, and
the fast unit tests that cover the module. Keep the list in step with the code: a snippet
that no longer occurs makes ``run.py`` stop with the mutant's name.
"""

from __future__ import annotations

from typing import NamedTuple

#: Share of mutants the unit tests alone must kill (issue 16).
TARGET_SCORE = 0.95


class Mutant(NamedTuple):
    name: str
    module: str
    original: str
    mutated: str
    tests: tuple[str, ...]


EXACT = ("tests/test_exact.py",)

MUTANTS = [
    Mutant("exact: energy without the 1/2", "bmlab/exact.py",
           "-0.5 * np.einsum", "-1.0 * np.einsum", EXACT),
    Mutant("exact: energy with the bias sign flipped", "bmlab/exact.py",
           "S @ J, S) - S @ theta", "S @ J, S) + S @ theta", EXACT),
]
