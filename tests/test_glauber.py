"""Glauber dynamics against exact enumeration and closed forms.

Statistical tests state their thresholds: chi-square at the 0.999 quantile, z-scores < 5.
"""

from __future__ import annotations

import numpy as np
import pytest
from machines import TRIANGLE, random_machine
from scipy import stats

import bmlab


def chi_square_ok(counts, p):
    n = counts.sum()
    chi2 = np.sum((counts - n * p) ** 2 / (n * p))
    return chi2 < stats.chi2.ppf(0.999, df=len(p) - 1), chi2


# --- transition matrix ------------------------------------------------------------------


@pytest.mark.parametrize("n,beta,seed", [(3, 1.0, 0), (4, 0.3, 1), (5, 2.0, 2)])
def test_transition_matrix_rows_balance_and_stationarity(n, beta, seed):
    J, theta = random_machine(n, np.random.default_rng(seed))
    T = bmlab.glauber_transition_matrix(J, theta, beta)
    p = bmlab.boltzmann_probs(J, theta, beta)
    assert T.shape == (2**n, 2**n)
    assert np.all(T >= 0)
    np.testing.assert_allclose(T.sum(axis=1), 1.0, atol=1e-14)
    flow = p[:, None] * T
    np.testing.assert_allclose(flow, flow.T, atol=1e-15)  # detailed balance
    np.testing.assert_allclose(p @ T, p, atol=1e-14)  # stationary
    # only single-flip moves: off-diagonal entries sit at Hamming distance 1
    codes = np.arange(2**n)
    hamming = np.array([[bin(a ^ b).count("1") for b in codes] for a in codes])
    assert np.all(T[(hamming > 1)] == 0)


def test_transition_matrix_matches_eq_5_2():
    """The entry for flipping spin k equals (1/N) / (1 + exp(beta dE))."""
    beta = 0.7
    T = bmlab.glauber_transition_matrix(TRIANGLE, beta=beta)
    S = bmlab.all_states(3).astype(float)
    E = bmlab.energy(S, TRIANGLE)
    for c in range(8):
        for k in range(3):
            d = c ^ (1 << k)
            assert T[c, d] == pytest.approx((1 / 3) / (1 + np.exp(beta * (E[d] - E[c]))))
            ratio = T[c, d] / T[d, c]
            assert ratio == pytest.approx(np.exp(-beta * (E[d] - E[c])))


def test_cold_sampler_follows_sign_of_local_field():
    """At huge beta one sequential sweep is the zero-temperature update s_k <- sign(h_k)."""
    rng = np.random.default_rng(4)
    J, theta = random_machine(8, rng)
    init = rng.choice([-1.0, 1.0], size=(50, 8))
    out = bmlab.glauber_sample(J, theta, beta=1e8, n_chains=50, init=init, rng=rng)
    S = init.copy()
    for k in range(8):
        S[:, k] = np.sign(S @ J[k] + theta[k])
    np.testing.assert_array_equal(out, S)


# --- samplers against exact probabilities -----------------------------------------------


@pytest.mark.parametrize("order", ["sequential", "random"])
def test_many_chains_histogram_chi_square(order):
    rng = np.random.default_rng(21)
    J, theta = random_machine(4, rng)
    p = bmlab.boltzmann_probs(J, theta)
    S = bmlab.glauber_sample(
        J, theta, n_chains=50_000, n_sweeps=30, init="random", order=order, rng=rng
    )
    ok, chi2 = chi_square_ok(np.bincount(bmlab.state_codes(S), minlength=16), p)
    assert ok, f"chi2 = {chi2:.1f}"


def test_single_chain_visits_and_running_average_on_the_triangle():
    """Figure 5.3: one chain's visit frequencies and running <s1 s2> approach the exact law."""
    rng = np.random.default_rng(7)
    run = bmlab.glauber_run(TRIANGLE, n_sweeps=20_000, rng=rng)
    assert run.states.shape == (60_000, 1, 3)
    p = bmlab.boltzmann_probs(TRIANGLE)
    np.testing.assert_allclose(np.bincount(run.codes[:, 0], minlength=8) / 60_000, p, atol=0.015)
    s1s2 = run.states[:, 0, 0].astype(float) * run.states[:, 0, 1]
    assert s1s2.mean() == pytest.approx(0.2758, abs=0.03)
    assert run.sweeps[-1] == 20_000 and run.sweeps[0] == pytest.approx(1 / 3)


def test_glauber_run_sweep_recording_and_energies():
    rng = np.random.default_rng(3)
    J, theta = random_machine(5, rng)
    run = bmlab.glauber_run(
        J,
        theta,
        n_chains=4000,
        n_sweeps=400,
        record_every=100,
        record_unit="sweep",
        order="sequential",
        init="random",
        rng=rng,
    )
    assert run.states.shape == (4, 4000, 5)
    np.testing.assert_allclose(run.sweeps, [100, 200, 300, 400])
    E = bmlab.energy(run.states.reshape(-1, 5).astype(float), J, theta).reshape(4, 4000)
    exact_E = bmlab.boltzmann_probs(J, theta) @ bmlab.energy(bmlab.all_states(5), J, theta)
    # z-score of the ensemble mean energy at the last record
    z = (E[-1].mean() - exact_E) / (E[-1].std() / np.sqrt(E.shape[1]))
    assert abs(z) < 5


def _reference_chains(J, theta, beta, order, n_chains, n_sweeps, block_sweeps, rng):
    """Plain heat-bath loop replaying bmlab's draws: per block, uniforms then random sites."""
    n = J.shape[0]
    S = np.ones((n_chains, n))
    out = []
    for _ in range(0, n_sweeps, block_sweeps):
        steps = n * min(block_sweeps, n_sweeps - len(out) // n)
        u = rng.random((steps, n_chains))
        if order == "sequential":
            sites = np.arange(steps) % n
        else:
            sites = rng.integers(n, size=(steps, n_chains))
        for t in range(steps):
            for c in range(n_chains):
                k = sites[t] if order == "sequential" else sites[t, c]
                h_k = J[k] @ S[c] + theta[k]
                S[c, k] = 1.0 if u[t, c] < 1 / (1 + np.exp(-2 * beta * h_k)) else -1.0
            out.append(S.copy())
    return np.array(out)


@pytest.mark.parametrize("order", ["sequential", "random"])
def test_kernel_replays_a_plain_heat_bath_loop_across_blocks(order, monkeypatch):
    """Same uniforms and sites: identical states after every update, also across draw blocks."""
    J, theta = random_machine(4, np.random.default_rng(5))
    monkeypatch.setattr(bmlab.glauber, "_BLOCK_ELEMENTS", 4 * 3 * 2)  # 2 sweeps per block
    run = bmlab.glauber_run(
        J, theta, beta=0.8, n_chains=3, n_sweeps=5, order=order, rng=np.random.default_rng(11)
    )
    ref = _reference_chains(J, theta, 0.8, order, 3, 5, 2, np.random.default_rng(11))
    np.testing.assert_array_equal(run.states, ref)
    np.testing.assert_allclose(run.sweeps, np.arange(1, 21) / 4)
    every = bmlab.glauber_run(
        J,
        theta,
        beta=0.8,
        n_chains=3,
        n_sweeps=5,
        order=order,
        record_every=3,
        rng=np.random.default_rng(11),
    )
    np.testing.assert_array_equal(every.states, ref[2::3])


def test_sample_and_run_agree_for_the_same_seed():
    J, theta = random_machine(4, np.random.default_rng(0))
    kwargs = dict(n_chains=7, n_sweeps=5, order="sequential", init="random")
    final = bmlab.glauber_sample(J, theta, rng=np.random.default_rng(9), **kwargs)
    run = bmlab.glauber_run(J, theta, rng=np.random.default_rng(9), record_unit="sweep", **kwargs)
    np.testing.assert_array_equal(run.states[-1], final)


def test_large_open_chain_nearest_neighbour_correlations():
    """N = 100 open chain at theta = 0: <s_i s_{i+1}> = tanh(beta J_i) exactly."""
    n, beta = 100, 1.0
    rng = np.random.default_rng(1)
    bonds = rng.uniform(-1.0, 1.0, size=n - 1)
    J = np.zeros((n, n))
    J[np.arange(n - 1), np.arange(1, n)] = bonds
    J += J.T
    S = bmlab.glauber_sample(J, beta=beta, n_chains=4000, n_sweeps=60, init="random", rng=rng)
    products = S[:, :-1] * S[:, 1:]
    estimate = products.mean(axis=0)
    stderr = products.std(axis=0) / np.sqrt(S.shape[0])
    z = (estimate - np.tanh(beta * bonds)) / np.maximum(stderr, 1e-3)
    assert np.max(np.abs(z)) < 5
    assert np.abs(S.mean(axis=0)).max() < 0.1  # symmetric: <s_i> = 0


def test_init_options():
    rng = np.random.default_rng(0)
    J = np.zeros((3, 3))
    start = bmlab.glauber_run(J, n_sweeps=1, record_unit="sweep", beta=0.0, rng=rng)
    assert start.states.shape == (1, 1, 3)
    init = np.array([[1, -1, 1], [-1, -1, -1]])
    out = bmlab.glauber_sample(TRIANGLE, n_chains=2, init=init, beta=1e9, rng=rng)
    assert out.shape == (2, 3)
    with pytest.raises(ValueError, match="init must have shape"):
        bmlab.glauber_sample(TRIANGLE, n_chains=3, init=init, rng=rng)
    with pytest.raises(ValueError, match="init"):
        bmlab.glauber_sample(TRIANGLE, init="hot", rng=rng)
    with pytest.raises(ValueError, match=r"-1 and \+1"):
        bmlab.glauber_sample(TRIANGLE, init=np.zeros(3), rng=rng)


def test_bad_arguments_are_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="order"):
        bmlab.glauber_sample(TRIANGLE, order="checkerboard", rng=rng)
    with pytest.raises(ValueError, match="n_chains"):
        bmlab.glauber_sample(TRIANGLE, n_chains=0, rng=rng)
    with pytest.raises(TypeError, match="n_sweeps"):
        bmlab.glauber_sample(TRIANGLE, n_sweeps=1.5, rng=rng)
    with pytest.raises(ValueError, match="too many"):
        bmlab.glauber_sample(np.zeros((100, 100)), n_chains=5_000_000, rng=rng)
    with pytest.raises(ValueError, match="N <= 12"):
        bmlab.glauber_transition_matrix(np.zeros((13, 13)))
    with pytest.raises(ValueError, match="record_unit"):
        bmlab.glauber_run(TRIANGLE, record_unit="day", rng=rng)
    with pytest.raises(ValueError, match="too much"):
        bmlab.glauber_run(np.zeros((50, 50)), n_chains=10_000, n_sweeps=1000, rng=rng)
    with pytest.raises(TypeError, match="rng"):
        bmlab.glauber_sample(TRIANGLE, rng=np.random.RandomState(0))


def test_huge_couplings_stay_finite_without_warnings():
    J = 1e6 * (np.ones((4, 4)) - np.eye(4))
    S = bmlab.glauber_sample(
        J, beta=10.0, n_chains=100, n_sweeps=3, init="random", rng=np.random.default_rng(0)
    )
    assert np.all(np.abs(S) == 1)
    # the ferromagnet freezes: every chain ends in an aligned state after one sweep
    assert np.all(np.abs(S.sum(axis=1)) == 4)
