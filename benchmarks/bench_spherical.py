"""The spherical machine at N = 1000: exact log Z and <x x^T> against one eigendecomposition.

W = J + 2 u u^T, J_ij ~ N(0, 1/N) (semicircle on [-2, 2] and one outlier): uncondensed at
beta = 0.3, condensed at beta = 3. Target: ``SphericalBM(W).log_partition()`` in at most 1.3
times ``numpy.linalg.eigvalsh(W)`` (the eigenvalues are all it needs and most of its time).
Also: the exact sampler's throughput and its exact acceptance rate at N = 10, 100, 1000,
great-circle heat-bath steps per second, and one training update with W diagonal in the data's
eigenbasis; then one step of the posterior sampler of notebook 06b at N = 100, 400 and 1000
(target: about one eigendecomposition). Times are minima over repeats; on a shared machine
read the ratios.

    .venv/bin/python benchmarks/bench_spherical.py
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import brentq

from bmlab import (
    ExactSphericalGradient,
    PCDSphericalGradient,
    SphericalBM,
    spherical_moments,
    spherical_posterior,
)

BETAS = {"uncondensed": 0.3, "condensed": 3.0}


def spiked(n: int, rng) -> np.ndarray:
    A = rng.normal(0.0, 1.0 / np.sqrt(2 * n), (n, n))
    u = rng.normal(size=n)
    return A + A.T + 2.0 * np.outer(u, u) / (u @ u)


def _seconds(f) -> float:
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def in_eighs(f, W, repeat: int = 5, unit=np.linalg.eigh) -> float:
    """The time of ``f`` in units of ``unit(W)`` (default ``numpy.linalg.eigh``): each timed in
    turn, ``repeat`` times, the ratio of the two minima (robust to a load that changes during
    the run)."""
    pairs = [(_seconds(f), _seconds(lambda: unit(W))) for _ in range(repeat)]
    return min(p[0] for p in pairs) / min(p[1] for p in pairs)


def acceptance(lam, beta) -> float:
    """The sampler's exact acceptance rate Z det(Omega)^(1/2) / M (Kent et al. 2018), i.e.
    log rate = log Z - t z* + 1/2 sum_i log(z* - beta lam_i) + t with t = N/2."""
    a, t = beta * lam, lam.size / 2
    z = brentq(lambda z: np.sum(1 / (z - a)) - lam.size, a.max() + 1e-10, a.max() + 2)
    return float(np.exp(spherical_moments(lam, beta)[0] - t * z + 0.5 * np.sum(np.log(z - a)) + t))


def posterior_step(n: int = 100, steps: int = 200) -> None:
    """One step of ``spherical_posterior`` (MALA: one eigendecomposition, one exact log Z and
    <x x^T>, the Metropolis test) at size n, in units of one ``eigh`` of a dense n x n matrix
    (``spiked``): the marginal cost of ``steps`` more steps (the chain's set-up excluded).
    Then what any such step must do, timed as a loop of the same length: draw the n^2 normal
    numbers of the noise, form the proposal and decompose it (no log Z, no gradient); and the
    exact log Z and <y^2> of the dense matrix's eigenvalues alone."""
    rng = np.random.default_rng(2)
    u = np.eye(n)[-1]
    X = SphericalBM(3.0 * np.outer(u, u)).sample(n, rng=rng)
    W = spiked(n, rng)
    lam = np.linalg.eigvalsh(W)

    def chain(burn_in: int) -> None:
        kwargs = dict(gamma=30.0, eta=1.0, n_samples=1, step=1e-4, rng=rng)
        spherical_posterior(X, burn_in=burn_in, **kwargs)

    def floor() -> None:
        for _ in range(steps):
            np.linalg.eigh(W + 1e-2 * rng.standard_normal((n, n)))

    def best(f, repeat: int = 5) -> float:
        return min(_seconds(f) for _ in range(repeat))

    t_eigh = min(_seconds(lambda: np.linalg.eigh(W)) for _ in range(20))
    t_step = (best(lambda: chain(steps)) - best(lambda: chain(0))) / steps
    t_floor = best(floor) / steps
    t_moments = min(_seconds(lambda: spherical_moments(lam)) for _ in range(20))
    print(
        f"N = {n}: one posterior step (bmlab.spherical_posterior) {t_step / t_eigh:.2f} x eigh "
        f"({t_step * 1e3:.2f} ms; eigh {t_eigh * 1e3:.2f} ms); noise, proposal and eigh alone "
        f"in a loop {t_floor / t_eigh:.2f} x; exact log Z and <y^2> {t_moments / t_eigh:.2f} x"
    )


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1000
    W = spiked(n, rng)
    t_eigh = min(_seconds(lambda: np.linalg.eigh(W)) for _ in range(3))
    model = SphericalBM(W)
    print(f"N = {n}: numpy.linalg.eigh(W) {t_eigh * 1e3:.0f} ms (the unit below, 'x eigh')")
    t_total = in_eighs(lambda: SphericalBM(W).log_partition(), W, unit=np.linalg.eigvalsh)
    print(
        f"  SphericalBM(W).log_partition(), eigenvalues included: {t_total:.2f} x eigvalsh "
        "(numpy.linalg.eigvalsh(W), the eigenvalues alone)"
    )
    for phase, beta in BETAS.items():
        share = spherical_moments(model.lam, beta)[1][-1] / n
        t_z = in_eighs(lambda b=beta: model.log_partition(b), W)
        t_s = in_eighs(lambda b=beta: model.second_moment(b), W)
        print(f"  {phase} (beta = {beta}, top share {share:.3f}), given the eigendecomposition:")
        print(f"    log Z {t_z:.3f} x eigh, <x x^T> {t_s:.3f} x eigh")
        t_draw = in_eighs(lambda b=beta: model.sample(1000, beta=b, rng=rng), W, repeat=3)
        print(f"    sampler: 1000 exact draws in {t_draw:.2f} x eigh")
        X = model.sample(100, beta=beta, rng=rng)
        t_chain = in_eighs(lambda b=beta, X=X: model.heat_bath(X, 10, beta=b, rng=rng), W, 3)
        print(f"    heat bath, 100 chains: 10 steps in {t_chain:.2f} x eigh")
    Y = model.sample(1000, beta=1.0, rng=rng) @ model.U  # data in the eigenbasis of W
    params = {"W": np.zeros(n)}  # W diagonal in that basis: how notebook 06 trains
    t_exact = in_eighs(lambda: ExactSphericalGradient(Y)(params), W)
    pcd = PCDSphericalGradient(Y, k=10, n_chains=100)
    t_pcd = in_eighs(lambda: pcd(params, rng), W, repeat=3)
    print(f"  one update, diagonal W: exact {t_exact:.3f} x eigh,", end=" ")
    print(f"PCD (k = 10, 100 chains) {t_pcd:.3f} x eigh")
    print("exact acceptance rate of the sampler (W as above at each N)")
    print(f"  {'N':>5} " + " ".join(f"{p:>12}" for p in BETAS))
    for size in (10, 100, 1000):
        lam = np.linalg.eigvalsh(spiked(size, np.random.default_rng(1)))
        print(f"  {size:>5} " + " ".join(f"{acceptance(lam, b):12.3f}" for b in BETAS.values()))


if __name__ == "__main__":
    main()
    for size, steps in ((100, 200), (400, 40), (1000, 10)):
        posterior_step(size, steps)
