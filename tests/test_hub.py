"""The companion as a course's JupyterHub serves it: one user's server under ``/user/ana/``.

A JupyterHub starts one Jupyter server per student with ``--ServerApp.base_url=/user/NAME/``;
this module starts such a server (JupyterLab, jupytext, Voila's server extension and
jupyter-server-proxy, as in the course image of the README) on a course copy of the notebooks
and dashboards whose every ``.ipynb`` is an hour newer than its ``.py``, with the settings of
``bmlab-present --hub-config`` in its configuration. It checks that

- every notebook and worked solution opens through the contents API and in JupyterLab
  (jupytext refuses a pair whose newer ``.ipynb`` differs from its ``.py``);
- a dashboard renders through Voila's server extension under the prefix with the "bmlab"
  page template: live panels, no console error, no failed or outside request, and its kernel
  ends when the page closes;
- the launcher's "bmlab dashboards" tile (jupyter-server-proxy) starts ``bmlab-present`` on
  the installed dashboards behind the prefix: an index with every link under it, and a live
  dashboard with the same guarantees.

The Voila template "bmlab" is installed as data files by a wheel; an editable install (this
venv) has none, so the test puts the repository's copy on ``JUPYTER_PATH``, where the wheel
puts it. Skips without Chromium or Playwright, except with ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import urllib.request
from pathlib import Path

import browser_support as bs
import pytest

from bmlab_present.app import HUB_CONFIG
from bmlab_present.proxy import NAME as TILE
from tools.notebooks import pairs

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

PREFIX = "/user/ana/"
PANEL = ".widget-vbox:has(> .widget-output)"
TIMEOUT = 120_000  # ms
DASHBOARD = "02_z_ledger.ipynb"


def course_copy(home: Path) -> Path:
    """The notebooks (with solutions) and dashboards as a course hands them out: copied, every
    ``.ipynb`` an hour newer than its ``.py``."""
    for folder in ("notebooks", "dashboards"):
        bs.copy_tree(bs.ROOT / folder, home / folder, ignore=("__init__.py",))
    later = time.time() + 3600
    for ipynb in (home / "notebooks").rglob("*.ipynb"):
        os.utime(ipynb, (later, later))
    return home


@pytest.fixture(scope="module")
def hub_user(tmp_path_factory):
    """One user's Jupyter server under /user/ana/, as a JupyterHub spawns it."""
    bs.require_browser()
    base = tmp_path_factory.mktemp("hub")
    env = bs.isolated_env(base)
    env["PYTHONPATH"] = ""  # the installed packages only, as in a course image
    bs.write_lab_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    # what the README's image spec does (into /etc/jupyter/); a jupyter_server_config.d/
    # file would set only which extensions are on
    shutil.copy(HUB_CONFIG, Path(env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.json")
    templates = base / "share" / "voila" / "templates" / "bmlab"
    templates.mkdir(parents=True)
    for name in ("conf.json", "index.html.j2"):
        shutil.copy(bs.ROOT / "bmlab_present" / "templates" / name, templates / name)
    env["JUPYTER_PATH"] = str(base / "share")
    home = course_copy(base / "home" / "ana")
    port = bs.free_port()
    server = bs.Server(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.base_url={PREFIX}",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={home}",
            "--LabApp.news_url=None",
        ],
        env=env,
        cwd=home,
        port=port,
        name="hub-user",
    )
    try:
        server.wait_ready(f"{PREFIX}api/status")
        yield server
    finally:
        server.stop()


def test_the_hub_settings_are_the_presenters():
    """``--hub-config`` gives Voila's server extension what ``bmlab-present`` uses itself."""
    from bmlab_present.app import EXTENSIONS, voila_argv
    from bmlab_present.kernel_client import CLIENT

    config = json.loads(HUB_CONFIG.read_text())
    assert config["KernelManager"]["client_class"] == CLIENT
    assert config["VoilaConfiguration"]["template"] == "bmlab"
    assert config["VoilaConfiguration"]["extension_allowlist"] == EXTENSIONS
    assert config["MappingKernelManager"]["cull_idle_timeout"] > 0
    argv = voila_argv("dashboards", port=1)
    assert f"--KernelManager.client_class={CLIENT}" in argv


def test_every_notebook_opens_under_the_prefix_with_its_ipynb_newer(hub_user):
    for ipynb in pairs():
        rel = ipynb.relative_to(bs.ROOT).as_posix()
        model = hub_user.get_json(f"{PREFIX}api/contents/{rel}?content=1&type=notebook")
        outputs = [c["outputs"] for c in model["content"]["cells"] if c["cell_type"] == "code"]
        assert any(outputs), f"{rel} opened without its outputs"


def test_jupyterlab_opens_a_course_copy_under_the_prefix(hub_user, chromium):
    page = chromium.new_page(viewport=bs.VIEWPORT)
    try:
        page.goto(
            f"{hub_user.url}{PREFIX}lab/tree/notebooks/01_glauber_convergence.ipynb?reset",
            timeout=TIMEOUT,
        )
        page.locator(".jp-Notebook .jp-Cell").nth(5).wait_for(timeout=TIMEOUT)
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        assert not dialogs, f"JupyterLab shows a dialog: {dialogs}"
    finally:
        page.close()


def move_first_slider(page) -> None:
    """Press an arrow key on the first slider of the first live panel and wait for its figure
    to be redrawn (the page's kernel is live)."""
    panel = page.locator(PANEL).first
    image = panel.locator(":scope > .widget-output img").first
    before = image.get_attribute("src")
    handle = panel.locator(".noUi-handle").first
    for attempt in range(1, 4):  # a press before the kernel's websocket is up is lost
        handle.focus()
        handle.press("ArrowRight")
        try:
            page.wait_for_function(
                """([panel, src]) => {
                    const img = panel.querySelector(':scope > .widget-output img');
                    return img && img.getAttribute('src') !== src && img.complete;
                }""",
                arg=[panel.element_handle(), before],
                timeout=10_000,
            )
            return
        except Exception:
            if attempt == 3:
                raise


def kernel_gone(url: str, timeout: float = 15.0) -> bool:
    """Whether ``GET url`` (a kernel's REST address) answers 404 within ``timeout`` seconds."""
    import urllib.error

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(url, timeout=5).close()
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return True
            raise
        time.sleep(0.25)
    return False


def check_dashboard(page, url: str, api: str) -> None:
    """Open a dashboard page: live panels, no problem logged, and its kernel (found at
    ``api`` + ``api/kernels/<id>``) ends when the page closes."""
    problems = bs.PageProblems(page)
    page.goto(url, timeout=TIMEOUT)
    page.locator(f"{PANEL} .widget-output img").first.wait_for(timeout=TIMEOUT)
    move_first_slider(page)
    assert not problems.list(), f"{url}: {problems.list()}"
    kernel = page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )
    with urllib.request.urlopen(f"{api}api/kernels/{kernel}", timeout=10) as resp:
        assert json.load(resp)["id"] == kernel
    page.goto("about:blank")  # leaving the page, as closing its tab does, fires beforeunload
    assert kernel_gone(f"{api}api/kernels/{kernel}"), f"{url}: kernel outlived its page"
    page.close()


def test_a_dashboard_through_voilas_server_extension(hub_user, chromium):
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    url = f"{hub_user.url}{PREFIX}voila/render/dashboards/{DASHBOARD}"
    check_dashboard(page, url, f"{hub_user.url}{PREFIX}")


def test_the_launcher_tile_serves_the_installed_dashboards_under_the_prefix(hub_user, chromium):
    info = hub_user.get_json(f"{PREFIX}server-proxy/servers-info")
    titles = {s["name"]: s["launcher_entry"]["title"] for s in info["server_processes"]}
    assert titles.get(TILE) == "bmlab dashboards", titles
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    problems = bs.PageProblems(page)
    try:
        page.goto(f"{hub_user.url}{PREFIX}{TILE}/", timeout=TIMEOUT)  # starts bmlab-present
        links = page.evaluate("() => Array.from(document.links).map(a => a.getAttribute('href'))")
        dashboards = sorted((bs.ROOT / "dashboards").glob("*.ipynb"))
        assert links == [f"{PREFIX}{TILE}/voila/render/{p.name}" for p in dashboards], links
        assert not problems.list(), problems.list()
    finally:
        page.close()
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    url = f"{hub_user.url}{PREFIX}{TILE}/voila/render/{DASHBOARD}"
    check_dashboard(page, url, f"{hub_user.url}{PREFIX}{TILE}/")
