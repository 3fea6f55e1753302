"""Builders of the live panels, one module per notebook's family of panels.

Each builder returns a :class:`bmlab.Panel`; display it by leaving it as the last expression
of a cell. ``ALL_PANELS`` maps a panel name to its builder (used by the fuzz tests, the latency
benchmark and the presentation dashboards).
"""

ALL_PANELS: dict = {}


def _layout_once(fig):
    """Lay ``fig`` out with the constrained engine at its first draw, then keep that layout:
    a live panel's slider redraws skip the layout pass (about a third of the render time)."""
    fig.set_layout_engine("constrained", w_pad=0.1)  # slack for tick labels that change
    fig.canvas.mpl_connect("draw_event", lambda _: fig.set_layout_engine("none"))
    return fig


# The submodules register their builders in ALL_PANELS on import, so they come last.
from . import glauber  # noqa: E402, F401, I001  (notebook 01: figure 5.3 live, two basins)
from . import ledger  # noqa: E402, F401  (notebook 02: z_ledger, z_wall)
from . import training  # noqa: E402, F401  (notebook 03: ml_training)
from . import hidden  # noqa: E402, F401  (notebook 04: hidden_training)
from . import rbm  # noqa: E402, F401  (notebook 05: rbm_training, rbm_sampling)
