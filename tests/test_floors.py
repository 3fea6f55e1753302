"""The floors of pyproject.toml are tested: the built wheel, installed with exactly those
versions, runs every notebook and worked solution without an error or a warning.

``requirements-floors.txt`` pins (``==``) the oldest release of each runtime dependency that
bmlab supports (CONTRIBUTING, "Supported versions"); a fast test keeps it equal to the
``>=`` floors of ``pyproject.toml``. The slow test (marker ``floors``, ``make test-floors``)
builds the wheel as ``tests/test_wheel.py`` does, installs it into a fresh venv in a
temporary folder with those pins, and the tooling that executes notebooks (nbclient,
ipykernel) and every other package at the versions of ``requirements.lock``. It copies every
notebook and worked solution outside the checkout and executes each top to bottom with that
venv's kernel. Printed numbers may differ from the committed ones, so no output is compared;
but no cell may raise, and none may print to stderr: a warning reaches a cell's stderr, which
strict nbval fails on in the pinned run. bmlab must come from the venv, and nothing may be
left in the course folder.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from test_wheel import _build_wheel, _clean_env, _run

from tools.lock import read_lock

ROOT = Path(__file__).resolve().parent.parent
FLOORS = ROOT / "requirements-floors.txt"
NOTEBOOKS = sorted(p.relative_to(ROOT / "notebooks") for p in ROOT.glob("notebooks/*.ipynb"))
NOTEBOOKS += sorted(
    p.relative_to(ROOT / "notebooks") for p in ROOT.glob("notebooks/solutions/*.ipynb")
)

# Runs inside the floors venv: execute each notebook in its folder (nothing is saved) and
# report its errors, whatever it printed to stderr, and where bmlab came from.
DRIVER = """
import json, sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
work = Path(sys.argv[1])
for name in sys.argv[2:]:
    nb = nbformat.read(work / name, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import bmlab\\nprint(bmlab.__file__)"))
    client = NotebookClient(nb, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str((work / name).parent)}})
    try:
        client.execute()
        error = None
    except CellExecutionError as exc:
        error = str(exc)[-3000:]
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    stderr = ["".join(o.text) for o in outputs if o.get("name") == "stderr"]
    last = nb.cells[-1].outputs
    where = "".join(last[0].text).strip() if last and error is None else None
    report = {"notebook": name, "error": error, "stderr": stderr, "bmlab": where}
    print(json.dumps(report), flush=True)
"""


def _floors_file() -> dict[str, str]:
    return read_lock(FLOORS)


def _pyproject_floors() -> dict[str, str]:
    """Package name (lower case) -> the version of its ``>=`` floor, for every runtime
    dependency of pyproject.toml (each must have exactly one bound, a floor)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    floors = {}
    for requirement in project["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)>=([0-9][0-9.]*)", requirement.replace(" ", ""))
        assert match, f"{requirement!r}: a runtime dependency has one bound, a floor >="
        floors[match[1].lower()] = match[2]
    return floors


def test_pyproject_floors_are_the_versions_the_floors_run_installs():
    assert _pyproject_floors() == _floors_file()
    lock = read_lock()
    for name, floor in _floors_file().items():  # the pinned run is at or above each floor
        newer = tuple(map(int, lock[name].split(".")[:3])) >= tuple(map(int, floor.split(".")))
        assert newer, f"requirements.lock pins {name}=={lock[name]}, below its floor {floor}"


def _execute(python: Path, work: Path, names: list, env: dict | None = None) -> list[dict]:
    """One report per notebook (its error, its stderr, bmlab's file), run by ``python``."""
    out = _run(python, "-c", DRIVER, work, *names, env=env, cwd=work)
    reports = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["notebook"] for r in reports] == [str(n) for n in names]
    return reports


@pytest.mark.floors
def test_the_floors_run_sees_a_warning_and_an_error(tmp_path):
    """The driver of the floors run, in this venv, on two small notebooks: it must report the
    warning one prints and the exception the other raises."""
    import nbformat

    cells = {"warns.ipynb": "import warnings\nwarnings.warn('an old API')", "raises.ipynb": "1 / 0"}
    for name, source in cells.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
        nbformat.write(nb, tmp_path / name)
    warns, raises = _execute(Path(sys.executable), tmp_path, list(cells))
    assert warns["error"] is None and "an old API" in "".join(warns["stderr"])
    assert warns["bmlab"].endswith("__init__.py")
    assert "ZeroDivisionError" in raises["error"] and raises["bmlab"] is None


def _constraints(path: Path) -> Path:
    """The floors, and every other package at the version of requirements.lock."""
    floors = _floors_file()
    lines = [f"{n}=={v}" for n, v in floors.items()]
    lines += [f"{n}=={v}" for n, v in read_lock().items() if n not in floors]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.floors
@pytest.mark.timeout(3600)
def test_every_notebook_runs_on_the_floors(tmp_path, venv):
    wheel = _build_wheel(tmp_path)
    python = venv / "bin" / "python"
    env = _clean_env(venv)
    env["IPYTHONDIR"] = str(tmp_path / "ipython")  # no startup files of this machine
    env["MPLCONFIGDIR"] = str(tmp_path / "matplotlib")
    constraints = _constraints(tmp_path / "constraints.txt")
    pip = [python, "-m", "pip", "install", "--quiet", "--only-binary=:all:", "-c", constraints]
    _run(*pip, wheel, "nbclient", "ipykernel", *_floors_file(), env=env)
    installed = json.loads(_run(python, "-m", "pip", "list", "--format=json", env=env))
    versions = {p["name"].lower(): p["version"] for p in installed}
    assert {n: versions[n] for n in _floors_file()} == _floors_file()
    _run(python, "-m", "ipykernel", "install", "--prefix", venv, "--name", "python3", env=env)
    _run(python, "-c", "import matplotlib.pyplot", env=env)  # font cache: no note in a cell

    work = tmp_path / "course"  # outside the checkout, with no figures/
    (work / "solutions").mkdir(parents=True)
    for name in NOTEBOOKS:
        shutil.copy(ROOT / "notebooks" / name, work / name)
    reports = _execute(python, work, NOTEBOOKS, env=env)
    failures = [r for r in reports if r["error"] or r["stderr"]]
    assert not failures, json.dumps(failures, indent=1)[-6000:]
    for report in reports:
        assert Path(report["bmlab"]).resolve().is_relative_to(venv.resolve()), report
    left = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
    assert left == sorted(str(n) for n in NOTEBOOKS)  # nothing written beside the notebooks
