"""Panels of notebook 02: lecture numbers, exact-enumeration oracle, live flags, wall times."""

from __future__ import annotations

import math

import numpy as np

import bmlab
from bmlab.widgets import PANELS
from bmlab.widgets.ledger import _wall_time, ledger_panel, wall_panel

ORDER = ["−−−", "+−−", "−+−", "++−", "−−+", "+−+", "−++", "+++"]  # bmlab.all_states order


def _triangle(J12, J23, J13):
    return np.array([[0.0, J12, J13], [J12, 0.0, J23], [J13, J23, 0.0]])


def test_registered():
    assert PANELS["02"] == {"z_ledger": ledger_panel, "z_wall": wall_panel}
    assert list(PANELS["02"]) == ["z_ledger", "z_wall"]


def test_ledger_panel_shows_the_lecture_numbers_in_all_states_order():
    panel = ledger_panel()
    status = panel.compute()
    assert panel.last_error is None
    assert "Z = 10.34" in status and "<s1s2>_model = 0.276" in status
    assert "gradient +0.224" in status and "6-fold degenerate" in status
    assert "no state satisfies all 3 bonds" in status
    assert "Z = 10.339" in panel.table.value and "+2.851" in panel.table.value
    assert panel.table in panel.widget.children
    ax = panel.fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ORDER
    rows = [r.split("</td>")[0].rsplit(">", 1)[-1] for r in panel.table.value.split("<tr")[2:-1]]
    assert [r.replace(" ", "") for r in rows] == ORDER


def test_ledger_panel_agrees_with_exact_enumeration():
    """Bars, Z and <s1 s2> at random settings against bmlab.exact (independent sums)."""
    panel = ledger_panel()
    rng = np.random.default_rng(3)
    for _ in range(10):
        J12, J23, J13 = rng.uniform(-2, 2, size=3)
        theta = rng.uniform(-1, 1, size=3)
        data = float(rng.uniform(-0.95, 0.95))
        panel.set(
            J12=J12, J23=J23, J13=J13, theta1=theta[0], theta2=theta[1], theta3=theta[2], data=data
        )
        J = _triangle(J12, J23, J13)
        p = bmlab.boltzmann_probs(J, theta)
        heights = [b.get_height() for b in panel.fig.axes[0].patches]
        np.testing.assert_allclose(heights, p, rtol=0, atol=1e-12)
        _, C = bmlab.exact_moments(J, theta)
        assert f"Z = {math.exp(bmlab.log_partition(J, theta)):.4g}," in panel.last_status
        assert f"<s1s2>_model = {C[0, 1]:.3f}" in panel.last_status
        assert f"gradient {data - C[0, 1]:+.3f}" in panel.last_status


def _flag(panel):
    return next(
        t.get_text()
        for t in panel.fig.axes[0].texts
        if "J₁₂J₂₃J₁₃" in t.get_text() or "loop" in t.get_text()
    )


def test_frustration_flag_flips_with_the_loop_sign():
    panel = ledger_panel()
    panel.compute()
    assert _flag(panel).startswith("FRUSTRATED")
    panel.set(J13=0.5)
    assert _flag(panel).startswith("unfrustrated") and panel.last_error is None
    assert "2 state(s) satisfy all bonds" in panel.last_status
    assert "2-fold degenerate" in panel.last_status
    panel.set(J13=0.0)
    assert "no closed loop" in _flag(panel)
    panel.set(J13=-0.5, J23=-0.5)
    assert _flag(panel).startswith("unfrustrated")


def test_gradient_tracks_data_slider():
    panel = ledger_panel()
    panel.set(data=-0.5)
    assert "gradient -0.776 (weaken J12)" in panel.last_status


def test_ledger_panel_fuzz_no_error_nan_or_warning():
    panel = ledger_panel()
    rng = np.random.default_rng(0)
    ctrl = panel.controls
    settings = [
        {k: c.max for k, c in ctrl.items()},
        {k: c.min for k, c in ctrl.items()},
        {k: 0.0 for k in ctrl},
    ]
    for _ in range(40):
        settings.append(
            {
                k: float(rng.choice([c.min, c.max, rng.uniform(c.min, c.max)]))
                for k, c in ctrl.items()
            }
        )
    for values in settings:
        panel.set(**values)
        assert panel.last_error is None, (values, panel.last_error)
        assert "nan" not in panel.last_status.lower()
        assert "nan" not in panel.table.value.lower()
        heights = [b.get_height() for b in panel.fig.axes[0].patches]
        assert np.all(np.isfinite(heights)) and math.isclose(sum(heights), 1.0)


def test_wall_panel_every_n_and_text():
    panel = wall_panel()
    for n in [1, 3, 20, 30, 31, 100, 500, 600, *range(1, 601, 37)]:
        panel.set(N=n)
        assert panel.last_error is None, (n, panel.last_error)
        assert "nan" not in panel.last_status.lower() and "inf" not in panel.last_status
    panel.set(N=100)
    assert "1.27 × 10^30 terms" in panel.last_status
    assert "more terms than seconds since the Big Bang" in panel.last_status
    panel.set(N=500)
    assert "atoms in the observable universe" in panel.last_status
    panel.set(N=24)
    assert "measured" in panel.last_status


def test_wall_time_extrapolates_with_2_to_the_n_from_the_largest_measured_n():
    ns = np.arange(10, 21)
    secs = 1e-6 * 1.5**ns  # a measured growth below 2 must not be extrapolated
    measured = dict(zip(ns.tolist(), secs.tolist(), strict=True))
    assert _wall_time(20, measured, "given") == (f"{secs[-1] * 1e3:.3g} ms", "measured, given")
    t20 = secs[-1]
    for n, text in [
        (21, f"{2 * t20 * 1e3:.3g} ms"),
        (30, f"{t20 * 2**10:.3g} s"),
        (37, f"{t20 * 2**17 / 60:.3g} minutes"),
        (60, f"{t20 * 2**40 / (365.25 * 86400):.3g} years"),
    ]:
        assert _wall_time(n, measured, "given") == (text, "2^N from N = 20"), n
    assert _wall_time(5, measured, "given")[1] == "not measured"
