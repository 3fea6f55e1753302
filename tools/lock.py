"""One set of pins everywhere: environment.yml is generated from requirements.lock."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)")


def read_lock(path: Path = LOCK) -> dict[str, str]:
    """Package name (lower case) -> pinned version, from a pip-compile style lock file."""
    pins = {}
    for line in path.read_text().splitlines():
        match = _PIN.match(line.strip())
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def environment_yml(pins: dict[str, str]) -> str:
    """Text of environment.yml: Python and pip from conda, every locked package via pip."""
    head = """# Generated from requirements.lock by `make lock` -- do not edit by hand.
# Binder and conda/mamba users: the same pins as `make lab` and CI.
name: bmlab
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
"""
    return head + "".join(f"      - {name}=={version}\n" for name, version in sorted(pins.items()))
