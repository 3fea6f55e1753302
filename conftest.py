"""Project-wide pytest configuration: notebooks are tests, and tests leave the checkout clean.

- ``pytest notebooks/`` needs no flags: notebooks run under strict nbval in the current
  environment, with the project's sanitizer (memory addresses, widget ids, embedded PNGs).
- Every figure a notebook shows is audited (``tests/figure_audit.py``), and every verdict it
  computes against a tolerance must hold by a factor of 100 (``tests/verdict_margins.py``):
  nbval's kernels start with an ``IPYTHONDIR`` whose startup file prints each problem to
  stderr, so strict nbval fails on the cell and shows the problem. The temporary allowances
  of ``tests/known_problems.py`` are not printed; one that a complete run of its notebook no
  longer needs fails the session.
- A run that changes ``git status`` (a tracked file modified, an untracked file left behind)
  fails, so running notebooks and tests can never dirty a student's checkout.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent


def pytest_configure(config):
    option = config.option
    if getattr(option, "nbval_sanitize_with", "absent") is None:  # nbval present, not set
        option.nbval = option.nbval or not option.nbval_lax
        option.nbval_current_env = True
        option.nbval_sanitize_with = str(ROOT / "tests" / "nbval_sanitize.cfg")
    config._bmlab_status_before = _git_status()


FIGURE_AUDIT = ROOT / "tests" / "figure_audit.py"
KNOWN_PROBLEMS = ROOT / "tests" / "known_problems.py"
REPORTED = ("figure audit: ", "verdict margin: ")  #: prefixes of the kernel checks' lines


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = sys.modules.setdefault(name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def _figure_audit_ipython_dir(config) -> str:
    """A temporary IPYTHONDIR whose startup file audits every figure and checks the margin of
    every verdict (made once a session); the kernels log used allowances next to it."""
    if not hasattr(config, "_bmlab_audit_dir"):
        config._bmlab_audit_dir = tempfile.mkdtemp(prefix="bmlab-figure-audit-")
        _load("figure_audit", FIGURE_AUDIT).write_startup(Path(config._bmlab_audit_dir))
    return config._bmlab_audit_dir


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """nbval starts a notebook's kernel while it sets up the notebook's first cell: only that
    kernel gets the auditing IPYTHONDIR and the notebook's name (other subprocesses of the
    tests never see them)."""
    if item.path.suffix != ".ipynb" or not FIGURE_AUDIT.exists():  # notebooks copied alone
        return (yield)
    folder = _figure_audit_ipython_dir(item.config)
    kernel_env = {
        "IPYTHONDIR": folder,
        "BMLAB_AUDIT_NOTEBOOK": item.path.stem,
        "BMLAB_AUDIT_USED": str(Path(folder) / "allowances-used.log"),
    }
    saved = {key: os.environ.get(key) for key in kernel_env}
    os.environ.update(kernel_env)
    try:
        return (yield)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def pytest_collection_modifyitems(config, items):
    """Count each notebook's cells: an allowance is judged only after a complete run."""
    config._bmlab_cells = {}
    for item in items:
        if item.path.suffix == ".ipynb":
            config._bmlab_cells[item.path.stem] = config._bmlab_cells.get(item.path.stem, 0) + 1
    config._bmlab_cells_run = dict.fromkeys(config._bmlab_cells, 0)


def _unused_allowances(config) -> list[str]:
    """Allowances of the kernel checks for notebooks that ran every cell this session and
    needed none of them (the static scans' allowances are tests/test_known_problems.py's)."""
    folder = getattr(config, "_bmlab_audit_dir", None)
    if folder is None or not KNOWN_PROBLEMS.exists():
        return []
    known = _load("known_problems", KNOWN_PROBLEMS)
    used = known.used(str(Path(folder) / "allowances-used.log"))
    complete = {
        stem
        for stem, n in getattr(config, "_bmlab_cells", {}).items()
        if n and config._bmlab_cells_run.get(stem) == n
    }
    return [
        repr(entry)
        for index, entry in enumerate(known.KNOWN)
        if entry[0] in complete and entry[1] in known.IN_KERNEL and index not in used
    ]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """nbval reports an audit line only as "Unexpected output fields: {'stderr'}": show the
    lines themselves under the failure. Counts the cells of each notebook that ran."""
    report = yield
    run = getattr(item.config, "_bmlab_cells_run", {})
    if call.when == "call" and item.path.suffix == ".ipynb" and item.path.stem in run:
        run[item.path.stem] += 1
    outputs = getattr(item, "test_outputs", None) or []
    lines = [
        line
        for out in outputs
        if out.get("name") == "stderr"
        for line in "".join(out.get("text", "")).splitlines()
        if line.startswith(REPORTED)
    ]
    if report.failed and lines:
        title = "figure audit and verdict margins (tests/figure_audit.py, verdict_margins.py)"
        report.sections.append((title, "\n".join(lines)))
    return report


def _git_status() -> str | None:
    """``git status --porcelain`` of the checkout, or None outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout


def _fail_session(session, message: str) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line("FAILED: " + message, red=True)
    session.exitstatus = 1


def pytest_sessionfinish(session, exitstatus):
    unused = _unused_allowances(session.config)
    if hasattr(session.config, "_bmlab_audit_dir"):
        shutil.rmtree(session.config._bmlab_audit_dir, ignore_errors=True)
    if unused:
        _fail_session(
            session,
            "allowances of tests/known_problems.py that no longer match anything (the problem "
            "is fixed: remove them): " + "; ".join(unused),
        )
    before = getattr(session.config, "_bmlab_status_before", None)
    after = _git_status()
    if before is None or after is None or after == before:
        return
    changed = sorted(set(after.splitlines()) ^ set(before.splitlines()))
    _fail_session(session, "the test run changed the checkout (git status): " + "; ".join(changed))
