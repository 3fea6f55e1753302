"""Maximum-likelihood learning of the fully visible Boltzmann machine (±1 spins, Eq. 5.4-5.6).

Parameters are a dict ``{"J": (N, N) symmetric with zero diagonal, "theta": (N,)}`` and the
model is p(s) = exp(-E(s)) / Z with the energy of Eq. 5.1 (beta = 1 absorbed).

Parameterisation (one parameter per pair)
-----------------------------------------
The couplings ``J_ij`` and ``J_ji`` are *one* parameter that appears twice in Eq. 5.1, and
the diagonal is no parameter at all. So the free coordinates are

    u = (J_01, J_02, ..., J_{N-2,N-1}, theta_0, ..., theta_{N-1})      (P = N(N-1)/2 + N),

pairs i < j in ``np.triu_indices(N, 1)`` order, then the biases (the sorted-key order ``J``,
``theta`` of :func:`bmlab.learning.train`). The sufficient statistics in the same order are
phi(s) = (s_i s_j for i < j, s_i). In these coordinates

* the gradient (Eq. 5.4) is  dL/dJ_ij = <s_i s_j>_data - <s_i s_j>_model  and
  dL/dtheta_i = <s_i>_data - <s_i>_model; the estimators return it as a symmetric
  (N, N) matrix with zero diagonal, so ``J + lr * grad`` keeps J symmetric;
* the Hessian is minus the model covariance of phi, a (P, P) negative semidefinite matrix
  (:func:`hessian`); every estimator has ``pack``/``unpack`` methods converting between the
  dict and these P coordinates, which the training loop uses for Newton steps and for the
  gradient norm (each pair counted once).

Estimators (callables ``estimator(params, rng) -> grads`` for :func:`bmlab.learning.train`):
:class:`ExactGradient` (enumeration, with ``.hessian``), :class:`GlauberGradient` (Glauber
chains, fresh or persistent), :class:`FrozenGradient` (negative phase computed once: the
trap of Section 5.5), :class:`DataAsModelGradient` (model moments replaced by the data's:
the gradient is identically zero).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import logsumexp

from ._checks import (
    check_choice,
    check_couplings,
    check_finite,
    check_n_states,
    check_positive_int,
    check_rng,
    check_spins,
    check_theta,
)
from .exact import codes_to_states, state_codes
from .glauber import glauber_sample

#: Largest N for exact enumeration in this module (2**16 states).
N_MAX_EXACT = 16
#: Largest N for the exact Hessian (a (2**N, P) table of sufficient statistics).
N_MAX_HESSIAN = 14
_WHY = " (exact enumeration of 2**N states)"


# ---------------------------------------------------------------------------------------------
# validation and coordinates
# ---------------------------------------------------------------------------------------------


def check_params(params, *, n_max: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate a parameter dict of the fully visible machine.

    Parameters
    ----------
    params : dict with "J" (N, N) symmetric, zero diagonal, and "theta" (N,)
    n_max : int, optional
        Largest allowed N.

    Returns
    -------
    J : ndarray, shape (N, N)
    theta : ndarray, shape (N,)
    """
    if not isinstance(params, dict) or "J" not in params or "theta" not in params:
        raise TypeError(
            "params must be a dict with keys 'J' (N, N couplings) and 'theta' (N biases)"
        )
    extra = set(params) - {"J", "theta"}
    if extra:
        raise ValueError(f"params has unknown keys {sorted(extra)}; allowed: 'J', 'theta'")
    J = check_couplings(params["J"], n_max=n_max, why=_WHY if n_max else "")
    theta = check_theta(params["theta"], J.shape[0])
    return J, theta


def check_data(S, n: int | None = None, name: str = "S") -> np.ndarray:
    """Validate a data set of ±1 configurations, shape (D, N), D >= 1."""
    arr = np.asarray(S, dtype=float) if not isinstance(S, (str, bytes)) else None
    if arr is None or arr.ndim != 2 or arr.shape[0] < 1:
        shape = getattr(arr, "shape", None)
        raise ValueError(f"{name} must be a (D, N) array of ±1 configurations, got shape {shape}")
    return check_spins(arr, arr.shape[1] if n is None else n, name=name)


def zero_params(n: int) -> dict:
    """The machine with J = 0, theta = 0 (uniform distribution) on ``n`` spins."""
    n = check_positive_int(n, "n")
    return {"J": np.zeros((n, n)), "theta": np.zeros(n)}


def n_params(n: int) -> int:
    """Number of free parameters P = N(N-1)/2 + N."""
    n = check_positive_int(n, "n")
    return n * (n - 1) // 2 + n


def pack(arrays: dict) -> np.ndarray:
    """Dict ``{"J": (N, N), "theta": (N,)}`` -> free coordinates (P,) (pairs i<j, then theta)."""
    J = np.asarray(arrays["J"], dtype=float)
    iu = np.triu_indices(J.shape[0], 1)
    return np.concatenate([J[iu], np.ravel(arrays["theta"])])


def unpack(u, n: int) -> dict:
    """Free coordinates (P,) -> dict with a symmetric, zero-diagonal ``J`` and ``theta``."""
    u = np.asarray(u, dtype=float)
    if u.shape != (n_params(n),):
        raise ValueError(f"u must have shape ({n_params(n)},) for N = {n}, got {u.shape}")
    iu = np.triu_indices(n, 1)
    J = np.zeros((n, n))
    J[iu] = u[: len(iu[0])]
    return {"J": J + J.T, "theta": u[len(iu[0]) :].copy()}


def upper(C) -> np.ndarray:
    """The pair entries C_ij, i < j, of an (N, N) matrix (``np.triu_indices(N, 1)`` order)."""
    C = np.asarray(C)
    return C[np.triu_indices(C.shape[0], 1)]


@lru_cache(maxsize=8)
def _states(n: int) -> np.ndarray:
    S = codes_to_states(np.arange(2**n), n)
    S.flags.writeable = False
    return S


@lru_cache(maxsize=4)
def _features(n: int) -> np.ndarray:
    S = _states(n)
    iu = np.triu_indices(n, 1)
    Phi = np.concatenate([S[:, iu[0]] * S[:, iu[1]], S], axis=1)
    Phi.flags.writeable = False
    return Phi


def sufficient_statistics(S) -> np.ndarray:
    """phi(s) = (s_i s_j for i < j, s_i) for each configuration.

    Parameters
    ----------
    S : array_like, shape (m, N), entries ±1

    Returns
    -------
    Phi : ndarray, shape (m, P), P = N(N-1)/2 + N
    """
    S = check_data(S)
    iu = np.triu_indices(S.shape[1], 1)
    return np.concatenate([S[:, iu[0]] * S[:, iu[1]], S], axis=1)


# ---------------------------------------------------------------------------------------------
# moments, likelihood, entropy
# ---------------------------------------------------------------------------------------------


def data_moments(S) -> tuple[np.ndarray, np.ndarray]:
    """Data moments <s_i>_data and <s_i s_j>_data (the positive phase of Eq. 5.4).

    Parameters
    ----------
    S : array_like, shape (D, N), entries ±1

    Returns
    -------
    m : ndarray, shape (N,)
    C : ndarray, shape (N, N), ones on the diagonal
    """
    S = check_data(S)
    return S.mean(axis=0), (S.T @ S) / S.shape[0]


def _log_probs(J: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, float]:
    """log p(s) over all states (all_states order) and log Z; no validation."""
    S = _states(J.shape[0])
    logw = 0.5 * np.einsum("ci,ci->c", S @ J, S) + S @ theta
    logz = float(logsumexp(logw))
    return logw - logz, logz


def model_probs(params) -> np.ndarray:
    """Exact p(s) of all 2**N states (:func:`bmlab.all_states` order), shape (2**N,)."""
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    return np.exp(_log_probs(J, theta)[0])


def _moments(p: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    S = _states(n)
    return p @ S, S.T @ (S * p[:, None])


def model_moments(params) -> tuple[np.ndarray, np.ndarray]:
    """Exact model moments <s_i>_model, <s_i s_j>_model (Eq. 5.5) by enumeration.

    Returns
    -------
    m : ndarray, shape (N,)
    C : ndarray, shape (N, N), ones on the diagonal
    """
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    return _moments(np.exp(_log_probs(J, theta)[0]), J.shape[0])


def log_likelihood(params, S) -> float:
    """Exact average log-likelihood L = <log p(s)>_data = <-E(s)>_data - log Z.

    Parameters
    ----------
    params : dict {"J", "theta"}, N <= 16
    S : array_like, shape (D, N), entries ±1

    Returns
    -------
    float
        L in nats per configuration (<= 0).
    """
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    m, C = data_moments(check_data(S, J.shape[0]))
    logz = _log_probs(J, theta)[1]
    return float(theta @ m + 0.5 * np.sum(J * C) - logz)


def log_partition_function(params) -> float:
    """log Z of the machine by enumeration (N <= 16)."""
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    return _log_probs(J, theta)[1]


def entropy(p) -> float:
    """Shannon entropy -sum p log p in nats of a probability vector (0 log 0 = 0)."""
    p = check_finite(p, "p")
    if p.ndim != 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise ValueError("p must be a 1-D probability vector (non-negative, summing to 1)")
    nz = p[p > 0]
    return float(-np.sum(nz * np.log(nz)))


def model_entropy(params) -> float:
    """Entropy H(p_model) = log Z + <E>_model in nats, by enumeration."""
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    logp, _ = _log_probs(J, theta)
    p = np.exp(logp)
    return float(-np.sum(p * logp))


def dual_function(params, S) -> float:
    """Dual of the max-ent problem, L_D = log Z - sum_i theta_i <s_i>_data
    - 1/2 sum_{i != j} J_ij <s_i s_j>_data  (= -L).

    At the maximum-likelihood optimum L_D equals H(p_model) (strong duality); elsewhere it
    exceeds the max-ent optimum (weak duality).
    """
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    m, C = data_moments(check_data(S, J.shape[0]))
    Cz = C - np.diag(np.diag(C))
    return float(_log_probs(J, theta)[1] - theta @ m - 0.5 * np.sum(J * Cz))


def empirical_distribution(S) -> np.ndarray:
    """Fraction of the data in each of the 2**N states (:func:`bmlab.all_states` order).

    Parameters
    ----------
    S : array_like, shape (D, N), entries ±1, N <= 16

    Returns
    -------
    p_data : ndarray, shape (2**N,)
    """
    S = check_data(S)
    n = check_n_states(S.shape[1], N_MAX_EXACT, name="N", why=_WHY)
    counts = np.bincount(state_codes(S), minlength=2**n)
    return counts / counts.sum()


def kl_divergence(p, q) -> float:
    """KL(p || q) = sum p log(p / q) in nats (inf when q = 0 where p > 0)."""
    p = check_finite(p, "p")
    q = check_finite(q, "q")
    if p.shape != q.shape or p.ndim != 1:
        raise ValueError(f"p and q must be 1-D of equal length, got {p.shape} and {q.shape}")
    mask = p > 0
    if np.any(q[mask] <= 0):
        return float("inf")
    return float(np.sum(p[mask] * (np.log(p[mask]) - np.log(q[mask]))))


def kl_data_model(params, S) -> float:
    """KL(p_data || p_model) in nats; equals -L - H(p_data)."""
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    p_data = empirical_distribution(check_data(S, J.shape[0]))
    logp, _ = _log_probs(J, theta)
    mask = p_data > 0
    return float(np.sum(p_data[mask] * (np.log(p_data[mask]) - logp[mask])))


def hessian(params) -> np.ndarray:
    """Exact Hessian of L in the free coordinates: minus the model covariance of phi(s).

    Parameters
    ----------
    params : dict {"J", "theta"}, N <= 14

    Returns
    -------
    H : ndarray, shape (P, P), P = N(N-1)/2 + N
        H[a, b] = -(<phi_a phi_b>_model - <phi_a>_model <phi_b>_model), phi = (s_i s_j for
        i < j, s_i); negative semidefinite. (The data drop out: L is linear in the data.)
    """
    J, theta = check_params(params, n_max=N_MAX_HESSIAN)
    p = np.exp(_log_probs(J, theta)[0])
    Phi = _features(J.shape[0])
    mean = p @ Phi
    X = Phi - mean
    return -(X.T @ (X * p[:, None]))


def same_moments_distribution(p, n: int, *, rng, fraction: float = 0.5) -> np.ndarray:
    """Another distribution with the same first and second moments as ``p``.

    Multiplies ``p`` by ``1 + t w(s)``, where ``w`` is a random function orthogonal -- in the
    ``p``-weighted inner product -- to the constant and to every sufficient statistic
    phi(s) = (s_i s_j, s_i); so normalisation and all moments are unchanged. ``t`` is a
    ``fraction`` of the largest value keeping every probability >= 0. By maximum entropy, a
    Boltzmann ``p`` has the larger entropy of the two.

    Parameters
    ----------
    p : ndarray, shape (2**n,)
        Probabilities in :func:`bmlab.all_states` order.
    n : int, 3 <= n <= 14
    rng : numpy.random.Generator
    fraction : float in (0, 1]

    Returns
    -------
    q : ndarray, shape (2**n,)
        q >= 0, sums to 1, same <s_i> and <s_i s_j> as p, q != p.
    """
    n = check_n_states(n, N_MAX_HESSIAN, name="n", why=_WHY)
    p = check_finite(p, "p")
    if p.shape != (2**n,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise ValueError(f"p must be a probability vector of shape ({2**n},)")
    fraction = float(check_finite(fraction, "fraction"))
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    rng = check_rng(rng)
    A = np.concatenate([np.ones((2**n, 1)), _features(n)], axis=1)
    support = p > 0
    if A.shape[1] >= int(support.sum()):
        raise ValueError(
            f"n = {n} is too small (or p too concentrated): the moments fix the distribution"
        )
    g = rng.standard_normal(2**n)
    root = np.sqrt(p)[:, None]
    coef = np.linalg.lstsq(root * A, root[:, 0] * g, rcond=None)[0]
    w = g - A @ coef
    t_max = 1.0 / max(float(np.max(-w[support])), 1e-300)
    q = p * (1.0 + fraction * t_max * w)
    q = np.clip(q, 0.0, None)
    return q / q.sum()


# ---------------------------------------------------------------------------------------------
# Hebb and a one-dimensional likelihood fit
# ---------------------------------------------------------------------------------------------


def hebb_couplings(patterns) -> np.ndarray:
    """Hebb's one-shot couplings J = (1/N) sum_mu xi^mu xi^mu^T with zero diagonal.

    Parameters
    ----------
    patterns : array_like, shape (P, N), entries ±1

    Returns
    -------
    J : ndarray, shape (N, N), symmetric, zero diagonal
    """
    xi = check_data(patterns, name="patterns")
    J = xi.T @ xi / xi.shape[1]
    np.fill_diagonal(J, 0.0)
    return J


def fit_scale(J, S, *, theta=None, tol: float = 1e-10, max_iter: int = 100) -> float:
    """Maximum-likelihood overall scale c of fixed couplings: argmax_c L(c J, theta).

    L(c) is concave; damped Newton steps with dL/dc = <e>_data - <e>_model and
    d2L/dc2 = -Var_model(e), where e(s) = 1/2 s^T J s.

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 16
    S : array_like, shape (D, N), ±1 data
    theta : array_like, shape (N,), optional (default zeros; kept fixed)

    Returns
    -------
    float
        The maximising scale c (may be large when the data are very regular).
    """
    J = check_couplings(J, n_max=N_MAX_EXACT, why=_WHY)
    n = J.shape[0]
    theta = check_theta(theta, n)
    S = check_data(S, n)
    states = _states(n)
    e_all = 0.5 * np.einsum("ci,ci->c", states @ J, states)
    e_data = float(np.mean(0.5 * np.einsum("ci,ci->c", S @ J, S)))
    h_all = states @ theta
    h_data = float(np.mean(S @ theta))

    def value_and_derivs(c):
        logw = c * e_all + h_all
        logz = logsumexp(logw)
        p = np.exp(logw - logz)
        mean = p @ e_all
        return c * e_data + h_data - logz, e_data - mean, -(p @ (e_all - mean) ** 2)

    c = 0.0
    val, g, h = value_and_derivs(c)
    for _ in range(max_iter):
        if abs(g) < tol or h >= 0:
            break
        step = -g / h
        while True:
            new = value_and_derivs(c + step)
            if new[0] >= val - 1e-14 or abs(step) < 1e-14:
                break
            step /= 2
        c += step
        val, g, h = new
    return float(c)


# ---------------------------------------------------------------------------------------------
# the two forces of one gradient step (Figure 5.2)
# ---------------------------------------------------------------------------------------------


def energy_change_split(params, S, *, lr: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Change of every state's energy under one exact gradient step, split into two phases.

    With dJ = lr (C_data - C_model) and dtheta = lr (m_data - m_model), the energy changes by
    dE(s) = dE_pos(s) + dE_neg(s) with

        dE_pos(s) = -lr (1/2 s^T C_data' s + m_data . s)     (down where the data are)
        dE_neg(s) = +lr (1/2 s^T C_model' s + m_model . s)   (up where the model puts mass)

    (primes: zero diagonal).

    Parameters
    ----------
    params : dict {"J", "theta"}, N <= 16
    S : array_like, shape (D, N), ±1 data
    lr : float > 0

    Returns
    -------
    dE_pos, dE_neg : ndarray, shape (2**N,) each, in :func:`bmlab.all_states` order
    """
    J, theta = check_params(params, n_max=N_MAX_EXACT)
    n = J.shape[0]
    S = check_data(S, n)
    lr = float(check_finite(lr, "lr"))
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    md, Cd = data_moments(S)
    mm, Cm = _moments(np.exp(_log_probs(J, theta)[0]), n)
    states = _states(n)

    def push(m, C):
        Cz = C - np.diag(np.diag(C))
        return 0.5 * np.einsum("ci,ci->c", states @ Cz, states) + states @ m

    return -lr * push(md, Cd), lr * push(mm, Cm)


def random_machine(
    n: int, *, J_mean: float = 0.0, J_std: float = 1.0, theta_std: float = 0.0, rng
) -> dict:
    """A random teacher: J_ij = J_mean / N + J_std g_ij / sqrt(N), theta_i = theta_std g_i.

    Parameters
    ----------
    n : int
    J_mean, J_std, theta_std : float
        ``J_mean`` > 0 makes the machine ferromagnetic (two modes, hard to sample when large).
    rng : numpy.random.Generator

    Returns
    -------
    dict {"J": (n, n) symmetric zero diagonal, "theta": (n,)}
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    for name, v in (("J_mean", J_mean), ("J_std", J_std), ("theta_std", theta_std)):
        check_finite(v, name)
    if J_std < 0 or theta_std < 0:
        raise ValueError("J_std and theta_std must be >= 0")
    G = rng.standard_normal((n, n))
    G = np.triu(G, 1)
    J = J_mean / n + J_std * (G + G.T) / np.sqrt(n)
    np.fill_diagonal(J, 0.0)
    J = np.triu(J, 1) + np.triu(J, 1).T
    return {"J": J, "theta": theta_std * rng.standard_normal(n)}


# ---------------------------------------------------------------------------------------------
# gradient estimators for bmlab.learning.train
# ---------------------------------------------------------------------------------------------


class _Estimator:
    """Common part: data moments, validation, free coordinates (pack / unpack)."""

    def __init__(self, S):
        self.S = check_data(S)
        self.n = self.S.shape[1]
        self.m_data, self.C_data = data_moments(self.S)
        self.calls = 0

    def _grads(self, m_model, C_model) -> dict:
        G = self.C_data - C_model
        np.fill_diagonal(G, 0.0)
        G = 0.5 * (G + G.T)
        return {"J": G, "theta": self.m_data - m_model}

    def _check(self, params, n_max=None):
        J, theta = check_params(params, n_max=n_max)
        if J.shape[0] != self.n:
            raise ValueError(f"params describe N = {J.shape[0]} spins but the data have {self.n}")
        return J, theta

    def pack(self, arrays) -> np.ndarray:
        """Dict -> free coordinates (P,) (pairs i<j, then theta)."""
        return pack(arrays)

    def unpack(self, u) -> dict:
        """Free coordinates (P,) -> dict with symmetric zero-diagonal J."""
        return unpack(u, self.n)


class ExactGradient(_Estimator):
    """Eq. 5.4 with the model moments by enumeration; ``.hessian`` for Newton steps.

    Parameters
    ----------
    S : array_like, shape (D, N), ±1 data, N <= 16 (Hessian: N <= 14)

    Calling ``est(params, rng)`` returns ``{"J": (N, N), "theta": (N,)}``: the exact gradient
    of the average log-likelihood (``rng`` is unused).
    """

    def __init__(self, S):
        super().__init__(S)
        check_n_states(self.n, N_MAX_EXACT, name="N", why=_WHY)

    def __call__(self, params, rng=None) -> dict:
        J, theta = self._check(params, N_MAX_EXACT)
        self.calls += 1
        return self._grads(*_moments(np.exp(_log_probs(J, theta)[0]), self.n))

    def objective(self, params) -> float:
        """Exact average log-likelihood of the data (used by Newton's line search)."""
        return log_likelihood(params, self.S)

    def hessian(self, params) -> np.ndarray:
        """(P, P) Hessian in the free coordinates (see :func:`hessian`)."""
        self._check(params, N_MAX_HESSIAN)
        return hessian(params)


class GlauberGradient(_Estimator):
    """Eq. 5.4 with the model moments estimated from Glauber (heat-bath) chains.

    Parameters
    ----------
    S : array_like, shape (D, N), ±1 data
    n_chains : int
        Chains run in parallel; the moments are averages over their final states.
    k : int
        Sweeps per gradient step.
    persistent : bool
        False: fresh chains from uniformly random states at every step (``k`` sweeps is the
        whole burn-in). True: the chains continue from where the previous step left them
        (warm start; the first step starts from random states).
    order : {"sequential", "random"}
        Site order of a sweep (see :func:`bmlab.glauber_sample`).

    Attributes
    ----------
    chains : ndarray, shape (n_chains, N), or None before the first call
        The current chain states (persistent mode).
    sweeps_done : int
        Total sweeps of all chains so far (cost: sweeps_done * n_chains * N spin updates).
    """

    def __init__(self, S, *, n_chains: int = 100, k: int = 1, persistent: bool = False,
                 order: str = "sequential"):
        super().__init__(S)
        self.n_chains = check_positive_int(n_chains, "n_chains", maximum=10**6)
        self.k = check_positive_int(k, "k", maximum=10**5)
        if not isinstance(persistent, (bool, np.bool_)):
            raise TypeError(f"persistent must be True or False, got {type(persistent).__name__}")
        self.persistent = bool(persistent)
        self.order = check_choice(order, "order", ("sequential", "random"))
        self.chains = None
        self.sweeps_done = 0

    def __call__(self, params, rng) -> dict:
        J, theta = self._check(params)
        rng = check_rng(rng)
        init = self.chains if (self.persistent and self.chains is not None) else "random"
        X = glauber_sample(J, theta, n_chains=self.n_chains, n_sweeps=self.k, init=init,
                           order=self.order, rng=rng)
        self.chains = X
        self.sweeps_done += self.k
        self.calls += 1
        return self._grads(X.mean(axis=0), X.T @ X / self.n_chains)


class FrozenGradient(_Estimator):
    """The trap of Section 5.5: the negative phase computed once, at ``params0``, and reused.

    The returned direction is the constant (data moments - model moments at params0), so the
    parameters drift along it without bound.

    Parameters
    ----------
    S : array_like, shape (D, N), ±1 data
    params0 : dict {"J", "theta"}, optional
        Where the negative phase is frozen (default J = 0, theta = 0: zero model moments).
    """

    def __init__(self, S, params0=None):
        super().__init__(S)
        params0 = zero_params(self.n) if params0 is None else params0
        self._check(params0, N_MAX_EXACT)
        self.m_frozen, self.C_frozen = model_moments(params0)

    def __call__(self, params, rng=None) -> dict:
        self._check(params)
        self.calls += 1
        return self._grads(self.m_frozen, self.C_frozen)


class DataAsModelGradient(_Estimator):
    """The other trap: the model moments replaced by the data moments -> gradient zero."""

    def __call__(self, params, rng=None) -> dict:
        self._check(params)
        self.calls += 1
        return self._grads(self.m_data, self.C_data)


ESTIMATORS = ("exact", "glauber", "persistent", "frozen", "data")


def make_estimator(kind: str, S, *, n_chains: int = 100, k: int = 1, params0=None):
    """Build an estimator by name (for panels and loops over estimators).

    Parameters
    ----------
    kind : {"exact", "glauber", "persistent", "frozen", "data"}
        Exact enumeration; Glauber with fresh chains; Glauber with persistent chains;
        negative phase frozen at ``params0``; model moments replaced by the data's.
    S : array_like, shape (D, N), ±1 data
    n_chains, k : int
        Chains and sweeps per step for the Glauber estimators.
    params0 : dict, optional
        Freezing point for ``"frozen"`` (default zeros).
    """
    kind = check_choice(kind, "kind", ESTIMATORS)
    if kind == "exact":
        return ExactGradient(S)
    if kind in ("glauber", "persistent"):
        return GlauberGradient(S, n_chains=n_chains, k=k, persistent=kind == "persistent")
    if kind == "frozen":
        return FrozenGradient(S, params0)
    return DataAsModelGradient(S)
