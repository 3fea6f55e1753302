"""Data sets of the notebooks; nothing is downloaded.

±1 arrays for the fully visible and hidden-unit machines (notebooks 03, 04), {0,1} arrays for
the RBM (notebook 05); each docstring says which.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_data, check_in_range, check_positive_int, check_rng
from ._kernels import codes_to_states


def parity(n: int) -> np.ndarray:
    """All even-parity strings of n ±1 spins (an even number of +1) in code order, shape
    (2**(n-1), n) (notebook 04): every first and second moment vanishes for n >= 3."""
    n = check_positive_int(n, "n", maximum=20)
    S = codes_to_states(np.arange(2**n), n)
    return S[(S > 0).sum(axis=1) % 2 == 0]


def one_hot(n: int) -> np.ndarray:
    """The n strings of n ±1 spins with exactly one +1 (row k: +1 at k), shape (n, n),
    n >= 2 (notebook 04): fixed by its first and second moments."""
    n = check_in_range(n, "n", 2, 20, integer=True)
    return 2.0 * np.eye(n) - 1.0


def bars_and_stripes(n: int) -> np.ndarray:
    """Bars and stripes on an n x n grid, {0,1} pixels, 2 <= n <= 8 (notebook 05).

    Every subset of the n rows switched on ("bars", subset codes in increasing order, bit r
    = row r), then every subset of the columns ("stripes"). Blank and full images are both,
    so they appear twice: 2**(n+1) rows, 2**(n+1) - 2 distinct.

    Returns ``V`` of shape (2**(n+1), n*n), row-major images (pixel (r, c) is column r*n + c).
    """
    n = check_in_range(n, "n", 2, 8, integer=True)
    subsets = codes_to_states(np.arange(2**n), n, binary=True)  # (2**n, n)
    return np.concatenate([np.repeat(subsets, n, axis=1), np.tile(subsets, (1, n))])


def max_log_likelihood(V) -> float:
    """The best possible mean log-likelihood of the rows of ``V`` (m, n), {0,1}: that of their own
    empirical distribution, (1/m) sum_r log(count(v_r) / m), in nats."""
    V = check_data(V, "V", binary=True)
    _, inverse, counts = np.unique(V, axis=0, return_inverse=True, return_counts=True)
    return float(np.mean(np.log(counts[inverse.ravel()] / V.shape[0])))


def binarized_digits() -> np.ndarray:
    """scikit-learn's bundled 8x8 digits as {0,1} row-major images, shape (1797, 64): a pixel
    is on iff its intensity (0..16) exceeds 8 (notebook 05b)."""
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    return (load_digits().data > 8).astype(float)


#: 3x3 glyphs of :func:`letters_3x3` ("#" = ink = +1), row-major.
_LETTERS = {
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
    """Distinct 3x3 letters from ``"TLXO+HUC"`` as ±1 spins (+1 = ink), shape
    (len(names), 9), row-major (notebook 03)."""
    if not isinstance(names, str) or not names:
        raise TypeError(f"names must be a non-empty string of letters, got {names!r}")
    if any(c not in _LETTERS for c in names) or len(set(names)) != len(names):
        raise ValueError(
            f"names must be distinct letters from {''.join(_LETTERS)!r}, got {names!r}"
        )
    return np.array([[1.0 if ch == "#" else -1.0 for ch in _LETTERS[c]] for c in names])


def noisy_copies(patterns, n_copies: int, flip_prob: float, *, rng) -> np.ndarray:
    """``n_copies`` copies of each ±1 pattern (P, N), each spin flipped with probability
    ``flip_prob`` in [0, 0.5]: shape (P * n_copies, N), the copies of pattern 0 first
    (notebook 03)."""
    xi = check_data(patterns, "patterns")
    n_copies = check_positive_int(n_copies, "n_copies", maximum=10**6)
    flip_prob = check_in_range(flip_prob, "flip_prob", 0.0, 0.5)
    rng = check_rng(rng, "noisy_copies")
    S = np.repeat(xi, n_copies, axis=0)
    return np.where(rng.random(S.shape) < flip_prob, -S, S)
