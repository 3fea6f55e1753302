"""Readable without a kernel: stored panel snapshots and the offline static site of ``make site``.

The site is built once into a temporary folder with ``python -m tools site`` and opened from disk
(file://) in headless Chromium with every non-file request aborted: math must be typeset by the
local MathJax, every image must load, and axe-core finds no critical or serious accessibility
violation on any page (audited once MathJax has finished). Every link between pages (the
exercises' links to their worked solutions) must reach a page and an anchor of the site. The
browser tests skip without Chromium or Playwright, except with ``CI=true``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.parse

import browser_support as bs
import nbformat
import pytest

NOTEBOOKS = sorted((bs.ROOT / "notebooks").glob("*.ipynb"))
SOLUTIONS = sorted((bs.ROOT / "notebooks" / "solutions").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
RAW_MATH = re.compile(r"\$[^$\s][^$]*\$")
#: Code cells: thousands of syntax-highlighting spans on one background. axe-core audits the
#: page without them, then one span per distinct token style (class, colour, weight, slant):
#: the same verdicts in about half the time (the contrast rule costs seconds per page).
CODE = ".jp-InputArea-editor"
MARK_TOKEN_STYLES = """() => {
    const seen = new Set();
    for (const e of document.querySelectorAll('.jp-InputArea-editor .highlight pre *')) {
        const s = getComputedStyle(e);
        const key = [e.className, s.color, s.backgroundColor, s.fontWeight, s.fontStyle].join();
        if (!seen.has(key)) { seen.add(key); e.setAttribute('data-axe-sample', ''); }
    }
    return seen.size;
}"""


def widget_outputs(path):
    nb = nbformat.read(path, as_version=4)
    return [
        out["data"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if WIDGET_VIEW in out.get("data", {})
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_stored_panel_output_has_a_png_snapshot_and_a_title(path):
    """Stale until the notebook is re-executed (``make notebooks``) after a panel change."""
    for data in widget_outputs(path):
        assert "image/png" in data, f"{path.name}: a widget output has no PNG snapshot"
        assert data["text/plain"].startswith("bmlab panel"), data["text/plain"][:60]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "tools", "site", str(out)],
        cwd=bs.ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


def _pages(site):
    return (
        [site / "index.html"]
        + [site / f"{p.stem}.html" for p in NOTEBOOKS]
        + [site / "solutions" / f"{p.stem}.html" for p in SOLUTIONS]
    )


def test_every_link_between_pages_reaches_a_page_and_an_anchor(site):
    broken = []
    for path in _pages(site):
        text = path.read_text()
        for href in re.findall(r'href="([^"]+)"', text):
            if re.match(r"[a-z]+:", href) or href.startswith("mathjax/"):
                continue  # absolute URLs (none load: the browser test aborts them)
            target, _, anchor = href.partition("#")
            page = (path.parent / target).resolve() if target else path
            if not page.is_file():
                broken.append(f"{path.relative_to(site)}: {href} (no such page)")
            elif anchor and not {f'id="{anchor}"', f'id="{urllib.parse.unquote(anchor)}"'} & set(
                re.findall(r'id="[^"]*"', page.read_text())
            ):
                broken.append(f"{path.relative_to(site)}: {href} (no such anchor)")
    assert not broken, "broken links: " + "; ".join(broken[:10])


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_site_is_offline_with_typeset_math_and_loaded_images(site, chromium):
    pages = _pages(site)
    links = {a for a in re.findall(r'href="([^"#]+)"', (site / "index.html").read_text())}
    assert links == {str(p.relative_to(site)) for p in pages[1:]}
    context = chromium.new_context(viewport=bs.VIEWPORT)
    outside, failed, problems = [], [], []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith("file://")
            else (outside.append(route.request.url), route.abort())
        ),
    )
    page = context.new_page()
    page.on("requestfailed", lambda request: failed.append(request.url))
    inaccessible = []

    def audit(path):  # axe-core, after MathJax has typeset the page
        violations = bs.axe_violations(page, context={"exclude": [[CODE]]})
        if page.evaluate(MARK_TOKEN_STYLES):
            violations += bs.axe_violations(page, context={"include": [["[data-axe-sample]"]]})
        if violations:
            inaccessible.append(f"{path.relative_to(site)}:\n{bs.axe_report(violations)}")

    # MathJax's hidden MathML (for screen readers) names TeX fonts that the package does not
    # ship; Chromium then asks for them inside site/ and falls back to the STIX-Web ones.
    optional = re.compile(r"^about:|/mathjax/fonts/HTML-CSS/TeX/otf/")
    try:
        for path in pages:
            page.goto(path.as_uri(), wait_until="load")
            images = page.eval_on_selector_all(
                "img", "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)"
            )
            assert all(images), f"{path.name}: {images.count(False)} image(s) did not load"
            if path.name == "index.html":
                audit(path)
                continue
            notebook = bs.ROOT / "notebooks" / path.relative_to(site).with_suffix(".ipynb")
            assert len(images) >= len(widget_outputs(notebook))
            page.evaluate("() => new Promise(done => MathJax.Hub.Queue(() => done(true)))")
            audit(path)
            assert page.locator(".MathJax, .MathJax_Display").count() > 0, path.name
            prose = page.eval_on_selector_all(
                ".jp-MarkdownOutput",
                "cells => cells.map(c => { const d = c.cloneNode(true);"
                " d.querySelectorAll('code, pre, script').forEach(e => e.remove());"
                " return d.textContent; })",
            )
            raw = [m for text in prose for m in RAW_MATH.findall(text)]
            if raw:  # e.g. a line inside $...$ that starts with "+ " became a list item
                problems.append(f"{path.name}: math left untypeset: {raw[:3]}")
    finally:
        context.close()
    assert not outside, f"requests left file://: {outside[:5]}"
    failed = [url for url in failed if not optional.search(url)]
    assert not failed, f"failed requests: {failed[:5]}"
    assert not problems, "\n".join(problems)
    assert not inaccessible, (
        "critical or serious axe-core violations (fix docs/site_template):\n"
        + ("\n".join(inaccessible))
    )
