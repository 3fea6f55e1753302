"""Recording results too slow to run live, stamped with the code that made them.

A ``record_*.py`` script of this folder runs the experiment and calls :func:`save_results`,
which writes ``bmlab/recorded/<name>.json`` in the checkout: the parameters, the date, the
machine and a SHA-256 of the code of the source files the result depends on. The files ship
inside the package, where ``bmlab.load_results`` reads them. The test suite recomputes every
stamp (:func:`code_hash`), so a code change makes the record stale until its script is re-run
(``make figures``); docstrings and comments are not part of the stamp.
"""

from __future__ import annotations

import ast
import datetime as _dt
import hashlib
import json
import os
import platform
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    scopes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, scopes) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _canonical(node) -> str:
    """Like ``ast.dump`` but the same on every Python >= 3.11 (empty and None fields left out)."""
    if isinstance(node, ast.AST):
        fields = (
            f"{f}={_canonical(getattr(node, f, None))}"
            for f in node._fields
            if getattr(node, f, None) not in (None, [])
        )
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return f"[{', '.join(_canonical(n) for n in node)}]"
    return repr(node)


def _code(path: Path) -> bytes:
    """The code of a source file: Python without docstrings or comments; other files as bytes."""
    raw = path.read_bytes().replace(b"\r\n", b"\n")
    if path.suffix != ".py":
        return raw
    return _canonical(_strip_docstrings(ast.parse(raw, filename=str(path)))).encode()


def code_hash(paths) -> str:
    """SHA-256 over the code of the given source files (order-independent names).

    Python files are hashed as their syntax tree without docstrings (comments and layout are
    not in the tree), so rewording a docstring or comment keeps a record fresh while any code
    change makes it stale. Other files are hashed as bytes (line endings normalised).

    Parameters
    ----------
    paths : iterable of str or Path
        Files relative to the repository root (e.g. ``"bmlab/exact.py"``) or absolute.
    """
    digest = hashlib.sha256()
    for rel in sorted(str(p) for p in paths):
        path = Path(rel) if Path(rel).is_absolute() else ROOT / rel
        digest.update(rel.encode())
        digest.update(_code(path))
    return digest.hexdigest()


def save_results(name: str, data: dict, *, params: dict, sources) -> Path:
    """Write ``bmlab/recorded/<name>.json`` of this checkout, stamped with :func:`code_hash`
    of ``sources`` (paths relative to the repository root); ``$BMLAB_RESULTS`` names another
    folder. Returns the path written."""
    out = Path(os.environ.get("BMLAB_RESULTS") or ROOT / "bmlab" / "recorded")
    sources = sorted(str(s) for s in sources)
    record = {
        "name": name,
        "recorded": _dt.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "sources": sources,
        "code_hash": code_hash(sources),
        "params": params,
        "data": data,
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return path
