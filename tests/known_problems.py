"""Temporary allowances: problems today's notebooks are known to have (issue 26).

The figure audit (``figure_audit.py``) and the verdict-margin check (``verdict_margins.py``)
report inside each nbval kernel through :class:`Reporter`. A reported line of notebook ``nb``
that contains every string of an entry ``(nb, s1, s2, ...)`` of ``KNOWN`` is not printed
(so strict nbval passes) but logged as used. The list exists so that the checks could land
before the notebook fixes of issue 26; the lead removes each entry when its fix is merged,
and it cannot outlive its problem:

- ``conftest.py`` fails a pytest session in which a notebook ran every cell and an entry of
  that notebook for a kernel check (``IN_KERNEL``) matched nothing ("no longer match anything:
  remove them");
- ``tests/test_known_problems.py`` checks that each entry names a notebook, that the figure or
  expression of a kernel entry is still in that notebook's source, and that the static scans
  (``notebook_sources.py``) still find the problem of a static entry.

Add no entry for new work: fix the figure or the verdict instead.
"""

from __future__ import annotations

import os
import sys

#: (notebook stem, check, key, more strings): a reported line of the notebook that contains
#: the check's name ("figure audit", "verdict margin", "unchecked verdict", "chain samples"),
#: the key (a figure's file stem or title, a verdict's expression, a section heading) and every
#: further string is allowed. Found on 2026-12-03 by the first run of the checks (issue 26);
#: the notebooks' fixes are under way. Remove entries, never add them.
KNOWN: list[tuple[str, ...]] = [
]

IN_KERNEL = ("figure audit", "verdict margin")  #: checks that report from the nbval kernel
NOTEBOOK_ENV = "BMLAB_AUDIT_NOTEBOOK"  #: the stem of the notebook a kernel runs
USED_ENV = "BMLAB_AUDIT_USED"  #: file the kernel appends the indices of used entries to


def allowance(notebook: str, line: str) -> int | None:
    """Index in ``KNOWN`` of the first entry of ``notebook`` that matches ``line``."""
    for index, (stem, *parts) in enumerate(KNOWN):
        if stem == notebook and all(part in line for part in parts):
            return index
    return None


class Reporter:
    """Print a problem line to stderr unless a ``KNOWN`` entry allows it (then log its use).

    Parameters
    ----------
    notebook : str or None
        Stem of the notebook the kernel runs; None allows nothing (the figure audit's command
        line lists every problem).
    used_log : str or None
        File that receives the index of each entry used, one per line.
    """

    def __init__(self, notebook: str | None = None, used_log: str | None = None):
        self.notebook, self.used_log = notebook, used_log

    @classmethod
    def from_environ(cls) -> Reporter:
        return cls(os.environ.get(NOTEBOOK_ENV), os.environ.get(USED_ENV))

    def __call__(self, line: str) -> None:
        index = None if self.notebook is None else allowance(self.notebook, line)
        if index is None:
            print(line, file=sys.stderr, flush=True)
        elif self.used_log:
            with open(self.used_log, "a", encoding="utf-8") as log:
                log.write(f"{self.notebook}\t{index}\n")


def used(log_path: str) -> set[int]:
    """Indices of the entries a session's kernels used."""
    try:
        with open(log_path, encoding="utf-8") as log:
            return {int(line.split("\t")[1]) for line in log if line.strip()}
    except FileNotFoundError:
        return set()
