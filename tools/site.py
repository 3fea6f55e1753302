"""``python -m tools site``: the offline static site of the executed notebooks (``make site``).

One HTML page per notebook (nbconvert with ``docs/site_template``: stored outputs only, live
panels as their PNG snapshots) plus ``index.html``, and MathJax 2 copied from the
``jupyter-server-mathjax`` package, so no page loads anything from outside ``site/``.
"""

from __future__ import annotations

import html
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
</head><body>
<h1>bmlab: the Boltzmann machine, notebook by notebook</h1>
<p>The executed notebooks, readable without a kernel. Live panels appear as snapshots of their
figures; run <code>make lab</code> to move their controls.</p>
<ol>
{items}
</ol>
</body></html>
"""


def title_of(nb) -> str:
    """The notebook's first Markdown heading, without the leading hashes."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return "notebook"


def build_site(out: Path, notebooks: list[Path] | None = None) -> Path:
    """Write ``out/index.html``, one page per notebook (default: every notebook of
    ``notebooks/``) and ``out/mathjax/``; return the index page."""
    if notebooks is None:
        notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    out.mkdir(parents=True, exist_ok=True)
    mathjax = Path(jupyter_server_mathjax.__file__).parent / "static"
    shutil.copytree(mathjax, out / "mathjax", dirs_exist_ok=True)
    exporter = HTMLExporter(
        template_name=TEMPLATE.name, extra_template_basedirs=[str(TEMPLATE.parent)]
    )
    items = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        (out / f"{path.stem}.html").write_text(body, encoding="utf-8")
        title = html.escape(title_of(nb))
        items.append(f'<li><a href="{path.stem}.html">{title}</a></li>')
    (out / "index.html").write_text(INDEX.format(items="\n".join(items)), encoding="utf-8")
    return out / "index.html"
