"""Static checks over the notebooks' sources and stored outputs (no kernel needed).

- :func:`unchecked_lines`: verdicts that the kernel's margin check (``verdict_margins.py``)
  cannot see;
- :func:`unshown_chains`: sections that draw what a Markov chain sampled (Glauber, parallel
  tempering, block Gibbs) but whose compared outputs show no distance to the law or mixing
  diagnostic beside it. A sample offered as *the model's* is an exact draw where enumeration
  reaches (``bmlab.sample_exact``, the enumerated law of an RBM), else a chain with its
  distance (TV, KL) or a convergence diagnostic printed; whether the text *offers* it as the
  model's, and whether the printed distance is the right one, stays the reviewer's.

Each line names the notebook cell or section it is about.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import verdict_margins as vm

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "notebooks" / "solutions").glob("*.ipynb")
)
NOT_COMPARED = {"nbval-ignore-output", "nbval-skip"}
#: Calls that draw from a Markov chain rather than from the law itself.
CHAIN = re.compile(
    r"\bglauber_run\(|\bglauber_sample\(|\bparallel_tempering\(|\.gibbs\("
    r"|\.sample\([^)]*\bn_steps\s*="
)
#: Calls that draw a figure of what they are given.
DRAWS = re.compile(r"\.(?:imshow|hist|bar|barh|stairs|plot|scatter|errorbar|step)\(|\bgrid\(")
#: What a compared output says when it shows how far a chain is from its law.
DISTANCE = re.compile(
    r"\bTV\b|total variation|distance|\bKL\b|autocorrelation|τ_int|tau_int|R-hat"
    r"|effective sample",
    re.I,
)


def _cells(path: Path) -> list[dict]:
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def _python(source: str) -> str:
    """A cell's source as Python: magic and shell lines become ``pass`` (same lines)."""
    return "\n".join(
        line[: len(line) - len(line.lstrip())] + "pass"
        if line.lstrip().startswith(("%", "!"))
        else line
        for line in source.splitlines()
    )


def code_cells(path: Path) -> list[str]:
    """The notebook's code cells, as Python."""
    return [_python("".join(c["source"])) for c in _cells(path) if c["cell_type"] == "code"]


def unchecked_lines(path: Path) -> list[str]:
    """``unchecked verdict: cell k, line n: <expression>: <what to change>`` for each verdict
    of the notebook that the margin check cannot see."""
    cells = code_cells(path)
    names = vm.tolerance_names(cells)
    return [
        f"unchecked verdict: cell {k + 1}, line {line}: {what}"
        for k, source in enumerate(cells)
        for line, what in vm.unchecked(source, names)
    ]


def sections(path: Path) -> list[tuple[str, list[dict]]]:
    """``(## heading, its cells)`` in order; the cells before the first heading come first."""
    out = [("(opening)", [])]
    for cell in _cells(path):
        source = "".join(cell["source"])
        heading = (
            re.search(r"^## +(.+)$", source, re.M) if cell["cell_type"] == "markdown" else None
        )
        if heading:
            out.append((heading.group(1).strip(), []))
        out[-1][1].append(cell)
    return out


def compared_text(cells: list[dict]) -> str:
    """The text of the outputs strict nbval compares, in ``cells``."""
    texts = []
    for cell in cells:
        if cell["cell_type"] != "code" or NOT_COMPARED & set(cell["metadata"].get("tags", [])):
            continue
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")))
            texts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(texts)


def unshown_chains(path: Path) -> list[str]:
    """``chain samples: section '<heading>' draws <call> ...`` for each section with a cell
    that both draws from a chain and plots, and no distance in its compared outputs."""
    found = []
    for heading, cells in sections(path):
        drawn = [
            CHAIN.search(src).group(0)
            for src in ("".join(c["source"]) for c in cells if c["cell_type"] == "code")
            if CHAIN.search(src) and DRAWS.search(src)
        ]
        if drawn and not DISTANCE.search(compared_text(cells)):
            found.append(
                f"chain samples: section {heading!r} draws what {drawn[0]}...) sampled and "
                "prints no distance to the law beside it — draw exactly where enumeration reaches, "
                "else print the chain's TV/KL distance or a mixing diagnostic"
            )
    return found
