"""bmlab: exact enumeration, samplers, learning rules and widgets for the Boltzmann machine.

Conventions: the fully visible machine uses ±1 spins ``s`` with couplings ``J`` (symmetric,
zero diagonal) and biases ``theta`` (Eq. 5.1); the restricted Boltzmann machine uses {0,1}
units ``v``, ``h`` with weights ``W`` and biases ``a``, ``b``. Every random function takes
``rng=``, a ``numpy.random.Generator``.
"""

from .ais import ais_log_partition
from .exact import (
    all_states,
    boltzmann_probs,
    codes_to_states,
    energy,
    exact_moments,
    log_partition,
    moments_from_probs,
    sample_exact,
    state_codes,
)
from .exercises import check
from .glauber import (
    glauber_run,
    glauber_sample,
    glauber_transition_matrix,
    parallel_tempering,
)
from .learning import train
from .plotting import GRAY, NAVY, ORANGE, save_figure, use_style
from .posterior import (
    LangevinSphericalGradient,
    spherical_kl,
    spherical_order_parameters,
    spherical_posterior,
)
from .rbm import RBM
from .results import load_results
from .spherical import (
    ExactSphericalGradient,
    PCDSphericalGradient,
    SphericalBM,
    spherical_moments,
)

__version__ = "0.1.0"

# What the notebooks, dashboards and benchmarks use as bmlab.<name> (tests/test_api.py); the
# rest is imported from its module (bmlab.rbm, bmlab.hidden, bmlab.panel, bmlab.widgets, ...).
__all__ = [  # sorted; one name per concept
    "GRAY",
    "NAVY",
    "ORANGE",
    "RBM",
    "ExactSphericalGradient",
    "LangevinSphericalGradient",
    "PCDSphericalGradient",
    "SphericalBM",
    "ais_log_partition",
    "all_states",
    "boltzmann_probs",
    "check",
    "codes_to_states",
    "energy",
    "exact_moments",
    "glauber_run",
    "glauber_sample",
    "glauber_transition_matrix",
    "load_results",
    "log_partition",
    "moments_from_probs",
    "parallel_tempering",
    "sample_exact",
    "save_figure",
    "spherical_kl",
    "spherical_moments",
    "spherical_order_parameters",
    "spherical_posterior",
    "state_codes",
    "train",
    "use_style",
]
