"""Parallel tempering against exact enumeration.

Thresholds: chi-square at the 0.999 quantile; z-scores < 5; detailed balance to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest
from machines import TRIANGLE, random_machine
from scipy import stats

import bmlab
from bmlab import glauber


def _chi2(counts, p):
    return np.sum((counts - counts.sum() * p) ** 2 / (counts.sum() * p))


def _target_chi2(monkeypatch=None, wrong_sign=False):
    """Chi-square of the coldest replica's final states (20 000 independent chains)."""
    J, theta = random_machine(4, np.random.default_rng(11), scale=1.2)  # frustrated, biased
    if wrong_sign:
        monkeypatch.setattr(
            glauber,
            "_swap_probability",
            lambda b0, b1, e0, e1: np.exp(np.minimum(0.0, -(b1 - b0) * (e1 - e0))),
        )
    run = bmlab.parallel_tempering(
        J,
        theta,
        betas=np.geomspace(0.2, 2.0, 5),
        n_sweeps=20,
        n_chains=20_000,
        rng=np.random.default_rng(5),
    )
    assert run.states.shape == (20, 20_000, 4) and run.states.dtype == np.int8
    counts = np.bincount(bmlab.state_codes(run.states[-1]), minlength=16)
    return _chi2(counts, bmlab.boltzmann_probs(J, theta, 2.0))


def test_target_replica_chi_square_against_exact_law():
    assert _target_chi2() < stats.chi2.ppf(0.999, df=15)


def test_chi_square_catches_a_wrong_swap_sign(monkeypatch):
    assert _target_chi2(monkeypatch, wrong_sign=True) > stats.chi2.ppf(0.999, df=15)


def _swap_matrix(rule, J, theta, b1, b2):
    """Exact swap move on the 16 joint states (x1, x2) of two 2-spin replicas; index 4 x1 + x2."""
    E = bmlab.energy(bmlab.all_states(2), J, theta)
    x1, x2 = np.divmod(np.arange(16), 4)
    accept = rule(b1, b2, E[x1], E[x2])
    T = np.zeros((16, 16))
    T[np.arange(16), 4 * x2 + x1] += accept  # the swapped pair (x2, x1)
    T[np.arange(16), np.arange(16)] += 1.0 - accept
    pi = bmlab.boltzmann_probs(J, theta, b1)[x1] * bmlab.boltzmann_probs(J, theta, b2)[x2]
    return T, pi


def test_swap_move_detailed_balance_on_the_joint_space():
    J, theta = np.array([[0.0, 0.9], [0.9, 0.0]]), np.array([0.4, -0.7])
    T, pi = _swap_matrix(glauber._swap_probability, J, theta, 0.5, 1.7)
    np.testing.assert_allclose(T.sum(axis=1), 1.0, atol=1e-14)
    flow = pi[:, None] * T
    assert np.abs(flow - flow.T).max() < 1e-12
    assert np.abs(pi @ T - pi).max() < 1e-12
    wrong = lambda b1, b2, e1, e2: np.exp(np.minimum(0.0, (b2 - b1) * (e1 - e2)))
    T, pi = _swap_matrix(wrong, J, theta, 0.5, 1.7)
    flow = pi[:, None] * T
    assert np.abs(flow - flow.T).max() > 1e-3  # the test can fail


def test_swap_rate_matches_the_exact_expected_acceptance():
    """Two temperatures on the triangle: the mean acceptance under p_b1 x p_b2 (enumerated),
    against the measured rates of 10 independent runs (z < 5; the start is forgotten in a
    few of the 500 sweeps)."""
    b1, b2 = 0.4, 1.2
    E = bmlab.energy(bmlab.all_states(3), TRIANGLE)
    p1, p2 = bmlab.boltzmann_probs(TRIANGLE, None, b1), bmlab.boltzmann_probs(TRIANGLE, None, b2)
    exact = p1 @ glauber._swap_probability(b1, b2, E[:, None], E[None, :]) @ p2
    rates = np.array(
        [
            bmlab.parallel_tempering(
                TRIANGLE, betas=[b1, b2], n_sweeps=500, n_chains=200, rng=np.random.default_rng(s)
            ).swap_rates
            for s in range(10)
        ]
    )
    assert rates.shape == (10, 1) and np.all((rates >= 0) & (rates <= 1))
    z = (rates.mean() - exact) / (rates.std(ddof=1) / np.sqrt(len(rates)))
    assert abs(z) < 5, (rates.mean(), exact, z)


def test_ferromagnet_target_visits_both_basins():
    J = (np.ones((10, 10)) - np.eye(10)) / 10
    run = bmlab.parallel_tempering(
        J, betas=np.geomspace(0.5, 3.0, 8), n_sweeps=400, rng=np.random.default_rng(0)
    )
    m = run.states[:, 0].mean(axis=1)
    assert (m > 0).mean() == pytest.approx(0.5, abs=0.25)
    assert run.swap_rates.shape == (7,) and np.all(run.swap_rates > 0.2)


def test_bad_betas_are_named():
    rng = np.random.default_rng(0)
    for betas in ([1.0], [2.0, 1.0], [0.0, 1.0], [[0.5, 1.0]], [0.5, np.nan]):
        with pytest.raises(ValueError, match="betas"):
            bmlab.parallel_tempering(TRIANGLE, betas=betas, n_sweeps=2, rng=rng)
    with pytest.raises(TypeError, match="rng"):
        bmlab.parallel_tempering(TRIANGLE, betas=[0.5, 1], n_sweeps=2, rng=np.random.RandomState(0))
