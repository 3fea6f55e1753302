"""The harness itself: notebook pairs in sync, one set of pins, fresh recorded results."""

from __future__ import annotations

import ast
import asyncio
import json
import queue
import time
from pathlib import Path

import jupytext
import pytest
import yaml
import zmq
import zmq.asyncio

from benchmarks.recording import code_hash
from tools.kernel_client import SlicedKernelClient
from tools.lock import environment_yml, read_lock

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: Every jupytext pair: the main notebooks and their worked solutions (notebooks/solutions/).
PAIRED = NOTEBOOKS + sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))
EXPECTED = [
    "01_glauber_convergence",
    "02_z_ledger",
    "03_ml_gradient",
    "04_hidden_units",
    "05_contrastive_divergence",
    "05b_rbm_in_practice",
    "06_spherical_machine",
    "06b_spherical_posterior",
    "07_rbm_phase_diagram",
]


def _cells(path: Path):
    nb = jupytext.read(path)
    return [
        (cell.cell_type, cell.source.strip(), tuple(cell.metadata.get("tags", ())))
        for cell in nb.cells
    ]


@pytest.mark.parametrize("ipynb", PAIRED, ids=lambda p: p.stem)
def test_notebook_pair_in_sync(ipynb):
    """The .py (what we edit) and the .ipynb (what nbval runs) have the same cells and tags."""
    py = ipynb.with_suffix(".py")
    assert py.exists(), f"{ipynb.name} has no paired percent-format {py.name}"
    assert _cells(ipynb) == _cells(py), (
        f"{ipynb.name} and {py.name} differ: edit the .py, then "
        f"`jupytext --to ipynb --update {py.name}` and `make notebooks`"
    )


@pytest.mark.parametrize("ipynb", PAIRED, ids=lambda p: p.stem)
def test_notebook_is_executed_and_clean(ipynb):
    """Committed notebooks carry outputs (nbval compares them) but no timing metadata."""
    nb = json.loads(ipynb.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c["execution_count"] is not None for c in code), "not executed"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for cell in code:
        assert "execution" not in cell.get("metadata", {}), "timing metadata left in"
        for out in cell["outputs"]:
            assert out["output_type"] != "error", "a committed cell shows an error"
            text = "".join(out.get("text", ""))
            assert "it/s" not in text and "%|" not in text, "progress-bar text in outputs"
            assert "figure audit: " not in text, "executed with the figure audit on: re-execute"


def test_every_py_notebook_has_ipynb():
    for py in [
        *(ROOT / "notebooks").glob("*.py"),
        *(ROOT / "notebooks" / "solutions").glob("*.py"),
    ]:
        assert py.with_suffix(".ipynb").exists(), f"{py.name} has no executed .ipynb"


def test_notebooks_present():
    present = {p.stem for p in NOTEBOOKS}
    missing = [name for name in EXPECTED if name not in present]
    assert set(present) <= set(EXPECTED), f"unexpected notebooks: {present - set(EXPECTED)}"
    if missing:
        pytest.skip(f"notebooks not written yet: {missing}")


def test_environment_yml_matches_lock():
    """environment.yml (conda, Binder) names exactly the packages and versions of the lock."""
    pins = read_lock()
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_entries = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = dict(entry.split("==") for entry in pip_entries)
    assert {k.lower(): v for k, v in listed.items()} == pins
    assert (ROOT / "environment.yml").read_text() == environment_yml(pins)
    assert "python=3.11" in env["dependencies"]


def test_lock_pins_every_dependency_of_pyproject():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    pins = read_lock()
    for requirement in wanted:
        name = requirement.split(">")[0].split("=")[0].split("<")[0].strip().lower()
        assert name in pins, f"{name} is a dependency but is not pinned in requirements.lock"


def test_postbuild_installs_bmlab_without_deps():
    text = (ROOT / "postBuild").read_text()
    assert "pip install --no-deps ." in text


RECORDED = sorted((ROOT / "bmlab" / "recorded").glob("*.json"))


def test_recorded_results_exist():
    assert RECORDED, "no recorded results in bmlab/recorded/"


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_recorded_results_are_fresh(path):
    """A recorded result must have been made by the code as it is now (re-run `make figures`)."""
    record = json.loads(path.read_text())
    assert code_hash(record["sources"]) == record["code_hash"], (
        f"{path.name} was recorded with other code than {record['sources']}; "
        "re-run its script under benchmarks/ (make figures)"
    )


def _bmlab_imports(rel: str) -> set[str]:
    """The bmlab modules a bmlab source imports with ``from .x import`` (not the package)."""
    tree = ast.parse((ROOT / rel).read_text())
    return {
        f"bmlab/{node.module}.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
    }


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_recorded_results_list_every_module_they_depend_on(path):
    """A record's sources hold every bmlab module its bmlab sources import, transitively, so
    that a code change anywhere underneath makes the record stale."""
    sources = set(json.loads(path.read_text())["sources"])
    needed, todo = set(), [s for s in sources if s.startswith("bmlab/")]
    while todo:
        for dep in _bmlab_imports(todo.pop()) - needed:
            needed.add(dep)
            todo.append(dep)
    assert needed <= sources, f"{path.name} lacks {sorted(needed - sources)} in its sources"


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=lambda p: p.stem)
def test_reference_cells_agree_with_bmlab(ipynb):
    """Each notebook checks its plain-numpy algorithm against bmlab (05: CD and PCD at least),
    and no stored output prints a check that failed."""
    lines = []
    for cell in json.loads(ipynb.read_text())["cells"]:
        for out in cell.get("outputs", []):
            text = out.get("text") or out.get("data", {}).get("text/plain", "")
            lines += "".join(text).splitlines()
    checks = [line for line in lines if line.startswith("reference agrees with bmlab")]
    assert len(checks) >= (2 if ipynb.stem.startswith("05_") else 1), "no reference cell"
    assert all(line.endswith(": True") for line in checks), checks


class _MissedWakeUpSocket(zmq.asyncio.Socket):
    """A socket whose reply has arrived but whose unbounded poll is never woken (the Voila
    hang of ``make present``); a bounded poll sees the reply when its time is up."""

    frames = None  # the reply that has arrived, if any

    async def poll(self, timeout=None, flags=zmq.POLLIN):
        if timeout is None:
            await asyncio.Event().wait()  # the wake-up that never comes
        await asyncio.sleep(timeout / 1000)
        return 0 if self.frames is None else flags

    async def recv_multipart(self, flags=0, copy=True, track=False):
        return self.frames


@pytest.mark.parametrize("sliced", [False, True], ids=["unbounded", "sliced"])
def test_kernel_client_survives_a_missed_wake_up(sliced):
    from jupyter_client.channels import AsyncZMQSocketChannel
    from jupyter_client.session import Session

    channel_class = SlicedKernelClient.shell_channel_class.default_value
    assert SlicedKernelClient.iopub_channel_class.default_value is channel_class
    session, context = Session(), zmq.asyncio.Context()
    replied, silent = (_MissedWakeUpSocket(context, zmq.DEALER) for _ in range(2))
    replied.frames = session.serialize(session.msg("execute_reply"))
    channel = (channel_class if sliced else AsyncZMQSocketChannel)(replied, session)
    start = time.monotonic()
    try:
        if not sliced:  # the stock channel waits for ever: what this client exists for
            with pytest.raises(asyncio.TimeoutError):
                asyncio.run(asyncio.wait_for(channel.get_msg(timeout=None), timeout=2))
            return
        msg = asyncio.run(asyncio.wait_for(channel.get_msg(timeout=None), timeout=2))
        assert msg["msg_type"] == "execute_reply"
        assert time.monotonic() - start < 1.5  # found at the end of its first 0.5 s slice
        start = time.monotonic()
        with pytest.raises(queue.Empty):  # a finite timeout still ends in Empty, on time
            asyncio.run(channel_class(silent, session).get_msg(timeout=0.7))
        assert 0.6 < time.monotonic() - start < 1.5
    finally:
        for socket in (replied, silent):
            socket.close()
        context.term()
