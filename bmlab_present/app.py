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
- ``--hub-config`` prints the same settings for every user's Jupyter server of a course's
  image (Voila's server extension: ``/user/NAME/voila/render/...``), and
  ``--install-hub-config`` merges them into the environment's ``jupyter_server_config.json``;
- a closed page ends its kernel (``templates/index.html.j2`` says how); a kernel whose page
  vanished without asking (a crashed browser) is culled after ``--cull-idle-timeout`` seconds
  without a connection.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .kernel_client import CLIENT

TEMPLATES = Path(__file__).parent / "templates"
#: Settings for every user's Jupyter server in a course's image (``--install-hub-config``
#: merges them into the environment's ``etc/jupyter/jupyter_server_config.json``): Voila's
#: server extension renders dashboards with the sliced client, the "bmlab" page template and
#: the widget managers only, and kernels without an open page are culled after 20 idle minutes.
HUB_CONFIG = Path(__file__).parent / "jupyter_server_config.json"
#: The only JupyterLab extensions a dashboard page loads: the widget managers.
EXTENSIONS = json.loads(HUB_CONFIG.read_text())["VoilaConfiguration"]["extension_allowlist"]


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


def install_hub_config(folder: Path) -> Path:
    """Merge :data:`HUB_CONFIG` into ``folder/jupyter_server_config.json`` (made if missing;
    the settings of other sections are kept), e.g. ``sys.prefix/etc/jupyter``, which every
    Jupyter server of the environment reads."""
    path = folder / "jupyter_server_config.json"
    config = json.loads(path.read_text()) if path.exists() else {}
    for section, values in json.loads(HUB_CONFIG.read_text()).items():
        config.setdefault(section, {}).update(values)
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def serve(directory: str, **options) -> None:
    """Serve the dashboards of ``directory`` (see :func:`voila_argv` for ``options``); bmlab is
    imported here, before the server starts, not on the first page."""
    from voila.app import Voila

    import bmlab  # noqa: F401

    class Present(Voila):
        def setup_template_dirs(self):
            super().setup_template_dirs()
            self.template_paths.insert(0, str(TEMPLATES))

        def init_settings(self):
            settings = super().init_settings()
            root = Path(self.root_dir)
            settings["voila_jinja2_env"].globals["title_of"] = lambda path: title_of(root / path)
            return settings

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
        "--hub-config",
        action="store_true",
        help="print the Jupyter server settings for a course's image and exit (README)",
    )
    parser.add_argument(
        "--install-hub-config",
        action="store_true",
        help="merge them into this environment's jupyter_server_config.json and exit",
    )
    parser.add_argument(
        "directory", nargs="?", default=None, help="folder of dashboards (default: installed)"
    )
    args = parser.parse_args(argv)
    if args.hub_config:
        print(HUB_CONFIG.read_text(), end="")
        return
    if args.install_hub_config:
        print(f"wrote {install_hub_config(Path(sys.prefix) / 'etc' / 'jupyter')}")
        return
    base_url = "/" + args.base_url.strip("/") + "/" if args.base_url.strip("/") else "/"
    serve(
        args.directory or str(dashboard_dir()),
        port=args.port,
        ip=args.ip,
        base_url=base_url,
        server_url=args.server_url,
        cull_idle_timeout=args.cull_idle_timeout,
    )
