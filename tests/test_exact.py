"""bmlab.exact against an independent brute-force loop, the lecture's numbers and closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from machines import TRIANGLE, random_machine
from scipy import stats

import bmlab
from bmlab import _parallel


def brute_force(J, theta, beta):
    """Independent oracle: a Python loop over itertools.product states in all_states order."""
    n = len(theta)
    weights, states = [], []
    for bits in itertools.product([0, 1], repeat=n):
        s = np.array([2 * b - 1 for b in reversed(bits)], dtype=float)  # bit i <-> spin i
        E = 0.0
        for i in range(n):
            E -= theta[i] * s[i]
            for j in range(n):
                if i != j:
                    E -= 0.5 * J[i, j] * s[i] * s[j]
        weights.append(np.exp(-beta * E))
        states.append(s)
    w = np.array(weights)
    return np.array(states), w.sum(), w / w.sum()


def test_all_states_order_and_shape():
    S = bmlab.all_states(3)
    assert S.shape == (8, 3)
    assert S.tolist()[:3] == [[-1, -1, -1], [1, -1, -1], [-1, 1, -1]]
    assert np.array_equal(bmlab.state_codes(S), np.arange(8))
    assert np.array_equal(bmlab.codes_to_states(np.arange(8), 3), S)


@pytest.mark.parametrize("n,beta,seed", [(1, 1.0, 0), (3, 0.5, 1), (5, 1.0, 2), (7, 2.0, 3)])
def test_exact_functions_match_brute_force(n, beta, seed):
    rng = np.random.default_rng(seed)
    J, theta = random_machine(n, rng)
    S, Z, p = brute_force(J, theta, beta)
    assert np.array_equal(bmlab.all_states(n), S)
    assert bmlab.log_partition(J, theta, beta) == pytest.approx(np.log(Z), rel=1e-12)
    np.testing.assert_allclose(bmlab.boltzmann_probs(J, theta, beta), p, rtol=1e-10)
    m, C = bmlab.exact_moments(J, theta, beta)
    np.testing.assert_allclose(m, p @ S, atol=1e-12)
    np.testing.assert_allclose(C, (S * p[:, None]).T @ S, atol=1e-12)
    np.testing.assert_allclose(bmlab.energy(S, J, theta), -np.log(p * Z) / beta, atol=1e-9)


@pytest.mark.parametrize("n", [15, 18, 21])
def test_split_log_partition_matches_direct_sum(n):
    """The half-split path (N > 14) against a direct log-sum-exp over every state."""
    from scipy.special import logsumexp

    rng = np.random.default_rng(n)
    J, theta = random_machine(n, rng, scale=0.7)
    direct = logsumexp(-0.7 * bmlab.energy(bmlab.all_states(n), J, theta))
    assert bmlab.log_partition(J, theta, beta=0.7) == pytest.approx(direct, rel=1e-12)


def test_lecture_triangle_numbers():
    """Section 5.7: the 8 energies, Z = 6e^0.5 + 2e^-1.5 = 10.34, <s1 s2> = 0.2758."""
    S = bmlab.all_states(3)
    E = bmlab.energy(S, TRIANGLE)
    np.testing.assert_allclose(E, [-0.5, -0.5, 1.5, -0.5, -0.5, 1.5, -0.5, -0.5])
    Z = np.exp(bmlab.log_partition(TRIANGLE))
    assert Z == pytest.approx(6 * np.exp(0.5) + 2 * np.exp(-1.5), rel=1e-12)
    assert round(Z, 2) == 10.34
    m, C = bmlab.exact_moments(TRIANGLE)
    assert round(C[0, 1], 4) == 0.2758
    np.testing.assert_allclose(m, 0.0, atol=1e-15)
    assert bmlab.energy(np.ones(3), TRIANGLE) == pytest.approx(-0.5)


def test_beta_is_absorbed_into_the_parameters():
    rng = np.random.default_rng(5)
    J, theta = random_machine(6, rng)
    np.testing.assert_allclose(
        bmlab.boltzmann_probs(J, theta, beta=2.0),
        bmlab.boltzmann_probs(2 * J, 2 * theta, beta=1.0),
        rtol=1e-12,
    )


def test_independent_spins_closed_form():
    """J = 0: log Z = sum_i log(2 cosh(beta theta_i)) and <s_i> = tanh(beta theta_i)."""
    theta = np.linspace(-2, 2, 20)
    J = np.zeros((20, 20))
    assert bmlab.log_partition(J, theta, 0.8) == pytest.approx(
        np.sum(np.log(2 * np.cosh(0.8 * theta))), rel=1e-12
    )
    m, C = bmlab.exact_moments(J[:10, :10], theta[:10], 0.8)
    np.testing.assert_allclose(m, np.tanh(0.8 * theta[:10]), atol=1e-12)
    np.testing.assert_allclose(C, np.outer(m, m) + np.diag(1 - m**2), atol=1e-12)


def test_open_chain_closed_form_at_n30():
    """Open Ising chain, theta = 0: Z = 2 prod_i 2 cosh(beta J_i); exercises N = 30 split."""
    n = 30
    rng = np.random.default_rng(0)
    bonds = rng.normal(size=n - 1)
    J = np.zeros((n, n))
    J[np.arange(n - 1), np.arange(1, n)] = bonds
    J += J.T
    expected = np.log(2) + np.sum(np.log(2 * np.cosh(bonds)))
    assert bmlab.log_partition(J) == pytest.approx(expected, rel=1e-12)


def test_log_partition_stable_for_huge_couplings():
    """Ground-state dominated: log Z -> -E_min (+ log degeneracy) without overflow."""
    n = 16
    J = 1e4 * (np.ones((n, n)) - np.eye(n))  # ferromagnet; two ground states, E = -J n(n-1)/2
    value = bmlab.log_partition(J)
    assert np.isfinite(value)
    assert value == pytest.approx(1e4 * n * (n - 1) / 2 + np.log(2), rel=1e-12)
    p = bmlab.boltzmann_probs(J[:8, :8])
    assert np.all(np.isfinite(p)) and p[0] == pytest.approx(0.5) and p[-1] == pytest.approx(0.5)


@settings(deadline=None, max_examples=30)
@given(st.integers(2, 6), st.floats(0.0, 3.0), st.integers(0, 2**31 - 1))
def test_probabilities_normalised_and_consistent(n, beta, seed):
    J, theta = random_machine(n, np.random.default_rng(seed))
    p = bmlab.boltzmann_probs(J, theta, beta)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    logp = -beta * bmlab.energy(bmlab.all_states(n), J, theta) - bmlab.log_partition(J, theta, beta)
    np.testing.assert_allclose(np.log(p), logp, atol=1e-9)


def test_sample_exact_histogram_chi_square():
    rng = np.random.default_rng(11)
    J, theta = random_machine(4, rng)
    p = bmlab.boltzmann_probs(J, theta)
    n_samples = 40_000
    S = bmlab.sample_exact(J, theta, n_samples=n_samples, rng=rng)
    assert S.shape == (n_samples, 4) and set(np.unique(S)) == {-1.0, 1.0}
    counts = np.bincount(bmlab.state_codes(S), minlength=16)
    chi2 = np.sum((counts - n_samples * p) ** 2 / (n_samples * p))
    assert chi2 < stats.chi2.ppf(0.999, df=15)


def test_sample_exact_is_reproducible():
    J, theta = random_machine(5, np.random.default_rng(1))
    a = bmlab.sample_exact(J, theta, n_samples=10, rng=np.random.default_rng(3))
    b = bmlab.sample_exact(J, theta, n_samples=10, rng=np.random.default_rng(3))
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "J, message",
    [
        (np.ones((2, 3)), "square"),
        (np.array([[0.0, 1.0], [2.0, 0.0]]), "symmetric"),
        (np.eye(2), "zero diagonal"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), "finite"),
        ("abc", "array"),
        (np.zeros((0, 0)), "N >= 1"),
    ],
)
def test_bad_couplings_are_named(J, message):
    with pytest.raises((ValueError, TypeError), match=message):
        bmlab.log_partition(J)


def test_bad_theta_beta_states_and_sizes():
    J = TRIANGLE
    with pytest.raises(ValueError, match=r"theta must have shape \(3,\)"):
        bmlab.boltzmann_probs(J, theta=np.zeros(4))
    with pytest.raises(ValueError, match="beta"):
        bmlab.boltzmann_probs(J, beta=-1.0)
    with pytest.raises(ValueError, match="beta"):
        bmlab.log_partition(J, beta=np.inf)
    with pytest.raises(TypeError, match="beta"):
        bmlab.log_partition(J, beta="hot")
    with pytest.raises(ValueError, match=r"-1 and \+1"):
        bmlab.energy(np.array([1, 0, 1]), J)
    with pytest.raises(ValueError, match="shape"):
        bmlab.energy(np.ones(4), J)
    with pytest.raises(ValueError, match="N <= 24"):
        bmlab.boltzmann_probs(np.zeros((25, 25)))
    with pytest.raises(ValueError, match="N <= 32"):
        bmlab.log_partition(np.zeros((33, 33)))
    with pytest.raises(ValueError, match="n <= 24"):
        bmlab.all_states(40)
    with pytest.raises(TypeError, match="n_samples"):
        bmlab.sample_exact(J, n_samples=2.5, rng=np.random.default_rng())
    with pytest.raises(TypeError, match="rng"):
        bmlab.sample_exact(J, n_samples=3, rng=42)


def test_moments_from_probs_uses_chunks(monkeypatch):
    """Chunked accumulation gives the same answer as one block."""
    monkeypatch.setattr(_parallel, "CHUNK_ELEMENTS", 16)
    J, theta = random_machine(6, np.random.default_rng(2))
    p = bmlab.boltzmann_probs(J, theta)
    S = bmlab.all_states(6).astype(float)
    m, C = bmlab.moments_from_probs(p, 6)
    np.testing.assert_allclose(m, p @ S, atol=1e-12)
    np.testing.assert_allclose(C, (S * p[:, None]).T @ S, atol=1e-12)
    assert bmlab.log_partition(J, theta) == pytest.approx(np.log(brute_force(J, theta, 1.0)[1]))


def test_empirical_distribution_is_the_fraction_of_rows_in_each_state():
    """Repeated rows count repeatedly; the table sums to 1 (not divided by 2**N)."""
    from bmlab.exact import empirical_distribution

    S = bmlab.all_states(3)[[0, 2, 2, 7]]
    np.testing.assert_array_equal(empirical_distribution(S), [0.25, 0, 0.5, 0, 0, 0, 0, 0.25])
    S = bmlab.all_states(5)[[3, 3, 3]]
    np.testing.assert_array_equal(empirical_distribution(S), np.eye(32)[3])


def test_the_symmetry_tolerance_scales_with_the_largest_coupling():
    """Entries near 1e4 with a round-off asymmetry of 1e-10 are a valid J; an asymmetry of
    1e-6 at that scale, or of 1e-10 between couplings below 1, is not."""
    A = 1e4 * (1.0 + np.random.default_rng(0).random((4, 4)))
    J = np.triu(A, 1) + np.triu(A, 1).T
    J[0, 1] += 1e-10
    assert np.isfinite(bmlab.energy(np.ones(4), J))
    J[0, 1] += 1e-6
    with pytest.raises(ValueError, match="J must be symmetric"):
        bmlab.energy(np.ones(4), J)
    with pytest.raises(ValueError, match="J must be symmetric"):
        bmlab.energy(np.ones(2), [[0.0, 0.5], [0.5 + 1e-10, 0.0]])


@pytest.mark.parametrize(
    "call",
    [
        lambda S: bmlab.energy(S, np.zeros((3, 3))),
        lambda S: bmlab.exact.empirical_distribution(S),
        lambda S: bmlab.glauber_sample(np.zeros((3, 3)), init=S, rng=np.random.default_rng(0)),
        lambda S: bmlab.glauber_run(np.zeros((3, 3)), init=S, rng=np.random.default_rng(0)),
    ],
)
def test_states_with_no_rows_are_a_value_error_naming_them(call):
    with pytest.raises(ValueError, match=r"(S|data|init) must .*m >= 1"):
        call(np.ones((0, 3)))
