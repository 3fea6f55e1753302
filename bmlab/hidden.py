"""Boltzmann machines with hidden units, solved exactly (Section 5.6, Figure 5.4).

All units are ±1 spins. The joint system ``s = v ⊕ h`` (visible units first, then hidden
units) has the energy of Eq. 5.1,

    E(v, h) = -1/2 sum_{a != b} J_ab s_a s_b - sum_a theta_a s_a ,

and the model of the data is the marginal p(v) = Z(v) / Z with the *clamped* partition
function Z(v) = sum_h exp(-E(v, h)) and the free energy F(v) = -log Z(v).

A boolean coupling mask selects the architecture of Figure 5.4:

* general (``restricted=False``): couplings everywhere, within and between the layers;
* restricted (``restricted=True``): couplings only between visible and hidden units.

Parameters are a dict ``{"J": (N, N), "theta": (N,)}`` with ``N = n_visible + n_hidden``:
``J`` is symmetric with zero diagonal and zero wherever the mask forbids a coupling. The
visible-hidden block ``J[:n_visible, n_visible:]`` is the weight matrix ``W`` of the lecture,
``theta[:n_visible]`` the visible biases ``a`` and ``theta[n_visible:]`` the hidden biases ``b``
(see :meth:`HiddenMachine.blocks`). This is the dict that :func:`bmlab.learning.train`
updates; :meth:`HiddenMachine.estimator` supplies the exact gradient.

Every quantity sums over all ``2**N`` joint states (``N <= 16``), vectorised over one table of
joint log-weights of shape ``(2**n_visible, 2**n_hidden)``. State order follows
:func:`bmlab.exact.all_states`: visible configuration ``c`` has ``v_i = +1`` iff bit ``i`` of
``c`` is 1, and likewise for hidden configurations.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ._checks import _as_float_array, check_finite, check_positive_int, check_rng
from .exact import codes_to_states, state_codes
from .learning import TrainResult, train

#: Largest joint system (visible + hidden units) handled by exact enumeration.
N_MAX_JOINT = 16
#: Largest number of spins for :func:`walsh_coefficients`.
N_MAX_WALSH = 20


def _logsumexp(x: np.ndarray, axis=None, keepdims: bool = False):
    """log sum exp(x), stable; a lean version of scipy's for tiny arrays in hot loops."""
    peak = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True)) + peak
    if keepdims:
        return out
    return out.item() if axis is None else np.squeeze(out, axis=axis)


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return value


def empirical_distribution(data, n_visible: int) -> np.ndarray:
    """Empirical distribution p_data(v) of ±1 training strings over all ``2**n_visible`` states.

    Parameters
    ----------
    data : array_like, shape (D, n_visible), entries ±1
        Training set (repeated rows count repeatedly).
    n_visible : int

    Returns
    -------
    p_data : ndarray, shape (2**n_visible,)
        In :func:`bmlab.exact.all_states` order; sums to 1.
    """
    n_visible = _check_count(n_visible, "n_visible", 1)
    if n_visible > N_MAX_JOINT:
        raise ValueError(f"n_visible must be <= {N_MAX_JOINT}, got {n_visible}")
    V = _check_data(data, n_visible)
    counts = np.bincount(state_codes(V), minlength=2**n_visible)
    return counts / counts.sum()


def _check_data(data, n_visible: int, name: str = "data") -> np.ndarray:
    V = _as_float_array(data, name)
    if V.ndim == 1:
        V = V[None, :]
    if V.ndim != 2 or V.shape[1] != n_visible or V.shape[0] < 1:
        raise ValueError(
            f"{name} must have shape (D, {n_visible}) with D >= 1 (one ±1 string per row), "
            f"got {np.shape(data)}"
        )
    if not np.all(np.abs(V) == 1):
        raise ValueError(f"{name} must contain only -1 and +1 (the ±1 spin convention)")
    return V


class HiddenMachine:
    """A ±1 Boltzmann machine with visible and hidden units, general or restricted.

    Parameters
    ----------
    n_visible : int >= 1
    n_hidden : int >= 0
        ``n_visible + n_hidden <= 16`` (every method enumerates all joint states).
        With ``n_hidden = 0`` the general machine is the fully visible machine of Eq. 5.4.
    restricted : bool
        False: couplings within and between layers (Figure 5.4, left). True: couplings only
        between the layers (Figure 5.4, right).
    visible_bias, hidden_bias : bool
        Whether the biases ``a`` (visible) and ``b`` (hidden) are free parameters; a disabled
        bias is held at zero (its gradient is zero).

    Attributes
    ----------
    n_visible, n_hidden, n_units : int
    mask : ndarray of bool, shape (n_units, n_units)
        Which couplings ``J_ab`` exist (symmetric, False on the diagonal).
    bias_mask : ndarray of bool, shape (n_units,)
    states : ndarray of float64, shape (2**n_units, n_units)
        All joint states; row ``c = c_v + 2**n_visible * c_h`` holds visible configuration
        ``c_v`` and hidden configuration ``c_h``.
    """

    def __init__(
        self,
        n_visible: int,
        n_hidden: int,
        *,
        restricted: bool = False,
        visible_bias: bool = True,
        hidden_bias: bool = True,
    ):
        n_visible = _check_count(n_visible, "n_visible", 1)
        n_hidden = _check_count(n_hidden, "n_hidden", 0)
        if n_visible + n_hidden > N_MAX_JOINT:
            raise ValueError(
                f"n_visible + n_hidden = {n_visible + n_hidden} is too large: at most "
                f"{N_MAX_JOINT} units, because every method sums over all 2**N joint states"
            )
        for name, flag in (
            ("restricted", restricted),
            ("visible_bias", visible_bias),
            ("hidden_bias", hidden_bias),
        ):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {type(flag).__name__}")
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        self.n_units = n = n_visible + n_hidden
        self.restricted = bool(restricted)
        is_hidden = np.arange(n) >= n_visible
        if self.restricted:
            mask = is_hidden[:, None] != is_hidden[None, :]
        else:
            mask = ~np.eye(n, dtype=bool)
        self.mask = mask
        self.bias_mask = np.where(is_hidden, bool(hidden_bias), bool(visible_bias))
        self.states = codes_to_states(np.arange(2**n), n)
        self._nv_states = 2**n_visible
        self._nh_states = 2**n_hidden

    def __repr__(self) -> str:
        kind = "restricted" if self.restricted else "general"
        return f"HiddenMachine(n_visible={self.n_visible}, n_hidden={self.n_hidden}, {kind})"

    # ------------------------------------------------------------------ parameters
    def check_params(self, params) -> tuple[np.ndarray, np.ndarray]:
        """Validate a parameter dict and return ``(J, theta)`` as float arrays.

        Raises
        ------
        TypeError
            ``params`` is not a dict with keys ``"J"`` and ``"theta"``.
        ValueError
            Wrong shapes, non-finite entries, asymmetric ``J``, a non-zero diagonal, a
            coupling the mask forbids or a disabled bias that is not zero.
        """
        if not isinstance(params, Mapping):
            raise TypeError(
                f"params must be a dict with keys 'J' and 'theta', got {type(params).__name__}"
            )
        missing = {"J", "theta"} - set(params)
        if missing:
            raise TypeError(f"params is missing key(s) {sorted(missing)}; need 'J' and 'theta'")
        n = self.n_units
        J = check_finite(params["J"], "params['J']")
        theta = check_finite(params["theta"], "params['theta']")
        if J.shape != (n, n):
            raise ValueError(f"params['J'] must have shape ({n}, {n}), got {J.shape}")
        if theta.shape != (n,):
            raise ValueError(f"params['theta'] must have shape ({n},), got {theta.shape}")
        scale = max(1.0, float(np.abs(J).max(initial=0.0)))
        if np.abs(J - J.T).max(initial=0.0) > 1e-12 * scale:
            raise ValueError("params['J'] must be symmetric (J_ab = J_ba)")
        if np.any(np.diag(J) != 0):
            raise ValueError("params['J'] must have a zero diagonal (no self-coupling)")
        if np.any(J[~self.mask] != 0):
            raise ValueError(
                "params['J'] has a coupling the mask forbids (a restricted machine has no "
                "visible-visible or hidden-hidden couplings)"
            )
        if np.any(theta[~self.bias_mask] != 0):
            raise ValueError("params['theta'] must be zero where the bias is disabled")
        return J, theta

    def params_from_blocks(self, W=None, a=None, b=None, L=None, K=None) -> dict:
        """Assemble a parameter dict from the lecture's blocks.

        Parameters
        ----------
        W : array_like, shape (n_visible, n_hidden), optional
            Visible-hidden couplings.
        a : array_like, shape (n_visible,), optional
            Visible biases.
        b : array_like, shape (n_hidden,), optional
            Hidden biases.
        L : array_like, shape (n_visible, n_visible), optional
            Visible-visible couplings (general machine only; symmetric, zero diagonal).
        K : array_like, shape (n_hidden, n_hidden), optional
            Hidden-hidden couplings (general machine only; symmetric, zero diagonal).

        Returns
        -------
        dict
            ``{"J": (N, N), "theta": (N,)}``, validated; omitted blocks are zero.
        """
        nv, nh, n = self.n_visible, self.n_hidden, self.n_units
        J = np.zeros((n, n))
        theta = np.zeros(n)
        for name, value, shape in (
            ("W", W, (nv, nh)), ("a", a, (nv,)), ("b", b, (nh,)), ("L", L, (nv, nv)),
            ("K", K, (nh, nh)),
        ):
            if value is None:
                continue
            arr = check_finite(value, name)
            if arr.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
            if name == "W":
                J[:nv, nv:] = arr
                J[nv:, :nv] = arr.T
            elif name == "L":
                J[:nv, :nv] = arr
            elif name == "K":
                J[nv:, nv:] = arr
            elif name == "a":
                theta[:nv] = arr
            else:
                theta[nv:] = arr
        params = {"J": J, "theta": theta}
        self.check_params(params)
        return params

    def blocks(self, params) -> dict:
        """Split parameters into the lecture's blocks.

        Returns
        -------
        dict with ``W`` (n_visible, n_hidden), ``L`` (n_visible, n_visible),
        ``K`` (n_hidden, n_hidden), ``a`` (n_visible,), ``b`` (n_hidden,) (copies).
        """
        J, theta = self.check_params(params)
        nv = self.n_visible
        return {
            "W": J[:nv, nv:].copy(), "L": J[:nv, :nv].copy(), "K": J[nv:, nv:].copy(),
            "a": theta[:nv].copy(), "b": theta[nv:].copy(),
        }

    def init_params(self, *, rng, scale: float = 0.5, bias_scale: float = 0.1) -> dict:
        """Random initial parameters (normal couplings on the mask, small normal biases).

        Parameters
        ----------
        rng : numpy.random.Generator
        scale : float >= 0
            Standard deviation of the allowed couplings.
        bias_scale : float >= 0
            Standard deviation of the enabled biases.

        Returns
        -------
        dict ``{"J": (N, N), "theta": (N,)}``
        """
        rng = check_rng(rng)
        scale = float(check_finite(scale, "scale"))
        bias_scale = float(check_finite(bias_scale, "bias_scale"))
        if scale < 0 or bias_scale < 0:
            raise ValueError("scale and bias_scale must be >= 0")
        n = self.n_units
        A = np.triu(rng.normal(scale=scale, size=(n, n)), 1)
        J = (A + A.T) * self.mask
        theta = rng.normal(scale=bias_scale, size=n) * self.bias_mask
        return {"J": J, "theta": theta}

    def permute_hidden(self, params, perm) -> dict:
        """Relabel the hidden units: hidden unit ``j`` of the result is unit ``perm[j]``.

        The model p(v) is unchanged (a symmetry of every machine with hidden units).

        Parameters
        ----------
        params : dict
        perm : array_like of int, shape (n_hidden,)
            A permutation of ``range(n_hidden)``.
        """
        J, theta = self.check_params(params)
        perm = np.asarray(perm)
        if perm.shape != (self.n_hidden,) or sorted(perm.tolist()) != list(range(self.n_hidden)):
            raise ValueError(f"perm must be a permutation of range({self.n_hidden}), got {perm}")
        order = np.concatenate([np.arange(self.n_visible), self.n_visible + perm]).astype(int)
        return {"J": J[np.ix_(order, order)].copy(), "theta": theta[order].copy()}

    def flip_hidden(self, params, j: int) -> dict:
        """Flip the sign convention of hidden unit ``j`` (h_j -> -h_j with its couplings and bias).

        The model p(v) is unchanged.
        """
        J, theta = self.check_params(params)
        j = _check_count(j, "j", 0)
        if j >= self.n_hidden:
            raise ValueError(f"j must be a hidden-unit index in range({self.n_hidden}), got {j}")
        sign = np.ones(self.n_units)
        sign[self.n_visible + j] = -1.0
        return {"J": J * np.outer(sign, sign), "theta": theta * sign}

    # ------------------------------------------------------------------ exact tables
    def _log_table(self, J: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """-E(v, h) for all joint states as a (2**n_visible, 2**n_hidden) table."""
        S = self.states
        logw = 0.5 * np.einsum("ca,ca->c", S @ J, S) + S @ theta
        return logw.reshape(self._nh_states, self._nv_states).T

    def _visible_codes(self, V) -> np.ndarray | None:
        if V is None:
            return None
        return state_codes(_check_data(V, self.n_visible, "V"))

    def energy(self, params, S) -> np.ndarray:
        """Joint energy E(v, h) of Eq. 5.1 for joint states.

        Parameters
        ----------
        params : dict
        S : array_like, shape (m, n_units) or (n_units,), entries ±1
            Joint states, visible units first.

        Returns
        -------
        E : ndarray, shape (m,) (or a float for one state)
        """
        J, theta = self.check_params(params)
        single = np.ndim(S) == 1
        S = _check_data(S, self.n_units, "S")
        E = -0.5 * np.einsum("ca,ca->c", S @ J, S) - S @ theta
        return float(E[0]) if single else E

    def log_partition(self, params) -> float:
        """log Z = log sum_{v,h} exp(-E(v, h))."""
        J, theta = self.check_params(params)
        return float(_logsumexp(self._log_table(J, theta)))

    def log_clamped_partition(self, params, V=None) -> np.ndarray:
        """log Z(v) = log sum_h exp(-E(v, h)): the hidden units' partition function, v clamped.

        Parameters
        ----------
        params : dict
        V : array_like, shape (m, n_visible), entries ±1, optional
            Visible strings; default all ``2**n_visible`` in ``all_states`` order.

        Returns
        -------
        ndarray, shape (m,) or (2**n_visible,)
        """
        J, theta = self.check_params(params)
        codes = self._visible_codes(V)
        log_zv = _logsumexp(self._log_table(J, theta), axis=1)
        return log_zv if codes is None else log_zv[codes]

    def free_energy(self, params, V=None) -> np.ndarray:
        """Free energy F(v) = -log Z(v); arguments and shapes as :meth:`log_clamped_partition`."""
        return -self.log_clamped_partition(params, V)

    def log_prob_visible(self, params, V=None) -> np.ndarray:
        """Exact log p(v) = log Z(v) - log Z (hidden units marginalized).

        Parameters
        ----------
        params : dict
        V : array_like, shape (m, n_visible), optional (default all visible states)

        Returns
        -------
        ndarray, shape (m,) or (2**n_visible,)
        """
        codes = self._visible_codes(V)
        log_zv = self.log_clamped_partition(params)
        logp = log_zv - _logsumexp(log_zv)
        return logp if codes is None else logp[codes]

    def prob_visible(self, params) -> np.ndarray:
        """Exact p(v) over all ``2**n_visible`` visible states, shape (2**n_visible,)."""
        return np.exp(self.log_prob_visible(params))

    def prob_joint(self, params) -> np.ndarray:
        """Exact p(v, h), shape (2**n_visible, 2**n_hidden) (rows: v, columns: h)."""
        J, theta = self.check_params(params)
        table = self._log_table(J, theta)
        return np.exp(table - _logsumexp(table))

    def prob_hidden_given_visible(self, params, V=None) -> np.ndarray:
        """Exact conditional p(h | v) by enumerating all ``2**n_hidden`` hidden states.

        This is the clamped phase's inner sum; for a general machine it does not factorize.

        Parameters
        ----------
        params : dict
        V : array_like, shape (m, n_visible), optional (default all visible states)

        Returns
        -------
        ndarray, shape (m, 2**n_hidden) or (2**n_visible, 2**n_hidden)
            Each row sums to 1; columns in ``all_states(n_hidden)`` order.
        """
        J, theta = self.check_params(params)
        codes = self._visible_codes(V)
        table = self._log_table(J, theta)
        cond = np.exp(table - _logsumexp(table, axis=1, keepdims=True))
        return cond if codes is None else cond[codes]

    def hidden_means(self, params, V=None) -> np.ndarray:
        """Exact <h_j | v> by enumeration (any architecture).

        Returns
        -------
        ndarray, shape (m, n_hidden) or (2**n_visible, n_hidden)
        """
        cond = self.prob_hidden_given_visible(params, V)
        H = codes_to_states(np.arange(self._nh_states), self.n_hidden)
        return cond @ H

    def hidden_means_factorized(self, params, V) -> np.ndarray:
        """<h_j | v> = tanh(b_j + sum_i W_ij v_i) for a restricted machine (no enumeration).

        Exact only when p(h|v) factorizes, i.e. for the restricted machine; a general machine
        raises ValueError.

        Parameters
        ----------
        params : dict
        V : array_like, shape (m, n_visible), entries ±1

        Returns
        -------
        ndarray, shape (m, n_hidden)
        """
        if not self.restricted:
            raise ValueError(
                "hidden_means_factorized needs a restricted machine: in a general machine the "
                "hidden units are coupled and p(h|v) does not factorize"
            )
        J, theta = self.check_params(params)
        V = _check_data(V, self.n_visible, "V")
        nv = self.n_visible
        return np.tanh(V @ J[:nv, nv:] + theta[nv:])

    # ------------------------------------------------------------------ moments, gradient
    def _moments(self, q_table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = q_table.T.reshape(-1)  # back to joint-state order
        S = self.states
        return q @ S, S.T @ (S * q[:, None])

    def model_moments(self, params) -> tuple[np.ndarray, np.ndarray]:
        """Model averages <s_a> and <s_a s_b> over p(v, h) (the negative phase).

        Returns
        -------
        m : ndarray, shape (n_units,)
        C : ndarray, shape (n_units, n_units), ones on the diagonal
        """
        return self._moments(self.prob_joint(params))

    def clamped_moments(self, params, data) -> tuple[np.ndarray, np.ndarray]:
        """Clamped averages over p_data(v) p(h | v) (the positive phase with hidden units).

        Parameters
        ----------
        params : dict
        data : array_like, shape (D, n_visible), entries ±1

        Returns
        -------
        m : ndarray, shape (n_units,)
        C : ndarray, shape (n_units, n_units), ones on the diagonal
        """
        p_data = empirical_distribution(data, self.n_visible)
        return self._moments(p_data[:, None] * self.prob_hidden_given_visible(params))

    def _gradient(self, J, theta, p_data) -> dict:
        table = self._log_table(J, theta)
        log_zv = _logsumexp(table, axis=1, keepdims=True)
        cond = np.exp(table - log_zv)
        joint = np.exp(table - _logsumexp(log_zv))
        m_c, C_c = self._moments(p_data[:, None] * cond)
        m_m, C_m = self._moments(joint)
        G = C_c - C_m
        G = 0.5 * (G + G.T) * self.mask
        return {"J": G, "theta": (m_c - m_m) * self.bias_mask}

    def gradient(self, params, data) -> dict:
        """Exact gradient of the average log-likelihood (ascent direction).

        dL/dJ_ab = <s_a s_b>_clamped - <s_a s_b>_model for every allowed coupling (the pair
        (J_ab, J_ba) is one parameter, as in Eq. 5.4), dL/dtheta_a = <s_a>_clamped - <s_a>_model;
        zero for forbidden couplings, on the diagonal and for disabled biases.

        Parameters
        ----------
        params : dict
        data : array_like, shape (D, n_visible), entries ±1

        Returns
        -------
        dict ``{"J": (N, N) symmetric, "theta": (N,)}``
        """
        J, theta = self.check_params(params)
        return self._gradient(J, theta, empirical_distribution(data, self.n_visible))

    def estimator(self, data):
        """Exact gradient estimator for :func:`bmlab.learning.train`.

        Parameters
        ----------
        data : array_like, shape (D, n_visible), entries ±1

        Returns
        -------
        callable
            ``estimator(params, rng) -> grads`` (``rng`` is unused: the gradient is exact).
        """
        p_data = empirical_distribution(data, self.n_visible)

        def exact_gradient(params, rng=None):
            J, theta = self.check_params(params)
            return self._gradient(J, theta, p_data)

        return exact_gradient

    # ------------------------------------------------------------------ objectives
    def log_likelihood(self, params, data) -> float:
        """Average exact log-likelihood L = (1/D) sum_d log p(v^(d)) in nats."""
        p_data = empirical_distribution(data, self.n_visible)
        logp = self.log_prob_visible(params)
        keep = p_data > 0
        return float(p_data[keep] @ logp[keep])

    def numerical_gradient(self, params, data, eps: float = 1e-5) -> dict:
        """Central finite differences of :meth:`log_likelihood` (the oracle for :meth:`gradient`).

        Each allowed coupling pair (J_ab, J_ba) is moved together, as one parameter; each
        enabled bias alone.

        Parameters
        ----------
        params : dict
        data : array_like, shape (D, n_visible), entries ±1
        eps : float > 0
            Step of the central difference (error O(eps**2)).

        Returns
        -------
        dict ``{"J": (N, N) symmetric, "theta": (N,)}``, zero where there is no parameter.
        """
        J, theta = self.check_params(params)
        eps = float(check_finite(eps, "eps"))
        if eps <= 0:
            raise ValueError(f"eps must be > 0, got {eps}")
        p_data = empirical_distribution(data, self.n_visible)
        keep = p_data > 0

        def L(Jx, tx):
            table = self._log_table(Jx, tx)
            log_zv = _logsumexp(table, axis=1)
            return float(p_data[keep] @ (log_zv[keep] - _logsumexp(log_zv)))

        gJ, gt = np.zeros_like(J), np.zeros_like(theta)
        for a, b in zip(*np.nonzero(np.triu(self.mask)), strict=True):
            step = np.zeros_like(J)
            step[a, b] = step[b, a] = eps
            gJ[a, b] = gJ[b, a] = (L(J + step, theta) - L(J - step, theta)) / (2 * eps)
        for a in np.flatnonzero(self.bias_mask):
            step = np.zeros_like(theta)
            step[a] = eps
            gt[a] = (L(J, theta + step) - L(J, theta - step)) / (2 * eps)
        return {"J": gJ, "theta": gt}

    def log_likelihood_along(self, params0, params1, t, data) -> np.ndarray:
        """L on the straight line (1 - t) params0 + t params1 in parameter space.

        Parameters
        ----------
        params0, params1 : dict
        t : array_like, shape (k,)
            Positions on the line (0 = params0, 1 = params1; others extrapolate).
        data : array_like, shape (D, n_visible), entries ±1

        Returns
        -------
        ndarray, shape (k,)
            Average log-likelihood at each point.
        """
        J0, t0 = self.check_params(params0)
        J1, t1 = self.check_params(params1)
        t = check_finite(t, "t")
        if t.ndim != 1:
            raise ValueError(f"t must be a 1-D array of positions, got shape {t.shape}")
        p_data = empirical_distribution(data, self.n_visible)
        keep = p_data > 0
        out = np.empty(t.size)
        for k, tk in enumerate(t):
            table = self._log_table((1 - tk) * J0 + tk * J1, (1 - tk) * t0 + tk * t1)
            log_zv = _logsumexp(table, axis=1)
            out[k] = p_data[keep] @ (log_zv[keep] - _logsumexp(log_zv))
        return out

    def kl_divergence(self, params, data) -> float:
        """KL(p_data || p_model) in nats (>= 0; zero only for a perfect fit)."""
        p_data = empirical_distribution(data, self.n_visible)
        logp = self.log_prob_visible(params)
        keep = p_data > 0
        return float(max(0.0, p_data[keep] @ (np.log(p_data[keep]) - logp[keep])))

    def metrics(self, data) -> dict:
        """Metrics for :func:`bmlab.learning.train`: ``"log_likelihood"`` and ``"kl"``."""
        p_data = empirical_distribution(data, self.n_visible)
        keep = p_data > 0
        entropy = float(-p_data[keep] @ np.log(p_data[keep]))

        def log_likelihood(params):
            return float(p_data[keep] @ self.log_prob_visible(params)[keep])

        def kl(params):
            return max(0.0, -entropy - log_likelihood(params))

        return {"log_likelihood": log_likelihood, "kl": kl}


def fit_best_of(
    machine: HiddenMachine,
    data,
    *,
    restarts: int = 5,
    n_steps: int = 2000,
    lr: float = 0.1,
    momentum: float = 0.9,
    init_scale: float = 0.5,
    record_every: int = 50,
    rng,
    desc: str | None = None,
) -> tuple[TrainResult, np.ndarray]:
    """Train ``restarts`` times from random starts with the exact gradient; keep the best.

    Every run calls :func:`bmlab.learning.train` with :meth:`HiddenMachine.estimator`.

    Parameters
    ----------
    machine : HiddenMachine
    data : array_like, shape (D, n_visible), entries ±1
    restarts : int >= 1
    n_steps, lr, momentum, record_every
        Passed to :func:`bmlab.learning.train`.
    init_scale : float >= 0
        Standard deviation of the random initial couplings.
    rng : numpy.random.Generator
        Draws every initialization.
    desc : str, optional
        Progress-bar label.

    Returns
    -------
    best : TrainResult
        The run with the smallest final KL(p_data || p_model); its history holds
        ``"kl"`` and ``"log_likelihood"``.
    final_kl : ndarray, shape (restarts,)
        Final KL of every run.
    """
    if not isinstance(machine, HiddenMachine):
        raise TypeError(f"machine must be a HiddenMachine, got {type(machine).__name__}")
    restarts = check_positive_int(restarts, "restarts", maximum=1000)
    rng = check_rng(rng)
    estimator = machine.estimator(data)
    metrics = machine.metrics(data)
    results, final = [], []
    for _ in range(restarts):
        start = machine.init_params(rng=rng, scale=init_scale)
        result = train(
            start, estimator, n_steps=n_steps, lr=lr, momentum=momentum, metrics=metrics,
            record_every=record_every, rng=rng, desc=desc,
        )
        results.append(result)
        final.append(metrics["kl"](result.params))
    final = np.asarray(final)
    return results[int(np.argmin(final))], final


# ---------------------------------------------------------------------- Walsh expansion
def walsh_coefficients(f, n: int) -> np.ndarray:
    """Expand a function of n ±1 spins in multi-spin (Walsh/Fourier) terms.

    f(s) = sum_{A ⊆ {0..n-1}} c_A prod_{i in A} s_i, with
    c_A = 2**-n sum_s f(s) prod_{i in A} s_i. Computed by a fast transform, O(n 2**n).

    Parameters
    ----------
    f : array_like, shape (2**n,)
        Values in :func:`bmlab.exact.all_states` order (e.g. log p(v) of all visible states).
    n : int, 1 <= n <= 20

    Returns
    -------
    c : ndarray, shape (2**n,)
        ``c[code]`` is the coefficient of the subset whose members are the set bits of
        ``code`` (``c[0]`` is the constant, ``c[0b101]`` multiplies s_0 s_2).
    """
    n = _check_count(n, "n", 1)
    if n > N_MAX_WALSH:
        raise ValueError(f"n must be <= {N_MAX_WALSH}, got {n}")
    f = check_finite(f, "f")
    if f.shape != (2**n,):
        raise ValueError(f"f must have shape ({2**n},) (one value per state), got {f.shape}")
    # Bit i of a code is axis (n-1-i) of the C-ordered (2,)*n view; per axis, the rows of
    # T map (f(s_i=-1), f(s_i=+1)) to the coefficients of 1 and s_i.
    T = np.array([[0.5, 0.5], [-0.5, 0.5]])
    a = f.reshape((2,) * n)
    for axis in range(n):
        a = np.moveaxis(np.tensordot(T, a, axes=([1], [axis])), 0, axis)
    return a.reshape(-1)


def interaction_orders(n: int) -> np.ndarray:
    """Order |A| of every multi-spin term, aligned with :func:`walsh_coefficients`.

    Returns
    -------
    ndarray of int, shape (2**n,)
        Number of set bits of each subset code.
    """
    n = _check_count(n, "n", 1)
    if n > N_MAX_WALSH:
        raise ValueError(f"n must be <= {N_MAX_WALSH}, got {n}")
    codes = np.arange(2**n, dtype=np.int64)
    return ((codes[:, None] >> np.arange(n)) & 1).sum(axis=1)


def walsh_terms(c, n: int, order: int) -> list[tuple[tuple[int, ...], float]]:
    """The multi-spin terms of one order, as ``[((i, j, ...), c_A), ...]`` (unit indices from 0).

    Parameters
    ----------
    c : array_like, shape (2**n,)
        Output of :func:`walsh_coefficients`.
    n : int
    order : int, 0 <= order <= n
    """
    orders = interaction_orders(n)
    c = check_finite(c, "c")
    if c.shape != (2**n,):
        raise ValueError(f"c must have shape ({2**n},), got {c.shape}")
    order = _check_count(order, "order", 0)
    if order > n:
        raise ValueError(f"order must be between 0 and n = {n}, got {order}")
    out = []
    for code in np.flatnonzero(orders == order):
        members = tuple(int(i) for i in range(n) if (code >> i) & 1)
        out.append((members, float(c[code])))
    return out


def max_coefficient_by_order(c, n: int) -> np.ndarray:
    """Largest |c_A| among the terms of each order 0..n.

    Returns
    -------
    ndarray, shape (n + 1,)
    """
    c = check_finite(c, "c")
    orders = interaction_orders(n)
    if c.shape != (2**n,):
        raise ValueError(f"c must have shape ({2**n},), got {c.shape}")
    out = np.zeros(n + 1)
    np.maximum.at(out, orders, np.abs(c))
    return out


__all__ = [
    "N_MAX_JOINT",
    "HiddenMachine",
    "empirical_distribution",
    "fit_best_of",
    "interaction_orders",
    "max_coefficient_by_order",
    "walsh_coefficients",
    "walsh_terms",
]
