"""Installed anywhere: the wheel holds the package and its presenter, and runs notebooks and
dashboards from a foreign folder.

The wheel is built from a copy of what it ships (not editable). A fast test (a few seconds,
part of ``make test``) opens it: it holds ``bmlab`` with its package data, and ``bmlab_present``
with the dashboards, their templates and the hub settings, plus the Voila template "bmlab" as
data files, and nothing else; no module of ``bmlab`` imports a lab-only package, the checkout or
``bmlab_present``, and ``bmlab_present`` imports Voila only when a server starts. The slow test
(marker ``wheel``, ``make test-wheel``) installs it with Voila, its dependencies pinned by
``requirements.lock``, into a temporary venv, copies notebooks 02, 05 and 05b outside the
checkout and executes them there with that venv's kernel. They must run without error, load the
recorded results shipped as package data, import bmlab from the venv, and leave nothing behind
(in particular no ``figures/``). Then, from that folder, ``bmlab-present --base-url=...`` serves
the installed dashboards behind a prefix (index links under it, a dashboard rendered with its
panels and no outside stylesheet), and a Jupyter server under ``/user/ana/`` with the settings
of ``bmlab-present --hub-config`` renders a dashboard through Voila's server extension with the
installed "bmlab" template. Wall time with pip's cache warm: about 1.5 minutes on an idle
2-core machine (most of it installing the pins), so it runs after ``make test``.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
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
#: What the presenter imports: Voila and the Jupyter packages Voila brings (its extra, lab).
PRESENTER = {"bmlab_present", "voila", "jupyter_client", "traitlets"}

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
    """The wheel of a copy of the package (no build/ or *.egg-info in the checkout), built
    without a warning (setuptools' deprecations, its package-discovery notes)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("bmlab", "bmlab_present", "dashboards", "labextension"):
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", tmp_path / "dist", src]
    build = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    warned = sorted(set(re.findall(r"\b\w+Warning\b", build.stdout + build.stderr)))
    assert not warned, f"building the wheel warns: {warned}"
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


def test_the_wheel_holds_the_package_and_its_presenter_and_nothing_of_the_checkout(tmp_path):
    with zipfile.ZipFile(_build_wheel(tmp_path)) as wheel:
        names = wheel.namelist()
        sources = {n: wheel.read(n).decode() for n in names if n.endswith(".py")}
        entry_points = wheel.read("bmlab-0.1.0.dist-info/entry_points.txt").decode()
    package = [n for n in names if not n.startswith("bmlab-0.1.0.dist-info/")]
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "bmlab").rglob("*.py")}
    shipped |= {str(p.relative_to(ROOT)) for p in (ROOT / "bmlab_present").glob("*.py")}
    shipped.add("bmlab_present/dashboards/__init__.py")
    assert set(sources) == shipped, "the wheel holds other modules than bmlab/, bmlab_present/"
    data = {n for n in package if not n.endswith(".py")}
    recorded = {str(p.relative_to(ROOT)) for p in (ROOT / "bmlab" / "recorded").glob("*.json")}
    templates = {
        f"bmlab_present/templates/{p.name}"
        for p in (ROOT / "bmlab_present" / "templates").iterdir()
    }
    dashboards = {
        f"bmlab_present/dashboards/{p.name}" for p in (ROOT / "dashboards").glob("*.ipynb")
    }
    voila = "bmlab-0.1.0.data/data/share/jupyter/voila/templates/bmlab/"
    links = "bmlab-0.1.0.data/data/share/jupyter/labextensions/bmlab-links/"
    assert data == {
        "bmlab/exercises.json",
        *recorded,
        *templates,
        *dashboards,
        "bmlab_present/dashboards/projector.css",
        "bmlab_present/jupyter_server_config.json",
        voila + "conf.json",
        voila + "index.html.j2",
        links + "package.json",
        links + "static/remoteEntry.js",
    }
    for name, source in sources.items():
        imported = _imported(source) - set(sys.stdlib_module_names)
        if name.startswith("bmlab/"):
            outside = imported - ALLOWED
        else:  # the presenter: bmlab, and Voila's packages when a server starts
            outside = imported - ALLOWED - PRESENTER
            if name in ("bmlab_present/__init__.py", "bmlab_present/proxy.py"):
                outside = imported  # imported by jupyter-server-proxy: the standard library only
        assert not outside, f"{name} imports {sorted(outside)}: not installed with bmlab"
        assert "requirements.lock" not in source and "pyproject" not in source, name
    assert "bmlab-present = bmlab_present.app:main" in entry_points
    assert "bmlab-dashboards = bmlab_present.proxy:server" in entry_points


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
        "voila",
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

    # The installed presenter behind a prefix, started from the course folder.
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "config")
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    dashboards = sorted(p.name for p in (ROOT / "dashboards").glob("*.ipynb"))
    port = _free_port()
    prefix = f"http://127.0.0.1:{port}/user/ana/present/"
    argv = [venv / "bin" / "bmlab-present", f"--port={port}", "--base-url=/user/ana/present/"]
    with _serving(argv, prefix, env=env, cwd=work):
        index = _get(prefix)
        for name in dashboards:
            assert f'href="/user/ana/present/voila/render/{name}"' in index, name
        _check_dashboard_page(_get(f"{prefix}voila/render/02_z_ledger.ipynb"))

    # Voila's server extension in a user's server with the hub settings (the course image).
    config = Path(env["JUPYTER_CONFIG_DIR"])
    config.mkdir(exist_ok=True)
    hub = _run(venv / "bin" / "bmlab-present", "--hub-config", env=env)
    (config / "jupyter_server_config.json").write_text(hub)
    home = tmp_path / "home"
    shutil.copytree(ROOT / "dashboards", home / "dashboards")
    port = _free_port()
    base = f"http://127.0.0.1:{port}/user/ana/"
    argv = [python, "-m", "jupyter", "server", "--allow-root", f"--ServerApp.port={port}"]
    argv += ["--ServerApp.base_url=/user/ana/", "--IdentityProvider.token=", f"{home}"]
    with _serving(argv, f"{base}api/status", env=env, cwd=home):
        _check_dashboard_page(_get(f"{base}voila/render/dashboards/02_z_ledger.ipynb"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=300) as resp:
        return resp.read().decode()


@contextlib.contextmanager
def _serving(argv, ready_url: str, *, env: dict, cwd: Path):
    """A server process, ready once ``ready_url`` answers; stopped afterwards."""
    log = cwd.parent / f"{Path(str(argv[0])).name}-{_free_port()}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([str(a) for a in argv], env=env, cwd=cwd, stdout=out, stderr=out)
    try:
        for _ in range(600):
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                _get(ready_url)
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _check_dashboard_page(html: str) -> None:
    """A dashboard rendered by Voila with the presenter's template: live panels (widget
    views), no stylesheet from outside, and the script that lets a closed page end its kernel."""
    assert "application/vnd.jupyter.widget-view+json" in html, html[-2000:]
    assert "cdn.jsdelivr.net" not in html and "_xsrf=" in html


def test_importing_bmlab_loads_only_what_every_notebook_needs():
    """Each student's kernel imports bmlab: it must not pull in what only one notebook or the
    panels use (scikit-learn, scipy.optimize: about 23 MB more per kernel; the widgets and
    pyplot come with the panels, which import them themselves)."""
    code = (
        "import sys, bmlab; print(sorted(m for m in ('sklearn', 'scipy.optimize', "
        "'scipy.stats', 'ipywidgets', 'matplotlib.pyplot', 'bmlab_present', 'voila') "
        "if m in sys.modules))"
    )
    assert _run(sys.executable, "-c", code, cwd=ROOT).strip() == "[]"
