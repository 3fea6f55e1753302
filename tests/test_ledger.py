"""bmlab.ledger: the lecture's Section 5.7 numbers, brute-force oracles and closed forms."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import bmlab
from bmlab import ledger as L

TRIANGLE = L.LECTURE_J


def brute_ledger(J, theta, pair):
    """Independent oracle: itertools loop in the lecture's order (+ first, spin 1 slowest)."""
    n = len(theta)
    rows = []
    for s in itertools.product([1.0, -1.0], repeat=n):
        E = -sum(J[i, j] * s[i] * s[j] for i in range(n) for j in range(i + 1, n))
        E -= sum(theta[i] * s[i] for i in range(n))
        rows.append((s, E, math.exp(-E), s[pair[0]] * s[pair[1]] * math.exp(-E)))
    return rows


# ------------------------------------------------------------------ the lecture's ledger


def test_lecture_ledger_numbers():
    led = L.ledger(TRIANGLE)
    signs = ["".join("+" if x > 0 else "-" for x in s) for s in led.states]
    assert signs == ["+++", "++-", "+-+", "+--", "-++", "-+-", "--+", "---"]
    np.testing.assert_allclose(led.E, [-0.5, -0.5, 1.5, -0.5, -0.5, 1.5, -0.5, -0.5])
    np.testing.assert_allclose(led.weights.round(3), [1.649] * 2 + [0.223] + [1.649] * 2
                               + [0.223] + [1.649] * 2)
    np.testing.assert_allclose(
        led.pair_weights.round(3),
        [1.649, 1.649, -0.223, -1.649, -1.649, -0.223, 1.649, 1.649],
    )
    assert led.Z == pytest.approx(6 * math.exp(0.5) + 2 * math.exp(-1.5), rel=1e-12)
    assert round(led.Z, 2) == 10.34
    assert round(led.pair_sum, 3) == 2.851
    assert round(led.moment, 3) == 0.276
    assert math.log(led.Z) == pytest.approx(bmlab.log_partition(TRIANGLE), rel=1e-12)
    html = led.to_html()
    assert html.count("<tr") == 10 and "Z = 10.339" in html and "0.276" in html
    assert "Z=10.34" in repr(led)


def test_lecture_gradient():
    g = L.pair_gradient(TRIANGLE, data_moment=L.LECTURE_DATA_MOMENT)
    assert round(g, 3) == 0.224
    assert g == pytest.approx(0.5 - L.ledger(TRIANGLE).moment, abs=1e-12)


def test_lecture_frustration():
    fr = L.frustration(TRIANGLE)
    assert fr.loop_product == pytest.approx(-0.125)
    assert fr.frustrated
    assert fr.n_satisfying == 0
    assert fr.ideal_energy == pytest.approx(-1.5)
    assert fr.ground_energy == pytest.approx(-0.5)
    assert fr.degeneracy == 6


def test_unfrustrated_triangle_has_two_satisfying_ground_states():
    fr = L.frustration(L.triangle_couplings(0.5, 0.5, 0.5))
    assert not fr.frustrated and fr.n_satisfying == 2 and fr.degeneracy == 2
    assert fr.ground_energy == pytest.approx(fr.ideal_energy)


@pytest.mark.parametrize("seed", range(5))
def test_ledger_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    J, theta = L.random_dense_machine(n, rng=rng)
    pair = tuple(rng.choice(n, size=2, replace=False))
    led = L.ledger(J, theta, pair=pair)
    rows = brute_ledger(J, theta, pair)
    np.testing.assert_allclose(led.states, [r[0] for r in rows])
    np.testing.assert_allclose(led.E, [r[1] for r in rows], atol=1e-12)
    np.testing.assert_allclose(led.weights, [r[2] for r in rows], rtol=1e-12)
    np.testing.assert_allclose(led.pair_weights, [r[3] for r in rows], rtol=1e-12)
    _, C = bmlab.exact_moments(J, theta)
    assert led.moment == pytest.approx(C[pair], abs=1e-12)
    # frustration: brute-force ground level and satisfying states
    E = np.array([r[1] for r in rows])
    fr = L.frustration(J, theta) if n >= 3 else None
    if fr is not None:
        assert fr.ground_energy == pytest.approx(E.min())
        assert fr.degeneracy == int(np.sum(np.isclose(E, E.min(), rtol=0, atol=1e-9)))
        sat = sum(
            all(J[i, j] * r[0][i] * r[0][j] >= 0 for i in range(n) for j in range(i + 1, n))
            for r in rows
        )
        assert fr.n_satisfying == sat
        prod = np.prod([J[k, (k + 1) % n] for k in range(n)])
        assert fr.loop_product == pytest.approx(prod)
        assert fr.frustrated == (prod < 0)


def test_ledger_refuses_bad_input():
    with pytest.raises(ValueError, match="N <= 10"):
        L.ledger(np.zeros((11, 11)))
    with pytest.raises(ValueError, match="pair"):
        L.ledger(TRIANGLE, pair=(0, 0))
    with pytest.raises(TypeError, match="pair"):
        L.ledger(TRIANGLE, pair=1)
    with pytest.raises(ValueError, match="too large for a literal ledger"):
        L.ledger(1000 * TRIANGLE)
    with pytest.raises(ValueError, match="theta"):
        L.ledger(TRIANGLE, theta=[0, 0])
    with pytest.raises(TypeError, match="led"):
        L.ledger_html("not a ledger")
    with pytest.raises(ValueError, match="loop"):
        L.loop_product(TRIANGLE, loop=[0, 1])
    with pytest.raises(ValueError, match="data_moment"):
        L.pair_gradient(TRIANGLE, data_moment=1.5)


# ------------------------------------------------------------------ the strengthen loop


def test_closed_form_matches_enumeration():
    rng = np.random.default_rng(1)
    for a, b, c in rng.uniform(-3, 3, size=(20, 3)):
        led = L.ledger(L.triangle_couplings(a, b, c))
        assert L.triangle_pair_moment(a, b, c) == pytest.approx(led.moment, abs=1e-12)
        target = float(rng.uniform(-0.9, 0.9))
        J12 = L.triangle_coupling_for(target, b, c)
        assert L.triangle_pair_moment(J12, b, c) == pytest.approx(target, abs=1e-12)
    assert round(L.triangle_pair_moment(0.5, 0.5, -0.5), 3) == 0.276


@pytest.mark.parametrize("lr", [0.3, 1.0])
def test_fit_coupling_reaches_the_data_moment(lr):
    fit = L.fit_coupling(TRIANGLE, data_moment=0.5, lr=lr, tol=1e-8)
    exact = L.triangle_coupling_for(0.5, 0.5, -0.5)
    assert fit.converged
    assert fit.final_coupling == pytest.approx(exact, abs=1e-7)
    assert round(fit.final_coupling, 3) == 0.766
    assert fit.coupling[0] == 0.5 and round(fit.gradient[0], 3) == 0.224
    assert np.all(np.diff(fit.coupling) > 0)  # strengthen, monotonically
    assert np.all(np.diff(fit.moment) > 0)
    # only J12 moved
    expected = TRIANGLE.copy()
    expected[0, 1] = expected[1, 0] = fit.final_coupling
    np.testing.assert_array_equal(fit.J, expected)
    # each recorded moment is the exact enumeration at the recorded coupling
    for c, m in zip(fit.coupling, fit.moment, strict=True):
        assert m == pytest.approx(L.triangle_pair_moment(c, 0.5, -0.5), abs=1e-12)


def test_fit_coupling_with_biases_and_other_pair():
    rng = np.random.default_rng(3)
    J, theta = L.random_dense_machine(5, rng=rng)
    fit = L.fit_coupling(J, theta, data_moment=-0.3, pair=(1, 3), tol=1e-9)
    _, C = bmlab.exact_moments(fit.J, theta)
    assert C[1, 3] == pytest.approx(-0.3, abs=1e-8)


def test_fit_coupling_refuses_bad_input():
    with pytest.raises(ValueError, match="data_moment"):
        L.fit_coupling(TRIANGLE, data_moment=1.0)
    with pytest.raises(ValueError, match="lr"):
        L.fit_coupling(TRIANGLE, data_moment=0.5, lr=2.5)
    with pytest.raises(ValueError, match="tol"):
        L.fit_coupling(TRIANGLE, data_moment=0.5, tol=0)
    with pytest.raises(TypeError, match="n_steps"):
        L.fit_coupling(TRIANGLE, data_moment=0.5, n_steps=1.5)


# ------------------------------------------------------------------ scaling and timing


def test_scaling_table_counts_and_comparisons():
    rows = L.scaling_table()
    assert [r.n for r in rows] == [3, 10, 20, 30, 100, 500]
    assert [r.terms for r in rows] == [8, 1024, 1048576, 1073741824, 2**100, 2**500]
    assert L.human_count(rows[2].terms) == "1.05 × 10^6"
    assert L.human_count(rows[3].terms) == "1.07 × 10^9"
    assert L.human_count(rows[4].terms) == "1.27 × 10^30"
    assert L.human_count(rows[5].terms) == "3.27 × 10^150"
    assert rows[4].vs_seconds > 0 > rows[3].vs_seconds  # N=100 passes the Big Bang clock
    assert rows[5].vs_atoms > 0 > rows[4].vs_atoms  # N=500 passes the atoms
    assert rows[4].verdict == "more terms than seconds since the Big Bang"
    assert rows[5].verdict == "more terms than atoms in the observable universe"
    assert 4.3e17 < L.AGE_OF_UNIVERSE_S < 4.4e17
    text = L.scaling_text(rows)
    assert len(text.splitlines()) == 7
    with pytest.raises(ValueError, match="N"):
        L.scaling_table([1001])


def test_human_units():
    assert L.human_time(2.5e-4) == "250 µs"
    assert L.human_time(2.5) == "2.5 s"
    assert L.human_time(90) == "1.5 minutes"
    assert L.human_time(2 * L.SECONDS_PER_YEAR) == "2 years"
    assert L.human_time(3 * L.AGE_OF_UNIVERSE_S) == "3 ages of the universe"
    assert L.human_time(math.inf) == "forever"
    with pytest.raises(ValueError, match="seconds"):
        L.human_time(-1)
    assert L.human_count(999) == "999"
    assert L.human_count(2**100, tex=True) == r"$1.27\times 10^{30}$"
    assert L.human_count(9.999e9) == "1.00 × 10^10"
    assert L.human_time(1350 * L.AGE_OF_UNIVERSE_S) == "1,350 ages of the universe"
    assert L.comparison(100) == "fewer terms than seconds in a day"


def test_naive_log_partition_agrees_and_refuses_large_n():
    rng = np.random.default_rng(0)
    for n in (1, 3, 8, 12):
        J, theta = L.random_dense_machine(n, rng=rng)
        assert L.naive_log_partition(J, theta) == pytest.approx(
            bmlab.log_partition(J, theta), rel=1e-12
        )
    with pytest.raises(ValueError, match="N <= 20"):
        L.naive_log_partition(np.zeros((21, 21)))


def test_time_log_partition_and_refusals():
    secs, logz = L.time_log_partition([4, 8], rng=np.random.default_rng(0), repeat=1)
    assert secs.shape == (2,) and np.all(secs > 0)
    _s2, z2 = L.time_log_partition([4, 8], method="naive", rng=np.random.default_rng(0),
                                  repeat=1)
    np.testing.assert_allclose(z2, logz, rtol=1e-12)  # same seed -> same machines
    with pytest.raises(ValueError, match="N = 25 is too large"):
        L.time_log_partition([25], max_n=24, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="N = 21 is too large"):
        L.time_log_partition([21], method="naive", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="method"):
        L.time_log_partition([4], method="fast", rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng"):
        L.time_log_partition([4], rng=0)


def test_fit_exponential_recovers_a_known_law():
    ns = np.arange(10, 31)
    fit = L.fit_exponential(ns, 1e-6 * 2.0 ** (1.1 * ns), n_min=15)
    assert fit.slope == pytest.approx(1.1) and fit.factor == pytest.approx(2**1.1)
    assert fit.predict(40) == pytest.approx(1e-6 * 2.0**44)
    assert fit.predict_human(2000).endswith("ages of the universe")
    assert np.isinf(fit.predict(2000))
    with pytest.raises(ValueError, match="n_min"):
        L.fit_exponential(ns, np.ones(ns.size), n_min=30)
    with pytest.raises(ValueError, match="seconds"):
        L.fit_exponential([1, 2], [0.0, 1.0])
