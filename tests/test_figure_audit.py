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


def strips(hspace: float, gid: str | None = None):
    """Five image strips with a title each, as notebook 05b draws them; the last strip also
    has a value written on its own image (with ``gid``)."""
    rng = np.random.default_rng(0)
    fig, axes = plt.subplots(5, 1, figsize=(9, 0.95 * 5), gridspec_kw={"hspace": hspace})
    for k, ax in enumerate(axes):
        images = (rng.random((12, 8, 8)) > 0.5).astype(float)
        ax.imshow(bmlab.plotting.mosaic(images, 12, fill=0.5), cmap="gray_r", vmin=0, vmax=1)
        ax.set_title(f"update {200 * k}: top singular value {k + 0.11:.2f}", fontsize=9, loc="left")
        ax.axis("off")
    axes[-1].text(50, 5, "7", color="red", ha="center", va="center", gid=gid)
    return fig


def test_titles_running_into_the_image_strip_above_are_caught():
    found = problems(strips(hspace=0.2), fa.check_text_over_images)
    collided = [p for p in found if "runs into the image of axes 'update" in p]
    assert len(collided) == 4 and "the title 'update 200" in collided[0], found
    assert any("runs into its own image" in p for p in found), found


def test_strips_with_room_and_a_value_marked_on_image_pass():
    fig = strips(hspace=0.6, gid=fa.ON_IMAGE)
    assert problems(fig, fa.check_text_over_images) == []


def test_a_label_over_a_pcolormesh_of_the_next_panel_is_caught():
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6, 3), gridspec_kw={"wspace": 0.0})
    ax1.plot([0, 1], [0, 1])
    ax2.pcolormesh(np.arange(12).reshape(3, 4))
    ax2.axis("off")
    ax1.text(0.9, 0.5, "a note that runs on", transform=ax1.transAxes)
    found = problems(fig, fa.check_text_over_images)
    assert len(found) == 1 and "'a note that runs on' of axes 1 of 2" in found[0], found


def test_tick_labels_running_into_the_neighbouring_panel_are_caught():
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6, 3), gridspec_kw={"wspace": 0.02})
    ax1.plot([0, 1], [0, 1])
    ax2.plot([0, 1], [1e6, 2e6])
    ax2.ticklabel_format(style="plain")
    found = problems(fig, fa.check_text_over_axes)
    assert found and all("runs into the plotting area of axes 1 of 2" in p for p in found)
    assert any("text '2000000' of axes 2 of 2" in p for p in found), found


def test_a_legend_placed_outside_onto_the_next_panel_is_caught():
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(7, 3))
    ax1.plot([0, 1], [0, 1], label="a series with a long name")
    ax2.plot([0, 1], [1, 0])
    ax1.legend(loc="center left", bbox_to_anchor=(0.95, 0.5))
    found = problems(fig, fa.check_text_over_axes)
    assert any(p.startswith("the legend of axes 1 of 2 runs into") for p in found), found


def test_twins_and_insets_are_not_neighbours():
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot([0, 1], [0, 1], label="error")
    twin = ax.twinx()
    twin.plot([0, 1], [5, 3], color=bmlab.ORANGE, label="cosine")
    inset = ax.inset_axes([0.55, 0.1, 0.4, 0.35])
    inset.plot([0, 1], [1, 0])
    inset.set_title("zoom", fontsize=8)
    fig.tight_layout()
    assert problems(fig, fa.check_text_over_axes) == []
    assert problems(good_figure(), fa.check_text_over_axes) == []


def test_a_legend_wider_than_its_axes_touches_the_axis_line():
    """notebook 01's ferromagnet figure: three columns wider than the panel."""
    fig, axes = plt.subplots(1, 3, figsize=(11.0, 3.4))
    for b, color in ((0.6, bmlab.ORANGE), (1.0, bmlab.GRAY), (1.5, bmlab.NAVY)):
        axes[0].plot([-1, 0, 1], [0.01, 0.1, 0.01], "o-", color=color, label=rf"$\beta={b}$")
    axes[0].set(ylim=(0, 0.2))
    axes[0].legend(fontsize=12, loc="upper center", ncol=3)
    fig.tight_layout()
    found = problems(fig, fa.check_legend_on_axis)
    assert found == [
        "the legend of axes 1 of 3 touches its left axis line — move it inside (loc=..., "
        "fewer columns, smaller text) or outside with a gap"
    ]


def test_a_legend_over_a_tick_label_is_caught():
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot([0, 1], [0, 1], "o", label="x")
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.legend(loc="center left", bbox_to_anchor=(-0.1, 0.22), handlelength=3)
    found = problems(fig, fa.check_legend_on_axis)
    assert "the legend of axes 1 of 1 runs over the text '0.2'" in found, found
    assert any("touches its left axis line" in p for p in found), found


def test_a_legend_inside_with_a_gap_passes():
    assert problems(good_figure(), fa.check_legend_on_axis) == []


def legend_figure(*series):
    """One axes with a legend entry per ``(label, colour, kind)``."""
    fig, ax = plt.subplots(figsize=(5, 3))
    for k, (label, colour, kind) in enumerate(series):
        if kind == "line":
            ax.plot([0, 1], [k, k + 1], color=colour, label=label)
        elif kind == "bar":
            ax.bar([k], [1], color=colour, label=label)
        elif kind == "scatter":
            ax.scatter([k], [1], color=colour, label=label)
        else:
            ax.errorbar([k], [1], yerr=[0.1], fmt="none", color=colour, label=label)
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
    return fig


def colour_problems(*figures) -> list[str]:
    book = fa.ColourBook()
    found = []
    for k, series in enumerate(figures):
        found += book.record(fa.draw(legend_figure(*series)), f"figure {k + 1}")
    return found


GREEN, RED = bmlab.plotting.EXTRA[:2]


def test_one_colour_for_two_algorithms_across_figures_is_caught():
    """notebook 05b: green was PCD-100 in one figure and CD-10 in another."""
    found = colour_problems(
        [("PCD-1", RED, "line"), ("PCD-100", GREEN, "line")],
        [("CD-1", bmlab.ORANGE, "line"), ("CD-10", GREEN, "line")],
    )
    assert len(found) == 1, found
    assert found[0].startswith("green (#4c9a6a) is 'CD-10' here but 'pcd-100' in figure 1")


@pytest.mark.parametrize("kind", ["bar", "scatter", "errorbar"])
def test_the_colour_of_bars_points_and_error_bars_counts(kind):
    found = colour_problems([("PCD-100", GREEN, kind)], [("CD-10", GREEN, kind)])
    assert len(found) == 1 and "one colour per algorithm" in found[0], found


def test_one_series_with_variants_and_parameter_values_share_colours():
    found = colour_problems(
        [("PCD-1", GREEN, "line"), (r"$\beta = 2$", RED, "line")],
        [("PCD-1, rate 0.03, 10x updates", GREEN, "line"), ("N = 100", RED, "line")],
        [("mode 3", RED, "line"), ("PCD-1 (recorded)", GREEN, "line")],
    )
    assert found == []


def test_a_label_in_two_colours_is_caught():
    found = colour_problems(
        [("exact gradient", bmlab.NAVY, "line")], [("exact gradient", RED, "line")]
    )
    assert len(found) == 1 and "is red (#b04a5a) here but navy (#1f3b73) in figure 1" in found[0]


def test_the_fixed_colours_keep_their_meaning():
    found = colour_problems(
        [("exact, N = 100", bmlab.ORANGE, "line"), ("sampled, N = 1000", bmlab.NAVY, "line")],
        [("exact", bmlab.NAVY, "line"), ("model (exact)", bmlab.NAVY, "bar")],
        [("20 000 chains", bmlab.ORANGE, "line"), ("AIS estimate", bmlab.ORANGE, "errorbar")],
        [("optimum", bmlab.GRAY, "line"), ("one plain Glauber chain", bmlab.GRAY, "bar")],
        [("one plain Glauber chain (baseline)", bmlab.GRAY, "bar")],
        [("general", bmlab.NAVY, "line"), ("restricted", bmlab.ORANGE, "line")],
    )
    assert len(found) == 3, found
    assert "the orange series 'exact, N = 100' says exact/model (navy" in found[0]
    assert "the navy series 'sampled, N = 1000' says samples/estimates (orange" in found[1]
    assert "the gray series 'one plain Glauber chain' says samples/estimates" in found[2]


def test_the_fixed_meanings_are_the_palette_of_bmlab():
    assert [fa.MEANINGS[c][0] for c in (bmlab.NAVY, bmlab.ORANGE, bmlab.GRAY)] == [
        "navy",
        "orange",
        "gray",
    ]
    assert set(fa.COLOUR_NAMES) == set(bmlab.plotting.EXTRA)


def test_labels_are_compared_as_read():
    assert fa.normal_label(r"$\beta=\infty$,  Start") == "β=∞, start"
    assert fa.normal_label(r"$\tau_\mathrm{int}$ of $\eta$") == "τ_int of η"
    assert fa.series_name("PCD-1, rate 0.03 (recorded)") == "pcd-1"
    assert fa.series_name("optimum: -3.379") == "optimum"


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


def test_audit_lines_name_the_file_a_cell_saves():
    fig, ax = plt.subplots()
    ax.plot([0, 1], label="beta")
    source = 'fig, ax = plt.subplots()\nbmlab.save_figure(fig, "fig01_x")\nplt.show()'
    assert fa.displayed_name(fig, source, {"fig": fig}).startswith("fig01_x ")
    assert fa.displayed_name(fig, source, {"fig": None}) == fa.figure_name(fig)


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
        fa.STARTUP.format(folder=str(tmp_path / "missing"), verbose=False)
    )
    stderr = _stderr_of_cells(["1 + 1", "print('hello')"], tmp_path / "ipython")
    assert all(text.startswith("figure audit: not installed") for text in stderr), stderr
