"""Project-wide pytest configuration: notebooks are tests, and tests leave the checkout clean.

- ``pytest notebooks/`` needs no flags: notebooks run under strict nbval in the current
  environment, with the project's sanitizer (memory addresses, widget ids, embedded PNGs).
- A run that changes ``git status`` (a tracked file modified, an untracked file left behind)
  fails, so running notebooks and tests can never dirty a student's checkout.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def pytest_configure(config):
    option = config.option
    if getattr(option, "nbval_sanitize_with", "absent") is None:  # nbval present, not set
        option.nbval = option.nbval or not option.nbval_lax
        option.nbval_current_env = True
        option.nbval_sanitize_with = str(ROOT / "tests" / "nbval_sanitize.cfg")
    config._bmlab_status_before = _git_status()


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


def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, "_bmlab_status_before", None)
    after = _git_status()
    if before is None or after is None or after == before:
        return
    changed = sorted(set(after.splitlines()) ^ set(before.splitlines()))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(
            "FAILED: the test run changed the checkout (git status): " + "; ".join(changed),
            red=True,
        )
    session.exitstatus = 1
