"""``python -m tools execute|present|site|env-yml|heading-ids|answer-hash``, from the repository
root."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .kernel_client import CLIENT


def title_of(notebook: Path) -> str:
    """The first ``# `` heading of a notebook's first markdown cell, or its file name."""
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            first = "".join(cell["source"]).lstrip().split("\n", 1)[0]
            return first[2:].strip() if first.startswith("# ") else notebook.stem
    return notebook.stem


def present(port: int, directory: str) -> None:
    """Serve the Voila dashboards on 127.0.0.1 (``make present``); bmlab is imported here,
    before the server starts, not on the first page. The index page lists the folder's
    dashboards by title (``tools/present/tree.html``, read at every request)."""
    from voila.app import Voila

    import bmlab  # noqa: F401

    class Present(Voila):
        def setup_template_dirs(self):
            super().setup_template_dirs()
            self.template_paths.insert(0, str(Path(__file__).parent / "present"))

        def init_settings(self):
            settings = super().init_settings()
            root = Path(self.root_dir)
            settings["voila_jinja2_env"].globals["title_of"] = lambda path: title_of(root / path)
            return settings

    Present.launch_instance(
        [
            "--no-browser",
            "--Voila.ip=127.0.0.1",
            f"--port={port}",
            "--Voila.port_retries=0",  # the printed address is the one served
            f"--KernelManager.client_class={CLIENT}",
            "--VoilaConfiguration.classic_tree=True",  # a server-side index: no blank page first
            directory,
        ]
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("execute", help="re-execute notebooks in place")
    ex.add_argument("paths", nargs="+")
    pr = sub.add_parser("present", help="serve Voila dashboards on 127.0.0.1 (make present)")
    pr.add_argument("--port", type=int, default=8866)
    pr.add_argument("directory", nargs="?", default="dashboards")
    site = sub.add_parser("site", help="build the offline static site (make site)")
    site.add_argument("out", nargs="?", default="site")
    sub.add_parser("env-yml", help="print environment.yml generated from requirements.lock")
    hi = sub.add_parser("heading-ids", help="give Markdown headings their anchors as cell ids")
    hi.add_argument("paths", nargs="+")
    ah = sub.add_parser("answer-hash", help="print an exercise answer's hash for exercises.json")
    ah.add_argument("exercise_id")
    ah.add_argument("answer", type=float)
    ah.add_argument("decimals", type=int)
    args = parser.parse_args(argv)
    if args.command == "execute":
        from .notebooks import execute

        execute([str(Path(p).resolve()) for p in args.paths])
    elif args.command == "heading-ids":
        from .notebooks import heading_ids, write

        for path in map(Path, args.paths):
            write(path, heading_ids(json.loads(path.read_text())))
    elif args.command == "present":
        present(args.port, args.directory)
    elif args.command == "site":
        from .site import build_site

        print(f"wrote {build_site(Path(args.out))}")
    elif args.command == "answer-hash":
        from bmlab.exercises import answer_hash

        print(answer_hash(args.exercise_id, args.answer, args.decimals))
    else:
        from .lock import environment_yml, read_lock

        sys.stdout.write(environment_yml(read_lock()))


if __name__ == "__main__":
    main()
