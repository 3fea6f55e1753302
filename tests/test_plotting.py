"""Plotting style and deterministic figure saving."""

from __future__ import annotations

import hashlib

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

import bmlab
from bmlab import plotting

matplotlib.use("Agg")


def _figure():
    fig, ax = plt.subplots()
    ax.plot(np.arange(5), np.arange(5) ** 2, label="x^2")
    ax.bar(np.arange(5), np.ones(5))
    ax.legend()
    ax.set_title("t")
    return fig


def test_use_style_modes_and_palette(monkeypatch):
    monkeypatch.delenv("BMLAB_STYLE", raising=False)
    bmlab.use_style()
    small = matplotlib.rcParams["font.size"]
    assert matplotlib.rcParams["axes.prop_cycle"].by_key()["color"][:3] == [
        bmlab.NAVY,
        bmlab.ORANGE,
        bmlab.GRAY,
    ]
    bmlab.use_style("projector")
    assert matplotlib.rcParams["font.size"] > small
    assert matplotlib.rcParams["lines.linewidth"] >= 3
    monkeypatch.setenv("BMLAB_STYLE", "projector")
    bmlab.use_style("screen")
    assert matplotlib.rcParams["font.size"] > small
    monkeypatch.delenv("BMLAB_STYLE")
    with pytest.raises(ValueError, match="projector"):
        bmlab.use_style("cinema")


def test_switching_back_to_screen_leaves_nothing_of_the_projector(monkeypatch):
    """A mode's settings do not outlive it: screen after projector is screen from scratch."""
    monkeypatch.delenv("BMLAB_STYLE", raising=False)
    keys = {key for mode in plotting._MODES.values() for key in mode}
    with matplotlib.rc_context():
        bmlab.use_style("screen")
        fresh = {key: matplotlib.rcParams[key] for key in keys}
        bmlab.use_style("projector")
        bmlab.use_style("screen")
        assert {key: matplotlib.rcParams[key] for key in keys} == fresh
        assert matplotlib.rcParams["legend.fontsize"] == "medium"


def test_save_figure_is_byte_identical_across_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("BMLAB_FIGURES", str(tmp_path))
    monkeypatch.setenv("BMLAB_SAVE_FIGURES", "1")
    bmlab.use_style()
    digests = []
    for _ in range(2):
        fig = _figure()
        paths = bmlab.save_figure(fig, "fig_test")
        plt.close(fig)
        digests.append([hashlib.sha256(p.read_bytes()).hexdigest() for p in paths])
    assert [p.name for p in paths] == ["fig_test.png", "fig_test.svg"]
    assert digests[0] == digests[1]
    svg = (tmp_path / "fig_test.svg").read_text()
    assert "<dc:date>" not in svg


def test_saved_legends_are_at_least_12_pt(monkeypatch):
    """Figures for a projector: save_figure enlarges small legends (fig.legend and axes)."""
    monkeypatch.delenv("BMLAB_SAVE_FIGURES", raising=False)
    bmlab.use_style()
    fig = _figure()
    fig.axes[0].legend(fontsize=7, title="tiny")
    fig.legend(["big"], fontsize=16)
    bmlab.save_figure(fig, "fig_test")
    sizes = [
        t.get_fontsize()
        for leg in [*fig.legends, fig.axes[0].get_legend()]
        for t in [*leg.get_texts(), leg.get_title()]
    ]
    plt.close(fig)
    assert min(sizes) >= plotting._MIN_LEGEND_PT == 12
    assert max(sizes) == 16  # larger legends are left alone


def test_figures_dir_finds_repository_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("BMLAB_FIGURES", raising=False)
    (tmp_path / "figures").mkdir()
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    assert plotting.figures_dir() == tmp_path / "figures"


def test_save_figure_writes_nothing_unless_asked(tmp_path, monkeypatch):
    """A notebook run in any folder (or under make test) never creates or touches figures/."""
    monkeypatch.delenv("BMLAB_SAVE_FIGURES", raising=False)
    monkeypatch.delenv("BMLAB_FIGURES", raising=False)
    monkeypatch.chdir(tmp_path)
    fig = _figure()
    assert bmlab.save_figure(fig, "fig_test") == []
    monkeypatch.setenv("BMLAB_SAVE_FIGURES", "0")
    monkeypatch.setenv("BMLAB_FIGURES", str(tmp_path / "elsewhere"))
    assert bmlab.save_figure(fig, "fig_test") == []
    plt.close(fig)
    assert list(tmp_path.iterdir()) == []


def test_save_figure_when_asked_writes_into_working_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("BMLAB_SAVE_FIGURES", "1")
    monkeypatch.delenv("BMLAB_FIGURES", raising=False)
    monkeypatch.chdir(tmp_path)
    fig = _figure()
    paths = bmlab.save_figure(fig, "fig_test", formats=("png",))
    plt.close(fig)
    assert paths == [tmp_path / "figures" / "fig_test.png"] and paths[0].stat().st_size > 0


def test_save_figure_rejects_paths():
    fig = _figure()
    with pytest.raises(ValueError, match="file stem"):
        bmlab.save_figure(fig, "../escape")
    plt.close(fig)


def test_mosaic_places_each_image_in_reading_order_and_blanks_the_rest():
    images = np.arange(5 * 2 * 3, dtype=float).reshape(5, 2, 3)
    tiled = plotting.mosaic(images, 3, fill=-1.0)
    assert tiled.shape == (7, 13)  # 2 rows of (1 + 2) pixels, 3 columns of (1 + 3), + 1 each
    for k, image in enumerate(images):
        r, c = divmod(k, 3)
        np.testing.assert_array_equal(tiled[1 + 3 * r : 3 + 3 * r, 1 + 4 * c : 4 + 4 * c], image)
    assert (tiled[4:6, 9:12] == -1.0).all()  # the sixth place is blank
    assert (tiled[[0, 3, 6], :] == -1.0).all() and (tiled[:, [0, 4, 8, 12]] == -1.0).all()
