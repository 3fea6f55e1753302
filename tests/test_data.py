"""bmlab.data: bars and stripes, the likelihood ceiling, digits (05); letters (03)."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab.data import (
    bars_and_stripes,
    binarized_digits,
    letters_3x3,
    max_log_likelihood,
    noisy_copies,
)

pytestmark = pytest.mark.filterwarnings("error")


@pytest.mark.parametrize("n,rows,distinct,best", [(4, 32, 30, -3.3791), (3, 16, 14, -2.5993)])
def test_bars_and_stripes_counts_and_optimum(n, rows, distinct, best):
    V = bars_and_stripes(n)
    assert V.shape == (rows, n * n)
    assert set(np.unique(V)) == {0.0, 1.0}
    assert len(np.unique(V, axis=0)) == distinct
    assert max_log_likelihood(V) == pytest.approx(best, abs=5e-5)
    # closed form: (2^(n+1) - 4) patterns with 1/m, two with 2/m
    m = rows
    closed = ((m - 4) * np.log(1 / m) + 4 * np.log(2 / m)) / m
    assert max_log_likelihood(V) == pytest.approx(closed, abs=1e-12)


def test_bars_and_stripes_are_bars_and_stripes():
    n = 4
    imgs = bars_and_stripes(n).reshape(-1, n, n)
    for img in imgs:
        rows_const = np.all(img == img[:, :1], axis=1).all()  # every row uniform: bars
        cols_const = np.all(img == img[:1, :], axis=0).all()  # every column uniform: stripes
        assert rows_const or cols_const
    blank = np.sum(imgs.reshape(len(imgs), -1).sum(axis=1) == 0)
    full = np.sum(imgs.reshape(len(imgs), -1).sum(axis=1) == n * n)
    assert blank == 2 and full == 2


def test_max_log_likelihood_simple_cases():
    assert max_log_likelihood(np.eye(4)) == pytest.approx(np.log(1 / 4))
    assert max_log_likelihood(np.ones((3, 2))) == 0.0
    with pytest.raises(ValueError, match="shape"):
        max_log_likelihood(np.zeros(3))


def test_bars_and_stripes_bad_n():
    with pytest.raises(ValueError, match="n"):
        bars_and_stripes(1)
    with pytest.raises(TypeError, match="n"):
        bars_and_stripes(2.0)


def test_binarized_digits_threshold():
    from sklearn.datasets import load_digits

    V = binarized_digits()
    assert V.shape == (1797, 64)
    np.testing.assert_array_equal(V, (load_digits().data > 8).astype(float))


def test_letters_and_noisy_copies():
    xi = letters_3x3("TX")
    np.testing.assert_array_equal(xi[1].reshape(3, 3), [[1, -1, 1], [-1, 1, -1], [1, -1, 1]])
    S = noisy_copies(xi, 4000, 0.1, rng=np.random.default_rng(0))
    assert S.shape == (8000, 9)
    flipped = S != np.repeat(xi, 4000, axis=0)
    assert abs(flipped.mean() - 0.1) < 5 * np.sqrt(0.09 / flipped.size)  # z-score < 5
    np.testing.assert_array_equal(
        noisy_copies(xi, 3, 0.0, rng=np.random.default_rng(0)), np.repeat(xi, 3, axis=0)
    )
    with pytest.raises(ValueError, match="distinct"):
        letters_3x3("TT")
    with pytest.raises(ValueError, match="flip_prob"):
        noisy_copies(xi, 2, 0.7, rng=np.random.default_rng(0))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bars_first_in_subset_code_order_then_stripes(n):
    """Row ``code`` is the bar image with pixel row r on iff bit r of ``code`` is 1; row
    2**n + code is the stripe image with column r on iff bit r is 1 (the docstring's order)."""
    imgs = bars_and_stripes(n).reshape(-1, n, n)
    for code in range(2**n):
        on = ((code >> np.arange(n)) & 1).astype(float)
        np.testing.assert_array_equal(imgs[code], np.repeat(on[:, None], n, axis=1))
        np.testing.assert_array_equal(imgs[2**n + code], np.repeat(on[None, :], n, axis=0))
