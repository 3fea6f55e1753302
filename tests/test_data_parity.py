"""bmlab.data.parity and bmlab.data.one_hot against an independent loop and their moments."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bmlab.data import one_hot, parity


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_parity_is_every_even_string_once(n):
    S = parity(n)
    expected = {
        tuple(2 * b - 1 for b in reversed(bits))
        for bits in itertools.product([0, 1], repeat=n)
        if sum(bits) % 2 == 0
    }
    got = [tuple(int(x) for x in row) for row in S]
    assert len(got) == len(set(got)) == 2 ** (n - 1)
    assert set(got) == expected
    assert S.dtype == np.float64
    np.testing.assert_array_equal(S.prod(axis=1), (-1.0) ** n)


@pytest.mark.parametrize("n", [3, 4, 6])
def test_parity_first_and_second_moments_vanish(n):
    S = parity(n)
    np.testing.assert_array_equal(S.mean(axis=0), 0.0)
    np.testing.assert_array_equal(S.T @ S / len(S), np.eye(n))


def test_parity_two_bits_is_correlated():
    S = parity(2)
    assert np.mean(S[:, 0] * S[:, 1]) == 1.0


def test_one_hot():
    S = one_hot(4)
    assert S.dtype == np.float64 and set(np.unique(S)) == {-1.0, 1.0}  # ±1 spins, not {0,1}
    np.testing.assert_array_equal((S > 0).sum(axis=1), 1)
    np.testing.assert_array_equal(np.argmax(S, axis=1), np.arange(4))


@pytest.mark.parametrize(
    "bad,err", [(0, ValueError), (21, ValueError), (2.0, TypeError), ("3", TypeError)]
)
def test_parity_rejects_bad_n(bad, err):
    with pytest.raises(err, match="n"):
        parity(bad)


def test_one_hot_rejects_n_1():
    with pytest.raises(ValueError, match="n must"):
        one_hot(1)
