"""Maximum-likelihood learning of the fully visible Boltzmann machine (notebook 03).

Parameters are a dict ``{"J": (N, N) symmetric, zero diagonal, "theta": (N,)}`` of ±1 spins
with the energy of Eq. 5.1 at beta = 1. Notebook 03, Section 2 writes Eq. 5.4 out in plain
numpy and checks :class:`VisibleGradient` against it; the sums over states are those of
:mod:`bmlab.exact`.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_choice,
    check_data,
    check_in_range,
    check_n_states,
    check_positive_int,
    check_rng,
)
from .exact import all_states, boltzmann_probs, exact_moments, log_partition
from .glauber import glauber_sample

#: Ways to compute the negative phase of Eq. 5.4 (see :class:`VisibleGradient`).
VISIBLE_METHODS = ("exact", "glauber", "persistent", "frozen", "data")


def _moments(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return S.mean(axis=0), S.T @ S / S.shape[0]


class VisibleGradient:
    """``gradient(params, rng) -> {"J": (N, N), "theta": (N,)}``: the ascent direction of the
    average log-likelihood, Eq. 5.4, for :func:`bmlab.train`.

    ``"J"`` is symmetric with zero diagonal, so ``J + lr * g["J"]`` stays a valid coupling
    matrix. The exact, frozen and data methods draw nothing and ignore ``rng``; the two
    Glauber methods draw from it and raise a TypeError without it.

    Parameters
    ----------
    S : array_like, shape (D, N), entries ±1, D >= 1
        Training data; the positive phase <s_i s_j>_data, <s_i>_data is computed once.
    method : {"exact", "glauber", "persistent", "frozen", "data"}
        Negative phase: exact enumeration (N <= 24); ``n_chains`` Glauber chains run for
        ``k`` sequential sweeps from random starts at every call, or continued from the
        previous call's states (persistent); frozen at J = 0, theta = 0 (the trap of
        Section 5.5: a constant direction); or the data moments themselves (gradient zero).
    n_chains, k : int >= 1

    Attributes
    ----------
    chains : ndarray, shape (n_chains, N), or None
        The Glauber chains' states after the last call (None before the first).
    """

    def __init__(self, S, *, method: str = "exact", n_chains: int = 100, k: int = 1):
        S = check_data(S, "S")
        self.method = check_choice(method, "method", VISIBLE_METHODS)
        self.n_chains = check_positive_int(n_chains, "n_chains", maximum=10**6)
        self.k = check_positive_int(k, "k", maximum=10**5)
        self.m_data, self.C_data = _moments(S)
        self.chains = None

    def _ascent(self, m: np.ndarray, C: np.ndarray) -> dict:
        G = self.C_data - C
        G = 0.5 * (G + G.T)  # exactly symmetric whatever the summation order
        np.fill_diagonal(G, 0.0)
        return {"J": G, "theta": self.m_data - m}

    def __call__(self, params, rng=None) -> dict:
        method = self.method
        if method == "exact":
            return self._ascent(*exact_moments(params["J"], params["theta"]))
        if method == "frozen":
            return self._ascent(np.zeros_like(self.m_data), np.eye(self.m_data.size))
        if method == "data":
            return self._ascent(self.m_data, self.C_data)
        rng = check_rng(rng, f"VisibleGradient(method={method!r})")
        chains = self.chains
        init = chains if method == "persistent" and chains is not None else "random"
        self.chains = glauber_sample(
            params["J"],
            params["theta"],
            n_chains=self.n_chains,
            n_sweeps=self.k,
            init=init,
            rng=rng,
        )
        return self._ascent(*_moments(self.chains))


def visible_log_likelihood(params, S) -> float:
    """Exact average log-likelihood L = <-E(s)>_data - log Z in nats (N <= 32).

    Parameters
    ----------
    params : dict {"J": (N, N), "theta": (N,)}
    S : array_like, shape (D, N), entries ±1
    """
    J, theta = params["J"], params["theta"]
    m, C = _moments(check_data(S, "S"))
    return float(theta @ m + 0.5 * np.sum(J * C) - log_partition(J, theta))


def visible_newton_fit(
    S, *, weight_decay: float = 0.0, tol: float = 1e-10, max_steps: int = 100
) -> dict:
    """Maximum-likelihood parameters by damped Newton steps from J = 0, theta = 0.

    In the free coordinates u = (J_ij for i < j, theta_i) the sufficient statistics are
    phi(s) = (s_i s_j, s_i), the gradient is <phi>_data - <phi>_model and the Hessian is
    minus the model covariance of phi (notebook 03, Section 4). Far from the optimum the
    model is nearly deterministic and the Newton step huge: it is shortened so that no
    coordinate moves by more than 1, then halved until the objective does not fall.

    Parameters
    ----------
    S : array_like, shape (D, N), entries ±1, N <= 12
    weight_decay : float >= 0
        Maximise L - weight_decay/2 sum_{i<j} J_ij**2, as ``train(weight_decay=...)`` does.
    tol : float
        Stop when the norm of the gradient in u is below ``tol``.
    max_steps : int

    Returns
    -------
    dict {"J": (N, N), "theta": (N,)}
    """
    S = check_data(S, "S")
    n = check_n_states(S.shape[1], 12, "N", " (the Newton fit builds a 2**N x P table)")
    weight_decay = check_in_range(weight_decay, "weight_decay", 0.0, 1e6)
    iu = np.triu_indices(n, 1)
    s = all_states(n).astype(float)
    phi = np.concatenate([s[:, iu[0]] * s[:, iu[1]], s], axis=1)
    phi_data = np.concatenate([S[:, iu[0]] * S[:, iu[1]], S], axis=1).mean(axis=0)
    decay = np.concatenate([np.full(len(iu[0]), weight_decay), np.zeros(n)])

    def unpack(u):
        J = np.zeros((n, n))
        J[iu] = u[: len(iu[0])]
        return {"J": J + J.T, "theta": u[len(iu[0]) :].copy()}

    def objective(u):
        return visible_log_likelihood(unpack(u), S) - 0.5 * decay @ u**2

    u = np.zeros(phi.shape[1])
    for _ in range(max_steps):
        params = unpack(u)
        p = boltzmann_probs(params["J"], params["theta"])
        X = phi - p @ phi
        g = phi_data - p @ phi - decay * u
        if np.linalg.norm(g) < tol:
            break
        H = -(X.T @ (X * p[:, None])) - np.diag(decay)
        du = np.linalg.solve(H, -g)
        f0 = objective(u)
        t = min(1.0, 1.0 / np.abs(du).max())  # damping: no coordinate moves by more than 1
        while objective(u + t * du) < f0 and t > 1e-12:
            t /= 2
        u = u + t * du
    return unpack(u)
