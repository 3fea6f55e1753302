"""Boltzmann machines with hidden units, solved exactly (Section 5.6, Figure 5.4; notebook 04).

All units are ±1 spins. The joint system ``s = (v, h)`` (visible units first) is a fully
visible machine of Eq. 5.1 over ``N = n_visible + n_hidden`` units, so every sum over states
is :mod:`bmlab.exact` over the joint units, followed by a sum over ``h``. Parameters are the
dict ``{"J": (N, N), "theta": (N,)}`` that :func:`bmlab.train` updates; a coupling mask picks
the architecture (general: couplings everywhere; restricted: only visible-hidden). The block
``J[:n_visible, n_visible:]`` is the lecture's ``W``, ``theta[:n_visible]`` is ``a`` and
``theta[n_visible:]`` is ``b``. Notebook 04 writes the clamped-minus-model gradient out in
plain numpy and checks it against :class:`HiddenGradient`.

Table order: row ``c_v`` of a ``(2**n_visible, 2**n_hidden)`` table is visible state ``c_v``
of :func:`bmlab.exact.all_states`, column ``c_h`` hidden state ``c_h``; the joint state code
is ``c_v + 2**n_visible * c_h``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import numpy as np

from ._checks import (
    check_bool,
    check_couplings,
    check_data,
    check_in_range,
    check_n_states,
    check_positive_int,
    check_rng,
    check_theta,
)
from ._kernels import _energy, codes_to_states
from .exact import empirical_distribution

#: Largest joint system (visible + hidden units) handled by exact enumeration.
_N_MAX_JOINT = 16


class HiddenMachine:
    """A ±1 Boltzmann machine with visible and hidden units, general or restricted.

    Parameters
    ----------
    n_visible : int >= 1
    n_hidden : int >= 0
        ``n_visible + n_hidden <= 16``. With ``n_hidden = 0`` the general machine is the
        fully visible machine of Eq. 5.4.
    restricted : bool
        False: couplings within and between the layers (Figure 5.4, left); True: only
        between the layers (Figure 5.4, right).
    visible_bias, hidden_bias : bool
        Whether the biases ``a`` and ``b`` are parameters; a disabled bias stays 0 and its
        gradient is exactly 0.

    Attributes
    ----------
    n_visible, n_hidden, n_units : int
    mask : ndarray of bool, shape (n_units, n_units)
        Which couplings ``J_ab`` exist (symmetric, False on the diagonal).
    bias_mask : ndarray of bool, shape (n_units,)
        Which biases ``theta_a`` exist.
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
        n_visible = check_positive_int(n_visible, "n_visible")
        n_hidden = check_in_range(n_hidden, "n_hidden", 0, _N_MAX_JOINT, integer=True)
        why = " (every sum runs over all 2**N joint states)"
        n = check_n_states(n_visible + n_hidden, _N_MAX_JOINT, "n_visible + n_hidden", why)
        self.n_visible, self.n_hidden, self.n_units = n_visible, n_hidden, n
        self.restricted = check_bool(restricted, "restricted")
        hidden_bias = check_bool(hidden_bias, "hidden_bias")
        visible_bias = check_bool(visible_bias, "visible_bias")
        is_hidden = np.arange(n) >= n_visible
        self.mask = (is_hidden[:, None] != is_hidden) if restricted else ~np.eye(n, dtype=bool)
        self.bias_mask = np.where(is_hidden, hidden_bias, visible_bias)

    def __repr__(self) -> str:
        kind = "restricted" if self.restricted else "general"
        return f"HiddenMachine(n_visible={self.n_visible}, n_hidden={self.n_hidden}, {kind})"

    def init_params(self, *, rng, scale: float = 0.5, bias_scale: float = 0.1) -> dict:
        """Random parameters: normal couplings (std ``scale``) on the mask, normal biases
        (std ``bias_scale``) where enabled. Returns ``{"J": (N, N), "theta": (N,)}``."""
        rng = check_rng(rng, "HiddenMachine.init_params")
        n = self.n_units
        A = np.triu(rng.normal(scale=scale, size=(n, n)), 1)
        return {
            "J": (A + A.T) * self.mask,
            "theta": rng.normal(scale=bias_scale, size=n) * self.bias_mask,
        }

    def check_params(self, params) -> tuple[np.ndarray, np.ndarray]:
        """Validate a parameter dict and return ``(J, theta)`` as float arrays.

        Raises TypeError for a non-dict or missing keys, ValueError for wrong shapes, NaN/inf,
        an asymmetric ``J`` or one with a non-zero diagonal, a coupling the mask forbids or a
        disabled bias that is not zero.
        """
        if not isinstance(params, Mapping) or not {"J", "theta"} <= set(params):
            raise TypeError("params must be a dict with keys 'J' and 'theta'")
        n = self.n_units
        J, theta = check_couplings(params["J"]), check_theta(params["theta"], n)
        if J.shape != (n, n):
            raise ValueError(f"J must have shape ({n}, {n}), got {J.shape}")
        if np.any(J[~self.mask & ~np.eye(n, dtype=bool)] != 0):
            raise ValueError(
                "params['J'] has a coupling the mask forbids (a restricted machine "
                "has no visible-visible or hidden-hidden couplings)"
            )
        if np.any(theta[~self.bias_mask] != 0):
            raise ValueError("params['theta'] must be zero where the bias is disabled")
        return J, theta

    def _check_data(self, data) -> np.ndarray:
        """p_data(v) over all visible states, from ±1 rows of shape (D, n_visible), D >= 1."""
        return empirical_distribution(check_data(data, "data", self.n_visible))

    @cached_property
    def _states(self) -> np.ndarray:
        """Every joint state s = (v, h), shape (2**N, N), in ``all_states`` order; built once,
        since training asks for p(v, h) at every update."""
        return codes_to_states(np.arange(2**self.n_units), self.n_units)

    def _joint(self, J: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """p(v, h) as a (2**n_visible, 2**n_hidden) table, from checked ``J`` and ``theta``."""
        log_w = -_energy(self._states, J, theta)
        p = np.exp(log_w - log_w.max())
        p /= p.sum()
        return p.reshape(2**self.n_hidden, 2**self.n_visible).T

    def prob_joint(self, params) -> np.ndarray:
        """Exact p(v, h), shape (2**n_visible, 2**n_hidden): rows v, columns h."""
        return self._joint(*self.check_params(params))

    def prob_visible(self, params) -> np.ndarray:
        """Exact p(v) = sum_h p(v, h), shape (2**n_visible,), in ``all_states`` order."""
        return self.prob_joint(params).sum(axis=1)

    def metrics(self, data) -> dict:
        """Exact metrics for :func:`bmlab.train`, each ``metric(params) -> float`` in nats.

        ``"log_likelihood"``: L = sum_v p_data(v) log p(v); ``"kl"``: KL(p_data || p_model)
        = -H(p_data) - L (>= 0, zero only for a perfect fit).
        """
        p_data = self._check_data(data)
        seen = p_data > 0
        entropy = float(-p_data[seen] @ np.log(p_data[seen]))

        def log_likelihood(params):
            return float(p_data[seen] @ np.log(self.prob_visible(params)[seen]))

        def kl(params):
            return max(0.0, -entropy - log_likelihood(params))

        return {"log_likelihood": log_likelihood, "kl": kl}


class HiddenGradient:
    """``gradient(params, rng=None) -> {"J": (N, N) symmetric, "theta": (N,)}``: the exact
    ascent direction of the average log-likelihood of ``data`` under ``machine``, for
    :func:`bmlab.train`. Draws nothing: ``rng`` is ignored.

    ``dL/dJ_ab = <s_a s_b>_clamped - <s_a s_b>_model`` and ``dL/dtheta_a = <s_a>_clamped
    - <s_a>_model``, where "clamped" averages over ``p_data(v) p(h | v)`` (notebook 04,
    Section 2). Zero on forbidden couplings, the diagonal and disabled biases.

    Parameters
    ----------
    machine : HiddenMachine
    data : array_like, shape (D, n_visible), entries ±1, D >= 1
    """

    def __init__(self, machine: HiddenMachine, data):
        if not isinstance(machine, HiddenMachine):
            raise TypeError(f"machine must be a HiddenMachine, got {type(machine).__name__}")
        self.machine = machine
        self.p_data = machine._check_data(data)[:, None]

    def __call__(self, params, rng=None) -> dict:
        machine, p_data, S = self.machine, self.p_data, self.machine._states
        joint = machine._joint(*machine.check_params(params))
        p_v = joint.sum(axis=1, keepdims=True)
        clamped = np.divide(joint * p_data, p_v, out=np.zeros_like(joint), where=p_data > 0)
        # moments are linear in the weights: clamped minus model in one sum over states
        q = (clamped - joint).T.ravel()
        m = q @ S
        C = (S.T * q) @ S
        return {"J": 0.5 * (C + C.T) * machine.mask, "theta": m * machine.bias_mask}


__all__ = ["HiddenGradient", "HiddenMachine"]
