"""Record how long exact log Z takes on this machine (notebook 02, measured cost).

Times :func:`bmlab.log_partition` (half-split enumeration) on dense random machines for
N = 10..30 and the naive full-matrix enumeration :func:`bmlab.ledger.naive_log_partition`
for N = 10..20, on the same machines (same seed, same draw order), and writes
``bmlab/recorded/log_partition_timings.json``. Takes about a minute.

Run: ``.venv/bin/python benchmarks/record_log_partition_timings.py``
"""

from __future__ import annotations

import numpy as np

from bmlab.ledger import time_log_partition
from bmlab.results import save_results

SEED = 2
N_BMLAB = list(range(10, 31))
N_NAIVE = list(range(10, 21))
SOURCES = [
    "bmlab/_parallel.py",
    "bmlab/exact.py",
    "bmlab/ledger.py",
    "benchmarks/record_log_partition_timings.py",
]


def _repeat(n: int) -> int:
    return 7 if n <= 20 else 3 if n <= 26 else 1


def main() -> None:
    # Same seed and the same leading N values: both methods see identical machines.
    bm_t, bm_z = [], []
    rng = np.random.default_rng(SEED)
    for n in N_BMLAB:
        t, z = time_log_partition([n], method="bmlab", rng=rng, repeat=_repeat(n))
        bm_t.append(float(t[0]))
        bm_z.append(float(z[0]))
        print(f"bmlab N={n:2d}: {t[0]:.4g} s", flush=True)
    nv_t, nv_z = [], []
    rng = np.random.default_rng(SEED)
    for n in N_NAIVE:
        t, z = time_log_partition([n], method="naive", rng=rng, repeat=min(_repeat(n), 3))
        nv_t.append(float(t[0]))
        nv_z.append(float(z[0]))
        print(f"naive N={n:2d}: {t[0]:.4g} s", flush=True)
    agree = float(np.max(np.abs(np.array(bm_z[: len(nv_z)]) - np.array(nv_z))))
    print(f"max |log Z bmlab - log Z naive| = {agree:.2e}")
    path = save_results(
        "log_partition_timings",
        {
            "bmlab": {"N": N_BMLAB, "seconds": bm_t, "log_z": bm_z},
            "naive": {"N": N_NAIVE, "seconds": nv_t, "log_z": nv_z},
            "max_abs_log_z_difference": agree,
        },
        params={
            "seed": SEED,
            "machines": "dense random: J_ij ~ N(0, 1/N), theta_i ~ N(0, 0.01)",
            "timing": "best of 7 (N<=20), 3 (N<=26), 1 (N>26) runs; naive at most 3",
        },
        sources=SOURCES,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
