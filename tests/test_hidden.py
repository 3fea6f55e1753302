"""bmlab.hidden against brute force over all joint states, finite differences and closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bmlab import exact
from bmlab.data import one_hot, parity
from bmlab.hidden import (
    HiddenMachine,
    empirical_distribution,
    fit_best_of,
    interaction_orders,
    max_coefficient_by_order,
    walsh_coefficients,
    walsh_terms,
)
from bmlab.learning import train

LOG2 = float(np.log(2.0))


def spins(n):
    """All ±1 strings of n spins in all_states order, by an independent loop."""
    return [np.array([2 * b - 1 for b in reversed(bits)], float)
            for bits in itertools.product([0, 1], repeat=n)]


def brute(machine, params):
    """Independent oracle: Python loops over every (v, h) with the energy of Eq. 5.1."""
    J, theta = params["J"], params["theta"]
    n = machine.n_units
    rows = []
    for v in spins(machine.n_visible):
        row = []
        for h in spins(machine.n_hidden) if machine.n_hidden else [np.zeros(0)]:
            s = np.concatenate([v, h])
            E = -sum(theta[a] * s[a] for a in range(n))
            E -= 0.5 * sum(J[a, b] * s[a] * s[b] for a in range(n) for b in range(n) if a != b)
            row.append(np.exp(-E))
        rows.append(row)
    w = np.array(rows)  # (2**nv, 2**nh) Boltzmann weights
    return w


def machine_and_params(nv, nh, restricted, seed, scale=0.8):
    m = HiddenMachine(nv, nh, restricted=restricted)
    rng = np.random.default_rng(seed)
    return m, m.init_params(rng=rng, scale=scale, bias_scale=0.5)


CASES = [(3, 2, False), (3, 2, True), (2, 3, False), (4, 1, True), (3, 0, False)]


@pytest.mark.parametrize("nv,nh,restricted", CASES)
def test_partition_functions_and_marginals_match_brute_force(nv, nh, restricted):
    m, p = machine_and_params(nv, nh, restricted, seed=nv * 10 + nh)
    w = brute(m, p)
    Z = w.sum()
    Zv = w.sum(axis=1)
    assert m.log_partition(p) == pytest.approx(np.log(Z), abs=1e-12)
    np.testing.assert_allclose(m.log_clamped_partition(p), np.log(Zv), atol=1e-12)
    np.testing.assert_allclose(m.free_energy(p), -np.log(Zv), atol=1e-12)
    np.testing.assert_allclose(m.prob_visible(p), Zv / Z, atol=1e-13)
    np.testing.assert_allclose(m.prob_joint(p), w / Z, atol=1e-13)
    np.testing.assert_allclose(m.prob_hidden_given_visible(p), w / Zv[:, None], atol=1e-13)
    # selected visible strings
    V = np.array(spins(nv))[[0, -1, 1]]
    np.testing.assert_allclose(m.log_prob_visible(p, V), np.log(Zv / Z)[[0, -1, 1]], atol=1e-12)


@pytest.mark.parametrize("nv,nh,restricted", CASES)
def test_moments_match_brute_force(nv, nh, restricted):
    m, p = machine_and_params(nv, nh, restricted, seed=3)
    w = brute(m, p)
    S = np.array([np.concatenate([v, h]) for h in (spins(nh) if nh else [np.zeros(0)])
                  for v in spins(nv)])  # joint order: visible code fastest
    pj = (w / w.sum()).T.reshape(-1)
    mm, Cm = m.model_moments(p)
    np.testing.assert_allclose(mm, pj @ S, atol=1e-12)
    np.testing.assert_allclose(Cm, S.T @ (pj[:, None] * S), atol=1e-12)
    data = np.array(spins(nv))[[0, 2, 2, 3]]
    pd = empirical_distribution(data, nv)
    q = (pd[:, None] * w / w.sum(axis=1, keepdims=True)).T.reshape(-1)
    mc, Cc = m.clamped_moments(p, data)
    np.testing.assert_allclose(mc, q @ S, atol=1e-12)
    np.testing.assert_allclose(Cc, S.T @ (q[:, None] * S), atol=1e-12)
    # the visible part of the clamped moments is the plain data average
    np.testing.assert_allclose(mc[:nv], data.mean(axis=0), atol=1e-12)


@pytest.mark.parametrize("nv,nh,restricted", CASES)
def test_gradient_matches_finite_differences(nv, nh, restricted):
    m, p = machine_and_params(nv, nh, restricted, seed=7)
    data = np.array(spins(nv))[[0, 1, 3, 3, -1]]
    g = m.gradient(p, data)
    eps = 1e-5
    n = m.n_units
    for a in range(n):
        for b in range(a + 1, n):
            if not m.mask[a, b]:
                assert g["J"][a, b] == 0.0
                continue
            up = {k: v.copy() for k, v in p.items()}
            dn = {k: v.copy() for k, v in p.items()}
            for q, sgn in ((up, 1), (dn, -1)):
                q["J"][a, b] += sgn * eps
                q["J"][b, a] += sgn * eps
            fd = (m.log_likelihood(up, data) - m.log_likelihood(dn, data)) / (2 * eps)
            assert g["J"][a, b] == pytest.approx(fd, abs=1e-8)
        up = {k: v.copy() for k, v in p.items()}
        dn = {k: v.copy() for k, v in p.items()}
        up["theta"][a] += eps
        dn["theta"][a] -= eps
        fd = (m.log_likelihood(up, data) - m.log_likelihood(dn, data)) / (2 * eps)
        assert g["theta"][a] == pytest.approx(fd, abs=1e-8)
    assert np.array_equal(g["J"], g["J"].T)
    assert np.all(np.diag(g["J"]) == 0)
    assert np.all(g["J"][~m.mask] == 0)


def test_without_hidden_units_the_gradient_is_eq_5_4():
    rng = np.random.default_rng(11)
    m = HiddenMachine(4, 0)
    p = m.init_params(rng=rng, scale=0.7, bias_scale=0.4)
    data = exact.codes_to_states(rng.integers(0, 16, size=25), 4)
    g = m.gradient(p, data)
    mean_model, corr_model = exact.exact_moments(p["J"], p["theta"])
    corr_data = data.T @ data / len(data)
    expected_J = corr_data - corr_model
    np.fill_diagonal(expected_J, 0.0)
    np.testing.assert_allclose(g["J"], expected_J, atol=1e-12)
    np.testing.assert_allclose(g["theta"], data.mean(axis=0) - mean_model, atol=1e-12)
    assert m.log_partition(p) == pytest.approx(exact.log_partition(p["J"], p["theta"]), abs=1e-12)


def test_restricted_gradient_of_W_is_clamped_minus_model_with_tanh():
    """dL/dW_ij = <v_i h_j>_clamped - <v_i h_j>_model, clamped phase in one line."""
    m, p = machine_and_params(3, 2, True, seed=5)
    data = parity(3)
    B = m.blocks(p)
    clamped = data.T @ np.tanh(data @ B["W"] + B["b"]) / len(data)
    _, C = m.model_moments(p)
    g = m.gradient(p, data)
    np.testing.assert_allclose(g["J"][:3, 3:], clamped - C[:3, 3:], atol=1e-12)


def test_factorization_restricted_exact_general_not():
    m, p = machine_and_params(3, 3, True, seed=2)
    V = np.array(spins(3))
    cond = m.prob_hidden_given_visible(p, V)
    means = m.hidden_means_factorized(p, V)
    np.testing.assert_allclose(m.hidden_means(p, V), means, atol=1e-13)
    H = np.array(spins(3))  # hidden states in order
    product = np.prod((1 + H[None, :, :] * means[:, None, :]) / 2, axis=2)
    np.testing.assert_allclose(cond, product, atol=1e-13)
    g, pg = machine_and_params(3, 3, False, seed=2)
    condg = g.prob_hidden_given_visible(pg, V)
    meansg = g.hidden_means(pg, V)
    productg = np.prod((1 + H[None, :, :] * meansg[:, None, :]) / 2, axis=2)
    assert np.abs(condg - productg).max() > 1e-2
    with pytest.raises(ValueError, match="restricted"):
        g.hidden_means_factorized(pg, V)


def test_hidden_relabelling_and_sign_flip_leave_p_v_unchanged():
    m, p = machine_and_params(3, 3, False, seed=9)
    base = m.prob_visible(p)
    q = m.permute_hidden(p, [2, 0, 1])
    np.testing.assert_allclose(m.prob_visible(q), base, atol=1e-13)
    assert not np.allclose(q["J"], p["J"])
    r = m.flip_hidden(p, 1)
    np.testing.assert_allclose(m.prob_visible(r), base, atol=1e-13)
    assert r["theta"][4] == -p["theta"][4]


def test_energy_matches_exact_energy_on_joint_system():
    m, p = machine_and_params(2, 2, False, seed=1)
    S = exact.codes_to_states(np.arange(16), 4)
    np.testing.assert_allclose(m.energy(p, S), exact.energy(S, p["J"], p["theta"]), atol=1e-12)
    assert isinstance(m.energy(p, S[3]), float)


def test_parity_moments_vanish_and_fully_visible_best_is_uniform():
    for n in (3, 4):
        D = parity(n)
        assert D.shape == (2 ** (n - 1), n)
        np.testing.assert_allclose(D.mean(axis=0), 0.0, atol=1e-15)
        C = D.T @ D / len(D)
        np.testing.assert_allclose(C - np.eye(n), 0.0, atol=1e-15)
        m = HiddenMachine(n, 0)
        start = m.init_params(rng=np.random.default_rng(n), scale=0.5, bias_scale=0.5)
        res = train(start, m.estimator(D), n_steps=400, lr=0.2, momentum=0.5)
        assert m.kl_divergence(res.params, D) == pytest.approx(LOG2, abs=1e-6)
        # the uniform machine is the exact optimum: zero gradient, KL = log 2 exactly
        zero = m.init_params(rng=np.random.default_rng(0), scale=0.0, bias_scale=0.0)
        assert m.kl_divergence(zero, D) == pytest.approx(LOG2, abs=1e-14)
        assert max(np.abs(v).max() for v in m.gradient(zero, D).values()) < 1e-14


@pytest.mark.parametrize("n,nh,restricted", [(3, 1, False), (3, 3, True)])
def test_hidden_units_fit_parity(n, nh, restricted):
    m = HiddenMachine(n, nh, restricted=restricted)
    best, kls = fit_best_of(m, parity(n), restarts=3, n_steps=1500, lr=0.1, momentum=0.9,
                            rng=np.random.default_rng(0))
    assert kls.shape == (3,)
    assert m.kl_divergence(best.params, parity(n)) < 0.01
    assert best.history["kl"][-1] == pytest.approx(kls.min(), abs=1e-12)


def test_one_hot_fits_without_hidden_units():
    m = HiddenMachine(3, 0)
    _, kls = fit_best_of(m, one_hot(3), restarts=1, n_steps=1500, rng=np.random.default_rng(1))
    assert kls[0] < 0.01


def test_non_concavity_along_a_relabelling():
    m = HiddenMachine(3, 2, restricted=False)
    D = parity(3)
    best, _ = fit_best_of(m, D, restarts=2, n_steps=800, rng=np.random.default_rng(3))
    p0 = best.params
    p1 = m.permute_hidden(p0, [1, 0])
    mid = {k: 0.5 * (p0[k] + p1[k]) for k in p0}
    L0, L1, Lmid = (m.log_likelihood(q, D) for q in (p0, p1, mid))
    assert L0 == pytest.approx(L1, abs=1e-12)
    assert Lmid < L0 - 0.05


def test_walsh_expansion_reconstructs_and_orders():
    rng = np.random.default_rng(4)
    n = 4
    f = rng.normal(size=2**n)
    c = walsh_coefficients(f, n)
    S = exact.codes_to_states(np.arange(2**n), n)
    chi = np.array([[np.prod(s[[i for i in range(n) if code >> i & 1]]) for s in S]
                    for code in range(2**n)])
    np.testing.assert_allclose(c, chi @ f / 2**n, atol=1e-13)
    np.testing.assert_allclose(c @ chi, f, atol=1e-12)
    assert list(interaction_orders(3)) == [0, 1, 1, 2, 1, 2, 2, 3]
    terms = walsh_terms(c, n, 3)
    assert len(terms) == 4 and terms[0][0] == (0, 1, 2)
    assert terms[0][1] == pytest.approx(c[0b0111])
    assert max_coefficient_by_order(c, n)[4] == pytest.approx(abs(c[15]))


def test_single_hidden_unit_induces_even_orders_only_without_bias():
    """log 2cosh(w.v): flip symmetry h -> -h, v -> -v kills every odd order."""
    w = np.array([0.9, -0.7, 0.5, 1.1])
    m = HiddenMachine(4, 1, restricted=True, visible_bias=False, hidden_bias=False)
    p = m.params_from_blocks(W=w[:, None])
    c = walsh_coefficients(m.log_prob_visible(p), 4)
    by_order = max_coefficient_by_order(c, 4)
    assert np.all(by_order[[1, 3]] < 1e-14)
    assert by_order[2] > 0.05 and by_order[4] > 1e-3
    # closed form of the 4-body term: 2**-4 sum_v v1v2v3v4 log 2cosh(w.v)
    S = exact.codes_to_states(np.arange(16), 4)
    c4 = np.mean(S.prod(axis=1) * np.log(2 * np.cosh(S @ w)))
    assert c[15] == pytest.approx(c4, abs=1e-13)
    m2 = HiddenMachine(4, 1, restricted=True)
    c2 = walsh_coefficients(m2.log_prob_visible(m2.params_from_blocks(W=w[:, None], b=[0.6])), 4)
    assert max_coefficient_by_order(c2, 4)[3] > 1e-3


def test_estimator_and_metrics_for_train():
    m, p = machine_and_params(3, 2, True, seed=0)
    D = parity(3)
    est = m.estimator(D)
    g = est(p, np.random.default_rng(0))
    ref = m.gradient(p, D)
    for k in ref:
        np.testing.assert_array_equal(g[k], ref[k])
    met = m.metrics(D)
    assert met["kl"](p) == pytest.approx(m.kl_divergence(p, D), abs=1e-12)
    assert met["log_likelihood"](p) == pytest.approx(m.log_likelihood(p, D), abs=1e-12)
    res = train(p, est, n_steps=50, lr=0.1, metrics=met, record_every=10, weight_decay=0.01)
    m.check_params(res.params)  # mask, symmetry and zero diagonal survive training
    assert res.history["kl"][-1] < res.history["kl"][0]


def test_validation_errors_name_the_parameter():
    with pytest.raises(TypeError, match="n_visible"):
        HiddenMachine(2.5, 1)
    with pytest.raises(ValueError, match="n_hidden"):
        HiddenMachine(3, -1)
    with pytest.raises(ValueError, match="too large"):
        HiddenMachine(10, 8)
    with pytest.raises(TypeError, match="restricted"):
        HiddenMachine(3, 1, restricted="yes")
    m = HiddenMachine(3, 2, restricted=True)
    good = m.init_params(rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="params"):
        m.log_partition([1, 2])
    with pytest.raises(TypeError, match="theta"):
        m.log_partition({"J": good["J"]})
    with pytest.raises(ValueError, match="shape"):
        m.log_partition({"J": np.zeros((4, 4)), "theta": np.zeros(5)})
    bad = {k: v.copy() for k, v in good.items()}
    bad["J"][0, 1] = bad["J"][1, 0] = 0.3
    with pytest.raises(ValueError, match="mask"):
        m.log_partition(bad)
    bad = {k: v.copy() for k, v in good.items()}
    bad["J"][0, 3] += 0.1
    with pytest.raises(ValueError, match="symmetric"):
        m.log_partition(bad)
    bad = {k: v.copy() for k, v in good.items()}
    bad["theta"][0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        m.log_partition(bad)
    with pytest.raises(ValueError, match="data"):
        m.gradient(good, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="data"):
        m.gradient(good, np.ones((2, 4)))
    with pytest.raises(TypeError, match="data"):
        m.gradient(good, "101")
    with pytest.raises(ValueError, match="perm"):
        m.permute_hidden(good, [0, 0])
    with pytest.raises(ValueError, match="j must"):
        m.flip_hidden(good, 2)
    with pytest.raises(TypeError, match="rng"):
        m.init_params(rng=0)
    with pytest.raises(TypeError, match="machine"):
        fit_best_of("m", parity(3), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="f must"):
        walsh_coefficients(np.zeros(7), 3)
    with pytest.raises(ValueError, match="W must"):
        m.params_from_blocks(W=np.zeros((2, 2)))


def test_draw_network_counts_couplings():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bmlab.plotting import draw_network

    fig, (a, b) = plt.subplots(1, 2)
    general = draw_network(a, 4, 3, restricted=False)
    restricted = draw_network(b, 4, 3, restricted=True)
    assert general["between"] == restricted["between"] == 12
    assert general["within"] == 6 + 3 and restricted["within"] == 0
    assert general["visible"].shape == (4, 2) and general["hidden"].shape == (3, 2)
    with pytest.raises(ValueError, match="n_hidden"):
        draw_network(a, 3, 13)
    with pytest.raises(TypeError, match="restricted"):
        draw_network(a, 3, 1, restricted=1)
    plt.close(fig)


@pytest.mark.parametrize("nv,nh,restricted", [(3, 2, False), (2, 2, True)])
def test_numerical_gradient_and_line_helpers(nv, nh, restricted):
    m, p = machine_and_params(nv, nh, restricted, seed=21)
    data = np.array(spins(nv))[[0, 1, 1, -1]]
    fd = m.numerical_gradient(p, data)
    g = m.gradient(p, data)
    for k in g:
        np.testing.assert_allclose(fd[k], g[k], atol=1e-8)
    q = m.init_params(rng=np.random.default_rng(1))
    t = np.array([0.0, 0.3, 1.0])
    line = m.log_likelihood_along(p, q, t, data)
    mid = {k: 0.7 * p[k] + 0.3 * q[k] for k in p}
    np.testing.assert_allclose(
        line, [m.log_likelihood(p, data), m.log_likelihood(mid, data), m.log_likelihood(q, data)],
        atol=1e-12)
    with pytest.raises(ValueError, match="eps"):
        m.numerical_gradient(p, data, eps=0)
    with pytest.raises(ValueError, match="t must"):
        m.log_likelihood_along(p, q, np.zeros((2, 2)), data)


def test_fully_visible_slice_is_concave():
    m = HiddenMachine(3, 0)
    rng = np.random.default_rng(2)
    p, q = m.init_params(rng=rng, scale=1.5), m.init_params(rng=rng, scale=1.5)
    L = m.log_likelihood_along(p, q, np.linspace(-0.5, 1.5, 81), parity(3))
    assert np.all(np.diff(L, 2) <= 1e-12)
