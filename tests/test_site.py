"""Readable without a kernel: stored figures and panel snapshots, links between notebooks, and
the offline static site of ``make site``.

Every figure a notebook stores is an ``<img>`` with a real alt text (``bmlab.panel.describe``),
and every link into another notebook names a cell id that the target has (JupyterLab scrolls to
it; tools/notebooks.py says why not to a heading). The site is built once into a temporary
folder with ``python -m tools site`` and opened from disk (file://) in headless Chromium with
every non-file request aborted: math must be typeset by the local MathJax without a console
error or a failed request (MathJax's fonts included), every image must load and carry its
description, every page is titled after its notebook, and axe-core finds no critical or serious
accessibility violation on any page (audited once MathJax has finished). Every link between
pages (the exercises' links to their worked solutions) must reach a page and an anchor of the
site. The browser tests skip without Chromium or Playwright, except with ``CI=true``.
"""

from __future__ import annotations

import html
import json
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
IMG = re.compile(r'<img alt="([^"]+)" src="data:image/png;base64,[A-Za-z0-9+/=]+">')
#: What a figure with neither titles nor axis labels is called: too little to describe it.
BARE = "Figure: "
PLACEHOLDER = "No description has been provided for this image"
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
def test_every_stored_panel_output_has_a_described_snapshot_and_a_title(path):
    """Stale until the notebook is re-executed (``make notebooks``) after a panel change."""
    for data in widget_outputs(path):
        alt = IMG.fullmatch(data.get("text/html", ""))
        assert alt, f"{path.name}: a widget output has no <img> snapshot with alt text"
        assert alt[1].startswith("Figure of the panel "), alt[1]
        assert data["text/plain"].startswith("bmlab panel"), data["text/plain"][:60]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_stored_figure_is_an_image_with_a_description(path):
    """A figure is stored as ``<img alt=...>`` (JupyterLab shows no alt text for image/png),
    and its description says more than "Figure": give the figure a title or axis labels, or
    ``fig.alt_text``. Stale until the notebook is re-executed after bmlab.use_style changed."""
    problems = []
    for number, cell in enumerate(nbformat.read(path, as_version=4).cells, 1):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                problems.append(f"cell {number}: an image/png output (no alt text in JupyterLab)")
            if "text/html" in data and "<img" in data["text/html"]:
                alt = IMG.fullmatch(data["text/html"])
                if not alt or html.unescape(alt[1]).strip() == BARE.strip():
                    problems.append(f"cell {number}: {data['text/html'][:80]!r}")
    assert not problems, f"{path.name} (re-execute it, python -m tools execute): {problems}"


def _cell_links(path):
    """``(target notebook, fragment)`` of each link of a notebook's Markdown into a notebook."""
    nb = json.loads(path.read_text())
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    for target, fragment in re.findall(r"\]\(([^)#\s]+\.ipynb)#([^)\s]+)\)", text):
        yield (path.parent / target).resolve(), fragment


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=lambda p: p.stem)
def test_every_link_into_a_notebook_names_a_cell_it_has(path):
    """``other.ipynb#cell-id=X``: JupyterLab opens ``other`` at cell X. A heading anchor
    (``#Exercise-1``) it looks up before the Markdown is rendered, and stays at the top."""
    broken = []
    for target, fragment in _cell_links(path):
        if not fragment.startswith("cell-id="):
            broken.append(f"#{fragment} (write #cell-id=...)")
        elif not target.is_file():
            broken.append(f"{target.name}: no such notebook")
        elif fragment[8:] not in {c.get("id") for c in json.loads(target.read_text())["cells"]}:
            broken.append(f"{target.name}#{fragment}: no such cell (python -m tools sync)")
    assert not broken, f"{path.name}: " + "; ".join(broken)


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=lambda p: p.stem)
def test_the_kernelspec_is_the_one_make_venv_and_binder_install(path):
    """JupyterLab writes the running kernel's spec into a notebook it opens: a notebook whose
    stored spec differs from the installed one shows as modified at once."""
    installs = [(bs.ROOT / name).read_text() for name in ("Makefile", "postBuild")]
    names = {m for text in installs for m in re.findall(r'--display-name "([^"]+)"', text)}
    spec = nbformat.read(path, as_version=4).metadata.kernelspec
    assert len(names) == 1 and spec.display_name in names and spec.name == "python3", (spec, names)


def test_every_worked_solution_link_is_checked():
    links = [link for path in NOTEBOOKS for link in _cell_links(path)]
    assert sum(fragment.startswith("cell-id=Exercise-") for _, fragment in links) >= 3 * 7


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
    console = []
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else 0)
    inaccessible, titles, undescribed = [], {}, []

    def audit(path):  # axe-core, after MathJax has typeset the page
        violations = bs.axe_violations(page, context={"exclude": [[CODE]]})
        if page.evaluate(MARK_TOKEN_STYLES):
            violations += bs.axe_violations(page, context={"include": [["[data-axe-sample]"]]})
        if violations:
            inaccessible.append(f"{path.relative_to(site)}:\n{bs.axe_report(violations)}")

    try:
        for path in pages:
            page.goto(path.as_uri(), wait_until="load")
            images = page.eval_on_selector_all(
                "img", "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)"
            )
            assert all(images), f"{path.name}: {images.count(False)} image(s) did not load"
            titles[path.name] = page.title()
            alts = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.alt)")
            undescribed += [f"{path.name}: {a!r}" for a in alts if a in (PLACEHOLDER, BARE, "")]
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
    assert not failed, f"failed requests: {failed[:5]}"
    assert not console, f"console errors and warnings: {console[:5]}"
    assert not undescribed, f"images without a description: {undescribed[:5]}"
    for path in pages[1:]:  # titled after the notebook's first heading, not its file name
        first = (
            nbformat.read(
                bs.ROOT / "notebooks" / path.relative_to(site).with_suffix(".ipynb"), as_version=4
            )
            .cells[0]
            .source.splitlines()[0]
        )
        assert titles[path.name] == first.lstrip("# ").strip(), (path.name, titles[path.name])
    assert not problems, "\n".join(problems)
    assert not inaccessible, (
        "critical or serious axe-core violations (fix docs/site_template):\n"
        + ("\n".join(inaccessible))
    )
