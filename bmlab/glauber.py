"""Glauber (heat-bath) dynamics for the fully visible Boltzmann machine (±1 spins).

One single-site update redraws spin k from its two-state Boltzmann law in the local field
h_k = sum_j J_kj s_j + theta_k of the others (Section 5.3):

    p(s_k = +1 | rest) = sigma(2 beta h_k),

equivalently, the flip s_k -> -s_k is accepted with probability 1 / (1 + exp(beta dE)),
Eq. 5.2. A *sweep* is N single-site updates: sites 0..N-1 in turn (``order="sequential"``)
or N sites drawn uniformly at random (``order="random"``, the dynamics of
:func:`glauber_transition_matrix`).

Every chain runs in parallel: the state of all chains is one (N, n_chains) array, and each
site update touches a whole row of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._checks import (
    check_beta,
    check_choice,
    check_couplings,
    check_positive_int,
    check_rng,
    check_spins,
    check_theta,
)
from .exact import _energy, codes_to_states, state_codes

#: Largest N for the exact transition matrix (2**12 x 2**12 doubles = 128 MB).
N_MAX_TRANSITION = 12
_ORDERS = ("sequential", "random")
_BLOCK_ELEMENTS = 1 << 20  # random numbers drawn per block of sweeps (8 MB)


def glauber_transition_matrix(J, theta=None, beta=1.0) -> np.ndarray:
    """Exact one-step matrix of random-site heat-bath dynamics (Eq. 5.2).

    One step picks a site k uniformly at random and flips it with probability
    w = 1 / (1 + exp(beta dE_k)).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 12
    theta : array_like, shape (N,), optional
    beta : float >= 0

    Returns
    -------
    T : ndarray, shape (2**N, 2**N)
        ``T[s, s']`` is the probability of moving from state s to s' in one single-site
        update, states in :func:`bmlab.all_states` order. Rows sum to 1.
    """
    J = check_couplings(J, n_max=N_MAX_TRANSITION, why=" (the matrix has 4**N entries)")
    n = J.shape[0]
    theta = check_theta(theta, n)
    beta = check_beta(beta)
    codes = np.arange(2**n)
    S = codes_to_states(codes, n)
    dE = 2.0 * S * (S @ J + theta)  # cost of flipping each spin, shape (2**N, N)
    w = expit(-beta * dE) / n  # 1 / (1 + e^{beta dE}), site chosen with prob 1/N
    T = np.zeros((2**n, 2**n))
    flipped = codes[:, None] ^ (1 << np.arange(n))
    np.put_along_axis(T, flipped, w, axis=1)
    T[codes, codes] = 1.0 - w.sum(axis=1)
    return T


def heat_bath_probability(h, beta=1.0) -> np.ndarray:
    """p(s_k = +1 | rest) = sigma(2 beta h_k), stable for any field.

    Parameters
    ----------
    h : array_like
        Local fields.
    beta : float >= 0

    Returns
    -------
    ndarray, same shape as ``h``
    """
    return expit(2.0 * check_beta(beta) * np.asarray(h, dtype=float))


def flip_probability(dE, beta=1.0) -> np.ndarray:
    """Eq. 5.2: probability 1 / (1 + exp(beta dE)) that a flip costing dE is accepted.

    Parameters
    ----------
    dE : array_like
        Energy change of the proposed flip.
    beta : float >= 0, or ``np.inf`` for the zero-temperature limit
        At ``beta = inf`` the rule is deterministic: 1 downhill, 0 uphill, 1/2 at dE = 0.

    Returns
    -------
    ndarray, same shape as ``dE``
    """
    dE = np.asarray(dE, dtype=float)
    if beta == np.inf:
        return 0.5 * (1.0 - np.sign(dE))
    return expit(-check_beta(beta) * dE)


@dataclass(frozen=True)
class GlauberRun:
    """States recorded along Glauber chains.

    Attributes
    ----------
    states : ndarray of int8, shape (n_records, n_chains, N)
        ±1 states at each recording time.
    sweeps : ndarray, shape (n_records,)
        Time of each record in sweeps (N single-site updates = 1 sweep).
    """

    states: np.ndarray
    sweeps: np.ndarray

    @property
    def codes(self) -> np.ndarray:
        """State codes (``all_states`` order), shape (n_records, n_chains); N <= 62."""
        return state_codes(self.states)

    def visit_frequencies(self) -> np.ndarray:
        """Fraction of records spent in each of the 2**N states, pooled over chains.

        Returns
        -------
        ndarray, shape (2**N,)
        """
        n = self.states.shape[-1]
        if n > 24:
            raise ValueError(f"visit_frequencies needs N <= 24 spins, got N = {n}")
        counts = np.bincount(self.codes.ravel(), minlength=2**n)
        return counts / counts.sum()

    def running_mean(self, values) -> np.ndarray:
        """Running time average of an observable along each chain.

        Parameters
        ----------
        values : ndarray, shape (n_records, n_chains)
            Observable evaluated on ``states`` (e.g. ``run.pair(0, 1)``).

        Returns
        -------
        ndarray, shape (n_records, n_chains)
            Mean over records 0..t for every t.
        """
        values = np.asarray(values, dtype=float)
        return np.cumsum(values, axis=0) / np.arange(1, values.shape[0] + 1)[:, None]

    def pair(self, i: int, j: int) -> np.ndarray:
        """The product s_i s_j at every record, shape (n_records, n_chains)."""
        return self.states[..., i].astype(float) * self.states[..., j]

    def energies(self, J, theta=None) -> np.ndarray:
        """Energy (Eq. 5.1) of every recorded state, shape (n_records, n_chains)."""
        J = check_couplings(J)
        theta = check_theta(theta, J.shape[0])
        flat = self.states.reshape(-1, self.states.shape[-1]).astype(float)
        return _energy(flat, J, theta).reshape(self.states.shape[:2])


def _initial_states(init, n: int, n_chains: int, rng: np.random.Generator) -> np.ndarray:
    """Initial spins as a float (N, n_chains) array (chains along the second axis)."""
    if init is None:
        return np.ones((n, n_chains))
    if isinstance(init, str):
        check_choice(init, "init", ("random",))
        return rng.choice(np.array([-1.0, 1.0]), size=(n, n_chains))
    S0 = check_spins(init, n, name="init")
    if S0.ndim == 1:
        return np.repeat(S0[:, None], n_chains, axis=1)
    if S0.shape[0] != n_chains:
        raise ValueError(
            f"init must have shape ({n},) or (n_chains={n_chains}, {n}), got {S0.shape}"
        )
    return np.ascontiguousarray(S0.T)


def _run_sweeps(S, J, theta, beta, order, rng, n_sweeps, on_update=None, on_sweep=None):
    """Run ``n_sweeps`` sweeps of heat-bath updates on all chains, in place.

    ``S`` is (N, n_chains). Spin k becomes +1 with probability sigma(2 beta h_k), i.e. when a
    uniform u satisfies u < sigma(2 beta h_k), which is

        exp(-2 beta h_k) < 1/u - 1 .

    The right-hand sides (and the random sites) are drawn for blocks of sweeps at once, so a
    single-site update is one dot product, one exp and one comparison over all chains; exp
    overflow to inf gives the correct -1. ``on_update`` is called after every single-site
    update and ``on_sweep`` after every sweep, when given.
    """
    n, n_chains = S.shape
    per_block = max(1, min(n_sweeps, _BLOCK_ELEMENTS // (n * n_chains)))
    chains = np.arange(n_chains)
    Jb, tb = -2.0 * beta * J, -2.0 * beta * theta
    done = 0
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        while done < n_sweeps:
            steps = n * min(per_block, n_sweeps - done)
            threshold = rng.random((steps, n_chains))
            np.reciprocal(threshold, out=threshold)
            threshold -= 1.0
            if order == "sequential":
                sites = np.arange(steps) % n
            else:
                sites = rng.integers(n, size=(steps, n_chains))
            for t in range(steps):
                k = sites[t]
                if order == "sequential":
                    e = Jb[k] @ S
                    e += tb[k]
                    np.exp(e, out=e)
                    S[k] = np.where(e < threshold[t], 1.0, -1.0)
                else:
                    e = np.exp(np.einsum("cj,jc->c", Jb[k], S) + tb[k])
                    S[k, chains] = np.where(e < threshold[t], 1.0, -1.0)
                if on_update is not None:
                    on_update()
                if on_sweep is not None and (t + 1) % n == 0:
                    on_sweep()
            done += steps // n


def _prepare(J, theta, beta, n_chains, n_sweeps, init, order, rng):
    J = check_couplings(J)
    n = J.shape[0]
    theta = check_theta(theta, n)
    beta = check_beta(beta)
    n_chains = check_positive_int(n_chains, "n_chains", maximum=10**7)
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps", maximum=10**8)
    if n * n_chains > 10**8:
        raise ValueError(
            f"n_chains * N = {n_chains * n} spins is too many to hold at once (limit 1e8)"
        )
    order = check_choice(order, "order", _ORDERS)
    rng = check_rng(rng)
    S = _initial_states(init, n, n_chains, rng)
    return J, theta, beta, n_chains, n_sweeps, order, rng, S


def glauber_sample(
    J, theta=None, *, beta=1.0, n_chains=1, n_sweeps=1, init=None, order="sequential", rng=None
) -> np.ndarray:
    """Run independent heat-bath chains in parallel and return their final states.

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal
    theta : array_like, shape (N,), optional
    beta : float >= 0
    n_chains : int
        Number of independent chains, updated together.
    n_sweeps : int
        Sweeps per chain (one sweep = N single-site updates).
    init : None, "random" or array_like of ±1, shape (N,) or (n_chains, N)
        ``None`` starts every chain at all +1 (the lecture's start).
    order : {"sequential", "random"}
        Sites 0..N-1 in turn, or a uniformly random site at every update.
    rng : numpy.random.Generator

    Returns
    -------
    S : ndarray of float64, shape (n_chains, N), entries ±1
    """
    J, theta, beta, n_chains, n_sweeps, order, rng, S = _prepare(
        J, theta, beta, n_chains, n_sweeps, init, order, rng
    )
    _run_sweeps(S, J, theta, beta, order, rng, n_sweeps)
    return np.ascontiguousarray(S.T)


def glauber_run(
    J,
    theta=None,
    *,
    beta=1.0,
    n_chains=1,
    n_sweeps=1,
    init=None,
    order="random",
    record_every=1,
    record_unit="update",
    rng=None,
) -> GlauberRun:
    """Heat-bath chains with the states recorded along the way.

    Same dynamics and parameters as :func:`glauber_sample`; in addition the states of all
    chains are recorded every ``record_every`` single-site updates (``record_unit="update"``)
    or sweeps (``record_unit="sweep"``). The default ``order="random"`` is the random-site
    chain of the lecture's Figure 5.3.

    Returns
    -------
    GlauberRun
        ``states`` of shape (n_records, n_chains, N) and ``sweeps`` of shape (n_records,).
        The initial state is not recorded.
    """
    J, theta, beta, n_chains, n_sweeps, order, rng, S = _prepare(
        J, theta, beta, n_chains, n_sweeps, init, order, rng
    )
    record_unit = check_choice(record_unit, "record_unit", ("update", "sweep"))
    record_every = check_positive_int(record_every, "record_every")
    n = J.shape[0]
    per_sweep = n if record_unit == "update" else 1
    n_records = (n_sweeps * per_sweep) // record_every
    if n_records * n_chains * n > 2 * 10**8:
        raise ValueError(
            f"recording {n_records} times x {n_chains} chains x N={n} spins is too much "
            "memory; increase record_every or use record_unit='sweep'"
        )
    states = np.empty((n_records, n_chains, n), dtype=np.int8)
    counter = {"t": 0, "r": 0}

    def record():
        counter["t"] += 1
        if counter["t"] % record_every == 0 and counter["r"] < n_records:
            states[counter["r"]] = S.T
            counter["r"] += 1

    if record_unit == "update":
        _run_sweeps(S, J, theta, beta, order, rng, n_sweeps, on_update=record)
    else:
        _run_sweeps(S, J, theta, beta, order, rng, n_sweeps, on_sweep=record)
    sweeps = np.arange(1, n_records + 1) * record_every / per_sweep
    return GlauberRun(states=states, sweeps=sweeps)
