"""bmlab.hidden against brute force over all joint states, finite differences and closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bmlab import exact
from bmlab.data import one_hot, parity
from bmlab.hidden import HiddenGradient, HiddenMachine
from bmlab.learning import train

LOG2 = float(np.log(2.0))


def spins(n):
    """All ±1 strings of n spins in all_states order, by an independent loop."""
    return [
        np.array([2 * b - 1 for b in reversed(bits)], float)
        for bits in itertools.product([0, 1], repeat=n)
    ]


def brute(machine, params):
    """Independent oracle: Boltzmann weights e^{-E(v,h)} by Python loops, shape (2**nv, 2**nh)."""
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
    return np.array(rows)


def brute_log_likelihood(machine, params, data):
    w = brute(machine, params)
    p_v = w.sum(axis=1) / w.sum()
    codes = exact.state_codes(data)
    return float(np.mean(np.log(p_v[codes])))


def machine_and_params(nv, nh, restricted, seed, scale=0.8, **biases):
    m = HiddenMachine(nv, nh, restricted=restricted, **biases)
    return m, m.init_params(rng=np.random.default_rng(seed), scale=scale, bias_scale=0.5)


CASES = [(3, 2, False), (3, 2, True), (2, 3, False), (4, 1, True), (3, 0, False)]
BIASES = [
    {"visible_bias": False},
    {"hidden_bias": False},
    {"visible_bias": False, "hidden_bias": False},
]


@pytest.mark.parametrize("nv,nh,restricted", CASES)
def test_probabilities_match_brute_force(nv, nh, restricted):
    m, p = machine_and_params(nv, nh, restricted, seed=nv * 10 + nh)
    w = brute(m, p)
    np.testing.assert_allclose(m.prob_joint(p), w / w.sum(), atol=1e-13)
    np.testing.assert_allclose(m.prob_visible(p), w.sum(axis=1) / w.sum(), atol=1e-13)
    data = np.array(spins(nv))[[0, 2, 2, -1]]
    metrics = m.metrics(data)
    L = brute_log_likelihood(m, p, data)
    assert metrics["log_likelihood"](p) == pytest.approx(L, abs=1e-12)
    p_data = np.bincount(exact.state_codes(data), minlength=2**nv) / 4
    seen = p_data > 0
    assert metrics["kl"](p) == pytest.approx(p_data[seen] @ np.log(p_data[seen]) - L, abs=1e-12)


def _finite_differences(m, p, data, eps=1e-5):
    """Central differences of the brute-force log-likelihood for every existing parameter;
    each coupling pair (J_ab, J_ba) moves together, as one parameter."""
    fd = {"J": np.zeros_like(p["J"]), "theta": np.zeros_like(p["theta"])}
    for key, index in [("J", ab) for ab in zip(*np.nonzero(np.triu(m.mask)), strict=True)] + [
        ("theta", (a,)) for a in np.flatnonzero(m.bias_mask)
    ]:
        up = {k: v.copy() for k, v in p.items()}
        dn = {k: v.copy() for k, v in p.items()}
        for q, sign in ((up, 1), (dn, -1)):
            q[key][index] += sign * eps
            if key == "J":
                q[key][index[::-1]] += sign * eps
        diff = brute_log_likelihood(m, up, data) - brute_log_likelihood(m, dn, data)
        fd[key][index] = diff / (2 * eps)
        if key == "J":
            fd[key][index[::-1]] = fd[key][index]
    return fd


@pytest.mark.parametrize("nv,nh,restricted", CASES)
def test_gradient_matches_finite_differences(nv, nh, restricted):
    m, p = machine_and_params(nv, nh, restricted, seed=7)
    data = np.array(spins(nv))[[0, 1, 3, 3, -1]]
    g = HiddenGradient(m, data)(p)
    fd = _finite_differences(m, p, data)
    for k in g:
        np.testing.assert_allclose(g[k], fd[k], atol=1e-8)
    assert np.array_equal(g["J"], g["J"].T)
    assert np.all(g["J"][~m.mask] == 0)


@pytest.mark.parametrize("biases", BIASES)
@pytest.mark.parametrize("restricted", [False, True])
def test_disabled_biases_get_exactly_zero_gradient_and_stay_zero(biases, restricted):
    """Issue 16: a switched-off bias must get no gradient, and training must keep it at 0."""
    m, p = machine_and_params(3, 2, restricted, seed=13, **biases)
    off = ~m.bias_mask
    assert off.any() and np.all(p["theta"][off] == 0)
    D = parity(3)
    g = HiddenGradient(m, D)(p)
    assert np.all(g["theta"][off] == 0.0)  # exactly, not approximately
    fd = _finite_differences(m, p, D)
    for k in g:
        np.testing.assert_allclose(g[k], fd[k], atol=1e-8)
    L = m.metrics(D)["log_likelihood"]
    res = train(p, HiddenGradient(m, D), n_steps=5, lr=0.1, momentum=0.5, metrics={"L": L})
    assert np.all(res.params["theta"][off] == 0.0)
    m.check_params(res.params)  # mask, biases and symmetry survive training
    assert res.history["L"][-1] > res.history["L"][0]


def test_without_hidden_units_the_gradient_is_eq_5_4():
    rng = np.random.default_rng(11)
    m = HiddenMachine(4, 0)
    p = m.init_params(rng=rng, scale=0.7, bias_scale=0.4)
    data = exact.codes_to_states(rng.integers(0, 16, size=25), 4)
    g = HiddenGradient(m, data)(p)
    mean_model, corr_model = exact.exact_moments(p["J"], p["theta"])
    expected_J = data.T @ data / len(data) - corr_model
    np.fill_diagonal(expected_J, 0.0)
    np.testing.assert_allclose(g["J"], expected_J, atol=1e-12)
    np.testing.assert_allclose(g["theta"], data.mean(axis=0) - mean_model, atol=1e-12)


def test_restricted_gradient_of_W_is_clamped_minus_model_with_tanh():
    """dL/dW_ij = <v_i h_j>_clamped - <v_i h_j>_model, the clamped phase in one line."""
    m, p = machine_and_params(3, 2, True, seed=5)
    data = parity(3)
    W, b = p["J"][:3, 3:], p["theta"][3:]
    clamped = data.T @ np.tanh(data @ W + b) / len(data)
    model = m.prob_joint(p)  # (v, h) table -> <v_i h_j> by summing over both
    V, H = np.array(spins(3)), np.array(spins(2))
    model_vh = V.T @ model @ H
    np.testing.assert_allclose(
        HiddenGradient(m, data)(p)["J"][:3, 3:], clamped - model_vh, atol=1e-12
    )


def test_fully_visible_best_on_parity_is_uniform():
    for n in (3, 4):
        D = parity(n)
        m = HiddenMachine(n, 0)
        start = m.init_params(rng=np.random.default_rng(n), scale=0.5, bias_scale=0.5)
        kl = m.metrics(D)["kl"]
        res = train(start, HiddenGradient(m, D), n_steps=400, lr=0.2, momentum=0.5)
        assert kl(res.params) == pytest.approx(LOG2, abs=1e-6)
        zero = {"J": np.zeros((n, n)), "theta": np.zeros(n)}
        assert kl(zero) == pytest.approx(LOG2, abs=1e-14)
        assert max(np.abs(v).max() for v in HiddenGradient(m, D)(zero).values()) < 1e-14


@pytest.mark.parametrize("n,nh,restricted,seed", [(3, 1, False, 0), (3, 3, True, 0)])
def test_hidden_units_fit_parity(n, nh, restricted, seed):
    m = HiddenMachine(n, nh, restricted=restricted)
    D = parity(n)
    metrics = m.metrics(D)
    kls = []
    for start in range(3):  # best of three starts, as in notebook 04
        init = m.init_params(rng=np.random.default_rng([seed, start]))
        res = train(
            init,
            HiddenGradient(m, D),
            n_steps=1500,
            lr=0.1,
            momentum=0.9,
            metrics=metrics,
            record_every=500,
        )
        assert res.history["kl"][-1] == pytest.approx(metrics["kl"](res.params), abs=1e-14)
        kls.append(res.history.last("kl"))
    assert min(kls) < 0.01


def test_one_hot_fits_without_hidden_units():
    m = HiddenMachine(3, 0)
    D = one_hot(3)
    res = train(
        m.init_params(rng=np.random.default_rng(1)),
        HiddenGradient(m, D),
        n_steps=1500,
        lr=0.1,
        momentum=0.9,
    )
    assert m.metrics(D)["kl"](res.params) < 0.01


def test_empirical_distribution_counts_rows():
    data = np.array(spins(3))[[0, 2, 2, 7]]
    np.testing.assert_array_equal(
        exact.empirical_distribution(data), [0.25, 0, 0.5, 0, 0, 0, 0, 0.25]
    )
    with pytest.raises(ValueError, match="data"):
        exact.empirical_distribution(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="data"):
        exact.empirical_distribution(np.ones((0, 3)))


def test_validation_errors_name_the_parameter():
    with pytest.raises(TypeError, match="n_visible"):
        HiddenMachine(2.5, 1)
    with pytest.raises(ValueError, match="n_hidden"):
        HiddenMachine(3, -1)
    with pytest.raises(TypeError, match="n_hidden"):
        HiddenMachine(3, 1.0)
    with pytest.raises(ValueError, match="too large"):
        HiddenMachine(10, 8)
    with pytest.raises(TypeError, match="restricted"):
        HiddenMachine(3, 1, restricted="yes")
    m = HiddenMachine(3, 2, restricted=True)
    good = m.init_params(rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="params"):
        m.prob_visible([1, 2])
    with pytest.raises(TypeError, match="theta"):
        m.prob_visible({"J": good["J"]})
    with pytest.raises(ValueError, match="shape"):
        m.prob_visible({"J": np.zeros((4, 4)), "theta": np.zeros(5)})
    bad = {k: v.copy() for k, v in good.items()}
    bad["J"][0, 1] = bad["J"][1, 0] = 0.3
    with pytest.raises(ValueError, match="mask"):
        m.prob_visible(bad)
    bad = {k: v.copy() for k, v in good.items()}
    bad["J"][0, 3] += 0.1
    with pytest.raises(ValueError, match="symmetric"):
        m.prob_visible(bad)
    bad = {k: v.copy() for k, v in good.items()}
    bad["theta"][0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        HiddenGradient(m, parity(3))(bad)
    no_b = HiddenMachine(3, 2, hidden_bias=False)
    with pytest.raises(ValueError, match="disabled"):
        no_b.prob_visible({"J": np.zeros((5, 5)), "theta": np.ones(5)})
    with pytest.raises(ValueError, match="data"):
        HiddenGradient(m, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="data"):
        m.metrics(np.ones((2, 4)))
    with pytest.raises(TypeError, match="data"):
        HiddenGradient(m, "101")
    with pytest.raises(TypeError, match="rng"):
        m.init_params(rng=0)


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
    plt.close(fig)


@pytest.mark.parametrize("visible_bias,hidden_bias", [(False, True), (True, False)])
def test_each_bias_switch_acts_on_its_own_layer(visible_bias, hidden_bias):
    """visible_bias switches a = theta[:n_visible], hidden_bias switches b = theta[n_visible:]:
    the disabled layer's biases get exactly 0, the enabled layer's a nonzero gradient."""
    m = HiddenMachine(3, 2, visible_bias=visible_bias, hidden_bias=hidden_bias)
    np.testing.assert_array_equal(m.bias_mask, [visible_bias] * 3 + [hidden_bias] * 2)
    p = m.init_params(rng=np.random.default_rng(3), bias_scale=0.5)
    g = HiddenGradient(m, np.array(spins(3))[[0, 1, 1, 6]])(p)["theta"]
    assert np.all(g[~m.bias_mask] == 0.0) and np.all(np.abs(g[m.bias_mask]) > 1e-6)
    assert np.all(p["theta"][~m.bias_mask] == 0.0) and np.all(p["theta"][m.bias_mask] != 0.0)


def test_data_with_no_rows_is_a_value_error_naming_it():
    m = HiddenMachine(3, 1)
    for call in (lambda D: HiddenGradient(m, D), m.metrics):
        with pytest.raises(ValueError, match=r"data must .*m >= 1"):
            call(np.ones((0, 3)))
