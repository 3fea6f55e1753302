"""Fixtures shared by several test modules."""

from __future__ import annotations

import shutil
import subprocess
import sys

import browser_support as bs
import pytest


@pytest.fixture(scope="module")  # one Playwright at a time: each browser module starts its own
def chromium():
    """Headless Debian Chromium driven by Playwright (skips, or fails under CI, without it)."""
    sync_playwright = bs.require_browser()
    with sync_playwright() as playwright:
        browser = bs.launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def venv(tmp_path):
    """An empty venv for the built wheel (test_wheel, test_floors), removed afterwards: several
    hundred MB once the dependencies are in."""
    path = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
    yield path
    shutil.rmtree(path, ignore_errors=True)
