"""The RBM's phase diagram (notebook 07): exact mode laws by enumeration, and tempering.

Target: the exact two-mode histogram (``mode_law`` with two modes) at N_v = 20, N_h = 500 in
<= 2 s on 2 cores. Also timed: the same with biases (no mirror symmetry: all 2**20 states),
the panel's machine (N_v = 16, N_h = 64), and block-Gibbs tempering sweeps at
N_v = N_h = 400 with 21 temperatures and 2 ladders (the spin-glass record of Section 4). Wall
times are minima over repeats; the CPU time (all threads) tells how much of a slow wall time
is other load on a shared machine.

    .venv/bin/python benchmarks/bench_phases.py
"""

from __future__ import annotations

import os
import time

import numpy as np

from bmlab.phases import mode_law, rbm_ensemble, rbm_tempering

TARGET = 2.0


def timed(f, repeat: int = 3) -> tuple[float, float]:
    """Minimum wall time and the CPU time of that run."""
    best = (np.inf, np.inf)
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        f()
        best = min(best, (time.perf_counter() - w, time.process_time() - c))
    return best


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rng = np.random.default_rng(0)
    W, U, _ = rbm_ensemble(20, 500, [1.0, 1.0], components="laplace", orthogonal=True, rng=rng)
    wall, cpu = timed(lambda: mode_law(W, U, beta=1.3))
    verdict = "met" if wall <= TARGET else "missed"
    print(
        f"mode_law, N_v = 20, N_h = 500, two modes: {wall:.2f} s (CPU {cpu:.2f} s); "
        f"target <= {TARGET} s: {verdict}"
    )
    a, b = rng.normal(0, 0.1, 20), rng.normal(0, 0.1, 500)
    wall, cpu = timed(lambda: mode_law(W, U, a, b, beta=1.3))
    print(f"  the same with biases (all 2**20 states): {wall:.2f} s (CPU {cpu:.2f} s)")
    W16, U16, _ = rbm_ensemble(16, 64, [1.0, 1.0], orthogonal=True, rng=rng)
    wall, cpu = timed(lambda: mode_law(W16, U16, beta=1.3), repeat=10)
    print(f"mode_law, N_v = 16, N_h = 64 (the panel): {wall * 1e3:.0f} ms (CPU {cpu * 1e3:.0f} ms)")
    W400, _, _ = rbm_ensemble(400, 400, sigma=1.0, rng=rng)
    betas = 1 / np.linspace(1.5, 0.5, 21)
    wall, cpu = timed(lambda: rbm_tempering(W400, betas=betas, n_sweeps=200, rng=rng), repeat=2)
    print(
        f"rbm_tempering, N_v = N_h = 400, 21 betas, 2 ladders: {200 / wall:.0f} sweeps/s "
        f"(CPU {cpu / 200 * 1e3:.1f} ms per sweep)"
    )


if __name__ == "__main__":
    main()
