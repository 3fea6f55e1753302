"""Glauber (heat-bath) dynamics of the fully visible machine, vectorised over chains (Eq. 5.2).

Notebook 01, Section 2 writes the single-spin update out as a plain loop and checks it against
this module with the same random draws. Here the state of all chains is one (N, n_chains)
array and each single-site update touches one row of it. A *sweep* is N single-site updates:
sites 0..N-1 in turn (``order="sequential"``) or N sites drawn uniformly at random
(``order="random"``, the reversible dynamics of :func:`glauber_transition_matrix`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._checks import (
    check_beta,
    check_betas,
    check_choice,
    check_couplings,
    check_positive_int,
    check_rng,
    check_spins,
    check_theta,
)
from ._kernels import _energy, _transition_matrix
from .exact import state_codes

_N_MAX_TRANSITION = 12  # the matrix has 4**N entries: 128 MB at N = 12
_BLOCK_ELEMENTS = 1 << 20  # uniforms drawn per block of sweeps (8 MB)
_ORDERS = ("sequential", "random")


def glauber_transition_matrix(J, theta=None, beta=1.0) -> np.ndarray:
    """Exact one-update matrix of random-site heat-bath dynamics (Eq. 5.2).

    One update picks a site k uniformly at random and flips it with probability
    1 / (1 + exp(beta dE_k)).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 12
    theta : array_like, shape (N,), optional
    beta : float >= 0

    Returns
    -------
    T : ndarray, shape (2**N, 2**N)
        ``T[s, s']``: probability of moving from state s to s' in one update, states in
        :func:`bmlab.all_states` order. Rows sum to 1.
    """
    J = check_couplings(J, n_max=_N_MAX_TRANSITION, why=" (the matrix has 4**N entries)")
    return _transition_matrix(J, check_theta(theta, J.shape[0]), check_beta(beta))


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


def _run_sweeps(S, J, theta, beta, order, rng, n_sweeps, record=None):
    """Run ``n_sweeps`` sweeps of heat-bath updates on all chains of ``S`` (N, n_chains), in place.

    The speed trick: spin k becomes +1 when a uniform u satisfies u < sigma(2 beta h_k), which
    is ``exp(-2 beta h_k) < 1/u - 1``. The right-hand sides (and the random sites) are drawn for
    a block of sweeps at once, so one update of all chains is one dot product, one exp and one
    comparison; exp overflowing to inf gives the correct -1. For every block the uniforms are
    drawn first, then (``order="random"``) the sites. ``record(t)`` is called after update t.
    ``beta`` is a number, or one per chain, shape (n_chains,), with ``order="sequential"``
    (parallel tempering).
    """
    n, n_chains = S.shape
    per_block = max(1, min(n_sweeps, _BLOCK_ELEMENTS // (n * n_chains)))
    chains = np.arange(n_chains)
    per_chain = np.ndim(beta) == 1  # beta of shape (n_chains,): one temperature per chain
    scale = -2.0 if per_chain else -2.0 * beta  # a per-chain beta multiplies e below
    Jb = scale * J
    tb = scale * theta
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
                    if per_chain:
                        e *= beta
                    np.exp(e, out=e)
                    S[k] = np.where(e < threshold[t], 1.0, -1.0)
                else:
                    e = np.exp(np.einsum("cj,jc->c", Jb[k], S) + tb[k])
                    S[k, chains] = np.where(e < threshold[t], 1.0, -1.0)
                if record is not None:
                    record(done * n + t + 1)
            done += steps // n


class _Chains(NamedTuple):
    """Checked couplings and the chains' start, what every sampler here runs on."""

    J: np.ndarray  # (N, N)
    theta: np.ndarray  # (N,)
    S: np.ndarray  # (N, n_chains) float ±1, updated in place
    n_sweeps: int
    rng: np.random.Generator


def _chains(J, theta, n_chains, n_sweeps, init, rng) -> _Chains:
    J = check_couplings(J)
    n = J.shape[0]
    n_chains = check_positive_int(n_chains, "n_chains", maximum=10**7)
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps", maximum=10**8)
    if n * n_chains > 10**8:
        raise ValueError(
            f"n_chains * N = {n_chains * n} spins is too many to hold at once (limit 1e8)"
        )
    theta, rng = check_theta(theta, n), check_rng(rng, "a Glauber chain")
    return _Chains(J, theta, _initial_states(init, n, n_chains, rng), n_sweeps, rng)


def glauber_sample(
    J, theta=None, *, beta=1.0, n_chains=1, n_sweeps=1, init=None, order="sequential", rng
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
    beta, order = check_beta(beta), check_choice(order, "order", _ORDERS)
    c = _chains(J, theta, n_chains, n_sweeps, init, rng)
    _run_sweeps(c.S, c.J, c.theta, beta, order, c.rng, c.n_sweeps)
    return np.ascontiguousarray(c.S.T)


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
    rng,
) -> GlauberRun:
    """Heat-bath chains with the states recorded along the way.

    Same dynamics, parameters and random draws as :func:`glauber_sample`; in addition the
    states of all chains are recorded every ``record_every`` single-site updates
    (``record_unit="update"``) or sweeps (``record_unit="sweep"``). The default
    ``order="random"`` is the chain of the lecture's Figure 5.3.

    Returns
    -------
    GlauberRun
        ``states`` of shape (n_records, n_chains, N) and ``sweeps`` of shape (n_records,).
        The initial state is not recorded.
    """
    beta, order = check_beta(beta), check_choice(order, "order", _ORDERS)
    record_unit = check_choice(record_unit, "record_unit", ("update", "sweep"))
    record_every = check_positive_int(record_every, "record_every")
    c = _chains(J, theta, n_chains, n_sweeps, init, rng)
    S = c.S
    n, n_chains = S.shape
    every = record_every * (1 if record_unit == "update" else n)  # in single-site updates
    n_records = c.n_sweeps * n // every
    if n_records * n_chains * n > 2 * 10**8:
        raise ValueError(
            f"recording {n_records} times x {n_chains} chains x N={n} spins is too much "
            "memory; increase record_every or use record_unit='sweep'"
        )
    states = np.empty((n_records, n_chains, n), dtype=np.int8)

    def record(t):
        if t % every == 0 and t // every <= n_records:
            states[t // every - 1] = S.T

    _run_sweeps(S, c.J, c.theta, beta, order, c.rng, c.n_sweeps, record)
    return GlauberRun(states=states, sweeps=np.arange(1, n_records + 1) * every / n)


@dataclass(frozen=True)
class TemperingRun:
    """What :func:`parallel_tempering` records.

    Attributes
    ----------
    states : ndarray of int8, shape (n_sweeps, n_chains, N)
        ±1 state of the replica at the largest beta of each chain, after each sweep.
    swap_rates : ndarray, shape (K - 1,)
        Fraction of accepted swaps between the replicas at betas k and k + 1.
    """

    states: np.ndarray
    swap_rates: np.ndarray


def _swap_probability(b_lo, b_hi, E_lo, E_hi):
    """min(1, exp((b_hi - b_lo)(E_hi - E_lo))): accept exchanging two replicas (E of Eq. 5.1)."""
    return np.exp(np.minimum(0.0, (b_hi - b_lo) * (E_hi - E_lo)))


def parallel_tempering(J, theta=None, *, betas, n_sweeps, rng, n_chains=1) -> TemperingRun:
    """Parallel tempering (notebook 01, Section 7c): K replicas per chain, neighbour swaps.

    Every sweep runs one sequential heat-bath sweep of all K * n_chains replicas (random
    starts; the kernel of :func:`glauber_sample` with one beta per replica), then proposes to
    swap the replicas at k, k + 1 for even k, then for odd k, accepted with probability
    min(1, exp((beta_{k+1} - beta_k)(E_{k+1} - E_k))). Draws per sweep: the sweep's uniforms
    (N, K * n_chains), then one uniform per proposed swap (shape (pairs, n_chains)).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal
    theta : array_like, shape (N,), optional
    betas : array_like, shape (K,), K >= 2, positive and increasing
    n_sweeps, n_chains : int
    rng : numpy.random.Generator

    Returns
    -------
    TemperingRun
    """
    betas = check_betas(betas)
    K = betas.size
    C = check_positive_int(n_chains, "n_chains", maximum=10**7)
    J, theta, S, n_sweeps, rng = _chains(J, theta, K * C, n_sweeps, "random", rng)
    cols = np.arange(K * C).reshape(K, C)  # column of S holding replica k of chain c
    beta_cols = np.repeat(betas, C)
    states = np.empty((n_sweeps, C, J.shape[0]), np.int8)
    accepted = np.zeros(K - 1)
    for t in range(n_sweeps):
        _run_sweeps(S, J, theta, beta_cols, "sequential", rng, 1)
        for k in (np.arange(0, K - 1, 2), np.arange(1, K - 1, 2)):
            E = _energy(S.T, J, theta)[cols]  # (K, C)
            swap = rng.random((k.size, C)) < _swap_probability(
                betas[k, None], betas[k + 1, None], E[k], E[k + 1]
            )
            both = np.concatenate([cols[k][swap], cols[k + 1][swap]])
            S[:, both] = S[:, np.roll(both, both.size // 2)]  # exchange the pairs' columns
            accepted[k] += swap.sum(axis=1)
        states[t] = S[:, cols[-1]].T
    return TemperingRun(states, accepted / (n_sweeps * C))
