"""Installed anywhere: the wheel holds only the package, and runs notebooks from a foreign folder.

The wheel is built from a copy of the package (not editable). A fast test (a few seconds, part
of ``make test``) opens it: it holds ``bmlab`` and its package data and nothing else, and no
module in it imports a lab-only package or anything of the checkout. The slow test (marker
``wheel``, ``make test-wheel``) installs it with its dependencies pinned by
``requirements.lock`` into a temporary venv, copies notebooks 02, 05 and 05b outside the checkout
and executes them there with that venv's kernel. They must run without error, load the
recorded results shipped as package data, import bmlab from the venv, and leave nothing behind
(in particular no ``figures/``). Wall time with pip's cache warm: about 1 minute on an idle
2-core machine (most of it installing the pins), so it runs after ``make test``.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = [
    "02_z_ledger.ipynb",
    "05_contrastive_divergence.ipynb",
    "05b_rbm_in_practice.ipynb",
]
#: What the package may import beside the standard library: its dependencies (pyproject.toml)
#: and IPython, which ipywidgets brings. Never the lab (jupyter_client, voila, nbconvert,
#: nbclient, nbformat, jupytext, traitlets, ...) or the checkout (tools, benchmarks).
ALLOWED = {"bmlab", "numpy", "scipy", "matplotlib", "cycler", "ipywidgets", "IPython"}
ALLOWED |= {"tqdm", "threadpoolctl", "sklearn"}

# Runs inside the temporary venv: execute each notebook in place (outputs are not saved) and
# report where bmlab came from and which recorded results loaded.
DRIVER = """
import json, sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
work = Path(sys.argv[1])
for name in sys.argv[2:]:
    nb = nbformat.read(work / name, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json, bmlab\\n"
        "from importlib import resources\\n"
        "names = sorted(p.name[:-5] for p in (resources.files('bmlab') / 'recorded').iterdir()\\n"
        "               if p.name.endswith('.json'))\\n"
        "print(json.dumps({'file': bmlab.__file__,\\n"
        "                  'loaded': [bmlab.load_results(n)['name'] for n in names]}))"))
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(work)}}).execute()
    print(json.dumps({"notebook": name, "check": nb.cells[-1].outputs[0]["text"]}), flush=True)
"""


def _run(*args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    tail = f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert result.returncode == 0, f"{args[:4]} failed:\n{tail}"
    return result.stdout


def _clean_env(venv: Path) -> dict:
    """The environment of a user who never heard of this checkout or its variables."""
    drop = ("BMLAB_", "PYTHONPATH", "MPLBACKEND", "VIRTUAL_ENV", "JUPYTER_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_PATH"] = str(venv / "share" / "jupyter")  # only this venv's kernel
    return env


def _build_wheel(tmp_path: Path) -> Path:
    """The wheel of a copy of the package (no build/ or *.egg-info in the checkout)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "bmlab", src / "bmlab", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", tmp_path / "dist", src)
    (wheel,) = (tmp_path / "dist").glob("bmlab-*.whl")
    return wheel


def _imported(source: str) -> set[str]:
    """Top-level names of the absolute imports of a module."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_wheel_holds_only_the_package_and_nothing_of_the_lab_or_the_checkout(tmp_path):
    with zipfile.ZipFile(_build_wheel(tmp_path)) as wheel:
        names = wheel.namelist()
        sources = {n: wheel.read(n).decode() for n in names if n.endswith(".py")}
    package = [n for n in names if not n.startswith("bmlab-0.1.0.dist-info/")]
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "bmlab").rglob("*.py")}
    assert set(sources) == shipped, "the wheel holds other modules than bmlab/"
    data = {n for n in package if not n.endswith(".py")}
    recorded = {str(p.relative_to(ROOT)) for p in (ROOT / "bmlab" / "recorded").glob("*.json")}
    assert data == {"bmlab/exercises.json", *recorded}
    for name, source in sources.items():
        outside = _imported(source) - ALLOWED - set(sys.stdlib_module_names)
        assert not outside, f"{name} imports {sorted(outside)}: not installed with bmlab"
        assert "requirements.lock" not in source and "pyproject" not in source, name


@pytest.fixture
def venv(tmp_path):
    """An empty venv, removed afterwards (a few hundred MB once the dependencies are in)."""
    path = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", path)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.wheel
@pytest.mark.timeout(1200)
def test_wheel_runs_notebooks_outside_the_checkout(tmp_path, venv):
    wheel = _build_wheel(tmp_path)

    python = venv / "bin" / "python"
    env = _clean_env(venv)
    _run(
        python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "-c",
        ROOT / "requirements.lock",
        wheel,
        "nbclient",
        "ipykernel",
        env=env,
    )
    _run(python, "-m", "ipykernel", "install", "--prefix", venv, "--name", "python3", env=env)

    work = tmp_path / "course"  # a folder that is not the checkout and has no figures/
    work.mkdir()
    for name in NOTEBOOKS:
        shutil.copy(ROOT / "notebooks" / name, work / name)
    out = _run(python, "-c", DRIVER, work, *NOTEBOOKS, env=env, cwd=work)

    reports = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["notebook"] for r in reports] == NOTEBOOKS
    for report in reports:
        check = json.loads(report["check"])
        assert Path(check["file"]).resolve().is_relative_to(venv.resolve()), check["file"]
        assert "log_partition_timings" in check["loaded"] and "bas4_cd" in check["loaded"]
    assert sorted(p.name for p in work.iterdir()) == NOTEBOOKS  # no figures/, nothing else
