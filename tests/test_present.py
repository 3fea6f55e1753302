"""Presentation mode: the Voila dashboards of ``make present`` render live widgets.

Starts Voila on 127.0.0.1 (free port, isolated Jupyter directories) on a copy of
``dashboards/``, opens every dashboard in headless Chromium, and checks that each shows its
panels (a widget and a figure image), or says that its notebook has no panel yet, that a
slider move reaches the kernel (the figure is redrawn), that at a 1920x1080 projector
the first panel uses the screen (figure width, font sizes, nothing below the fold), that no
text on the page is under 20 px, that no control's description is cut and that axe-core finds
no critical or serious violation; and that the index page lists every dashboard by title in
projector-sized links. Neither a dashboard nor the index logs a console error, fails a request
or asks any host but this machine for anything (``browser_support.PageProblems``). A page
that is left ends its kernel. Three fresh servers in a row each deliver a first page within
15 s. Screenshots go to ``artifacts/``. Skips without Chromium or Playwright, except with
``CI=true``.
"""

from __future__ import annotations

import json
import re
import sys
import time

import browser_support as bs
import pytest

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

DASHBOARD_DIR = bs.ROOT / "dashboards"
DASHBOARDS = sorted(DASHBOARD_DIR.glob("*.ipynb"))
PANEL = ".widget-vbox:has(> .widget-output)"
NO_PANEL_YET = "No live panel for this notebook yet"
OPEN_TIMEOUT = 120_000  # ms; measured about 4 s on a busy machine (the target is ~15 s)
READY_TIMEOUT = 15_000  # ms: the first page of a fresh server, with no reload
REDRAW_TIMEOUT = 30_000
PROJECTOR = {"width": 1920, "height": 1080}
# The first panel at a projector: what a student must read, measured in the browser.
LAYOUT = """panel => {
    const box = e => e.getBoundingClientRect();
    const img = panel.querySelector(':scope > .widget-output img');
    const out = box(panel.querySelector(':scope > .widget-output'));
    const scale = Math.min(box(img).width / img.naturalWidth, box(img).height / img.naturalHeight);
    const texts = Array.from(panel.querySelectorAll(
        '.widget-label, .widget-readout, :scope > .widget-html, select, button'))
        .filter(e => e.offsetParent && e.textContent.trim());
    return {
        page: document.documentElement.clientWidth, bottom: box(panel).bottom,
        figure: img.naturalWidth * scale, clipped: box(img).bottom > out.bottom + 1,
        small: texts.map(e => [e.textContent.trim().slice(0, 30),
                               parseFloat(getComputedStyle(e).fontSize)])
                    .filter(([, size]) => size < 20),
    };
}"""
#: Every visible text of the page under 20 px: [text, size] (the dashboard's intro included;
#: superscripts and subscripts, as in the Z ledger's e^-E, are set smaller on purpose).
SMALL_TEXT = """() => Array.from(document.querySelectorAll('#rendered_cells *, body > main *'))
    .filter(e => e.offsetParent && !e.closest('sup, sub') && Array.from(e.childNodes).some(
        n => n.nodeType === Node.TEXT_NODE && n.textContent.trim()))
    .map(e => [e.textContent.trim().slice(0, 40), parseFloat(getComputedStyle(e).fontSize)])
    .filter(([, size]) => size < 20)"""


def start_voila(base) -> bs.Server:
    """Voila as ``make present`` runs it (``python -m tools present`` from the repository
    root), on a copy of ``dashboards/``; ready for requests."""
    env = bs.isolated_env(base)
    root = bs.copy_tree(DASHBOARD_DIR, base / "root" / "dashboards")
    port = bs.free_port()
    server = bs.Server(
        [sys.executable, "-m", "tools", "present", f"--port={port}", str(root)],
        env=env,
        cwd=bs.ROOT,
        port=port,
        name="voila",
    )
    try:
        server.wait_ready("/")
    except Exception:
        server.stop()
        raise
    return server


@pytest.fixture(scope="module")
def voila_server(tmp_path_factory):
    bs.require_browser()
    server = start_voila(tmp_path_factory.mktemp("voila"))
    try:
        yield server
    finally:
        server.stop()


def test_dashboards_exist():
    assert DASHBOARDS, "dashboards/ has no notebook for make present"


@pytest.mark.parametrize("dashboard", DASHBOARDS, ids=lambda p: p.stem)
def test_dashboard_renders_live_panels(voila_server, chromium, dashboard):
    bs.ARTIFACTS.mkdir(exist_ok=True)
    context = chromium.new_context(viewport=PROJECTOR)
    page = context.new_page()
    kernel_frames = []  # frames received on the page's websocket to its kernel

    def on_websocket(ws):
        if "/api/kernels/" in ws.url:
            ws.on("framereceived", lambda frame: kernel_frames.append(frame))

    page.on("websocket", on_websocket)
    problems = bs.PageProblems(page)
    try:
        start = time.monotonic()
        first = page.locator(f"{PANEL} .widget-output img, :text('{NO_PANEL_YET}')").first
        page.goto(
            f"{voila_server.url}/voila/render/{dashboard.name}",
            wait_until="commit",
            timeout=OPEN_TIMEOUT,
        )
        try:
            first.wait_for(timeout=OPEN_TIMEOUT)
        except Exception as err:
            body = page.locator("body").inner_text()[:3000]
            page.screenshot(path=str(bs.ARTIFACTS / f"present-{dashboard.stem}-FAILED.png"))
            raise AssertionError(f"{dashboard.name}: no panel; page says:\n{body}") from err
        ready = time.monotonic() - start
        text = page.locator("body").inner_text()
        assert not re.search(r"Traceback|There was an error", text), text[:3000]
        panels = page.locator(PANEL)
        if panels.count() == 0:
            assert NO_PANEL_YET in text
            pytest.skip(f"{dashboard.name}: no panel registered for this notebook yet")
        assert page.locator(".jupyter-widgets").count() > 0
        image = panels.first.locator(":scope > .widget-output img").first
        image.wait_for(timeout=REDRAW_TIMEOUT)
        assert image.evaluate("img => img.complete && img.naturalWidth > 0")
        # The first panel uses the projector: the figure spans >= 75 % of the page, every
        # label, readout and status line is >= 20 px, and the panel ends above the fold.
        layout = panels.first.evaluate(LAYOUT)
        assert layout["figure"] >= 0.75 * layout["page"], (dashboard.name, layout)
        assert not layout["clipped"], f"{dashboard.name}: the figure is cut off"
        assert not layout["small"], f"{dashboard.name}: text under 20 px: {layout['small']}"
        assert layout["bottom"] <= PROJECTOR["height"], (dashboard.name, layout)

        # The kernel behind the dashboard is live: a slider move redraws the figure.
        live = [
            i
            for i in range(panels.count())
            if not panels.nth(i).locator("button", has_text="Run").count()
            and panels.nth(i).locator(".noUi-handle").count()
        ]
        if live:
            # Widgets show as soon as the executed page arrives; they are live only once the
            # page's websocket to the kernel carries messages.
            deadline = time.monotonic() + OPEN_TIMEOUT / 1000
            while not kernel_frames and time.monotonic() < deadline:
                page.wait_for_timeout(100)
            assert kernel_frames, f"{dashboard.name}: no message from the kernel"
            panel = panels.nth(live[0])
            image = panel.locator(":scope > .widget-output img").first
            before = image.get_attribute("src")
            handle = panel.locator(".noUi-handle").first
            handle.scroll_into_view_if_needed()
            # The page can show the executed widgets a moment before its websocket to the
            # kernel is up; a move in that moment is lost, so move again, as a person would.
            for attempt in range(1, 4):
                handle.focus()
                at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute(
                    "aria-valuemax"
                )
                handle.press("ArrowLeft" if at_max else "ArrowRight")
                try:
                    page.wait_for_function(
                        bs.IMAGE_REDRAWN,
                        arg=[panel.element_handle(), before],
                        timeout=REDRAW_TIMEOUT // 3,
                    )
                    break
                except Exception:
                    if attempt == 3:
                        raise
        # Every control's description shows in full; axe finds nothing critical or serious
        # (panel images carry alt text, slider handles a name, texts enough contrast).
        cut = page.evaluate(bs.CUT_LABELS, page.locator("body").element_handle())
        assert not cut, f"{dashboard.name}: control descriptions cut: {cut}"
        small = page.evaluate(SMALL_TEXT)
        assert not small, f"{dashboard.name}: text under 20 px: {small}"
        assert not problems.list(), f"{dashboard.name}: {problems.list()}"
        start = time.monotonic()
        violations = bs.axe_violations(page)
        audit = time.monotonic() - start
        assert not violations, f"{dashboard.name}: axe:\n{bs.axe_report(violations)}"
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(bs.ARTIFACTS / f"present-{dashboard.stem}.png"))
        line = (
            f"{dashboard.name}: first panel ready {ready:.1f} s, {panels.count()} panel(s), "
            f"figure {layout['figure'] / layout['page']:.0%} of the page width, "
            f"axe audit {audit:.1f} s"
        )
        print(line)
        with open(bs.ARTIFACTS / "present-timings.txt", "a") as fh:
            fh.write(line + "\n")
    finally:
        context.close()


#: Each link of the index page: its target, text, font size, line boxes and where it ends.
INDEX = """() => Array.from(document.querySelectorAll('a')).map(a => {
    const box = a.getBoundingClientRect();
    return {href: a.getAttribute('href'), text: a.textContent.trim(),
            lines: a.getClientRects().length, size: parseFloat(getComputedStyle(a).fontSize),
            right: box.right, bottom: box.bottom};
})"""


def test_index_lists_every_dashboard_by_title_at_projector_size(voila_server, chromium):
    """The page ``make present`` opens on lists every dashboard of the folder, in file order,
    by its notebook's title (its first heading): one line each, links of at least 32 px, all on
    one 1920x1080 screen; axe-core finds nothing critical or serious."""
    titles = [  # the first line of each dashboard's first cell, a "# " heading
        "".join(json.loads(path.read_text())["cells"][0]["source"]).split("\n")[0][2:].strip()
        for path in DASHBOARDS
    ]
    context = chromium.new_context(viewport=PROJECTOR)
    try:
        page = context.new_page()
        problems = bs.PageProblems(page)
        page.goto(voila_server.url + "/", timeout=OPEN_TIMEOUT)
        links = page.evaluate(INDEX)
        got = [(link["href"], link["text"]) for link in links]
        assert got == [
            (f"/voila/render/{p.name}", t) for p, t in zip(DASHBOARDS, titles, strict=True)
        ], got
        for link in links:
            assert link["size"] >= 32 and link["lines"] == 1, link
            assert link["right"] <= PROJECTOR["width"] and link["bottom"] <= PROJECTOR["height"]
        violations = bs.axe_violations(page)
        assert not violations, f"index: axe:\n{bs.axe_report(violations)}"
        assert not page.evaluate(SMALL_TEXT)
        assert not problems.list(), f"index: {problems.list()}"
        page.screenshot(path=str(bs.ARTIFACTS / "present-index.png"))
    finally:
        context.close()


def kernel_of(page) -> str:
    """The id of the kernel behind a Voila page (from the page's configuration)."""
    return page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )


def wait_kernel_gone(server, kernel: str, prefix: str = "/", timeout: float = 15.0) -> float:
    """Seconds until ``GET <prefix>api/kernels/<id>`` answers 404; fails after ``timeout``."""
    import urllib.error

    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            server.get_json(f"{prefix}api/kernels/{kernel}")
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return time.monotonic() - start
            raise
        time.sleep(0.25)
    raise AssertionError(f"kernel {kernel} still runs {timeout:.0f} s after its page closed")


def test_a_closed_dashboard_ends_its_kernel(voila_server, chromium):
    """A closed page asks the server to end its kernel, even when it was opened directly
    rather than from the index (the page makes the XSRF cookie the request needs), and the
    server does. (Leaving a page for another does the same: tests/test_hub.py.)"""
    context = chromium.new_context(viewport=PROJECTOR)
    try:
        page = context.new_page()
        page.goto(f"{voila_server.url}/voila/render/{DASHBOARDS[1].name}", timeout=OPEN_TIMEOUT)
        page.locator(f"{PANEL} .widget-output img").first.wait_for(timeout=OPEN_TIMEOUT)
        kernel = kernel_of(page)
        assert voila_server.get_json(f"/api/kernels/{kernel}")["id"] == kernel
        page.close(run_before_unload=True)
        print(f"kernel ended {wait_kernel_gone(voila_server, kernel):.1f} s after its page closed")
    finally:
        context.close()


def test_fresh_servers_deliver_the_first_page(chromium, tmp_path):
    """Three fresh starts in a row: each first page is ready within 15 s, never reloaded."""
    first = DASHBOARDS[0]
    times = []
    for attempt in range(3):
        server = start_voila(tmp_path / f"start{attempt}")
        context = chromium.new_context(viewport=PROJECTOR)
        try:
            page = context.new_page()
            start = time.monotonic()
            page.goto(
                f"{server.url}/voila/render/{first.name}",
                wait_until="commit",
                timeout=READY_TIMEOUT,
            )
            try:
                page.locator(f"{PANEL} .widget-output img").first.wait_for(
                    timeout=max(1, READY_TIMEOUT - 1000 * (time.monotonic() - start))
                )
            except Exception as err:
                body = page.locator("body").inner_text()[:300]
                raise AssertionError(
                    f"fresh start {attempt + 1}: no panel after {READY_TIMEOUT / 1000:.0f} s; "
                    f"page says {body!r}; earlier starts {times}"
                ) from err
            times.append(round(time.monotonic() - start, 1))
        finally:
            context.close()
            server.stop()
    print(f"{first.name} on three fresh servers: first page ready after {times} s")


def test_make_present_serves_dashboards():
    """``make present`` serves the light dashboards the way these tests start Voila."""
    makefile = (bs.ROOT / "Makefile").read_text()
    recipe = re.search(r"^present:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, "Makefile has no present target"
    # start_voila runs the same command, so what the tests check is what an instructor gets
    assert "\t$(PY) -m tools present --port=$(VOILA_PORT) dashboards\n" in recipe.group(1)
