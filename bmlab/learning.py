"""The one training loop of the companion.

Every notebook that learns -- the fully visible machine (Eq. 5.4), the machine with hidden
units, the RBM with contrastive divergence -- calls :func:`train`. What differs between them
is only the *gradient estimator*: a callable

    estimator(params, rng) -> grads

that returns, for a dict of parameter arrays, the gradient of the average log-likelihood
(an *ascent* direction, same keys and shapes as ``params``). Estimators may keep state
(persistent chains) and may offer ``estimator.hessian(params)`` for Newton steps.

Parameter coordinates
---------------------
By default the loop treats every entry of every array as one coordinate, flattened in
sorted-key order (this is the order of ``estimator.hessian``'s rows and of the gradient
norm). An estimator whose arrays hold *tied* entries -- a symmetric coupling matrix ``J``
where the pair ``(J_ij, J_ji)`` is one parameter, and the diagonal is no parameter at all --
may declare its own coordinates with two optional methods

    estimator.pack(arrays) -> ndarray (P,)      # dict of arrays -> free coordinates
    estimator.unpack(vector) -> dict of arrays  # inverse (a step in free coordinates)

and then ``estimator.hessian`` and the recorded gradient norm use those P coordinates.

The loop adds the optimizer (learning rate, momentum, weight decay, or Newton steps with the
exact Hessian), the history of metrics recorded at chosen steps, and a progress bar that is
silent in tests and recorded notebook outputs.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ._checks import check_choice, check_finite, check_positive_int, check_rng
from ._progress import progress

_STOP_REASONS = ("n_steps", "grad_norm", "nonfinite", "diverged", "callback")


@dataclass
class History:
    """Metrics recorded during training.

    Attributes
    ----------
    steps : list of int
        Update counts at which metrics were recorded (0 = before the first update; the last
        entry is the number of updates actually made).
    values : dict of str -> list
        One list per metric, aligned with ``steps``. ``"grad_norm"`` is always recorded.

    ``history["name"]`` returns the metric as an array of shape (n_records,) (or
    (n_records, ...) for array-valued metrics); ``history["step"]`` the steps.
    """

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

    def __contains__(self, name) -> bool:
        return name == "step" or name in self.values

    def __len__(self) -> int:
        return len(self.steps)

    def keys(self) -> list:
        """Names of the recorded metrics (plus ``"step"``)."""
        return ["step", *self.values]

    def last(self, name: str):
        """The most recent value of a metric (or of ``"step"``)."""
        if not self.steps:
            raise KeyError("the history is empty")
        return self[name][-1]


@dataclass
class TrainResult:
    """Final parameters and the recorded history of one call to :func:`train`.

    Attributes
    ----------
    params : dict of str -> ndarray
        Parameters after the last update (the last *finite* ones if training diverged).
    history : History
    n_updates : int
        Number of parameter updates made.
    stop_reason : str
        ``"n_steps"`` (ran to the end), ``"grad_norm"`` (gradient norm below
        ``stop_grad_norm``), ``"nonfinite"`` or ``"diverged"`` (stopped because an update
        produced non-finite or too large parameters; only with ``on_nonfinite="stop"``),
        ``"callback"`` (the callback asked to stop).
    """

    params: dict
    history: History
    n_updates: int = 0
    stop_reason: str = "n_steps"

    @property
    def converged(self) -> bool:
        """True when training stopped because the gradient norm fell below the threshold."""
        return self.stop_reason == "grad_norm"

    @property
    def diverged(self) -> bool:
        """True when training stopped because the parameters blew up."""
        return self.stop_reason in ("nonfinite", "diverged")


def _flatten(d: Mapping[str, np.ndarray], keys) -> np.ndarray:
    return np.concatenate([np.ravel(d[k]) for k in keys])


def _unflatten(x: np.ndarray, like: Mapping[str, np.ndarray], keys) -> dict:
    out, start = {}, 0
    for k in keys:
        size = np.size(like[k])
        out[k] = x[start : start + size].reshape(np.shape(like[k]))
        start += size
    return out


def _stable_norm(x: np.ndarray) -> float:
    """Euclidean norm without overflow for huge (finite) entries."""
    x = np.ravel(np.asarray(x, dtype=float))
    if x.size == 0:
        return 0.0
    scale = float(np.max(np.abs(x)))
    if scale == 0.0 or not np.isfinite(scale):
        return scale
    return scale * float(np.sqrt(np.sum(np.square(x / scale))))


def grad_norm(grads: Mapping[str, np.ndarray]) -> float:
    """Euclidean norm of all gradient entries together (every array entry counted once)."""
    return _stable_norm(np.concatenate([np.ravel(g) for g in grads.values()]))


def _check_grads(grads, params: Mapping[str, np.ndarray]) -> None:
    """The estimator must return a dict with the parameters' keys and shapes."""
    if not isinstance(grads, Mapping):
        raise TypeError(
            f"the estimator must return a dict of gradient arrays, got {type(grads).__name__}"
        )
    if set(grads) != set(params):
        raise ValueError(
            f"the estimator returned keys {sorted(grads)} but the parameters are {sorted(params)}"
        )
    for k, g in grads.items():
        if np.shape(g) != np.shape(params[k]):
            raise ValueError(
                f"the estimator's gradient for {k!r} has shape {np.shape(g)}, "
                f"the parameter has shape {np.shape(params[k])}"
            )


def _backtrack(objective, theta, delta, keys, max_halvings: int = 40) -> dict:
    """Halve a Newton step until the objective does not decrease (damped Newton).

    Far from the optimum a full Newton step on a log-partition function can overshoot by
    orders of magnitude (the Hessian is nearly singular along saturated directions); with
    the exact objective available, halving the step makes Newton globally convergent.
    Called inside :func:`train`'s errstate (overflowing trials are simply rejected).
    """
    base = objective(theta)
    for _ in range(max_halvings):
        trial = {k: theta[k] + delta[k] for k in keys}
        if all(np.all(np.isfinite(v)) for v in trial.values()):
            value = objective(trial)
            if np.isfinite(value) and value >= base - 1e-12 * max(1.0, abs(base)):
                return delta
        delta = {k: 0.5 * delta[k] for k in keys}
    return delta


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
    on_nonfinite: str = "raise",
    max_abs: float | None = None,
    callback: Callable | None = None,
    progress_bar: bool = True,
) -> TrainResult:
    """Gradient ascent on the average log-likelihood with a pluggable gradient estimator.

    Parameters
    ----------
    params : dict of str -> ndarray
        Initial parameters (copied; the input is not modified).
    estimator : callable
        ``estimator(params, rng) -> grads``: ascent direction of the average log-likelihood,
        same keys and shapes as ``params``. For ``optimizer="newton"`` it must also have
        ``estimator.hessian(params) -> ndarray (P, P)``: the Hessian of the average
        log-likelihood over the parameters flattened in sorted-key order, or over the
        coordinates of ``estimator.pack`` / ``estimator.unpack`` when it has them (see the
        module docstring). If it also has ``estimator.objective(params) -> float`` (the
        exact average log-likelihood), each Newton step is halved until the objective
        (minus the weight-decay penalty) does not decrease.
    n_steps : int >= 1
        Maximum number of parameter updates.
    lr : float > 0
        Learning rate (step size; for Newton, a damping factor, 1 = full step).
    momentum : float in [0, 1)
        Classical momentum on the update.
    weight_decay : float >= 0
        L2 penalty: ``weight_decay * param`` is subtracted from the gradient of every key in
        ``decay_keys`` (couplings and weights, not biases).
    decay_keys : iterable of str
        Keys that weight decay applies to (keys absent from ``params`` are ignored).
    optimizer : {"sgd", "newton"}
    metrics : dict of str -> callable, optional
        ``metric(params) -> float`` (or array), recorded at step 0, every ``record_every``
        updates and after the last update (e.g. the exact average log-likelihood). Metrics
        run with the caller's numpy floating-point error settings.
    record_every : int >= 1
    rng : numpy.random.Generator
        Passed to the estimator (sampling estimators need it).
    desc : str, optional
        Label of the progress bar (shown only when progress bars are enabled).
    stop_grad_norm : float > 0, optional
        Stop early once the gradient norm falls below this value (that state is recorded).
    on_nonfinite : {"raise", "stop"}
        What to do when an update makes a parameter NaN/inf or larger than ``max_abs``:
        raise ``FloatingPointError``, or stop and return the last good parameters with
        ``stop_reason`` ``"nonfinite"`` / ``"diverged"`` (what live panels want).
    max_abs : float > 0, optional
        Treat any parameter with ``|value| > max_abs`` as divergence (see ``on_nonfinite``).
    callback : callable, optional
        ``callback(n_updates, params)`` after every update; returning True stops training.
        The ``params`` dict that metrics and the callback receive holds views of the loop's
        working buffers, valid only during the call: copy (``{k: v.copy() ...}``) what you
        keep.
    progress_bar : bool
        False never shows the tqdm bar (live panels draw their own); True shows it unless
        ``BMLAB_PROGRESS=0``.

    Returns
    -------
    TrainResult
        ``params`` after training, the ``history`` (always containing ``"grad_norm"``: the
        norm of the ascent direction -- including weight decay -- at each recorded step),
        ``n_updates`` and ``stop_reason``. The last history entry is always the final state.

    Notes
    -----
    The loop itself checks every update for non-finite or too large parameters (see
    ``on_nonfinite``), so the estimator, the update and the callback run with numpy's
    floating-point warnings off (``np.errstate(all="ignore")``, entered once per call: at
    small batch sizes a per-update errstate costs about as much as a Gibbs step). Trouble
    inside an estimator therefore surfaces as non-finite parameters, not as a warning.
    """
    n_steps = check_positive_int(n_steps, "n_steps")
    record_every = check_positive_int(record_every, "record_every")
    optimizer = check_choice(optimizer, "optimizer", ("sgd", "newton"))
    on_nonfinite = check_choice(on_nonfinite, "on_nonfinite", ("raise", "stop"))
    lr = float(check_finite(lr, "lr"))
    momentum = float(check_finite(momentum, "momentum"))
    weight_decay = float(check_finite(weight_decay, "weight_decay"))
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    if not 0 <= momentum < 1:
        raise ValueError(f"momentum must be in [0, 1), got {momentum}")
    if weight_decay < 0:
        raise ValueError(f"weight_decay must be >= 0, got {weight_decay}")
    if stop_grad_norm is not None:
        stop_grad_norm = float(check_finite(stop_grad_norm, "stop_grad_norm"))
        if stop_grad_norm <= 0:
            raise ValueError(f"stop_grad_norm must be > 0, got {stop_grad_norm}")
    if max_abs is not None:
        max_abs = float(check_finite(max_abs, "max_abs"))
        if max_abs <= 0:
            raise ValueError(f"max_abs must be > 0, got {max_abs}")
    if isinstance(decay_keys, str):
        decay_keys = (decay_keys,)
    decay_keys = tuple(decay_keys)
    if not callable(estimator):
        raise TypeError(f"estimator must be callable, got {type(estimator).__name__}")
    if optimizer == "newton" and not callable(getattr(estimator, "hessian", None)):
        raise ValueError("optimizer='newton' needs an estimator with a .hessian(params) method")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {type(callback).__name__}")
    if not isinstance(params, Mapping) or not params:
        raise TypeError("params must be a non-empty dict of str -> array")
    metrics = dict(metrics or {})
    for name, f in metrics.items():
        if not callable(f):
            raise TypeError(f"metric {name!r} must be callable params -> value")
        if name in ("grad_norm", "step"):
            raise ValueError(f"metric name {name!r} is reserved")
    rng = check_rng(rng)
    keys = sorted(params)
    start_values = {k: check_finite(params[k], f"params[{k!r}]") for k in keys}
    # All parameters live in one flat vector (sorted-key order) and ``theta`` holds views of
    # it, so an update is a few whole-vector operations instead of a few per array. Two such
    # vectors alternate: the update is written into the other one, which becomes ``theta``
    # only if it is finite (the last good parameters survive a divergence).
    slots, offset = [], 0
    for k in keys:
        size = start_values[k].size
        slots.append((k, offset, offset + size, start_values[k].shape))
        offset += size

    def views(flat):
        return {k: flat[lo:hi].reshape(shape) for k, lo, hi, shape in slots}

    flats = [np.concatenate([start_values[k] for k in keys], axis=None)]
    flats.append(np.empty_like(flats[0]))
    flat_views = [views(flats[0]), views(flats[1])]
    slot = 0  # index of the vector holding theta
    theta_flat, theta = flats[0], flat_views[0]
    velocity = np.zeros_like(theta_flat)
    has_coords = callable(getattr(estimator, "pack", None)) and callable(
        getattr(estimator, "unpack", None)
    )
    pack = estimator.pack if has_coords else (lambda d: _flatten(d, keys))
    unpack = estimator.unpack if has_coords else (lambda x: _unflatten(x, theta, keys))
    decayed = [k for k in keys if k in decay_keys]
    objective = None
    if optimizer == "newton" and callable(getattr(estimator, "objective", None)):
        if weight_decay:
            def objective(p):
                return estimator.objective(p) - 0.5 * weight_decay * sum(
                    float(np.sum(np.square(p[k]))) for k in decayed
                )
        else:
            objective = estimator.objective
    history = History()
    recording = record_every  # steps with step % record_every == 0 are recorded

    def ascent(at, validate):
        """The ascent direction at ``at`` (weight decay included).

        The estimator's dict is validated (keys, shapes) and converted to float arrays on the
        first step (step 0 is always recorded) and on recording steps; in between the loop
        trusts an estimator that returned float64 arrays (at small batch sizes these checks
        would cost more than the estimate itself).
        """
        nonlocal convert
        grads = estimator(at, rng)
        if validate or convert:
            _check_grads(grads, at)
            raw, grads = grads, {k: np.asarray(grads[k], dtype=float) for k in keys}
            convert = any(grads[k] is not raw[k] for k in keys)
        if weight_decay:
            grads = dict(grads)
            for k in decayed:
                grads[k] = grads[k] - weight_decay * at[k]
        return grads

    def norm(grads):
        return _stable_norm(pack(grads)) if has_coords else grad_norm(grads)

    caller_errors = np.geterr()

    def evaluate(step, gnorm):
        with np.errstate(**caller_errors):
            values = {n: f(theta) for n, f in metrics.items()}
        history.record(step, grad_norm=gnorm, **values)

    def newton_delta(grads):
        """The (damped) Newton step at ``theta``, as a dict like ``params``."""
        H = np.asarray(estimator.hessian(theta), dtype=float)
        g = pack(grads)
        if H.shape != (g.size, g.size):
            raise ValueError(
                f"estimator.hessian returned shape {H.shape}; expected "
                f"({g.size}, {g.size}) for the {g.size} parameter coordinates"
            )
        if weight_decay:
            mask = {k: np.full(np.shape(theta[k]), float(k in decayed)) for k in keys}
            H = H - weight_decay * np.diag(pack(mask))
        delta = unpack(-lr * np.linalg.lstsq(H, g, rcond=None)[0])
        if objective is not None:
            delta = _backtrack(objective, theta, delta, keys)
        return delta

    def bad(flat):
        """``"nonfinite"``, ``"diverged"`` or None for a candidate parameter vector."""
        if not np.all(np.isfinite(flat)):
            return "nonfinite"
        if max_abs is not None and np.max(np.abs(flat)) > max_abs:
            return "diverged"
        return None

    convert = True  # stays True for estimators that do not return float64 ndarrays
    stop_reason = "n_steps"
    n_updates = 0
    newton = optimizer == "newton"
    # the arrays of a gradient dict in flat (sorted-key) order, as a tuple
    gather = operator.itemgetter(*keys) if len(keys) > 1 else (lambda d: (d[keys[0]],))
    gnorm = None  # norm of the ascent direction at the current ``theta``, once known
    grads = None  # ascent direction at the current ``theta``, once known
    bar = progress(range(n_steps), total=n_steps, desc=desc) if progress_bar else range(n_steps)
    # see Notes: one errstate for the whole loop; metrics restore the caller's settings
    with np.errstate(all="ignore"):
        try:
            for step in bar:
                record = step % recording == 0
                grads = ascent(theta, record)
                gnorm = norm(grads) if (record or stop_grad_norm is not None) else None
                if record:
                    evaluate(step, gnorm)
                if stop_grad_norm is not None and gnorm < stop_grad_norm:
                    stop_reason = "grad_norm"
                    break
                if newton:
                    step_flat = np.concatenate(gather(newton_delta(grads)), axis=None)
                else:
                    step_flat = np.concatenate(gather(grads), axis=None)
                    step_flat *= lr
                # classical momentum; with momentum 0 the velocity term is exactly 0
                if momentum:
                    step_flat = momentum * velocity + step_flat
                new_flat = np.add(theta_flat, step_flat, out=flats[1 - slot])
                # one reduction when all is well: inf / nan propagate into the sum (which
                # may also overflow for huge finite entries -- then look closer)
                problem = None
                if max_abs is not None or not math.isfinite(np.add.reduce(new_flat)):
                    problem = bad(new_flat)
                if problem is not None:
                    if on_nonfinite == "raise":
                        what = ("non-finite" if problem == "nonfinite"
                                else f"larger than {max_abs}")
                        raise FloatingPointError(
                            f"parameters became {what} at update {n_updates + 1}; "
                            f"lower lr (now {lr})"
                        )
                    stop_reason = problem
                    break
                slot = 1 - slot
                theta_flat, theta, velocity = new_flat, flat_views[slot], step_flat
                n_updates += 1
                gnorm = grads = None
                if callback is not None and callback(n_updates, theta):
                    stop_reason = "callback"
                    break
        finally:
            if hasattr(bar, "close"):
                bar.close()
        if not history.steps or history.steps[-1] != n_updates:
            if gnorm is None:
                gnorm = norm(grads if grads is not None else ascent(theta, True))
            evaluate(n_updates, gnorm)
    return TrainResult(params=theta, history=history, n_updates=n_updates, stop_reason=stop_reason)
