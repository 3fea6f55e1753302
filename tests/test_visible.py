"""Fully visible machine: Eq. 5.4 vs finite differences, Glauber negative phases vs exact
moments (z-scores), the two traps, and the damped Newton fit (moment matching, Eq. 5.6)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import bmlab
from bmlab.data import letters_3x3, noisy_copies
from bmlab.learning import train
from bmlab.visible import VisibleGradient, visible_log_likelihood, visible_newton_fit

N = 5
IU = np.triu_indices(N, 1)


def random_machine(n, scale, rng):
    G = np.triu(rng.normal(scale=scale, size=(n, n)), 1)
    return {"J": G + G.T, "theta": rng.normal(scale=0.3, size=n)}


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(11)
    teacher = random_machine(N, 0.5, rng)
    teacher["J"] += 0.2 * (1 - np.eye(N))
    S = bmlab.sample_exact(teacher["J"], teacher["theta"], n_samples=400, rng=rng)
    return S, random_machine(N, 0.3, rng)


def pack(d):
    return np.concatenate([d["J"][IU], d["theta"]])


def unpack(u):
    J = np.zeros((N, N))
    J[IU] = u[: len(IU[0])]
    return {"J": J + J.T, "theta": u[len(IU[0]) :]}


def phi(s):
    return np.concatenate([s[:, IU[0]] * s[:, IU[1]], s], axis=1)


def test_exact_gradient_is_the_derivative_of_the_exact_log_likelihood(setup):
    S, params = setup
    g = VisibleGradient(S)(params)
    u0, h = pack(params), 1e-5
    fd = [
        (
            visible_log_likelihood(unpack(u0 + h * e), S)
            - visible_log_likelihood(unpack(u0 - h * e), S)
        )
        / (2 * h)
        for e in np.eye(u0.size)
    ]
    np.testing.assert_allclose(pack(g), fd, atol=1e-8)
    np.testing.assert_array_equal(g["J"], g["J"].T)
    assert np.all(np.diag(g["J"]) == 0)
    again = VisibleGradient(S)(params, np.random.default_rng(0))  # exact: rng is ignored
    assert all(np.array_equal(again[k], g[k]) for k in g)


@pytest.mark.parametrize("method", ["glauber", "persistent"])
def test_a_sampled_gradient_asks_for_an_rng(setup, method):
    S, params = setup
    with pytest.raises(TypeError, match="draws random numbers: pass rng="):
        VisibleGradient(S, method=method)(params, None)


def test_log_likelihood_is_minus_mean_energy_minus_log_z(setup):
    S, params = setup
    E = bmlab.energy(S, params["J"], params["theta"])
    expected = -E.mean() - bmlab.log_partition(params["J"], params["theta"])
    assert visible_log_likelihood(params, S) == pytest.approx(expected, abs=1e-12)
    zero = {"J": np.zeros((N, N)), "theta": np.zeros(N)}
    assert visible_log_likelihood(zero, S) == pytest.approx(-N * np.log(2), abs=1e-12)


@pytest.mark.parametrize("method", ["glauber", "persistent"])
def test_glauber_gradients_agree_with_exact_moments_z_scores(setup, method):
    S, params = setup
    exact = pack(VisibleGradient(S)(params))
    p = bmlab.boltzmann_probs(params["J"], params["theta"])
    F = phi(bmlab.all_states(N).astype(float))
    sd = np.sqrt(p @ F**2 - (p @ F) ** 2)
    rng = np.random.default_rng(5)
    est = VisibleGradient(S, method=method, n_chains=4000, k=10)
    for _ in range(2):
        z = (pack(est(params, rng)) - exact) / (sd / np.sqrt(4000))
        assert np.abs(z).max() < 5.0, np.abs(z).max()  # P(fail) < 1e-5 over 15 components


def test_fresh_single_sweeps_are_biased_and_persistent_chains_are_not():
    """Strong couplings: one sweep from random starts under-estimates every correlation by
    many standard errors; persistent chains, continued over 40 calls, do not."""
    J = np.full((6, 6), 0.3) - np.diag(np.full(6, 0.3))
    params, S = {"J": J, "theta": np.zeros(6)}, np.ones((3, 6))
    C = bmlab.exact_moments(J)[1]
    off = ~np.eye(6, dtype=bool)
    se = np.sqrt(1 - C[off] ** 2) / np.sqrt(4000)
    rng = np.random.default_rng(2)
    fresh = VisibleGradient(S, method="glauber", n_chains=4000, k=1)(params, rng)
    assert np.min((C[off] - (1 - fresh["J"][off])) / se) > 5
    persistent = VisibleGradient(S, method="persistent", n_chains=4000, k=1)
    for _ in range(40):
        g = persistent(params, rng)
    assert np.abs((C[off] - (1 - g["J"][off])) / se).max() < 5


def test_traps_frozen_drifts_linearly_and_data_as_model_is_zero(setup):
    S, params = setup
    m_d, C_d = S.mean(axis=0), S.T @ S / len(S)
    zero = {"J": np.zeros((N, N)), "theta": np.zeros(N)}
    res = train(zero, VisibleGradient(S, method="frozen"), n_steps=100, lr=0.1)
    np.testing.assert_allclose(res.params["J"], 10 * (C_d - np.eye(N)), atol=1e-10)
    np.testing.assert_allclose(res.params["theta"], 10 * m_d, atol=1e-10)
    g = VisibleGradient(S, method="data")(params)
    assert all(np.all(v == 0) for v in g.values())


def test_newton_fit_matches_moments_and_is_what_sgd_reaches(setup):
    S, _ = setup
    opt = visible_newton_fit(S, max_steps=40)
    m, C = bmlab.exact_moments(opt["J"], opt["theta"])
    np.testing.assert_allclose(m, S.mean(axis=0), atol=1e-9)
    np.testing.assert_allclose(C, S.T @ S / len(S), atol=1e-9)
    zero = {"J": np.zeros((N, N)), "theta": np.zeros(N)}
    sgd = train(zero, VisibleGradient(S), n_steps=3000, lr=0.5)
    np.testing.assert_allclose(pack(sgd.params), pack(opt), atol=1e-3)


def test_newton_fit_with_weight_decay_is_the_fixed_point_of_train(setup):
    S, _ = setup
    w = 0.1
    opt = visible_newton_fit(S, weight_decay=w)
    m, C = bmlab.exact_moments(opt["J"], opt["theta"])
    off = ~np.eye(N, dtype=bool)
    np.testing.assert_allclose((S.T @ S / len(S) - C)[off], w * opt["J"][off], atol=1e-9)
    np.testing.assert_allclose(m, S.mean(axis=0), atol=1e-9)
    res = train(opt, VisibleGradient(S), n_steps=5, lr=0.3, weight_decay=w)
    np.testing.assert_allclose(pack(res.params), pack(opt), atol=1e-9)


def test_newton_fit_of_nearly_deterministic_data_converges():
    """Strongly aligned data make the first Newton steps huge; the damping keeps them sane."""
    S = np.ones((50, 6))
    S[:2] = -1
    S[2, 0] = -1
    opt = visible_newton_fit(S)
    assert np.all(np.isfinite(opt["J"]))
    C = bmlab.exact_moments(opt["J"], opt["theta"])[1]
    np.testing.assert_allclose(C, S.T @ S / len(S), atol=1e-8)


def test_each_newton_step_moves_no_coordinate_by_more_than_one():
    """The damping of ``visible_newton_fit``: on these noisy letters the full second Newton
    step would move a coupling by about 1.5; the fits after 0, 1, 2, ... steps (``max_steps``)
    differ by at most 1 in every coordinate, the first step by exactly 1 (the cap reached)."""
    S = noisy_copies(letters_3x3("TL"), 5, 0.02, rng=np.random.default_rng(0))[:, :N]
    fits = [pack(visible_newton_fit(S, max_steps=k)) for k in range(6)]
    moves = [np.abs(b - a).max() for a, b in itertools.pairwise(fits)]
    assert moves[0] == pytest.approx(1.0, abs=1e-12), moves
    assert max(moves) <= 1.0 + 1e-12, moves


def test_validation(setup):
    S, _ = setup
    with pytest.raises(ValueError, match="method"):
        VisibleGradient(S, method="cd")
    with pytest.raises(ValueError, match="n_chains"):
        VisibleGradient(S, method="glauber", n_chains=0)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        VisibleGradient(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="S must be a"):
        visible_log_likelihood({"J": np.zeros((3, 3)), "theta": np.zeros(3)}, np.ones(3))
    with pytest.raises(ValueError, match="N <= 12"):
        visible_newton_fit(np.ones((3, 13)))
    with pytest.raises(ValueError, match="weight_decay"):
        visible_newton_fit(S, weight_decay=-1.0)
    with pytest.raises(ValueError, match="symmetric"):
        VisibleGradient(S)({"J": np.triu(np.ones((N, N)), 1), "theta": np.zeros(N)})


@pytest.mark.parametrize(
    "call",
    [
        lambda S: VisibleGradient(S),
        lambda S: VisibleGradient(S, method="persistent"),
        lambda S: visible_log_likelihood({"J": np.zeros((3, 3)), "theta": np.zeros(3)}, S),
        lambda S: visible_newton_fit(S),
    ],
)
def test_data_with_no_rows_is_a_value_error_naming_it(call):
    """A (0, N) data set has no mean: a clear error, not a NaN and a warning."""
    with pytest.raises(ValueError, match=r"S must .*m >= 1"):
        call(np.ones((0, 3)))
