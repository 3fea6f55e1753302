"""The one training loop: update arithmetic, weight decay on J/W only, recording, stopping,
divergence and validation. Expected values are closed forms, not types."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab.learning import train

A = np.array([[2.0, 0.5], [0.5, 1.0]])
TARGET = {"W": np.array([1.0, -2.0]), "b": np.array([0.5])}


def quadratic(params, rng=None):
    """Ascent direction of L = -1/2 (W - t)^T A (W - t) - 1/2 (b - t_b)^2 (an exact gradient:
    ``rng`` is ignored)."""
    return {"W": -A @ (params["W"] - TARGET["W"]), "b": -(params["b"] - TARGET["b"])}


def start():
    return {"W": np.zeros(2), "b": np.zeros(1)}


def test_one_step_is_lr_times_the_gradient_and_the_input_is_not_modified():
    p0 = start()
    res = train(p0, quadratic, n_steps=1, lr=0.1)
    assert np.all(p0["W"] == 0)
    np.testing.assert_array_equal(res.params["W"], 0.1 * (A @ TARGET["W"]))
    np.testing.assert_array_equal(res.params["b"], 0.1 * TARGET["b"])
    assert res.n_updates == 1 and res.stop_reason == "n_steps" and not res.diverged


def test_gradient_ascent_converges_to_the_maximum():
    res = train(start(), quadratic, n_steps=400, lr=0.3)
    np.testing.assert_allclose(res.params["W"], TARGET["W"], atol=1e-10)
    np.testing.assert_allclose(res.params["b"], TARGET["b"], atol=1e-10)
    assert np.all(np.diff(res.history["grad_norm"][:50]) < 0)


def test_momentum_accumulates_velocity():
    res = train(start(), quadratic, n_steps=2, lr=0.1, momentum=0.5)
    x1 = 0.1 * (A @ TARGET["W"])
    v2 = 0.5 * x1 + 0.1 * (-A @ (x1 - TARGET["W"]))
    np.testing.assert_allclose(res.params["W"], x1 + v2, rtol=1e-15)


def test_weight_decay_shrinks_J_and_W_only():
    p0 = {
        "J": np.full((2, 2), 2.0),
        "W": np.full(3, -1.0),
        "theta": np.ones(2),
        "a": np.ones(3),
        "b": np.ones(1),
    }
    res = train(
        p0,
        lambda p, rng: {k: np.zeros_like(v) for k, v in p.items()},
        n_steps=10,
        lr=0.1,
        weight_decay=0.5,
    )
    np.testing.assert_allclose(res.params["J"], 2.0 * 0.95**10, rtol=1e-14)
    np.testing.assert_allclose(res.params["W"], -(0.95**10), rtol=1e-14)
    for key in ("theta", "a", "b"):
        np.testing.assert_array_equal(res.params[key], p0[key])


def test_weight_decay_shifts_the_optimum_and_is_in_the_recorded_norm():
    wd = 0.5
    res = train(start(), quadratic, n_steps=500, lr=0.3, weight_decay=wd)
    np.testing.assert_allclose(
        res.params["W"], np.linalg.solve(A + wd * np.eye(2), A @ TARGET["W"]), atol=1e-10
    )
    np.testing.assert_allclose(res.params["b"], TARGET["b"], atol=1e-10)  # b is not decayed
    assert res.history.last("grad_norm") < 1e-10


def test_every_gradient_is_called_with_params_and_the_rng():
    calls = []
    rng = np.random.default_rng(0)

    def gradient(params, generator):
        calls.append(generator)
        return {k: np.zeros_like(v) for k, v in params.items()}

    train(start(), gradient, n_steps=2, rng=rng)
    assert calls == [rng, rng, rng]  # two updates and the final record
    calls.clear()
    train(start(), gradient, n_steps=1)  # no rng: None is passed on, one way of calling
    assert calls == [None, None]


def test_a_parameter_exactly_at_max_abs_is_not_a_divergence():
    def constant(params, rng):
        return {"W": np.ones(1)}

    res = train({"W": np.zeros(1)}, constant, n_steps=3, lr=1.0, max_abs=2.0, on_diverge="stop")
    assert res.n_updates == 2 and res.params["W"][0] == 2.0 and res.stop_reason == "diverged"
    res = train({"W": np.zeros(1)}, constant, n_steps=2, lr=1.0, max_abs=2.0)
    assert not res.diverged and res.params["W"][0] == 2.0


def test_history_records_chosen_steps_metrics_and_true_gradient_norms():
    res = train(
        start(),
        quadratic,
        n_steps=10,
        lr=0.1,
        record_every=4,
        metrics={"W0": lambda p: float(p["W"][0])},
    )
    h = res.history
    assert list(h["step"]) == [0, 4, 8, 10]
    assert h["W0"][0] == 0.0 and h.last("W0") == res.params["W"][0]
    g = quadratic(res.params)
    norm = np.sqrt(np.sum(g["W"] ** 2) + np.sum(g["b"] ** 2))
    assert h.last("grad_norm") == pytest.approx(norm, rel=1e-14)
    assert h["grad_norm"][0] == pytest.approx(np.sqrt(np.sum((A @ TARGET["W"]) ** 2) + 0.25))
    with pytest.raises(KeyError, match="no metric"):
        h["nope"]
    assert list(train(start(), quadratic, n_steps=3).history["step"]) == [0, 1, 2, 3]


def test_callback_sees_every_update_and_can_stop():
    seen = []

    def callback(n, params):
        seen.append(n)
        return n == 3

    res = train(start(), quadratic, n_steps=10, lr=0.1, callback=callback)
    assert seen == [1, 2, 3] and res.stop_reason == "callback" and res.n_updates == 3
    assert res.history.last("step") == 3


def test_divergence_raises_or_stops_with_the_last_good_params():
    with pytest.raises(FloatingPointError, match="lower lr"):
        train(start(), quadratic, n_steps=3000, lr=50.0)
    res = train(start(), quadratic, n_steps=3000, lr=50.0, on_diverge="stop")
    assert res.diverged and res.stop_reason == "diverged" and 0 < res.n_updates < 3000
    assert all(np.all(np.isfinite(v)) for v in res.params.values())
    assert res.history.last("step") == res.n_updates
    res = train(start(), quadratic, n_steps=3000, lr=50.0, on_diverge="stop", max_abs=1e3)
    assert res.diverged and max(np.abs(v).max() for v in res.params.values()) <= 1e3


def test_overflow_and_nan_are_caught_by_the_finite_check_without_warnings():
    """Tests run with warnings as errors: an overflowing gradient must not warn."""

    def overflowing(params, rng):
        return {k: np.exp(np.full(np.shape(v), 1000.0)) for k, v in params.items()}

    with pytest.raises(FloatingPointError, match="update 1"):
        train(start(), overflowing, n_steps=3)
    res = train(start(), overflowing, n_steps=3, on_diverge="stop")
    assert res.stop_reason == "diverged" and res.n_updates == 0
    np.testing.assert_array_equal(res.params["W"], np.zeros(2))
    res = train(
        start(),
        lambda p, rng: {"W": np.array([np.nan, 0.0]), "b": np.zeros(1)},
        n_steps=3,
        on_diverge="stop",
    )
    assert res.stop_reason == "diverged" and res.n_updates == 0


def test_progress_off_by_default_is_silent(capsys):
    train(start(), quadratic, n_steps=20, lr=0.1)
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
        ({"record_every": 0}, ValueError, "record_every"),
        ({"rng": 3}, TypeError, "rng"),
        ({"on_diverge": "ignore"}, ValueError, "on_diverge"),
        ({"max_abs": 0.0}, ValueError, "max_abs"),
    ],
)
def test_invalid_arguments_name_the_parameter(kwargs, err, match):
    with pytest.raises(err, match=match):
        train(start(), quadratic, **({"n_steps": 2} | kwargs))


def test_invalid_gradient_and_params():
    with pytest.raises(TypeError, match="callable"):
        train(start(), 3, n_steps=1)
    with pytest.raises(ValueError, match="finite"):
        train({"W": np.array([np.nan, 0.0]), "b": np.zeros(1)}, quadratic, n_steps=1)
