"""bmlab.rbm against brute force over all joint states (v, h) of small RBMs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from bmlab.learning import train
from bmlab.rbm import (
    RBM,
    ContrastiveDivergence,
    ExactGradient,
    PersistentCD,
    cd_expected_gradient,
    gibbs_transition_matrix,
    make_estimator,
)

pytestmark = pytest.mark.filterwarnings("error")

SHAPES = [(5, 3), (3, 6), (4, 4)]  # n_visible > n_hidden, n_hidden > n_visible, equal


def bits(n):
    c = np.arange(2**n)
    return ((c[:, None] >> np.arange(n)) & 1).astype(float)


def make(nv, nh, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return RBM(rng.normal(0, scale, (nv, nh)), rng.normal(0, 0.5, nv), rng.normal(0, 0.5, nh))


def joint(rbm):
    """Brute force: all (v, h), their energies and the joint probabilities (2^nv, 2^nh)."""
    V, H = bits(rbm.n_visible), bits(rbm.n_hidden)
    E = -(V @ rbm.W @ H.T) - (V @ rbm.a)[:, None] - (H @ rbm.b)[None, :]
    logZ = logsumexp(-E)
    return V, H, np.exp(-E - logZ), logZ


@pytest.mark.parametrize("nv,nh", SHAPES)
def test_log_partition_and_normalisation(nv, nh):
    rbm = make(nv, nh)
    V, H, P, logZ = joint(rbm)
    assert rbm.log_partition() == pytest.approx(logZ, abs=1e-12)
    assert np.exp(rbm.log_prob(V)).sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(rbm.log_prob(V), np.log(P.sum(axis=1)), atol=1e-12)
    np.testing.assert_allclose(rbm.visible_distribution(), P.sum(axis=1), atol=1e-12)
    # free energy: p(v) = exp(-F(v)) / Z
    np.testing.assert_allclose(np.exp(-rbm.free_energy(V) - logZ), P.sum(axis=1), atol=1e-12)
    # energy of one pair
    assert rbm.energy(V[3], H[1]) == pytest.approx(-np.log(P[3, 1]) - logZ, abs=1e-10)


def test_log_partition_large_weights_stable():
    rbm = make(6, 4, scale=40.0)
    _, _, _, logZ = joint(rbm)
    assert rbm.log_partition() == pytest.approx(logZ, rel=1e-12)
    rbm2 = make(4, 6, scale=40.0)
    assert rbm2.log_partition() == pytest.approx(joint(rbm2)[3], rel=1e-12)


def test_log_partition_many_chunks_matches_direct():
    """16 hidden units: many chunks, threads; compare with a direct logsumexp."""
    rng = np.random.default_rng(3)
    rbm = RBM(rng.normal(0, 0.5, (20, 16)), rng.normal(0, 1, 20), rng.normal(0, 1, 16))
    H = bits(16)
    X = H @ rbm.W.T + rbm.a
    direct = logsumexp(H @ rbm.b + np.logaddexp(0, X).sum(axis=1))
    assert rbm.log_partition() == pytest.approx(direct, abs=1e-9)
    rbm_t = RBM(rbm.W.T.copy(), rbm.b, rbm.a)  # same Z with the layers swapped
    assert rbm_t.log_partition() == pytest.approx(direct, abs=1e-9)


@pytest.mark.parametrize("nv,nh", SHAPES)
def test_conditionals_factorize(nv, nh):
    rbm = make(nv, nh, seed=1)
    V, H, P, _ = joint(rbm)
    p_h_given_v = P / P.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(rbm.hidden_probs(V), p_h_given_v @ H, atol=1e-12)
    p_v_given_h = P / P.sum(axis=0, keepdims=True)
    np.testing.assert_allclose(rbm.visible_probs(H), p_v_given_h.T @ V, atol=1e-12)
    # factorization: p(h|v) = prod_j p(h_j|v)
    Q = rbm.hidden_probs(V)
    prod = np.exp(H @ np.log(Q).T + (1 - H) @ np.log1p(-Q).T).T
    np.testing.assert_allclose(prod, p_h_given_v, atol=1e-12)


@pytest.mark.parametrize("nv,nh", SHAPES)
def test_model_moments_and_exact_gradient_vs_finite_differences(nv, nh):
    rbm = make(nv, nh, seed=2)
    V, H, P, _ = joint(rbm)
    Ev, Eh, Evh = rbm.model_moments()
    np.testing.assert_allclose(Evh, V.T @ P @ H, atol=1e-12)
    np.testing.assert_allclose(Ev, P.sum(axis=1) @ V, atol=1e-12)
    np.testing.assert_allclose(Eh, P.sum(axis=0) @ H, atol=1e-12)

    data = (np.random.default_rng(5).random((7, nv)) < 0.5).astype(float)
    grad = rbm.exact_gradient(data)
    eps = 1e-6
    for key in ("W", "a", "b"):
        num = np.zeros_like(grad[key])
        for idx in np.ndindex(num.shape):
            plus, minus = rbm.params, rbm.params
            plus[key][idx] += eps
            minus[key][idx] -= eps
            num[idx] = (RBM.from_params(plus).mean_log_likelihood(data)
                        - RBM.from_params(minus).mean_log_likelihood(data)) / (2 * eps)
        np.testing.assert_allclose(grad[key], num, atol=1e-7)
    est = ExactGradient(data)(rbm.params, np.random.default_rng(0))
    for key in grad:
        np.testing.assert_allclose(est[key], grad[key], atol=1e-12)


@pytest.mark.parametrize("nv,nh", [(4, 3), (3, 5)])
def test_transition_matrix_vs_brute_force(nv, nh):
    rbm = make(nv, nh, seed=4)
    _, _, P, _ = joint(rbm)
    T_brute = (P / P.sum(axis=1, keepdims=True)) @ (P / P.sum(axis=0, keepdims=True)).T
    T = gibbs_transition_matrix(rbm)
    np.testing.assert_allclose(T, T_brute, atol=1e-12)
    pv = P.sum(axis=1)
    np.testing.assert_allclose(pv @ T, pv, atol=1e-12)  # p(v) is stationary


@pytest.mark.parametrize("nv,nh", [(4, 3), (3, 5)])
def test_cd_expectation_approaches_exact_gradient(nv, nh):
    rbm = make(nv, nh, seed=6, scale=0.7)
    data = bits(nv)[[1, 2, 7, 7, 12 % 2**nv]]
    exact = rbm.exact_gradient(data)
    T = gibbs_transition_matrix(rbm)
    errors = []
    for k in (0, 1, 2, 5, 20, 200):
        g = cd_expected_gradient(rbm, data, k, T=T)
        errors.append(np.sqrt(sum(np.sum((g[x] - exact[x]) ** 2) for x in g)))
    assert errors[0] > 1e-3  # CD-0 is not the gradient
    assert all(e2 <= e1 + 1e-12 for e1, e2 in itertools.pairwise(errors)), errors
    assert errors[-1] < 1e-9


def test_cd_estimator_mean_matches_exact_expectation():
    """Average of many CD-2 estimates vs the exact expectation: every |z| < 5."""
    rbm = make(4, 3, seed=7, scale=0.8)
    data = bits(4)[[0, 3, 5, 9, 9, 14]]
    rng = np.random.default_rng(8)
    reps = 4000
    est = ContrastiveDivergence(np.tile(data, (reps, 1)), k=2)
    # one call with every row repeated `reps` times = reps independent CD runs per row
    g = est(rbm.params, rng)
    expected = cd_expected_gradient(rbm, data, 2)
    # standard error from per-replicate estimates
    single = ContrastiveDivergence(data, k=2)
    samples = [single(rbm.params, rng)["W"] for _ in range(400)]
    se = np.std(samples, axis=0) / np.sqrt(reps)
    z = (g["W"] - expected["W"]) / se
    assert np.all(np.abs(z) < 5), z


def test_gibbs_and_pcd_chains_sample_the_model_chi_square():
    """Visible states after many block-Gibbs steps (and PCD chains with fixed parameters)
    follow p(v): chi-square goodness of fit, p-value > 1e-3."""
    rbm = make(4, 3, seed=9, scale=0.8)
    p = rbm.visible_distribution()
    rng = np.random.default_rng(10)
    codes_of = 2 ** np.arange(4)
    samples = rbm.sample(20000, n_steps=30, rng=rng)
    counts = np.bincount((samples @ codes_of).astype(int), minlength=16)
    assert stats.chisquare(counts, 20000 * p).pvalue > 1e-3

    data = bits(4)[[0, 15]]
    pcd = PersistentCD(data, k=1, n_chains=5000)
    for _ in range(30):
        pcd(rbm.params, rng)
    counts = np.bincount((pcd.chains @ codes_of).astype(int), minlength=16)
    assert stats.chisquare(counts, 5000 * p).pvalue > 1e-3

    exact = rbm.sample_exact(20000, rng=rng)
    counts = np.bincount((exact @ codes_of).astype(int), minlength=16)
    assert stats.chisquare(counts, 20000 * p).pvalue > 1e-3


def test_block_gibbs_one_step_distribution():
    """One step from a fixed state: sampled (v, h) frequencies vs the exact conditionals."""
    rbm = make(3, 2, seed=11, scale=1.0)
    v0 = np.array([1.0, 0.0, 1.0])
    rng = np.random.default_rng(12)
    V1, H = rbm.gibbs(np.tile(v0, (20000, 1)), 1, rng=rng, return_hidden=True)
    ph = rbm.hidden_probs(v0)
    hc = (H @ [1, 2]).astype(int)
    Hs = bits(2)
    ph_all = np.prod(np.where(Hs == 1, ph, 1 - ph), axis=1)
    assert stats.chisquare(np.bincount(hc, minlength=4), 20000 * ph_all).pvalue > 1e-3
    T = gibbs_transition_matrix(rbm)
    vc = (V1 @ [1, 2, 4]).astype(int)
    assert stats.chisquare(np.bincount(vc, minlength=8), 20000 * T[5]).pvalue > 1e-3


def test_training_with_exact_gradient_and_cd_raises_likelihood():
    from bmlab.data import bars_and_stripes

    V = bars_and_stripes(3)
    rng = np.random.default_rng(0)
    rbm = RBM.random(9, 6, rng=rng, data=V)
    np.testing.assert_allclose(
        1 / (1 + np.exp(-rbm.a)), V.mean(axis=0))  # log-odds init
    before = rbm.mean_log_likelihood(V)
    for algo in ("exact", "cd", "pcd"):
        est = make_estimator(algo, V, k=1, batch_size=8)
        res = train(rbm.params, est, n_steps=500, lr=0.5, rng=rng)
        after = RBM.from_params(res.params).mean_log_likelihood(V)
        assert after > before + 0.3, (algo, before, after)  # measured: +0.5 to +1.1


def test_minibatches_cover_each_epoch():
    data = np.eye(6)
    est = ContrastiveDivergence(data, k=1, batch_size=2)
    rng = np.random.default_rng(0)
    rows = np.concatenate([est.batch(rng) for _ in range(3)])
    assert sorted(map(tuple, rows)) == sorted(map(tuple, data))


def test_bad_inputs():
    rbm = make(4, 3)
    with pytest.raises(ValueError, match="0 and 1"):
        rbm.log_prob(np.full((2, 4), 0.5))
    with pytest.raises(ValueError, match="shape"):
        rbm.log_prob(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="W must have shape"):
        RBM(np.zeros(3))
    with pytest.raises(ValueError, match="a must have shape"):
        RBM(np.zeros((3, 2)), a=np.zeros(2))
    with pytest.raises(ValueError, match="b must have shape"):
        RBM(np.zeros((3, 2)), b=np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        RBM(np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="at most 26"):
        RBM(np.zeros((30, 30))).log_partition()
    with pytest.raises(ValueError, match="n_visible"):
        RBM(np.zeros((30, 2))).visible_distribution()
    with pytest.raises(ValueError, match="n_visible \\+ n_hidden"):
        gibbs_transition_matrix(RBM(np.zeros((14, 12))))
    with pytest.raises(TypeError, match="rng"):
        rbm.gibbs(np.zeros(4), 1, rng=0)
    with pytest.raises(ValueError, match="k must be"):
        rbm.gibbs(np.zeros(4), -1, rng=np.random.default_rng())
    with pytest.raises(ValueError, match="k must be"):
        ContrastiveDivergence(np.zeros((2, 4)), k=0)
    with pytest.raises(ValueError, match="batch_size"):
        ContrastiveDivergence(np.zeros((2, 4)), batch_size=3)
    with pytest.raises(ValueError, match="0 and 1"):
        PersistentCD(np.full((2, 4), 2.0))
    with pytest.raises(ValueError, match="algorithm"):
        make_estimator("gibbs", np.zeros((2, 4)))
    with pytest.raises(ValueError, match="rows"):
        ExactGradient(np.zeros((2, 4)))({"W": np.zeros((5, 2)), "a": np.zeros(5),
                                        "b": np.zeros(2)}, np.random.default_rng())
    with pytest.raises(TypeError, match="n_hidden"):
        RBM.random(4, 2.5, rng=np.random.default_rng())


def test_log_partition_64x20_fast_and_exact():
    """The issue's size: 64 visible x 20 hidden (enumerates 2**20 hidden states)."""
    import time

    rng = np.random.default_rng(0)
    rbm = RBM(rng.normal(0, 0.1, (64, 20)), rng.normal(0, 1, 64), rng.normal(0, 1, 20))
    start = time.perf_counter()
    logZ = rbm.log_partition()
    elapsed = time.perf_counter() - start
    # Zero weights give a closed form; check the machinery at this size against it too.
    zero = RBM(np.zeros((64, 20)), rbm.a, rbm.b)
    closed = np.logaddexp(0, rbm.a).sum() + np.logaddexp(0, rbm.b).sum()
    assert zero.log_partition() == pytest.approx(closed, abs=1e-9)
    assert np.isfinite(logZ)
    assert elapsed < 6.0  # 3 s target on an idle 2-core machine; slack for shared CI


def _reference_estimate(est, params, rng, persistent_state):
    """The estimators written plainly: a draw per Gibbs half-step, then the statistics.

    ``persistent_state`` is None for CD, else a list ``[v, h]`` of the PCD chains' states
    (``[None, None]`` before the first update).
    """
    from scipy.special import expit

    W, a, b = params["W"], params["a"], params["b"]
    V = est.batch(rng)

    def sample(field):
        return (rng.random(field.shape) < expit(field)).astype(float)

    if persistent_state is None:  # CD-k: h from the batch, then v, ... k times
        chain = V
        for _ in range(est.k):
            chain = sample(sample(chain @ W + b) @ W.T + a)
    else:  # PCD-k: the chains keep v and h; each step samples v from h, then h from v
        chain, H = persistent_state
        if chain is None:
            chain = est.data[rng.integers(0, est.data.shape[0], est.n_chains)]
            H = sample(chain @ W + b)
        for step in range(est.k):
            chain = sample(H @ W.T + a)
            if step < est.k - 1:
                H = sample(chain @ W + b)
    m, c = V.shape[0], chain.shape[0]
    S = np.concatenate([V, chain])
    w = np.concatenate([np.full(m, 1.0 / m), np.full(c, -1.0 / c)])
    P = expit(S @ W + b)
    if persistent_state is not None:  # the next update's hidden states, from these P
        persistent_state[:] = chain, (rng.random((c, W.shape[1])) < P[m:]).astype(float)
    P = P * w[:, None]
    return {"W": S.T @ P, "a": w @ S, "b": P.sum(axis=0)}


@pytest.mark.parametrize("kind,k,batch,chains", [("cd", 1, 3, None), ("cd", 3, None, None),
                                                 ("pcd", 1, 4, None), ("pcd", 2, 3, 7)])
def test_fused_estimators_match_the_plain_algorithm(kind, k, batch, chains):
    """The buffered hot path draws the same random numbers in the same order and gives the
    same estimates (to rounding) as the plain per-step code, over several updates."""
    data = bits(4)[[0, 3, 5, 6, 9, 10, 12, 15]]
    rbm = make(4, 3, seed=2)
    if kind == "cd":
        fast = ContrastiveDivergence(data, k, batch_size=batch)
        plain, state = ContrastiveDivergence(data, k, batch_size=batch), None
    else:
        fast = PersistentCD(data, k, batch_size=batch, n_chains=chains)
        plain, state = PersistentCD(data, k, batch_size=batch, n_chains=chains), [None, None]
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(12):
        g = fast(rbm.params, r1)
        ref = _reference_estimate(plain, rbm.params, r2, state)
        for key in "Wab":
            np.testing.assert_allclose(g[key], ref[key], rtol=1e-13, atol=1e-15)
    assert r1.random() == r2.random()  # same number of draws
    if kind == "pcd":
        np.testing.assert_array_equal(fast.chains, state[0])


def test_pcd_chains_attribute():
    data = bits(3)
    pcd = PersistentCD(data, k=1, n_chains=5)
    assert pcd.chains is None
    rng = np.random.default_rng(0)
    pcd(make(3, 2).params, rng)
    assert pcd.chains.shape == (5, 3) and set(np.unique(pcd.chains)) <= {0.0, 1.0}
    pcd.chains = np.ones((5, 3))
    np.testing.assert_array_equal(pcd.chains, np.ones((5, 3)))
    pcd(make(3, 4).params, rng)  # another hidden layer size: buffers rebuilt, chains kept going
    assert pcd.chains.shape == (5, 3)
    with pytest.raises(ValueError, match="chains must have shape"):
        pcd.chains = np.ones((4, 3))
    pcd.chains = None
    assert pcd.chains is None


def test_pcd_samples_hidden_states_for_assigned_chains():
    """Assigned visible states get fresh hidden states before the chains move on: with
    near-deterministic units (v all on <=> h all on), all-on chains stay all on even after
    the chains were all off at the previous update."""
    W = np.full((3, 2), 20.0)
    params = {"W": W, "a": np.full(3, -30.0), "b": np.full(2, -50.0)}
    pcd = PersistentCD(bits(3), k=1, n_chains=4)
    pcd.chains = np.zeros((4, 3))
    rng = np.random.default_rng(0)
    pcd(params, rng)
    np.testing.assert_array_equal(pcd.chains, np.zeros((4, 3)))
    pcd.chains = np.ones((4, 3))
    pcd(params, rng)
    np.testing.assert_array_equal(pcd.chains, np.ones((4, 3)))
