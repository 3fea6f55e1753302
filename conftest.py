"""Project-wide pytest configuration: notebooks are tests, and tests leave the checkout clean.

- ``pytest notebooks/`` needs no flags: notebooks run under strict nbval in the current
  environment, with the project's sanitizer (memory addresses, widget ids, embedded PNGs).
- Every figure a notebook shows is audited (``tests/figure_audit.py``), and every verdict it
  computes against a tolerance must hold by a factor of 100 (``tests/verdict_margins.py``):
  nbval's kernels start with an ``IPYTHONDIR`` whose startup file prints each problem to
  stderr, so strict nbval fails on the cell and shows the problem.
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
REPORTED = ("figure audit: ", "verdict margin: ")  #: prefixes of the kernel checks' lines


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = sys.modules.setdefault(name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def _figure_audit_ipython_dir(config) -> str:
    """A temporary IPYTHONDIR whose startup file audits every figure and checks the margin of
    every verdict (made once a session)."""
    if not hasattr(config, "_bmlab_audit_dir"):
        config._bmlab_audit_dir = tempfile.mkdtemp(prefix="bmlab-figure-audit-")
        _load("figure_audit", FIGURE_AUDIT).write_startup(Path(config._bmlab_audit_dir))
    return config._bmlab_audit_dir


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """nbval starts a notebook's kernel while it sets up the notebook's first cell: only that
    kernel gets the auditing IPYTHONDIR (other subprocesses of the tests never see it)."""
    if item.path.suffix != ".ipynb" or not FIGURE_AUDIT.exists():  # notebooks copied alone
        return (yield)
    saved = os.environ.get("IPYTHONDIR")
    os.environ["IPYTHONDIR"] = _figure_audit_ipython_dir(item.config)
    try:
        return (yield)
    finally:
        if saved is None:
            os.environ.pop("IPYTHONDIR", None)
        else:
            os.environ["IPYTHONDIR"] = saved


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """nbval reports an audit line only as "Unexpected output fields: {'stderr'}": show the
    lines themselves under the failure."""
    report = yield
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
    if hasattr(session.config, "_bmlab_audit_dir"):
        shutil.rmtree(session.config._bmlab_audit_dir, ignore_errors=True)
    before = getattr(session.config, "_bmlab_status_before", None)
    after = _git_status()
    if before is None or after is None or after == before:
        return
    changed = sorted(set(after.splitlines()) ^ set(before.splitlines()))
    _fail_session(session, "the test run changed the checkout (git status): " + "; ".join(changed))
