"""The live panels, one module of builders per notebook, listed in one registry.

Each builder returns a :class:`bmlab.panel.Panel`; display it by leaving it as the last
expression of a cell. ``PANELS`` maps a notebook's number to its panels, ``{name: builder}``
in display order: the dashboards of ``make present``, the fuzz and layout tests and the
latency benchmarks iterate it, so a panel listed here appears everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

from .glauber import fig53_panel, tempering_panel, two_basin_panel
from .hidden import hidden_training_panel
from .ledger import ledger_panel, wall_panel
from .phases import phase_panel
from .posterior import posterior_panel
from .rbm import rbm_sampling_panel, rbm_training_panel
from .spherical import condensation_panel
from .training import training_panel

PANELS: dict[str, dict[str, Callable]] = {
    "01": {
        "glauber_fig53": fig53_panel,
        "glauber_two_basin": two_basin_panel,
        "glauber_tempering": tempering_panel,
    },
    "02": {
        "z_ledger": ledger_panel,
        "z_wall": wall_panel,
    },
    "03": {
        "ml_training": training_panel,
    },
    "04": {
        "hidden_training": hidden_training_panel,
    },
    "05": {
        "rbm_training": rbm_training_panel,
        "rbm_sampling": rbm_sampling_panel,
    },
    "06": {"spherical_condensation": condensation_panel},
    "06b": {"spherical_posterior": posterior_panel},
    "07": {"phase_diagram": phase_panel},
}
