"""The companion as a course's JupyterHub serves it: user ana's server under ``/user/ana/``.

A real JupyterHub (``jupyterhub`` from the lock, ``configurable-http-proxy`` from npm, which
``.ci/run`` installs) with the DummyAuthenticator and one local single-user server per user
(``SimpleLocalProcessSpawner``) starts ana's server: JupyterLab, jupytext, Voila's server
extension and jupyter-server-proxy, as in the course image of the README, with the settings of
``bmlab-present --hub-config`` in its configuration, on a course copy of the notebooks and
dashboards whose every ``.ipynb`` is an hour newer than its ``.py``. The browser logs in as
ana. Without the proxy (outside CI) a plain Jupyter server with
``--ServerApp.base_url=/user/ana/`` stands in for the hub. The tests check that

- every notebook and worked solution opens through the contents API and in JupyterLab
  (jupytext refuses a pair whose newer ``.ipynb`` differs from its ``.py``);
- a dashboard renders through Voila's server extension under the prefix with the "bmlab"
  page template: live panels, no console error, no failed or outside request, and its kernel
  ends when the page is left;
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
import urllib.error
import urllib.request
import uuid
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

USER = "ana"
PREFIX = f"/user/{USER}/"
PANEL = ".widget-vbox:has(> .widget-output)"
TIMEOUT = 120_000  # ms
DASHBOARD = "02_z_ledger.ipynb"
PROJECTOR = {"width": 1920, "height": 1080}


def course_copy(home: Path) -> Path:
    """The notebooks (with solutions) and dashboards as a course hands them out: copied, every
    ``.ipynb`` an hour newer than its ``.py``."""
    for folder in ("notebooks", "dashboards"):
        bs.copy_tree(bs.ROOT / folder, home / folder, ignore=("__init__.py",))
    later = time.time() + 3600
    for ipynb in (home / "notebooks").rglob("*.ipynb"):
        os.utime(ipynb, (later, later))
    return home


def user_environment(base: Path) -> dict:
    """Jupyter directories of the user's server: the hub settings in its configuration (what
    the README's image spec does with ``--install-hub-config``), the "bmlab" Voila template
    on its data path, quiet JupyterLab settings."""
    env = bs.isolated_env(base)
    env["PYTHONPATH"] = ""  # the installed packages only, as in a course image
    bs.write_lab_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    shutil.copy(HUB_CONFIG, Path(env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.json")
    templates = base / "share" / "voila" / "templates" / "bmlab"
    templates.mkdir(parents=True)
    for name in ("conf.json", "index.html.j2"):
        shutil.copy(bs.ROOT / "bmlab_present" / "templates" / name, templates / name)
    env["JUPYTER_PATH"] = str(base / "share")
    return env


class UserServer:
    """Ana's server as the tests reach it: its address, REST calls with the right credentials,
    and a browser context that is logged in."""

    def __init__(self, url: str, token: str | None, context, kind: str):
        self.url, self.token, self.context, self.kind = url, token, context, kind

    def get_json(self, path: str):
        headers = {"Authorization": f"token {self.token}"} if self.token else {}
        request = urllib.request.Request(self.url + path, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as resp:
            return json.load(resp)

    def new_page(self):
        return self.context.new_page()


HUB_CONFIG_PY = """
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.pid_file = "{base}/proxy.pid"
c.JupyterHub.db_url = "sqlite:///{base}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{base}/jupyterhub_cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {{"{user}"}}
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{base}/home/{{username}}"
c.Spawner.cmd = ["{python}", "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--allow-root", "--LabApp.news_url=None"]
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.JupyterHub.services = [{{"name": "bmlab-test", "api_token": "{token}"}}]
c.JupyterHub.load_roles = [{{
    "name": "bmlab-test",
    "scopes": ["admin:users", "admin:servers", "access:servers", "read:users"],
    "services": ["bmlab-test"],
}}]
"""


def start_jupyterhub(base: Path, env: dict) -> tuple[bs.Server, str]:
    """A JupyterHub on 127.0.0.1 whose user ana's server is started and ready."""
    port, token = bs.free_port(), uuid.uuid4().hex
    keep = ("JUPYTER_", "JUPYTERLAB_", "IPYTHONDIR", "BMLAB_")
    environment = {k: v for k, v in env.items() if k.startswith(keep)} | {"PYTHONPATH": ""}
    (base / "jupyterhub_config.py").write_text(
        HUB_CONFIG_PY.format(
            port=port,
            hub_port=bs.free_port(),
            api_port=bs.free_port(),
            base=base,
            user=USER,
            python=sys.executable,
            environment=environment,
            token=token,
        )
    )
    hub = bs.Server(
        [sys.executable, "-m", "jupyterhub", "-f", str(base / "jupyterhub_config.py")],
        env=env,
        cwd=base,
        port=port,
        name="jupyterhub",
    )
    user = UserServer(hub.url, token, None, "JupyterHub")
    try:
        hub.wait_ready("/hub/health")
        headers = {"Authorization": f"token {token}"}
        spawn = f"{hub.url}/hub/api/users/{USER}/server"
        request = urllib.request.Request(spawn, headers=headers, method="POST")
        urllib.request.urlopen(request, timeout=60).close()
        deadline = time.monotonic() + 120
        while not user.get_json(f"/hub/api/users/{USER}")["servers"].get("", {}).get("ready"):
            assert time.monotonic() < deadline, f"{USER}'s server did not start:\n{hub.log_tail()}"
            time.sleep(0.5)
    except BaseException:
        hub.stop()  # the hub stops the proxy and the user's server with it
        raise
    return hub, token


def log_in(context, url: str) -> None:
    """Log in through the hub's form as a student does (the DummyAuthenticator takes any
    password) and land in JupyterLab."""
    page = context.new_page()
    try:
        page.goto(f"{url}/hub/login?next={PREFIX}lab", timeout=TIMEOUT)
        page.fill("input[name=username]", USER)
        page.fill("input[name=password]", "any")
        page.click("[type=submit]")
        page.wait_for_url(f"**{PREFIX}lab**", timeout=TIMEOUT)
    finally:
        page.close()


def start_plain_server(base: Path, env: dict, home: Path) -> bs.Server:
    """A Jupyter server under /user/ana/ without a hub (when configurable-http-proxy is
    missing): what a hub would start, minus the hub's login."""
    port = bs.free_port()
    server = bs.Server(
        bs.lab_argv(port, home, f"--ServerApp.base_url={PREFIX}"),
        env=env,
        cwd=home,
        port=port,
        name="hub-user",
    )
    server.wait_ready(f"{PREFIX}api/status")
    return server


@pytest.fixture(scope="module")
def hub_user(tmp_path_factory, chromium):
    """Ana's server under /user/ana/, started by a real JupyterHub where one can run."""
    base = tmp_path_factory.mktemp("hub")
    env = user_environment(base)
    home = course_copy(base / "home" / USER)
    if shutil.which("configurable-http-proxy"):
        server, token = start_jupyterhub(base, env)
        kind = "JupyterHub"
    elif bs.in_ci():
        pytest.fail("configurable-http-proxy is missing (npm install -g configurable-http-proxy)")
    else:
        server, token, kind = start_plain_server(base, env, home), None, "plain server"
    context = chromium.new_context(viewport=PROJECTOR)
    try:
        if kind == "JupyterHub":
            log_in(context, server.url)
        yield UserServer(server.url, token, context, kind)
    finally:
        context.close()
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


def test_jupyterlab_opens_a_course_copy_under_the_prefix(hub_user):
    page = hub_user.new_page()
    try:
        page.goto(
            f"{hub_user.url}{PREFIX}lab/tree/notebooks/01_glauber_convergence.ipynb?reset",
            timeout=TIMEOUT,
        )
        page.locator(".jp-Notebook .jp-Cell").nth(5).wait_for(timeout=TIMEOUT)
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        assert not dialogs, f"JupyterLab ({hub_user.kind}) shows a dialog: {dialogs}"
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
                bs.IMAGE_REDRAWN,
                arg=[panel.element_handle(), before],
                timeout=10_000,
            )
            return
        except Exception:
            if attempt == 3:
                raise


def kernel_gone(user: UserServer, path: str, timeout: float = 15.0) -> bool:
    """Whether ``GET path`` (a kernel's REST address) answers 404 within ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            user.get_json(path)
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return True
            raise
        time.sleep(0.25)
    return False


def check_dashboard(user: UserServer, path: str, api: str) -> None:
    """Open a dashboard page (``path`` under the server): live panels, no problem logged, and
    its kernel (``api`` + ``api/kernels/<id>``) ends when the page is left."""
    page = user.new_page()
    problems = bs.PageProblems(page)
    page.goto(user.url + path, timeout=TIMEOUT)
    page.locator(f"{PANEL} .widget-output img").first.wait_for(timeout=TIMEOUT)
    move_first_slider(page)
    assert not problems.list(), f"{path} ({user.kind}): {problems.list()}"
    kernel = page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )
    assert user.get_json(f"{api}api/kernels/{kernel}")["id"] == kernel
    page.goto("about:blank")  # leaving the page, as closing its tab does, fires beforeunload
    assert kernel_gone(user, f"{api}api/kernels/{kernel}"), f"{path}: kernel outlived its page"
    page.close()


def test_a_dashboard_through_voilas_server_extension(hub_user):
    check_dashboard(hub_user, f"{PREFIX}voila/render/dashboards/{DASHBOARD}", PREFIX)


def test_the_launcher_tile_serves_the_installed_dashboards_under_the_prefix(hub_user):
    info = hub_user.get_json(f"{PREFIX}server-proxy/servers-info")
    titles = {s["name"]: s["launcher_entry"]["title"] for s in info["server_processes"]}
    assert titles.get(TILE) == "bmlab dashboards", titles
    page = hub_user.new_page()
    problems = bs.PageProblems(page)
    try:
        page.goto(f"{hub_user.url}{PREFIX}{TILE}/", timeout=TIMEOUT)  # starts bmlab-present
        links = page.evaluate("() => Array.from(document.links).map(a => a.getAttribute('href'))")
        dashboards = sorted((bs.ROOT / "dashboards").glob("*.ipynb"))
        assert links == [f"{PREFIX}{TILE}/voila/render/{p.name}" for p in dashboards], links
        assert not problems.list(), problems.list()
    finally:
        page.close()
    check_dashboard(hub_user, f"{PREFIX}{TILE}/voila/render/{DASHBOARD}", f"{PREFIX}{TILE}/")


def test_install_hub_config_merges_into_an_existing_file(tmp_path):
    from bmlab_present.app import install_hub_config

    existing = {"ServerApp": {"root_dir": "/home/jovyan"}, "MappingKernelManager": {"x": 1}}
    (tmp_path / "jupyter_server_config.json").write_text(json.dumps(existing))
    path = install_hub_config(tmp_path)
    merged = json.loads(path.read_text())
    hub = json.loads(HUB_CONFIG.read_text())
    assert merged["ServerApp"] == existing["ServerApp"]
    assert merged["MappingKernelManager"] == {"x": 1, **hub["MappingKernelManager"]}
    assert merged["KernelManager"] == hub["KernelManager"]
    assert install_hub_config(tmp_path).read_text() == path.read_text()  # idempotent
