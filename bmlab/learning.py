"""The one training loop: gradient ascent on a dict of parameter arrays (notebooks 03-05).

Only the *gradient* differs between the machines: a callable returning the ascent direction
of the mean log-likelihood, a dict with the keys and shapes of ``params``. Every gradient is
called as ``gradient(params, rng)``: exact ones ignore ``rng``, sampled ones (Glauber, CD,
PCD) draw from it and raise a TypeError when it is None.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ._checks import check_choice, check_finite, check_positive_int, check_rng

_DECAY_KEYS = ("J", "W")  # the keys weight decay shrinks: couplings and weights, never biases


@dataclass
class History:
    """Metrics recorded during training: ``history["L"]`` is an array over the records,
    ``history["step"]`` their update counts (0 = before the first update, the last record
    is the final state); ``"grad_norm"`` (weight decay included) is always recorded."""

    steps: list = field(default_factory=list)
    values: dict = field(default_factory=dict)

    def record(self, step: int, **metrics) -> None:
        """Append one record: the step and one value per metric."""
        self.steps.append(int(step))
        for name, value in metrics.items():
            self.values.setdefault(name, []).append(value)

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "step":
            return np.asarray(self.steps)
        if name not in self.values:
            raise KeyError(f"no metric {name!r}; recorded: {sorted(self.values)}")
        return np.asarray(self.values[name])

    def last(self, name: str):
        """The most recent value of a metric (or of ``"step"``)."""
        return self[name][-1]


@dataclass
class TrainResult:
    """:func:`train`'s parameters, history, update count and ``stop_reason``: ``"n_steps"``,
    ``"callback"`` or ``"diverged"`` (then ``params`` are the last good ones)."""

    params: dict
    history: History
    n_updates: int
    stop_reason: str

    @property
    def diverged(self) -> bool:
        """True when training stopped because the parameters blew up."""
        return self.stop_reason == "diverged"


def _within(params: dict, max_abs: float) -> bool:
    """True when every parameter is finite and at most ``max_abs`` in magnitude.

    Speed trick (this runs once per update): one ``vdot`` per array; a NaN or inf, or a
    square that overflows, makes the sum non-finite. The maximum is only taken for a finite
    ``max_abs``.
    """
    if not math.isfinite(sum(float(np.vdot(x, x)) for x in params.values())):
        return False
    return max_abs == math.inf or max(float(np.abs(x).max()) for x in params.values()) <= max_abs


def _checked(params, gradient, rng, lr, momentum, weight_decay, max_abs):
    """Validate :func:`train`'s arguments; return float copies of ``params``, lr, momentum
    and weight_decay."""
    lr = float(check_finite(lr, "lr"))
    momentum = float(check_finite(momentum, "momentum"))
    weight_decay = float(check_finite(weight_decay, "weight_decay"))
    if lr <= 0 or not 0 <= momentum < 1 or weight_decay < 0 or not max_abs > 0:
        raise ValueError(
            "need lr > 0, 0 <= momentum < 1, weight_decay >= 0 and max_abs > 0; "
            f"got {lr}, {momentum}, {weight_decay}, {max_abs}"
        )
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
    if not callable(gradient):
        raise TypeError(f"gradient must be callable, got {type(gradient).__name__}")
    if rng is not None:
        check_rng(rng)
    params = {
        k: np.array(check_finite(v, f"params[{k!r}]"), dtype=float) for k, v in params.items()
    }
    return params, lr, momentum, weight_decay


def _direction(gradient, params, rng, weight_decay) -> dict:
    """The ascent direction of one update: ``gradient(params, rng)``, with weight decay
    subtracted from the couplings and weights (never from the biases)."""
    g = gradient(params, rng)
    if weight_decay:
        g = {k: g[k] - weight_decay * params[k] if k in _DECAY_KEYS else g[k] for k in g}
    return g


def _step(params, velocity, g, lr, momentum) -> tuple[dict, dict]:
    """New parameters and velocity after one update in direction ``g``: classical momentum,
    or plain gradient ascent by ``lr * g`` when ``momentum`` is 0."""
    if momentum:
        velocity = {k: momentum * velocity[k] + lr * g[k] for k in params}
        return {k: p + velocity[k] for k, p in params.items()}, velocity
    return {k: p + lr * g[k] for k, p in params.items()}, velocity


def train(
    params: Mapping[str, np.ndarray],
    gradient: Callable,
    *,
    n_steps: int,
    lr: float = 0.1,
    momentum: float = 0.0,
    weight_decay: float = 0.0,
    rng: np.random.Generator | None = None,
    metrics: Mapping[str, Callable] | None = None,
    record_every: int = 1,
    callback: Callable | None = None,
    max_abs: float = math.inf,
    on_diverge: str = "raise",
    progress: bool | str = False,
) -> TrainResult:
    """``n_steps`` updates of gradient ascent with classical momentum and weight decay.

    Parameters
    ----------
    params : dict of str -> ndarray, the initial parameters (copied)
    gradient : callable, called as ``gradient(params, rng)`` at every update
        Exact gradients ignore ``rng``; sampled ones raise a TypeError when it is None.
    lr, momentum : float > 0, float in [0, 1)
        ``velocity = momentum * velocity + lr * direction``; ``params += velocity``.
    weight_decay : float >= 0, subtracted times the parameter from the direction of J and W
    rng : numpy.random.Generator, passed on to ``gradient``; needed by sampled gradients
    metrics : dict of str -> callable ``metric(params)``, recorded at step 0, every
        ``record_every`` updates and at the end
    callback : callable ``callback(n_updates, params)`` after every update; True stops
    max_abs, on_diverge : a parameter beyond ``max_abs`` in magnitude (or NaN/inf) is a
        divergence; ``"raise"`` a ``FloatingPointError`` or ``"stop"`` with the last good
        parameters (panels)
    progress : bool or str, a tqdm bar (a string is its label); off by default

    Returns
    -------
    TrainResult
    """
    n_steps = check_positive_int(n_steps, "n_steps")
    record_every = check_positive_int(record_every, "record_every")
    on_diverge = check_choice(on_diverge, "on_diverge", ("raise", "stop"))
    params, lr, momentum, weight_decay = _checked(
        params, gradient, rng, lr, momentum, weight_decay, max_abs
    )
    metrics = dict(metrics or {})
    velocity = {k: np.zeros_like(v) for k, v in params.items()}
    history = History()

    def record(step, g):
        norm = math.sqrt(sum(float(np.vdot(x, x)) for x in g.values()))
        history.record(step, grad_norm=norm, **{n: f(params) for n, f in metrics.items()})

    steps = tqdm(range(n_steps), desc=progress or None, leave=False) if progress else range(n_steps)
    stop_reason = "n_steps"
    n_updates = 0
    # overflow in a diverging run is caught by the finite check, not reported as a warning
    with np.errstate(over="ignore", invalid="ignore"):
        for step in steps:
            g = _direction(gradient, params, rng, weight_decay)
            if step % record_every == 0:
                record(step, g)
            new, velocity = _step(params, velocity, g, lr, momentum)
            if not _within(new, max_abs):
                if on_diverge == "raise":
                    raise FloatingPointError(
                        f"parameters diverged at update {step + 1}; lower lr (now {lr})"
                    )
                stop_reason = "diverged"
                break
            params = new
            n_updates += 1
            g = None  # no direction computed at the new parameters yet
            if callback is not None and callback(n_updates, params):
                stop_reason = "callback"
                break
    if history.steps[-1] != n_updates:
        record(n_updates, g if g is not None else _direction(gradient, params, rng, weight_decay))
    return TrainResult(params, history, n_updates, stop_reason)
