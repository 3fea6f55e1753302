"""``bmlab-present``: Voila on the dashboards, behind any prefix, with an index by title.

What it adds to plain ``voila DIR``:

- an index page listing the folder's dashboards by their notebooks' titles, one large link per
  line for a 1920x1080 projector, every link under the base URL (``templates/tree.html``);
- ``--base-url``/``--server-url`` for serving behind a prefix (a JupyterHub user's
  ``/user/NAME/bmlab-dashboards/`` through jupyter-server-proxy, a reverse proxy): the pages
  ask for every asset, kernel and dashboard under the base URL;
- the sliced kernel client (:mod:`bmlab_present.kernel_client`): a first page never hangs at
  "Executing 1 of 2";
- dashboard pages that ask no outside host for anything (``templates/index.html.j2``) and load
  only the widget manager among the JupyterLab extensions installed beside Voila (others, such
  as jupytext's, fail to load in Voila and log errors);
- a closed page ends its kernel: Voila's page asks the server to shut its kernel down as it
  closes, which the server accepts only with an XSRF cookie, so every dashboard page sets one;
  a kernel whose page vanished without asking (a crashed browser) is culled after
  ``--cull-idle-timeout`` seconds without a connection.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .kernel_client import CLIENT

TEMPLATES = Path(__file__).parent / "templates"
#: The only JupyterLab extensions a dashboard page loads: the widget managers.
EXTENSIONS = ["@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8"]


def title_of(notebook: Path) -> str:
    """The first ``# `` heading of a notebook's first markdown cell, or its file name."""
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            first = "".join(cell["source"]).lstrip().split("\n", 1)[0]
            return first[2:].strip() if first.startswith("# ") else notebook.stem
    return notebook.stem


def voila_argv(
    directory: str,
    *,
    port: int,
    ip: str = "127.0.0.1",
    base_url: str = "/",
    server_url: str | None = None,
    cull_idle_timeout: int = 600,
) -> list[str]:
    """The command line Voila is started with."""
    argv = [
        "--no-browser",
        f"--Voila.ip={ip}",
        f"--port={port}",
        "--Voila.port_retries=0",  # the printed address is the one served
        f"--Voila.base_url={base_url}",
        f"--KernelManager.client_class={CLIENT}",
        "--VoilaConfiguration.classic_tree=True",  # a server-side index: no blank page first
        f"--VoilaConfiguration.extension_allowlist={json.dumps(EXTENSIONS)}",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout}",
        "--MappingKernelManager.cull_interval=60",
        directory,
    ]
    if server_url is not None:
        argv.insert(-1, f"--Voila.server_url={server_url}")
    return argv


def serve(directory: str, **options) -> None:
    """Serve the dashboards of ``directory`` (see :func:`voila_argv` for ``options``); bmlab is
    imported here, before the server starts, not on the first page."""
    from voila.app import Voila
    from voila.tornado.handler import TornadoVoilaHandler

    import bmlab  # noqa: F401

    class Render(TornadoVoilaHandler):
        async def prepare(self):
            await super().prepare()
            self.xsrf_token  # noqa: B018 -- sets the cookie the closing page sends back

    class Present(Voila):
        def setup_template_dirs(self):
            super().setup_template_dirs()
            self.template_paths.insert(0, str(TEMPLATES))

        def init_settings(self):
            settings = super().init_settings()
            root = Path(self.root_dir)
            settings["voila_jinja2_env"].globals["title_of"] = lambda path: title_of(root / path)
            return settings

        def init_handlers(self):
            handlers = super().init_handlers()
            return [(h[0], Render, *h[2:]) if h[1] is TornadoVoilaHandler else h for h in handlers]

    Present.launch_instance(voila_argv(directory, **options))


def main(argv: list[str] | None = None) -> None:
    from . import dashboard_dir

    parser = argparse.ArgumentParser(
        prog="bmlab-present", description="Serve the bmlab dashboards for projection (Voila)."
    )
    parser.add_argument("--port", type=int, default=8866)
    parser.add_argument("--ip", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--base-url", default="/", help="the URL prefix the browser sees, e.g. /user/ana/present/"
    )
    parser.add_argument(
        "--server-url",
        default=None,
        help="the prefix the server is reached at, if a proxy removes the base URL (e.g. /)",
    )
    parser.add_argument(
        "--cull-idle-timeout",
        type=int,
        default=600,
        help="seconds after which a kernel with no open page is ended (0: never)",
    )
    parser.add_argument(
        "directory", nargs="?", default=None, help="folder of dashboards (default: installed)"
    )
    args = parser.parse_args(argv)
    base_url = "/" + args.base_url.strip("/") + "/" if args.base_url.strip("/") else "/"
    serve(
        args.directory or str(dashboard_dir()),
        port=args.port,
        ip=args.ip,
        base_url=base_url,
        server_url=args.server_url,
        cull_idle_timeout=args.cull_idle_timeout,
    )
