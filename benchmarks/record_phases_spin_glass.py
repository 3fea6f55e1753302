"""Record the spin-glass line of notebook 07, Section 4: two replicas with parallel tempering.

W = r only (sigma = 1, no mode), ±1 units, N_v = N_h = N for N = 100, 200, 400, SAMPLES
machines per size. Each machine: two independent block-Gibbs ladders (``rbm_tempering``) over
the temperatures TEMPERATURES, BURN_IN sweeps discarded, then MEASURE sweeps; the overlap
q = s . s' / N of the two replicas at every temperature after every sweep. Per size we store
the disorder averages [<q^2>] and [<q^4>], the Binder cumulant g = (3 - [<q^4>] / [<q^2>]^2) / 2
and chi_SG = N [<q^2>] with jackknife errors over the machines, the swap rates, and, as an
equilibration check, [<q^2>] over the first and the second half of the measurement.

    nice python benchmarks/record_phases_spin_glass.py   # about 15 minutes of CPU

writes ``bmlab/recorded/phases_spin_glass.json``.
"""

from __future__ import annotations

import time

import numpy as np
from recording import save_results

from bmlab.phases import rbm_ensemble, rbm_tempering

SIZES = (100, 200, 400)
SAMPLES = 40
TEMPERATURES = np.round(np.linspace(0.5, 1.5, 21), 3)
BURN_IN, MEASURE = 4000, 8000
SEED = 7


def jackknife(per_sample: np.ndarray, statistic) -> tuple[float, float]:
    """statistic of the mean over machines, and its jackknife error (rows = machines)."""
    n = len(per_sample)
    full = statistic(per_sample.mean(axis=0))
    leave_one = np.array([statistic(np.delete(per_sample, i, 0).mean(axis=0)) for i in range(n)])
    return full, np.sqrt((n - 1) / n * ((leave_one - leave_one.mean(axis=0)) ** 2).sum(axis=0))


def size(n: int, rng) -> dict:
    betas = 1.0 / TEMPERATURES[::-1]  # increasing
    moments, halves, swaps = [], [], []
    start = time.perf_counter()
    for _ in range(SAMPLES):
        W, _, _ = rbm_ensemble(n, n, [], sigma=1.0, rng=rng)
        run = rbm_tempering(W, betas=betas, n_sweeps=BURN_IN + MEASURE, rng=rng)
        q = run.overlaps[BURN_IN:, ::-1, 0]  # (sweeps, temperatures in TEMPERATURES order)
        moments.append([np.mean(q**2, axis=0), np.mean(q**4, axis=0)])
        half = MEASURE // 2
        halves.append([np.mean(q[:half] ** 2, axis=0), np.mean(q[half:] ** 2, axis=0)])
        swaps.append(run.swap_rates[::-1])
    moments, halves = np.array(moments), np.array(halves)
    g, g_err = jackknife(moments, lambda m: 0.5 * (3 - m[1] / m[0] ** 2))
    chi, chi_err = jackknife(moments, lambda m: n * m[0])
    print(f"N = {n}: {time.perf_counter() - start:.0f} s", flush=True)
    return {
        "binder": np.round(g, 5).tolist(),
        "binder_err": np.round(g_err, 5).tolist(),
        "chi_sg": np.round(chi, 5).tolist(),
        "chi_sg_err": np.round(chi_err, 5).tolist(),
        "q2_first_half": np.round(n * halves[:, 0].mean(axis=0), 5).tolist(),
        "q2_second_half": np.round(n * halves[:, 1].mean(axis=0), 5).tolist(),
        "swap_rates_min": float(np.round(np.min(swaps), 4)),
    }


def main() -> None:
    rng = np.random.default_rng(SEED)
    data = {"temperatures": TEMPERATURES.tolist(), "sizes": {str(n): size(n, rng) for n in SIZES}}
    params = {
        "sigma": 1.0,
        "samples": SAMPLES,
        "burn_in": BURN_IN,
        "measure": MEASURE,
        "replicas": 2,
        "seed": SEED,
        "chi_sg": "N [<q^2>]; q2 halves also times N",
    }
    sources = [
        "bmlab/phases.py",
        "bmlab/glauber.py",
        "bmlab/exact.py",
        "bmlab/_kernels.py",
        "bmlab/_parallel.py",
        "bmlab/_checks.py",
        "benchmarks/record_phases_spin_glass.py",
    ]
    path = save_results("phases_spin_glass", data, params=params, sources=sources)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
