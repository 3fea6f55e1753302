"""The figure audit catches what it promises (each check on a synthetic bad figure) and lets
good figures through; its wiring reaches every figure an IPython kernel shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import figure_audit as fa
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.ticker import MaxNLocator

import bmlab

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _style():
    bmlab.use_style()
    yield
    plt.close("all")


def problems(fig, check=None):
    d = fa.draw(fig)
    return (check or (lambda d: [p for c in fa.CHECKS for p in c(d)]))(d)


def good_figure():
    """Two panels in the house style that pass every check."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3))
    steps = np.arange(0, 31)
    ax1.plot(steps, 1 - np.exp(-steps / 5), "o-", ms=3, label="model (exact)")
    ax1.axhline(1.0, color=bmlab.GRAY, ls="--", lw=1, label="data")
    ax1.set(xlabel="step", ylabel=r"$\langle s_1 s_2\rangle$", ylim=(-0.1, 1.6), title="the moment")
    ax1.legend(loc="upper left", ncol=2)
    ax2.bar(np.arange(8) - 0.2, np.linspace(0.05, 0.2, 8), 0.4, label="exact")
    ax2.bar(np.arange(8) + 0.2, np.linspace(0.06, 0.19, 8), 0.4, label="samples")
    ax2.set(xlabel="state", ylabel="p(s)", ylim=(0, 0.35), title=r"$\beta = 2$")
    ax2.legend(loc="upper left", ncol=2)
    fig.tight_layout()
    return fig


def test_a_good_figure_passes_every_check():
    assert fa.audit(good_figure()) == []


def test_overlapping_texts_are_caught():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.text(0.2, 0.8, "N=3: 8 terms, by hand")
    ax.text(0.25, 0.8, "N=100: 1.27e30 terms")
    found = problems(fig, fa.check_text_overlaps)
    assert len(found) == 1 and "N=3: 8 terms" in found[0] and "N=100" in found[0]


@pytest.mark.parametrize("kind", ["line", "markers", "scatter", "bars", "image", "errorbar"])
def test_a_legend_over_data_is_caught(kind):
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 1, 11)
    if kind == "line":  # a flat line through the middle: only its segments pass the legend
        ax.plot([0, 1], [0.5, 0.5], label="flat")
    elif kind == "markers":
        ax.plot([0.5], [0.5], "o", label="one point")
    elif kind == "scatter":
        ax.scatter([0.5], [0.5], label="one point")
    elif kind == "bars":
        ax.bar([0.5], [1.0], 0.4, label="a bar")
    elif kind == "image":
        ax.imshow(np.eye(3), extent=(0, 1, 0, 1))
        ax.plot([], [], label="key")
    else:
        ax.errorbar([0.5], [0.1], yerr=[0.8], fmt="none", label="an error bar")
    ax.plot(x, 0 * x - 5, label="elsewhere")
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="center")
    found = problems(fig, fa.check_legends_over_data)
    assert len(found) == 1 and "covers data" in found[0], found


def test_a_line_crossing_a_legend_between_its_vertices_is_caught():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [1, 0], label="diagonal")  # two vertices, both far from the legend
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="center")
    assert problems(fig, fa.check_legends_over_data)


def test_a_figure_legend_over_another_axes_is_caught():
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6, 3))
    ax1.plot([0, 1], [0, 1], label="left")
    ax2.plot([0, 1], [0.5, 0.5], label="right")
    fig.legend(loc="center right", bbox_to_anchor=(0.95, 0.5))
    found = problems(fig, fa.check_legends_over_data)
    assert found and "figure legend" in found[0]


def test_a_legend_beside_the_data_passes():
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot([0, 1], [0, 0.3], label="low")
    ax.set(ylim=(0, 1))
    ax.legend(loc="upper left")
    assert problems(fig, fa.check_legends_over_data) == []


def test_text_off_the_canvas_is_caught():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_title("exact samples: 75% valid, and a title much too long for the figure")
    found = problems(fig, fa.check_cut_off)
    assert len(found) == 1 and "runs off the canvas" in found[0] and "edge by" in found[0]


def test_a_marker_on_the_lower_limit_is_half_hidden():
    fig, ax = plt.subplots()
    ax.semilogy([3, 100], [8, 2.0**100], "o")
    ax.set(ylim=(8, 1e40))
    found = problems(fig, fa.check_cut_off)
    assert len(found) == 1 and "cut by the axes" in found[0] and "lower edge" in found[0]


def test_a_scatter_point_outside_the_limits_is_caught_but_an_unclipped_one_is_not():
    fig, ax = plt.subplots()
    ax.scatter([0.5, 2.0], [0.5, 0.5])
    ax.scatter([1.0], [0.5], clip_on=False)
    ax.set(xlim=(0, 1), ylim=(0, 1))
    found = problems(fig, fa.check_cut_off)
    assert len(found) == 1 and "1 marker(s)" in found[0] and "outside the axes" in found[0]


def test_half_integer_ticks_on_an_integer_axis_are_caught():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(np.arange(10) - 0.2, np.arange(10) % 3 / 10, 0.4)  # bars that step by one
    ax.plot(np.arange(10), np.linspace(0, 0.3, 10), "o")
    ax.set_xticks([0, 2.5, 5, 7.5])
    found = problems(fig, fa.check_integer_ticks)
    assert len(found) == 1 and "x ticks at 2.5, 7.5" in found[0]


def test_integer_ticks_pass_and_fractional_data_do_not_ask_for_them():
    fig, (ax1, ax2) = plt.subplots(1, 2)
    ax1.plot(np.arange(10), np.arange(10) ** 2)
    ax1.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax1.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax2.plot(np.linspace(0, 1, 10), np.arange(10))
    ax2.set_xticks([0, 0.25, 0.5])
    assert problems(fig, fa.check_integer_ticks) == []


def test_log_ticks_that_step_by_an_odd_number_of_decades_are_caught():
    fig, (bad, good) = plt.subplots(1, 2, figsize=(8.6, 4.6))
    for ax in (bad, good):
        ax.semilogy(np.arange(1, 601), 2.0 ** np.arange(1, 601))
        ax.set(ylim=(1, 1e185))
    bad.set_yticks([10.0**k for k in range(0, 185, 23)])
    good.set_yticks([10.0**k for k in range(0, 185, 50)])
    found = problems(fig, fa.check_log_ticks)
    assert len(found) == 1 and "y ticks step by 10^23" in found[0]


def test_a_spelled_out_greek_letter_is_caught_but_tex_passes():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="beta = 2")
    ax.plot([0, 1], [1, 0], label=r"$\beta = 3$")
    ax.set(xlabel=r"$\theta_1$", ylabel="tau_int")
    ax.legend()
    found = problems(fig, fa.check_greek)
    assert len(found) == 2 and any("'beta = 2'" in p for p in found)
    assert any("tau" in p for p in found)
    assert fa._GREEK_WORD.search("betas") and not fa._GREEK_WORD.search(
        "alphabet, Pierre, Chinese, metal"
    )


def test_twin_axes_without_a_legend_are_caught():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 2, 1], label="error")
    ax.set_ylabel("error")
    ax2 = ax.twinx()
    ax2.plot([1, 2, 3], [0.1, 0.5, 0.9], color=bmlab.ORANGE, label="cosine")
    ax2.set_ylabel("cosine")
    assert len(problems(fig, fa.check_twin_axes)) == 1


@pytest.mark.parametrize("how", ["legend", "coloured labels"])
def test_twin_axes_that_name_their_series_pass(how):
    fig, ax = plt.subplots()
    (a,) = ax.plot([1, 2, 3], [3, 2, 1], color=bmlab.NAVY, label="error")
    ax2 = ax.twinx()
    (b,) = ax2.plot([1, 2, 3], [0.1, 0.5, 0.9], color=bmlab.ORANGE, label="cosine")
    if how == "legend":
        ax.legend(handles=[a, b], loc="center left")
    else:
        ax.set_ylabel("error", color=bmlab.NAVY)
        ax2.set_ylabel("cosine", color=bmlab.ORANGE)
    assert problems(fig, fa.check_twin_axes) == []


def test_series_that_cannot_be_told_apart_are_caught():
    fig, (ax1, ax2) = plt.subplots(1, 2)
    x = np.arange(20)
    for k in range(8):  # the cycle has 7 colours: the 8th line repeats the first
        ax1.plot(x, x * k)
    ax2.plot(np.arange(4), [1, 1, 1, 1], "*", ms=12)  # four stars drawn as one
    ax2.set(xlim=(-100, 100))
    found = problems(fig, fa.check_series_told_apart)
    assert any("look exactly like another" in p for p in found)
    assert any("nothing names them" in p for p in found)
    assert any("3 of the 4 markers" in p for p in found)


def test_audit_lines_name_the_figure():
    fig, ax = plt.subplots()
    fig.suptitle("Figure 5.5: the Z wall")
    ax.plot([0, 1], [0, 1], label="beta")
    ax.legend()
    assert all(line.startswith("'Figure 5.5: the Z wall' — ") for line in fa.audit(fig))


def test_every_check_has_a_test_here():
    source = Path(__file__).read_text()
    untested = [c.__name__ for c in fa.CHECKS if source.count(f"fa.{c.__name__}") < 1]
    assert not untested, f"checks without a test that makes them fail: {untested}"


KERNEL_CELLS = [
    "import matplotlib.pyplot as plt",
    "fig, ax = plt.subplots(); ax.plot([0, 1], label='beta'); ax.legend(); plt.show()",
    "fig, ax = plt.subplots(); ax.plot([0, 1], label='tau'); ax.legend(); fig",
    "from IPython.display import display\n"
    "fig, ax = plt.subplots(); ax.plot([0, 1], label='theta'); ax.legend(); display(fig)",
    "plt.close('all'); fig, ax = plt.subplots(); ax.set_title('fine'); plt.show()",
]


def _stderr_of_cells(cells: list[str], ipython_dir: Path) -> list[str]:
    """Run ``cells`` in a fresh kernel started with ``ipython_dir``; each cell's stderr."""
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    script = (
        "import sys, nbformat, nbclient\n"
        "nb = nbformat.read(sys.stdin, as_version=4)\n"
        "nbclient.NotebookClient(nb, kernel_name='python3', timeout=120).execute()\n"
        "nbformat.write(nb, sys.stdout)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["IPYTHONDIR"] = str(ipython_dir)
    out = subprocess.run(
        [sys.executable, "-c", script],
        input=nbformat.writes(nb),
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=True,
    )
    return [
        "".join(o["text"] for o in c.outputs if o.get("name") == "stderr")
        for c in nbformat.reads(out.stdout, as_version=4).cells
    ]


def test_the_startup_file_audits_what_a_kernel_shows(tmp_path):
    """plt.show(), a trailing fig and display(fig) all pass through the audit; a good figure
    prints nothing."""
    fa.write_startup(tmp_path / "ipython")
    stderr = _stderr_of_cells(KERNEL_CELLS, tmp_path / "ipython")
    for word, text in zip(["beta", "tau", "theta"], stderr[1:4], strict=True):
        assert text.startswith(fa.PREFIX) and f"spells out {word}" in text, stderr
    assert stderr[4] == "" and stderr[0] == ""


def test_an_audit_that_cannot_start_fails_every_cell(tmp_path):
    startup = tmp_path / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-audit.py").write_text(
        fa.STARTUP.format(path=str(tmp_path / "missing.py"), verbose=False)
    )
    stderr = _stderr_of_cells(["1 + 1", "print('hello')"], tmp_path / "ipython")
    assert all(text.startswith("figure audit: not installed") for text in stderr), stderr
