"""Record how long exact log Z takes on this machine (notebook 02, measured cost).

Times :func:`bmlab.log_partition` (half-split enumeration) on dense random machines for
N = 10..30 and a naive enumeration (all 2**N states and energies in one array, then one
log-sum-exp) for N = 10..20, on the same machines (same seed, same draw order), and writes
``bmlab/recorded/log_partition_timings.json``. Takes about a minute.

Run: ``.venv/bin/python benchmarks/record_log_partition_timings.py``
"""

from __future__ import annotations

import time

import numpy as np
from recording import save_results
from scipy.special import logsumexp

import bmlab

SEED = 2
N_BMLAB = list(range(10, 31))
N_NAIVE = list(range(10, 21))
SOURCES = [
    "bmlab/_checks.py",
    "bmlab/_parallel.py",
    "bmlab/exact.py",
    "bmlab/_kernels.py",
    "benchmarks/record_log_partition_timings.py",
]


def random_dense_machine(n: int, *, rng: np.random.Generator):
    """J_ij ~ N(0, 1/N) (symmetric, zero diagonal) and theta_i ~ N(0, 0.1^2)."""
    J = np.triu(rng.normal(scale=1.0 / np.sqrt(n), size=(n, n)), 1)
    return J + J.T, rng.normal(scale=0.1, size=n)


def naive_log_partition(J, theta) -> float:
    """log Z with all 2**N states and energies held at once (N <= 20: about 0.35 GB)."""
    S = bmlab.all_states(J.shape[0])
    return float(logsumexp(-bmlab.energy(S, J, theta)))


METHODS = {"bmlab": bmlab.log_partition, "naive": naive_log_partition}


def time_log_partition(ns, *, method: str = "bmlab", rng: np.random.Generator, repeat: int = 3):
    """Best-of-``repeat`` seconds and the log Z of one random machine per N in ``ns``."""
    secs, log_z = np.empty(len(ns)), np.empty(len(ns))
    for k, n in enumerate(ns):
        J, theta = random_dense_machine(n, rng=rng)
        best = np.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            value = METHODS[method](J, theta)
            best = min(best, time.perf_counter() - t0)
        secs[k], log_z[k] = best, value
    return secs, log_z


def _repeat(n: int) -> int:
    return 7 if n <= 20 else 3


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
        t, z = time_log_partition([n], method="naive", rng=rng, repeat=3)
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
            "timing": "best of 7 (N<=20) or 3 (N>20) runs; naive best of 3",
        },
        sources=SOURCES,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
