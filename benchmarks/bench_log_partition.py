"""Exact log Z: bmlab's half-split enumeration vs a naive full-matrix enumeration.

Dense random machines (J_ij ~ N(0, 1/N), small random biases). The naive method builds all
2**N states and their energies at once, so it is timed only up to N = 20. Targets on 2 cores:
N=20 <= 0.05 s, N=28 <= 4 s, N=30 <= 15 s.

    .venv/bin/python benchmarks/bench_log_partition.py
"""

from __future__ import annotations

import numpy as np
from record_log_partition_timings import time_log_partition  # same machines and timer

TARGETS = {20: 0.05, 28: 4.0, 30: 15.0}


def main() -> None:
    naive_t, naive_z = time_log_partition(
        [20], method="naive", rng=np.random.default_rng(0), repeat=3
    )
    print(f"naive full-matrix enumeration, N=20: {naive_t[0]:.3g} s")
    print(f"{'N':>3} {'bmlab s':>9} {'x naive':>8}  target")
    for n in (20, 24, 28, 30):
        t, z = time_log_partition(
            [n], method="bmlab", rng=np.random.default_rng(0), repeat=5 if n <= 24 else 1
        )
        speedup = f"{naive_t[0] / t[0]:8.0f}" if n == 20 else " " * 8
        if n == 20:
            assert abs(z[0] - naive_z[0]) < 1e-9 * abs(naive_z[0]), "methods disagree"
        target = TARGETS.get(n)
        verdict = ""
        if target is not None:
            verdict = f"<= {target:g} s: {'met' if t[0] <= target else 'MISSED'}"
        print(f"{n:>3} {t[0]:>9.3g} {speedup}  {verdict}")


if __name__ == "__main__":
    main()
