"""Fully visible machine: Eq. 5.4 vs finite differences, Hessian, moment matching, duality,
estimators vs exact moments (z-scores), the two traps, Hebb and the two forces."""

from __future__ import annotations

import numpy as np
import pytest

import bmlab
from bmlab import visible as V
from bmlab.learning import train


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(11)
    teacher = V.random_machine(5, J_mean=1.0, J_std=0.7, theta_std=0.3, rng=rng)
    S = bmlab.sample_exact(teacher["J"], teacher["theta"], n_samples=400, rng=rng)
    params = V.random_machine(5, J_std=0.5, theta_std=0.3, rng=rng)
    return teacher, S, params


def fitted(S):
    est = V.ExactGradient(S)
    res = train(V.zero_params(S.shape[1]), est, n_steps=60, optimizer="newton", lr=1.0,
                stop_grad_norm=1e-10)
    assert res.converged
    return res.params


def test_exact_gradient_matches_finite_differences_pair_parameterisation(setup):
    _, S, params = setup
    g = V.ExactGradient(S)(params)
    u0 = V.pack(params)
    h = 1e-5
    fd = np.empty_like(u0)
    for a in range(u0.size):
        e = np.zeros_like(u0)
        e[a] = h
        fd[a] = (V.log_likelihood(V.unpack(u0 + e, 5), S)
                 - V.log_likelihood(V.unpack(u0 - e, 5), S)) / (2 * h)
    np.testing.assert_allclose(V.pack(g), fd, atol=1e-8)
    # the gradient matrix is symmetric with zero diagonal
    np.testing.assert_array_equal(g["J"], g["J"].T)
    assert np.all(np.diag(g["J"]) == 0)


def test_hessian_is_minus_covariance_and_matches_finite_differences(setup):
    _, S, params = setup
    est = V.ExactGradient(S)
    H = est.hessian(params)
    P = V.n_params(5)
    assert H.shape == (P, P)
    np.testing.assert_allclose(H, H.T, atol=1e-14)
    assert np.linalg.eigvalsh(H).max() <= 1e-12
    u0 = V.pack(params)
    h = 1e-5
    cols = []
    for a in range(P):
        e = np.zeros(P)
        e[a] = h
        gp = V.pack(est(V.unpack(u0 + e, 5)))
        gm = V.pack(est(V.unpack(u0 - e, 5)))
        cols.append((gp - gm) / (2 * h))
    np.testing.assert_allclose(H, np.array(cols).T, atol=1e-7)
    # covariance from an explicit expectation over states
    p = V.model_probs(params)
    Phi = V.sufficient_statistics(bmlab.all_states(5))
    mu = p @ Phi
    np.testing.assert_allclose(-H, (Phi * p[:, None]).T @ Phi - np.outer(mu, mu), atol=1e-12)


def test_log_likelihood_matches_bmlab_exact(setup):
    _, S, params = setup
    E = bmlab.energy(S, params["J"], params["theta"])
    expected = -E.mean() - bmlab.log_partition(params["J"], params["theta"])
    assert V.log_likelihood(params, S) == pytest.approx(expected, abs=1e-12)
    m, C = V.model_moments(params)
    m2, C2 = bmlab.exact_moments(params["J"], params["theta"])
    np.testing.assert_allclose(m, m2, atol=1e-12)
    np.testing.assert_allclose(C, C2, atol=1e-12)
    assert V.log_partition_function(params) == pytest.approx(
        bmlab.log_partition(params["J"], params["theta"]), abs=1e-12)


def test_moment_matching_and_strong_duality_at_the_optimum(setup):
    _, S, params = setup
    opt = fitted(S)
    m_d, C_d = V.data_moments(S)
    m, C = V.model_moments(opt)
    np.testing.assert_allclose(m, m_d, atol=1e-9)
    np.testing.assert_allclose(C, C_d, atol=1e-9)
    # strong duality: L_D = H(model) at the optimum, gap elsewhere
    assert V.dual_function(opt, S) == pytest.approx(V.model_entropy(opt), abs=1e-8)
    assert abs(V.dual_function(params, S) - V.model_entropy(params)) > 1e-3
    # weak duality: the dual anywhere upper-bounds the max-ent value
    assert V.dual_function(params, S) >= V.model_entropy(opt) - 1e-12
    # L = -KL - H(data), everywhere
    for p in (opt, params):
        lhs = V.log_likelihood(p, S)
        rhs = -V.kl_data_model(p, S) - V.entropy(V.empirical_distribution(S))
        assert lhs == pytest.approx(rhs, abs=1e-10)
    # the optimum beats every other parameter point, and the teacher
    assert V.log_likelihood(opt, S) > V.log_likelihood(params, S)
    # SGD also gets there (concavity: no local maxima)
    sgd = train(V.zero_params(5), V.ExactGradient(S), n_steps=3000, lr=0.5)
    np.testing.assert_allclose(V.pack(sgd.params), V.pack(opt), atol=1e-3)


def test_same_moments_distribution_has_lower_entropy(setup):
    _, S, _ = setup
    opt = fitted(S)
    p = V.model_probs(opt)
    q = V.same_moments_distribution(p, 5, rng=np.random.default_rng(0))
    assert np.all(q >= 0) and q.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(bmlab.moments_from_probs(q, 5)[0], bmlab.moments_from_probs(p, 5)[0],
                               atol=1e-10)
    np.testing.assert_allclose(bmlab.moments_from_probs(q, 5)[1], bmlab.moments_from_probs(p, 5)[1],
                               atol=1e-10)
    assert np.abs(q - p).max() > 1e-3
    assert V.entropy(q) < V.entropy(p)
    # the data themselves are another such distribution
    assert V.entropy(V.empirical_distribution(S)) < V.entropy(p)
    with pytest.raises(ValueError, match="fraction"):
        V.same_moments_distribution(p, 5, rng=np.random.default_rng(0), fraction=0)
    with pytest.raises(ValueError, match="too small"):
        V.same_moments_distribution(np.full(4, 0.25), 2, rng=np.random.default_rng(0))
    q1 = V.same_moments_distribution(p, 5, rng=np.random.default_rng(1), fraction=1.0)
    assert q1.min() == pytest.approx(0.0, abs=1e-15)  # on the boundary of the simplex


def test_glauber_estimators_agree_with_exact_moments_z_scores():
    rng = np.random.default_rng(5)
    params = V.random_machine(5, J_std=0.4, theta_std=0.3, rng=rng)
    S = bmlab.sample_exact(params["J"], params["theta"], n_samples=50, rng=rng)
    exact = V.pack(V.ExactGradient(S)(params))
    Phi_exact = V.sufficient_statistics(bmlab.all_states(5))
    p = V.model_probs(params)
    sd = np.sqrt(p @ Phi_exact**2 - (p @ Phi_exact) ** 2)
    n_chains = 4000
    for persistent in (False, True):
        est = V.GlauberGradient(S, n_chains=n_chains, k=10, persistent=persistent)
        for _ in range(2):  # persistent: second call continues the chains
            g = V.pack(est(params, rng))
        z = (g - exact) / (sd / np.sqrt(n_chains))
        assert np.abs(z).max() < 5.0, (persistent, np.abs(z).max())
    assert est.sweeps_done == 20 and est.chains.shape == (n_chains, 5)


def test_fresh_single_sweep_chains_are_biased_for_strong_couplings():
    rng = np.random.default_rng(2)
    params = {"J": np.full((6, 6), 0.8) - np.diag(np.full(6, 0.8)), "theta": np.zeros(6)}
    S = np.ones((3, 6))
    exact_C = V.model_moments(params)[1]
    g = V.GlauberGradient(S, n_chains=4000, k=1)(params, rng)
    C_est = V.data_moments(S)[1] - g["J"]
    off = ~np.eye(6, dtype=bool)
    # one sweep from random starts under-estimates every correlation by many standard errors
    se = np.sqrt(1 - C_est[off] ** 2) / np.sqrt(4000)
    assert np.min((exact_C[off] - C_est[off]) / se) > 5


def test_traps_frozen_drifts_linearly_and_data_as_model_is_zero(setup):
    _, S, _ = setup
    frozen = V.FrozenGradient(S)
    res = train(V.zero_params(5), frozen, n_steps=100, lr=0.1, record_every=10,
                metrics={"absJ": lambda p: float(np.abs(p["J"]).max())})
    m_d, C_d = V.data_moments(S)
    # J after t steps is exactly t * lr * <s_i s_j>_data: linear, unbounded drift
    expected = 100 * 0.1 * (C_d - np.eye(5))
    np.testing.assert_allclose(res.params["J"], expected, atol=1e-10)
    np.testing.assert_allclose(res.params["theta"], 100 * 0.1 * m_d, atol=1e-10)
    steps, absJ = res.history["step"], res.history["absJ"]
    np.testing.assert_allclose(np.diff(absJ) / np.diff(steps), absJ[-1] / steps[-1], rtol=1e-9)
    data = V.DataAsModelGradient(S)
    g = data(V.zero_params(5))
    assert all(np.all(v == 0) for v in g.values())
    res = train(V.zero_params(5), data, n_steps=10, lr=0.1)
    assert np.all(res.params["J"] == 0) and np.all(res.history["grad_norm"] == 0)


def test_hebb_couplings_and_fit_scale():
    xi = np.array([[1, 1, -1, -1, 1], [1, -1, 1, -1, -1], [-1, 1, 1, 1, -1]], dtype=float)
    J = V.hebb_couplings(xi)
    expected = sum(np.outer(x, x) for x in xi) / 5
    np.fill_diagonal(expected, 0)
    np.testing.assert_allclose(J, expected)
    c = V.fit_scale(J, xi)
    h = 1e-4
    def L(c):
        return V.log_likelihood({"J": c * J, "theta": np.zeros(5)}, xi)
    assert (L(c + h) - L(c - h)) / (2 * h) == pytest.approx(0.0, abs=1e-6)
    assert L(c) > L(c + 0.1) and L(c) > L(c - 0.1)


def test_energy_change_split_sums_to_the_step(setup):
    _, S, params = setup
    lr = 0.3
    pos, neg = V.energy_change_split(params, S, lr=lr)
    g = V.ExactGradient(S)(params)
    states = bmlab.all_states(5)
    new = {k: params[k] + lr * g[k] for k in params}
    dE = bmlab.energy(states, new["J"], new["theta"]) - bmlab.energy(
        states, params["J"], params["theta"])
    np.testing.assert_allclose(pos + neg, dE, atol=1e-12)
    codes = bmlab.state_codes(S)
    # the positive phase pushes the data's states down more than average
    assert pos[codes].mean() < pos.mean()
    # the negative phase pushes up, on average over the model, by the model's own weight
    p = V.model_probs(params)
    assert p @ neg > neg.mean()


def test_make_estimator_and_validation(setup):
    _, S, params = setup
    for kind in V.ESTIMATORS:
        est = V.make_estimator(kind, S, n_chains=10, k=1)
        g = est(params, np.random.default_rng(0))
        assert set(g) == {"J", "theta"}
    with pytest.raises(ValueError, match="kind"):
        V.make_estimator("cd", S)
    with pytest.raises(ValueError, match="N = 3"):
        V.ExactGradient(S)(V.zero_params(3))
    with pytest.raises(TypeError, match="params"):
        V.log_likelihood({"J": np.zeros((5, 5))}, S)
    with pytest.raises(ValueError, match="unknown keys"):
        V.model_moments({"J": np.zeros((2, 2)), "theta": np.zeros(2), "W": 1})
    with pytest.raises(ValueError, match="symmetric"):
        V.model_moments({"J": np.array([[0, 1.0], [0, 0]]), "theta": np.zeros(2)})
    with pytest.raises(ValueError, match="-1 and \\+1"):
        V.data_moments(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="S must be a"):
        V.data_moments(np.ones(3))
    with pytest.raises(ValueError, match="N <= 16"):
        V.model_moments(V.zero_params(17))
    with pytest.raises(ValueError, match="n_chains"):
        V.GlauberGradient(S, n_chains=0)
    with pytest.raises(TypeError, match="persistent"):
        V.GlauberGradient(S, persistent="yes")
    with pytest.raises(ValueError, match="lr"):
        V.energy_change_split(params, S, lr=-1)
    with pytest.raises(ValueError, match="u must"):
        V.unpack(np.zeros(3), 5)
    with pytest.raises(ValueError, match="probability"):
        V.entropy([0.5, 0.6])
    assert V.kl_divergence([0.5, 0.5], [1.0, 0.0]) == np.inf
    assert V.kl_divergence([0.5, 0.5], [0.5, 0.5]) == 0.0


def test_random_machine_is_valid():
    p = V.random_machine(7, J_mean=2.0, J_std=0.5, theta_std=0.1, rng=np.random.default_rng(0))
    V.check_params(p)
    assert np.abs(p["J"][~np.eye(7, dtype=bool)].mean() - 2.0 / 7) < 0.2
    with pytest.raises(ValueError, match="J_std"):
        V.random_machine(3, J_std=-1.0, rng=np.random.default_rng(0))
