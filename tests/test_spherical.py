"""bmlab.spherical against independent references: closed forms (N = 2, rank-one W, W = cI),
quadrature over the sphere (N = 3), direct Monte Carlo (N = 10), the saddle-point asymptotics
(large N), finite differences; samplers and chains by z-scores (|z| < 5) and chi-square tests
(p > 1e-3) against the exact moments and laws, in the uncondensed and the condensed phase."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import betaln, gammaln, ive

from bmlab import spherical
from bmlab.learning import train
from bmlab.spherical import (
    ExactSphericalGradient,
    PCDSphericalGradient,
    SphericalBM,
    spherical_moments,
)

pytestmark = pytest.mark.filterwarnings("error")


def rotated(lam, seed=0):
    """A symmetric W with eigenvalues ``lam`` and random eigenvectors."""
    Q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(len(lam), len(lam))))
    W = (Q * np.asarray(lam, float)) @ Q.T
    return (W + W.T) / 2


def semicircle(n):
    """n deterministic eigenvalues spread like the semicircle law on [-1, 1] (quantiles)."""
    q = (np.arange(n) + 0.5) / n
    x = np.cos(np.pi * (1 - q))  # a start; Newton on the semicircle's distribution function
    for _ in range(60):
        F = 0.5 + (x * np.sqrt(1 - x * x) + np.arcsin(x)) / np.pi
        x = np.clip(x - (F - q) / (2 / np.pi * np.sqrt(1 - x * x) + 1e-300), -1 + 1e-15, 1 - 1e-15)
    return x


def rank_one(c, n):
    """log Z and <(u.x)^2> for W = c u u^T at beta = 1: w = (u.x)^2 / N ~ Beta(1/2, (N-1)/2)
    under the uniform law, so Z = E[exp(c N w / 2)]; with w = sin^2(theta), one smooth integral."""
    k = c * n / 2
    u_peak = min(1.0, (n - 2) / (2 * k))  # the peak of the integrand in cos^2(theta)
    h_peak = (n - 2) / 2 * np.log(u_peak) if n > 2 else 0.0
    h_peak += k * (1 - u_peak)

    def integral(power):
        def f(th):
            log_cos = (n - 2) * np.log(np.cos(th)) if n > 2 else 0.0
            return np.sin(th) ** power * np.exp(log_cos + k * np.sin(th) ** 2 - h_peak)

        peak = [np.arccos(np.sqrt(u_peak))] if 0 < u_peak < 1 else None
        return integrate.quad(f, 0, np.pi / 2, points=peak, epsabs=0, epsrel=1e-13, limit=200)[0]

    log_Z = np.log(2.0) - betaln(0.5, (n - 1) / 2) + h_peak + np.log(integral(0))
    return log_Z, n * integral(2) / integral(0)


def saddle_gaps(lam, beta):
    """z* - beta lam_i for the root z* > beta max(lam) of sum_i 1/(z - beta lam_i) = N."""
    a = beta * np.asarray(lam)
    lo, hi = a.max(), a.max() + 2.0
    for _ in range(200):  # bisection
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.sum(1 / (mid - a)) > len(a) else (lo, mid)
    return hi - a


def saddle_point(lam, beta):
    """The large-N asymptotics of log Z: the integrand at z* times the Gaussian width."""
    d = saddle_gaps(lam, beta)
    t = len(d) / 2
    g_star = t * (d[0] + beta * lam[0]) - 0.5 * np.sum(np.log(d))
    return gammaln(t) + (1 - t) * np.log(t) + g_star - 0.5 * np.log(np.pi * np.sum(d**-2.0))


def z_scores(samples, expected):
    """(mean - expected) / standard error, column by column."""
    return (samples.mean(axis=0) - expected) / (samples.std(axis=0) / np.sqrt(len(samples)))


# --------------------------------------------------------------------- log Z, exactly
@pytest.mark.parametrize(
    "lam1,lam2,beta", [(0.3, -0.2, 1.0), (2.0, 1.0, 3.0), (50.0, -50.0, 10.0), (1.0, 1.0, 2.0)]
)
def test_circle_closed_form(lam1, lam2, beta):
    """N = 2: x on a circle, Z = exp(beta (l1 + l2) / 2) I0(beta (l1 - l2) / 2) and
    <y_1^2> = 1 + I1/I0 (up to kappa = 500: strongly condensed)."""
    kappa = beta * (lam1 - lam2) / 2
    model = SphericalBM(rotated([lam2, lam1], seed=1))
    exact = beta * (lam1 + lam2) / 2 + np.log(ive(0, kappa)) + kappa
    assert model.log_partition(beta) == pytest.approx(exact, abs=1e-12)
    log_Z, y2 = spherical_moments([lam2, lam1], beta)
    assert log_Z == pytest.approx(exact, abs=1e-12)
    np.testing.assert_allclose(
        y2, [1 - ive(1, kappa) / ive(0, kappa), 1 + ive(1, kappa) / ive(0, kappa)], rtol=1e-10
    )


@pytest.mark.parametrize("beta", [0.3, 1.0, 4.0])
def test_sphere_n3_by_quadrature(beta):
    """N = 3, a random non-diagonal W: a double integral over the sphere."""
    W = (lambda A: (A + A.T) / 2)(np.random.default_rng(3).normal(size=(3, 3)))
    top = np.linalg.eigvalsh(W).max()

    def f(phi, theta):
        x = np.sqrt(3) * np.array(
            [np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)]
        )
        return np.exp(beta / 2 * x @ W @ x - 1.5 * beta * top) * np.sin(theta)

    val = integrate.dblquad(f, 0, np.pi, 0, 2 * np.pi, epsabs=0, epsrel=1e-12)[0]
    exact = np.log(val / (4 * np.pi)) + 1.5 * beta * top
    assert SphericalBM(W).log_partition(beta) == pytest.approx(exact, abs=1e-11)


@pytest.mark.parametrize("beta", [1.0, 30.0, 1000.0])
def test_sphere_n3_strongly_condensed(beta):
    """N = 3, W = diag(l1, l2, l3): x_3 / sqrt(3) is uniform on [-1, 1] (Archimedes) and the
    circle that remains gives a Bessel function: one integral, also for beta * gap = 3000."""
    l1, l2, l3 = -1.0, 0.5, 3.5
    k = 1.5 * beta

    def f(s):
        r = 1 - s * s
        return np.exp(k * (l3 * s * s + r * (l1 + l2) / 2 + r * (l2 - l1) / 2 - l3)) * ive(
            0, k * r * (l2 - l1) / 2
        )

    val = integrate.quad(f, -1, 1, points=[-1 + 1e-3, 1 - 1e-3], epsabs=0, epsrel=1e-13, limit=400)
    exact = np.log(val[0] / 2) + k * l3
    assert SphericalBM(np.diag([l1, l2, l3])).log_partition(beta) == pytest.approx(exact, abs=1e-10)


@pytest.mark.parametrize("n", [2, 3, 10, 100, 1000])
@pytest.mark.parametrize("c", [0.5, 1.0, 1.5, 20.0])
def test_rank_one_against_the_beta_law(n, c):
    """W = c u u^T: log Z and <(u.x)^2> by one integral over the Beta law of (u.x)^2 / N, from
    uncondensed (c < 1) through the transition (c = 1) to deep condensation."""
    u = np.zeros(n)
    u[0] = 1.0
    log_Z, top = rank_one(c, n)
    got, y2 = spherical_moments(c * u, 1.0)
    assert got == pytest.approx(log_Z, abs=1e-11)
    assert y2[0] == pytest.approx(top, rel=1e-10)
    np.testing.assert_allclose(y2[1:], (n - top) / (n - 1), rtol=1e-10)


def test_ten_dimensions_by_direct_monte_carlo():
    """N = 10: Z = E_uniform[exp(beta/2 x^T W x)] averaged over 200,000 uniform points."""
    rng = np.random.default_rng(4)
    W = rotated(np.linspace(-0.6, 0.8, 10), seed=4)
    G = rng.normal(size=(200_000, 10))
    X = np.sqrt(10) * G / np.linalg.norm(G, axis=1)[:, None]
    w = np.exp(0.5 * np.einsum("ij,jk,ik->i", X, W, X))
    z = (w.mean() - np.exp(SphericalBM(W).log_partition())) / (w.std() / np.sqrt(len(w)))
    assert abs(z) < 5, z


def test_large_n_approaches_the_saddle_point():
    """Uncondensed (beta = 0.5 below the condensation at beta = 2 of the semicircle on [-1, 1]):
    log Z minus its saddle-point asymptotics shrinks like 1/N, measured from N = 10 to 1000."""
    gaps = []
    for n in (10, 100, 1000):
        lam = semicircle(n)
        gaps.append(abs(spherical_moments(lam, 0.5)[0] - saddle_point(lam, 0.5)))
    assert gaps[0] > 5 * gaps[1] > 25 * gaps[2] > 0, gaps


@pytest.mark.parametrize("beta", [0.5, 3.0])
def test_n_1000_by_importance_sampling(beta):
    """N = 1000, uncondensed and condensed: with g_i ~ N(0, 1/d_i), d = z* - beta lam, w = g/|g|
    and u = sum_i d_i w_i^2, E[exp(N/2 (1 + log u - u))] = exp(log Z - t z* + 1/2 sum_i log d_i
    + t), t = N/2 (the sampler's acceptance rate): a Monte Carlo estimate of Z at N = 1000."""
    n, t = 1000, 500
    lam = np.append(semicircle(n - 1), 1.5)
    d = saddle_gaps(lam, beta)
    z_star = d[-1] + beta * lam[-1]
    G = np.random.default_rng(24).normal(size=(4000, n)) / np.sqrt(d)
    u = (G * G) @ d / np.sum(G * G, axis=1)
    w = np.exp(t * (1 + np.log(u) - u))
    log_Z = spherical_moments(lam, beta)[0]
    expected = np.exp(log_Z - t * z_star + 0.5 * np.sum(np.log(d)) + t)
    assert abs((w.mean() - expected) / (w.std() / np.sqrt(len(w)))) < 5


@pytest.mark.parametrize("n", [2, 10, 100, 1000])
@pytest.mark.parametrize("beta", [0.3, 3.0, 100.0])
def test_path_nodes_at_once_and_node_by_node_agree(n, beta, monkeypatch):
    """The path's nodes by Newton's method on all of them at once (the fast way) and node by
    node from the saddle (the way taken if that fails): the same log Z and <y_i^2>, to 1e-12,
    uncondensed and condensed (one outlier at 1.5 above a semicircle on [-1, 1]); and the fast
    way does converge on these spectra."""
    lam = np.append(semicircle(n - 1), 1.5)
    fast, at_once = [], spherical._nodes_at_once
    monkeypatch.setattr(
        spherical, "_nodes_at_once", lambda *a: fast.append(at_once(*a)) or fast[-1]
    )
    log_Z, y2 = spherical_moments(lam, beta)
    assert fast[0] is not None, "Newton on all nodes at once did not converge: the slow way ran"
    monkeypatch.setattr(spherical, "_nodes_at_once", lambda *args: None)
    log_Z_slow, y2_slow = spherical_moments(lam, beta)
    assert log_Z == pytest.approx(log_Z_slow, abs=1e-12 * max(1.0, abs(log_Z)))
    np.testing.assert_allclose(y2, y2_slow, rtol=1e-12)


def test_log_Z_needs_no_eigenvectors():
    """A machine computes its eigenvectors on first use only: log Z needs the eigenvalues; the
    eigenvectors, computed later, diagonalise W with those eigenvalues."""
    W = rotated(semicircle(40), seed=4)
    model = SphericalBM(W)
    model.log_partition(2.0)
    assert "U" not in vars(model)
    np.testing.assert_allclose((model.U * model.lam) @ model.U.T, W, atol=1e-12)


def test_multiples_of_the_identity_and_shifts():
    """W = cI gives Z = exp(beta c N / 2); W + cI shifts log Z by beta c N / 2, not <x x^T>;
    W = 0 gives log Z = 0 and <x x^T> = I."""
    assert SphericalBM(np.zeros((50, 50))).log_partition() == pytest.approx(0.0, abs=1e-13)
    np.testing.assert_allclose(SphericalBM(np.zeros((4, 4))).second_moment(), np.eye(4), atol=1e-13)
    assert SphericalBM(3.0 * np.eye(7)).log_partition(2.0) == pytest.approx(21.0, rel=1e-14)
    W = rotated(semicircle(30), seed=5)
    for beta in (0.5, 5.0):
        m0, m1 = SphericalBM(W), SphericalBM(W + 4.0 * np.eye(30))
        assert m1.log_partition(beta) - m0.log_partition(beta) == pytest.approx(60 * beta)
        np.testing.assert_allclose(m1.second_moment(beta), m0.second_moment(beta), atol=1e-10)


@pytest.mark.parametrize("beta", [0.5, 4.0])
def test_moments_are_finite_differences_of_log_Z(beta):
    """d log Z / d beta = 1/2 tr(W <x x^T>); d log Z / dW_ij (symmetric) = beta <x_i x_j>;
    d log Z / dW_ii = beta/2 <x_i^2>; trace N. beta = 4 is condensed (spike 1.5)."""
    W = rotated(np.append(semicircle(5), 1.5), seed=6)
    model = SphericalBM(W)
    S = model.second_moment(beta)
    assert np.trace(S) == pytest.approx(6.0, rel=1e-12)
    np.testing.assert_allclose(S, S.T, atol=1e-14)
    eps = 1e-5
    fd = (model.log_partition(beta + eps) - model.log_partition(beta - eps)) / (2 * eps)
    assert fd == pytest.approx(0.5 * np.sum(W * S), rel=1e-8)
    for i, j in [(0, 0), (0, 3), (2, 5), (4, 4)]:
        E = np.zeros((6, 6))
        E[i, j] = E[j, i] = eps
        fd = (SphericalBM(W + E).log_partition(beta) - SphericalBM(W - E).log_partition(beta)) / (
            2 * eps
        )
        assert fd == pytest.approx(beta * S[i, j] * (0.5 if i == j else 1.0), rel=1e-6, abs=1e-9)


# ---------------------------------------------------------------- the exact sampler
@pytest.mark.parametrize("beta", [0.5, 4.0])
def test_sampler_moments_z_scores(beta):
    """20,000 exact draws at N = 10: <y_i^2> (eigenbasis) and the share of |x|^2 along the top
    eigenvector; condensed at beta = 4 (share 0.5)."""
    model = SphericalBM(rotated(np.append(semicircle(9), 1.5), seed=7))
    X = model.sample(20_000, beta=beta, rng=np.random.default_rng(8))
    assert X.shape == (20_000, 10)
    np.testing.assert_allclose(np.sum(X * X, axis=1), 10.0, rtol=1e-12)
    y2 = spherical_moments(model.lam, beta)[1]
    z = z_scores((X @ model.U) ** 2, y2)
    assert np.all(np.abs(z) < 5), z
    if beta > 1:
        assert y2[-1] / 10 > 0.4  # the condensed phase is what was tested


def test_sampler_law_of_the_top_share_chi_square():
    """Rank-one W = 2 u u^T at N = 10 (condensed): the histogram of (u.x)^2 / N against the tilted
    Beta law, 10 bins of equal probability."""
    n, c = 10, 2.0
    model = SphericalBM(rotated(np.append(np.zeros(n - 1), c), seed=9))

    def density(w):
        return w**-0.5 * (1 - w) ** ((n - 3) / 2) * np.exp(c * n / 2 * (w - 1))

    edges = np.linspace(0, 1, 11) ** 2
    p = np.array([integrate.quad(density, lo, hi)[0] for lo, hi in itertools.pairwise(edges)])
    X = model.sample(20_000, beta=1.0, rng=np.random.default_rng(10))
    counts = np.histogram((X @ model.U[:, -1]) ** 2 / n, bins=edges)[0]
    assert stats.chisquare(counts, len(X) * p / p.sum()).pvalue > 1e-3


def test_sampler_at_n_300_condensed():
    """N = 300, deep in the condensed phase (acceptance about 5 %): the top share's mean."""
    model = SphericalBM(rotated(np.append(semicircle(299), 3.0), seed=11))
    X = model.sample(1000, beta=1.0, rng=np.random.default_rng(12))
    share = (X @ model.U[:, -1]) ** 2 / 300
    exact = spherical_moments(model.lam, 1.0)[1][-1] / 300
    assert exact > 0.5 and abs(z_scores(share[:, None], exact)[0]) < 5


# ----------------------------------------------------------- the great-circle chain
@pytest.mark.parametrize("beta", [0.5, 4.0])
def test_heat_bath_leaves_the_law_invariant(beta):
    """One step from exact draws keeps the exact moments (N = 10, incl. condensed), and the
    chains stay on the sphere."""
    model = SphericalBM(rotated(np.append(semicircle(9), 1.5), seed=13))
    rng = np.random.default_rng(14)
    X = model.heat_bath(model.sample(20_000, beta=beta, rng=rng), 1, beta=beta, rng=rng)
    np.testing.assert_allclose(np.sum(X * X, axis=1), 10.0, rtol=1e-12)
    z = z_scores((X @ model.U) ** 2, spherical_moments(model.lam, beta)[1])
    assert np.all(np.abs(z) < 5), z


@pytest.mark.parametrize("beta", [0.5, 4.0])
def test_heat_bath_chains_converge_to_the_exact_moments(beta):
    """5,000 chains started at one point, 120 steps (twice what they need): <y_i> = 0 (the chains
    change sign, also when condensed), <y_i^2> and one off-diagonal <x_i x_j>, against exact."""
    model = SphericalBM(rotated(np.append(semicircle(9), 1.5), seed=15))
    start = np.tile(np.sqrt(10) * np.eye(10)[0], (5000, 1))
    X = model.heat_bath(start, 120, beta=beta, rng=np.random.default_rng(16))
    S = model.second_moment(beta)
    Y = X @ model.U
    z = z_scores(
        np.column_stack([Y, Y**2, X[:, 0] * X[:, 1]]),
        [*np.zeros(10), *np.diag(model.U.T @ S @ model.U), S[0, 1]],
    )
    assert np.all(np.abs(z) < 5), z


def test_heat_bath_top_share_chi_square_condensed():
    """Rank-one W = 2 u u^T at N = 10: the chains' top share after 150 steps follows the tilted
    Beta law (chi-square, 10 bins)."""
    n, c = 10, 2.0
    model = SphericalBM(rotated(np.append(np.zeros(n - 1), c), seed=17))

    def density(w):
        return w**-0.5 * (1 - w) ** ((n - 3) / 2) * np.exp(c * n / 2 * (w - 1))

    edges = np.linspace(0, 1, 11) ** 2
    p = np.array([integrate.quad(density, lo, hi)[0] for lo, hi in itertools.pairwise(edges)])
    start = np.tile(np.sqrt(n) * np.eye(n)[0], (5000, 1))
    X = model.heat_bath(start, 150, rng=np.random.default_rng(18))
    counts = np.histogram((X @ model.U[:, -1]) ** 2 / n, bins=edges)[0]
    assert stats.chisquare(counts, len(X) * p / p.sum()).pvalue > 1e-3


# ------------------------------------------------------------------------ gradients
def teacher_data(n=6, K=200, seed=19):
    teacher = SphericalBM(rotated(np.append(np.zeros(n - 1), 3.0), seed=seed))
    return teacher.sample(K, rng=np.random.default_rng(seed))


def mean_log_likelihood(W, data):
    return 0.5 * np.mean(np.einsum("ij,jk,ik->i", data, W, data)) - SphericalBM(W).log_partition()


def test_exact_gradient_is_the_finite_difference_of_the_likelihood():
    """{"W": 1/2 (<xx^T>_data - <xx^T>_model)}: a symmetric step in W_ij (i != j) changes the
    mean log-likelihood by 2 G_ij, a step in W_ii by G_ii."""
    data = teacher_data()
    W = rotated(np.linspace(-0.5, 1.0, 6), seed=20)
    G = ExactSphericalGradient(data)({"W": W}, None)["W"]
    np.testing.assert_allclose(G, G.T, atol=1e-14)
    eps = 1e-5
    for i, j in [(0, 0), (1, 4), (3, 2), (5, 5)]:
        E = np.zeros((6, 6))
        E[i, j] = E[j, i] = eps
        fd = (mean_log_likelihood(W + E, data) - mean_log_likelihood(W - E, data)) / (2 * eps)
        assert fd == pytest.approx(G[i, j] * (1 if i == j else 2), abs=1e-8)


def test_exact_training_matches_the_data_moments():
    """Gradient ascent from W = 0 (train, no rng) ends where <xx^T>_model = <xx^T>_data, and
    the likelihood rose."""
    data = teacher_data()
    grad = ExactSphericalGradient(data)
    res = train({"W": np.zeros((6, 6))}, grad, n_steps=150, lr=2.0)
    C = data.T @ data / len(data)
    np.testing.assert_allclose(SphericalBM(res.params["W"]).second_moment(), C, atol=1e-6)
    assert (
        mean_log_likelihood(res.params["W"], data)
        > mean_log_likelihood(np.zeros((6, 6)), data) + 0.5
    )


def test_training_in_the_eigenbasis_of_the_data_is_training_W():
    """From W = 0 with weight decay, the exact gradient keeps W diagonal in the eigenbasis U of
    the data covariance: training the N eigenvalues on the rotated data (params W of shape (N,))
    gives U diag(w) U^T, the W that training the whole matrix gives."""
    data = teacher_data(K=40)
    U = np.linalg.eigh(data.T @ data / len(data))[1]
    kw = {"n_steps": 60, "lr": 1.0, "weight_decay": 0.05}
    full = train({"W": np.zeros((6, 6))}, ExactSphericalGradient(data), **kw).params["W"]
    w = train({"W": np.zeros(6)}, ExactSphericalGradient(data @ U), **kw).params["W"]
    np.testing.assert_allclose(full, (U * w) @ U.T, atol=1e-10)
    np.testing.assert_allclose(
        ExactSphericalGradient(data @ U)({"W": w})["W"],
        np.diag(U.T @ ExactSphericalGradient(data)({"W": full})["W"] @ U),
        atol=1e-10,
    )


def test_pcd_with_many_steps_approaches_the_exact_gradient():
    """Fixed W, chains from the data rows: after k = 1 step the estimate is biased towards the
    data; after k = 40 steps it agrees with the exact gradient (|z| < 5 for every entry)."""
    data = teacher_data(K=20_000)
    W = rotated(np.linspace(-0.5, 1.0, 6), seed=21)
    exact = ExactSphericalGradient(data)({"W": W})["W"]
    errors = {}
    for k in (1, 40):
        pcd = PCDSphericalGradient(data, k=k)
        G = pcd({"W": W}, np.random.default_rng(22))["W"]
        pairs = np.einsum("ri,rj->rij", pcd.X, pcd.X).reshape(len(pcd.X), -1)
        se = 0.5 * pairs.std(axis=0).reshape(6, 6) / np.sqrt(len(pcd.X))
        errors[k] = np.max(np.abs(G - exact) / se)
    assert errors[40] < 5 < 20 < errors[1], errors


def test_pcd_with_a_diagonal_W():
    """params W of shape (N,): the chains move under diag(w) and the estimate is the diagonal
    one; after 40 steps per update it agrees with the exact diagonal gradient (z-scores)."""
    data = teacher_data(K=20_000)
    w = np.linspace(-0.5, 1.5, 6)
    exact = ExactSphericalGradient(data)({"W": w})["W"]
    pcd = PCDSphericalGradient(data, k=40)
    G = pcd({"W": w}, np.random.default_rng(26))["W"]
    se = 0.5 * (pcd.X**2).std(axis=0) / np.sqrt(len(pcd.X))
    assert G.shape == (6,) and np.all(np.abs((G - exact) / se) < 5)


def test_pcd_starts_its_chains_at_all_data_rows():
    """At W = 0 one heat-bath step keeps half of x x^T: E[x' x'^T | x] = x x^T / 2 + (N I - x x^T)
    / (2 (N - 1)). With chains started at random rows of two data points, the chains' second
    moment matches the one computed from both rows (z-scores)."""
    n = 4
    data = np.sqrt(n) * np.eye(n)[[0, 1]]
    pcd = PCDSphericalGradient(data, k=1, n_chains=20_000)
    pcd({"W": np.zeros((n, n))}, np.random.default_rng(25))
    C = data.T @ data / 2
    expected = C / 2 + (n * np.eye(n) - C) / (2 * (n - 1))
    z = z_scores(pcd.X**2, np.diag(expected))
    assert np.all(np.abs(z) < 5), z


def test_pcd_chains_persist_and_train_runs_with_rng():
    data = teacher_data(K=300)
    pcd = PCDSphericalGradient(data, k=2, n_chains=50)
    res = train({"W": np.zeros((6, 6))}, pcd, n_steps=5, lr=0.5, rng=np.random.default_rng(23))
    assert pcd.X.shape == (50, 6) and res.n_updates == 5
    np.testing.assert_allclose(np.sum(pcd.X**2, axis=1), 6.0, rtol=1e-12)
    with pytest.raises(TypeError, match="pass rng"):
        pcd({"W": np.zeros((6, 6))}, None)


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "W,error,match",
    [
        (np.array([[0.0, 1.0], [0.0, 0.0]]), ValueError, "symmetric"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), ValueError, "finite"),
        (np.zeros((1, 1)), ValueError, "N >= 2"),
        (np.zeros(3), ValueError, "square"),
        (np.zeros((2, 3)), ValueError, "square"),
        ("W", TypeError, "W must be"),
    ],
)
def test_bad_couplings(W, error, match):
    with pytest.raises(error, match=match):
        SphericalBM(W)


def test_bad_arguments():
    model = SphericalBM(np.eye(3))
    rng = np.random.default_rng(0)
    for beta, error in [
        (0.0, ValueError),
        (-1.0, ValueError),
        (np.inf, ValueError),
        ("1", TypeError),
    ]:
        with pytest.raises(error, match="beta"):
            model.log_partition(beta)
        with pytest.raises(error, match="beta"):
            spherical_moments([0.0, 1.0], beta)
    with pytest.raises(TypeError, match="rng"):
        model.sample(5, rng=42)
    with pytest.raises(ValueError, match="n must"):
        model.sample(0, rng=rng)
    with pytest.raises(ValueError, match="sphere"):
        model.heat_bath(np.full((4, 3), 2.0), rng=rng)
    with pytest.raises(ValueError, match=r"\(m, 3\)"):
        model.heat_bath(np.ones((4, 2)), rng=rng)
    with pytest.raises(ValueError, match="n_steps"):
        model.heat_bath(np.ones((4, 3)), 0, rng=rng)
    with pytest.raises(ValueError, match="lam"):
        spherical_moments([1.0])
    with pytest.raises(ValueError, match="sphere"):
        ExactSphericalGradient(np.ones((5, 3)) * 1.1)
    with pytest.raises(ValueError, match="k must be"):
        PCDSphericalGradient(teacher_data(K=10), k=0)


def test_the_symmetry_tolerance_scales_with_the_largest_entry():
    """W with entries near 1e4 and a round-off asymmetry of 1e-10 is valid; an asymmetry of
    1e-6 at that scale, or of 1e-10 between entries below 1, is not."""
    A = 1e4 * (1.0 + np.random.default_rng(0).random((4, 4)))
    W = A + A.T
    W[0, 1] += 1e-10
    assert np.isfinite(SphericalBM(W).log_partition())
    W[0, 1] += 1e-6
    with pytest.raises(ValueError, match="W must be symmetric"):
        SphericalBM(W)
    with pytest.raises(ValueError, match="W must be symmetric"):
        SphericalBM([[0.0, 0.5], [0.5 + 1e-10, 0.0]])


@pytest.mark.parametrize(
    "call",
    [
        ExactSphericalGradient,
        PCDSphericalGradient,
        lambda X: SphericalBM(np.zeros((3, 3))).heat_bath(X, rng=np.random.default_rng(0)),
    ],
)
def test_data_or_states_with_no_rows_are_a_value_error_naming_them(call):
    """A (0, N) array has no mean and no chains: a clear error, not NaN and a warning."""
    with pytest.raises(ValueError, match=r"(data|X) must"):
        call(np.ones((0, 3)))
