"""Glauber spin updates per second: bmlab's vectorised sampler vs a one-chain Python loop.

The reference loop updates one randomly chosen spin at a time, as a student would write the
Figure 5.3 experiment. Ratios are measured in one run on this machine.

    .venv/bin/python benchmarks/bench_glauber.py
"""

from __future__ import annotations

import time

import numpy as np

import bmlab


def random_machine(n, rng):
    A = rng.normal(size=(n, n)) / np.sqrt(n)
    J = (A + A.T) / 2
    np.fill_diagonal(J, 0.0)
    return J, rng.normal(size=n) * 0.1


def python_loop_updates_per_second(J, n_updates, rng):
    """One chain, one random site per step, flip with probability 1/(1+e^{dE})."""
    n = J.shape[0]
    s = np.ones(n)
    start = time.perf_counter()
    for _ in range(n_updates):
        k = rng.integers(n)
        dE = 2 * s[k] * (J[k] @ s)
        if rng.random() < 1 / (1 + np.exp(dE)):
            s[k] = -s[k]
    return n_updates / (time.perf_counter() - start)


def bmlab_updates_per_second(J, theta, n_chains, n_sweeps, order, rng, repeats=3):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        bmlab.glauber_sample(J, theta, n_chains=n_chains, n_sweeps=n_sweeps, order=order, rng=rng)
        best = min(best, time.perf_counter() - start)
    return J.shape[0] * n_chains * n_sweeps / best


def main():
    rng = np.random.default_rng(0)
    J3, theta3 = random_machine(3, rng)
    loop = python_loop_updates_per_second(J3, 60_000, rng)
    print(f"one-chain Python loop (N=3): {loop:.3g} updates/s")
    print(f"{'N':>4} {'chains':>8} {'order':>11} {'updates/s':>11} {'x loop':>8}  target")
    targets = {(3, "sequential"): 5e7, (100, "sequential"): 2e7}
    for n, n_chains, n_sweeps in [(3, 100_000, 40), (100, 10_000, 4)]:
        J, theta = (J3, theta3) if n == 3 else random_machine(n, rng)
        for order in ("sequential", "random"):
            rate = bmlab_updates_per_second(J, theta, n_chains, n_sweeps, order, rng)
            target = targets.get((n, order))
            verdict = ""
            if target is not None:
                verdict = f">= {target:.0e}: {'met' if rate >= target else 'MISSED'}"
            print(f"{n:>4} {n_chains:>8} {order:>11} {rate:>11.3g} {rate / loop:>8.0f}  {verdict}")


if __name__ == "__main__":
    main()
