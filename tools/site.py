"""``python -m tools site``: the offline static site of the executed notebooks (``make site``).

One HTML page per notebook (nbconvert with ``docs/site_template``: stored outputs only, live
panels as their PNG snapshots), the worked solutions of ``notebooks/solutions/`` in
``site/solutions/``, ``index.html``, and MathJax 2 copied from the ``jupyter-server-mathjax``
package, so no page loads anything from outside ``site/``. Links between notebooks
(``solutions/01_solutions.ipynb#cell-id=Exercise-1``) point to their pages, whose cells carry
the same ids. A page's title is its notebook's first heading.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import jupyter_server_mathjax
import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "docs" / "site_template"
INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>bmlab notebooks</title>
<style>body {{font-family: sans-serif; max-width: 48em; margin: 2em auto; line-height: 1.5}}</style>
</head><body><main>
<h1>bmlab: the Boltzmann machine, notebook by notebook</h1>
<p>The executed notebooks, readable without a kernel. Live panels appear as snapshots of their
figures; run <code>make lab</code> to move their controls.</p>
<ol>
{items}
</ol>
{solutions}
</main></body></html>
"""


def title_of(nb) -> str:
    """The notebook's first Markdown heading, without the leading hashes."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return "notebook"


_NOTEBOOK_LINK = re.compile(r'href="(?![a-z]+:)([^"#]+)\.ipynb(#[^"]*)?"')


def page(exporter: HTMLExporter, path: Path, site_root: str) -> tuple[str, str]:
    """The HTML page of one notebook (links to notebooks turned into links to their pages)
    and its title."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata["title"] = title = title_of(nb)  # the page's <title>, not the file name
    resources = {"metadata": {"name": path.stem}, "site_root": site_root}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return _NOTEBOOK_LINK.sub(r'href="\1.html\2"', body), title


def build_site(out: Path) -> Path:
    """Write ``out/index.html``, one page per notebook of ``notebooks/``, the solutions of
    ``notebooks/solutions/`` in ``out/solutions/`` and ``out/mathjax/``; return the index."""
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    solutions = sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))
    out.mkdir(parents=True, exist_ok=True)
    mathjax = Path(jupyter_server_mathjax.__file__).parent / "static"
    shutil.copytree(mathjax, out / "mathjax", dirs_exist_ok=True)
    exporter = HTMLExporter(
        template_name=TEMPLATE.name, extra_template_basedirs=[str(TEMPLATE.parent)]
    )
    items, solved = [], []
    for path in notebooks:
        body, title = page(exporter, path, "")
        (out / f"{path.stem}.html").write_text(body, encoding="utf-8")
        items.append(f'<li><a href="{path.stem}.html">{html.escape(title)}</a></li>')
    if solutions:
        (out / "solutions").mkdir(exist_ok=True)
    for path in solutions:
        body, title = page(exporter, path, "../")
        (out / "solutions" / f"{path.stem}.html").write_text(body, encoding="utf-8")
        solved.append(f'<li><a href="solutions/{path.stem}.html">{html.escape(title)}</a></li>')
    listing = "<h2>Worked solutions</h2>\n<ol>\n" + "\n".join(solved) + "\n</ol>" if solved else ""
    text = INDEX.format(items="\n".join(items), solutions=listing)
    (out / "index.html").write_text(text, encoding="utf-8")
    return out / "index.html"
