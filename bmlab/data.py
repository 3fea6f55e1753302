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


def bars_and_stripes(n: int) -> np.ndarray:
    """The bars-and-stripes set on an n x n grid, {0,1} pixels (RBM, notebook 05).

    The standard set of Fischer & Igel (2010): every subset of the n rows switched on (a
    "bars" image) and every subset of the n columns switched on (a "stripes" image). The
    all-off and all-on images are both a bar and a stripe pattern and so appear twice:
    2 * 2**n rows, 2 * 2**n - 2 distinct (32 rows, 30 distinct for n = 4).

    Parameters
    ----------
    n : int, 2 <= n <= 8

    Returns
    -------
    V : ndarray of float64, shape (2**(n+1), n*n), entries 0 or 1
        Row-major images (pixel ``(r, c)`` is column ``r*n + c``): the 2**n bar images
        (subset codes in increasing order, bit r = row r on) followed by the 2**n stripe
        images. The best possible mean log-likelihood is :func:`max_log_likelihood` of this
        set: -3.3791 nats for n = 4, -2.5993 for n = 3.
    """
    n = check_positive_int(n, "n", maximum=8)
    if n < 2:
        raise ValueError(f"n must be at least 2 for bars and stripes, got {n}")
    subsets = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)  # (2**n, n)
    bars = np.repeat(subsets, n, axis=1)  # row r of the image on iff bit r
    stripes = np.tile(subsets, (1, n))  # column c of the image on iff bit c
    return np.concatenate([bars, stripes])


def max_log_likelihood(V) -> float:
    """The best possible mean log-likelihood of a data set: that of its own empirical law.

    (1/m) sum_r log(count(v_r) / m) in nats; no model can exceed it on the training set.

    Parameters
    ----------
    V : array_like, shape (m, n), any discrete entries (rows compared exactly)
    """
    V = np.asarray(V)
    if V.ndim != 2 or V.shape[0] < 1:
        raise ValueError(f"V must have shape (m, n) with m >= 1, got {V.shape}")
    _, inverse, counts = np.unique(V, axis=0, return_inverse=True, return_counts=True)
    return float(np.mean(np.log(counts[inverse.ravel()] / V.shape[0])))


#: Pixel threshold of :func:`binarized_digits` (pixel values run from 0 to 16).
DIGITS_THRESHOLD = 8


def binarized_digits(threshold: int = DIGITS_THRESHOLD, *, return_labels: bool = False):
    """scikit-learn's bundled 8x8 handwritten digits (1797 images), binarized (notebook 05).

    Parameters
    ----------
    threshold : int, 0 <= threshold < 16
        A pixel (integer intensity 0..16) is 1 iff its value is *greater than* ``threshold``
        (default 8: the upper half of the intensity range).
    return_labels : bool
        Also return the digit labels.

    Returns
    -------
    V : ndarray of float64, shape (1797, 64), entries 0 or 1
        Row-major 8x8 images.
    y : ndarray of int, shape (1797,), only if ``return_labels``
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)):
        raise TypeError(f"threshold must be an integer, got {type(threshold).__name__}")
    if not 0 <= threshold < 16:
        raise ValueError(f"threshold must be in 0..15 (pixels run 0..16), got {threshold}")
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    digits = load_digits()
    V = (digits.data > threshold).astype(float)
    return (V, digits.target.copy()) if return_labels else V


#: 3x3 glyphs of :func:`letters_3x3` ("#" = ink = +1), row-major.
LETTERS_3X3 = {
    "T": "###.#..#.",
    "L": "#..#..###",
    "X": "#.#.#.#.#",
    "O": "####.####",
    "+": ".#.###.#.",
    "H": "#.#####.#",
    "U": "#.##.####",
    "C": "####..###",
}


def letters_3x3(names: str = "TLXO") -> np.ndarray:
    """Tiny binarized letters on a 3x3 grid as ±1 spins (notebook 03).

    Parameters
    ----------
    names : str
        Letters to return, each one of ``"TLXO+HUC"`` (see ``LETTERS_3X3``), no repeats.

    Returns
    -------
    xi : ndarray of float64, shape (len(names), 9), entries ±1
        Row-major 3x3 images, +1 = ink. Reshape a row to (3, 3) to draw it.
    """
    if not isinstance(names, str) or not names:
        raise TypeError(f"names must be a non-empty string of letters, got {names!r}")
    bad = [c for c in names if c not in LETTERS_3X3]
    if bad or len(set(names)) != len(names):
        raise ValueError(
            f"names must be distinct letters from {''.join(LETTERS_3X3)!r}, got {names!r}"
        )
    return np.array([[1.0 if ch == "#" else -1.0 for ch in LETTERS_3X3[c]] for c in names])


def noisy_copies(patterns, n_copies: int, flip_prob: float, *, rng) -> np.ndarray:
    """Copies of ±1 patterns with each spin flipped independently (notebook 03).

    Parameters
    ----------
    patterns : array_like, shape (P, N), entries ±1
    n_copies : int >= 1
        Copies per pattern.
    flip_prob : float in [0, 0.5]
    rng : numpy.random.Generator

    Returns
    -------
    S : ndarray of float64, shape (P * n_copies, N), entries ±1
        ``n_copies`` noisy copies of pattern 0, then of pattern 1, ...
    """
    xi = np.asarray(patterns, dtype=float)
    if xi.ndim != 2 or not np.all(np.abs(xi) == 1):
        raise ValueError("patterns must be a (P, N) array of ±1 entries")
    n_copies = check_positive_int(n_copies, "n_copies", maximum=10**6)
    if isinstance(flip_prob, bool) or not np.isscalar(flip_prob) or not 0 <= flip_prob <= 0.5:
        raise ValueError(f"flip_prob must be a number in [0, 0.5], got {flip_prob!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    S = np.repeat(xi, n_copies, axis=0)
    flips = rng.random(S.shape) < flip_prob
    return np.where(flips, -S, S)
