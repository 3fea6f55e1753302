"""Re-run every script that records results too slow to compute live (``make figures``).

Each ``benchmarks/record_*.py`` writes ``bmlab/recorded/<name>.json`` stamped with a hash
of the sources it used; ``tests/test_harness.py`` fails while a stamp is stale.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    scripts = sorted(HERE.glob("record_*.py"))
    for script in scripts:
        if script.name == Path(__file__).name:
            continue
        print(f"== {script.name}", flush=True)
        subprocess.run([sys.executable, str(script)], check=True, cwd=HERE.parent)


if __name__ == "__main__":
    main()
