"""Data sets used by the notebooks: small pattern sets, parity, bars and stripes, digits.

Conventions: functions return ±1 arrays for the fully visible and hidden-unit machines and
{0,1} arrays for the RBM; each docstring says which. Nothing is downloaded.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_positive_int


def parity(n: int) -> np.ndarray:
    """All even-parity strings of n bits, as ±1 spins (notebook 04).

    A string is in the set when it has an even number of +1 entries (bit 1 <-> spin +1), so
    the product of its spins is ``(-1)**n``. For n >= 3 every first and second moment of the
    set vanishes: only the n-body term prod_i s_i tells the strings apart.

    Parameters
    ----------
    n : int, 1 <= n <= 20

    Returns
    -------
    S : ndarray of float64, shape (2**(n-1), n), entries ±1
        The strings in increasing code order (code = sum_i 2**i [s_i = +1]).
    """
    n = check_positive_int(n, "n", maximum=20)
    codes = np.arange(2**n, dtype=np.int64)
    bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1
    even = bits[bits.sum(axis=1) % 2 == 0]
    return 2.0 * even - 1.0


def one_hot(n: int) -> np.ndarray:
    """The n strings with exactly one +1 among n ±1 spins (notebook 04).

    Unlike :func:`parity`, this set is pinned down by its first and second moments, so a
    fully visible machine fits it without hidden units.

    Parameters
    ----------
    n : int, 2 <= n <= 20

    Returns
    -------
    S : ndarray of float64, shape (n, n)
        Row k is +1 at position k and -1 elsewhere.
    """
    n = check_positive_int(n, "n", maximum=20)
    if n < 2:
        raise ValueError(f"n must be at least 2 for a one-hot set, got {n}")
    return 2.0 * np.eye(n) - 1.0
