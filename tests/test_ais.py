"""bmlab.ais against the exact log Z of enumerable RBMs (16 visible x 10 hidden)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logsumexp

from bmlab import RBM, ais_log_partition

pytestmark = pytest.mark.filterwarnings("error")


def make(seed, nv=16, nh=10):
    rng = np.random.default_rng(seed)
    return RBM(rng.normal(0, 1, (nv, nh)), rng.normal(0, 1, nv), rng.normal(0, 1, nh))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ais_lands_within_four_stderr_and_a_tenth_of_a_nat(seed, reverse):
    rbm = make(seed)
    res = ais_log_partition(
        rbm, n_betas=2000, n_chains=200, rng=np.random.default_rng(10 + seed), reverse=reverse
    )
    err = res.log_Z - rbm.log_partition()
    assert 0 < res.stderr < 0.05
    assert abs(err) < 4 * res.stderr and abs(err) < 0.1, (err, res.stderr)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forward_underestimates_and_reverse_overestimates_on_average(seed):
    """Few temperatures (2), 300 independent estimates of 10 chains each (groups of one run's
    log weights): the mean error of forward AIS is below 0 and that of reverse AIS above 0, each
    by more than 3 standard errors of the mean (measured: 7.6 to 17)."""
    rbm = make(seed)
    log_z0 = np.logaddexp(0, rbm.a).sum() + rbm.b.size * np.log(2)
    exact = rbm.log_partition()
    for reverse, sign in ((False, -1), (True, 1)):
        log_w = ais_log_partition(
            rbm, n_betas=2, n_chains=3000, rng=np.random.default_rng(seed), reverse=reverse
        ).log_w.reshape(300, 10)
        log_r = logsumexp(log_w, axis=1) - np.log(10)
        err = (log_z0 - log_r if reverse else log_z0 + log_r) - exact
        assert sign * err.mean() > 3 * err.std(ddof=1) / np.sqrt(len(err)), (reverse, err.mean())


def test_stderr_shrinks_with_more_chains():
    rbm = make(3)
    small, large = (
        ais_log_partition(rbm, n_betas=100, n_chains=n, rng=np.random.default_rng(n))
        for n in (50, 1600)
    )
    assert large.stderr < small.stderr / 2  # expected ratio sqrt(1600 / 50) = 5.7
    assert abs(large.log_Z - rbm.log_partition()) < 4 * large.stderr


@pytest.mark.parametrize("reverse", [False, True])
def test_no_weights_gives_the_exact_answer_with_zero_variance(reverse):
    rng = np.random.default_rng(5)
    rbm = RBM(np.zeros((16, 10)), rng.normal(0, 1, 16), rng.normal(0, 1, 10))
    res = ais_log_partition(rbm, n_betas=7, n_chains=30, rng=rng, reverse=reverse)
    assert res.stderr == 0 and np.ptp(res.log_w) == 0
    assert res.log_Z == pytest.approx(rbm.log_partition(), abs=1e-12)


def test_reverse_from_given_samples_and_a_data_base():
    """Reverse AIS from model samples passed in (long Gibbs chains), with a base whose biases
    differ from the RBM's: still within 4 standard errors of the exact value."""
    rbm = make(4, nv=24, nh=8)  # 24 visible units: no exact visible table, so v must be given
    rng = np.random.default_rng(4)
    v = rbm.sample(300, n_steps=2000, rng=rng)
    base = np.zeros(24)
    for reverse, kw in ((True, {"v": v}), (False, {})):
        res = ais_log_partition(
            rbm, n_betas=1000, n_chains=300, rng=rng, reverse=reverse, a_base=base, **kw
        )
        assert abs(res.log_Z - rbm.log_partition()) < max(4 * res.stderr, 0.02)


def test_arguments_are_checked():
    rbm, rng = make(0, nv=24, nh=4), np.random.default_rng(0)
    with pytest.raises(TypeError, match="rbm must be"):
        ais_log_partition(rbm.params, n_betas=3, n_chains=2, rng=rng)
    with pytest.raises(ValueError, match="n_betas"):
        ais_log_partition(rbm, n_betas=0, n_chains=2, rng=rng)
    with pytest.raises(ValueError, match="a_base"):
        ais_log_partition(rbm, n_betas=3, n_chains=2, rng=rng, a_base=np.zeros(3))
    with pytest.raises(ValueError, match="v is for reverse"):
        ais_log_partition(rbm, n_betas=3, n_chains=2, rng=rng, v=np.zeros((2, 24)))
    with pytest.raises(ValueError, match="needs samples"):
        ais_log_partition(rbm, n_betas=3, n_chains=2, rng=rng, reverse=True)
    with pytest.raises(ValueError, match="only 0 and 1"):
        ais_log_partition(
            rbm, n_betas=3, n_chains=2, rng=rng, reverse=True, v=np.full((2, 24), 0.5)
        )


def test_forward_draws_its_start_from_the_base():
    """One temperature, no weights: plain importance sampling from the base, unbiased only if
    the starting samples really come from the base's biases (not the RBM's)."""
    a, a0 = np.array([2.0, -2.0, 1.0, 0.0]), np.array([-1.0, 1.0, 0.0, 2.0])
    rbm = RBM(np.zeros((4, 3)), a, np.zeros(3))
    exact = np.logaddexp(0, a).sum() + 3 * np.log(2)
    res = ais_log_partition(rbm, n_betas=1, n_chains=20000, rng=np.random.default_rng(7), a_base=a0)
    assert abs(res.log_Z - exact) < 4 * res.stderr


def test_reverse_samples_with_no_rows_are_a_value_error_naming_them():
    rbm = RBM(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="v is for reverse"):
        ais_log_partition(
            rbm,
            n_betas=3,
            n_chains=2,
            rng=np.random.default_rng(0),
            reverse=True,
            v=np.ones((0, 3)),
        )
