"""Annealed importance sampling (AIS) for the log partition function of an RBM (notebook 02, 6).

Geometric path from an independent-units base (visible biases ``a_base``, no weights) at
beta = 0 to the RBM at beta = 1, the hidden units summed out analytically:
``log p*_beta(v) = a_base.v + beta (a - a_base).v + sum_j softplus(beta (b_j + (v W)_j))``,
so ``log Z_0 = sum_i softplus(a_base_i) + n_hidden log 2``. Forward AIS under-estimates log Z
on average (Jensen), reverse AIS over-estimates it (Burda, Grosse & Salakhutdinov 2015).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np
from scipy.special import expit, logsumexp

from ._checks import check_binary, check_positive_int, check_rng, check_theta
from ._kernels import _softplus_sum, codes_to_states
from .rbm import RBM

__all__ = ["ais_log_partition"]


class _AISResult(NamedTuple):
    log_Z: float  # the estimate of log Z
    stderr: float  # its standard error (delta method on the mean importance weight)
    log_w: np.ndarray  # the chains' log importance weights, shape (n_chains,)


def ais_log_partition(
    rbm, *, n_betas: int, n_chains: int, rng, reverse: bool = False, a_base=None, v=None
):
    """Estimate log Z of ``rbm`` by AIS with ``n_betas`` equally spaced temperatures.

    Parameters
    ----------
    rbm : RBM
    n_betas : int >= 1, intermediate distributions beta_1 < ... < beta_K = 1 after beta_0 = 0.
    n_chains : int, independent annealing runs (vectorised).
    rng : numpy.random.Generator
    reverse : bool, run from samples of the model back to the base (reverse AIS).
    a_base : ndarray, shape (n_visible,), the base's visible biases; default ``rbm.a``
        (for a trained RBM the data's log-odds are a better base).
    v : ndarray, shape (n_chains, n_visible), {0,1}, reverse only: samples of the model to start
        from (e.g. long Gibbs chains from the data). Default: exact samples of p(v), drawn from
        ``rbm.visible_distribution()`` (n_visible <= 20).

    Returns
    -------
    result : NamedTuple ``(log_Z, stderr, log_w)``; ``log_w`` has shape (n_chains,).
    Each temperature applies one block-Gibbs step at beta (h | v, then v | h).
    """
    if not isinstance(rbm, RBM):
        raise TypeError(f"rbm must be a bmlab.RBM, got {type(rbm).__name__}")
    K = check_positive_int(n_betas, "n_betas")
    n = check_positive_int(n_chains, "n_chains")
    rng = check_rng(rng, "ais_log_partition")
    nv, nh = rbm.W.shape
    a0 = rbm.a if a_base is None else check_theta(a_base, nv, "a_base")
    if v is not None and (not reverse or np.shape(v) != (n, nv)):
        raise ValueError(f"v is for reverse=True only, with shape ({n}, {nv}); got {np.shape(v)}")
    W = rbm.W
    b = rbm.b
    da = rbm.a - a0  # the visible biases the path adds to the base's
    betas = np.linspace(0.0, 1.0, K + 1)
    if not reverse:
        V = (rng.random((n, nv)) < expit(a0)).astype(float)  # exact samples of the base
    elif v is not None:
        V = check_binary(v, nv, "v").copy()
    elif nv <= 20:  # exact samples of p(v): inverse CDF over the codes, unit i = bit i
        codes = np.searchsorted(np.cumsum(rbm.visible_distribution()), rng.random(n), "right")
        V = codes_to_states(np.minimum(codes, 2**nv - 1), nv, binary=True)
    else:
        raise ValueError(f"reverse AIS needs samples v of the model for n_visible = {nv} > 20")
    path = betas[::-1] if reverse else betas
    log_w = np.zeros(n)
    for beta_old, beta_new in itertools.pairwise(path):  # weight at v, then a step at beta_new
        X = V @ W + b
        log_w += (
            (beta_new - beta_old) * (V @ da)
            + _softplus_sum(beta_new * X)
            - _softplus_sum(beta_old * X)
        )
        if beta_new not in (0.0, 1.0):  # no transition needed at the path's end
            H = rng.random((n, nh)) < expit(beta_new * X)
            V = (rng.random((n, nv)) < expit(a0 + beta_new * (da + H @ W.T))).astype(float)
    log_Z0 = float(np.logaddexp(0.0, a0).sum() + nh * np.log(2.0))
    log_r = float(logsumexp(log_w) - np.log(n))  # log of the mean importance weight
    w = np.exp(log_w - log_w.max())
    stderr = float(np.std(w) / (np.sqrt(n) * np.mean(w)))
    return _AISResult(log_Z0 - log_r if reverse else log_Z0 + log_r, stderr, log_w)
