"""Plant plausible one-line mistakes in bmlab's core and check that the unit tests catch them.

``make mutation`` runs this script. Each mutant in ``mutants.py`` replaces one snippet of one
module (the snippet must occur exactly once, so a stale mutant fails loudly instead of silently
testing nothing), runs the unit tests that cover that module in a scratch copy of the
repository, and counts the mutant as *killed* when they fail. The report lists the score and
every survivor; CONTRIBUTING ("Mutation check") says how to read one.

Usage: ``python tests/mutation/run.py [--jobs 2] [--only SUBSTRING]``
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutants import MUTANTS, TARGET_SCORE

ROOT = Path(__file__).resolve().parents[2]
COPY = ("bmlab", "tests", "conftest.py", "pyproject.toml")
TIMEOUT = 600


def _scratch_copy(base: Path) -> Path:
    """A copy of the code and tests in which one mutant at a time is planted."""
    base.mkdir(parents=True)
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, base / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, base / name)
    return base


def _run_one(mutant, base: Path) -> tuple[str, bool, float]:
    """Plant ``mutant`` in its own copy, run its tests; True when the tests fail (killed)."""
    path = base / mutant.module
    source = path.read_text()
    path.write_text(source.replace(mutant.original, mutant.mutated, 1))
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                "-m",
                "not browser",
                *mutant.tests,
            ],
            cwd=base,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        killed = proc.returncode != 0
    except subprocess.TimeoutExpired:
        killed = True  # a mutant that hangs the tests is caught too
    finally:
        path.write_text(source)
    return mutant.name, killed, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="", help="run the mutants whose name contains this")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if args.only in m.name]
    stale = [m.name for m in chosen if (ROOT / m.module).read_text().count(m.original) != 1]
    if stale:
        print("stale mutants (snippet not found exactly once):", *stale, sep="\n  ")
        return 2
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        bases = [_scratch_copy(Path(tmp) / f"copy{j}") for j in range(args.jobs)]
        # each worker owns one copy: mutant j runs in copy j % jobs, one at a time per copy
        lanes = [chosen[j :: args.jobs] for j in range(args.jobs)]
        with ThreadPoolExecutor(args.jobs) as pool:
            futures = [
                pool.submit(lambda lane, base: [_run_one(m, base) for m in lane], lane, base)
                for lane, base in zip(lanes, bases, strict=True)
            ]
            outcomes = [row for f in futures for row in f.result()]
    killed = [name for name, dead, _ in outcomes if dead]
    survivors = sorted(name for name, dead, _ in outcomes if not dead)
    score = len(killed) / max(1, len(outcomes))
    wall = time.perf_counter() - start
    print(
        f"mutants: {len(outcomes)}, killed by the unit tests: {len(killed)} "
        f"({score:.0%}; target {TARGET_SCORE:.0%}), wall time {wall:.0f} s"
    )
    for name in survivors:
        mutant = next(m for m in MUTANTS if m.name == name)
        print(f"SURVIVED {name}: {mutant.module}: {mutant.original!r} -> {mutant.mutated!r}")
    return 0 if score >= TARGET_SCORE else 1


if __name__ == "__main__":
    sys.exit(main())
