"""Random settings of a panel's controls, read from the ipywidgets themselves.

Shared by ``tests/test_widgets_fuzz.py`` and ``benchmarks/bench_widgets.py``. Each control's
range comes from the widget (``min``/``max``/``step``, ``options``), so a panel that widens a
slider is fuzzed over its new range without anyone editing the tests.
"""

from __future__ import annotations

import math

import numpy as np

#: Controls whose values we cannot enumerate (free text) keep their current value.
_UNFUZZED = ("Text", "Textarea", "Password", "Combobox", "IntText", "FloatText")


def _grid(lo, hi, step, rng, integer: bool):
    """A random point of the slider's grid lo, lo + step, ..., hi."""
    if step is None or step <= 0:
        value = rng.uniform(lo, hi)
        return round(value) if integer else float(value)
    n = math.floor((hi - lo) / step + 1e-9)
    value = lo + int(rng.integers(0, n + 1)) * step
    value = min(value, hi)
    return round(value) if integer else float(round(value, 12))


def choices(control):
    """All values of a selection widget (Dropdown, RadioButtons, SelectionSlider, ...)."""
    values = getattr(control, "_options_values", None)
    if values is None:
        values = [o[1] if isinstance(o, tuple) else o for o in control.options]
    return list(values)


def control_value(control, rng, extreme: str | None = None):
    """A value for ``control``: its minimum, its maximum, or random in its range.

    Parameters
    ----------
    control : ipywidgets.ValueWidget
    rng : numpy.random.Generator
    extreme : {None, "min", "max"}
    """
    kind = type(control).__name__
    if kind in _UNFUZZED:
        return control.value
    if hasattr(control, "options"):  # selections (also SelectionSlider / RangeSlider)
        values = choices(control)
        if kind == "SelectionRangeSlider":
            i, j = sorted(rng.integers(0, len(values), size=2))
            if extreme == "min":
                i, j = 0, 0
            elif extreme == "max":
                i, j = 0, len(values) - 1
            return (values[i], values[j])
        if kind in ("SelectMultiple", "TagsInput"):
            return tuple(v for v in values if rng.random() < 0.5) or tuple(values[:1])
        if extreme == "min":
            return values[0]
        if extreme == "max":
            return values[-1]
        return values[int(rng.integers(0, len(values)))]
    if isinstance(control.value, bool):
        if extreme is not None:
            return extreme == "max"
        return bool(rng.integers(0, 2))
    if hasattr(control, "min") and hasattr(control, "max"):
        lo, hi = control.min, control.max
        step = getattr(control, "step", None)
        if kind == "FloatLogSlider":  # min/max/step are exponents of base
            if extreme == "min":
                exponent = lo
            elif extreme == "max":
                exponent = hi
            else:
                exponent = _grid(lo, hi, step, rng, integer=False)
            return float(control.base**exponent)
        integer = isinstance(control.value, int | np.integer) or (
            isinstance(control.value, tuple) and isinstance(control.value[0], int)
        )
        if isinstance(control.value, tuple):  # IntRangeSlider / FloatRangeSlider
            if extreme == "min":
                return (lo, lo)
            if extreme == "max":
                return (lo, hi)
            a, b = sorted(_grid(lo, hi, step, rng, integer) for _ in range(2))
            return (a, b)
        if extreme == "min":
            return lo
        if extreme == "max":
            return hi
        return _grid(lo, hi, step, rng, integer)
    return control.value


def settings(
    controls: dict, n: int, rng, p_extreme: float = 0.25, each_extreme: bool = True
) -> list[dict]:
    """``n`` settings of all ``controls``: all at their minimum, all at their maximum, then
    (``each_extreme``) each control alone at each extreme, then random ones where each control
    sits at an extreme with probability ``p_extreme`` (e.g. beta at its max with the couplings
    at their limits)."""
    names = list(controls)
    out = [
        {k: control_value(controls[k], rng, "min") for k in names},
        {k: control_value(controls[k], rng, "max") for k in names},
    ]
    for name in names if each_extreme else ():
        for extreme in ("min", "max"):
            setting = {k: control_value(controls[k], rng) for k in names}
            setting[name] = control_value(controls[name], rng, extreme)
            out.append(setting)
    while len(out) < n:
        setting = {}
        for k in names:
            u = rng.random()
            extreme = "min" if u < p_extreme / 2 else "max" if u < p_extreme else None
            setting[k] = control_value(controls[k], rng, extreme)
        out.append(setting)
    return out[:n]
