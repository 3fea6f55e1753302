"""The RBM's phase diagram (notebook 07): ±1 units on both layers, weights drawn from an
ensemble, exact observables with the hidden layer summed out, mean field, and tempering.

Conventions. Visible spins ``s`` (N_v,) and hidden spins ``tau`` (N_h,), entries ±1; energy
``E(s, tau) = -s^T W tau - a^T s - b^T tau`` and ``p = exp(-beta E) / Z`` (``sigma`` is the
strength of the noise below). This is bmlab's {0,1} :class:`bmlab.rbm.RBM` written in other
coordinates: with s = 2v - 1 and tau = 2h - 1, the {0,1} machine (W01, a01, b01) has
``W = W01 / 4``, ``a = a01 / 2 + W01 1 / 4`` and ``b = b01 / 2 + W01^T 1 / 4`` (1 a vector
of ones); the other way, ``W01 = 4 W``, ``a01 = 2 (a - W 1)``, ``b01 = 2 (b - W^T 1)``.

The ensemble (:func:`rbm_ensemble`): ``W = sum_alpha w_alpha u_alpha v_alpha^T / N + r``
with N = sqrt(N_v N_h), |u_alpha|^2 = N_v, |v_alpha|^2 = N_h and r_ij i.i.d. N(0, sigma^2 / N).
The *mode magnetisations* of a visible state are ``m_alpha = u_alpha . s / N_v``. Summing out
the hidden layer, ``p(s) ~ exp(beta a^T s) prod_j 2 cosh(beta (W^T s + b)_j)``, so every exact
observable costs 2**N_v rows of one product with W, whatever N_h.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import hadamard
from scipy.special import logsumexp

from ._checks import (
    check_beta,
    check_betas,
    check_choice,
    check_finite,
    check_in_range,
    check_n_states,
    check_positive_int,
    check_rng,
)
from ._kernels import codes_to_states
from ._parallel import code_chunks, map_chunks, single_blas_thread
from .glauber import _swap_probability

__all__ = [
    "COMPONENTS",
    "FixedPoints",
    "ModeLaw",
    "RBMTemperingRun",
    "mean_field",
    "mode_law",
    "rbm_ensemble",
    "rbm_tempering",
    "replica_symmetric",
]

#: Laws of the components of the singular vectors, all with mean 0 and variance 1; their
#: kurtosis E[x^4] is 1, 3, 6 and 1 / SPARSITY = 4.
COMPONENTS = ("rademacher", "gaussian", "laplace", "sparse")
#: Share of non-zero components (each ±1/sqrt(SPARSITY)) of a "sparse" vector.
SPARSITY = 0.25
_N_MAX_EXACT = 24  # visible units enumerated by mode_law (2**24 rows)
_MERGE = 1e-6  # fixed points closer than this (largest coordinate) are one
#: Nodes and weights of E f(z), z ~ N(0, 1): the trapezoid rule on [-10, 10], step 0.01, exact
#: to 1e-13 for f(z) = tanh(a + b z) and its square up to b = 30 (Gauss-Hermite with 81
#: nodes is off by 1e-2 already at b = 5).
_Z = np.linspace(-10.0, 10.0, 2001)
_PHI = np.exp(-0.5 * _Z**2) / np.exp(-0.5 * _Z**2).sum()


# ------------------------------------------------------------------------------ ensemble
def _vectors(n: int, k: int, law: str, orthogonal: bool, rng) -> np.ndarray:
    """k vectors of n components from ``law``, columns of an (n, k) array, each |x|^2 = n."""
    if law == "sparse":
        size = round(SPARSITY * n)
        if size < 1 or (orthogonal and k * size > n):
            raise ValueError(
                f"{k} sparse vectors of {n} components, {size} of them non-zero"
                f"{' on disjoint supports,' if orthogonal else ''} are impossible; use more units"
            )
        X = np.zeros((n, k))
        sites = rng.permutation(n) if orthogonal else None
        for col in range(k):
            support = (
                sites[col * size : (col + 1) * size]
                if orthogonal
                else rng.choice(n, size, replace=False)
            )
            X[support, col] = rng.choice([-1.0, 1.0], size) / math.sqrt(SPARSITY)
        return X
    if law == "rademacher" and orthogonal:
        order = 1 << max(0, k - 1).bit_length()  # Sylvester-Hadamard rows of this size
        if n % order:
            raise ValueError(
                f"{k} orthogonal ±1 vectors need the number of units ({n}) to "
                f"be a multiple of {order}"
            )
        pattern = hadamard(order)[:k, rng.permutation(np.arange(n) % order)].T
        return rng.choice([-1.0, 1.0], (n, 1)) * pattern
    if law == "rademacher":
        return rng.choice([-1.0, 1.0], (n, k))
    X = (
        rng.standard_normal((n, k))
        if law == "gaussian"
        else rng.laplace(0, 1 / math.sqrt(2), (n, k))
    )
    if orthogonal:
        X = np.linalg.qr(X)[0]
    return X * (math.sqrt(n) / np.linalg.norm(X, axis=0))


def rbm_ensemble(
    n_visible: int,
    n_hidden: int,
    strengths=(),
    *,
    sigma: float = 0.0,
    components: str = "rademacher",
    orthogonal: bool = False,
    rng,
):
    """Draw ±1-unit RBM weights from the ensemble of notebook 07, Section 1.

    ``W = sum_alpha w_alpha u_alpha v_alpha^T / N + r`` with N = sqrt(n_visible n_hidden):
    the components of u_alpha and v_alpha are i.i.d. from ``components`` and each vector is
    scaled to |u_alpha|^2 = n_visible, |v_alpha|^2 = n_hidden; r_ij are i.i.d. N(0, sigma^2/N).

    Parameters
    ----------
    n_visible, n_hidden : int >= 1
    strengths : sequence of K floats >= 0, the mode strengths w_alpha (K = 0: W = r)
    sigma : float >= 0, the strength of the noise r
    components : one of :data:`COMPONENTS`
        ``"sparse"``: exactly round(SPARSITY n) non-zero components ±1/sqrt(SPARSITY).
    orthogonal : bool
        Exactly orthogonal u's (and v's), so that at sigma = 0 the singular values of W are
        the w_alpha: ±1 vectors from the rows of a Sylvester-Hadamard matrix on randomly
        permuted, randomly signed units (the number of units a multiple of the next power of
        two >= K); sparse vectors on disjoint supports; Gaussian and Laplace ones
        orthogonalised (QR) and rescaled, so only close to their law.
    rng : numpy.random.Generator
        Draws u, then v, then r.

    Returns
    -------
    W : ndarray, shape (n_visible, n_hidden)
    U : ndarray, shape (n_visible, K), the u_alpha in its columns
    V : ndarray, shape (n_hidden, K), the v_alpha in its columns
    """
    n_visible = check_positive_int(n_visible, "n_visible")
    n_hidden = check_positive_int(n_hidden, "n_hidden")
    w = check_finite(strengths, "strengths")
    if w.ndim != 1 or np.any(w < 0):
        raise ValueError(f"strengths must be a sequence of numbers >= 0, got {strengths!r}")
    sigma = check_in_range(sigma, "sigma", 0.0, 1e6)
    components = check_choice(components, "components", COMPONENTS)
    if not isinstance(orthogonal, (bool, np.bool_)):
        raise TypeError(f"orthogonal must be True or False, got {type(orthogonal).__name__}")
    rng = check_rng(rng, "rbm_ensemble")
    U = _vectors(n_visible, w.size, components, bool(orthogonal), rng)
    V = _vectors(n_hidden, w.size, components, bool(orthogonal), rng)
    n = math.sqrt(n_visible * n_hidden)
    W = (U * w) @ V.T / n + rng.normal(0.0, sigma / math.sqrt(n), (n_visible, n_hidden))
    return W, U, V


# ------------------------------------------------------------------- exact observables
def _machine(W, a, b, n_max=None):
    """Checked W (N_v, N_h) and biases (zeros when None)."""
    W = check_finite(W, "W")
    if W.ndim != 2 or W.size == 0:
        raise ValueError(f"W must have shape (n_visible, n_hidden), got {W.shape}")
    if n_max is not None:
        check_n_states(W.shape[0], n_max, "n_visible", " (every visible state is enumerated)")
    out = [W]
    for name, x, n in (("a", a, W.shape[0]), ("b", b, W.shape[1])):
        x = np.zeros(n) if x is None else check_finite(x, name)
        if x.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), got {x.shape}")
        out.append(x)
    return out


def _log_2cosh_sum(X: np.ndarray) -> np.ndarray:
    """Row sums of log(2 cosh x) over X (r, n), shape (r,); overwrites X.

    log 2cosh(x) = |x| + log(1 + e^{-2|x|}), the logarithm taken once per row of the product
    of the factors in (1, 2] (blocks of 512 columns stay below 2**512), all in place: about
    four times faster than summing numpy's logaddexp.
    """
    A = np.abs(X, out=X)
    out = A.sum(axis=1)
    A *= -2.0
    np.exp(A, out=A)
    A += 1.0
    for start in range(0, A.shape[1], 512):
        out += np.log(A[:, start : start + 512].prod(axis=1))
    return out


def _halves(W, a, b, U, beta, n_bits: int):
    """The enumerated visible units 0..n_bits-1 split into a low and a high half (the others
    are +1): for state ``lo + 2**n_lo hi``, beta (W^T s + b) is ``F[0][lo] + F[1][hi]``, and
    likewise beta a.s (``A``) and U^T s / N_v (``M``). One addition per state and hidden unit
    instead of a row of a product with W (the split of :func:`bmlab.log_partition`)."""
    n = W.shape[0]
    n_lo = n_bits // 2
    F, A, M = [], [], []
    for lo, hi in ((0, n_lo), (n_lo, n_bits)):
        S = codes_to_states(np.arange(2 ** (hi - lo)), hi - lo)
        F.append(beta * (S @ W[lo:hi]))
        A.append(beta * (S @ a[lo:hi]))
        M.append(S @ U[lo:hi] / n)
    F[1] += beta * (W[n_bits:].sum(axis=0) + b)
    A[1] += beta * a[n_bits:].sum()
    M[1] += U[n_bits:].sum(axis=0) / n
    return F, A, M


@dataclass(frozen=True)
class ModeLaw:
    """The exact law of the mode magnetisations m = U^T s / N_v (:func:`mode_law`).

    Attributes
    ----------
    edges : ndarray, shape (B + 1,), bin edges of each m_alpha
    hist : ndarray, shape (B,) for one mode, (B, B) for the first two (rows m_1, columns
        m_2): the probability of each bin
    mean_abs : ndarray, shape (K,), <|m_alpha|>
    second : ndarray, shape (K, K), <m_alpha m_gamma>
    fourth : ndarray, shape (K, K), <m_alpha^2 m_gamma^2>
    log_partition : float, log Z of the ±1 machine (hidden and visible layers summed)
    """

    edges: np.ndarray
    hist: np.ndarray
    mean_abs: np.ndarray
    second: np.ndarray
    fourth: np.ndarray
    log_partition: float

    @property
    def binder(self) -> np.ndarray:
        """Binder cumulant 1 - <m^4> / (3 <m^2>^2) of each mode, shape (K,): 0 for a
        Gaussian peak at 0, 2/3 for two sharp peaks at ±m."""
        return 1.0 - np.diag(self.fourth) / (3.0 * np.diag(self.second) ** 2)

    @property
    def composition(self) -> float:
        """<4 m_1^2 m_2^2> / <(m_1^2 + m_2^2)^2> of the first two modes: 0 when the states
        lie on one mode's axis, 1 on the diagonals (mixtures), 1/2 for any law that does not
        depend on the angle in the (m_1, m_2) plane."""
        f = self.fourth
        return float(4.0 * f[0, 1] / (f[0, 0] + f[1, 1] + 2.0 * f[0, 1]))


def mode_law(W, U, a=None, b=None, *, beta=1.0, edges=None) -> ModeLaw:
    """Exact law of the mode magnetisations of a ±1 RBM, the hidden layer summed out.

    Enumerates the 2**N_v visible states in chunks on all cores, each weighted by
    exp(beta a.s) prod_j 2 cosh(beta (W^T s + b)_j) (cost 2**N_v N_h; with zero biases
    p(s) = p(-s) and half the states suffice). A value of m within round-off of a bin edge
    may fall on either side: put the edges between the values m can take.

    Parameters
    ----------
    W : array_like, shape (N_v, N_h), N_v <= 24
    U : array_like, shape (N_v, K), K >= 1: m = U^T s / N_v
    a, b : array_like, shapes (N_v,), (N_h,), optional (zeros)
    beta : float >= 0
    edges : array_like, shape (B + 1,), increasing, optional
        Default: 41 equal bins on [-L, L], L = max_alpha |u_alpha|_1 / N_v (the largest |m|).
        A value of m outside the edges counts in the first or last bin.

    Returns
    -------
    ModeLaw
    """
    W, a, b = _machine(W, a, b, _N_MAX_EXACT)
    n = W.shape[0]
    U = check_finite(U, "U")
    if U.ndim != 2 or U.shape[0] != n or U.shape[1] < 1:
        raise ValueError(f"U must have shape ({n}, K) with K >= 1, got {U.shape}")
    beta = check_beta(beta)
    if edges is None:
        edges = np.linspace(-1.0, 1.0, 42) * np.abs(U).sum(axis=0).max() / n
    edges = check_finite(edges, "edges")
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("edges must be at least 2 increasing numbers")
    symmetric = not (a.any() or b.any())
    bins, k = edges.size - 1, min(U.shape[1], 2)

    n_bits = n - symmetric  # with zero biases the last unit is +1 and -s stands beside s
    F, A, M_half = _halves(W, a, b, U, beta, n_bits)

    def part(start, stop):  # the states of the high codes start..stop-1
        X = (F[1][start:stop, None] + F[0]).reshape(-1, W.shape[1])
        lw = (A[1][start:stop, None] + A[0]).ravel() + _log_2cosh_sum(X)
        lse = logsumexp(lw)
        p = np.exp(lw - lse)
        M = (M_half[1][start:stop, None] + M_half[0]).reshape(-1, U.shape[1])
        M2 = M * M
        moments = p @ np.abs(M), (M.T * p) @ M, (M2.T * p) @ M2
        if symmetric:  # each state stands for itself and its mirror image -s, m -> -m
            M, p = np.concatenate([M[:, :k], -M[:, :k]]), np.concatenate([p, p]) / 2
        where = np.clip(np.searchsorted(edges, M[:, :k], side="right") - 1, 0, bins - 1)
        cell = where[:, 0] * bins + where[:, 1] if k == 2 else where[:, 0]
        return lse, np.bincount(cell, p, bins**k), *moments

    parts = map_chunks(part, code_chunks(n_bits - n_bits // 2, F[0].size, 1 << 19))
    lses = np.array([q[0] for q in parts])
    log_Z = logsumexp(lses)
    share = np.exp(lses - log_Z)
    hist, mean_abs, second, fourth = (
        sum(c * q[i] for c, q in zip(share, parts, strict=True)) for i in (1, 2, 3, 4)
    )
    log_Z += symmetric * math.log(2.0)  # the mirror images
    return ModeLaw(edges, hist.reshape((bins,) * k), mean_abs, second, fourth, float(log_Z))


# ---------------------------------------------------------------------------- mean field
@dataclass(frozen=True)
class FixedPoints:
    """Fixed points of the mean-field equations (:func:`mean_field`), in the order in which
    the starts first reached them.

    Attributes
    ----------
    m_v : ndarray, shape (k, N_v), visible magnetisations <s_i> in [-1, 1]
    m_h : ndarray, shape (k, N_h), hidden magnetisations <tau_j>
    free_energy : ndarray, shape (k,), the mean-field free energy F (F = -log Z / beta for
        the exact Z; the paramagnet m = 0 has F = -(N_v + N_h) log 2 / beta, naive)
    converged : ndarray of bool, shape (k,), whether both equations hold to ``tol``; a point
        that did not converge is kept on its own (one per start), never merged
    hits : ndarray of int, shape (k,), the number of starts that reached each point
    """

    m_v: np.ndarray
    m_h: np.ndarray
    free_energy: np.ndarray
    converged: np.ndarray
    hits: np.ndarray


def _entropy(m: np.ndarray) -> np.ndarray:
    """Entropy of ±1 units with means m, summed over the last axis."""
    p, q = (1 + m) / 2, (1 - m) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(p > 0, p * np.log(p), 0.0) - np.where(q > 0, q * np.log(q), 0.0)
    return h.sum(axis=-1)


def _free_energy(M, H, W, a, b, beta, tap):
    """Naive (or TAP) mean-field free energy of each row of M (n, N_v), H (n, N_h)."""
    F = -np.einsum("ri,ij,rj->r", M, W, H) - M @ a - H @ b - (_entropy(M) + _entropy(H)) / beta
    if tap:  # the Onsager term, second order of the Plefka expansion
        F -= 0.5 * beta * np.einsum("ri,ij,rj->r", 1 - M * M, W * W, 1 - H * H)
    return F


def mean_field(
    W, a=None, b=None, *, beta=1.0, starts, method="naive", damping=0.5, max_iter=20_000, tol=1e-10
) -> FixedPoints:
    """Fixed points of the naive or TAP mean-field equations of a ±1 RBM (notebook 07).

    Naive: ``m_h = tanh(beta (W^T m_v + b))``, ``m_v = tanh(beta (W m_h + a))``. TAP adds
    the Onsager reaction: ``- beta^2 m_h,j sum_i W_ij^2 (1 - m_v,i^2)`` inside the first tanh
    and ``- beta^2 m_v,i sum_j W_ij^2 (1 - m_h,j^2)`` inside the second. From each start
    (m_h from the naive equation), the damped iteration m_h <- (1 - d) m_h + d f_h(m_v, m_h),
    then m_v likewise, runs until both equations hold to ``tol`` (largest violation) or for
    ``max_iter`` rounds. Converged points closer than 1e-6 are merged.

    Parameters
    ----------
    W : array_like, shape (N_v, N_h)
    a, b : array_like, shapes (N_v,), (N_h,), optional (zeros)
    beta : float > 0
    starts : array_like, shape (n, N_v), visible magnetisations in [-1, 1]
    method : {"naive", "tap"}
    damping : float in (0, 1], the weight d of the new value
    max_iter : int >= 1
    tol : float > 0

    Returns
    -------
    FixedPoints
    """
    W, a, b = _machine(W, a, b)
    beta = check_beta(beta)
    if beta == 0:
        raise ValueError("beta must be > 0 for mean field, got 0.0")
    M = check_finite(starts, "starts")
    if M.ndim != 2 or M.shape[1] != W.shape[0] or len(M) == 0 or np.abs(M).max() > 1:
        raise ValueError(f"starts must have shape (n, {W.shape[0]}), entries in [-1, 1]")
    tap = check_choice(method, "method", ("naive", "tap")) == "tap"
    d = check_in_range(damping, "damping", 1e-3, 1.0)
    max_iter = check_positive_int(max_iter, "max_iter")
    tol = check_in_range(tol, "tol", 1e-15, 1.0)
    W2 = W * W

    def f_h(M, H):
        x = beta * (M @ W + b)
        return np.tanh(x - beta**2 * H * ((1 - M * M) @ W2) if tap else x)

    def f_v(M, H):
        x = beta * (H @ W.T + a)
        return np.tanh(x - beta**2 * M * ((1 - H * H) @ W2.T) if tap else x)

    H = np.tanh(beta * (M @ W + b))
    for it in range(max_iter):
        H = (1 - d) * H + d * f_h(M, H)
        M = (1 - d) * M + d * f_v(M, H)
        if it % 10 == 9 or it == max_iter - 1:
            error = np.maximum(np.abs(H - f_h(M, H)).max(axis=1), np.abs(M - f_v(M, H)).max(axis=1))
            if error.max() <= tol:
                break
    return _merged(M, H, error <= tol, _free_energy(M, H, W, a, b, beta, tap))


def _merged(M, H, ok, F) -> FixedPoints:
    """Converged rows within _MERGE of an earlier converged row join it; the others stay."""
    X = np.concatenate([M, H], axis=1)
    keep, hits = [], []  # first rows of the points found so far, and their counts
    for r in range(len(X)):
        found = [i for i, k in enumerate(keep) if ok[k]] if ok[r] else []
        if found:
            close = np.abs(X[[keep[i] for i in found]] - X[r]).max(axis=1) < _MERGE
            if close.any():
                hits[found[int(np.argmax(close))]] += 1
                continue
        keep.append(r)
        hits.append(1)
    return FixedPoints(M[keep], H[keep], F[keep], ok[keep], np.array(hits))


# ----------------------------------------------------------------------------- tempering
@dataclass(frozen=True)
class RBMTemperingRun:
    """What :func:`rbm_tempering` records, every ``record_every`` sweeps.

    Attributes
    ----------
    overlaps : ndarray, shape (n_records, K, n_chains // 2)
        q = s . s' / N_v between chains 2c and 2c + 1 (two independent replicas) at each beta.
    projections : ndarray, shape (n_records, K, n_chains, d), or None
        ``modes^T s / N_v`` of every chain at every beta (the mode magnetisations).
    swap_rates : ndarray, shape (K - 1,), accepted share of the swaps between betas k, k + 1
    visible : ndarray of int8, shape (K, n_chains, N_v), the last visible states (``init``
        of a run that continues this one)
    """

    overlaps: np.ndarray
    projections: np.ndarray | None
    swap_rates: np.ndarray
    visible: np.ndarray


def _spins(rng, field: np.ndarray) -> np.ndarray:
    """±1 spins, +1 with probability 1 / (1 + exp(-2 field)) (heat bath; one uniform each)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(rng.random(field.shape) * (1.0 + np.exp(-2.0 * field)) < 1.0, 1.0, -1.0)


def rbm_tempering(
    W, a=None, b=None, *, betas, n_sweeps, rng, n_chains=2, modes=None, record_every=1, init=None
) -> RBMTemperingRun:
    """Block-Gibbs sampling of a ±1 RBM with parallel tempering (notebook 07, Sections 4-5).

    ``n_chains`` independent ladders of K replicas, one at each beta. A sweep draws every
    replica's hidden layer given its visible one, then the visible layer given the hidden one
    (uniforms (K n_chains, N_h), then (K n_chains, N_v); unit +1 with probability
    1 / (1 + exp(-2 beta field))), then proposes to swap the states (s, tau) at betas k and
    k + 1 for even k, then odd k, each accepted with probability
    min(1, exp((beta_{k+1} - beta_k)(E_{k+1} - E_k))) (one uniform per pair and ladder), as
    :func:`bmlab.parallel_tempering` does for the fully visible machine.

    Parameters
    ----------
    W : array_like, shape (N_v, N_h)
    a, b : array_like, shapes (N_v,), (N_h,), optional (zeros)
    betas : array_like, shape (K,), K >= 2, positive and increasing
    n_sweeps : int >= 1
    rng : numpy.random.Generator
    n_chains : int >= 1, ladders (pairs of them give the overlaps)
    modes : array_like, shape (N_v, d), optional: record ``modes^T s / N_v``
    record_every : int >= 1
    init : array_like of ±1, shape (K, n_chains, N_v), optional (default: random spins)

    Returns
    -------
    RBMTemperingRun
    """
    W, a, b = _machine(W, a, b)
    nv = W.shape[0]
    betas = check_betas(betas)
    K, C = betas.size, check_positive_int(n_chains, "n_chains", maximum=10**5)
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps", maximum=10**8)
    every = check_positive_int(record_every, "record_every")
    rng = check_rng(rng, "rbm_tempering")
    if modes is not None:
        modes = check_finite(modes, "modes")
        if modes.ndim != 2 or modes.shape[0] != nv:
            raise ValueError(f"modes must have shape ({nv}, d), got {modes.shape}")
    if init is None:
        S = rng.choice([-1.0, 1.0], (K * C, nv))
    else:
        S = check_finite(init, "init")
        if S.shape != (K, C, nv) or not np.all(np.abs(S) == 1):
            raise ValueError(f"init must be ±1 spins of shape ({K}, {C}, {nv}), got {S.shape}")
        S = S.reshape(K * C, nv)
    n_rec = n_sweeps // every
    run = RBMTemperingRun(
        np.empty((n_rec, K, C // 2)),
        None if modes is None else np.empty((n_rec, K, C, modes.shape[1])),
        np.zeros(K - 1),
        np.empty((K, C, nv), np.int8),
    )
    with single_blas_thread():  # small products: one BLAS thread is faster on busy cores
        _sweeps(run, S, W, a, b, betas, n_sweeps, every, rng, modes)
    run.swap_rates[:] /= n_sweeps * C
    return run


def _sweeps(run, S, W, a, b, betas, n_sweeps, every, rng, modes) -> None:
    """The sweeps of :func:`rbm_tempering` from the states S (K C, N_v); fills ``run``."""
    K, C, nv = run.visible.shape
    beta_rows = np.repeat(betas, C)[:, None]
    rows = np.arange(K * C).reshape(K, C)
    for t in range(n_sweeps):
        H = _spins(rng, beta_rows * (S @ W + b))
        S = _spins(rng, beta_rows * (H @ W.T + a))
        E = -np.einsum("ri,ri->r", S @ W, H) - S @ a - H @ b  # energy of each row
        for k in (np.arange(0, K - 1, 2), np.arange(1, K - 1, 2)):
            swap = rng.random((k.size, C)) < _swap_probability(
                betas[k, None], betas[k + 1, None], E[rows[k]], E[rows[k + 1]]
            )
            lo, hi = rows[k][swap], rows[k + 1][swap]
            S[lo], S[hi], H[lo], H[hi], E[lo], E[hi] = S[hi], S[lo], H[hi], H[lo], E[hi], E[lo]
            run.swap_rates[k] += swap.sum(axis=1)
        if (t + 1) % every == 0:
            R = S.reshape(K, C, nv)
            record = (t + 1) // every - 1
            run.overlaps[record] = (
                np.einsum("kci,kci->kc", R[:, 0 : 2 * (C // 2) : 2], R[:, 1::2]) / nv
            )
            if modes is not None:
                run.projections[record] = R @ modes / nv
    run.visible[:] = S.reshape(K, C, nv)


# ------------------------------------------------------------------- replica symmetry
def replica_symmetric(beta, w, sigma, *, m0=1.0, q0=1.0, max_iter=100_000, tol=1e-12):
    """The replica-symmetric order parameters of the ensemble with one mode (notebook 07,
    Section 2): Rademacher components, N_v = N_h, N -> infinity.

    By the gauge s_i -> u_i s_i the equations are those of the Sherrington-Kirkpatrick model
    with mean coupling w and spread sigma: ``m = E tanh(beta (w m + sigma sqrt(q) z))`` and
    ``q = E tanh^2(beta (w m + sigma sqrt(q) z))``, z ~ N(0, 1), the averages by the
    trapezoid rule (accurate to 1e-13 while beta sigma <= 30), iterated from (m0, q0) until no
    value moves by more than ``tol`` (or ``max_iter`` rounds; slow next to a phase boundary).

    Parameters
    ----------
    beta, w, sigma : floats or arrays >= 0, broadcast together
    m0, q0 : starting values, m0 in [-1, 1], q0 in [0, 1]

    Returns
    -------
    m, q : ndarrays of the broadcast shape: the mode magnetisation (m0 = 1 picks the
        solution with m >= 0) and the overlap of two replicas
    """
    beta, w, sigma = np.broadcast_arrays(
        *(check_finite(x, n) for x, n in ((beta, "beta"), (w, "w"), (sigma, "sigma")))
    )
    if min(beta.min(initial=0), w.min(initial=0), sigma.min(initial=0)) < 0:
        raise ValueError("beta, w and sigma must be >= 0")
    m = np.full(beta.shape, check_in_range(m0, "m0", -1.0, 1.0))
    q = np.full(beta.shape, check_in_range(q0, "q0", 0.0, 1.0))
    for _ in range(check_positive_int(max_iter, "max_iter")):
        field = (w * m)[..., None] + (sigma * np.sqrt(q))[..., None] * _Z
        t = np.tanh(beta[..., None] * field)
        m_new, q_new = t @ _PHI, (t * t) @ _PHI
        moved = max(np.abs(m_new - m).max(initial=0), np.abs(q_new - q).max(initial=0))
        m, q = m_new, q_new
        if moved <= tol:
            break
    return m, q
