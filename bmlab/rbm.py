"""The restricted Boltzmann machine (RBM) with {0,1} units, exactly and by contrastive divergence.

Energy ``E(v, h) = -v^T W h - a^T v - b^T h``, ``W`` of shape (n_visible, n_hidden) (Figure 5.4,
right). Notebook 05 derives and writes out in plain numpy everything here: the factorized
conditionals, the free energy, exact log Z by enumerating the *smaller* layer (the oracle that
judges CD-k and PCD-k), and the CD-k / PCD-k updates.

Gradients for :func:`bmlab.learning.train` (params ``{"W", "a", "b"}``, ascent directions of
the mean log-likelihood), each called as ``gradient(params, rng)``: :class:`ExactRBMGradient`
ignores ``rng``, :class:`CDGradient` and :class:`PCDGradient` draw from it. Enumeration
order: code ``c`` has unit ``i`` on iff bit ``i`` of ``c`` is 1 (as in :mod:`bmlab.exact`).
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.special import expit, logsumexp

from ._checks import (
    check_binary,
    check_data,
    check_finite,
    check_in_range,
    check_positive_int,
    check_rng,
    check_theta,
)
from ._kernels import _softplus_sum, codes_to_states
from ._parallel import code_chunks, map_chunks

__all__ = [
    "RBM",
    "CDGradient",
    "ExactRBMGradient",
    "PCDGradient",
]

_N_MAX_ENUM = 26  # largest smaller layer that exact quantities enumerate (2**26 states)
_N_MAX_TABLE = 20  # largest visible layer for RBM.visible_distribution (a number per state)


def _enumeration(W, a, b):
    """``(n, M, c, d)``: enumerate the n units of the smaller layer (states S, own biases c);
    the other layer feels the field S @ M + d and is summed out."""
    if min(W.shape) > _N_MAX_ENUM:
        raise ValueError(
            f"exact quantities enumerate 2**min(n_visible, n_hidden) states; the "
            f"smaller layer has {min(W.shape)} units, at most {_N_MAX_ENUM} allowed"
        )
    if W.shape[1] <= W.shape[0]:
        return W.shape[1], W.T, b, a
    return W.shape[0], W, a, b


def _log_partition(W, a, b) -> float:
    n, M, c, d = _enumeration(W, a, b)

    def part(start, stop):
        S = codes_to_states(np.arange(start, stop), n, binary=True)
        return logsumexp(S @ c + _softplus_sum(S @ M + d))

    return float(logsumexp(map_chunks(part, code_chunks(n, M.shape[1], 1 << 16))))


def _model_moments(W, a, b):
    """<v>, <h>, <v h^T> under the model in one pass over the smaller layer's states: each
    chunk's moments normalised within it, combined with weights exp(lse_chunk - log Z)."""
    n, M, c, d = _enumeration(W, a, b)

    def part(start, stop):
        S = codes_to_states(
            np.arange(start, stop), n, binary=True
        )  # states of the enumerated layer
        X = S @ M + d  # field on the summed-out layer
        lw = S @ c + _softplus_sum(X)
        lse = logsumexp(lw)
        w = np.exp(lw - lse)
        P = expit(X)  # the summed-out layer's conditional means
        return lse, w @ S, w @ P, (w[:, None] * S).T @ P

    parts = map_chunks(part, code_chunks(n, M.shape[1], 1 << 16))
    weights = np.exp(np.array([p[0] for p in parts]) - logsumexp([p[0] for p in parts]))
    ES, EP, ESP = (sum(wc * p[i] for wc, p in zip(weights, parts, strict=True)) for i in (1, 2, 3))
    if M is W:  # S = v, P = E[h | v]
        return ES, EP, ESP
    return EP, ES, ESP.T  # S = h, P = E[v | h]


def _exact_gradient(V, W, a, b) -> dict:
    Ph = expit(V @ W + b)
    Ev, Eh, Evh = _model_moments(W, a, b)
    return {"W": V.T @ Ph / len(V) - Evh, "a": V.mean(axis=0) - Ev, "b": Ph.mean(axis=0) - Eh}


class RBM:
    """An RBM with weights ``W`` (n_visible, n_hidden) and biases ``a`` (n_visible,), ``b``
    (n_hidden,) (default zeros). Methods take one {0,1} state (n_visible,) or a batch
    (m, n_visible) and return a float or an array over the rows accordingly."""

    def __init__(self, W, a=None, b=None):
        W = check_finite(W, "W")
        if W.ndim != 2 or W.size == 0:
            raise ValueError(f"W must have shape (n_visible, n_hidden), got {W.shape}")
        a, b = check_theta(a, W.shape[0], "a"), check_theta(b, W.shape[1], "b")
        self.W, self.a, self.b = W.copy(), a.copy(), b.copy()

    @classmethod
    def random(cls, n_visible: int, n_hidden: int, *, rng, data=None, scale: float = 0.01):
        """Hinton's initialisation: W ~ N(0, scale^2), b = 0, and a = 0 or, given ``data``
        (m, n_visible) {0,1}, the log-odds of its column means clipped to [1e-3, 1 - 1e-3]."""
        n_visible = check_positive_int(n_visible, "n_visible")
        n_hidden = check_positive_int(n_hidden, "n_hidden")
        rng = check_rng(rng, "RBM.random")
        a = np.zeros(n_visible)
        if data is not None:
            p = np.clip(np.mean(check_binary(data, n_visible, "data"), axis=0), 1e-3, 1 - 1e-3)
            a = np.log(p) - np.log1p(-p)
        return cls(rng.normal(0.0, float(scale), (n_visible, n_hidden)), a, np.zeros(n_hidden))

    @classmethod
    def from_params(cls, params) -> RBM:
        """Build from a dict with keys ``"W"``, ``"a"``, ``"b"`` (e.g. ``TrainResult.params``)."""
        return cls(params["W"], params["a"], params["b"])

    @property
    def params(self) -> dict:
        """Copies of the parameters, ``{"W": (n_visible, n_hidden), "a": ..., "b": ...}``."""
        return {"W": self.W.copy(), "a": self.a.copy(), "b": self.b.copy()}

    def _v(self, V, name="V"):
        V = check_binary(V, self.W.shape[0], name)
        return np.atleast_2d(V), V.ndim == 1

    def free_energy(self, V):
        """F(v) = -a^T v - sum_j log(1 + exp(b_j + (v W)_j)), so that p(v) = exp(-F(v)) / Z."""
        V2, one = self._v(V)
        F = -(V2 @ self.a) - _softplus_sum(V2 @ self.W + self.b)
        return float(F[0]) if one else F

    def hidden_probs(self, V) -> np.ndarray:
        """p(h_j = 1 | v), shape (n_hidden,) or (m, n_hidden)."""
        return expit(np.asarray(check_binary(V, self.W.shape[0], "V")) @ self.W + self.b)

    def visible_probs(self, H) -> np.ndarray:
        """p(v_i = 1 | h), shape (n_visible,) or (m, n_visible)."""
        return expit(np.asarray(check_binary(H, self.W.shape[1], "H")) @ self.W.T + self.a)

    def gibbs(self, V, k: int = 1, *, rng) -> np.ndarray:
        """k >= 0 block-Gibbs steps v -> h -> v from each row of ``V`` (one chain per row);
        {0,1} floats of the shape of ``V``."""
        V2, one = self._v(V)
        k = check_in_range(k, "k", 0, 10**9, integer=True)
        rng = check_rng(rng, "RBM.gibbs")
        for _ in range(k):
            H = rng.random((len(V2), self.W.shape[1])) < expit(V2 @ self.W + self.b)
            V2 = (rng.random(V2.shape) < expit(H @ self.W.T + self.a)).astype(float)
        return V2[0] if one else V2

    def sample(self, n: int, *, n_steps: int, rng) -> np.ndarray:
        """``n`` chains of ``n_steps`` block-Gibbs steps from fair coin flips, (n, n_visible)."""
        n = check_positive_int(n, "n")
        rng = check_rng(rng, "RBM.sample")
        return self.gibbs((rng.random((n, self.W.shape[0])) < 0.5).astype(float), n_steps, rng=rng)

    def log_partition(self) -> float:
        """Exact log Z: the larger layer summed out analytically, the smaller one enumerated
        in chunks on all cores (cost 2**min(n_visible, n_hidden) rows of one product)."""
        return _log_partition(self.W, self.a, self.b)

    def log_prob(self, V):
        """Exact log p(v) = -F(v) - log Z (float, or shape (m,) for a batch)."""
        return -self.free_energy(V) - _log_partition(self.W, self.a, self.b)

    def mean_log_likelihood(self, V) -> float:
        """Exact mean log-likelihood (1/m) sum_r log p(v_r) of the rows of ``V``, in nats."""
        return float(np.mean(self.log_prob(V)))

    def visible_distribution(self) -> np.ndarray:
        """Exact p(v) of all 2**n_visible states in code order (n_visible <= 20)."""
        if self.W.shape[0] > _N_MAX_TABLE:
            raise ValueError(
                f"visible_distribution returns 2**n_visible numbers; n_visible "
                f"= {self.W.shape[0]}, at most {_N_MAX_TABLE} allowed"
            )
        return np.exp(
            self.log_prob(
                codes_to_states(np.arange(2 ** self.W.shape[0]), self.W.shape[0], binary=True)
            )
        )

    def exact_gradient(self, V) -> dict:
        """Gradient of the mean log-likelihood of the rows of ``V`` (m, n_visible), Section 5.6:
        ``<v h^T>_clamped - <v h^T>_model`` and the same for the biases, the model phase by
        enumeration; a dict ``{"W", "a", "b"}`` of the parameters' shapes."""
        V2, _ = self._v(V)
        return _exact_gradient(V2, self.W, self.a, self.b)

    def reconstruction_error(self, V) -> float:
        """Mean squared error of the mean-field reconstruction v -> p(h|v) -> p(v|h); what CD
        users monitor, *not* the likelihood (notebook 05, Section 2)."""
        V2, _ = self._v(V)
        return float(np.mean((V2 - expit(expit(V2 @ self.W + self.b) @ self.W.T + self.a)) ** 2))


# ---------------------------------------------------------------------- gradients for train
class ExactRBMGradient:
    """``gradient(params, rng=None)``: the exact gradient on all rows of ``data``
    (m, n_visible), {0,1}; see :meth:`RBM.exact_gradient`. Draws nothing: ``rng`` is ignored."""

    def __init__(self, data):
        self.data = check_data(data, binary=True)

    def __call__(self, params, rng=None) -> dict:
        return _exact_gradient(self.data, params["W"], params["a"], params["b"])


class _Minibatches:
    """The data (m, n_visible) {0,1} and its minibatches: full batch, or the rows shuffled with
    ``rng`` at the start of each epoch and consumed ``batch_size`` at a time."""

    def __init__(self, data, k: int = 1, *, batch_size=None):
        self.data = check_data(data, binary=True)
        m = len(self.data)
        self.batch_size = (
            m if batch_size is None else check_positive_int(batch_size, "batch_size", maximum=m)
        )
        self.k = check_positive_int(k, "k")
        self._epoch = None  # the rows of the current epoch, shuffled
        self._pos = m  # rows of it consumed: none left, so the first batch starts an epoch

    def batch(self, rng) -> np.ndarray:
        """The next minibatch, shape (batch_size, n_visible) (a view: do not modify)."""
        m = len(self.data)
        size = self.batch_size
        if size == m:
            return self.data
        if self._pos + size > m:
            self._epoch = self.data[rng.permutation(m)]
            self._pos = 0
        self._pos += size
        return self._epoch[self._pos - size : self._pos]


@functools.lru_cache(maxsize=16)
def _row_weights(m: int, c: int):  # +1/m (data rows), -1/c (chain rows): a row, a column
    w = np.concatenate([np.full(m, 1.0 / m), np.full(c, -1.0 / c)])
    w.flags.writeable = False
    return w, w[:, None]


def _two_phases(v0, vk, W, b):
    """The estimate <v p(h|v)^T>_{v0} - <v p(h|v)^T>_{vk} (and the biases), and p(h|vk).

    Speed trick: both phases in one product, ``expit(concatenate([v0, vk]) @ W + b)``, the
    rows weighted +1/m (data) and -1/c (chains).
    """
    m = len(v0)
    w, w_col = _row_weights(m, len(vk))
    S = np.concatenate([v0, vk])
    P = expit(S @ W + b)
    Pw = P * w_col
    return {"W": S.T @ Pw, "a": w @ S, "b": Pw.sum(axis=0)}, P[m:]


class CDGradient(_Minibatches):
    """``gradient(params, rng)``: CD-k (Hinton 2002) on ``data`` (m, n_visible) {0,1}, one
    chain per row of each minibatch of ``batch_size`` rows (default all), k >= 1 block-Gibbs
    steps from the data. Hinton's defaults: p(h|v) on the data, sampled h and v in the chain,
    the sampled v_k with p(h|v_k) in the negative phase; uniforms drawn per half-step."""

    def __call__(self, params, rng) -> dict:
        rng = check_rng(rng, "CDGradient")
        W, a, b = params["W"], params["a"], params["b"]
        v0 = vk = self.batch(rng)
        for _ in range(self.k):
            h = rng.random((len(vk), W.shape[1])) < expit(vk @ W + b)
            vk = rng.random(vk.shape) < expit(h @ W.T + a)
        return _two_phases(v0, vk, W, b)[0]


class PCDGradient(_Minibatches):
    """``gradient(params, rng)``: PCD-k (Tieleman 2008), as :class:`CDGradient` but with
    ``n_chains`` (default: the batch size) chains carried over from update to update.

    ``v`` (n_chains, n_visible) and ``h`` (n_chains, n_hidden) are the chains' states, None
    until the first call starts them at random data rows with h ~ p(h|v). An update draws v
    from h, then h from v, k times, the last h from the p(h|v_k) the statistics need anyway
    (as scikit-learn does). After assigning ``v``, set ``h = None`` to draw fresh h.
    """

    def __init__(self, data, k: int = 1, *, n_chains=None, batch_size=None):
        super().__init__(data, k, batch_size=batch_size)
        self.n_chains = (
            self.batch_size if n_chains is None else check_positive_int(n_chains, "n_chains")
        )
        self.v = self.h = None

    def __call__(self, params, rng) -> dict:
        rng = check_rng(rng, "PCDGradient")
        W, a, b = params["W"], params["a"], params["b"]
        v0 = self.batch(rng)
        if self.v is None:
            self.v = self.data[rng.integers(0, len(self.data), self.n_chains)]
        if self.h is None or self.h.shape[1] != W.shape[1]:  # new chains or a new hidden layer
            self.h = rng.random((self.n_chains, W.shape[1])) < expit(self.v @ W + b)
        v = self.v
        h = self.h
        for step in range(self.k):
            v = rng.random(v.shape) < expit(h @ W.T + a)
            if step < self.k - 1:
                h = rng.random(h.shape) < expit(v @ W + b)
        grad, Ph = _two_phases(v0, v, W, b)
        self.v = v
        self.h = rng.random(Ph.shape) < Ph
        return grad
