"""bmlab.phases against independent references: brute force over both layers (N_v + N_h <= 16),
bmlab's {0,1} RBM through s = 2v - 1, closed forms (rank-one Rademacher machines, the
Curie-Weiss equation), an independent mean-field solver, finite differences, the
high-temperature expansion of log Z, and exact laws for the sampler (chi-square at the 0.999
quantile, |z| < 5)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats
from scipy.special import gammaln

from bmlab import phases
from bmlab.phases import (
    SPARSITY,
    mean_field,
    mode_law,
    rbm_ensemble,
    rbm_tempering,
    replica_symmetric,
)
from bmlab.rbm import RBM

pytestmark = pytest.mark.filterwarnings("error")


def spins(n):
    return np.array(list(itertools.product([-1.0, 1.0], repeat=n)))


def brute(W, a, b, beta):
    """p(s) of every visible state (rows of spins(N_v)) and log Z, both layers enumerated."""
    S, H = spins(W.shape[0]), spins(W.shape[1])
    minus_E = S @ W @ H.T + (S @ a)[:, None] + (H @ b)[None, :]
    log_w = beta * minus_E
    top = log_w.max()
    Z = np.exp(log_w - top).sum()
    return np.exp(log_w - top).sum(axis=1) / Z, top + math.log(Z)


def machine(nv, nh, seed, biases=True, scale=1.0):
    r = np.random.default_rng(seed)
    W = r.normal(0, scale, (nv, nh))
    a, b = (r.normal(0, 0.4, nv), r.normal(0, 0.4, nh)) if biases else (None, None)
    return W, a, b, r.normal(0, 1, (nv, 2))


# --------------------------------------------------------------------------- mode_law
@pytest.mark.parametrize(
    ("nv", "nh", "biases"),
    [(4, 3, True), (5, 4, False), (8, 8, True), (9, 7, False), (10, 6, True), (1, 3, False)],
)
def test_mode_law_matches_brute_force_over_both_layers(nv, nh, biases):
    W, a, b, U = machine(nv, nh, seed=nv + 10 * nh, biases=biases, scale=0.6)
    U = U[:, : 1 + (nv > 1)]
    beta = 0.8
    p, log_Z = brute(W, np.zeros(nv) if a is None else a, np.zeros(nh) if b is None else b, beta)
    M = spins(nv) @ U / nv
    edges = np.linspace(-1.0, 1.0, 8) * (np.abs(M).max() + 0.013)  # values never on an edge
    law = mode_law(W, U, a, b, beta=beta, edges=edges)
    if U.shape[1] == 2:
        expected = np.histogram2d(M[:, 0], M[:, 1], bins=[edges, edges], weights=p)[0]
    else:
        expected = np.histogram(M[:, 0], bins=edges, weights=p)[0]
    assert law.hist == pytest.approx(expected, abs=1e-12)
    assert law.log_partition == pytest.approx(log_Z, abs=1e-10)
    assert law.mean_abs == pytest.approx(p @ np.abs(M), abs=1e-12)
    assert law.second == pytest.approx((M.T * p) @ M, abs=1e-12)
    assert law.fourth == pytest.approx(((M * M).T * p) @ (M * M), abs=1e-12)


def test_values_outside_the_edges_count_in_the_end_bins():
    W, a, b, U = machine(6, 4, seed=1)
    law = mode_law(W, U[:, :1], a, b, edges=[-0.01, 0.0, 0.01])
    p, _ = brute(W, a, b, 1.0)
    m = spins(6) @ U[:, 0] / 6
    assert law.hist == pytest.approx([p[m < 0].sum(), p[m >= 0].sum()], abs=1e-12)


def test_the_pm1_machine_is_bmlabs_01_rbm_with_4W_and_shifted_biases():
    """s = 2v - 1, sigma = 2h - 1: W01 = 4 beta W, a01 = 2 beta (a - W 1), b01 = 2 beta (b - W^T 1)
    give the same law of the visible layer (moments <s_i s_j> through U = identity)."""
    W, a, b, _ = machine(7, 5, seed=3)
    beta = 0.7
    rbm = RBM(4 * beta * W, 2 * beta * (a - W.sum(axis=1)), 2 * beta * (b - W.sum(axis=0)))
    p = rbm.visible_distribution()  # in bmlab's code order
    S = 2.0 * ((np.arange(2**7)[:, None] >> np.arange(7)) & 1) - 1
    law = mode_law(W, np.eye(7) * 7, a, b, beta=beta)
    assert law.second == pytest.approx((S.T * p) @ S, abs=1e-12)


def _rank_one_closed_form(nv, nh, w, beta):
    """P(m) of W = w u v^T / N with ±1 u and v: p(s) ~ cosh(beta w sqrt(nv/nh) m)^nh times the
    number of states with u.s = nv m."""
    k = np.arange(nv + 1)
    m = (nv - 2 * k) / nv
    log_p = gammaln(nv + 1) - gammaln(k + 1) - gammaln(nv - k + 1)
    log_p = log_p + nh * np.log(np.cosh(beta * w * math.sqrt(nv / nh) * m))
    p = np.exp(log_p - log_p.max())
    return m, p / p.sum()


@pytest.mark.parametrize(("nv", "nh", "beta"), [(12, 30, 1.3), (16, 200, 0.9), (20, 8, 1.1)])
def test_rank_one_rademacher_machine_against_its_closed_form(nv, nh, beta):
    W, U, _ = rbm_ensemble(nv, nh, [1.5], rng=np.random.default_rng(nv))
    m, p = _rank_one_closed_form(nv, nh, 1.5, beta)
    law = mode_law(W, U, beta=beta, edges=np.linspace(-1 - 1 / nv, 1 + 1 / nv, nv + 2))
    assert law.hist == pytest.approx(p[::-1], abs=1e-12)
    assert law.binder[0] == pytest.approx(1 - (p @ m**4) / (3 * (p @ m**2) ** 2), abs=1e-12)
    assert law.mean_abs[0] == pytest.approx(p @ np.abs(m), abs=1e-12)


def test_binder_and_composition_of_known_laws():
    law = phases.ModeLaw(
        None, None, None, np.diag([0.25, 0.25]), np.array([[1, 0], [0, 1]]) / 16, 0.0
    )
    assert law.binder == pytest.approx([2 / 3, 2 / 3])  # sharp peaks at m = ±1/2
    assert law.composition == 0.0  # on the axes
    mixed = phases.ModeLaw(None, None, None, np.eye(2), np.ones((2, 2)), 0.0)
    assert mixed.composition == 1.0  # on the diagonals


def test_mode_law_bad_input_is_named():
    W, a, _, U = machine(4, 3, seed=0)
    with pytest.raises(ValueError, match="n_visible"):
        mode_law(np.zeros((25, 2)), np.zeros((25, 1)))
    with pytest.raises(ValueError, match="U must"):
        mode_law(W, U[:3])
    with pytest.raises(ValueError, match="b must"):
        mode_law(W, U, a, a)
    with pytest.raises(ValueError, match="edges"):
        mode_law(W, U, edges=[0.5, 0.0])
    with pytest.raises(ValueError, match="beta"):
        mode_law(W, U, beta=-1.0)
    with pytest.raises(ValueError, match="W"):
        mode_law(np.full((3, 2), np.nan), U[:3])


# ----------------------------------------------------------------------------- ensemble
@pytest.mark.parametrize("law", phases.COMPONENTS)
def test_orthogonal_modes_make_the_strengths_the_singular_values(law):
    W, U, V = rbm_ensemble(
        16, 40, [2.0, 1.0, 0.5], components=law, orthogonal=True, rng=np.random.default_rng(1)
    )
    assert W.shape == (16, 40) and U.shape == (16, 3) and V.shape == (40, 3)
    assert U.T @ U == pytest.approx(16 * np.eye(3), abs=1e-10)
    assert V.T @ V == pytest.approx(40 * np.eye(3), abs=1e-10)
    assert np.linalg.svd(W, compute_uv=False)[:4] == pytest.approx([2, 1, 0.5, 0], abs=1e-12)


def test_component_laws_have_their_kurtosis():
    """|z| < 5 for the sample kurtosis of 2000 x 40 components (Rademacher and sparse exact)."""
    expected = {"rademacher": 1.0, "gaussian": 3.0, "laplace": 6.0, "sparse": 1 / SPARSITY}
    spread = {
        "rademacher": 0,
        "gaussian": math.sqrt(96),
        "laplace": math.sqrt(720 - 36),
        "sparse": 0,
    }
    for law, kurtosis in expected.items():
        _, U, _ = rbm_ensemble(2000, 8, np.ones(40), components=law, rng=np.random.default_rng(2))
        x = U.ravel()
        assert abs(np.mean(x * x) - 1) < 1e-12  # each |u|^2 = N_v
        error = spread[law] / math.sqrt(x.size) * 5 + 1e-12
        assert abs(np.mean(x**4) - kurtosis) < error, law
    _, U, _ = rbm_ensemble(40, 4, [1.0, 1.0], components="sparse", rng=np.random.default_rng(3))
    assert np.all((U != 0).sum(axis=0) == 10)


def test_noise_has_variance_sigma2_over_N_and_the_marchenko_pastur_edge():
    W, _, _ = rbm_ensemble(300, 500, sigma=0.7, rng=np.random.default_rng(4))
    N = math.sqrt(300 * 500)
    variance = W.var() * N / 0.49
    assert abs(variance - 1) < 5 * math.sqrt(2 / W.size)
    edge = 0.7 * ((300 / 500) ** 0.25 + (500 / 300) ** 0.25)  # sigma (k^1/2 + k^-1/2)
    assert abs(np.linalg.svd(W, compute_uv=False)[0] / edge - 1) < 0.03


def test_ensemble_bad_input_is_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="strengths"):
        rbm_ensemble(4, 4, [-1.0], rng=rng)
    with pytest.raises(ValueError, match="components"):
        rbm_ensemble(4, 4, [1.0], components="uniform", rng=rng)
    with pytest.raises(ValueError, match="multiple of 4"):
        rbm_ensemble(6, 8, [1.0, 1.0, 1.0], orthogonal=True, rng=rng)
    with pytest.raises(ValueError, match="disjoint supports"):
        rbm_ensemble(8, 40, np.ones(5), components="sparse", orthogonal=True, rng=rng)
    with pytest.raises(TypeError, match="orthogonal"):
        rbm_ensemble(4, 4, [1.0], orthogonal="yes", rng=rng)
    with pytest.raises(ValueError, match="sigma"):
        rbm_ensemble(4, 4, sigma=-0.1, rng=rng)
    with pytest.raises(TypeError, match="n_hidden"):
        rbm_ensemble(4, 2.5, rng=rng)


# ---------------------------------------------------------------------------- mean field
def _equations(W, a, b, beta, m, h, tap):
    """The violations of both mean-field equations, written out independently."""
    W2 = W**2
    x_h = beta * (W.T @ m + b) - (beta**2 * h * (W2.T @ (1 - m**2)) if tap else 0)
    x_v = beta * (W @ h + a) - (beta**2 * m * (W2 @ (1 - h**2)) if tap else 0)
    return np.concatenate([m - np.tanh(x_v), h - np.tanh(x_h)])


def _free_energy(W, a, b, beta, m, h, tap):
    def s(x):
        return sum(
            -(1 + y) / 2 * math.log((1 + y) / 2) - (1 - y) / 2 * math.log((1 - y) / 2) for y in x
        )

    F = -m @ W @ h - a @ m - b @ h - (s(m) + s(h)) / beta
    return F - (0.5 * beta * np.sum(np.outer(1 - m**2, 1 - h**2) * W**2) if tap else 0)


@pytest.mark.parametrize("method", ["naive", "tap"])
def test_fixed_points_solve_the_equations_and_agree_with_an_independent_solver(method):
    tap = method == "tap"
    W, a, b, _ = machine(6, 5, seed=5, scale=0.5)
    beta = 1.2
    starts = np.random.default_rng(6).uniform(-1, 1, (30, 6))
    fp = mean_field(W, a, b, beta=beta, starts=starts, method=method)
    assert fp.converged.all() and fp.hits.sum() == 30
    for m, h, F in zip(fp.m_v, fp.m_h, fp.free_energy, strict=True):
        assert np.abs(_equations(W, a, b, beta, m, h, tap)).max() < 1e-10
        assert F == pytest.approx(_free_energy(W, a, b, beta, m, h, tap), abs=1e-10)
    for start in starts:  # scipy's root finder from each start finds a point in the list
        solution = optimize.root(
            lambda x: _equations(W, a, b, beta, x[:6], x[6:], tap),
            np.concatenate([start, np.tanh(beta * (W.T @ start + b))]),
            tol=1e-13,
        )
        if solution.success and np.abs(solution.x).max() < 1:
            gaps = np.abs(np.hstack([fp.m_v, fp.m_h]) - solution.x).max(axis=1)
            assert gaps.min() < 1e-7 or not _stable(W, a, b, beta, solution.x, tap)


def _stable(W, a, b, beta, x, tap):
    """Whether the damped iteration (d = 1/2) is contracting at x (numerical Jacobian)."""

    def step(y):
        m, h = y[:6], y[6:]
        h2 = 0.5 * h + 0.5 * (h - _equations(W, a, b, beta, m, h, tap)[6:])
        m2 = 0.5 * m + 0.5 * (m - _equations(W, a, b, beta, m, h2, tap)[:6])
        return np.concatenate([m2, h2])

    J = np.array([(step(x + 1e-6 * e) - step(x - 1e-6 * e)) / 2e-6 for e in np.eye(x.size)])
    return np.abs(np.linalg.eigvals(J)).max() < 1


@pytest.mark.parametrize("method", ["naive", "tap"])
def test_fixed_points_are_stationary_points_of_the_free_energy(method):
    tap = method == "tap"
    W, a, b, _ = machine(5, 4, seed=8, scale=0.4)
    beta = 1.5
    fp = mean_field(
        W, a, b, beta=beta, starts=np.random.default_rng(9).uniform(-1, 1, (10, 5)), method=method
    )
    for m, h in zip(fp.m_v, fp.m_h, strict=True):
        x = np.concatenate([m, h])
        for e in np.eye(9):
            up = _free_energy(W, a, b, beta, *np.split(x + 1e-5 * e, [5]), tap)
            down = _free_energy(W, a, b, beta, *np.split(x - 1e-5 * e, [5]), tap)
            assert abs(up - down) / 2e-5 < 1e-5  # finite-difference error ~1e-7


def test_tap_paramagnet_is_exact_log_z_to_order_beta_cubed():
    """-beta F_TAP(0) = (N_v + N_h) log 2 + beta^2 sum W^2 / 2; exact log Z differs by O(beta^4)."""
    W, _, _, _ = machine(6, 6, seed=10, biases=False)
    errors = []
    for beta in (0.05, 0.1):
        fp = mean_field(W, beta=beta, starts=np.zeros((1, 6)), method="tap")
        assert fp.converged.all() and np.abs(fp.m_v).max() < 1e-12
        log_Z = brute(W, np.zeros(6), np.zeros(6), beta)[1]
        errors.append(abs(log_Z + beta * fp.free_energy[0]))
        naive = mean_field(W, beta=beta, starts=np.zeros((1, 6)))
        assert -beta * naive.free_energy[0] == pytest.approx(12 * math.log(2), abs=1e-12)
    assert 10 < errors[1] / errors[0] < 22  # (0.1 / 0.05)^4 = 16


def test_paramagnet_is_the_only_naive_fixed_point_until_the_top_singular_value():
    """Rank one, +-1 components, N_v = N_h = 200: 0 is the only fixed point for
    beta s_max < 1, and loses its stability above; there the magnetised points solve
    m = tanh(beta w m) (large N_h)."""
    W, U, _ = rbm_ensemble(200, 200, [1.0], rng=np.random.default_rng(11))
    s_max = np.linalg.svd(W, compute_uv=False)[0]
    starts = np.random.default_rng(12).uniform(-1, 1, (6, 200))
    below = mean_field(W, beta=0.9 / s_max, starts=starts)
    assert below.converged.all() and len(below.hits) == 1
    assert np.abs(below.m_v).max() < 1e-9 and np.abs(below.m_h).max() < 1e-9
    above = mean_field(W, beta=1.2 / s_max, starts=starts)
    assert above.converged.all() and len(above.hits) == 2  # +m and -m
    m = np.abs(above.m_v @ U[:, 0] / 200)
    curie_weiss = optimize.brentq(lambda x: x - math.tanh(1.2 * x), 0.1, 1.0)
    assert m == pytest.approx([curie_weiss] * 2, abs=1e-9)
    at_zero = mean_field(W, beta=1.2 / s_max, starts=np.zeros((1, 200)))
    assert np.abs(at_zero.m_v).max() == 0.0  # 0 is still a fixed point, of higher F, unstable:
    assert np.all(above.free_energy < at_zero.free_energy[0] - 1)
    nudged = mean_field(W, beta=1.2 / s_max, starts=1e-6 * U[:, :1].T)
    assert np.abs(nudged.m_v @ U[:, 0] / 200)[0] == pytest.approx(curie_weiss, abs=1e-9)


def test_unconverged_points_are_flagged_and_never_merged():
    W, _, _, _ = machine(5, 4, seed=13)
    starts = np.random.default_rng(14).uniform(-1, 1, (4, 5))
    fp = mean_field(W, beta=3.0, starts=np.vstack([starts, starts]), max_iter=3)
    assert not fp.converged.any() and len(fp.hits) == 8 and np.all(fp.hits == 1)
    full = mean_field(W, beta=3.0, starts=np.vstack([starts, starts]))
    assert full.converged.all() and full.hits.sum() == 8 and len(full.hits) <= 4


def test_mean_field_bad_input_is_named():
    W, _, b, _ = machine(4, 3, seed=0)
    with pytest.raises(ValueError, match="starts"):
        mean_field(W, starts=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="starts"):
        mean_field(W, starts=np.full((2, 4), 1.5))
    with pytest.raises(ValueError, match="method"):
        mean_field(W, starts=np.zeros((1, 4)), method="bethe")
    with pytest.raises(ValueError, match="beta"):
        mean_field(W, starts=np.zeros((1, 4)), beta=0.0)
    with pytest.raises(ValueError, match="damping"):
        mean_field(W, starts=np.zeros((1, 4)), damping=0.0)
    with pytest.raises(ValueError, match="a must"):
        mean_field(W, b, starts=np.zeros((1, 4)))


# ----------------------------------------------------------------------------- sampler
def _tempering_machine():
    W, a, b, _ = machine(3, 2, seed=15, scale=0.9)
    return W, a, b, np.array([0.3, 0.8, 1.5])


def test_each_replica_samples_its_exact_law():
    """Chi-square of the visible states of 4000 ladders after 30 sweeps, at every beta."""
    W, a, b, betas = _tempering_machine()
    run = rbm_tempering(
        W,
        a,
        b,
        betas=betas,
        n_sweeps=30,
        n_chains=4000,
        modes=np.eye(3) * 3,
        rng=np.random.default_rng(16),
    )
    assert run.projections.shape == (30, 3, 4000, 3)
    S = run.projections[-1]  # (K, chains, 3): the states themselves
    codes = ((S > 0) * np.array([4, 2, 1])).sum(axis=-1)  # spins(3) order
    for k, beta in enumerate(betas):
        p = brute(W, a, b, beta)[0]
        counts = np.bincount(codes[k], minlength=8)
        chi2 = np.sum((counts - 4000 * p) ** 2 / (4000 * p))
        assert chi2 < stats.chi2.ppf(0.999, 7), (beta, chi2)
    assert np.array_equal(run.visible, S.astype(np.int8))


def test_overlap_of_two_replicas_and_swap_rates_match_their_exact_values():
    """<q^2> = sum_ij <s_i s_j>^2 / N_v^2 for independent replicas; the swap rate is
    E[min(1, exp((b1 - b0)(E1 - E0)))] under the product of the two exact joint laws."""
    W, a, b, betas = _tempering_machine()
    run = rbm_tempering(
        W, a, b, betas=betas, n_sweeps=60, n_chains=2000, rng=np.random.default_rng(17)
    )
    q2 = run.overlaps[20:] ** 2  # (records, K, pairs)
    S, H = spins(3), spins(2)
    energies = -(S @ W @ H.T + (S @ a)[:, None] + (H @ b)[None, :]).ravel()
    for k, beta in enumerate(betas):
        p = brute(W, a, b, beta)[0]
        C = (S.T * p) @ S
        exact = np.sum(C**2) / 9
        per_pair = q2[:, k].mean(axis=0)
        z = (per_pair.mean() - exact) / (per_pair.std() / math.sqrt(per_pair.size))
        assert abs(z) < 5, (beta, z)
    joint = [np.exp(-beta * energies) / np.exp(-beta * energies).sum() for beta in betas]
    for k in range(2):
        accept = np.exp(
            np.minimum(0, (betas[k + 1] - betas[k]) * (energies[None, :] - energies[:, None]))
        )
        exact = joint[k] @ accept @ joint[k + 1]
        sd = math.sqrt(exact * (1 - exact) / (60 * 2000))
        assert abs(run.swap_rates[k] - exact) < 5 * sd * 3  # successive swaps are correlated


def test_tempering_continues_from_init_and_bad_input_is_named():
    W, a, b, betas = _tempering_machine()
    first = rbm_tempering(
        W, a, b, betas=betas, n_sweeps=2, n_chains=3, record_every=2, rng=np.random.default_rng(1)
    )
    assert first.overlaps.shape == (1, 3, 1) and first.projections is None
    rng = np.random.default_rng(2)
    with pytest.raises(ValueError, match="init"):
        rbm_tempering(W, betas=betas, n_sweeps=1, n_chains=2, init=first.visible, rng=rng)
    again = rbm_tempering(W, betas=betas, n_sweeps=1, n_chains=3, init=first.visible, rng=rng)
    assert again.visible.shape == (3, 3, 3)
    with pytest.raises(ValueError, match="betas"):
        rbm_tempering(W, betas=[1.0, 0.5], n_sweeps=1, rng=rng)
    with pytest.raises(ValueError, match="modes"):
        rbm_tempering(W, betas=betas, n_sweeps=1, modes=np.eye(2), rng=rng)
    with pytest.raises(TypeError, match="rng"):
        rbm_tempering(W, betas=betas, n_sweeps=1, rng=1)


# ---------------------------------------------------------------------- replica symmetry
def test_replica_symmetric_solution_against_quadrature_and_curie_weiss():
    m, q = replica_symmetric(2.0, 1.0, 0.0)  # sigma = 0: m = tanh(beta w m), q = m^2
    curie_weiss = optimize.brentq(lambda x: x - math.tanh(2 * x), 0.1, 1.0)
    assert m == pytest.approx(curie_weiss, abs=1e-10) and q == pytest.approx(m**2, abs=1e-10)
    beta, w, sigma = 1.6, 1.0, 0.7  # both order parameters non-zero
    m, q = replica_symmetric(beta, w, sigma)

    def average(f, m, q):
        return integrate.quad(
            lambda z: (
                f(math.tanh(beta * (w * m + sigma * math.sqrt(q) * z)))
                * math.exp(-z * z / 2)
                / math.sqrt(2 * math.pi)
            ),
            -12,
            12,
            epsabs=1e-13,
        )[0]

    assert m == pytest.approx(average(lambda t: t, m, q), abs=1e-10)
    assert q == pytest.approx(average(lambda t: t * t, m, q), abs=1e-10)


def test_replica_symmetric_phases_and_lines():
    """Paramagnet above max(w, sigma); ferromagnet below T = w when w > sigma; spin glass
    (m = 0, q > 0) below T = sigma when sigma > w."""
    T = np.array([1.3, 0.8, 1.3, 0.8])
    sigma = np.array([0.5, 0.5, 1.2, 1.2])
    m, q = replica_symmetric(1 / T, 1.0, sigma, max_iter=20_000, tol=1e-13)
    assert m.shape == (4,)
    assert m[0] < 1e-6 and q[0] < 1e-6  # T > w > sigma
    assert m[1] > 0.3  # ferromagnet
    assert m[2] < 1e-6 and q[2] < 1e-6  # T > sigma > w
    assert m[3] < 1e-6 and q[3] > 0.1  # spin glass
    with pytest.raises(ValueError, match="sigma"):
        replica_symmetric(1.0, 1.0, -0.5)
