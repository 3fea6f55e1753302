"""The spherical machine learned as a Bayesian (notebook 06b).

For data X (K rows on the sphere |x|^2 = N, second moment C = X^T X / K) the tempered
posterior over symmetric W at sampling beta = 1 is

    P(W | X) ∝ exp(eta [sum_k log p_W(x_k) - gamma/2 |W|_F^2])
             = exp(eta [K/2 tr(W C) - K log Z(W) - gamma/2 |W|_F^2]).

eta = 1 is Bayes' rule with the Gaussian prior exp(-gamma/2 |W|_F^2); eta -> infinity
concentrates it on the maximum of the penalised likelihood, the weight-decay fit of notebook 06
with decay gamma / K. log p_W does not change under W -> W + cI, so the trace of W is
distributed as under the prior alone: tr(W) / sqrt(N) ~ Normal(0, 1 / (eta gamma)).

:func:`spherical_posterior` samples this law exactly in the limit of a long chain;
:class:`LangevinSphericalGradient` is noisy training (Langevin dynamics) with an exact or a
persistent-chain negative phase, whose stationary law is that posterior when the negative phase
is exact and the learning rate small; :func:`spherical_kl` and
:func:`spherical_order_parameters` are exact measures of one machine against another.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import (
    check_beta,
    check_finite,
    check_in_range,
    check_positive_int,
    check_rng,
    check_sphere,
    check_square_symmetric,
)
from .spherical import (
    ExactSphericalGradient,
    PCDSphericalGradient,
    SphericalBM,
    spherical_moments,
)

__all__ = [
    "LangevinSphericalGradient",
    "spherical_kl",
    "spherical_order_parameters",
    "spherical_posterior",
]

_TARGET_ACCEPTANCE = 0.574  # optimal for MALA in high dimension (Roberts & Rosenthal 1998)
_WINDOW = 50  # burn-in steps between two adjustments of the step size


def _positive(value, name: str) -> float:
    """A finite real number > 0."""
    value = check_in_range(value, name, 0.0, math.inf)
    if value == 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def _symmetric_noise(rng, n: int) -> np.ndarray:
    """A standard normal symmetric matrix in the Frobenius metric: (A + A^T) / 2, A ~ N(0, 1)
    entrywise (diagonal variance 1, off-diagonal 1/2)."""
    A = rng.standard_normal((n, n))
    A += A.T
    A *= 0.5
    return A


def _traceless(A: np.ndarray) -> np.ndarray:
    """A minus its trace's share on the diagonal, in place: A - tr(A) / N I."""
    A.flat[:: len(A) + 1] -= np.trace(A) / len(A)
    return A


class _Target:
    """The log posterior of the traceless part of W and its gradient (one eigendecomposition).

    log pi(W) = eta [K/2 tr(W C) - K log Z(W) - gamma/2 |W|^2]; its gradient in the Frobenius
    metric is eta [K/2 (C - <x x^T>_W) - gamma W], projected onto traceless matrices.
    """

    def __init__(self, X, gamma, eta):
        C = X.T @ X / len(X)
        self.K, self.C, self.gamma, self.eta = len(X), 0.5 * (C + C.T), gamma, eta

    def __call__(self, W) -> tuple[float, np.ndarray]:
        lam, U = np.linalg.eigh(W)
        log_Z, y2 = spherical_moments(lam, 1.0)
        ll = 0.5 * self.K * np.vdot(W, self.C) - self.K * log_Z - 0.5 * self.gamma * np.vdot(W, W)
        B = U * np.sqrt(y2)
        M = B @ B.T  # <x x^T>_W = U diag(y2) U^T, exactly symmetric (numpy computes B B^T so)
        grad = 0.5 * self.K * (self.C - M) - self.gamma * W
        return self.eta * ll, _traceless(self.eta * grad)


def spherical_posterior(
    X,
    *,
    gamma,
    eta,
    n_samples: int,
    rng,
    thin: int = 1,
    burn_in: int = 1000,
    step=None,
    start=None,
) -> np.ndarray:
    """Draws of W from the tempered posterior P(W | X) (module docstring), by a Markov chain.

    The chain: W = W0 + t I / sqrt(N) with W0 traceless. t is drawn exactly, t ~ Normal(0,
    1 / (eta gamma)), independently for every returned draw (the likelihood does not see it).
    W0 follows the Metropolis-adjusted Langevin algorithm (MALA): the proposal
    W0' = W0 + h/2 grad + sqrt(h) Xi (grad of the log posterior, projected onto traceless
    matrices; Xi standard normal there), accepted with the Metropolis-Hastings probability.
    One step costs one eigendecomposition and one exact log Z (``bmlab.spherical``). The chain
    leaves the posterior invariant, so its draws follow it in the limit of a long chain.

    Step size h: ``step`` if given; otherwise it starts at 1 / (eta (K + 2 gamma) N^(1/3)) and
    is adapted during the burn-in towards an acceptance rate of 0.574: after every 50 steps,
    h is multiplied by exp(2 (a - 0.574)), a the share of those 50 proposals accepted. Then
    it is frozen: after the burn-in the chain is plain MALA. Notebook 06b measures the draws'
    autocorrelation (a few steps at N = 2, 20 to 150 at N = 50); ``thin`` thins them.

    Parameters
    ----------
    X : ndarray, shape (K, N), rows on the sphere |x|^2 = N, N >= 2
    gamma, eta : float > 0, the prior's strength and the posterior's inverse temperature
    n_samples : int >= 1, draws returned
    rng : numpy.random.Generator
    thin : int >= 1, steps between returned draws
    burn_in : int >= 0, steps before the first draw (the step size adapts during them)
    step : float > 0 or None, the step size h (None: adapted)
    start : ndarray, shape (N, N), symmetric, or None (W = 0); its trace is ignored

    Returns
    -------
    ndarray, shape (n_samples, N, N): symmetric draws of W (at N = 100, 1000 draws take 80 MB)
    """
    X = check_sphere(X, "X")
    gamma, eta = _positive(gamma, "gamma"), _positive(eta, "eta")
    n_samples = check_positive_int(n_samples, "n_samples")
    thin = check_positive_int(thin, "thin")
    burn_in = int(check_in_range(burn_in, "burn_in", 0, 10**9, integer=True))
    h = None if step is None else _positive(step, "step")
    rng = check_rng(rng, "spherical_posterior")
    K, N = X.shape
    W = np.zeros((N, N)) if start is None else check_square_symmetric(start, "start")
    if W.shape != (N, N):
        raise ValueError(f"start must have shape ({N}, {N}) like the data's N, got {W.shape}")
    W = _traceless(W.copy())
    adapt, h = h is None, h or 1.0 / (eta * (K + 2 * gamma) * N ** (1 / 3))
    target = _Target(X, gamma, eta)
    log_p, grad = target(W)
    draws, recent = np.empty((n_samples, N, N)), 0
    for i in range(burn_in + n_samples * thin):
        xi = _traceless(_symmetric_noise(rng, N))
        proposal = W + 0.5 * h * grad + math.sqrt(h) * xi
        log_p_new, grad_new = target(proposal)
        # Metropolis-Hastings: the forward move's residual is sqrt(h) xi, the reverse move's
        # is -sqrt(h) (xi + u), so log q(W | W') - log q(W' | W) = -<xi, u> - |u|^2 / 2
        u = 0.5 * math.sqrt(h) * (grad + grad_new)
        log_ratio = log_p_new - log_p - np.vdot(xi, u) - 0.5 * np.vdot(u, u)
        accepted = math.log(rng.random()) < log_ratio
        if accepted:
            W, log_p, grad = proposal, log_p_new, grad_new
        if i < burn_in:
            recent += accepted
            if adapt and (i + 1) % _WINDOW == 0:
                h *= math.exp(2.0 * (recent / _WINDOW - _TARGET_ACCEPTANCE))
                recent = 0
        elif (i - burn_in + 1) % thin == 0:
            draws[(i - burn_in) // thin] = W
    t = rng.standard_normal(n_samples) / math.sqrt(eta * gamma)
    return draws + (t / math.sqrt(N))[:, None, None] * np.eye(N)


class LangevinSphericalGradient:
    """``gradient(params, rng)`` of noisy training: with ``bmlab.train(params, gradient,
    lr=gradient.lr, n_steps=...)`` (momentum 0, no weight decay) each update is

        W <- W + lr [K/2 (C - <x x^T>_W) - gamma W] + sqrt(2 lr / eta) Xi,

    gradient ascent on the log posterior sum_k log p_W(x_k) - gamma/2 |W|^2 plus Gaussian noise
    (Xi standard normal on symmetric matrices: (A + A^T) / 2). For small ``lr`` and an exact
    negative phase its stationary law is the tempered posterior of :func:`spherical_posterior`.

    Parameters
    ----------
    data : ndarray, shape (K, N), rows on the sphere
    gamma, eta, lr : float > 0
    k : int >= 1 or None
        None: the exact negative phase <x x^T>_W (one eigendecomposition per update). An
        integer: the mean of x x^T over persistent chains moved by ``k`` heat-bath steps per
        update (the paper's nu; :class:`bmlab.PCDSphericalGradient`; its chains are ``gradient.X``).
    n_chains : int >= 1 or None, persistent chains (default: K)

    ``params["W"]`` must be symmetric, shape (N, N).
    """

    def __init__(self, data, *, gamma, eta, lr, k=None, n_chains=None):
        if k is None:
            self.negative = ExactSphericalGradient(data)
        else:
            self.negative = PCDSphericalGradient(data, k, n_chains=n_chains)
        self.gamma, self.eta = _positive(gamma, "gamma"), _positive(eta, "eta")
        self.lr = _positive(lr, "lr")

    @property
    def X(self):
        """The persistent chains (n_chains, N), None before the first update or if exact."""
        return getattr(self.negative, "X", None)

    def __call__(self, params, rng) -> dict:
        rng = check_rng(rng, "LangevinSphericalGradient")
        W = params["W"]
        if W.ndim != 2:
            raise ValueError(f"params['W'] must be a symmetric (N, N) matrix, got {W.shape}")
        K = len(self.negative.data)
        g = self.negative(params, rng)["W"]
        drift = 0.5 * K * (g + g.T) - self.gamma * W  # symmetric to the last bit
        noise = _symmetric_noise(rng, len(W))
        return {"W": drift + math.sqrt(2.0 / (self.lr * self.eta)) * noise}


# ----------------------------------------------------------------- exact measures
def _model(model, name: str) -> SphericalBM:
    if not isinstance(model, SphericalBM):
        raise TypeError(f"{name} must be a bmlab.SphericalBM, got {type(model).__name__}")
    return model


def spherical_kl(A, B, *, beta_a=1.0, beta_b=1.0) -> float:
    """Exact KL(p_A || p_B) in nats between two spherical machines of the same N.

    KL = beta_a/2 tr(W_A M) - log Z_A(beta_a) - beta_b/2 tr(W_B M) + log Z_B(beta_b), with
    M = <x x^T> of p_A at beta_a: the log-densities are quadratic in x, so the second moment
    and the two log partition functions are all it takes. Swap the arguments for the other
    direction.

    Parameters
    ----------
    A, B : SphericalBM, the same N
    beta_a, beta_b : float > 0, the inverse temperatures of p_A and p_B
    """
    A, B = _model(A, "A"), _model(B, "B")
    if A.lam.size != B.lam.size:
        raise ValueError(f"A and B must have the same N, got {A.lam.size} and {B.lam.size}")
    beta_a, beta_b = check_beta(beta_a, positive=True), check_beta(beta_b, positive=True)
    log_Z_a, y2 = spherical_moments(A.lam, beta_a)
    W_B_in_A = np.einsum("ij,ik,jk->k", B.W, A.U, A.U)  # diagonal of U_A^T W_B U_A
    cross = 0.5 * beta_b * (W_B_in_A @ y2) - B.log_partition(beta_b)
    return float(0.5 * beta_a * (A.lam @ y2) - log_Z_a - cross)


def spherical_order_parameters(model, u, *, beta=1.0) -> tuple[float, float, float]:
    """The order parameters of a spherical machine against a direction ``u`` (a teacher's).

    Returns
    -------
    alignment : float in [0, 1], (u . v)^2 with v the top eigenvector of W (undefined when the
        top eigenvalue is degenerate)
    condensation : float in [0, 1], <(v . x)^2> / N, the share of |x|^2 on that eigenvector
    overlap : float in [0, 1], <(u . x)^2> / N, the share of |x|^2 along u
        (1/N for the uniform law)

    Parameters
    ----------
    model : SphericalBM
    u : array_like, shape (N,), a unit vector
    beta : float > 0, the sampling inverse temperature
    """
    model = _model(model, "model")
    u = check_finite(u, "u")
    N = model.lam.size
    if u.shape != (N,) or not math.isclose(float(u @ u), 1.0, rel_tol=1e-9):
        raise ValueError(f"u must be a unit vector of shape ({N},), got shape {u.shape}")
    y2 = spherical_moments(model.lam, beta)[1]
    along = (model.U.T @ u) ** 2
    return float(along[-1]), float(y2[-1] / N), float(along @ y2 / N)
