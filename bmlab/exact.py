"""Exact enumeration for the fully visible Boltzmann machine (±1 spins).

The energy is Eq. 5.1 of the lecture,

    E(s) = -1/2 sum_{i != j} J_ij s_i s_j - sum_i theta_i s_i ,

and the model distribution is Eq. 5.3, p(s) = exp(-beta E(s)) / Z. Every function here sums
over all 2**N configurations, so these are the *oracle* against which every sampler,
gradient and estimator in bmlab is tested.

State order: row ``c`` of :func:`all_states` has spin ``i`` equal to +1 iff bit ``i`` of the
integer ``c`` is 1 (the order used by the code of the lecture's Figure 5.3).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ._checks import (
    check_beta,
    check_couplings,
    check_data,
    check_n_states,
    check_positive_int,
    check_rng,
    check_spins,
    check_theta,
)
from ._kernels import _energy, _log_weights, _probs, codes_to_states
from ._parallel import code_chunks, map_chunks

#: Largest N for which functions return all 2**N probabilities (2**24 doubles = 128 MB).
N_MAX_TABLE = 24
#: Largest N for :func:`log_partition` (half-split enumeration, memory bounded).
N_MAX_LOGZ = 32
_WHY_TABLE = " (the function returns or stores all 2**N states)"


def state_codes(S) -> np.ndarray:
    """Encode ±1 states as integers (inverse of :func:`codes_to_states`).

    Parameters
    ----------
    S : array_like, shape (..., n), entries ±1, n <= 62

    Returns
    -------
    codes : ndarray of int64, shape (...)
    """
    S = np.asarray(S)
    if S.ndim == 0 or S.shape[-1] > 62:
        raise ValueError(f"S must have shape (..., n) with n <= 62 spins, got {S.shape}")
    if not np.all(np.abs(S) == 1):
        raise ValueError("S must contain only -1 and +1 (the ±1 spin convention)")
    weights = np.left_shift(np.int64(1), np.arange(S.shape[-1], dtype=np.int64))
    return ((S > 0).astype(np.int64) * weights).sum(axis=-1)


def all_states(n: int) -> np.ndarray:
    """All 2**n configurations of n ±1 spins.

    Parameters
    ----------
    n : int, 1 <= n <= 24

    Returns
    -------
    S : ndarray of int8, shape (2**n, n)
        Row ``c`` has spin ``i`` = +1 iff bit ``i`` of ``c`` is 1.
    """
    n = check_n_states(n, N_MAX_TABLE, why=_WHY_TABLE)
    return codes_to_states(np.arange(2**n), n).astype(np.int8)


def energy(S, J, theta=None) -> np.ndarray | float:
    """Energy E(s) of Eq. 5.1 for one state or a batch.

    Parameters
    ----------
    S : array_like, shape (n,) or (m, n), entries ±1
    J : array_like, shape (n, n), symmetric, zero diagonal
    theta : array_like, shape (n,), optional (default zeros)

    Returns
    -------
    E : float for one state, ndarray of shape (m,) for a batch
    """
    J = check_couplings(J)
    n = J.shape[0]
    theta = check_theta(theta, n)
    S = check_spins(S, n)
    E = _energy(np.atleast_2d(S), J, theta)
    return float(E[0]) if S.ndim == 1 else E


def log_partition(J, theta=None, beta=1.0) -> float:
    """Exact log Z = log sum_s exp(-beta E(s)) over all 2**N states (Eq. 5.3).

    The spins are split into two halves A and B. For each chunk of A-configurations the
    cross term ``beta * a^T J_AB b`` with every B-configuration is one matrix product, and
    the B-sum is a row-wise log-sum-exp. Memory stays below ~100 MB for every N, and the
    chunks run on all cores.

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 32
    theta : array_like, shape (N,), optional
    beta : float >= 0

    Returns
    -------
    float
        log Z. Stable for large couplings (no overflow).
    """
    J = check_couplings(J, n_max=N_MAX_LOGZ, why=" (2**N terms; N = 32 already takes minutes)")
    n = J.shape[0]
    theta = check_theta(theta, n)
    beta = check_beta(beta)
    if n <= 14:
        return float(logsumexp(_log_weights(J, theta, beta)))
    nb = n // 2
    na = n - nb
    A = codes_to_states(np.arange(2**na), na)
    B = codes_to_states(np.arange(2**nb), nb)
    gA = -beta * _energy(A, J[:na, :na], theta[:na])
    gB = -beta * _energy(B, J[na:, na:], theta[na:])
    F = beta * (A @ J[:na, na:])  # field that each A-configuration exerts on B
    Bt = np.ascontiguousarray(B.T)

    def block(start: int, stop: int) -> np.ndarray:
        M = F[start:stop] @ Bt
        M += gB
        peak = M.max(axis=1)
        M -= peak[:, None]
        np.exp(M, out=M)
        return gA[start:stop] + peak + np.log(M.sum(axis=1))

    parts = map_chunks(block, code_chunks(na, B.shape[0]))
    return float(logsumexp(np.concatenate(parts)))


def boltzmann_probs(J, theta=None, beta=1.0) -> np.ndarray:
    """Exact Boltzmann probabilities p(s) = exp(-beta E(s)) / Z of all 2**N states.

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 24
    theta : array_like, shape (N,), optional
    beta : float >= 0

    Returns
    -------
    p : ndarray, shape (2**N,)
        In :func:`all_states` order; sums to 1.
    """
    J = check_couplings(J, n_max=N_MAX_TABLE, why=_WHY_TABLE)
    return _probs(J, check_theta(theta, J.shape[0]), check_beta(beta))


def moments_from_probs(p: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """First and second moments of ±1 spins under a distribution over all 2**n states.

    Parameters
    ----------
    p : ndarray, shape (2**n,)
        Probabilities (or any weights) in :func:`all_states` order.
    n : int

    Returns
    -------
    m : ndarray, shape (n,)
        sum_s p(s) s_i
    C : ndarray, shape (n, n)
        sum_s p(s) s_i s_j (diagonal = sum_s p(s)).
    """
    m = np.zeros(n)
    C = np.zeros((n, n))
    for start, stop in code_chunks(n, n):
        S = codes_to_states(np.arange(start, stop), n)
        w = p[start:stop]
        m += w @ S
        C += (S * w[:, None]).T @ S
    return m, C


def exact_moments(J, theta=None, beta=1.0) -> tuple[np.ndarray, np.ndarray]:
    """Exact model moments <s_i> and <s_i s_j> (the negative phase of Eq. 5.4-5.5).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 24
    theta : array_like, shape (N,), optional
    beta : float >= 0

    Returns
    -------
    m : ndarray, shape (N,)
        <s_i>
    C : ndarray, shape (N, N)
        <s_i s_j>, with ones on the diagonal.
    """
    p = boltzmann_probs(J, theta, beta)
    n = np.asarray(J).shape[0]
    m, C = moments_from_probs(p, n)
    np.fill_diagonal(C, 1.0)
    return m, C


def empirical_distribution(S) -> np.ndarray:
    """Fraction of the rows of ``S`` in each of the 2**N states (:func:`all_states` order).

    Parameters
    ----------
    S : array_like, shape (D, N), entries ±1, D >= 1, N <= 24

    Returns
    -------
    p_data : ndarray, shape (2**N,)
        Sums to 1; repeated rows count repeatedly.
    """
    S = check_data(S, "data")
    check_n_states(S.shape[1], N_MAX_TABLE, name="N", why=_WHY_TABLE)
    counts = np.bincount(state_codes(S), minlength=2 ** S.shape[1])
    return counts / counts.sum()


def sample_exact(J, theta=None, *, beta=1.0, n_samples, rng) -> np.ndarray:
    """Independent exact draws from the Boltzmann law (for teacher data).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 24
    theta : array_like, shape (N,), optional
    beta : float >= 0
    n_samples : int >= 1
    rng : numpy.random.Generator

    Returns
    -------
    S : ndarray of float64, shape (n_samples, N), entries ±1
    """
    n_samples = check_positive_int(n_samples, "n_samples", maximum=10**8)
    rng = check_rng(rng, "sample_exact")
    p = boltzmann_probs(J, theta, beta)
    codes = rng.choice(p.size, size=n_samples, p=p)
    return codes_to_states(codes, np.asarray(J).shape[0])
