"""Small machines shared by the test modules (test helpers live in tests/, not in bmlab)."""

from __future__ import annotations

import numpy as np

#: The lecture's frustrated triangle (Section 5.7, Figure 5.3): J12 = J23 = 0.5, J13 = -0.5.
TRIANGLE = np.array([[0.0, 0.5, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.5, 0.0]])


def random_machine(n, rng, scale=1.0):
    """Random symmetric couplings with zero diagonal and random biases, entries ~ N(0, scale^2)."""
    A = rng.normal(scale=scale, size=(n, n))
    J = (A + A.T) / 2
    np.fill_diagonal(J, 0.0)
    return J, rng.normal(scale=scale, size=n)
