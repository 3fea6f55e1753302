"""Mixing diagnostics: how fast Glauber dynamics forgets its start (Section 5.3, 5.5).

Everything here works either on an *exact* transition matrix ``T`` (from
:func:`bmlab.glauber_transition_matrix`, one single-site update per step) or on recorded chain
traces. The exact functions are the oracle for the chain-based ones.

Units: ``T`` moves one single-site update. A *sweep* is N updates, so a sweep matrix is
``numpy.linalg.matrix_power(T, N)``; the functions that report times take
``steps_per_sweep=N`` to convert single-site steps into sweeps.

The mixing-time bound used throughout is Theorem 12.4 of Levin, Peres & Wilmer, *Markov
Chains and Mixing Times* (2nd ed., 2017): for a reversible, irreducible chain with absolute
spectral gap gamma*,

    t_mix(eps) <= t_rel * log(1 / (eps * pi_min)),      t_rel = 1 / gamma*,

with the matching lower bound (their Theorem 12.5) t_mix(eps) >= (t_rel - 1) log(1 / (2 eps)).
"""

from __future__ import annotations

import bisect
import contextlib
from dataclasses import dataclass

import numpy as np

from ._checks import check_finite, check_positive_int, check_rng
from ._parallel import single_blas_thread

_TOL = 1e-9
#: Matrices up to this size are diagonalised on one BLAS thread: threads only add overhead
#: there, and on a busy shared machine they spin (seen: 80 ms instead of 2 ms for K = 256).
_SINGLE_THREAD_K = 1024


def _blas_threads(k: int):
    """One BLAS thread for matrices up to _SINGLE_THREAD_K (threads only add overhead there)."""
    return single_blas_thread() if k <= _SINGLE_THREAD_K else contextlib.nullcontext()


# --------------------------------------------------------------------------- validation
def _check_transition(T, name: str = "T") -> np.ndarray:
    T = check_finite(T, name)
    if T.ndim != 2 or T.shape[0] != T.shape[1] or T.shape[0] < 1:
        raise ValueError(f"{name} must be a square (K, K) transition matrix, got shape {T.shape}")
    if np.any(T < -_TOL) or not np.allclose(T.sum(axis=1), 1.0, rtol=0.0, atol=1e-8):
        raise ValueError(f"{name} must be row-stochastic (entries >= 0, rows summing to 1)")
    return T


def _check_distribution(p, k: int, name: str) -> np.ndarray:
    p = check_finite(p, name)
    if p.ndim not in (1, 2) or p.shape[-1] != k:
        raise ValueError(f"{name} must have shape ({k},) or (m, {k}), got {p.shape}")
    if np.any(p < -_TOL) or not np.allclose(p.sum(axis=-1), 1.0, rtol=0.0, atol=1e-8):
        raise ValueError(f"{name} must be a probability vector (entries >= 0 summing to 1)")
    return p


def _check_reversible(T: np.ndarray, pi: np.ndarray) -> None:
    if np.any(pi <= 0):
        raise ValueError("pi must be strictly positive (the chain must be irreducible)")
    if detailed_balance_violation(T, pi) > 1e-10:
        raise ValueError(
            "T is not reversible with respect to pi (detailed balance fails); the spectral "
            "functions need a reversible chain such as random-site Glauber dynamics"
        )


def _check_nonneg_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a non-negative integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}")
    return int(value)


# --------------------------------------------------------------------------- distances
def tv_distance(p, q) -> np.ndarray | float:
    """Total-variation distance 1/2 sum_s |p(s) - q(s)|.

    Parameters
    ----------
    p, q : array_like, shape (..., K)
        Probability vectors over the same K states (broadcast against each other).

    Returns
    -------
    float or ndarray of shape (...)
        Between 0 (equal) and 1 (disjoint supports).
    """
    p = check_finite(p, "p")
    q = check_finite(q, "q")
    if p.ndim == 0 or q.ndim == 0 or p.shape[-1] != q.shape[-1]:
        raise ValueError(
            f"p and q must have the same number of states on their last axis, got {p.shape} "
            f"and {q.shape}"
        )
    d = 0.5 * np.abs(p - q).sum(axis=-1)
    return float(d) if d.ndim == 0 else d


def empirical_distributions(codes, n_states: int) -> np.ndarray:
    """Fraction of chains in each state at each recording time.

    Parameters
    ----------
    codes : array_like of int, shape (n_records, n_chains)
        State codes (e.g. ``GlauberRun.codes``), values in ``range(n_states)``.
    n_states : int
        K, the number of states (2**N).

    Returns
    -------
    ndarray, shape (n_records, K)
        Row t is the histogram of the chains at record t; rows sum to 1.
    """
    n_states = check_positive_int(n_states, "n_states", maximum=2**24)
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[1] < 1 or not np.issubdtype(codes.dtype, np.integer):
        raise ValueError(f"codes must be an integer array of shape (n_records, n_chains), got "
                         f"{codes.dtype} {codes.shape}")
    if codes.size and (codes.min() < 0 or codes.max() >= n_states):
        raise ValueError(f"codes must lie in range(n_states={n_states})")
    n_records, n_chains = codes.shape
    flat = (codes + n_states * np.arange(n_records)[:, None]).ravel()
    counts = np.bincount(flat, minlength=n_records * n_states).reshape(n_records, n_states)
    return counts / n_chains


# --------------------------------------------------------------------------- exact dynamics
def stationary_distribution(T) -> np.ndarray:
    """Stationary law pi = pi T of a transition matrix (left eigenvector for eigenvalue 1).

    Parameters
    ----------
    T : array_like, shape (K, K), row-stochastic

    Returns
    -------
    pi : ndarray, shape (K,)
        Non-negative, sums to 1. Unique when T is irreducible.
    """
    T = _check_transition(T)
    k = T.shape[0]
    # Solve pi (T - I) = 0 with sum(pi) = 1 as one least-squares system.
    A = np.vstack([(T - np.eye(k)).T, np.ones((1, k))])
    b = np.zeros(k + 1)
    b[-1] = 1.0
    pi = np.linalg.lstsq(A, b, rcond=None)[0]
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def detailed_balance_violation(T, pi) -> float:
    """Largest |pi(s) T(s, s') - pi(s') T(s', s)| over all pairs of states.

    Zero (to round-off) for a chain that is reversible with respect to ``pi``.

    Parameters
    ----------
    T : array_like, shape (K, K), row-stochastic
    pi : array_like, shape (K,), probability vector

    Returns
    -------
    float
    """
    T = _check_transition(T)
    pi = _check_distribution(pi, T.shape[0], "pi")
    if pi.ndim != 1:
        raise ValueError(f"pi must have shape ({T.shape[0]},), got {pi.shape}")
    flow = pi[:, None] * T
    return float(np.abs(flow - flow.T).max())


def evolve_distribution(T, p0, n_times: int, *, step: int = 1) -> np.ndarray:
    """Exact laws p0 T^(step t) for t = 0, 1, ..., n_times.

    Parameters
    ----------
    T : array_like, shape (K, K), row-stochastic
        One-step matrix (e.g. one single-site update).
    p0 : array_like, shape (K,) or (m, K)
        Initial distribution(s); a point mass at state c is ``np.eye(K)[c]``.
    n_times : int >= 0
        Number of time points after the start.
    step : int >= 1
        Steps of T between time points (``step=N`` records once per sweep).

    Returns
    -------
    ndarray, shape (n_times + 1, K) or (n_times + 1, m, K)
        Row t is the law after ``step * t`` steps.
    """
    T = _check_transition(T)
    p = _check_distribution(p0, T.shape[0], "p0")
    n_times = _check_nonneg_int(n_times, "n_times")
    step = check_positive_int(step, "step", maximum=10**9)
    P = np.linalg.matrix_power(T, step)
    out = np.empty((n_times + 1, *p.shape))
    out[0] = p
    for t in range(n_times):
        out[t + 1] = out[t] @ P
    return out


def tv_from_starts(T, pi, starts, n_times: int, *, step: int = 1) -> np.ndarray:
    """Exact TV distance to ``pi`` after ``step * t`` steps from each start state.

    Parameters
    ----------
    T : array_like, shape (K, K)
    pi : array_like, shape (K,)
    starts : array_like of int, shape (m,)
        Start states as codes in ``range(K)``.
    n_times : int >= 0
    step : int >= 1

    Returns
    -------
    ndarray, shape (n_times + 1, m)
    """
    T = _check_transition(T)
    k = T.shape[0]
    pi = _check_distribution(pi, k, "pi")
    starts = np.atleast_1d(np.asarray(starts))
    if (starts.ndim != 1 or not np.issubdtype(starts.dtype, np.integer)
            or np.any(starts < 0) or np.any(starts >= k)):
        raise ValueError(f"starts must be a 1-d array of state codes in range({k})")
    laws = evolve_distribution(T, np.eye(k)[starts], n_times, step=step)
    return tv_distance(laws, pi)


def _sym_eigen(T: np.ndarray, pi: np.ndarray, vectors: bool = True):
    """Eigen-decomposition of the symmetrised reversible matrix D^1/2 T D^-1/2."""
    r = np.sqrt(pi)
    A = r[:, None] * T / r[None, :]
    A = 0.5 * (A + A.T)
    with _blas_threads(A.shape[0]):
        if not vectors:
            return np.linalg.eigvalsh(A)[::-1], None, r
        lam, U = np.linalg.eigh(A)
    return lam[::-1], U[:, ::-1], r


def transition_spectrum(T, pi) -> np.ndarray:
    """Eigenvalues of a reversible transition matrix, largest first.

    Parameters
    ----------
    T : array_like, shape (K, K), reversible with respect to ``pi``
    pi : array_like, shape (K,), strictly positive

    Returns
    -------
    ndarray, shape (K,)
        Real eigenvalues in [-1, 1], ``lam[0] = 1``.
    """
    T = _check_transition(T)
    pi = _check_distribution(pi, T.shape[0], "pi")
    _check_reversible(T, pi)
    return _sym_eigen(T, pi, vectors=False)[0]


def spectral_gap(T, pi) -> float:
    """Absolute spectral gap gamma* = 1 - max(|lam| for lam != lam_0).

    For random-site heat-bath dynamics every eigenvalue is >= 0 (each site update is a
    projection), so gamma* equals the ordinary gap 1 - lam_1.

    Parameters
    ----------
    T : array_like, shape (K, K), reversible with respect to ``pi``, K >= 2
    pi : array_like, shape (K,)

    Returns
    -------
    float in [0, 1]
    """
    lam = transition_spectrum(T, pi)
    if lam.size < 2:
        raise ValueError("T must have at least two states to have a spectral gap")
    return float(min(1.0, max(0.0, 1.0 - np.abs(lam[1:]).max())))


def _check_steps_per_sweep(steps_per_sweep) -> int:
    return check_positive_int(steps_per_sweep, "steps_per_sweep", maximum=10**6)


def relaxation_time(T, pi, *, steps_per_sweep: int = 1) -> float:
    """Relaxation time t_rel = 1 / gamma*, in sweeps.

    Parameters
    ----------
    T : array_like, shape (K, K), reversible with respect to ``pi``
    pi : array_like, shape (K,)
    steps_per_sweep : int
        N for a single-site matrix T (the result is then in sweeps); 1 keeps T's steps.

    Returns
    -------
    float
        ``inf`` when the gap is zero (a reducible, frozen chain).
    """
    steps_per_sweep = _check_steps_per_sweep(steps_per_sweep)
    gap = spectral_gap(T, pi)
    return np.inf if gap <= 0 else 1.0 / gap / steps_per_sweep


@dataclass(frozen=True)
class MixingBounds:
    """Spectral bounds on the mixing time (Levin-Peres-Wilmer Thm. 12.4 and 12.5).

    Attributes
    ----------
    t_rel : float
        Relaxation time 1 / gamma*, in sweeps.
    lower : float
        (t_rel - 1 step) log(1 / (2 eps)), in sweeps.
    upper : float
        t_rel log(1 / (eps pi_min)), in sweeps.
    eps : float
    """

    t_rel: float
    lower: float
    upper: float
    eps: float


def mixing_time_bounds(T, pi, *, eps: float = 0.25, steps_per_sweep: int = 1) -> MixingBounds:
    """Lower and upper bounds on t_mix(eps) from the spectral gap.

    Upper (Levin-Peres-Wilmer Thm. 12.4): t_mix(eps) <= t_rel log(1 / (eps pi_min)).
    Lower (Thm. 12.5): t_mix(eps) >= (t_rel - 1) log(1 / (2 eps)). Both are computed in
    single-site steps and reported in sweeps.

    Parameters
    ----------
    T : array_like, shape (K, K), reversible with respect to ``pi``
    pi : array_like, shape (K,), strictly positive
    eps : float in (0, 1/2)
    steps_per_sweep : int

    Returns
    -------
    MixingBounds
    """
    eps = _check_eps(eps)
    steps_per_sweep = _check_steps_per_sweep(steps_per_sweep)
    pi = check_finite(pi, "pi")
    t_rel = relaxation_time(T, pi)  # in steps
    upper = t_rel * np.log(1.0 / (eps * pi.min()))
    lower = max(0.0, t_rel - 1.0) * np.log(1.0 / (2.0 * eps))
    return MixingBounds(
        t_rel=float(t_rel / steps_per_sweep),
        lower=float(lower / steps_per_sweep),
        upper=float(upper / steps_per_sweep),
        eps=eps,
    )


def _check_eps(eps) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)):
        raise TypeError(f"eps must be a real number in (0, 1/2), got {type(eps).__name__}")
    eps = float(eps)
    if not 0.0 < eps < 0.5:
        raise ValueError(f"eps must lie in (0, 1/2), got {eps}")
    return eps


def mixing_time(T, pi, *, eps: float = 0.25, max_steps: int = 10**6) -> int:
    """Exact mixing time: the first t with max over starts of TV(T^t(s, .), pi) <= eps.

    Parameters
    ----------
    T : array_like, shape (K, K), row-stochastic, stationary law ``pi``
    pi : array_like, shape (K,)
    eps : float in (0, 1/2)
    max_steps : int
        Give up (ValueError) beyond this many steps.

    Returns
    -------
    int
        t_mix(eps) in steps of T (divide by N for sweeps of a single-site matrix).
    """
    T = _check_transition(T)
    pi = _check_distribution(pi, T.shape[0], "pi")
    eps = _check_eps(eps)
    max_steps = check_positive_int(max_steps, "max_steps", maximum=10**9)
    # Doubling then bisection on the worst-case distance d(t), which is non-increasing.
    def d(t: int) -> float:
        return float(tv_distance(np.linalg.matrix_power(T, t), pi).max())

    if d(0) <= eps:
        return 0
    hi = 1
    while d(hi) > eps:
        hi *= 2
        if hi > 2 * max_steps:
            raise ValueError(f"the chain has not mixed to eps={eps} within max_steps={max_steps}")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if d(mid) > eps:
            lo = mid
        else:
            hi = mid
    if hi > max_steps:
        raise ValueError(f"the chain has not mixed to eps={eps} within max_steps={max_steps}")
    return hi


def exact_autocorr_time(T, pi, f) -> float:
    """Exact integrated autocorrelation time of an observable in the stationary chain.

    tau = 1 + 2 sum_{t >= 1} rho(t), with rho(t) = Cov(f(X_0), f(X_t)) / Var f under pi,
    computed from the spectral decomposition of the reversible matrix T. It is the factor by
    which correlated samples inflate the variance of a time average.

    Parameters
    ----------
    T : array_like, shape (K, K), reversible with respect to ``pi``
        Use ``matrix_power(T, N)`` to get tau in sweeps for samples recorded once per sweep.
    pi : array_like, shape (K,)
    f : array_like, shape (K,)
        Observable on the states (e.g. s_1 s_2 of every state).

    Returns
    -------
    float
        ``inf`` if the chain cannot move f at all.
    """
    T = _check_transition(T)
    k = T.shape[0]
    pi = _check_distribution(pi, k, "pi")
    f = check_finite(f, "f")
    if f.shape != (k,):
        raise ValueError(f"f must have shape ({k},), got {f.shape}")
    _check_reversible(T, pi)
    g = f - pi @ f
    var = pi @ g**2
    if var <= 1e-300:
        raise ValueError("f is constant under pi; its autocorrelation time is undefined")
    lam, U, r = _sym_eigen(T, pi)
    c = (U.T @ (r * g)) ** 2  # weight of each eigenmode; the lam_0 = 1 mode has none
    c[0] = 0.0
    lam = lam.copy()
    lam[0] = 0.0
    if np.any((c > 1e-14 * var) & (lam >= 1.0 - 1e-13)):
        return np.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(c > 0, c * (1.0 + lam) / np.maximum(1.0 - lam, 1e-300), 0.0)
    return float(terms.sum() / var)


# --------------------------------------------------------------------------- chain traces
def autocorrelation(x, max_lag: int | None = None) -> np.ndarray:
    """Normalised autocorrelation rho(t) of a trace, pooled over chains.

    The mean and variance are pooled over *all* chains, so chains stuck in different
    basins show up as correlations that never decay.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, n_chains)
        Observable along the chains (time on the first axis), n >= 2.
    max_lag : int, optional
        Largest lag returned (default n - 1).

    Returns
    -------
    rho : ndarray, shape (max_lag + 1,)
        ``rho[0] = 1``. All ones when the trace never varies.
    """
    x = check_finite(x, "x")
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"x must have shape (n,) or (n, n_chains) with n >= 2, got {x.shape}")
    n = x.shape[0]
    max_lag = n - 1 if max_lag is None else _check_nonneg_int(max_lag, "max_lag")
    max_lag = min(max_lag, n - 1)
    y = x - x.mean()
    var = float(np.mean(y**2))
    if var <= 1e-300 * max(1.0, float(np.mean(x**2))):
        return np.ones(max_lag + 1)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    F = np.fft.rfft(y, n=size, axis=0)
    acov = np.fft.irfft(F * np.conj(F), n=size, axis=0)[: max_lag + 1].mean(axis=1)
    acov /= np.arange(n, n - max_lag - 1, -1)  # unbiased lag average
    return acov / var


def integrated_autocorr_time(x, *, c: float = 5.0) -> float:
    """Integrated autocorrelation time with Sokal's automatic window.

    tau(M) = 1 + 2 sum_{t=1}^{M} rho(t), with M the smallest window such that M >= c tau(M).
    Measured in records; n / tau is the effective number of independent samples.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, n_chains)
        Observable along the chains (time on the first axis).
    c : float > 0
        Window factor (5 is customary).

    Returns
    -------
    float
        >= 0. When no window fits inside the trace the estimate at the longest window is
        returned: it is then a lower bound, and the trace is too short to measure tau.
        ``inf`` when the trace never varies (a frozen chain).
    """
    if isinstance(c, bool) or not isinstance(c, (int, float, np.floating)) or not c > 0:
        raise ValueError(f"c must be a positive number, got {c!r}")
    rho = autocorrelation(x)
    x = np.asarray(x, dtype=float)
    if np.all(rho == 1.0) and np.ptp(x) == 0:
        return np.inf
    taus = 1.0 + 2.0 * np.cumsum(rho[1:])
    ok = np.nonzero(np.arange(1, rho.size) >= c * taus)[0]
    tau = taus[ok[0]] if ok.size else taus[-1]
    return float(max(tau, 0.0))


def basin_switches(x) -> np.ndarray:
    """Number of sign changes of an order parameter along each chain.

    Zeros (e.g. magnetisation 0 at even N) do not count as a basin: a switch is counted
    only when the sign differs from the last non-zero sign.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, n_chains)
        Order parameter along the chains (e.g. the magnetisation, or the overlap with a
        ground state), time on the first axis.

    Returns
    -------
    ndarray of int, shape (n_chains,) (shape () for a 1-d trace)
    """
    x = check_finite(x, "x")
    one = x.ndim == 1
    if one:
        x = x[:, None]
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"x must have shape (n,) or (n, n_chains), got {x.shape}")
    sgn = np.sign(x)
    n = sgn.shape[0]
    idx = np.where(sgn != 0, np.arange(n)[:, None], -1)
    last = np.maximum.accumulate(idx, axis=0)  # index of the last non-zero sign so far
    filled = np.where(last >= 0, np.take_along_axis(sgn, np.maximum(last, 0), axis=0), 0)
    changes = (filled[1:] != filled[:-1]) & (filled[:-1] != 0)
    counts = changes.sum(axis=0)
    return counts[0] if one else counts


def mean_residence_time(x) -> float:
    """Average time spent in one basin: total chain time / (number of switches + 1).

    Parameters
    ----------
    x : array_like, shape (n,) or (n, n_chains)
        Order parameter along the chains, one record per unit of time.

    Returns
    -------
    float
        In records. With no switch at all this equals the run length, a lower bound.
    """
    x = check_finite(x, "x")
    x2 = x[:, None] if x.ndim == 1 else x
    switches = np.atleast_1d(basin_switches(x2))
    return float(x2.size / (switches.sum() + x2.shape[1]))


# --------------------------------------------------------------------------- path sampling
def markov_path(T, n_steps: int, *, start: int, rng) -> np.ndarray:
    """One trajectory of the Markov chain with transition matrix T.

    Exactly the law of the dynamics that ``T`` describes; with
    ``T = glauber_transition_matrix(J, theta, beta)`` this is one random-site Glauber chain,
    fast for small K (a table lookup per step; used by the live panels).

    Parameters
    ----------
    T : array_like, shape (K, K), row-stochastic
    n_steps : int >= 1
    start : int
        Code of the initial state in ``range(K)`` (not included in the output).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (n_steps,)
        State codes after each step.
    """
    T = _check_transition(T)
    k = T.shape[0]
    n_steps = check_positive_int(n_steps, "n_steps", maximum=10**7)
    start = _check_nonneg_int(start, "start")
    if start >= k:
        raise ValueError(f"start must be a state code in range({k}), got {start}")
    rng = check_rng(rng)
    cum = np.cumsum(np.clip(T, 0.0, None), axis=1)
    cum /= cum[:, -1:]
    cum[:, -1] = np.inf  # u < 1 always lands inside the row
    rows = cum.tolist()
    u = rng.random(n_steps).tolist()
    out = [0] * n_steps
    s = start
    for t, ut in enumerate(u):
        s = bisect.bisect_right(rows[s], ut)
        out[t] = s
    return np.asarray(out, dtype=np.int64)


# --------------------------------------------------------------------------- model machines
def curie_weiss_couplings(n: int, J0: float = 1.0) -> np.ndarray:
    """All-to-all ferromagnet J_ij = J0 / N (two basins, all +1 and all -1, for beta J0 > 1).

    Parameters
    ----------
    n : int >= 2
    J0 : float > 0

    Returns
    -------
    J : ndarray, shape (n, n), zero diagonal
    """
    n = check_positive_int(n, "n", maximum=4096)
    J0 = float(check_finite(J0, "J0"))
    J = np.full((n, n), J0 / n)
    np.fill_diagonal(J, 0.0)
    return J


def spin_glass_couplings(n: int, *, scale: float = 1.0, rng) -> np.ndarray:
    """Sherrington-Kirkpatrick couplings J_ij ~ Normal(0, scale^2 / N), symmetric.

    Parameters
    ----------
    n : int >= 2
    scale : float > 0
    rng : numpy.random.Generator

    Returns
    -------
    J : ndarray, shape (n, n), zero diagonal
    """
    n = check_positive_int(n, "n", maximum=4096)
    scale = float(check_finite(scale, "scale"))
    rng = check_rng(rng)
    G = rng.normal(0.0, scale / np.sqrt(n), size=(n, n))
    J = np.triu(G, 1)
    return J + J.T
