"""bmlab.posterior against independent references: the posterior at N = 2 by quadrature (its
means by z-scores with batch-means standard errors, |z| < 5), the exact law of the trace,
the Langevin update's mean and covariance (z-scores, chi-square), KL divergences by quadrature
on the circle and by Monte Carlo, order parameters by construction and by exact samples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import ive

from bmlab.learning import train
from bmlab.posterior import (
    LangevinSphericalGradient,
    spherical_kl,
    spherical_order_parameters,
    spherical_posterior,
)
from bmlab.spherical import ExactSphericalGradient, SphericalBM, spherical_moments

pytestmark = pytest.mark.filterwarnings("error")


def circle_data(K=10, seed=1):
    """K exact draws from the teacher diag(0, 3) on the circle |x|^2 = 2."""
    return SphericalBM(np.diag([0.0, 3.0])).sample(K, rng=np.random.default_rng(seed))


def posterior_by_quadrature(X, gamma, eta):
    """E[(W11 - W22)/2], E[W12] and E[lam_max - lam_min] under the posterior at N = 2.

    With W = [[s + d, c], [c, s - d]]: log Z(W) = s + log I0(r), r = sqrt(d^2 + c^2), and
    sum_k log p_W(x_k) = K (d D + c E) - K log I0(r), D = (C11 - C22)/2, E = C12 (s cancels).
    The prior gives exp(-eta gamma (s^2 + d^2 + c^2)). In polar coordinates (d, c) = r (cos a,
    sin a) the angle integrates to a Bessel function: one integral over r remains."""
    K = len(X)
    C = X.T @ X / K
    D, E = (C[0, 0] - C[1, 1]) / 2, C[0, 1]
    rho, a0 = np.hypot(D, E), np.arctan2(E, D)
    k = eta * K * rho

    def log_radial(r):  # log of r * 2 pi I0(k r) * exp(-eta K log I0(r) - eta gamma r^2), scaled
        return np.log(r) + np.log(ive(0, k * r)) + k * r - eta * K * (np.log(ive(0, r)) + r)

    grid = np.linspace(1e-3, 40, 4001)
    r_peak = grid[np.argmax(log_radial(grid) - eta * gamma * grid**2)]
    top = log_radial(r_peak) - eta * gamma * r_peak**2

    def mean(f):
        def g(r):
            return np.exp(log_radial(r) - eta * gamma * r * r - top) * f(r)

        return integrate.quad(g, 0, 60, points=[r_peak], epsabs=0, epsrel=1e-12, limit=400)[0]

    Z = mean(lambda r: 1.0)
    along = mean(lambda r: r * ive(1, k * r) / ive(0, k * r)) / Z  # E[r cos(a - a0)]
    return np.array([along * np.cos(a0), along * np.sin(a0), 2 * mean(lambda r: r) / Z])


def batch_z(values, expected, n_batches=40):
    """z-scores of the column means against ``expected``, standard errors from batch means
    (the draws of a Markov chain are correlated)."""
    batches = values[: len(values) // n_batches * n_batches].reshape(n_batches, -1, values.shape[1])
    means = batches.mean(axis=1)
    return (means.mean(axis=0) - expected) / (means.std(axis=0, ddof=1) / np.sqrt(n_batches))


# ------------------------------------------------------------------- the posterior sampler
@pytest.mark.parametrize(
    ("gamma", "eta", "step"), [(1.0, 1.0, None), (0.3, 3.0, None), (1.0, 1.0, 1.5)]
)
def test_posterior_means_at_n2_agree_with_quadrature(gamma, eta, step):
    """N = 2, three parameters: the means of (W11 - W22)/2, W12 and lam_max - lam_min over
    12,000 draws, |z| < 5 with batch-means errors; and the draws are symmetric. The fixed large
    step makes the Metropolis-Hastings ratio count: with the reverse proposal's drift taken
    at the wrong point the means are off by more than 10 standard errors."""
    X = circle_data()
    S = spherical_posterior(
        X,
        gamma=gamma,
        eta=eta,
        n_samples=12_000,
        rng=np.random.default_rng(2),
        burn_in=500,
        step=step,
    )
    assert S.shape == (12_000, 2, 2)
    np.testing.assert_array_equal(S, np.swapaxes(S, 1, 2))
    lam = np.linalg.eigvalsh(S)
    values = np.column_stack([(S[:, 0, 0] - S[:, 1, 1]) / 2, S[:, 0, 1], lam[:, 1] - lam[:, 0]])
    z = batch_z(values, posterior_by_quadrature(X, gamma, eta))
    assert np.all(np.abs(z) < 5), z


def test_the_trace_follows_the_prior_alone():
    """tr(W) / sqrt(N) ~ Normal(0, 1 / (eta gamma)), independent draws: chi-square on 10 bins
    of equal probability, at N = 5 with data that pull the rest of W far from 0."""
    n, gamma, eta = 5, 2.0, 0.5
    X = SphericalBM(np.diag([0, 0, 0, 0, 4.0])).sample(30, rng=np.random.default_rng(3))
    S = spherical_posterior(
        X, gamma=gamma, eta=eta, n_samples=4000, rng=np.random.default_rng(4), burn_in=50
    )
    t = np.trace(S, axis1=1, axis2=2) / np.sqrt(n) * np.sqrt(eta * gamma)
    counts = np.histogram(t, bins=stats.norm.ppf(np.linspace(0, 1, 11)))[0]
    assert stats.chisquare(counts).pvalue > 1e-3


def test_thinning_keeps_every_thin_th_step_and_start_is_used():
    """With a fixed step and the same generator, thin = 3 returns steps 3, 6, ... of the chain
    that thin = 1 returns (traceless parts); a start far from 0 is where the chain begins, and
    the caller's start is left as it was (its trace is dropped in a copy)."""
    X = circle_data(K=6)
    kw = {"gamma": 1.0, "eta": 1.0, "burn_in": 5, "step": 0.05}
    one = spherical_posterior(X, n_samples=12, rng=np.random.default_rng(5), thin=1, **kw)
    three = spherical_posterior(X, n_samples=4, rng=np.random.default_rng(5), thin=3, **kw)

    def traceless(S):
        return S - np.trace(S, axis1=1, axis2=2)[:, None, None] / 2 * np.eye(2)

    np.testing.assert_allclose(traceless(three), traceless(one)[2::3], atol=1e-14)
    far = np.array([[41.0, 0.0], [0.0, -39.0]])
    S = spherical_posterior(
        X,
        n_samples=1,
        rng=np.random.default_rng(6),
        start=far,
        burn_in=0,
        step=1e-6,
        gamma=1.0,
        eta=1.0,
    )
    assert abs(S[0, 0, 0] - S[0, 1, 1] - 80.0) < 0.1
    np.testing.assert_array_equal(far, [[41.0, 0.0], [0.0, -39.0]])


def test_bad_arguments_name_the_parameter():
    X = circle_data(K=4)
    good = {"gamma": 1.0, "eta": 1.0, "n_samples": 2, "rng": np.random.default_rng(0)}
    for name, value in [("gamma", 0.0), ("eta", -1.0), ("step", 0.0), ("burn_in", -1)]:
        with pytest.raises(ValueError, match=name):
            spherical_posterior(X, **{**good, name: value})
    with pytest.raises(TypeError, match="n_samples"):
        spherical_posterior(X, **{**good, "n_samples": 1.5})
    with pytest.raises(ValueError, match="X"):
        spherical_posterior(X * 2, **good)
    with pytest.raises(ValueError, match="start"):
        spherical_posterior(X, **good, start=np.eye(3))
    with pytest.raises(ValueError, match="symmetric"):
        spherical_posterior(X, **good, start=np.array([[0.0, 1.0], [0.0, 0.0]]))


# ------------------------------------------------------------------------ noisy training
def test_one_langevin_update_has_the_drift_and_the_noise_of_the_formula():
    """From one W, 5,000 independent updates: their mean is lr [K/2 (C - M) - gamma W] (|z| <
    5 entrywise), the diagonal's variance 2 lr / eta and the off-diagonal's lr / eta (chi-square
    95 % intervals widened by 10 %), with M the exact <x x^T> of W."""
    X = SphericalBM(np.diag([0.0, 0.0, 2.5])).sample(40, rng=np.random.default_rng(7))
    W = np.array([[0.3, -0.2, 0.1], [-0.2, 0.0, 0.4], [0.1, 0.4, 1.0]])
    gamma, eta, lr, m = 2.0, 0.5, 0.01, 5000
    gradient = LangevinSphericalGradient(X, gamma=gamma, eta=eta, lr=lr)
    rng = np.random.default_rng(8)
    steps = np.array([lr * gradient({"W": W}, rng)["W"] for _ in range(m)])
    C = X.T @ X / len(X)
    drift = lr * (len(X) / 2 * (C - SphericalBM(W).second_moment()) - gamma * W)
    se = steps.std(axis=0) / np.sqrt(m)
    assert np.all(np.abs((steps.mean(axis=0) - drift) / se) < 5)
    np.testing.assert_array_equal(steps, np.swapaxes(steps, 1, 2))
    for (i, j), variance in [((0, 0), 2 * lr / eta), ((2, 2), 2 * lr / eta), ((0, 2), lr / eta)]:
        ratio = steps[:, i, j].var(ddof=1) / variance
        lo, hi = stats.chi2.ppf([0.025, 0.975], m - 1) / (m - 1)
        assert 0.9 * lo < ratio < 1.1 * hi, (i, j, ratio)


def test_langevin_with_persistent_chains_uses_them():
    """k heat-bath steps: the chains exist after the first update, have shape (n_chains, N),
    and the update's drift is K times the PCD estimate minus gamma W, plus the same noise law."""
    X = SphericalBM(np.diag([0.0, 0.0, 2.5])).sample(40, rng=np.random.default_rng(9))
    gradient = LangevinSphericalGradient(X, gamma=1.0, eta=1e12, lr=0.1, k=3, n_chains=7)
    assert gradient.X is None
    W = np.diag([0.0, 0.0, 1.0])
    g = gradient({"W": W}, np.random.default_rng(10))["W"]
    assert gradient.X.shape == (7, 3)
    chains = gradient.X.T @ gradient.X / 7
    expected = len(X) / 2 * (X.T @ X / len(X) - chains) - W
    np.testing.assert_allclose(g, expected, atol=1e-4)  # noise sqrt(2 / (0.1 * 1e12)) ~ 4e-6


def test_langevin_training_through_train_and_its_errors():
    """bmlab.train with lr = gradient.lr and a huge eta (no noise) is gradient ascent on the
    penalised log-likelihood: it ends where K/2 (C - M) = gamma W."""
    X = SphericalBM(np.diag([0.0, 0.0, 2.5])).sample(40, rng=np.random.default_rng(11))
    gradient = LangevinSphericalGradient(X, gamma=20.0, eta=1e30, lr=0.01)
    W = train(
        {"W": np.zeros((3, 3))},
        gradient,
        n_steps=400,
        lr=gradient.lr,
        rng=np.random.default_rng(12),
    ).params["W"]
    residual = len(X) * ExactSphericalGradient(X)({"W": W})["W"] - 20.0 * W
    assert np.abs(residual).max() < 1e-6
    with pytest.raises(TypeError, match="rng"):
        gradient({"W": W}, None)
    with pytest.raises(ValueError, match="symmetric"):
        gradient({"W": np.zeros(3)}, np.random.default_rng(0))
    for name in ("gamma", "eta", "lr"):
        with pytest.raises(ValueError, match=name):
            LangevinSphericalGradient(X, **{"gamma": 1.0, "eta": 1.0, "lr": 0.1, name: 0.0})
    with pytest.raises(ValueError, match="k must be"):
        LangevinSphericalGradient(X, gamma=1.0, eta=1.0, lr=0.1, k=0)


# --------------------------------------------------------------------- exact measures
def kl_on_the_circle(lam_a, phi_a, lam_b, phi_b, beta_a, beta_b):
    """KL(p_A || p_B) at N = 2 by quadrature over the angle: W = R(phi) diag(lam) R(phi)^T."""

    def log_weight(theta, lam, phi, beta):
        return beta * (lam[0] * np.cos(theta - phi) ** 2 + lam[1] * np.sin(theta - phi) ** 2)

    theta = 2 * np.pi * np.arange(4096) / 4096  # periodic: the trapezoid rule is spectral
    la, lb = log_weight(theta, lam_a, phi_a, beta_a), log_weight(theta, lam_b, phi_b, beta_b)
    log_Za, log_Zb = (np.log(np.mean(np.exp(x - x.max()))) + x.max() for x in (la, lb))
    p = np.exp(la - log_Za)
    return np.mean(p * ((la - log_Za) - (lb - log_Zb)))


def rotation(phi):
    return np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])


@pytest.mark.parametrize(("beta_a", "beta_b"), [(1.0, 1.0), (2.5, 0.7)])
def test_kl_on_the_circle_both_directions(beta_a, beta_b):
    lam_a, phi_a, lam_b, phi_b = (3.0, -1.0), 0.4, (0.5, 2.0), -1.1
    A = SphericalBM(rotation(phi_a) @ np.diag(lam_a) @ rotation(phi_a).T)
    B = SphericalBM(rotation(phi_b) @ np.diag(lam_b) @ rotation(phi_b).T)
    forward = spherical_kl(A, B, beta_a=beta_a, beta_b=beta_b)
    backward = spherical_kl(B, A, beta_a=beta_b, beta_b=beta_a)
    assert forward == pytest.approx(
        kl_on_the_circle(lam_a, phi_a, lam_b, phi_b, beta_a, beta_b), abs=1e-10
    )
    assert backward == pytest.approx(
        kl_on_the_circle(lam_b, phi_b, lam_a, phi_a, beta_b, beta_a), abs=1e-10
    )
    assert abs(forward - backward) > 0.01  # not symmetric
    assert spherical_kl(A, A) == pytest.approx(0.0, abs=1e-12)


def test_kl_at_n_30_by_monte_carlo():
    """N = 30, condensed teacher against a random model: the mean of log p_A - log p_B over
    20,000 exact draws of A agrees with the exact KL (|z| < 5), in both directions."""
    rng = np.random.default_rng(13)
    u = np.eye(30)[-1]
    teacher = SphericalBM(3.0 * np.outer(u, u))
    G = rng.normal(size=(30, 30)) / np.sqrt(60)
    model = SphericalBM(G + G.T + 1.5 * np.outer(u, u))
    for A, B in ((teacher, model), (model, teacher)):
        X = A.sample(20_000, rng=rng)

        def log_p(m, X=X):
            return 0.5 * np.einsum("ki,ij,kj->k", X, m.W, X) - m.log_partition()

        diff = log_p(A) - log_p(B)
        z = (diff.mean() - spherical_kl(A, B)) / (diff.std() / np.sqrt(len(diff)))
        assert abs(z) < 5, z


def test_order_parameters_by_construction_and_by_samples():
    """alignment = cos^2 of the angle between u and the top eigenvector; condensation = the top
    share of spherical_moments; overlap = <(u.x)^2>/N against 20,000 exact draws (|z| < 5)."""
    n, angle = 20, 0.3
    lam = np.append(np.linspace(-1, 0.5, n - 1), 2.5)
    V = np.linalg.qr(np.random.default_rng(14).normal(size=(n, n)))[0]
    model = SphericalBM((V * lam) @ V.T)
    u = np.cos(angle) * V[:, -1] + np.sin(angle) * V[:, 0]
    for beta in (0.5, 2.0):
        alignment, condensation, overlap = spherical_order_parameters(model, u, beta=beta)
        assert alignment == pytest.approx(np.cos(angle) ** 2, rel=1e-10)
        assert condensation == pytest.approx(spherical_moments(lam, beta)[1][-1] / n, rel=1e-10)
        X = model.sample(20_000, beta=beta, rng=np.random.default_rng(15))
        shares = (X @ u) ** 2 / n
        assert abs((shares.mean() - overlap) / (shares.std() / np.sqrt(len(X)))) < 5
    with pytest.raises(ValueError, match="u"):
        spherical_order_parameters(model, 2 * u)
    with pytest.raises(TypeError, match="model"):
        spherical_order_parameters(model.W, u)
    with pytest.raises(ValueError, match="same N"):
        spherical_kl(model, SphericalBM(np.eye(3)))


@pytest.mark.parametrize(
    "call",
    [
        lambda X: spherical_posterior(
            X, gamma=1.0, eta=1.0, n_samples=1, burn_in=0, rng=np.random.default_rng(0)
        ),
        lambda X: LangevinSphericalGradient(X, gamma=1.0, eta=1.0, lr=0.1),
        lambda X: LangevinSphericalGradient(X, gamma=1.0, eta=1.0, lr=0.1, k=1),
    ],
)
def test_data_with_no_rows_is_a_value_error_naming_it(call):
    """A (0, N) data set has no mean: a clear error, not NaN and a warning."""
    with pytest.raises(ValueError, match=r"(data|X) must"):
        call(np.ones((0, 3)))
