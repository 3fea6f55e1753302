"""The one training loop: optimizer arithmetic, recording, stopping, validation."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab.learning import History, TrainResult, grad_norm, train

A = np.array([[2.0, 0.5], [0.5, 1.0]])
TARGET = {"W": np.array([1.0, -2.0]), "b": np.array([0.5])}


class Quadratic:
    """L(x) = -1/2 (x - a)^T A (x - a) per key; counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, params, rng):
        self.calls += 1
        return {
            "W": -A @ (params["W"] - TARGET["W"]),
            "b": -(params["b"] - TARGET["b"]),
        }

    def hessian(self, params):
        H = np.zeros((3, 3))
        H[:2, :2] = -A
        H[2, 2] = -1.0
        return H


def start():
    return {"W": np.zeros(2), "b": np.zeros(1)}


def test_sgd_converges_to_the_maximum():
    res = train(start(), Quadratic(), n_steps=400, lr=0.3, rng=np.random.default_rng(0))
    assert isinstance(res, TrainResult)
    np.testing.assert_allclose(res.params["W"], TARGET["W"], atol=1e-8)
    np.testing.assert_allclose(res.params["b"], TARGET["b"], atol=1e-8)
    assert res.stop_reason == "n_steps" and res.n_updates == 400 and not res.converged


def test_input_not_modified_and_sgd_step_is_lr_times_gradient():
    p0 = start()
    res = train(p0, Quadratic(), n_steps=1, lr=0.1, rng=np.random.default_rng(0))
    assert np.all(p0["W"] == 0)
    np.testing.assert_allclose(res.params["W"], 0.1 * A @ TARGET["W"])
    np.testing.assert_allclose(res.params["b"], 0.1 * TARGET["b"])


def test_momentum_accumulates_velocity():
    est = Quadratic()
    res = train(start(), est, n_steps=2, lr=0.1, momentum=0.5, rng=np.random.default_rng(0))
    g0 = A @ TARGET["W"]
    x1 = 0.1 * g0
    v2 = 0.5 * x1 + 0.1 * (-A @ (x1 - TARGET["W"]))
    np.testing.assert_allclose(res.params["W"], x1 + v2)


def test_newton_reaches_the_maximum_in_one_full_step():
    res = train(
        start(), Quadratic(), n_steps=5, lr=1.0, optimizer="newton", stop_grad_norm=1e-12
    )
    assert res.n_updates == 1 and res.converged
    np.testing.assert_allclose(res.params["W"], TARGET["W"], atol=1e-12)
    assert list(res.history["step"]) == [0, 1]


def test_weight_decay_shifts_the_optimum_sgd_and_newton_agree():
    wd = 0.5
    expected = np.linalg.solve(A + wd * np.eye(2), A @ TARGET["W"])
    for kw in ({"optimizer": "sgd", "lr": 0.3, "n_steps": 500},
               {"optimizer": "newton", "lr": 1.0, "n_steps": 3}):
        res = train(start(), Quadratic(), weight_decay=wd, decay_keys=("W",), **kw)
        np.testing.assert_allclose(res.params["W"], expected, atol=1e-8)
        np.testing.assert_allclose(res.params["b"], TARGET["b"], atol=1e-8)  # not decayed
        assert res.history.last("grad_norm") < 1e-8  # final norm includes the decay term


def test_decay_keys_as_a_single_string():
    res = train(start(), Quadratic(), n_steps=500, lr=0.3, weight_decay=0.5, decay_keys="b")
    np.testing.assert_allclose(res.params["b"], TARGET["b"] / 1.5, atol=1e-8)


def test_history_records_chosen_steps_and_the_final_state():
    res = train(
        start(), Quadratic(), n_steps=10, lr=0.1, record_every=4,
        metrics={"W0": lambda p: float(p["W"][0])},
    )
    h = res.history
    assert list(h["step"]) == [0, 4, 8, 10]
    assert h["W0"].shape == (4,) and h["W0"][0] == 0.0
    assert h["W0"][-1] == pytest.approx(res.params["W"][0])
    assert len(h) == 4 and "W0" in h and "step" in h and "nope" not in h
    assert h.keys() == ["step", "grad_norm", "W0"]
    # recorded gradient norms are the true norms at those states
    final = grad_norm(Quadratic()(res.params, None))
    assert h.last("grad_norm") == pytest.approx(final)
    with pytest.raises(KeyError, match="no metric"):
        h["nope"]


def test_record_every_step_has_no_duplicate_final_entry():
    res = train(start(), Quadratic(), n_steps=3, lr=0.1)
    assert list(res.history["step"]) == [0, 1, 2, 3]


def test_grad_norm_falls_monotonically_on_a_quadratic():
    res = train(start(), Quadratic(), n_steps=50, lr=0.3)
    assert np.all(np.diff(res.history["grad_norm"]) < 0)


def test_early_stop_records_without_an_extra_estimator_call():
    est = Quadratic()
    res = train(start(), est, n_steps=10_000, lr=0.3, record_every=7, stop_grad_norm=1e-6)
    assert res.converged and res.n_updates < 10_000
    assert res.history.last("step") == res.n_updates
    assert res.history.last("grad_norm") < 1e-6
    assert est.calls == res.n_updates + 1


def test_divergence_raises_or_stops_with_last_good_params():
    with pytest.raises(FloatingPointError, match="lower lr"):
        train(start(), Quadratic(), n_steps=3000, lr=50.0)
    res = train(start(), Quadratic(), n_steps=3000, lr=50.0, on_nonfinite="stop")
    assert res.diverged and res.stop_reason == "nonfinite"
    assert all(np.all(np.isfinite(v)) for v in res.params.values())
    assert np.all(np.isfinite(res.history["grad_norm"]))
    res = train(start(), Quadratic(), n_steps=3000, lr=50.0, on_nonfinite="stop", max_abs=1e3)
    assert res.stop_reason == "diverged"
    assert max(np.abs(v).max() for v in res.params.values()) <= 1e3
    assert res.history.last("step") == res.n_updates


def test_callback_sees_every_update_and_can_stop():
    seen = []

    def cb(n, params):
        seen.append(n)
        return n == 3

    res = train(start(), Quadratic(), n_steps=10, lr=0.1, callback=cb)
    assert seen == [1, 2, 3] and res.stop_reason == "callback" and res.n_updates == 3


class SymmetricPairs:
    """A symmetric matrix J with one parameter per pair i<j; L = -1/2 sum_{i<j} c_p (u_p-t_p)^2."""

    n = 3
    iu = np.triu_indices(3, 1)
    c = np.array([1.0, 2.0, 4.0])
    t = np.array([0.3, -0.7, 1.1])

    def __call__(self, params, rng):
        u = params["J"][self.iu]
        G = np.zeros((3, 3))
        G[self.iu] = -self.c * (u - self.t)
        return {"J": G + G.T}

    def pack(self, arrays):
        return arrays["J"][self.iu]

    def unpack(self, x):
        M = np.zeros((3, 3))
        M[self.iu] = x
        return {"J": M + M.T}

    def hessian(self, params):
        return -np.diag(self.c)


def test_estimator_coordinates_give_the_exact_newton_step_and_pair_norm():
    est = SymmetricPairs()
    res = train({"J": np.zeros((3, 3))}, est, n_steps=1, lr=1.0, optimizer="newton")
    T = np.zeros((3, 3))
    T[est.iu] = est.t
    np.testing.assert_allclose(res.params["J"], T + T.T, atol=1e-12)
    assert res.history["grad_norm"][0] == pytest.approx(np.linalg.norm(est.c * est.t))
    assert res.history.last("grad_norm") < 1e-12


def test_progress_is_silent_when_switched_off(monkeypatch, capsys):
    monkeypatch.setenv("BMLAB_PROGRESS", "0")
    train(start(), Quadratic(), n_steps=20, lr=0.1, desc="quiet")
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"n_steps": 0}, ValueError, "n_steps"),
        ({"n_steps": 2.5}, TypeError, "n_steps"),
        ({"lr": 0.0}, ValueError, "lr"),
        ({"lr": np.nan}, ValueError, "lr"),
        ({"momentum": 1.0}, ValueError, "momentum"),
        ({"weight_decay": -1.0}, ValueError, "weight_decay"),
        ({"optimizer": "adam"}, ValueError, "optimizer"),
        ({"record_every": 0}, ValueError, "record_every"),
        ({"rng": 3}, TypeError, "rng"),
        ({"stop_grad_norm": -1.0}, ValueError, "stop_grad_norm"),
        ({"on_nonfinite": "ignore"}, ValueError, "on_nonfinite"),
        ({"max_abs": 0.0}, ValueError, "max_abs"),
        ({"metrics": {"grad_norm": len}}, ValueError, "reserved"),
        ({"metrics": {"x": 3}}, TypeError, "metric"),
        ({"callback": 3}, TypeError, "callback"),
    ],
)
def test_invalid_arguments_name_the_parameter(kwargs, err, match):
    kw = {"n_steps": 2} | kwargs
    with pytest.raises(err, match=match):
        train(start(), Quadratic(), **kw)


def test_invalid_estimators_and_params():
    with pytest.raises(ValueError, match="hessian"):
        train(start(), lambda p, r: p, n_steps=1, optimizer="newton")
    with pytest.raises(TypeError, match="estimator"):
        train(start(), 3, n_steps=1)
    with pytest.raises(ValueError, match="keys"):
        train(start(), lambda p, r: {"W": p["W"]}, n_steps=1)
    with pytest.raises(ValueError, match="shape"):
        train(start(), lambda p, r: {"W": np.zeros(3), "b": np.zeros(1)}, n_steps=1)
    with pytest.raises(TypeError, match="dict"):
        train(start(), lambda p, r: [1], n_steps=1)
    with pytest.raises(TypeError, match="params"):
        train({}, Quadratic(), n_steps=1)
    with pytest.raises(ValueError, match="finite"):
        train({"W": np.array([np.nan, 0]), "b": np.zeros(1)}, Quadratic(), n_steps=1)

    class BadHessian(Quadratic):
        def hessian(self, params):
            return np.eye(2)

    with pytest.raises(ValueError, match="hessian returned shape"):
        train(start(), BadHessian(), n_steps=1, optimizer="newton")


def test_history_direct_use():
    h = History()
    with pytest.raises(KeyError, match="empty"):
        h.last("step")
    h.record(0, a=1.0)
    h.record(5, a=2.0)
    np.testing.assert_array_equal(h["a"], [1.0, 2.0])
    assert h.last("step") == 5


class LogCosh:
    """L(x) = -log cosh(x - 3): plain Newton from 0 overshoots and diverges."""

    def __call__(self, params, rng):
        return {"x": -np.tanh(params["x"] - 3.0)}

    def hessian(self, params):
        return np.array([[-1.0 / np.cosh(params["x"][0] - 3.0) ** 2]])


class LogCoshWithObjective(LogCosh):
    def objective(self, params):
        z = params["x"][0] - 3.0
        return -(abs(z) + np.log1p(np.exp(-2 * abs(z))) - np.log(2))


def test_newton_backtracks_when_the_objective_is_known():
    x0 = {"x": np.zeros(1)}
    plain = train(x0, LogCosh(), n_steps=10, lr=1.0, optimizer="newton", on_nonfinite="stop",
                  max_abs=1e6)
    assert abs(plain.params["x"][0] - 3.0) > 1.0  # overshoots
    safe = train(x0, LogCoshWithObjective(), n_steps=50, lr=1.0, optimizer="newton",
                 stop_grad_norm=1e-12)
    assert safe.converged
    assert safe.params["x"][0] == pytest.approx(3.0, abs=1e-10)


def test_progress_bar_false_is_silent_even_when_enabled(monkeypatch, capsys):
    monkeypatch.setenv("BMLAB_PROGRESS", "1")
    train(start(), Quadratic(), n_steps=20, lr=0.1, progress_bar=False)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_huge_finite_parameters_are_not_mistaken_for_overflow():
    """The one-reduction finiteness check may overflow on huge finite entries; the loop then
    looks closer instead of stopping."""
    big = {"W": np.full(4, 1e308)}
    res = train(big, lambda p, r: {"W": np.zeros(4)}, n_steps=3, lr=0.1)
    assert res.stop_reason == "n_steps" and res.n_updates == 3
    np.testing.assert_array_equal(res.params["W"], big["W"])


def test_estimators_returning_lists_are_converted_at_every_step():
    res = train(start(), lambda p, r: {"W": [1.0, 2.0], "b": [0.5]}, n_steps=5, lr=0.1,
                record_every=10)
    np.testing.assert_allclose(res.params["W"], [0.5, 1.0])
    np.testing.assert_allclose(res.params["b"], [0.25])


class Replay:
    """An estimator returning prescribed gradients in turn."""

    def __init__(self, grads):
        self.grads = iter(grads)

    def __call__(self, params, rng):
        return next(self.grads)


def test_sgd_arithmetic_is_theta_plus_lr_times_gradient_exactly():
    """The flat update reproduces the per-array arithmetic bit for bit (notebook outputs
    depend on it)."""
    rng = np.random.default_rng(3)
    grads = [{"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)} for _ in range(6)]
    for momentum in (0.0, 0.7):
        res = train({"W": np.ones((3, 2)), "b": np.zeros(2)}, Replay(grads),
                    n_steps=5, lr=0.3, momentum=momentum, weight_decay=0.01, decay_keys="W")
        theta = {"W": np.ones((3, 2)), "b": np.zeros(2)}
        vel = {k: np.zeros_like(v) for k, v in theta.items()}
        for g in grads[:5]:
            g = dict(g, W=g["W"] - 0.01 * theta["W"])
            vel = {k: momentum * vel[k] + 0.3 * g[k] for k in theta}
            theta = {k: theta[k] + vel[k] for k in theta}
        for k in theta:
            np.testing.assert_array_equal(res.params[k], theta[k])


def test_estimator_overflow_surfaces_as_nonfinite_parameters_not_a_warning():
    """The loop runs with numpy's floating-point warnings off (it checks the parameters
    itself): an estimator that overflows gives the loop's clear error, or a clean stop."""

    def overflowing(params, rng):
        return {k: np.exp(np.full(np.shape(v), 1000.0)) for k, v in params.items()}

    with pytest.raises(FloatingPointError, match="non-finite at update 1"):
        train(start(), overflowing, n_steps=3)
    res = train(start(), overflowing, n_steps=3, on_nonfinite="stop")
    assert res.stop_reason == "nonfinite" and res.n_updates == 0


def test_metrics_run_with_the_callers_floating_point_settings():
    def log_of_zero(params):
        return float(np.log(np.zeros(1))[0])

    with pytest.warns(RuntimeWarning, match="divide by zero"):
        train(start(), Quadratic(), n_steps=2, metrics={"m": log_of_zero})
    with np.errstate(divide="ignore"):
        res = train(start(), Quadratic(), n_steps=2, metrics={"m": log_of_zero})
    assert np.all(res.history["m"] == -np.inf)
