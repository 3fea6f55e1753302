"""Fixtures shared by several test modules."""

from __future__ import annotations

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
