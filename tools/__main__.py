"""``python -m tools execute|sync|present|site|env-yml|answer-hash``, from the repository root."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def present(port: int, directory: str) -> None:
    """Serve a folder of dashboards on 127.0.0.1 (``make present``): what ``bmlab-present``
    does with the installed dashboards (:mod:`bmlab_present.app`)."""
    from bmlab_present.app import serve

    serve(directory, port=port)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("execute", help="re-execute notebooks in place")
    ex.add_argument("paths", nargs="+")
    sy = sub.add_parser(
        "sync", help="rewrite jupytext pairs as jupytext writes them (default: every pair)"
    )
    sy.add_argument("paths", nargs="*")
    pr = sub.add_parser("present", help="serve Voila dashboards on 127.0.0.1 (make present)")
    pr.add_argument("--port", type=int, default=8866)
    pr.add_argument("directory", nargs="?", default="dashboards")
    site = sub.add_parser("site", help="build the offline static site (make site)")
    site.add_argument("out", nargs="?", default="site")
    sub.add_parser("env-yml", help="print environment.yml generated from requirements.lock")
    ah = sub.add_parser("answer-hash", help="print an exercise answer's hash for exercises.json")
    ah.add_argument("exercise_id")
    ah.add_argument("answer", type=float)
    ah.add_argument("decimals", type=int)
    args = parser.parse_args(argv)
    if args.command == "execute":
        from .notebooks import execute

        execute([str(Path(p).resolve()) for p in args.paths])
    elif args.command == "sync":
        from .notebooks import pairs, sync

        for line in sync([Path(p) for p in args.paths] or pairs()) or ["every pair as written"]:
            print(line)
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
