"""Mixing diagnostics against exact enumeration, matrix powers and closed forms.

Statistical tests state their thresholds: chi-square at the 0.999 quantile, z-scores < 5,
autocorrelation times within stated relative tolerances.
"""

from __future__ import annotations

import numpy as np
import pytest
from machines import TRIANGLE, random_machine
from scipy import stats

import bmlab
from bmlab import mixing as mx


def two_state(a, b):
    return np.array([[1 - a, a], [b, 1 - b]]), np.array([b, a]) / (a + b)


# --- distances and histograms ----------------------------------------------------------


def test_tv_distance_values_and_broadcasting():
    assert mx.tv_distance([1, 0], [0, 1]) == 1.0
    assert mx.tv_distance([0.5, 0.5], [0.5, 0.5]) == 0.0
    assert mx.tv_distance([0.2, 0.3, 0.5], [0.3, 0.3, 0.4]) == pytest.approx(0.1)
    P = np.eye(3)
    d = mx.tv_distance(P, np.full(3, 1 / 3))
    np.testing.assert_allclose(d, [2 / 3] * 3)
    assert d.shape == (3,)


def test_tv_distance_rejects_mismatched_states():
    with pytest.raises(ValueError, match="p and q"):
        mx.tv_distance([0.5, 0.5], [1 / 3] * 3)
    with pytest.raises(TypeError, match="p must"):
        mx.tv_distance("ab", [1.0])


def test_empirical_distributions_matches_bincount():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 8, size=(5, 40))
    H = mx.empirical_distributions(codes, 8)
    assert H.shape == (5, 8)
    for t in range(5):
        np.testing.assert_allclose(H[t], np.bincount(codes[t], minlength=8) / 40)
    with pytest.raises(ValueError, match="codes must lie"):
        mx.empirical_distributions(codes, 4)
    with pytest.raises(ValueError, match="codes must be an integer"):
        mx.empirical_distributions(codes.astype(float), 8)


# --- exact dynamics --------------------------------------------------------------------


@pytest.mark.parametrize("n,beta,seed", [(3, 1.0, 0), (4, 0.4, 1), (5, 2.0, 2)])
def test_stationary_distribution_is_boltzmann(n, beta, seed):
    J, theta = random_machine(n, np.random.default_rng(seed))
    T = bmlab.glauber_transition_matrix(J, theta, beta)
    p = bmlab.boltzmann_probs(J, theta, beta)
    np.testing.assert_allclose(mx.stationary_distribution(T), p, atol=1e-12)
    assert mx.detailed_balance_violation(T, p) < 1e-15


def _sequential_sweep_matrix(J, theta, beta):
    """Sweep matrix of sites 0..N-1 in turn: stationary but not reversible."""
    n = J.shape[0]
    S = bmlab.all_states(n).astype(float)
    codes = np.arange(2**n)
    M = np.eye(2**n)
    for k in range(n):
        Tk = np.zeros((2**n, 2**n))
        up = codes | (1 << k)
        down = codes & ~(1 << k)
        p_up = bmlab.heat_bath_probability(S @ J[k] + theta[k], beta)
        Tk[codes, up] += p_up
        Tk[codes, down] += 1 - p_up
        M = M @ Tk
    return M


def test_sequential_sweep_is_stationary_but_not_reversible():
    J, theta = random_machine(3, np.random.default_rng(5))
    p = bmlab.boltzmann_probs(J, theta, 1.0)
    M = _sequential_sweep_matrix(J, theta, 1.0)
    np.testing.assert_allclose(p @ M, p, atol=1e-14)
    assert mx.detailed_balance_violation(M, p) > 1e-3
    with pytest.raises(ValueError, match="not reversible"):
        mx.spectral_gap(M, p)


def test_evolve_distribution_is_matrix_powers():
    T = bmlab.glauber_transition_matrix(TRIANGLE)
    p0 = np.eye(8)[[7, 2]]
    laws = mx.evolve_distribution(T, p0, 4, step=3)
    assert laws.shape == (5, 2, 8)
    for t in range(5):
        np.testing.assert_allclose(laws[t], p0 @ np.linalg.matrix_power(T, 3 * t), atol=1e-15)
    np.testing.assert_allclose(laws.sum(axis=-1), 1.0, atol=1e-14)
    assert mx.evolve_distribution(T, np.eye(8)[0], 0).shape == (1, 8)


def test_tv_from_starts_decreases_to_zero():
    J, theta = random_machine(4, np.random.default_rng(3))
    T = bmlab.glauber_transition_matrix(J, theta, 1.0)
    p = bmlab.boltzmann_probs(J, theta, 1.0)
    d = mx.tv_from_starts(T, p, np.arange(16), 200, step=4)
    assert d.shape == (201, 16)
    assert np.all(np.diff(d, axis=0) <= 1e-12)  # TV to the stationary law never increases
    assert d[-1].max() < 1e-6
    np.testing.assert_allclose(d[1, 5], mx.tv_distance(np.linalg.matrix_power(T, 4)[5], p))
    with pytest.raises(ValueError, match="starts"):
        mx.tv_from_starts(T, p, [16], 3)


def test_spectral_gap_two_state_closed_form():
    T, pi = two_state(0.3, 0.1)
    lam = mx.transition_spectrum(T, pi)
    np.testing.assert_allclose(lam, [1.0, 0.6])
    assert mx.spectral_gap(T, pi) == pytest.approx(0.4)
    assert mx.relaxation_time(T, pi) == pytest.approx(2.5)
    T, pi = two_state(0.9, 0.8)  # eigenvalue -0.7: the absolute gap is 0.3
    assert mx.spectral_gap(T, pi) == pytest.approx(0.3)


@pytest.mark.parametrize("n,beta,seed", [(3, 1.0, 0), (4, 2.0, 1), (5, 0.5, 2)])
def test_spectrum_matches_numpy_and_is_nonnegative_for_heat_bath(n, beta, seed):
    J, theta = random_machine(n, np.random.default_rng(seed))
    T = bmlab.glauber_transition_matrix(J, theta, beta)
    p = bmlab.boltzmann_probs(J, theta, beta)
    lam = mx.transition_spectrum(T, p)
    ref = np.sort(np.linalg.eigvals(T).real)[::-1]
    np.testing.assert_allclose(lam, ref, atol=1e-10)
    assert lam.min() > -1e-12  # each site update is a projection
    assert mx.spectral_gap(T, p) == pytest.approx(1 - lam[1])
    assert mx.relaxation_time(T, p, steps_per_sweep=n) == pytest.approx(1 / (1 - lam[1]) / n)


def _brute_mixing_time(T, pi, eps):
    P = np.eye(T.shape[0])
    t = 0
    while mx.tv_distance(P, pi).max() > eps:
        P = P @ T
        t += 1
    return t


@pytest.mark.parametrize("n,beta,seed", [(3, 1.0, 0), (4, 1.5, 1), (5, 0.7, 2), (4, 3.0, 4)])
def test_mixing_time_exact_and_within_spectral_bounds(n, beta, seed):
    J, theta = random_machine(n, np.random.default_rng(seed))
    T = bmlab.glauber_transition_matrix(J, theta, beta)
    p = bmlab.boltzmann_probs(J, theta, beta)
    for eps in (0.25, 0.05):
        t_mix = mx.mixing_time(T, p, eps=eps)
        assert t_mix == _brute_mixing_time(T, p, eps)
        b = mx.mixing_time_bounds(T, p, eps=eps, steps_per_sweep=n)
        assert b.lower <= t_mix / n <= b.upper
        assert b.t_rel == pytest.approx(mx.relaxation_time(T, p, steps_per_sweep=n))


def test_mixing_time_gives_up_clearly():
    T, pi = two_state(1e-6, 1e-6)
    with pytest.raises(ValueError, match="max_steps"):
        mx.mixing_time(T, pi, max_steps=100)
    with pytest.raises(ValueError, match="eps"):
        mx.mixing_time(T, pi, eps=0.6)


def test_exact_autocorr_time_closed_form_and_series():
    T, pi = two_state(0.2, 0.1)  # lam = 0.7
    assert mx.exact_autocorr_time(T, pi, [0.0, 1.0]) == pytest.approx(1.7 / 0.3)
    J, theta = random_machine(3, np.random.default_rng(7))
    T = bmlab.glauber_transition_matrix(J, theta, 1.3)
    p = bmlab.boltzmann_probs(J, theta, 1.3)
    f = bmlab.all_states(3)[:, 0].astype(float)
    g = f - p @ f
    var = p @ g**2
    rho, P = [], np.eye(8)
    for _ in range(4000):
        P = P @ T
        rho.append(p @ (g * (P @ g)) / var)
    assert mx.exact_autocorr_time(T, p, f) == pytest.approx(1 + 2 * np.sum(rho), rel=1e-8)
    with pytest.raises(ValueError, match="constant"):
        mx.exact_autocorr_time(T, p, np.ones(8))
    with pytest.raises(ValueError, match="f must have shape"):
        mx.exact_autocorr_time(T, p, np.ones(3))


# --- chain traces ----------------------------------------------------------------------


def test_integrated_autocorr_time_ar1():
    """AR(1) with coefficient a has tau = (1 + a) / (1 - a) = 9 for a = 0.8."""
    rng = np.random.default_rng(0)
    a, n, chains = 0.8, 20000, 8
    x = np.empty((n, chains))
    x[0] = rng.normal(size=chains) / np.sqrt(1 - a**2)
    noise = rng.normal(size=(n, chains))
    for t in range(1, n):
        x[t] = a * x[t - 1] + noise[t]
    assert mx.integrated_autocorr_time(x) == pytest.approx(9.0, rel=0.08)
    rho = mx.autocorrelation(x, max_lag=5)
    np.testing.assert_allclose(rho, a ** np.arange(6), atol=0.02)


def test_integrated_autocorr_time_of_glauber_chain_matches_exact():
    """Chains started from exact samples are stationary; tau per sweep within 10%."""
    J, theta = random_machine(3, np.random.default_rng(11), scale=0.8)
    beta = 1.2
    T = bmlab.glauber_transition_matrix(J, theta, beta)
    p = bmlab.boltzmann_probs(J, theta, beta)
    S = bmlab.all_states(3).astype(float)
    f = S[:, 0] * S[:, 2]
    tau_exact = mx.exact_autocorr_time(np.linalg.matrix_power(T, 3), p, f)
    rng = np.random.default_rng(12)
    init = bmlab.sample_exact(J, theta, beta=beta, n_samples=200, rng=rng)
    run = bmlab.glauber_run(J, theta, beta=beta, n_chains=200, n_sweeps=1000, init=init,
                            record_unit="sweep", rng=rng)
    tau = mx.integrated_autocorr_time(run.pair(0, 2))
    assert tau == pytest.approx(tau_exact, rel=0.10)


def test_autocorrelation_of_frozen_trace():
    x = np.ones((50, 3))
    np.testing.assert_array_equal(mx.autocorrelation(x), np.ones(50))
    assert mx.integrated_autocorr_time(x) == np.inf
    with pytest.raises(ValueError, match="n >= 2"):
        mx.autocorrelation([1.0])


def _switches_loop(x):
    out = []
    for col in np.atleast_2d(x.T):
        last, count = 0, 0
        for v in col:
            s = np.sign(v)
            if s != 0:
                if last != 0 and s != last:
                    count += 1
                last = s
        out.append(count)
    return np.array(out)


def test_basin_switches():
    assert mx.basin_switches(np.array([1, 0, 1, -1, 0, -1, 1.0])) == 2
    assert mx.basin_switches(np.array([0, 0, -1, 0, 1.0])) == 1
    assert mx.basin_switches(np.zeros(4)) == 0
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, size=(60, 7)).astype(float)
    np.testing.assert_array_equal(mx.basin_switches(x), _switches_loop(x))
    assert mx.mean_residence_time(np.array([1, 1, -1, -1.0])) == 2.0
    assert mx.mean_residence_time(np.ones((10, 2))) == 10.0


def test_basin_switches_of_a_two_state_chain_match_expectation():
    """A stationary 2-state chain flips with probability 2ab/(a+b) per step (z < 5)."""
    a = b = 0.05
    T, _ = two_state(a, b)
    rng = np.random.default_rng(1)
    path = mx.markov_path(T, 40000, start=0, rng=rng)
    n_switch = mx.basin_switches(2.0 * path - 1.0)
    expected = 40000 * a
    # with a = b every step flips with probability a, independently: binomial counts
    assert abs(n_switch - expected) / np.sqrt(40000 * a * (1 - a)) < 5


# --- path sampling ---------------------------------------------------------------------


def test_markov_path_transitions_chi_square():
    T = bmlab.glauber_transition_matrix(TRIANGLE, beta=1.0)
    rng = np.random.default_rng(0)
    path = mx.markov_path(T, 60000, start=7, rng=rng)
    assert path.dtype == np.int64 and path.shape == (60000,)
    prev = np.concatenate([[7], path[:-1]])
    counts = np.zeros((8, 8))
    np.add.at(counts, (prev, path), 1)
    chi2, df = 0.0, 0
    for s in range(8):
        allowed = T[s] > 0
        expected = counts[s].sum() * T[s, allowed]
        chi2 += np.sum((counts[s, allowed] - expected) ** 2 / expected)
        df += allowed.sum() - 1
        assert np.all(counts[s, ~allowed] == 0)
    assert chi2 < stats.chi2.ppf(0.999, df)
    # the long-run visit frequencies approach the Boltzmann law (loose: path is correlated)
    freq = np.bincount(path, minlength=8) / path.size
    assert mx.tv_distance(freq, bmlab.boltzmann_probs(TRIANGLE)) < 0.02
    again = mx.markov_path(T, 100, start=7, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(again, path[:100])


def test_markov_path_validates():
    T = np.eye(2)
    with pytest.raises(ValueError, match="start"):
        mx.markov_path(T, 5, start=2, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng"):
        mx.markov_path(T, 5, start=0, rng=0)
    with pytest.raises(ValueError, match="row-stochastic"):
        mx.markov_path(np.array([[0.5, 0.6], [0.5, 0.5]]), 5, start=0,
                       rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="n_steps"):
        mx.markov_path(T, 0, start=0, rng=np.random.default_rng(0))


# --- model machines --------------------------------------------------------------------


def test_model_machines_are_valid_and_symmetric():
    J = mx.curie_weiss_couplings(6, J0=1.5)
    assert np.allclose(J, J.T) and np.all(np.diag(J) == 0)
    assert J[0, 1] == pytest.approx(0.25)
    m, _ = bmlab.exact_moments(J, beta=2.0)
    np.testing.assert_allclose(m, 0.0, atol=1e-12)  # spin-flip symmetry at theta = 0
    G = mx.spin_glass_couplings(200, scale=2.0, rng=np.random.default_rng(0))
    assert np.allclose(G, G.T) and np.all(np.diag(G) == 0)
    off = G[np.triu_indices(200, 1)]
    assert off.std() == pytest.approx(2.0 / np.sqrt(200), rel=0.03)
    with pytest.raises(TypeError, match="rng"):
        mx.spin_glass_couplings(4, rng=1)
