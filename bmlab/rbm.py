"""The restricted Boltzmann machine (RBM) with {0,1} units, exactly and by contrastive divergence.

The energy of a visible configuration ``v`` (length ``n_visible``) and a hidden one ``h``
(length ``n_hidden``), all entries 0 or 1, is

    E(v, h) = - v^T W h - a^T v - b^T h ,      W of shape (n_visible, n_hidden),

and p(v, h) = exp(-E(v, h)) / Z. There are no couplings inside a layer (Figure 5.4, right),
so given one layer the units of the other are independent:

    p(h_j = 1 | v) = expit(b_j + (v W)_j),      p(v_i = 1 | h) = expit(a_i + (W h)_i).

Summing out the hidden layer analytically gives the free energy
F(v) = -a^T v - sum_j log(1 + exp(b_j + (v W)_j)) and p(v) = exp(-F(v)) / Z. The partition
function needs a sum over one layer only, so :meth:`RBM.log_partition` enumerates the
*smaller* layer -- exact for the machines of notebook 05 (64 visible x 20 hidden in about a
second) and the oracle against which CD-k and PCD-k are judged.

Gradient estimators (all plug into :func:`bmlab.learning.train` with params
``{"W", "a", "b"}``; they return the ascent direction of the mean log-likelihood):

* :class:`ExactGradient` -- the positive phase on the data (Section 5.6), the negative phase
  by enumeration.
* :class:`ContrastiveDivergence` -- CD-k (Hinton 2002): chains start at the data batch.
* :class:`PersistentCD` -- PCD-k (Tieleman 2008): chains continue from the previous update.

Defaults follow Hinton's practical guide (2010): the positive phase uses the hidden
*probabilities* p(h|v); inside the chain both layers are *sampled* binary states; the final
statistics use the sampled visible state v_k and the hidden probabilities p(h|v_k) (which
keeps the expectation of the estimate equal to that of the sampled version). Initialisation
(:meth:`RBM.random`): W ~ N(0, 0.01^2), visible biases at the data's log-odds, hidden
biases 0.

State order for enumerations: code ``c`` has unit ``i`` equal to 1 iff bit ``i`` of ``c``
is 1.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit, logsumexp

from ._checks import check_binary, check_finite, check_positive_int, check_rng
from ._parallel import code_chunks, map_chunks

__all__ = [
    "RBM",
    "ContrastiveDivergence",
    "ExactGradient",
    "PersistentCD",
    "cd_expected_gradient",
    "gibbs_transition_matrix",
    "make_estimator",
]

#: Largest smaller layer that :meth:`RBM.log_partition` and friends enumerate (2**26 states).
N_MAX_ENUM = 26
#: Largest visible layer for functions that return one number per visible state.
N_MAX_TABLE = 20
#: Largest n_visible + n_hidden for the visible-to-visible Gibbs transition matrix.
N_MAX_TRANSITION = 24
_CHUNK_ELEMENTS = 1 << 16  # 512 kB of float64 per chunk: stays in cache, memory bounded
#: Clip of the data means before taking log-odds (keeps always-off pixels finite).
LOG_ODDS_CLIP = 1e-3


def softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + exp(x)) without overflow, elementwise."""
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def _sum_softplus(X: np.ndarray) -> np.ndarray:
    """Row sums of softplus(X) for X of shape (r, n), shape (r,).

    Uses softplus(x) = max(x, 0) + log(1 + exp(-|x|)) and takes the logarithm of the
    *product* of the factors 1 + exp(-|x|), each in (1, 2]: one log per row instead of one per
    entry, and no overflow for blocks of up to 512 columns.
    """
    out = np.maximum(X, 0.0).sum(axis=1)
    for start in range(0, X.shape[1], 512):
        T = np.abs(X[:, start : start + 512])
        np.negative(T, out=T)
        np.exp(T, out=T)
        T += 1.0
        out += np.log(T.prod(axis=1))
    return out


def _bits(start: int, stop: int, n: int) -> np.ndarray:
    """{0,1} states with codes ``start .. stop-1``, shape (stop - start, n), float64."""
    codes = np.arange(start, stop, dtype=np.int64)
    return ((codes[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(float)


def _chunks(n: int, width: int):
    return code_chunks(n, width, elements=_CHUNK_ELEMENTS)


def _sample(P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli draws with probabilities ``P`` (any shape), as float {0,1}."""
    return (rng.random(P.shape) < P).astype(float)


class RBM:
    """A restricted Boltzmann machine with {0,1} visible and hidden units.

    Parameters
    ----------
    W : array_like, shape (n_visible, n_hidden)
        Visible-hidden weights.
    a : array_like, shape (n_visible,), optional
        Visible biases (default zeros).
    b : array_like, shape (n_hidden,), optional
        Hidden biases (default zeros).

    Notes
    -----
    Every method that takes visible states accepts one state of shape (n_visible,) or a batch
    of shape (m, n_visible) with entries 0 or 1, and raises ``ValueError`` otherwise.
    """

    def __init__(self, W, a=None, b=None):
        W = check_finite(W, "W")
        if W.ndim != 2 or W.shape[0] < 1 or W.shape[1] < 1:
            raise ValueError(f"W must have shape (n_visible, n_hidden), got {W.shape}")
        n_v, n_h = W.shape
        a = np.zeros(n_v) if a is None else check_finite(a, "a")
        b = np.zeros(n_h) if b is None else check_finite(b, "b")
        if a.shape != (n_v,):
            raise ValueError(f"a must have shape ({n_v},) = (n_visible,), got {a.shape}")
        if b.shape != (n_h,):
            raise ValueError(f"b must have shape ({n_h},) = (n_hidden,), got {b.shape}")
        self.W, self.a, self.b = W.copy(), a.copy(), b.copy()

    # ------------------------------------------------------------------ construction
    @classmethod
    def random(cls, n_visible: int, n_hidden: int, *, rng, data=None, scale: float = 0.01):
        """Hinton's initialisation: W ~ N(0, scale^2), a at the data log-odds, b = 0.

        Parameters
        ----------
        n_visible, n_hidden : int
        rng : numpy.random.Generator
        data : array_like, shape (m, n_visible), {0,1}, optional
            If given, ``a_i = log(p_i / (1 - p_i))`` with ``p_i`` the fraction of rows with
            ``v_i = 1``, clipped to [1e-3, 1 - 1e-3]; otherwise ``a = 0``.
        scale : float >= 0
            Standard deviation of the initial weights.
        """
        n_visible = check_positive_int(n_visible, "n_visible")
        n_hidden = check_positive_int(n_hidden, "n_hidden")
        rng = check_rng(rng)
        scale = float(check_finite(scale, "scale"))
        if scale < 0:
            raise ValueError(f"scale must be >= 0, got {scale}")
        a = np.zeros(n_visible)
        if data is not None:
            data = check_binary(data, n_visible, "data")
            a = log_odds(data)
        return cls(rng.normal(0.0, scale, (n_visible, n_hidden)), a, np.zeros(n_hidden))

    @classmethod
    def from_params(cls, params) -> RBM:
        """Build from a dict with keys ``"W"``, ``"a"``, ``"b"`` (e.g. ``TrainResult.params``)."""
        missing = {"W", "a", "b"} - set(params)
        if missing:
            raise ValueError(f"params must have keys 'W', 'a', 'b'; missing {sorted(missing)}")
        return cls(params["W"], params["a"], params["b"])

    @property
    def params(self) -> dict:
        """Copies of the parameters as ``{"W": (n_visible, n_hidden), "a": ..., "b": ...}``."""
        return {"W": self.W.copy(), "a": self.a.copy(), "b": self.b.copy()}

    @property
    def n_visible(self) -> int:
        return self.W.shape[0]

    @property
    def n_hidden(self) -> int:
        return self.W.shape[1]

    def __repr__(self) -> str:
        return f"RBM(n_visible={self.n_visible}, n_hidden={self.n_hidden})"

    # ------------------------------------------------------------------ validation
    def _v(self, V, name="V"):
        V = check_binary(V, self.n_visible, name)
        return np.atleast_2d(V), V.ndim == 1

    def _h(self, H, name="H"):
        H = check_binary(H, self.n_hidden, name)
        return np.atleast_2d(H), H.ndim == 1

    def _check_enumerable(self, what="log_partition"):
        small = min(self.n_visible, self.n_hidden)
        if small > N_MAX_ENUM:
            raise ValueError(
                f"{what} enumerates 2**min(n_visible, n_hidden) states; the smaller layer has "
                f"{small} units but at most {N_MAX_ENUM} are allowed"
            )

    # ------------------------------------------------------------------ energies
    def energy(self, V, H) -> np.ndarray | float:
        """E(v, h) = -v^T W h - a^T v - b^T h.

        Parameters
        ----------
        V : array_like, shape (n_visible,) or (m, n_visible), {0,1}
        H : array_like, shape (n_hidden,) or (m, n_hidden), {0,1}

        Returns
        -------
        float for one pair, ndarray of shape (m,) for a batch
        """
        V2, one_v = self._v(V)
        H2, one_h = self._h(H)
        if V2.shape[0] != H2.shape[0]:
            raise ValueError(f"V and H must have the same number of rows, got "
                             f"{V2.shape[0]} and {H2.shape[0]}")
        E = -np.einsum("mi,ij,mj->m", V2, self.W, H2) - V2 @ self.a - H2 @ self.b
        return float(E[0]) if (one_v and one_h) else E

    def free_energy(self, V) -> np.ndarray | float:
        """F(v) = -a^T v - sum_j log(1 + exp(b_j + (v W)_j)), so that p(v) = exp(-F(v)) / Z.

        Parameters
        ----------
        V : array_like, shape (n_visible,) or (m, n_visible), {0,1}

        Returns
        -------
        float for one state, ndarray of shape (m,) for a batch
        """
        V2, one = self._v(V)
        F = _free_energy(V2, self.W, self.a, self.b)
        return float(F[0]) if one else F

    # ------------------------------------------------------------------ conditionals
    def hidden_probs(self, V) -> np.ndarray:
        """p(h_j = 1 | v) = expit(b_j + (v W)_j), shape (n_hidden,) or (m, n_hidden)."""
        V2, one = self._v(V)
        P = expit(V2 @ self.W + self.b)
        return P[0] if one else P

    def visible_probs(self, H) -> np.ndarray:
        """p(v_i = 1 | h) = expit(a_i + (W h)_i), shape (n_visible,) or (m, n_visible)."""
        H2, one = self._h(H)
        P = expit(H2 @ self.W.T + self.a)
        return P[0] if one else P

    def sample_hidden(self, V, *, rng) -> np.ndarray:
        """Draw h ~ p(h | v) for every row, all hidden units at once; {0,1} floats."""
        rng = check_rng(rng)
        return _sample(self.hidden_probs(V), rng)

    def sample_visible(self, H, *, rng) -> np.ndarray:
        """Draw v ~ p(v | h) for every row, all visible units at once; {0,1} floats."""
        rng = check_rng(rng)
        return _sample(self.visible_probs(H), rng)

    def gibbs(self, V, k: int = 1, *, rng, return_hidden: bool = False):
        """k steps of block Gibbs sampling v -> h -> v, vectorised over the rows (chains).

        Parameters
        ----------
        V : array_like, shape (m, n_visible) or (n_visible,), {0,1}
            Starting states, one chain per row.
        k : int >= 0
            Number of full steps (k = 0 returns the input).
        rng : numpy.random.Generator
        return_hidden : bool
            Also return the hidden state sampled in the last step (from the last-but-one v).

        Returns
        -------
        V_k : ndarray, same shape as ``V``, {0,1}
        H : ndarray, shape (m, n_hidden) or (n_hidden,), only if ``return_hidden``
        """
        V2, one = self._v(V)
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
            raise ValueError(f"k must be an integer >= 0, got {k!r}")
        rng = check_rng(rng)
        Vk, H = _gibbs(V2, int(k), self.W, self.a, self.b, rng)
        if H is None:
            H = _sample(expit(V2 @ self.W + self.b), rng)
        if one:
            Vk, H = Vk[0], H[0]
        return (Vk, H) if return_hidden else Vk

    def sample(self, n: int, *, n_steps: int, rng, V0=None) -> np.ndarray:
        """``n`` chains of ``n_steps`` block-Gibbs steps, started from noise or from ``V0``.

        Parameters
        ----------
        n : int
            Number of independent chains (ignored when ``V0`` is given).
        n_steps : int >= 0
        rng : numpy.random.Generator
        V0 : array_like, shape (m, n_visible), {0,1}, optional
            Starting states; default independent fair coins.

        Returns
        -------
        ndarray, shape (n, n_visible) (or (m, n_visible)), {0,1}
        """
        rng = check_rng(rng)
        if V0 is None:
            n = check_positive_int(n, "n")
            V0 = (rng.random((n, self.n_visible)) < 0.5).astype(float)
        V2, _ = self._v(V0, "V0")
        return self.gibbs(V2, n_steps, rng=rng)

    # ------------------------------------------------------------------ exact quantities
    def log_partition(self) -> float:
        """Exact log Z, summing the larger layer analytically and enumerating the smaller.

        With ``n = min(n_visible, n_hidden)`` the cost is 2**n states times one matrix
        product; chunks of states are processed on all cores and memory stays below
        ~100 MB (64 visible x 20 hidden: about a second).

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If the smaller layer has more than ``N_MAX_ENUM`` units.
        """
        self._check_enumerable()
        return _log_partition(self.W, self.a, self.b)

    def log_prob(self, V) -> np.ndarray | float:
        """Exact log p(v) = -F(v) - log Z per row.

        Parameters
        ----------
        V : array_like, shape (n_visible,) or (m, n_visible), {0,1}

        Returns
        -------
        float for one state, ndarray of shape (m,) for a batch
        """
        V2, one = self._v(V)
        self._check_enumerable("log_prob")
        out = -_free_energy(V2, self.W, self.a, self.b) - _log_partition(self.W, self.a, self.b)
        return float(out[0]) if one else out

    def mean_log_likelihood(self, V) -> float:
        """Exact average log-likelihood (1/m) sum_r log p(v_r) in nats."""
        return float(np.mean(self.log_prob(np.atleast_2d(check_binary(V, self.n_visible, "V")))))

    def visible_distribution(self) -> np.ndarray:
        """p(v) of all 2**n_visible visible states in code order, shape (2**n_visible,)."""
        if self.n_visible > N_MAX_TABLE:
            raise ValueError(f"visible_distribution returns 2**n_visible numbers; n_visible = "
                             f"{self.n_visible} but at most {N_MAX_TABLE} is allowed")
        V = _bits(0, 2**self.n_visible, self.n_visible)
        return np.exp(-_free_energy(V, self.W, self.a, self.b)
                      - _log_partition(self.W, self.a, self.b))

    def sample_exact(self, n: int, *, rng) -> np.ndarray:
        """``n`` independent exact draws v ~ p(v) (n_visible <= 20), shape (n, n_visible)."""
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        p = self.visible_distribution()
        codes = rng.choice(p.size, size=n, p=p / p.sum())
        return ((codes[:, None] >> np.arange(self.n_visible)) & 1).astype(float)

    def model_moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Exact model averages <v>, <h> and <v h^T> by enumerating the smaller layer.

        Returns
        -------
        Ev : ndarray, shape (n_visible,)
        Eh : ndarray, shape (n_hidden,)
        Evh : ndarray, shape (n_visible, n_hidden)
        """
        self._check_enumerable("model_moments")
        return _model_moments(self.W, self.a, self.b)

    def exact_gradient(self, V) -> dict:
        """Gradient of the mean log-likelihood of the rows of ``V`` (Section 5.6).

        <v h^T>_clamped - <v h^T>_model, with the clamped phase one matrix product.

        Parameters
        ----------
        V : array_like, shape (m, n_visible), {0,1}

        Returns
        -------
        dict with ``"W"`` (n_visible, n_hidden), ``"a"`` (n_visible,), ``"b"`` (n_hidden,)
        """
        V2, _ = self._v(V)
        self._check_enumerable("exact_gradient")
        return _exact_gradient(V2, self.W, self.a, self.b)

    def reconstruction_error(self, V) -> float:
        """Mean squared error between ``V`` and its mean-field one-step reconstruction.

        v -> p(h|v) -> p(v|h = p(h|v)); deterministic (no sampling), averaged over all
        entries. This is the quantity CD practitioners monitor; it is *not* the likelihood.
        """
        V2, _ = self._v(V)
        return float(_reconstruction_error(V2, self.W, self.a, self.b))


# ---------------------------------------------------------------------- array kernels
def log_odds(data: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)) of the column means p of {0,1} ``data`` (m, n), clipped to [1e-3, 1-1e-3].

    Returns
    -------
    ndarray, shape (n,)
    """
    p = np.clip(np.mean(data, axis=0), LOG_ODDS_CLIP, 1 - LOG_ODDS_CLIP)
    return np.log(p) - np.log1p(-p)


def _free_energy(V, W, a, b):
    return -(V @ a) - _sum_softplus(V @ W + b)


def _log_partition(W, a, b) -> float:
    n_v, n_h = W.shape
    if n_h <= n_v:  # enumerate hidden states, sum visibles analytically
        n, width = n_h, n_v

        def part(start, stop):
            H = _bits(start, stop, n)
            return logsumexp(H @ b + _sum_softplus(H @ W.T + a))
    else:
        n, width = n_v, n_h

        def part(start, stop):
            V = _bits(start, stop, n)
            return logsumexp(V @ a + _sum_softplus(V @ W + b))
    return float(logsumexp(map_chunks(part, _chunks(n, width))))


def _model_moments(W, a, b):
    """<v>, <h>, <v h^T> under the model, in one pass over the smaller layer.

    Each chunk returns its own log-sum-exp and moments normalised within the chunk; the
    chunks are then combined with weights exp(lse_chunk - log Z).
    """
    n_v, n_h = W.shape
    enum_hidden = n_h <= n_v
    n, width = (n_h, n_v) if enum_hidden else (n_v, n_h)

    def part(start, stop):
        S = _bits(start, stop, n)  # states of the enumerated layer
        X = S @ W.T + a if enum_hidden else S @ W + b  # field on the summed layer
        T = np.exp(-np.abs(X))
        T += 1.0
        lw = (S @ (b if enum_hidden else a) + np.maximum(X, 0.0).sum(axis=1)
              + np.log(T.prod(axis=1)))
        lse = logsumexp(lw)
        w = np.exp(lw - lse)
        P = 1.0 / T  # expit(X) from the same exponentials
        np.copyto(P, 1.0 - P, where=X < 0)
        wS = w[:, None] * S
        if enum_hidden:  # S = h, P = E[v | h]
            return lse, P.T @ wS, w @ P, wS.sum(axis=0)
        return lse, wS.T @ P, wS.sum(axis=0), w @ P  # S = v, P = E[h | v]

    if width > 512:
        raise ValueError(f"model_moments supports layers of at most 512 units, got {width}")
    parts = map_chunks(part, _chunks(n, width))
    lses = np.array([p[0] for p in parts])
    c = np.exp(lses - logsumexp(lses))
    Evh = sum(ci * p[1] for ci, p in zip(c, parts, strict=True))
    Ev = sum(ci * p[2] for ci, p in zip(c, parts, strict=True))
    Eh = sum(ci * p[3] for ci, p in zip(c, parts, strict=True))
    return Ev, Eh, Evh


def _exact_gradient(V, W, a, b):
    Ph = expit(V @ W + b)
    Ev, Eh, Evh = _model_moments(W, a, b)
    m = V.shape[0]
    return {"W": V.T @ Ph / m - Evh, "a": V.mean(axis=0) - Ev, "b": Ph.mean(axis=0) - Eh}


def _gibbs(V, k, W, a, b, rng):
    """k block-Gibbs steps from V (m, n_v); returns (V_k, last sampled H or None).

    The hot path of CD and PCD: intermediate states stay boolean (numpy casts them inside
    the matrix products); only the returned states are converted to float {0,1}.
    """
    H = None
    for _ in range(k):
        H = rng.random((V.shape[0], W.shape[1])) < expit(V @ W + b)
        V = rng.random((V.shape[0], W.shape[0])) < expit(H @ W.T + a)
    if k:
        V, H = V.astype(float), H.astype(float)
    return V, H


def _reconstruction_error(V, W, a, b):
    R = expit(expit(V @ W + b) @ W.T + a)
    return np.mean((V - R) ** 2)


# ---------------------------------------------------------------------- estimators
def _check_params(params, n_visible):
    try:
        W, a, b = params["W"], params["a"], params["b"]
    except (KeyError, TypeError):
        raise ValueError("params must be a dict with keys 'W', 'a', 'b'") from None
    if W.shape[0] != n_visible:
        raise ValueError(f"params['W'] must have {n_visible} rows (the data's n_visible), "
                         f"got shape {np.shape(W)}")
    if W.dtype != np.float64 or a.dtype != np.float64 or b.dtype != np.float64:
        W, a, b = (np.asarray(x, dtype=float) for x in (W, a, b))
    return W, a, b


class _Estimator:
    """Shared part: the data, and minibatches drawn without replacement epoch by epoch."""

    def __init__(self, data, *, batch_size=None):
        data = np.atleast_2d(check_finite(data, "data"))
        if data.ndim != 2 or data.shape[0] < 1:
            raise ValueError(f"data must have shape (m, n_visible), got {data.shape}")
        self.data = check_binary(data, data.shape[1], "data")
        self.n_visible = self.data.shape[1]
        m = self.data.shape[0]
        self.batch_size = m if batch_size is None else check_positive_int(
            batch_size, "batch_size", maximum=m)
        self._shuffled = None  # the data rows in this epoch's order
        self._pos = 0

    def _next_rows(self, rng) -> np.ndarray:
        """The next minibatch as a read-only view (no copy); see :meth:`batch`."""
        m = self.data.shape[0]
        if self.batch_size == m:
            return self.data
        if self._shuffled is None or self._pos + self.batch_size > m:
            self._shuffled = self.data[rng.permutation(m)]
            self._pos = 0
        start = self._pos
        self._pos += self.batch_size
        return self._shuffled[start : self._pos]

    def batch(self, rng) -> np.ndarray:
        """The next minibatch, shape (batch_size, n_visible).

        Full batch when ``batch_size`` is the number of rows; otherwise the rows are shuffled
        with ``rng`` at the start of every epoch and consumed in order.
        """
        rows = self._next_rows(rng)
        return rows if rows is self.data else rows.copy()


class ExactGradient(_Estimator):
    """Exact gradient of the mean log-likelihood: clamped phase on the (mini)batch, model
    phase by enumerating the smaller layer.

    Parameters
    ----------
    data : array_like, shape (m, n_visible), {0,1}
    batch_size : int, optional
        Default: the full data set.

    Call as ``estimator(params, rng) -> grads`` (see :func:`bmlab.learning.train`).
    """

    def __call__(self, params, rng):
        W, a, b = _check_params(params, self.n_visible)
        small = min(np.shape(W))
        if small > N_MAX_ENUM:
            raise ValueError(f"the exact gradient enumerates the smaller layer: {small} units "
                             f"> {N_MAX_ENUM} allowed")
        return _exact_gradient(self.batch(rng), W, a, b)


class _Chains(_Estimator):
    """The CD / PCD hot path, fused for small batches where numpy's per-call cost dominates.

    Per update: one draw of all the uniforms the update needs (the same numbers, in the
    same order, as one draw per Gibbs half-step), the chain states kept in the rows of one
    preallocated matrix ``S = [clamped batch; chain states]``, products written into
    preallocated buffers (``np.dot(..., out=)``, ``expit(..., out=)``), and the gradient from
    one pass over ``S``: rows weighted +1/m (clamped) and -1/c (model),

        grad W = S^T (P * w),   grad a = w S,   grad b = sum of the rows of P * w,

    with ``P = expit(S W + b)``. Buffers are rebuilt when the number of hidden units changes.
    """

    _n_chain_rows: int  # rows of S after the batch
    _visible_first = False  # order of the two half-steps in the uniforms of one Gibbs step
    _bufs = None
    _bufs_hidden = 0  # n_hidden the buffers were built for

    def _buffers(self, n_hidden):
        """(S, P, H, Fv, U, steps, w, w[:, None]) for ``n_hidden`` hidden units.

        ``H`` (chains, n_hidden) holds hidden fields and states, ``Fv`` (chains, n_visible)
        visible fields; ``steps`` has one pair of views of ``U`` per Gibbs step, (hidden,
        visible) uniforms, or (visible, hidden) when ``_visible_first``.
        """
        if self._bufs is not None and self._bufs_hidden == n_hidden:
            return self._bufs
        m, c, n_v, k = self.batch_size, self._n_chain_rows, self.n_visible, self.k
        S = np.zeros((m + c, n_v))
        if self._bufs is not None:  # keep the chain states when the hidden layer changes
            S[m:] = self._bufs[0][m:]
        self._hidden_stale = True  # (PCD) no hidden states for this layer size yet
        w = np.empty(m + c)
        w[:m], w[m:] = 1.0 / m, -1.0 / c
        first, second = (n_v, n_hidden) if self._visible_first else (n_hidden, n_v)
        U = np.empty((k, c * (n_v + n_hidden)))  # row t: the uniforms of Gibbs step t
        steps = tuple((u[: c * first].reshape(c, first), u[c * first :].reshape(c, second))
                      for u in U)
        self._bufs = (S, np.empty((m + c, n_hidden)), np.empty((c, n_hidden)),
                      np.empty((c, n_v)), U, steps, w, w[:, None].copy())
        self._bufs_hidden = n_hidden
        self._full_copied = False
        return self._bufs

    def _clamp(self, W, V):
        """The buffers for ``W``'s hidden layer, with the batch ``V`` in the clamped rows."""
        bufs = self._buffers(W.shape[1])
        m = self.batch_size
        if V is not self.data:
            bufs[0][:m] = V
        elif not self._full_copied:  # full batch: the clamped rows never change
            bufs[0][:m] = V
            self._full_copied = True
        return bufs

    def _gradient(self, S, P, W, b, w, wcol, Uh=None, H=None):
        """The estimate from ``S``; with ``Uh`` and ``H``, also sample the chains' hidden
        units from the probabilities just computed into ``H``."""
        np.dot(S, W, out=P)
        P += b
        expit(P, out=P)
        if H is not None:
            np.less(Uh, P[self.batch_size :], out=H)
        P *= wcol
        return {"W": np.dot(S.T, P), "a": np.dot(w, S), "b": np.add.reduce(P, 0)}


def _sample_layer(src, M, bias, U, field, out):
    """``out`` <- {0,1} states of a layer with fields ``src M + bias`` (computed in ``field``)
    and uniforms ``U``: a unit is on where U < expit(field)."""
    np.dot(src, M, out=field)
    field += bias
    expit(field, out=field)
    np.less(U, field, out=out)


class ContrastiveDivergence(_Chains):
    """CD-k: k block-Gibbs steps started at the data batch (Hinton 2002).

    Parameters
    ----------
    data : array_like, shape (m, n_visible), {0,1}
    k : int >= 1
        Gibbs steps per update.
    batch_size : int, optional
        Rows per update (default: all); one chain per row.

    Notes
    -----
    Positive phase: p(h|v) of the batch. Chain: sampled binary h and v. Negative statistics:
    the sampled v_k and the probabilities p(h|v_k).
    """

    def __init__(self, data, k: int = 1, *, batch_size=None):
        super().__init__(data, batch_size=batch_size)
        self.k = check_positive_int(k, "k")
        self._n_chain_rows = self.batch_size

    def __call__(self, params, rng):
        W, a, b = _check_params(params, self.n_visible)
        S, P, H, Fv, U, steps, w, wcol = self._clamp(W, self._next_rows(rng))
        chain, src = S[self.batch_size :], S[: self.batch_size]
        rng.random(out=U)  # all uniforms of the k steps, in the order they are used
        WT = W.T
        for Uh, Uv in steps:
            _sample_layer(src, W, b, Uh, H, H)
            _sample_layer(H, WT, a, Uv, Fv, chain)
            src = chain
        return self._gradient(S, P, W, b, w, wcol)


class PersistentCD(_Chains):
    """PCD-k (persistent contrastive divergence, Tieleman 2008).

    Parameters
    ----------
    data : array_like, shape (m, n_visible), {0,1}
    k : int >= 1
        Gibbs steps per parameter update.
    n_chains : int, optional
        Number of persistent chains (default: the batch size).
    batch_size : int, optional
        Rows per update (default: all).

    Notes
    -----
    Each chain keeps a visible and a hidden state. The chains are created at the first call
    from ``n_chains`` data rows drawn with the rng (hidden units sampled from them) and then
    only ever continue: each update samples v from h, k times, with h resampled from v in
    between, under the current parameters; the statistics are those of
    :class:`ContrastiveDivergence` at the new v. The chains' next hidden states are then
    drawn from the probabilities p(h|v) the statistics already needed (as scikit-learn's
    ``BernoulliRBM`` does), so an update costs k visible and k - 1 hidden half-steps plus
    the statistics; the last hidden half-step of each update used the parameters of that
    update, one update before the next visible half-step.

    ``self.chains`` (n_chains, n_visible) holds (a copy of) the current visible states,
    ``None`` before the first call; assigning an array of that shape sets them (their hidden
    states are sampled at the next call).
    """

    _visible_first = True

    def __init__(self, data, k: int = 1, *, n_chains=None, batch_size=None):
        super().__init__(data, batch_size=batch_size)
        self.k = check_positive_int(k, "k")
        self.n_chains = self.batch_size if n_chains is None else check_positive_int(
            n_chains, "n_chains")
        self._n_chain_rows = self.n_chains
        self._started = False

    @property
    def chains(self):
        if not self._started:
            return None
        return self._bufs[0][self.batch_size :].copy()

    @chains.setter
    def chains(self, value):
        if value is None:
            self._started = False
            return
        value = np.atleast_2d(check_binary(value, self.n_visible, "chains"))
        if value.shape[0] != self.n_chains:
            raise ValueError(f"chains must have shape ({self.n_chains}, {self.n_visible}), "
                             f"got {value.shape}")
        S = (self._bufs or self._buffers(1))[0]
        S[self.batch_size :] = value
        self._started = True
        self._hidden_stale = True

    def __call__(self, params, rng):
        W, a, b = _check_params(params, self.n_visible)
        V = self._next_rows(rng)
        if not self._started:
            self.chains = self.data[rng.integers(0, self.data.shape[0], self.n_chains)]
        S, P, H, Fv, U, steps, w, wcol = self._clamp(W, V)
        chain = S[self.batch_size :]
        if self._hidden_stale:  # new chains (or a new hidden layer): sample their h first
            _sample_layer(chain, W, b, rng.random(H.shape), H, H)
            self._hidden_stale = False
        rng.random(out=U)  # all uniforms of the k steps, in the order they are used
        WT = W.T
        for t, (Uv, Uh) in enumerate(steps, 1):
            _sample_layer(H, WT, a, Uv, Fv, chain)
            if t < self.k:
                _sample_layer(chain, W, b, Uh, H, H)
        return self._gradient(S, P, W, b, w, wcol, Uh, H)


def make_estimator(algorithm: str, data, *, k: int = 1, batch_size=None, n_chains=None):
    """Build an estimator by name: ``"cd"``, ``"pcd"`` or ``"exact"``.

    Parameters
    ----------
    algorithm : {"cd", "pcd", "exact"}
    data : array_like, shape (m, n_visible), {0,1}
    k : int
        Gibbs steps per update (CD and PCD).
    batch_size, n_chains : int, optional
        See :class:`ContrastiveDivergence` and :class:`PersistentCD`.
    """
    algorithm = str(algorithm).lower()
    if algorithm == "cd":
        return ContrastiveDivergence(data, k, batch_size=batch_size)
    if algorithm == "pcd":
        return PersistentCD(data, k, n_chains=n_chains, batch_size=batch_size)
    if algorithm == "exact":
        return ExactGradient(data, batch_size=batch_size)
    raise ValueError(f"algorithm must be one of 'cd', 'pcd', 'exact'; got {algorithm!r}")


# ---------------------------------------------------------------------- exact CD analysis
def gibbs_transition_matrix(rbm: RBM) -> np.ndarray:
    """T[v, v'] = sum_h p(h|v) p(v'|h): one block-Gibbs step on the visible layer.

    Parameters
    ----------
    rbm : RBM
        With ``n_visible + n_hidden <= 24``.

    Returns
    -------
    T : ndarray, shape (2**n_visible, 2**n_visible)
        Row-stochastic, states in code order; p(v) of the RBM is its stationary row vector.
    """
    if not isinstance(rbm, RBM):
        raise TypeError(f"rbm must be a bmlab.RBM, got {type(rbm).__name__}")
    n_v, n_h = rbm.W.shape
    if n_v + n_h > N_MAX_TRANSITION:
        raise ValueError(f"the transition matrix sums over 2**(n_visible + n_hidden) terms; "
                         f"n_visible + n_hidden = {n_v + n_h} but at most {N_MAX_TRANSITION} "
                         "is allowed")
    V = _bits(0, 2**n_v, n_v)
    Xv = V @ rbm.W + rbm.b  # (2^nv, nh): field on the hidden units
    lnorm_h = _sum_softplus(Xv)

    def part(start, stop):
        H = _bits(start, stop, n_h)
        log_ph = Xv @ H.T - lnorm_h[:, None]  # log p(h | v), (2^nv, chunk)
        Xh = H @ rbm.W.T + rbm.a  # (chunk, nv)
        log_pv = Xh @ V.T - _sum_softplus(Xh)[:, None]  # log p(v' | h), (chunk, 2^nv)
        return np.exp(log_ph) @ np.exp(log_pv)

    return sum(map_chunks(part, _chunks(n_h, 2**n_v)))


def cd_expected_gradient(rbm: RBM, V, k: int, *, T=None) -> dict:
    """Exact expectation (over the chains' randomness) of the CD-k estimate on ``V``.

    The chain distribution after k steps from the empirical distribution of ``V`` is
    q_k = q_0 T^k with :func:`gibbs_transition_matrix`; the estimate's expectation is
    <v p(h|v)^T>_data - sum_v q_k(v) v p(h|v)^T. As k grows q_k -> p(v) and the result
    tends to :meth:`RBM.exact_gradient`.

    Parameters
    ----------
    rbm : RBM
    V : array_like, shape (m, n_visible), {0,1}
    k : int >= 0
    T : ndarray, optional
        A precomputed transition matrix (reuse it across several k).

    Returns
    -------
    dict with ``"W"``, ``"a"``, ``"b"`` as in :meth:`RBM.exact_gradient`
    """
    if not isinstance(rbm, RBM):
        raise TypeError(f"rbm must be a bmlab.RBM, got {type(rbm).__name__}")
    V2, _ = rbm._v(V)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
        raise ValueError(f"k must be an integer >= 0, got {k!r}")
    if T is None:
        T = gibbs_transition_matrix(rbm)
    n_v = rbm.n_visible
    codes = (V2 @ (2 ** np.arange(n_v))).astype(np.int64)
    q = np.bincount(codes, minlength=2**n_v) / V2.shape[0]
    q = q @ np.linalg.matrix_power(T, int(k))
    S = _bits(0, 2**n_v, n_v)
    Q = expit(S @ rbm.W + rbm.b)
    Ph = expit(V2 @ rbm.W + rbm.b)
    return {
        "W": V2.T @ Ph / V2.shape[0] - (S * q[:, None]).T @ Q,
        "a": V2.mean(axis=0) - q @ S,
        "b": Ph.mean(axis=0) - q @ Q,
    }
