"""Data sets used by the notebooks: small pattern sets, parity, bars and stripes, digits.

Conventions: functions return ±1 arrays for the fully visible and hidden-unit machines and
{0,1} arrays for the RBM; each docstring says which. Nothing is downloaded.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_positive_int
