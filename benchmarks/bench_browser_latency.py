"""Browser-side widget latency: slider key press -> new figure image in JupyterLab's DOM.

For every live (non-training) panel of the registry ``bmlab.widgets.PANELS``: builds the panel in a
scratch notebook (screen style, as the notebooks use) in a real JupyterLab driven by headless
Chromium (the machinery of ``tests/browser_support.py``), focuses its first slider and presses
an arrow key N times (a panel of buttons only: clicks the button after the selected one of its
first group, N times). The page itself times each press: from the ``keydown`` (or ``click``)
event to the moment a new image arrives in the panel's output area (a MutationObserver), so
Playwright's own round trips are not counted. The target is a median <= 150 ms. Times are
measured in this one run on this machine, whatever else it is doing (the load average is
printed).

    .venv/bin/python benchmarks/bench_browser_latency.py [--presses 20] [--panels NAME ...]

Needs Chromium (``apt-get install -y chromium``) and Playwright (in requirements.lock).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import browser_support as bs

TARGET_MEDIAN = 0.150
PANEL = ".jp-Notebook .widget-vbox:has(> .widget-output)"
# Installed once per panel: timestamps of key presses and of new images in the output area.
WATCH = """panel => {
    panel.__presses = []; panel.__images = [];
    panel.addEventListener('keydown', () => panel.__presses.push(performance.now()), true);
    panel.addEventListener('click', () => panel.__presses.push(performance.now()), true);
    new MutationObserver(() => {
        const img = panel.querySelector(':scope > .widget-output img');
        const src = img && img.getAttribute('src');
        if (src && src !== panel.__src) {
            panel.__src = src;
            panel.__images.push(performance.now());
        }
    }).observe(panel.querySelector(':scope > .widget-output'),
               {subtree: true, childList: true, attributes: true, attributeFilter: ['src']});
    panel.__src = panel.querySelector(':scope > .widget-output img').getAttribute('src');
}"""


def scratch_notebook(names: list[tuple[str, str]]) -> dict:
    """A notebook with one cell per panel (the last expression displays the panel)."""
    cells = ["import bmlab\nfrom bmlab.widgets import PANELS\n\nbmlab.use_style()"]
    cells += [f'PANELS["{nb}"]["{name}"]()' for nb, name in names]
    return {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": src,
            }
            for src in cells
        ],
        "metadata": {
            "kernelspec": {
                "name": "python3",
                "display_name": "Python 3 (bmlab)",
                "language": "python",
            }
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def measure_panel(page, panel, presses: int) -> list[float]:
    """Press an arrow key on the panel's first slider (or, in a panel of buttons only, click
    through its first group of buttons); seconds from each press to its image."""
    panel.scroll_into_view_if_needed()
    panel.evaluate(WATCH)
    slider = panel.locator(".noUi-handle").first
    buttons = panel.locator(".widget-toggle-buttons").first.locator("button")
    key = "ArrowRight"
    for i in range(presses):
        if slider.count():  # arrow keys on the first slider, turning back at either end
            if slider.get_attribute("aria-valuenow") == slider.get_attribute("aria-valuemax"):
                key = "ArrowLeft"
            elif slider.get_attribute("aria-valuenow") == slider.get_attribute("aria-valuemin"):
                key = "ArrowRight"
            slider.press(key)
        else:  # a panel of buttons only: click the button after the selected one
            selected = buttons.evaluate_all(
                "bs => bs.findIndex(b => b.classList.contains('mod-active'))"
            )
            buttons.nth((selected + 1) % buttons.count()).click()
        page.wait_for_function(
            "([p, n]) => p.__images.length >= n",
            arg=[panel.element_handle(), i + 1],
            timeout=30_000,
        )
        page.wait_for_timeout(150)  # let the kernel go idle: one update at a time
    times = panel.evaluate("p => p.__images.map((t, i) => t - p.__presses[i])")
    return [t / 1000 for t in times]


def main(argv=None) -> int:
    from bmlab.widgets import PANELS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=20, help="key presses per panel")
    parser.add_argument("--panels", nargs="*", help="panel names (default: every live panel)")
    args = parser.parse_args(argv)
    names = [  # (notebook, panel name) of every live panel, or of the panels asked for
        (nb, name)
        for nb, panels in PANELS.items()
        for name, build in panels.items()
        if (name in args.panels if args.panels else not build().training)
    ]

    sync_playwright = bs.require_browser()
    base = Path(tempfile.mkdtemp(prefix="bmlab-latency-"))
    env = bs.isolated_env(base)
    bs.write_lab_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    root = base / "root"
    root.mkdir()
    (root / "latency.ipynb").write_text(json.dumps(scratch_notebook(names)))
    port = bs.free_port()
    server = bs.Server(
        bs.lab_argv(port, root, "--LabApp.expose_app_in_browser=True"),
        env=env,
        cwd=root,
        port=port,
        name="latency-lab",
    )
    print(
        f"bench_browser_latency: {len(names)} panel(s), {args.presses} presses each, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"slider key press -> new image in JupyterLab's DOM; target median <= "
        f"{TARGET_MEDIAN * 1e3:.0f} ms\n"
    )
    header = f"{'panel':<22} {'median':>7} {'worst':>7} {'n':>3}  verdict"
    print(header + "\n" + "-" * len(header))
    try:
        server.wait_ready("/api/status")
        with sync_playwright() as playwright:
            browser = bs.launch_chromium(playwright)
            page = browser.new_context(viewport=bs.VIEWPORT).new_page()
            page.goto(f"{server.url}/lab/tree/latency.ipynb?reset", timeout=60_000)
            page.locator("#jp-main-statusbar").get_by_text("Idle").first.wait_for(timeout=90_000)
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            panels = page.locator(PANEL)
            panels.nth(len(names) - 1).locator(":scope > .widget-output img").wait_for(
                timeout=240_000
            )
            for i, (_, name) in enumerate(names):
                times = measure_panel(page, panels.nth(i), args.presses)
                median = statistics.median(times)
                verdict = "ok" if median <= TARGET_MEDIAN else "MISSED target"
                print(
                    f"{name:<22} {median * 1e3:5.0f}ms {max(times) * 1e3:5.0f}ms "
                    f"{len(times):>3}  {verdict}",
                    flush=True,
                )
            browser.close()
    finally:
        server.stop()
    print(f"\nload average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
