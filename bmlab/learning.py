"""The one training loop of the companion.

Every notebook that learns -- the fully visible machine (Eq. 5.4), the machine with hidden
units, the RBM with contrastive divergence -- calls :func:`train`. What differs between them
is only the *gradient estimator*: a callable

    estimator(params, rng) -> grads

that returns, for a dict of parameter arrays, the gradient of the average log-likelihood
(an *ascent* direction, same keys and shapes as ``params``). Estimators may keep state
(persistent chains) and may offer ``estimator.hessian(params)`` for Newton steps.

The loop adds the optimizer (learning rate, momentum, weight decay, or Newton steps with the
exact Hessian), the history of metrics recorded at chosen steps, and a progress bar that is
silent in tests and recorded notebook outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ._checks import check_choice, check_finite, check_positive_int, check_rng
from ._progress import progress


@dataclass
class History:
    """Metrics recorded during training.

    Attributes
    ----------
    steps : list of int
        Update counts at which metrics were recorded (0 = before the first update).
    values : dict of str -> list
        One list per metric, aligned with ``steps``. ``"grad_norm"`` is always recorded.
    """

    steps: list = field(default_factory=list)
    values: dict = field(default_factory=dict)

    def record(self, step: int, **metrics) -> None:
        self.steps.append(step)
        for name, value in metrics.items():
            self.values.setdefault(name, []).append(value)

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "step":
            return np.asarray(self.steps)
        if name not in self.values:
            raise KeyError(f"no metric {name!r}; recorded: {sorted(self.values)}")
        return np.asarray(self.values[name])


@dataclass
class TrainResult:
    """Final parameters and the recorded history of one call to :func:`train`."""

    params: dict
    history: History


def _flatten(d: Mapping[str, np.ndarray], keys) -> np.ndarray:
    return np.concatenate([np.ravel(d[k]) for k in keys])


def _unflatten(x: np.ndarray, like: Mapping[str, np.ndarray], keys) -> dict:
    out, start = {}, 0
    for k in keys:
        size = np.size(like[k])
        out[k] = x[start : start + size].reshape(np.shape(like[k]))
        start += size
    return out


def grad_norm(grads: Mapping[str, np.ndarray]) -> float:
    """Euclidean norm of all gradient entries together."""
    return float(np.sqrt(sum(float(np.sum(np.square(g))) for g in grads.values())))


def train(
    params: Mapping[str, np.ndarray],
    estimator: Callable,
    *,
    n_steps: int,
    lr: float = 0.1,
    momentum: float = 0.0,
    weight_decay: float = 0.0,
    decay_keys=("J", "W"),
    optimizer: str = "sgd",
    metrics: Mapping[str, Callable] | None = None,
    record_every: int = 1,
    rng: np.random.Generator | None = None,
    desc: str | None = None,
    stop_grad_norm: float | None = None,
) -> TrainResult:
    """Gradient ascent on the average log-likelihood with a pluggable gradient estimator.

    Parameters
    ----------
    params : dict of str -> ndarray
        Initial parameters (copied; the input is not modified).
    estimator : callable
        ``estimator(params, rng) -> grads``: ascent direction of the average log-likelihood,
        same keys and shapes as ``params``. For ``optimizer="newton"`` it must also have
        ``estimator.hessian(params) -> ndarray (P, P)`` over the parameters flattened in
        sorted-key order.
    n_steps : int
        Number of parameter updates.
    lr : float > 0
        Learning rate (step size; for Newton, a damping factor, 1 = full step).
    momentum : float in [0, 1)
        Classical momentum on the update.
    weight_decay : float >= 0
        L2 penalty: ``weight_decay * param`` is subtracted from the gradient of every key in
        ``decay_keys`` (couplings and weights, not biases).
    optimizer : {"sgd", "newton"}
    metrics : dict of str -> callable, optional
        ``metric(params) -> float``, recorded at step 0, every ``record_every`` steps and at
        the end (e.g. the exact average log-likelihood).
    record_every : int
    rng : numpy.random.Generator
        Passed to the estimator (sampling estimators need it).
    desc : str, optional
        Label of the progress bar (shown only when progress bars are enabled).
    stop_grad_norm : float, optional
        Stop early once the gradient norm falls below this value.

    Returns
    -------
    TrainResult
        ``params`` after training and the ``history``; the history always contains
        ``"grad_norm"`` (the estimator's gradient norm before each recorded update).
    """
    n_steps = check_positive_int(n_steps, "n_steps")
    record_every = check_positive_int(record_every, "record_every")
    optimizer = check_choice(optimizer, "optimizer", ("sgd", "newton"))
    lr = float(check_finite(lr, "lr"))
    momentum = float(check_finite(momentum, "momentum"))
    weight_decay = float(check_finite(weight_decay, "weight_decay"))
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    if not 0 <= momentum < 1:
        raise ValueError(f"momentum must be in [0, 1), got {momentum}")
    if weight_decay < 0:
        raise ValueError(f"weight_decay must be >= 0, got {weight_decay}")
    if optimizer == "newton" and not hasattr(estimator, "hessian"):
        raise ValueError("optimizer='newton' needs an estimator with a .hessian(params) method")
    rng = check_rng(rng)
    metrics = dict(metrics or {})
    keys = sorted(params)
    theta = {k: np.array(v, dtype=float) for k, v in params.items()}
    velocity = {k: np.zeros_like(v) for k, v in theta.items()}
    history = History()

    def evaluate(step, gnorm):
        history.record(step, grad_norm=gnorm, **{n: f(theta) for n, f in metrics.items()})

    gnorm = np.nan
    for step in progress(range(n_steps), total=n_steps, desc=desc):
        grads = estimator(theta, rng)
        for k in decay_keys:
            if weight_decay and k in grads:
                grads[k] = grads[k] - weight_decay * theta[k]
        gnorm = grad_norm(grads)
        if step % record_every == 0:
            evaluate(step, gnorm)
        if stop_grad_norm is not None and gnorm < stop_grad_norm:
            break
        if optimizer == "newton":
            H = estimator.hessian(theta)
            if weight_decay:
                H = H - weight_decay * np.diag(
                    _flatten({k: np.full(np.shape(theta[k]), k in decay_keys) for k in keys}, keys)
                )
            g = _flatten(grads, keys)
            step_vec = -np.linalg.lstsq(H, g, rcond=None)[0]
            delta = _unflatten(lr * step_vec, theta, keys)
        else:
            delta = {k: lr * grads[k] for k in keys}
        for k in keys:
            velocity[k] = momentum * velocity[k] + delta[k]
            theta[k] = theta[k] + velocity[k]
        if not all(np.all(np.isfinite(v)) for v in theta.values()):
            raise FloatingPointError(
                f"parameters became non-finite at step {step + 1}; lower lr (now {lr})"
            )
    else:
        step = n_steps
    final = estimator(theta, rng) if history.steps and history.steps[-1] != step else None
    if final is not None:
        evaluate(step, grad_norm(final))
    return TrainResult(params=theta, history=history)
