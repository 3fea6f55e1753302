"""Shared machinery of the browser tests: isolated Jupyter servers and headless Chromium.

Used by ``tests/test_browser.py`` (JupyterLab) and ``tests/test_present.py`` (Voila). Not a
test module itself. Facts behind the choices here (flags, selectors, pitfalls) are in the
team's notes on the Jupyter harness: a server on 127.0.0.1 with a free port, no token and no
port retries, fresh config/data/runtime/settings/workspace directories, and Debian's Chromium
driven by Playwright without any browser download.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("BMLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1000}


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def missing(reason: str):
    """Skip for a person without a browser; fail in CI, where the browser must be there."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: the browser tests must run in CI)", pytrace=False)
    pytest.skip(reason)


def require_browser():
    """Return ``playwright.sync_api.sync_playwright`` or skip/fail with a clear reason."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install -r requirements.lock)")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        missing(f"Chromium not found at {CHROMIUM} (as root: apt-get install -y chromium)")
    return sync_playwright


def lab_argv(port: int, root: Path, *extra: str) -> list[str]:
    """The command of a JupyterLab server on 127.0.0.1:``port`` serving ``root``, with no
    token, password or port retries (the harness notes); ``extra`` adds options."""
    return [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        *extra,
    ]


#: True once a panel's figure is a new, decoded image: arg ``[panel, src before the change]``.
IMAGE_REDRAWN = """([panel, src]) => {
    const img = panel.querySelector(':scope > .widget-output img');
    return img && img.getAttribute('src') !== src && img.complete;
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def isolated_env(base: Path) -> dict:
    """Environment with fresh Jupyter directories under ``base`` (kernelspecs still come from
    the venv's ``share/jupyter``, which Jupyter always searches)."""
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # the kernel must use the inline backend
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ("IPYTHONDIR", "ipython"),
    ]:
        path = base / sub
        path.mkdir(parents=True, exist_ok=True)
        env[var] = str(path)
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["BMLAB_FIGURES"] = str(base / "figures")  # notebooks never write into the repository
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    return env


def write_lab_settings(settings_dir: Path) -> None:
    """No news toast, no autosave, every cell in the DOM (no virtual scrolling)."""
    settings = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
        "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
            "windowingMode": "none",
        },
    }
    for rel, value in settings.items():
        path = settings_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


class Server:
    """A Jupyter server (JupyterLab or Voila) in a subprocess, logging to ``artifacts/``."""

    def __init__(self, argv: list[str], *, env: dict, cwd: Path, port: int, name: str):
        ARTIFACTS.mkdir(exist_ok=True)
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = ARTIFACTS / f"{name}-server.log"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            argv, env=env, cwd=cwd, stdout=self._log, stderr=subprocess.STDOUT
        )

    def log_tail(self, lines: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text().splitlines()[-lines:])
        return ""

    def wait_ready(self, path: str, timeout: float = 90.0) -> float:
        """Poll ``url + path`` until it answers 200; return seconds waited."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + path, timeout=5) as resp:
                    if resp.status == 200:
                        return time.monotonic() - start
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server not ready after {timeout} s:\n{self.log_tail()}")

    def get_json(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=10) as resp:
            return json.load(resp)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._log.close()


def copy_tree(src: Path, dst: Path, ignore: tuple[str, ...] = ()) -> Path:
    """Copy a folder of notebooks to serve, so that nothing in the repository can change."""
    shutil.copytree(
        src,
        dst,
        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", *ignore),
    )
    return dst


def launch_chromium(playwright):
    """Debian's Chromium, headless, as root, with the flags that keep it off the network
    (Playwright gives it a fresh, empty profile)."""
    return playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=60_000
    )


def python() -> str:
    return sys.executable


#: The control descriptions (``.widget-label``) under the element it is given that the browser
#: cuts (``scrollWidth`` beyond ``clientWidth``: an ellipsis such as "temperat…" shows).
CUT_LABELS = """root => Array.from(root.querySelectorAll('.widget-label'))
    .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.textContent.trim()} (${e.clientWidth} of ${e.scrollWidth} px)`)"""

#: axe-core impacts that fail an audit (moderate and minor ones are reported, not failed).
AXE_FAILING = ("critical", "serious")


def axe_violations(page, context=None, impacts=AXE_FAILING) -> list[dict]:
    """Run axe-core (the copy that ``axe-playwright-python`` ships) on a Playwright page.

    Returns the violations whose impact is in ``impacts``, each as ``{"id", "impact",
    "help", "nodes": [{"target", "html", "summary"}]}``. ``context`` is axe's context (a CSS
    selector, or ``{"include": [...], "exclude": [...]}``) to audit part of a page, e.g. the
    project's own outputs inside JupyterLab. Wait for what changes the page (MathJax, widgets)
    before calling it.
    """
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    results = page.evaluate(
        "([context, options]) => context === null ? axe.run(document, options)"
        " : axe.run(context, options)",
        [context, {"resultTypes": ["violations"]}],
    )
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [
                {
                    "target": " ".join(map(str, n["target"])),
                    "html": n["html"][:200],
                    "summary": n.get("failureSummary", ""),
                }
                for n in v["nodes"]
            ],
        }
        for v in results["violations"]
        if v["impact"] in impacts
    ]


def axe_report(violations: list[dict], nodes: int = 3) -> str:
    """The violations of :func:`axe_violations` as lines a developer can act on."""
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']} ({v['help']}), {len(v['nodes'])} node(s):")
        for node in v["nodes"][:nodes]:
            summary = " ".join(node["summary"].split())[:240]
            lines.append(f"    {node['target']}: {node['html'][:120]!r} -- {summary}")
    return "\n".join(lines)


class PageProblems:
    """What a page must not do, recorded from the moment it is attached: log a console error,
    fail a request, or ask any host but this machine for anything (a lecture hall may be
    offline). ``list()`` gives one line per problem."""

    LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "http://localhost", "ws://localhost")

    def __init__(self, page):
        self.problems: list[str] = []
        page.on("console", self._console)
        page.on("request", self._request)
        page.on("requestfailed", self._failed)
        page.on("pageerror", lambda err: self.problems.append(f"page error: {err}"))

    def _console(self, message):
        if message.type == "error":
            self.problems.append(f"console error: {message.text[:300]}")

    def _request(self, request):
        if not request.url.startswith((*self.LOCAL, "data:", "blob:", "about:")):
            self.problems.append(f"outside request: {request.url[:200]}")

    def _failed(self, request):
        failure = request.failure or ""
        if "ERR_ABORTED" not in failure:  # a request cut short by leaving the page is fine
            self.problems.append(f"failed request: {request.url[:200]} ({failure})")

    def list(self) -> list[str]:
        return list(self.problems)
