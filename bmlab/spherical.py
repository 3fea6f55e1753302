"""The spherical Boltzmann machine: x on the sphere |x|^2 = N, energy E(x) = -1/2 x^T W x.

Notebook 06. The law is p(x) = exp(beta/2 x^T W x) / Z relative to the uniform law on the
sphere, Z = E_uniform[exp(beta/2 x^T W x)] (1 at W = 0). In the eigenbasis y = U^T x of W,
everything depends on the eigenvalues ``lam`` only: the machine is solvable at N = 1000.

Exact Z. Writing |x|^2 = N as an inverse Laplace transform makes Z one contour integral,
Z = Gamma(t) t^(1-t) (2 pi i)^-1 int exp(t z) prod_i (z - beta lam_i)^(-1/2) dz, t = N/2, along
any upward contour right of every beta lam_i. bmlab takes the steepest-descent path
g(z) = g(z*) - v^2 of the integrand exp(g(z)) through its saddle point z* (the root above
beta max(lam) of sum_i 1/(z - beta lam_i) = N: the constraint's Lagrange multiplier), found by
Newton's method at v = 0, 0.1, ..., 5.7 (on all nodes at once; node by node along the path if
that fails to converge), and the trapezoid rule in v. Nothing oscillates on that
path and exp(-v^2) dz/dv is smooth at every N and in every phase (the path follows the branch
point at distance ~1/N of a condensed machine), so no digit cancels; <y_i^2> comes from the same
nodes with one more factor 1/(z - beta lam_i). Measured at N = 2 ... 1000: error of log Z
<= 1e-11 (or 1e-15 |log Z| if larger) against closed forms (N = 2; rank-one W to 30 digits) and
40-digit quadrature (N <= 100); relative error of <y_i^2> <= 1e-10. Cost: about 4 Newton
iterations on the 57 nodes, each a few sums over the N eigenvalues: 10 ms at N = 1000 on one
core, a small fraction of the eigenvalues of W.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.special import gammaln

from ._checks import (
    check_beta,
    check_finite,
    check_positive_int,
    check_rng,
    check_sphere,
    check_square_symmetric,
)

__all__ = ["ExactSphericalGradient", "PCDSphericalGradient", "SphericalBM", "spherical_moments"]

_STEP = 0.1  # trapezoid step in v along the steepest-descent path
_NODES = 58  # v = 0, 0.1, ..., 5.7: exp(-v^2) < 1e-14 beyond


# ----------------------------------------------------------------------- exact solution
def _gaps(a: np.ndarray) -> tuple[float, np.ndarray]:
    """The saddle point measured from the top, z* - max(a), and the gaps d = z* - a > 0."""
    from scipy.optimize import brentq  # here: importing bmlab costs no scipy.optimize (~23 MB)

    top = a.max()

    def excess(z):  # sum_i 1/(z - a_i) - N, decreasing in z > 0; the root lies in [1/N, 1]
        return float(np.sum(1.0 / (z - (a - top)))) - a.size

    lo = 1.0 / a.size
    z = lo if excess(lo) <= 0 else brentq(excess, lo, 2.0, xtol=1e-15 * lo, rtol=1e-15)
    return z, z - (a - top)


def _newton(w: complex, v: float, d: np.ndarray, t: float) -> complex:
    """The point delta = z - z* of the path at v: the root of g(z) - g(z*) + v^2 near ``w``."""
    for _ in range(30):
        g = t * w - 0.5 * np.sum(np.log1p(w / d)) + v * v
        step = g / (t - 0.5 * np.sum(1.0 / (d + w)))
        w -= step
        if abs(step) <= 1e-9 * abs(w + d.min()):  # converging quadratically: error ~ step^2
            return w
    raise RuntimeError("the steepest-descent path of the spherical machine was lost")


def _nodes_at_once(v: np.ndarray, d: np.ndarray, t: float, guess: np.ndarray):
    """Newton's method on all nodes delta_k (v_k > 0) at once, from ``guess``; None unless
    every node converged into the upper half plane (then :func:`_path` goes node by node).
    A node's tolerance grows with 1 / exp(-v^2), its weight: 1e-9 where the weight exceeds
    1e-6, 1e-15 / exp(-v^2) beyond (at most 1e-2), so the nodes of the Gaussian tail, which
    matter least, take the fewest iterations.

    In real arithmetic: with q = delta / d = a + i b, log(1 + q) = log1p(s) / 2 + i arg(1 + q)
    and 1 / (d + delta) = (1 + a - i b) / (d (1 + s)), s = |1 + q|^2 - 1 = a (2 + a) + b^2."""
    w, tol = guess, np.clip(1e-15 * np.exp(v * v), 1e-9, 1e-2)
    for _ in range(12):
        a, b = np.multiply.outer(w.real, 1.0 / d), np.multiply.outer(w.imag, 1.0 / d)
        s = a * (2.0 + a) + b * b
        log1p = 0.5 * np.sum(np.log1p(s), axis=1) + 1j * np.sum(np.arctan2(b, 1.0 + a), axis=1)
        r = 1.0 / (d * (1.0 + s))
        slope = t - 0.5 * (np.sum(r * (1.0 + a), axis=1) - 1j * np.sum(r * b, axis=1))
        step = (t * w - 0.5 * log1p + v * v) / slope
        w = w - step
        if np.all(np.abs(step) <= tol * np.abs(w + d.min())):
            return w if np.all(w.imag > 0) else None
    return None


def _path(d: np.ndarray, t: float):
    """Nodes delta_k = z_k - z* (v_k >= 0, upper half plane), dz/dv there and the trapezoid
    weights exp(-v^2) h / pi (half at v = 0), so that (2 pi i)^-1 int exp(g - g*) f dz equals
    ``weights @ (dz * f(z)).imag`` for f real on the real axis.

    The nodes: Newton's method on all of them at once, from the path's Taylor expansion at
    the saddle (i v sqrt(2 / g'') plus the curvature term); should a node not converge, node
    by node from the saddle, each Newton start extrapolated from the node before."""
    v = _STEP * np.arange(_NODES)
    g2 = 0.5 * np.sum(d**-2.0)
    curvature = -2.0 * np.sum(d**-3.0) / (3.0 * g2**2)  # d^2 z / dv^2 at the saddle
    delta = np.zeros(_NODES, complex)
    dz = np.empty(_NODES, complex)
    dz[0] = 1j * np.sqrt(2.0 / g2)
    taylor = v[1:] * dz[0] + 0.5 * curvature * v[1:] ** 2
    at_once = _nodes_at_once(v[1:], d, t, taylor)
    if at_once is not None:
        delta[1:] = at_once
        dz[1:] = -2.0 * v[1:] / (t - 0.5 * np.sum(1.0 / (d + at_once[:, None]), axis=1))
    else:
        for k in range(1, _NODES):
            guess = delta[k - 1] + _STEP * dz[k - 1] + 0.5 * _STEP**2 * curvature
            delta[k] = _newton(guess, v[k], d, t)
            q = 1.0 / (d + delta[k])
            slope = t - 0.5 * np.sum(q)  # g'(z_k)
            dz[k] = -2.0 * v[k] / slope  # from g(z(v)) = g* - v^2
            curvature = (-2.0 - 0.5 * np.sum(q * q) * dz[k] ** 2) / slope
    weights = _STEP / np.pi * np.exp(-(v**2))
    weights[0] /= 2
    return delta, dz, weights


def _solve(lam: np.ndarray, beta: float) -> tuple[float, np.ndarray]:
    """log Z and <y_i^2> for eigenvalues ``lam`` at inverse temperature ``beta``."""
    a = beta * lam
    t = a.size / 2
    z_top, d = _gaps(a)
    delta, dz, weights = _path(d, t)
    integral = weights @ dz.imag
    g_star = t * (a.max() + z_top) - 0.5 * np.sum(np.log(d))  # log of the integrand at z*
    log_Z = gammaln(t) + (1 - t) * np.log(t) + g_star + np.log(integral)
    y2 = weights @ (dz[:, None] / (d + delta[:, None])).imag / integral
    return float(log_Z), y2


def spherical_moments(lam, beta=1.0) -> tuple[float, np.ndarray]:
    """Exact log Z and second moments of the spherical machine with eigenvalues ``lam``.

    Training from W = 0 by the exact gradient keeps W diagonal in the eigenbasis of the data
    covariance: then this function of N eigenvalues is the whole model (notebook 06, Section 3).

    Parameters
    ----------
    lam : array_like, shape (N,), N >= 2, the eigenvalues of W (any order)
    beta : float > 0

    Returns
    -------
    log_Z : float, log E_uniform[exp(beta/2 sum_i lam_i y_i^2)] on |y|^2 = N
    y2 : ndarray, shape (N,), <y_i^2> in the order of ``lam`` (sums to N)
    """
    lam = check_finite(lam, "lam")
    if lam.ndim != 1 or lam.size < 2:
        raise ValueError(f"lam must have shape (N,) with N >= 2, got {lam.shape}")
    return _solve(lam, check_beta(beta, positive=True))


# ------------------------------------------------------------------------------ sampling
def _times(M: np.ndarray, W: np.ndarray) -> np.ndarray:
    """The rows of M times the symmetric W, or times diag(W) for W of shape (N,)."""
    return M * W if W.ndim == 1 else M @ W


def _heat_bath(X: np.ndarray, W: np.ndarray, n_steps: int, beta: float, rng) -> np.ndarray:
    """``n_steps`` heat-bath moves along random great circles for every row (chain) of X.

    Along x cos(phi) + v sin(phi), v a random direction orthogonal to x with |v|^2 = N, the
    exponent beta/2 x^T W x is const + kappa cos(2 phi - mu): 2 phi is a von Mises draw, then
    phi or phi + pi with probability 1/2. Reversible for p; one product with W per step
    (W of shape (N,) means diag(W)).
    """
    n = X.shape[1]
    WX = _times(X, W)
    for _ in range(n_steps):
        V = rng.standard_normal(X.shape)
        V -= (np.einsum("ij,ij->i", V, X) / n)[:, None] * X
        V *= (np.sqrt(n) / np.linalg.norm(V, axis=1))[:, None]
        WV = _times(V, W)
        A, B, C = (np.einsum("ij,ij->i", P, Q) for P, Q in ((X, WX), (X, WV), (V, WV)))
        kappa = 0.5 * beta * np.hypot(0.5 * (A - C), B)
        mu = np.arctan2(B, 0.5 * (A - C))
        phi = 0.5 * (mu + rng.vonmises(0.0, kappa)) + np.pi * (rng.random(len(X)) < 0.5)
        cos, sin = np.cos(phi)[:, None], np.sin(phi)[:, None]
        X, WX = cos * X + sin * V, cos * WX + sin * WV  # |x|^2 = N up to round-off
    return X


class SphericalBM:
    """The spherical machine with a symmetric coupling matrix ``W`` (N, N), N >= 2.

    Attributes ``W``, ``lam`` (N,) the eigenvalues of W ascending (at construction), and ``U``
    (N, N) with W = U diag(lam) U^T (on first use: log Z needs only the eigenvalues).
    Probabilities are relative to the uniform law on the sphere |x|^2 = N; ``beta`` is the
    inverse temperature (> 0).
    """

    def __init__(self, W):
        self.W = check_square_symmetric(W, "W").copy()
        self.lam = np.linalg.eigvalsh(self.W)

    @functools.cached_property
    def U(self) -> np.ndarray:
        """The eigenvectors of W, shape (N, N), column i for ``lam[i]``."""
        return np.linalg.eigh(self.W)[1]

    def log_partition(self, beta=1.0) -> float:
        """Exact log Z = log E_uniform[exp(beta/2 x^T W x)] (method: the module docstring)."""
        return _solve(self.lam, check_beta(beta, positive=True))[0]

    def second_moment(self, beta=1.0) -> np.ndarray:
        """Exact <x x^T>, shape (N, N), trace N: U diag(<y_i^2>) U^T."""
        y2 = _solve(self.lam, check_beta(beta, positive=True))[1]
        return (self.U * y2) @ self.U.T

    def sample(self, n: int, *, beta=1.0, rng) -> np.ndarray:
        """``n`` exact independent draws, shape (n, N), each with |x|^2 = N.

        Rejection from the angular central Gaussian of Kent, Ganeiber & Mardia (2018), in the
        eigenbasis: g_i ~ N(0, 1/(z* - beta lam_i)), w = g / |g|, accepted with probability
        exp(N/2 (1 + log u - u)) <= 1, u = sum_i (z* - beta lam_i) w_i^2; then x = sqrt(N) U w.
        Acceptance (exact): > 0.8 uncondensed; about 1 / sqrt(N) deep in the condensed phase.
        """
        n = check_positive_int(n, "n")
        beta = check_beta(beta, positive=True)
        rng = check_rng(rng, "SphericalBM.sample")
        N = self.lam.size
        d = _gaps(beta * self.lam)[1]
        kept, total, tried = [], 0, 0
        while total < n:
            rate = total / tried if total else 1.0 / (1 + tried)  # measured acceptance so far
            m = min(int(1.25 * (n - total) / rate) + 8, max(8, 2**21 // N))
            Y = rng.standard_normal((m, N)) / np.sqrt(d)
            Y /= np.linalg.norm(Y, axis=1)[:, None]
            u = (Y * Y) @ d
            Y = Y[np.log(rng.random(m)) < 0.5 * N * (1.0 + np.log(u) - u)]
            kept.append(Y)
            total, tried = total + len(Y), tried + m
        return np.sqrt(N) * np.concatenate(kept)[:n] @ self.U.T

    def heat_bath(self, X, n_steps: int = 1, *, beta=1.0, rng) -> np.ndarray:
        """``n_steps`` great-circle heat-bath steps of the chains in the rows of ``X`` (m, N),
        each on the sphere; a Markov chain that leaves p invariant (used by PCD)."""
        X = check_sphere(X, "X", self.lam.size)
        n_steps = check_positive_int(n_steps, "n_steps")
        return _heat_bath(
            X,
            self.W,
            n_steps,
            check_beta(beta, positive=True),
            check_rng(rng, "SphericalBM.heat_bath"),
        )


# --------------------------------------------------------------------- gradients for train
def _second_moment(X: np.ndarray, diagonal: bool) -> np.ndarray:
    """The mean of x x^T over the rows of X, or only its diagonal."""
    return np.mean(X * X, axis=0) if diagonal else X.T @ X / len(X)


class _DataOnSphere:
    """The data (K, N), rows on the sphere, and its second moment (full or diagonal), once."""

    def __init__(self, data):
        self.data = check_sphere(data, "data")
        self._moments = {}

    def _data_moment(self, diagonal: bool) -> np.ndarray:
        if diagonal not in self._moments:
            self._moments[diagonal] = _second_moment(self.data, diagonal)
        return self._moments[diagonal]


class ExactSphericalGradient(_DataOnSphere):
    """``gradient(params, rng=None)``: the exact ascent direction of the mean log-likelihood
    of the rows of ``data`` (K, N), on the sphere, at beta = 1 (``rng`` is ignored):
    ``{"W": 1/2 (<x x^T>_data - <x x^T>_model)}``, Eq. 5.4 again.

    ``params["W"]`` is (N, N), or (N,) for W = diag(w) in the coordinates of the data: then
    the gradient is its diagonal, the whole gradient when the data covariance is diagonal too
    (data in its eigenbasis: how notebook 06 trains at N = 1000, with no eigendecomposition).
    """

    def __call__(self, params, rng=None) -> dict:
        W = params["W"]
        if W.ndim == 1:
            model = _solve(W, 1.0)[1]
        else:
            lam, U = np.linalg.eigh(W)
            model = (U * _solve(lam, 1.0)[1]) @ U.T
        return {"W": 0.5 * (self._data_moment(W.ndim == 1) - model)}


class PCDSphericalGradient(_DataOnSphere):
    """``gradient(params, rng)``: as :class:`ExactSphericalGradient` (W of shape (N, N) or
    (N,)), but the model moment is the mean of x x^T over ``n_chains`` persistent chains
    (default: one per data row), moved by ``k`` >= 1 heat-bath steps (the paper's nu;
    :meth:`SphericalBM.heat_bath`) per update. ``X`` holds the chains, None until the first
    call starts them at random data rows."""

    def __init__(self, data, k: int = 1, *, n_chains=None):
        super().__init__(data)
        self.k = check_positive_int(k, "k")
        self.n_chains = (
            len(self.data) if n_chains is None else check_positive_int(n_chains, "n_chains")
        )
        self.X = None

    def __call__(self, params, rng) -> dict:
        rng = check_rng(rng, "PCDSphericalGradient")
        W = params["W"]
        if self.X is None:
            self.X = self.data[rng.integers(0, len(self.data), self.n_chains)]
        self.X = _heat_bath(self.X, W, self.k, 1.0, rng)
        diagonal = W.ndim == 1
        return {"W": 0.5 * (self._data_moment(diagonal) - _second_moment(self.X, diagonal))}
