"""bmlab.data functions of notebook 05: bars and stripes, the likelihood ceiling, digits."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab.data import bars_and_stripes, binarized_digits, max_log_likelihood

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

    raw = load_digits().data
    V, y = binarized_digits(return_labels=True)
    assert V.shape == (1797, 64) and y.shape == (1797,)
    np.testing.assert_array_equal(V, (raw > 8).astype(float))
    np.testing.assert_array_equal(binarized_digits(0), (raw > 0).astype(float))
    with pytest.raises(ValueError, match="threshold"):
        binarized_digits(16)
    with pytest.raises(TypeError, match="threshold"):
        binarized_digits(0.5)
