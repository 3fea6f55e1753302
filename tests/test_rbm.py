"""bmlab.rbm against brute force over all joint states (v, h) of small RBMs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logsumexp

from bmlab.data import bars_and_stripes
from bmlab.learning import train
from bmlab.rbm import RBM, CDGradient, ExactRBMGradient, PCDGradient

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
    V, H = bits(rbm.W.shape[0]), bits(rbm.W.shape[1])
    E = -(V @ rbm.W @ H.T) - (V @ rbm.a)[:, None] - (H @ rbm.b)[None, :]
    logZ = logsumexp(-E)
    return V, H, np.exp(-E - logZ), logZ


def transition_matrix(rbm):
    """T[v, v'] = sum_h p(h|v) p(v'|h) from the brute-force joint (one block-Gibbs step)."""
    _, _, P, _ = joint(rbm)
    return (P / P.sum(axis=1, keepdims=True)) @ (P / P.sum(axis=0, keepdims=True)).T


def cd_expectation(rbm, data, k):
    """Exact expectation of the CD-k estimate: the chains' law q_0 T^k from the data's."""
    nv = rbm.W.shape[0]
    q = np.bincount((data @ 2 ** np.arange(nv)).astype(int), minlength=2**nv) / len(data)
    q = q @ np.linalg.matrix_power(transition_matrix(rbm), k)
    S = bits(nv)
    Q, Ph = rbm.hidden_probs(S), rbm.hidden_probs(data)
    return {
        "W": data.T @ Ph / len(data) - (S * q[:, None]).T @ Q,
        "a": data.mean(axis=0) - q @ S,
        "b": Ph.mean(axis=0) - q @ Q,
    }


@pytest.mark.parametrize("nv,nh", SHAPES)
def test_log_partition_and_normalisation(nv, nh):
    rbm = make(nv, nh)
    V, _, P, logZ = joint(rbm)
    assert rbm.log_partition() == pytest.approx(logZ, abs=1e-12)
    assert np.exp(rbm.log_prob(V)).sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(rbm.log_prob(V), np.log(P.sum(axis=1)), atol=1e-12)
    np.testing.assert_allclose(rbm.visible_distribution(), P.sum(axis=1), atol=1e-12)
    # free energy: p(v) = exp(-F(v)) / Z
    np.testing.assert_allclose(np.exp(-rbm.free_energy(V) - logZ), P.sum(axis=1), atol=1e-12)


def test_log_partition_large_weights_stable():
    rbm = make(6, 4, scale=40.0)
    _, _, _, logZ = joint(rbm)
    assert rbm.log_partition() == pytest.approx(logZ, rel=1e-12)
    rbm2 = make(4, 6, scale=40.0)
    assert rbm2.log_partition() == pytest.approx(joint(rbm2)[3], rel=1e-12)


@pytest.mark.parametrize("nv,nh", [(600, 3), (3, 600)])
def test_summed_out_layer_wider_than_one_block(nv, nh):
    """600 units in the summed-out layer cross the 512-column blocks of the softplus sum:
    free energy, log Z and log p(v) against a direct softplus / log-sum-exp sum."""
    rng = np.random.default_rng(13)
    rbm = RBM(rng.normal(0, 0.3, (nv, nh)), rng.normal(0, 1, nv), rng.normal(0, 1, nh))
    V = (rng.random((5, nv)) < 0.5).astype(float)
    F = -(V @ rbm.a) - np.logaddexp(0, V @ rbm.W + rbm.b).sum(axis=1)
    np.testing.assert_allclose(rbm.free_energy(V), F, rtol=1e-12)
    if nv < nh:  # enumerate v, sum h out
        S = bits(nv)
        logZ = logsumexp(S @ rbm.a + np.logaddexp(0, S @ rbm.W + rbm.b).sum(axis=1))
    else:  # enumerate h, sum v out
        S = bits(nh)
        logZ = logsumexp(S @ rbm.b + np.logaddexp(0, S @ rbm.W.T + rbm.a).sum(axis=1))
    assert rbm.log_partition() == pytest.approx(logZ, rel=1e-12)
    np.testing.assert_allclose(rbm.log_prob(V), -F - logZ, rtol=1e-12)


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
    data = (np.random.default_rng(5).random((7, nv)) < 0.5).astype(float)
    grad = rbm.exact_gradient(data)
    Ph = rbm.hidden_probs(data)  # clamped phase minus the brute-force model phase
    np.testing.assert_allclose(grad["W"], data.T @ Ph / 7 - V.T @ P @ H, atol=1e-12)
    np.testing.assert_allclose(grad["a"], data.mean(axis=0) - P.sum(axis=1) @ V, atol=1e-12)
    np.testing.assert_allclose(grad["b"], Ph.mean(axis=0) - P.sum(axis=0) @ H, atol=1e-12)
    eps = 1e-6
    for key in ("W", "a", "b"):
        num = np.zeros_like(grad[key])
        for idx in np.ndindex(num.shape):
            plus, minus = rbm.params, rbm.params
            plus[key][idx] += eps
            minus[key][idx] -= eps
            num[idx] = (
                RBM.from_params(plus).mean_log_likelihood(data)
                - RBM.from_params(minus).mean_log_likelihood(data)
            ) / (2 * eps)
        np.testing.assert_allclose(grad[key], num, atol=1e-7)
    est = ExactRBMGradient(data)(rbm.params)
    for key in grad:
        np.testing.assert_allclose(est[key], grad[key], atol=1e-12)


@pytest.mark.parametrize("nv,nh", [(4, 3), (3, 5)])
def test_cd_expectation_approaches_exact_gradient(nv, nh):
    rbm = make(nv, nh, seed=6, scale=0.7)
    data = bits(nv)[[1, 2, 7, 7, 12 % 2**nv]]
    exact = rbm.exact_gradient(data)
    errors = []
    for k in (0, 1, 2, 5, 20, 200):
        g = cd_expectation(rbm, data, k)
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
    est = CDGradient(np.tile(data, (reps, 1)), k=2)
    # one call with every row repeated `reps` times = reps independent CD runs per row
    g = est(rbm.params, rng)
    expected = cd_expectation(rbm, data, 2)
    # standard error from per-replicate estimates
    single = CDGradient(data, k=2)
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
    pcd = PCDGradient(data, k=1, n_chains=5000)
    for _ in range(30):
        pcd(rbm.params, rng)
    counts = np.bincount((pcd.v @ codes_of).astype(int), minlength=16)
    assert stats.chisquare(counts, 5000 * p).pvalue > 1e-3


def test_block_gibbs_one_step_distribution():
    """One step from a fixed state: sampled (v, h) frequencies vs the exact conditionals."""
    rbm = make(3, 2, seed=11, scale=1.0)
    v0 = np.array([1.0, 0.0, 1.0])
    rng = np.random.default_rng(12)
    V1 = rbm.gibbs(np.tile(v0, (20000, 1)), 1, rng=rng)
    T = transition_matrix(rbm)
    vc = (V1 @ [1, 2, 4]).astype(int)
    assert stats.chisquare(np.bincount(vc, minlength=8), 20000 * T[5]).pvalue > 1e-3


def test_training_with_exact_gradient_and_cd_raises_likelihood():
    V = bars_and_stripes(3)
    rng = np.random.default_rng(0)
    rbm = RBM.random(9, 6, rng=rng, data=V)
    np.testing.assert_allclose(1 / (1 + np.exp(-rbm.a)), V.mean(axis=0))  # log-odds init
    before = rbm.mean_log_likelihood(V)
    for est in (
        ExactRBMGradient(V),
        CDGradient(V, 1, batch_size=8),
        PCDGradient(V, 1, batch_size=8),
    ):
        res = train(
            rbm.params,
            est,
            n_steps=500,
            lr=0.5,
            rng=rng,
        )
        after = RBM.from_params(res.params).mean_log_likelihood(V)
        assert after > before + 0.3, (est, before, after)  # measured: +0.5 to +1.1


def test_minibatches_cover_each_epoch():
    data = np.eye(6)
    est = CDGradient(data, k=1, batch_size=2)
    rng = np.random.default_rng(0)
    rows = np.concatenate([est.batch(rng) for _ in range(3)])
    assert sorted(map(tuple, rows)) == sorted(map(tuple, data))


def test_minibatches_are_a_fresh_shuffle_each_epoch():
    """Each epoch consumes ``data[rng.permutation(m)]`` in order: replayed with the same stream
    over two epochs (seed 0 gives two permutations that are not the identity)."""
    data = np.eye(6)
    est = CDGradient(data, k=1, batch_size=2)
    rng, ref = np.random.default_rng(0), np.random.default_rng(0)
    for _ in range(2):
        order = ref.permutation(6)
        assert np.any(order != np.arange(6))
        np.testing.assert_array_equal(
            np.concatenate([est.batch(rng) for _ in range(3)]), data[order]
        )


@pytest.mark.parametrize("nv,nh", [(12, 40), (40, 12)])
def test_exact_gradient_over_several_chunks_matches_a_direct_sum(nv, nh):
    """2**12 enumerated states x 40 summed-out units span three chunks of 2**16 numbers: the
    chunks' moments must be combined with normalised weights. Oracle: one direct sum over the
    smaller layer's states with the other layer summed out (softplus, expit)."""
    rng = np.random.default_rng(21)
    rbm = RBM(rng.normal(0, 0.3, (nv, nh)), rng.normal(0, 0.5, nv), rng.normal(0, 0.5, nh))
    data = (rng.random((9, nv)) < 0.5).astype(float)
    small, W, c, d = (nv, rbm.W, rbm.a, rbm.b) if nv < nh else (nh, rbm.W.T, rbm.b, rbm.a)
    S = bits(small)
    X = S @ W + d
    lw = S @ c + np.logaddexp(0, X).sum(axis=1)
    p = np.exp(lw - logsumexp(lw))
    ES, EP, ESP = p @ S, p @ expit(X), (S * p[:, None]).T @ expit(X)
    Ev, Eh, Evh = (ES, EP, ESP) if nv < nh else (EP, ES, ESP.T)
    Ph = expit(data @ rbm.W + rbm.b)
    g = rbm.exact_gradient(data)
    np.testing.assert_allclose(g["W"], data.T @ Ph / 9 - Evh, atol=1e-12)
    np.testing.assert_allclose(g["a"], data.mean(axis=0) - Ev, atol=1e-12)
    np.testing.assert_allclose(g["b"], Ph.mean(axis=0) - Eh, atol=1e-12)


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
    with pytest.raises(TypeError, match="rng"):
        rbm.gibbs(np.zeros(4), 1, rng=0)
    with pytest.raises(ValueError, match="k must be"):
        rbm.gibbs(np.zeros(4), -1, rng=np.random.default_rng())
    with pytest.raises(ValueError, match="k must be"):
        CDGradient(np.zeros((2, 4)), k=0)
    with pytest.raises(ValueError, match="batch_size"):
        CDGradient(np.zeros((2, 4)), batch_size=3)
    with pytest.raises(ValueError, match="0 and 1"):
        PCDGradient(np.full((2, 4), 2.0))
    with pytest.raises(ValueError, match="at most 26"):
        ExactRBMGradient(np.zeros((2, 30)))(
            {"W": np.zeros((30, 30)), "a": np.zeros(30), "b": np.zeros(30)}
        )
    with pytest.raises(TypeError, match="n_hidden"):
        RBM.random(4, 2.5, rng=np.random.default_rng())


def test_log_partition_64x20_fast_and_exact():
    """The issue's size: 64 visible x 20 hidden (enumerates 2**20 hidden states)."""
    rng = np.random.default_rng(0)
    rbm = RBM(rng.normal(0, 0.1, (64, 20)), rng.normal(0, 1, 64), rng.normal(0, 1, 20))
    logZ = rbm.log_partition()
    # Zero weights give a closed form; check the machinery at this size against it too.
    zero = RBM(np.zeros((64, 20)), rbm.a, rbm.b)
    closed = np.logaddexp(0, rbm.a).sum() + np.logaddexp(0, rbm.b).sum()
    assert zero.log_partition() == pytest.approx(closed, abs=1e-9)
    assert np.isfinite(logZ)


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
    P0, Pk = expit(V @ W + b), expit(chain @ W + b)
    if persistent_state is not None:  # the next update's hidden states, from these P
        persistent_state[:] = chain, (rng.random(Pk.shape) < Pk).astype(float)
    return {
        "W": V.T @ P0 / len(V) - chain.T @ Pk / len(chain),
        "a": V.mean(axis=0) - chain.mean(axis=0),
        "b": P0.mean(axis=0) - Pk.mean(axis=0),
    }


@pytest.mark.parametrize(
    "kind,k,batch,chains",
    [("cd", 1, 3, None), ("cd", 3, None, None), ("pcd", 1, 4, None), ("pcd", 2, 3, 7)],
)
def test_estimators_match_the_plain_algorithm(kind, k, batch, chains):
    """Replaying the same random stream, the estimators give the estimates of the plain
    per-step code above (separate phases, no stacking), over several updates."""
    data = bits(4)[[0, 3, 5, 6, 9, 10, 12, 15]]
    rbm = make(4, 3, seed=2)
    if kind == "cd":
        fast = CDGradient(data, k, batch_size=batch)
        plain, state = CDGradient(data, k, batch_size=batch), None
    else:
        fast = PCDGradient(data, k, batch_size=batch, n_chains=chains)
        plain, state = PCDGradient(data, k, batch_size=batch, n_chains=chains), [None, None]
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(12):
        g = fast(rbm.params, r1)
        ref = _reference_estimate(plain, rbm.params, r2, state)
        for key in "Wab":
            np.testing.assert_allclose(g[key], ref[key], rtol=1e-13, atol=1e-15)
    assert r1.random() == r2.random()  # same number of draws
    if kind == "pcd":
        np.testing.assert_array_equal(fast.v, state[0])
        np.testing.assert_array_equal(fast.h, state[1])


def test_pcd_chains_persist_and_restart_hidden_states():
    """The chains are kept between calls; a new hidden layer size, or h = None, draws fresh
    hidden states; with near-deterministic units (v all on <=> h all on) assigned all-on
    chains stay all on even though the chains were all off at the previous update."""
    W = np.full((3, 2), 20.0)
    params = {"W": W, "a": np.full(3, -30.0), "b": np.full(2, -50.0)}
    pcd = PCDGradient(bits(3), k=1, n_chains=4)
    assert pcd.v is None and pcd.h is None
    rng = np.random.default_rng(0)
    pcd.v = np.zeros((4, 3))
    pcd(params, rng)
    np.testing.assert_array_equal(pcd.v, np.zeros((4, 3)))
    pcd.v, pcd.h = np.ones((4, 3)), None
    pcd(params, rng)
    np.testing.assert_array_equal(pcd.v, np.ones((4, 3)))
    pcd({"W": np.full((3, 5), 20.0), "a": params["a"], "b": np.full(5, -50.0)}, rng)
    assert pcd.h.shape == (4, 5)


def test_pcd_first_chains_start_at_every_data_row():
    """The persistent chains start at data rows drawn uniformly from all m rows. With W = 40 I
    and a = b = -20 one update keeps every chain where it is (each unit copies its partner
    with probability 1 - 2e-9), so the chains after the first call are their starts:
    chi-square against uniform over the 4 rows, and every row present."""
    data = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 1], [1, 1, 1]], dtype=float)
    pcd = PCDGradient(data, k=1, n_chains=4000)
    copy = {"W": 40.0 * np.eye(3), "a": np.full(3, -20.0), "b": np.full(3, -20.0)}
    pcd(copy, np.random.default_rng(21))
    rows = (pcd.v.astype(float) @ [1, 2, 4]).astype(int)
    counts = np.array([np.sum(rows == code) for code in (0, 1, 6, 7)])
    assert counts.sum() == 4000 and np.all(counts > 0), counts
    assert stats.chisquare(counts).pvalue > 1e-3, counts


@pytest.mark.parametrize("make_gradient", [CDGradient, PCDGradient])
def test_a_sampled_gradient_asks_for_an_rng_and_the_exact_one_ignores_it(make_gradient):
    V = bars_and_stripes(3)
    params = RBM.random(9, 4, rng=np.random.default_rng(0), data=V).params
    with pytest.raises(TypeError, match="draws random numbers: pass rng="):
        make_gradient(V, 1)(params, None)
    exact = ExactRBMGradient(V)
    g, again = exact(params), exact(params, np.random.default_rng(1))
    assert all(np.array_equal(g[key], again[key]) for key in g)


@pytest.mark.parametrize(
    "call",
    [
        ExactRBMGradient,
        CDGradient,
        PCDGradient,
        lambda V: RBM.random(4, 2, rng=np.random.default_rng(0), data=V),
        lambda V: RBM(np.zeros((4, 2))).gibbs(V, 1, rng=np.random.default_rng(0)),
        lambda V: RBM(np.zeros((4, 2))).exact_gradient(V),
    ],
)
def test_data_or_states_with_no_rows_are_a_value_error_naming_them(call):
    """A (0, n_visible) array has no mean and no chains: a clear error, not NaN and a warning."""
    with pytest.raises(ValueError, match=r"(data|V) must .*m >= 1"):
        call(np.ones((0, 4)))
