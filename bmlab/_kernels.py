"""The numerical kernels that several modules share, on arrays already checked.

A public function validates its arguments once with :mod:`bmlab._checks` and then calls these;
so does an internal path that already holds checked arrays (a method calling another, a
panel's update). State codes: code ``c`` has unit ``i`` on (+1 spin, or 1 for {0,1} units)
iff bit ``i`` of ``c`` is 1, the order of :func:`bmlab.all_states`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logsumexp

from ._parallel import code_chunks


def codes_to_states(codes, n: int, *, binary: bool = False) -> np.ndarray:
    """Decode integer state codes into states: the one decoder of the package.

    Parameters
    ----------
    codes : array_like of int, shape (m,)
        State codes in ``range(2**n)``.
    n : int
        Number of units.
    binary : bool
        False: ±1 spins; True: {0,1} units (the RBM's).

    Returns
    -------
    S : ndarray of float64, shape (m, n)
        ``S[r, i]`` is +1 (or 1) iff bit ``i`` of ``codes[r]`` is 1, else -1 (or 0).
    """
    bits = (np.asarray(codes, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1
    return bits.astype(float) if binary else 2.0 * bits - 1.0


def _energy(S: np.ndarray, J: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Energies of Eq. 5.1 of a batch (m, N) of ±1 states, shape (m,)."""
    return -0.5 * np.einsum("ci,ci->c", S @ J, S) - S @ theta


def _log_weights(J: np.ndarray, theta: np.ndarray, beta: float) -> np.ndarray:
    """-beta E(s) for all 2**N states in ``all_states`` order, built chunk by chunk."""
    n = J.shape[0]
    out = np.empty(2**n)
    for start, stop in code_chunks(n, n):
        out[start:stop] = -beta * _energy(codes_to_states(np.arange(start, stop), n), J, theta)
    return out


def _probs(J: np.ndarray, theta: np.ndarray, beta: float) -> np.ndarray:
    """p(s) of Eq. 5.3 for all 2**N states, shape (2**N,), in ``all_states`` order."""
    logw = _log_weights(J, theta, beta)
    logw -= logsumexp(logw)
    return np.exp(logw)


def _transition_matrix(J: np.ndarray, theta: np.ndarray, beta: float) -> np.ndarray:
    """The (2**N, 2**N) one-update matrix of random-site heat-bath dynamics (Eq. 5.2)."""
    n = J.shape[0]
    codes = np.arange(2**n)
    S = codes_to_states(codes, n)
    dE = 2.0 * S * (S @ J + theta)  # cost of flipping each spin, shape (2**N, N)
    w = expit(-beta * dE) / n  # Eq. 5.2, times 1/N for the choice of the site
    T = np.zeros((2**n, 2**n))
    np.put_along_axis(T, codes[:, None] ^ (1 << np.arange(n)), w, axis=1)
    T[codes, codes] = 1.0 - w.sum(axis=1)
    return T


def _softplus_sum(X: np.ndarray) -> np.ndarray:
    """Row sums of log(1 + e^x) over ``X`` (r, n), shape (r,): the hidden units of an RBM
    summed out.

    Speed trick: softplus(x) = max(x, 0) + log(1 + e^-|x|), and the logarithm is taken once per
    row of the *product* of the factors 1 + e^-|x| in (1, 2]; blocks of 512 columns keep the
    product below 2**512, far from overflow.
    """
    out = np.maximum(X, 0.0).sum(axis=1)
    for start in range(0, X.shape[1], 512):
        T = np.exp(-np.abs(X[:, start : start + 512]))
        T += 1.0
        out += np.log(T.prod(axis=1))
    return out
