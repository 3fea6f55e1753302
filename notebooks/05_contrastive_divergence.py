# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 · Restricted Boltzmann machines and contrastive divergence, judged by the exact likelihood
#
# Companion to Sections 5.6 and 5.8. Section 5.6 ends with two promises: forbid couplings
# inside a layer and the clamped (positive) phase becomes exact; run a *short* Gibbs chain
# started at the data and the model (negative) phase becomes cheap. Our machines are small
# enough that we can still compute $Z$ exactly, so every claim about contrastive divergence
# below is checked against the **true log-likelihood**, not against a proxy.
#
# Units are $\{0,1\}$ here, with energy $E(v,h) = -v^\top W h - a^\top v - b^\top h$,
# $W$ of shape (visible, hidden).
#
# 1. why the bipartite restriction helps,
# 2. CD-1, CD-10, PCD-1 and the exact gradient on bars and stripes,
# 3. why a truncated chain is allowed -- and when it is not,
# 4. learning dynamics: the singular values of $W$,
# 5. too few sampling steps per update,
# 6. handwritten digits,
# 7. side by side with scikit-learn's `BernoulliRBM`;
# 8. the temperature of a trained RBM;
# 9. contrastive divergence as a difference of divergences.

# %%
# On Colab or a fresh kernel without bmlab, install it first (does nothing where it is installed).
import importlib.util

BMLAB_REPO = "git+https://github.com/OWNER/bmlab"  # placeholder: the project's public repository
if importlib.util.find_spec("bmlab") is None:
    from IPython import get_ipython
    get_ipython().run_line_magic("pip", f"install -q {BMLAB_REPO}")

# %%
import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit, logsumexp

import bmlab
from bmlab.data import bars_and_stripes, binarized_digits, max_log_likelihood
from bmlab.plotting import EXTRA
from bmlab.rbm import RBM, CDGradient, ExactRBMGradient, PCDGradient
from bmlab.widgets.rbm import rbm_sampling_panel, rbm_training_panel

bmlab.use_style()
SEED = 5
rng = np.random.default_rng(SEED)


def mosaic(images, n_cols, fill=0.5):
    """Tile images (m, h, w) into one array with a 1-pixel border of ``fill`` (display only)."""
    imgs = np.pad(np.asarray(images, dtype=float), ((0, 0), (1, 1), (1, 1)),
                  constant_values=fill)
    rows = [np.hstack(list(imgs[r:r + n_cols])) for r in range(0, len(imgs), n_cols)]
    return np.vstack(rows)


def bits(n):
    """All 2**n states of n {0,1} units, row c = the binary digits of c (unit i = bit i)."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)


def grid(ax, V, n, title):
    """Show the rows of V as a strip of n x n images (display only)."""
    ax.imshow(mosaic(np.asarray(V).reshape(-1, n, n), len(V)), cmap="gray_r", vmin=0, vmax=1)
    ax.set_title(title, fontsize=9, loc="left")
    ax.axis("off")


# %% [markdown]
# ## 1. Why the restriction helps
#
# The RBM is the pairwise energy of Eq. 5.1 with visible and hidden units and couplings only
# between the layers (Figure 5.4, right). With no visible-visible and no hidden-hidden
# couplings, the energy is a sum of terms that
# each contain *one* hidden unit. Fix $v$ and the Boltzmann factor of $h$ becomes a product
# over $j$, so $p(h\mid v)$ factorizes and
# $p(h_j=1\mid v) = \sigma(b_j + \sum_i v_i W_{ij})$. Three consequences:
#
# * the clamped average $\langle v_i h_j\rangle_{p(h\mid v)}$ of Section 5.6 is exact:
#   $v_i\,\sigma(\cdot)_j$, for the whole data set one matrix product `V.T @ expit(V @ W + b)`;
# * summing $h$ out gives the free energy $F(v) = -a^\top v - \sum_j \log(1+e^{b_j+(vW)_j})$,
#   so $Z$ needs a sum over one layer only -- we enumerate the smaller one;
# * Gibbs sampling updates a whole layer at once (block Gibbs): $v \to h \to v \to \dots$
#
# We check the factorization against brute force over all $2^{4+3}$ joint states.

# %%
small = RBM(rng.normal(0, 1, (4, 3)), rng.normal(0, 1, 4), rng.normal(0, 1, 3))
V4, H3 = bits(4), bits(3)  # all 16 visible and all 8 hidden states
E = -(V4 @ small.W @ H3.T) - (V4 @ small.a)[:, None] - (H3 @ small.b)[None, :]  # 16 x 8
P = np.exp(-E) / np.exp(-E).sum()
cond = P / P.sum(axis=1, keepdims=True)  # p(h | v), brute force
print("p(h_j=1|v) = sigmoid(b + vW) for all 16 v, to 1e-12:",
      np.allclose(cond @ H3, small.hidden_probs(V4), atol=1e-12))
Q = small.hidden_probs(V4)
factorized = np.prod(np.where(H3[None] == 1, Q[:, None], 1 - Q[:, None]), axis=2)
print("p(h|v) = product over hidden units, to 1e-12:", np.allclose(factorized, cond, atol=1e-12))
print("log Z from one layer = brute force, to 1e-12:",
      abs(small.log_partition() - np.log(np.exp(-E).sum())) < 1e-12)

# %% [markdown]
# The exact log-likelihood, written out: sum $h$ out to get $-F(v)$, then sum $e^{-F(v)}$
# over all visible states for $Z$. bmlab does the same but enumerates whichever layer is
# smaller (here the 5 hidden units instead of the 12 visible ones), so the two agree only if
# both are right.

# %%
def log_p_reference(W, a, b, V):
    """log p(v) of the rows of V: h summed out analytically, v enumerated for log Z."""
    def minus_F(v):  # -F(v) = a.v + sum_j log(1 + exp(b_j + (v W)_j))
        return v @ a + np.logaddexp(0, v @ W + b).sum(axis=1)
    log_Z = logsumexp(minus_F(bits(W.shape[0])))  # Z = sum over all v of exp(-F(v))
    return minus_F(V) - log_Z


r12 = np.random.default_rng(12)  # its own generator: later cells keep their random numbers
check = RBM(r12.normal(0, 1, (12, 5)), r12.normal(0, 1, 12), r12.normal(0, 1, 5))
V12 = (r12.random((20, 12)) < 0.5).astype(float)
diff = np.abs(log_p_reference(check.W, check.a, check.b, V12) - check.log_prob(V12)).max()
print(f"reference agrees with bmlab (log p(v), max difference < 1e-10): {diff < 1e-10}")

# %% [markdown]
# ## 2. Contrastive divergence on bars and stripes
#
# *Bars and stripes* on an $n\times n$ grid: every image whose switched-on pixels form whole
# rows, or whole columns. The blank and the full image are both, so they appear twice: 16
# rows for $n=3$ (14 distinct). The best any model can do is the log-likelihood of the
# empirical distribution itself.
#
# The gradient keeps the two-phase form of Eq. 5.4, clamped minus model (Section 5.6).
# **CD-k** replaces the model average by $k$ block-Gibbs steps started at each data vector
# (Hinton's defaults: probabilities for $h$ given the data, sampled states inside the chain,
# the sampled $v_k$ with $p(h\mid v_k)$ at the end). **PCD-k** keeps its chains -- visible
# and hidden states -- from one update to the next. The **exact gradient** enumerates.

# %%
V3 = bars_and_stripes(3)
best3 = max_log_likelihood(V3)
print(f"{V3.shape[0]} patterns, {len(np.unique(V3, axis=0))} distinct; "
      f"best possible mean log-likelihood {best3:.4f} nats")
fig, ax = plt.subplots(figsize=(8, 1.0))
grid(ax, V3, 3, "bars and stripes, 3x3")
plt.show()

# %% [markdown]
# ### CD-k and PCD-1, written out
# One update each, in the spirit of scikit-learn's `BernoulliRBM._fit`: the positive phase
# on the batch, a short chain, the negative phase at its end, one ascent step. Replayed with
# the same random numbers, bmlab's `CDGradient` / `PCDGradient` inside the training loop
# `train` must give the same parameters. (bmlab computes both phases in one matrix product,
# `expit(concatenate([v0, vk]) @ W + b)`, which is faster for small batches; the arithmetic
# is the same.)

# %%
N_HIDDEN, LR, STEPS = 9, 0.3, 4000


def cd_update(W, a, b, v0, k, lr, rng):
    """One CD-k update on the batch v0 (m, n_visible)."""
    ph0 = expit(v0 @ W + b)  # positive phase: p(h|v) on the data, exact
    vk = v0
    for _ in range(k):  # k block-Gibbs steps, started at the data
        h = rng.random(ph0.shape) < expit(vk @ W + b)
        vk = (rng.random(v0.shape) < expit(h @ W.T + a)).astype(float)
    phk = expit(vk @ W + b)  # negative phase: p(h|v_k) at the end of the chains
    m = len(v0)
    return (W + lr * (v0.T @ ph0 - vk.T @ phk) / m,  # <v h>_data - <v h>_chains
            a + lr * (v0 - vk).mean(axis=0),
            b + lr * (ph0 - phk).mean(axis=0))


init = RBM.random(9, N_HIDDEN, rng=np.random.default_rng(SEED), data=V3)
W, a, b = init.W, init.a, init.b
ref_rng, lib_rng = np.random.default_rng(1), np.random.default_rng(1)  # the same draws
for _ in range(5):
    W, a, b = cd_update(W, a, b, V3, 3, LR, ref_rng)
lib = bmlab.train(init.params, CDGradient(V3, 3), n_steps=5, lr=LR, rng=lib_rng).params
diff = max(np.abs(x - lib[key]).max() for x, key in zip((W, a, b), "Wab", strict=True))
print(f"reference agrees with bmlab (CD-3, 5 updates, same draws, max difference < 1e-12): "
      f"{diff < 1e-12}")

# %%
def pcd_update(W, a, b, v0, chains, lr, rng):
    """One PCD-1 update on the batch v0; the chains (v, h) go on from the last update."""
    v, h = chains
    ph0 = expit(v0 @ W + b)  # positive phase, as in CD
    v = (rng.random(v.shape) < expit(h @ W.T + a)).astype(float)  # one step of each chain
    phk = expit(v @ W + b)  # negative phase at the chains
    h = rng.random(phk.shape) < phk  # the chains' next h, from the p(h|v) just computed
    return (W + lr * (v0.T @ ph0 / len(v0) - v.T @ phk / len(v)),
            a + lr * (v0.mean(axis=0) - v.mean(axis=0)),
            b + lr * (ph0.mean(axis=0) - phk.mean(axis=0)), (v, h))


W, a, b = init.W, init.a, init.b
ref_rng, lib_rng = np.random.default_rng(2), np.random.default_rng(2)
v = V3[ref_rng.integers(0, len(V3), len(V3))]  # one chain per data row, started at random rows
chains = (v, ref_rng.random((len(V3), N_HIDDEN)) < expit(v @ W + b))  # with h ~ p(h|v)
for _ in range(5):
    W, a, b, chains = pcd_update(W, a, b, V3, chains, LR, ref_rng)
lib = bmlab.train(init.params, PCDGradient(V3, 1), n_steps=5, lr=LR, rng=lib_rng).params
diff = max(np.abs(x - lib[key]).max() for x, key in zip((W, a, b), "Wab", strict=True))
print(f"reference agrees with bmlab (PCD-1, 5 updates, same draws, max difference < 1e-12): "
      f"{diff < 1e-12}")

# %% [markdown]
# Now the four algorithms with bmlab, all with the same rate and the same number of
# full-batch updates; we record the exact mean log-likelihood every 100 updates.

# %%
COLORS = {"exact gradient": bmlab.NAVY, "CD-1": bmlab.ORANGE, "CD-10": EXTRA[0],
          "PCD-1": EXTRA[1], "CD-1, weight decay 1e-3": EXTRA[2], "CD-1, rate 0.1": EXTRA[3],
          "CD-1, rate 0.02": EXTRA[3]}


def metrics_for(V):
    return {
        "ll": lambda p: RBM.from_params(p).mean_log_likelihood(V),
        "recon": lambda p: RBM.from_params(p).reconstruction_error(V),
        "sv": lambda p: np.linalg.svd(p["W"], compute_uv=False),
    }


def run(algorithm, k=1, lr=LR, weight_decay=0.0, steps=STEPS, seed=SEED):
    run_rng = np.random.default_rng(seed)
    init = RBM.random(9, N_HIDDEN, rng=run_rng, data=V3)
    if algorithm == "exact":  # draws nothing from run_rng
        gradient = ExactRBMGradient(V3)
    else:
        gradient = {"cd": CDGradient, "pcd": PCDGradient}[algorithm](V3, k)
    return bmlab.train(init.params, gradient, n_steps=steps, lr=lr, weight_decay=weight_decay,
                       metrics=metrics_for(V3), record_every=100, rng=run_rng)


runs = {
    "CD-1": run("cd", 1),
    "CD-10": run("cd", 10),
    "PCD-1": run("pcd", 1),
    "exact gradient": run("exact"),
}
for name, res in runs.items():
    ll = res.history["ll"]
    print(f"{name:15s} peak {ll.max():6.3f} at update {res.history['step'][ll.argmax()]:4d}, "
          f"final {ll[-1]:6.3f}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for name, res in runs.items():
    axes[0].plot(res.history["step"], res.history["ll"], label=name, color=COLORS[name])
    axes[1].plot(res.history["step"], res.history["recon"], label=name, color=COLORS[name])
axes[0].axhline(best3, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
axes[0].set(xlabel="update", ylabel="exact mean log-likelihood (nats)", ylim=(-6.5, -2.4),
            title=f"3x3 live, rate {LR}, {N_HIDDEN} hidden")
axes[1].set(xlabel="update", ylabel="reconstruction error", yscale="log",
            title="what CD users usually watch")
axes[0].legend(fontsize=8)
bmlab.save_figure(fig, "fig05_cd_bas3_live")
plt.show()

# %% [markdown]
# On this small problem CD-1 climbs with the others and then stalls and wanders well below
# the exact gradient, while its reconstruction error keeps going down the whole time: a
# one-step reconstruction from the data is exactly what CD-1 optimizes, so it says nothing
# about the rest of the state space. PCD-1 at this rate collapses outright (Section 5).
# CD-10 stays close to the exact gradient. The clear rise-then-fall of CD-1 reported by
# Fischer & Igel (2010) needs the longer 4x4 runs recorded below.
#
# ### What damps the divergence
# Longer chains (CD-10, above), a weight decay that keeps $W$ small, or a smaller rate.

# %%
damped = {
    "CD-1": runs["CD-1"],
    "CD-1, weight decay 1e-3": run("cd", 1, weight_decay=1e-3),
    "CD-1, rate 0.1": run("cd", 1, lr=0.1),
}
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
for name, res in damped.items():
    axes[0].plot(res.history["step"], res.history["ll"], label=name, color=COLORS[name])
    axes[1].plot(res.history["step"], res.history["sv"][:, 0], label=name, color=COLORS[name])
axes[0].axhline(best3, color=bmlab.GRAY, ls="--", lw=1)
axes[0].set(xlabel="update", ylabel="exact mean log-likelihood", ylim=(-5, -2.4))
axes[1].set(xlabel="update", ylabel="largest singular value of W")
axes[0].legend(fontsize=8)
bmlab.save_figure(fig, "fig05_cd_damping")
plt.show()
for name, res in damped.items():
    ll = res.history["ll"]
    print(f"{name:25s} peak {ll.max():6.3f} at update {res.history['step'][ll.argmax()]:4d}, "
          f"final {ll[-1]:6.3f}")

# %% [markdown]
# Weight decay keeps the largest singular value of $W$ from running away and ends far higher.
# The smaller rate slows everything -- the rise as much as the fall -- so within 4000 updates
# it is still climbing; the recorded 4x4 runs below follow it for 30 000 updates.

# %% [markdown]
# ### The recorded 4x4 runs
# The same comparison on 4x4 bars and stripes (16 visible, 16 hidden, rate 0.1, full batch,
# 30 000 updates) takes minutes, mostly for the exact gradient, which enumerates $2^{16}$
# hidden states per update. The curves below were **recorded** by
# `benchmarks/record_bas4_cd.py` and `benchmarks/record_bas4_exact.py`.

# %%
rec = bmlab.load_results("bas4_cd")
rec_exact = bmlab.load_results("bas4_exact")
recorded = {**rec["data"]["runs"], **rec_exact["data"]["runs"]}
order = ["CD-1", "CD-10", "PCD-1", "exact gradient", "CD-1, weight decay 1e-3",
         "CD-1, rate 0.02"]
recorded = {name: recorded[name] for name in order}
best4 = rec["data"]["optimum"]
print(f"recorded {rec['recorded']} on {rec['machine']}")
print(f"optimum {best4:.4f}")
for name, r in recorded.items():
    ll = np.array(r["log_likelihood"])
    print(f"{name:25s} peak {ll.max():6.2f} at {r['step'][int(ll.argmax())]:5d}, "
          f"final {ll[-1]:6.2f}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for name, r in recorded.items():
    axes[0].plot(r["step"], r["log_likelihood"], label=name, color=COLORS[name])
    axes[1].plot(r["step"], r["reconstruction_error"], label=name, color=COLORS[name])
axes[0].axhline(best4, color=bmlab.GRAY, ls="--", lw=1, label="optimum -3.379")
axes[0].set(xlabel="update", ylabel="exact mean log-likelihood", ylim=(-8, -3),
            title=f"4x4, recorded {rec['recorded']}")
axes[1].set(xlabel="update", ylabel="reconstruction error", yscale="log")
axes[0].legend(fontsize=7)
bmlab.save_figure(fig, "fig05_cd_bas4_recorded")
plt.show()

# %% [markdown]
# Here the divergence is unmistakable: CD-1 peaks early and then loses more than a nat per
# pattern while its reconstruction error keeps falling; CD-10 falls too, later and less;
# weight decay and a smaller rate damp the fall; PCD-1 with 32 chains collapses; only the
# exact gradient creeps on towards the optimum.
#
# ## 3. Why a truncated chain is allowed (and when not)
#
# For a tiny RBM we can compute the *expected* CD-k update exactly: start from the empirical
# distribution of the data and apply the one-step block-Gibbs transition matrix
# $T(v\to v') = \sum_h p(h\mid v)\,p(v'\mid h)$ $k$ times. As $k\to\infty$ the chain forgets
# its start and reaches $p(v)$, so CD-$\infty$ is the exact gradient. The question is how
# close CD-k is for small $k$. We take the CD-1-trained 3x3 model from above; with 9
# visible and 9 hidden units, $T$ is a $512\times512$ matrix built by enumerating both layers.

# %%
V9, H9 = bits(9), bits(N_HIDDEN)


def conditional(Q, S):
    """p(s | x) for every row x of Q (independent unit probabilities) and every state s in S."""
    return np.prod(np.where(S[None] == 1, Q[:, None], 1 - Q[:, None]), axis=2)


def transition_matrix(model):
    """T[v, v'] = sum_h p(h|v) p(v'|h): one block-Gibbs step, 512 x 512."""
    return conditional(model.hidden_probs(V9), H9) @ conditional(model.visible_probs(H9), V9)


def cd_expected_gradient(model, V, k, T):
    """The CD-k estimate averaged over the chains: their law after k steps is q_0 T^k."""
    q0 = np.bincount((V @ 2 ** np.arange(9)).astype(int), minlength=512) / len(V)
    q = q0 @ np.linalg.matrix_power(T, k)
    Q, Ph = model.hidden_probs(V9), model.hidden_probs(V)
    g = {"W": V.T @ Ph / len(V) - (V9 * q[:, None]).T @ Q,
         "a": V.mean(axis=0) - q @ V9, "b": Ph.mean(axis=0) - q @ Q}
    return np.concatenate([g[x].ravel() for x in ("W", "a", "b")])


model_cd1 = RBM.from_params(runs["CD-1"].params)
T = transition_matrix(model_cd1)
exact = model_cd1.exact_gradient(V3)
g_exact = np.concatenate([exact[x].ravel() for x in ("W", "a", "b")])
ks = [1, 2, 5, 10, 30, 100, 300, 1000, 3000]
cosines, rel_errors, norms = [], [], []
for k in ks:
    g = cd_expected_gradient(model_cd1, V3, k, T)
    cosines.append(g @ g_exact / np.linalg.norm(g) / np.linalg.norm(g_exact))
    rel_errors.append(np.linalg.norm(g - g_exact) / np.linalg.norm(g_exact))
    norms.append(np.linalg.norm(g) / np.linalg.norm(g_exact))
for k, c, e, r in zip(ks, cosines, rel_errors, norms, strict=True):
    print(f"k = {k:5d}: cosine {c:+.3f}, relative error {e:8.2g}, |g_k| / |g| = {r:.3f}")

# %%
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.loglog(ks, rel_errors, "o-", label="relative error |g_k - g| / |g|")
ax.set(xlabel="Gibbs steps k", ylabel="relative error", title="CD-k vs the exact gradient")
ax2 = ax.twinx()
ax2.semilogx(ks, cosines, "s--", color=bmlab.ORANGE, label="cosine")
ax2.set_ylabel("cosine")
ax2.spines["right"].set_visible(True)
bmlab.save_figure(fig, "fig05_cdk_vs_exact")
plt.show()

# %% [markdown]
# At the parameters CD-1 itself converged to, CD-1's expected update is tiny and points
# nowhere useful (cosine near 0) -- CD-1 has reached *its* fixed point, while the true
# gradient is still large. The CD-k direction lines up with the true one after ten steps or
# so, but the error only vanishes after hundreds: this model mixes slowly (exercise 2).
# Early in training, when the weights are small and the chain mixes in a step or two, the
# same comparison gives a cosine close to 1: that is when truncation is harmless.

# %%
young = RBM.random(9, N_HIDDEN, rng=np.random.default_rng(SEED), data=V3)
young.W *= 50  # weights of size ~0.5: early in training
g1 = cd_expected_gradient(young, V3, 1, transition_matrix(young))
g_exact_y = np.concatenate([x.ravel() for x in young.exact_gradient(V3).values()])
print(f"small weights: cosine(CD-1, exact) = "
      f"{g1 @ g_exact_y / np.linalg.norm(g1) / np.linalg.norm(g_exact_y):.2f}")

# %% [markdown]
# ### The out-of-equilibrium effect
# The CD-1 model has learned to map each data vector onto itself in one Gibbs step. Sample it
# the way it was trained -- one step from the data -- and it looks perfect. Sample it the way a
# probability model should be sampled -- long chains from noise, or exactly -- and the
# frequencies of the patterns come out wrong.

# %%
weights9 = 2 ** np.arange(9)  # state code of an image
patterns, counts = np.unique((V3 @ weights9).astype(int), return_counts=True)
p_data = counts / counts.sum()
p_equilibrium = model_cd1.visible_distribution()[patterns]
one_step = model_cd1.gibbs(np.tile(V3, (100, 1)), 1, rng=rng)  # 100 chains per pattern
codes1 = (one_step @ weights9).astype(int)
p_one_step = np.array([np.mean(codes1 == c) for c in patterns])


def tv(p, q):
    return 0.5 * np.abs(p - q).sum() + 0.5 * abs(p.sum() - q.sum())


print(f"1 step from the data:  total variation to the data {tv(p_one_step, p_data):.2f}")
print(f"equilibrium p(v):      total variation to the data {tv(p_equilibrium, p_data):.2f}")
print(f"equilibrium mass on valid patterns {p_equilibrium.sum():.2f}; "
      f"smallest {p_equilibrium.min():.3f}, largest {p_equilibrium.max():.3f} "
      f"(data: 0.062 and 0.125)")
print(f"exact log-likelihood of the CD-1 model {model_cd1.mean_log_likelihood(V3):.3f}, "
      f"optimum {best3:.3f}")

# %%
fig = plt.figure(figsize=(10, 4.2))
x = np.arange(patterns.size)
ax = fig.add_axes([0.06, 0.42, 0.9, 0.52])
ax.bar(x - 0.27, p_data, width=0.27, color=bmlab.GRAY, label="data")
ax.bar(x, p_one_step, width=0.27, color=bmlab.ORANGE, label="1 Gibbs step from the data")
ax.bar(x + 0.27, p_equilibrium, width=0.27, color=bmlab.NAVY, label="equilibrium p(v), exact")
ax.set_xticks(x, [str(i + 1) for i in x])
ax.set(ylabel="frequency", xlabel="valid pattern",
       title="CD-1 model: sampled the way it was trained vs at equilibrium")
ax.legend(fontsize=8)
for row, (S, label) in enumerate([
        (one_step[:16], "1 step from each data row"),
        (model_cd1.sample(16, n_steps=1000, rng=rng), "1000 steps from noise")]):
    grid(fig.add_axes([0.06, 0.2 - 0.14 * row, 0.9, 0.1]), S, 3, label)
bmlab.save_figure(fig, "fig05_out_of_equilibrium")
plt.show()

# %% [markdown]
# One step from the data gives back the training set almost exactly -- CD-1 trained precisely
# this map. The model's own distribution is something else: it over-weights a few patterns
# and nearly forgets others (pattern 1 is the blank image). Only the exact log-likelihood,
# or long chains, reveal it.

# %% [markdown]
# ## 4. Learning dynamics: the singular values of W (arXiv:1803.01960)
#
# Decelle, Fissore and Furtlehner (2018) describe training from small weights as a sequence: at
# first the RBM
# is nearly linear and $W$ grows along the leading principal directions of the data; later the
# grown modes interact and the singular values level off. We watch this on binarized digits
# (visible biases at the data's log-odds, so the first-order statistics are fitted from the
# start): the singular values of $W$, and the overlap of its top-3 left singular vectors with
# the top-3 eigenvectors of the centred data covariance (1 = same subspace).

# %%
digits = binarized_digits()  # pixel > 8 of 16
order = rng.permutation(digits.shape[0])
train_D, test_D = digits[order[:1500]], digits[order[1500:]]
pcs = np.linalg.eigh(np.cov(train_D.T))[1][:, ::-1][:, :3]


def overlap_and_spectrum(p):
    U, s, _ = np.linalg.svd(p["W"])
    return np.concatenate([[np.sum((U[:, :3].T @ pcs) ** 2) / 3], s])


SNAPS = (0, 200, 400, 600, 1500)  # updates at which we keep the parameters (below)
snapshots = {}


def keep(n_updates, p):
    if n_updates in SNAPS:
        snapshots[n_updates] = {key: x.copy() for key, x in p.items()}


dyn_rng = np.random.default_rng(SEED)
init = RBM.random(64, 16, rng=dyn_rng, data=train_D)
snapshots[0] = init.params
dyn = bmlab.train(init.params, PCDGradient(train_D, 5, batch_size=100), n_steps=1500, lr=0.05,
                  metrics={"spec": overlap_and_spectrum}, record_every=25, rng=dyn_rng,
                  callback=keep)
spec = dyn.history["spec"]
steps = dyn.history["step"]
for s in (0, 300, 600, 1500):
    i = int(np.searchsorted(steps, s))
    print(f"update {s:4d}: overlap with top-3 PCs {spec[i, 0]:.2f}, "
          f"top singular values {np.round(spec[i, 1:4], 1)}")

# %% [markdown]
# **The linear regime, predicted.** While $W$ is small, expand $p(h_j=1\mid v)$ to first
# order in $W$ (here $b=0$, so $\sigma'(0)=1/4$). The clamped phase gives
# $\tfrac14\,C_{\rm data}W$, with $C_{\rm data}$ the data covariance; at $W=0$ the model's
# visible units are independent with the data's means, so the free phase gives
# $\tfrac14\,\mathrm{diag}(C_{\rm data})\,W$. Hence $W \leftarrow (1 + \tfrac{\eta}{4}A)\,W$
# with $A = C_{\rm data} - \mathrm{diag}(C_{\rm data})$: every eigenvector of $A$ with a positive
# eigenvalue $\lambda$ is an unstable mode that grows like $(1+\eta\lambda/4)^t$ -- the data's
# covariance beyond what independent pixels already explain. This is the linear regime of
# Decelle et al., written for $\{0,1\}$ units with fitted visible biases. The dashed lines
# below iterate this prediction from the same initial $W$.

# %%
C_data = np.cov(train_D.T, bias=True)
lam, modes = np.linalg.eigh(C_data - np.diag(np.diag(C_data)))
linear = np.array([np.linalg.svd(modes @ ((1 + 0.05 * lam[:, None] / 4) ** t
                                          * (modes.T @ init.W)), compute_uv=False)
                   for t in steps])
print(f"top eigenvalues of A = C - diag(C): {np.round(lam[::-1][:4], 2)} "
      f"(of C itself: {np.round(np.linalg.eigvalsh(C_data)[::-1][:4], 2)})")
for s in (200, 300, 400):
    i = int(np.searchsorted(steps, s))
    print(f"update {s}: top singular values {np.round(spec[i, 1:4], 2)}, "
          f"linear prediction {np.round(linear[i, :3], 2)}")

# %%
fig, axes = plt.subplots(1, 3, figsize=(15, 3.4))
axes[0].plot(steps, spec[:, 1:9])
axes[0].set(xlabel="update", ylabel="singular values of W", title="modes grow one by one")
axes[1].plot(steps, spec[:, 0], color=bmlab.NAVY)
axes[1].set(xlabel="update", ylabel="overlap", ylim=(0, 1.05),
            title="top-3 singular vectors vs top-3 PCs")
early = steps <= 600
for j in range(3):
    axes[2].semilogy(steps[early], spec[early, 1 + j], color=EXTRA[j], label=f"mode {j + 1}")
    axes[2].semilogy(steps[early], linear[early, j], "--", color=EXTRA[j], lw=1)
axes[2].set(xlabel="update", ylabel="singular value (log scale)")
axes[2].set_title("linear regime: measured, predicted (dashed)", fontsize=10)
axes[1].set_title("top-3 singular vectors vs top-3 PCs", fontsize=10)
axes[2].legend(fontsize=8)
bmlab.save_figure(fig, "fig05_singular_values")
plt.show()

# %% [markdown]
# **Before and after the first modes condense.** A mode that has grown out of the bulk changes
# the machine's own distribution only once it is large enough: then the model's variance along
# that direction jumps from the independent-pixel value $u^\top \mathrm{diag}(C)\,u$ towards
# the data's $u^\top C\,u$, and long Gibbs chains stop producing speckle. With 16 hidden units
# the model's covariance is exact: $p(v)=\sum_h p(h)\,p(v\mid h)$ with $p(v\mid h)$ a product,
# so summing over the $2^{16}$ hidden states gives every moment of $v$ (checked first against
# the enumerated $p(v)$ of the small machine of Section 1).

# %%
def visible_covariance(model):
    """Exact Cov(v) under the RBM: the hidden layer enumerated, p(v|h) a product of Bernoullis."""
    H = bits(model.W.shape[1])
    log_ph = H @ model.b + np.logaddexp(0, H @ model.W.T + model.a).sum(axis=1)  # + const
    w = np.exp(log_ph - logsumexp(log_ph))  # p(h), all 2**n_hidden states
    mu = expit(H @ model.W.T + model.a)  # E[v | h]
    mean = w @ mu
    return (mu * w[:, None]).T @ mu + np.diag(w @ (mu * (1 - mu))) - np.outer(mean, mean)


p4 = small.visible_distribution()
brute = (V4 * p4[:, None]).T @ V4 - np.outer(p4 @ V4, p4 @ V4)
print(f"reference agrees with bmlab (Cov(v) vs the enumerated p(v), max difference < 1e-12): "
      f"{np.abs(visible_covariance(small) - brute).max() < 1e-12}")

# %%
chain_rng = np.random.default_rng(SEED)
fig, axes = plt.subplots(len(SNAPS), 1, figsize=(9, 0.95 * len(SNAPS)))
for ax, n in zip(axes, SNAPS, strict=True):
    snap = RBM.from_params(snapshots[n])
    U, sv, _ = np.linalg.svd(snap.W)
    u = U[:, 0]  # the leading mode's direction in pixel space
    var_model = u @ visible_covariance(snap) @ u
    ll_n = snap.mean_log_likelihood(train_D)
    print(f"update {n:4d}: top singular value {sv[0]:5.2f}; variance along its direction: "
          f"model {var_model:.3f}, data {u @ C_data @ u:.3f}, independent pixels "
          f"{u @ np.diag(np.diag(C_data)) @ u:.3f}; exact train log-likelihood {ll_n:.2f}")
    grid(ax, snap.sample(12, n_steps=2000, rng=chain_rng), 8,
         f"update {n}: top singular value {sv[0]:.2f}, exact log-likelihood {ll_n:.1f}")
bmlab.save_figure(fig, "fig05_condensation")
plt.show()

# %% [markdown]
# Up to about update 400 the top modes have grown tenfold, yet the model's variance along the
# leading one is still that of independent pixels and the chains (2000 Gibbs steps from noise)
# produce speckle at the pixel means: the modes are aligned with the data but *silent*, and
# the exact log-likelihood has hardly moved. Once the leading singular value passes a few
# units the variance along it climbs towards the data's value and the chains produce strokes
# and digit-like shapes; the exact log-likelihood rises with it. From here on the linear prediction
# (dashed, above) overshoots: the modes interact and stop growing exponentially.

# %% [markdown]
# The overlap jumps to nearly 1 while the weights are still small (linear regime: the
# gradient is dominated by the data covariance), and the singular values detach from the
# bulk one after another. Later the overlap drifts down and the growth of the leading values
# slows: the modes now interact and $W$ is shaped by higher-order structure, not by the
# covariance alone.
#
# ## 5. Too few sampling steps per update
#
# The spherical-Boltzmann-machine analysis (Tulinski et al., summary in the lecture folder)
# predicts that when the persistent chain makes too few steps per parameter update, training
# settles in a biased, out-of-equilibrium state, with weight eigenvalues that *overshoot*.
# Here: PCD at rate 0.3 with 1 or 100 Gibbs steps per update, against the exact gradient, on
# 3x3 bars and stripes.

# %%
sampling = {
    "PCD-1": runs["PCD-1"],
    "PCD-100": run("pcd", 100),
    "PCD-1, rate 0.03, 10x updates": run("pcd", 1, lr=0.03, steps=10 * STEPS),
    "exact gradient": runs["exact gradient"],
}
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
for (name, res), color in zip(sampling.items(), [EXTRA[1], EXTRA[0], EXTRA[3], bmlab.NAVY],
                              strict=True):
    x = res.history["step"] * (0.1 if "10x" in name else 1)
    axes[0].plot(x, res.history["ll"], label=name, color=color)
    axes[1].plot(x, res.history["sv"][:, 0], label=name, color=color)
axes[0].axhline(best3, color=bmlab.GRAY, ls="--", lw=1)
axes[0].set(xlabel="update (x0.1 for the slow run)", ylabel="exact mean log-likelihood",
            ylim=(-8, -2.4))
axes[1].set(xlabel="update (x0.1 for the slow run)", ylabel="largest singular value of W")
axes[0].legend(fontsize=8)
bmlab.save_figure(fig, "fig05_pcd_sampling_rate")
plt.show()
for name, res in sampling.items():
    h = res.history
    print(f"{name:30s} largest singular value: max {h['sv'][:, 0].max():5.1f}, "
          f"final {h['sv'][-1, 0]:5.1f}; final log-likelihood {h['ll'][-1]:6.2f}")

# %% [markdown]
# The overshoot is there at this size: with one Gibbs step per update the largest singular
# value of $W$ runs well past the value the exact gradient settles at, and the likelihood
# collapses after an early peak; with 100 steps per update the spectrum follows the exact run
# closely and the likelihood stays within about half a nat of it (it jitters: 16 chains make a
# noisy negative phase). A ten times smaller rate (with ten times more updates, so the
# same distance travelled) does **not** cure PCD-1 here. Our honest reading: with only 16
# persistent chains the negative phase is also *noisy* and the chains get stuck in a few
# patterns, so the rate is not the only knob -- more chains matter too:

# %%
many = bmlab.train(
    RBM.random(9, N_HIDDEN, rng=np.random.default_rng(SEED), data=V3).params,
    PCDGradient(V3, 1, n_chains=256), n_steps=10 * STEPS, lr=0.03,
    metrics=metrics_for(V3), record_every=1000, rng=np.random.default_rng(SEED))
print(f"PCD-1, 256 chains, rate 0.03, 10x updates: largest singular value "
      f"{many.history['sv'][-1, 0]:.1f}, final log-likelihood {many.history['ll'][-1]:.2f}")

# %% [markdown]
# The recorded 4x4 PCD-1 run of Section 2 (32 chains, rate 0.1) collapses the same way.
#
# ## 6. Handwritten digits
#
# The 8x8 digits of scikit-learn (bundled, no download), binarized at half intensity. With
# 16 hidden units the exact $\log Z$ is still a sum over $2^{16}$ hidden states, so we can
# follow the true log-likelihood on the training images and on 297 held-out images. PCD-1,
# minibatches of 10, rate 0.05.

# %%
dig_rng = np.random.default_rng(SEED)
init = RBM.random(64, 16, rng=dig_rng, data=train_D)
print(f"independent-pixel baseline (W = 0): train {init.mean_log_likelihood(train_D):.1f}, "
      f"held-out {init.mean_log_likelihood(test_D):.1f}")
dig = bmlab.train(init.params, PCDGradient(train_D, 1, batch_size=10), n_steps=3000,
                  lr=0.05, record_every=300, rng=dig_rng, metrics={
                      "train": lambda p: RBM.from_params(p).mean_log_likelihood(train_D),
                      "test": lambda p: RBM.from_params(p).mean_log_likelihood(test_D)})
digit_model = RBM.from_params(dig.params)
print(f"after 3000 updates (20 epochs): train {dig.history['train'][-1]:.1f}, "
      f"held-out {dig.history['test'][-1]:.1f} nats per image")

# %%
fig = plt.figure(figsize=(10, 3.6))
ax = fig.add_subplot(1, 3, 1)
ax.plot(dig.history["step"] / 150, dig.history["train"], "o-", label="train")
ax.plot(dig.history["step"] / 150, dig.history["test"], "s--", label="held-out")
ax.set(xlabel="epoch", ylabel="exact mean log-likelihood")
ax.legend()
ax = fig.add_subplot(1, 3, 2)
samples = digit_model.sample(16, n_steps=1000, rng=rng)
ax.imshow(mosaic(samples.reshape(16, 8, 8), 4), cmap="gray_r", vmin=0, vmax=1)
ax.set_title("samples (1000 Gibbs steps)", fontsize=9)
ax.axis("off")
ax = fig.add_subplot(1, 3, 3)
fields = digit_model.W.T.reshape(16, 8, 8)
lim = np.abs(fields).max()
ax.imshow(mosaic(fields, 4, fill=0.0), cmap="RdBu_r", vmin=-lim, vmax=lim)
ax.set_title("receptive fields (columns of W)", fontsize=9)
ax.axis("off")
bmlab.save_figure(fig, "fig05_digits")
plt.show()

# %% [markdown]
# ### More hidden units: the likelihood bracketed by AIS
#
# Sixteen hidden units is where enumeration stops being cheap; the RBMs people actually train
# on digits have hundreds. Their $\log Z$ is out of reach of any enumeration, but notebook 02's
# annealed importance sampling brackets it: forward AIS errs low on average, reverse AIS errs
# high, so the mean log-likelihood $-\overline{F(v)} - \log Z$ lies between the two
# estimates (±2 standard errors). Recorded by `benchmarks/record_ais_digits.py` (training
# the three models and six AIS runs take a few minutes): 64 visible and 20, 100 or 500 hidden
# units, PCD-1 as above for 20 epochs; 3000 temperatures and 100 chains per estimate; forward
# from independent pixels at the data's log-odds; reverse from 1000 block-Gibbs steps started
# at training images (approximate samples of the model, so the upper side holds only as far as
# those chains mix). The 20-hidden model is small enough to grade the bracket exactly.

# %%
ais_rec = bmlab.load_results("ais_digits")
print(f"recorded {ais_rec['recorded']}: mean log-likelihood per image, bracketed by AIS")
for nh, r in sorted(ais_rec["data"]["hidden"].items(), key=lambda item: int(item[0])):
    lo_z, hi_z = r["log_z_ais"] - 2 * r["stderr_ais"], r["log_z_reverse"] + 2 * r["stderr_reverse"]
    line = (f"{int(nh):3d} hidden: train [{r['mean_neg_free_energy_train'] - hi_z:6.2f}, "
            f"{r['mean_neg_free_energy_train'] - lo_z:6.2f}], held-out "
            f"[{r['mean_neg_free_energy_test'] - hi_z:6.2f}, "
            f"{r['mean_neg_free_energy_test'] - lo_z:6.2f}] nats")
    if r["log_z_exact"] is not None:
        line += f"; exact log Z inside the bracket: {lo_z <= r['log_z_exact'] <= hi_z}"
    print(line)

# %% [markdown]
# Each bracket is about a tenth of a nat wide, narrower than the differences between the
# models, so the likelihood can be compared where enumeration is hopeless; for 20 hidden units
# the exact value sits inside it. (When both estimates are this accurate their centres can
# swap order by chance, as they do for 100 hidden units; the error bars cover it.) The
# comparison itself is a lesson: after the same brief PCD-1 training, *more* hidden units
# give a *lower* likelihood -- the larger models are further from converged, and a
# reconstruction error or a sample mosaic would not have told us.

# %% [markdown]
# ## 7. Side by side with scikit-learn's BernoulliRBM
#
# Recorded by `benchmarks/record_sklearn_rbm.py`: both libraries run the same algorithm at
# identical settings -- PCD-1, batch 10, rate 0.1, 16 hidden, $W\sim N(0, 0.01^2)$, 20
# epochs -- for five seeds each, and the fitted models (sklearn's `components_.T`,
# `intercept_visible_`, `intercept_hidden_`) are scored by bmlab's exact log-likelihood.

# %%
sk = bmlab.load_results("sklearn_rbm")
same = sk["data"]["identical"]
print(f"recorded {sk['recorded']}: exact mean log-likelihood, 5 seeds each")
for lib in ("sklearn", "bmlab"):
    r = same[lib]
    print(f"{lib:8s} train {r['train_ll']:6.2f}, held-out {r['test_ll']:6.2f} "
          f"(± {r['test_ll_sd']:.2f} over seeds)")
print(f"bmlab minus sklearn: train {same['bmlab']['train_ll'] - same['sklearn']['train_ll']:+.1f},"
      f" held-out {same['bmlab']['test_ll'] - same['sklearn']['test_ll']:+.1f} nats")

# %% [markdown]
# sklearn itself only reports a stochastic pseudo-likelihood; with the exact score the two
# implementations of the same algorithm can be compared honestly. One seed's score varies by
# about a nat, so we average five seeds; bmlab's models score higher on average. Two
# differences we can name: bmlab reshuffles the training set every epoch and starts its
# chains at data rows, while sklearn visits the minibatches in one fixed order and starts the
# chains' hidden units at zero. Both carry a chain's hidden state over, drawn from the
# $p(h\mid v)$ the gradient needs anyway, so one update costs a single extra half-step.
# (Speed: see the README.)
#
# ## Try it
# Train on 3x3 bars and stripes with your own settings (press Run), and compare samples from
# the data with samples from noise.

# %% tags=["nbval-ignore-output"]
rbm_training_panel()

# %% tags=["nbval-ignore-output"]
rbm_sampling_panel()

# %% [markdown]
# ## 8. The temperature of a trained RBM
#
# A trained machine can be sampled at an inverse temperature $\beta\neq1$:
# $p_\beta(v,h)\propto e^{-\beta E(v,h)}$, i.e. the same machine with $W, a, b$ all multiplied
# by $\beta$ (the sampling panel above has a $\beta$ slider). The spherical-Boltzmann-machine
# analysis (Tulinski et al.) finds that re-tuning $\beta$ after training can improve the
# samples. Here the exact log-likelihood of the data as a function of $\beta$ answers it for
# the four bars-and-stripes fits of Section 2. One fact to check first: $\beta$ scales every
# parameter, so $\frac{d}{d\beta}L$ at $\beta=1$ is $\theta\cdot\nabla_\theta L$; at a maximum
# of the likelihood the gradient vanishes and $\beta=1$ is the best temperature.

# %%
def at_beta(model, beta):
    """The same machine at inverse temperature beta: W, a and b multiplied by beta."""
    return RBM(beta * model.W, beta * model.a, beta * model.b)


fits = {name: RBM.from_params(runs[name].params)
        for name in ("exact gradient", "CD-10", "CD-1", "PCD-1")}
m, eps = fits["CD-1"], 1e-5
slope = (at_beta(m, 1 + eps).mean_log_likelihood(V3)
         - at_beta(m, 1 - eps).mean_log_likelihood(V3)) / (2 * eps)
theta_dot_grad = sum(np.sum(m.params[x] * g) for x, g in m.exact_gradient(V3).items())
print(f"reference agrees with bmlab (dL/dbeta at 1 = theta . grad L, to 1e-6): "
      f"{abs(slope - theta_dot_grad) < 1e-6}")

# %%
betas = np.linspace(0.2, 2.0, 91)
curves, best_beta = {}, {}
for name, m in fits.items():
    curves[name] = np.array([at_beta(m, x).mean_log_likelihood(V3) for x in betas])
    opt = minimize_scalar(lambda x, m=m: -at_beta(m, x).mean_log_likelihood(V3),
                          bounds=(0.1, 3.0), method="bounded", options={"xatol": 1e-6})
    best_beta[name] = opt.x
    print(f"{name:15s} at beta = 1: {m.mean_log_likelihood(V3):6.3f}; best beta {opt.x:.2f} "
          f"gives {-opt.fun:6.3f} (+{-opt.fun - m.mean_log_likelihood(V3):.3f} nats); "
          f"the best beta is {'within' if abs(opt.x - 1) < 0.05 else 'more than'} 0.05 from 1")

# %%
temp_rng = np.random.default_rng(SEED)
fig = plt.figure(figsize=(10, 3.6))
ax = fig.add_axes([0.07, 0.14, 0.4, 0.76])
for name, ll_b in curves.items():
    ax.plot(betas, ll_b, color=COLORS[name], label=name)
    ax.plot(best_beta[name], at_beta(fits[name], best_beta[name]).mean_log_likelihood(V3),
            "o", color=COLORS[name])
ax.axvline(1, color=bmlab.GRAY, lw=1, ls=":")
ax.axhline(best3, color=bmlab.GRAY, ls="--", lw=1)
ax.set(xlabel="inverse temperature beta", ylabel="exact mean log-likelihood", ylim=(-8, -2.4),
       title="re-tuning the temperature after training")
ax.legend(fontsize=8)
cd1 = fits["CD-1"]
for row, x in enumerate((0.5, 1.0, 2.0)):
    p_valid = at_beta(cd1, x).visible_distribution()[patterns].sum()
    grid(fig.add_axes([0.53, 0.66 - 0.28 * row, 0.45, 0.2]),
         at_beta(cd1, x).sample(10, n_steps=1000, rng=temp_rng), 3,
         f"CD-1 model at beta = {x}: exact mass on valid patterns {p_valid:.2f}")
bmlab.save_figure(fig, "fig05_temperature")
plt.show()

# %% [markdown]
# The PCD-1 fit, whose weights ran away (Section 5), gains several nats by being sampled hot,
# at $\beta$ well below 1; the CD-1 fit prefers a slightly higher temperature too: both
# learned weights that are too large, the overshoot of Section 5. CD-10 is nearly at its best
# at $\beta = 1$. The exact-gradient run, still climbing after 4000 updates, prefers
# $\beta > 1$: its weights have not yet grown to their maximum-likelihood size, and cooling
# the machine is a cheap way to go further along the same direction. The samples show the
# trade-off: hot machines leave the valid patterns, cold ones freeze into a few of them.
#
# ## 9. Contrastive divergence as a difference of divergences
#
# Maximum likelihood minimises $\mathrm{KL}(p_0\,\|\,p_\infty)$, with $p_0$ the data
# distribution and $p_\infty$ the model. Hinton's reading of CD-k: it follows the difference
# $\mathrm{KL}(p_0\|p_\infty)-\mathrm{KL}(p_k\|p_\infty)$, where $p_k = p_0T^k$ is the law of
# the chains after $k$ Gibbs steps from the data -- but not exactly. Write
# $g(v) = -\partial F(v)/\partial\theta$. Differentiating the difference gives
#
# $$-\nabla_\theta\big[\mathrm{KL}(p_0\|p_\infty)-\mathrm{KL}(p_k\|p_\infty)\big]
#  = \underbrace{\langle g\rangle_{p_0}-\langle g\rangle_{p_k}}_{\text{expected CD-}k\text{ update}}
#  + \underbrace{\sum_v \frac{\partial p_k(v)}{\partial\theta}\,
#    \log\frac{p_k(v)}{p_\infty(v)}}_{\text{dropped by CD}},$$
#
# the last term because $p_k$ itself depends on $\theta$ through $T$. With 4 visible and
# 3 hidden units (2x2 bars and stripes) everything is a sum over 16 visible states: $T$ is
# $16\times16$, the divergences are exact, their gradients come from central finite
# differences in all 19 parameters.

# %%
V2 = bars_and_stripes(2)
S4, H3s = bits(4), bits(3)
p0 = np.bincount((V2 @ 2 ** np.arange(4)).astype(int), minlength=16) / len(V2)


def unflatten(theta):
    return {"W": theta[:12].reshape(4, 3), "a": theta[12:16], "b": theta[16:]}


def flatten(params):
    return np.concatenate([params[x].ravel() for x in ("W", "a", "b")])


def chain_laws(theta, k):
    """(p_k, log p_inf) over the 16 visible states: k exact Gibbs steps from p_0, and the model."""
    W, a, b = unflatten(theta).values()
    minus_F = S4 @ a + np.logaddexp(0, S4 @ W + b).sum(axis=1)
    T = conditional(expit(S4 @ W + b), H3s) @ conditional(expit(H3s @ W.T + a), S4)
    return p0 @ np.linalg.matrix_power(T, k), minus_F - logsumexp(minus_F)


def kl(p, log_q):
    on = p > 0
    return np.sum(p[on] * (np.log(p[on]) - log_q[on]))


def finite_difference(f, theta, h=1e-5):
    return np.array([(f(theta + h * e) - f(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])


def expected_cd_update(theta, k):
    """<g>_{p_0} - <g>_{p_k}, g = -dF/dtheta: the CD-k update averaged over its chains."""
    params = unflatten(theta)
    Q = expit(S4 @ params["W"] + params["b"])

    def g(q):  # <g>_q for a law q over the 16 visible states
        return np.concatenate([((S4 * q[:, None]).T @ Q).ravel(), q @ S4, q @ Q])
    return g(p0) - g(chain_laws(theta, k)[0])


def decompose(theta, k):
    """(-grad of the difference of KLs, expected CD-k update, dropped term, true gradient)."""
    objective = -finite_difference(
        lambda t: kl(p0, chain_laws(t, k)[1]) - kl(*chain_laws(t, k)), theta)
    pk, log_pinf = chain_laws(theta, k)
    dropped = finite_difference(lambda t: chain_laws(t, k)[0] @ (np.log(pk) - log_pinf), theta)
    true = -finite_difference(lambda t: kl(p0, chain_laws(t, k)[1]), theta)
    return objective, expected_cd_update(theta, k), dropped, true

# %% [markdown]
# Two machines: small random weights (early in training), and the fixed point of the
# expected CD-1 update itself, reached by running `train` on it (a deterministic gradient).

# %%
start = RBM.random(4, 3, rng=np.random.default_rng(SEED), data=V2)
young4 = RBM(np.random.default_rng(SEED).normal(0, 0.5, (4, 3)), start.a, start.b)
cd_fixed = RBM.from_params(bmlab.train(
    start.params, lambda p, rng: unflatten(expected_cd_update(flatten(p), 1)),
    n_steps=1500, lr=2.0).params)
machines = {"small weights": young4, "CD-1 fixed point": cd_fixed}
ok_true, ok_split = True, True
table = {}
for name, mach in machines.items():
    theta = flatten(mach.params)
    for k in (1, 2, 5):
        objective, cd, dropped, true = decompose(theta, k)
        ok_true &= np.abs(true - flatten(mach.exact_gradient(V2))).max() < 1e-7
        ok_split &= np.abs(objective - cd - dropped).max() < 1e-7
        table[name, k] = (objective, cd, dropped, true)
print(f"reference agrees with bmlab (finite differences of -KL(p0||p_inf) = exact gradient, "
      f"1e-7): {ok_true}")
print(f"-grad of the KL difference = CD-k update + dropped term (finite differences, 1e-7): "
      f"{ok_split}")
for (name, k), (objective, cd, dropped, true) in table.items():
    size = np.linalg.norm(true)
    print(f"{name:17s} k = {k}: |KL-difference gradient| {np.linalg.norm(objective) / size:.3f}, "
          f"|CD-k| {np.linalg.norm(cd) / size:.3f}, "
          f"|dropped| {np.linalg.norm(dropped) / size:.3f} (in units of |true gradient|); "
          f"cosine(CD-k, true) {cd @ true / np.linalg.norm(cd) / size:+.3f}")
print(f"exact log-likelihood of the CD-1 fixed point {cd_fixed.mean_log_likelihood(V2):.3f}, "
      f"optimum {max_log_likelihood(V2):.3f}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=False)
x = np.arange(19)
for ax, name in zip(axes, machines, strict=True):
    objective, cd, dropped, true = table[name, 1]
    ax.bar(x - 0.27, true, width=0.27, color=bmlab.NAVY, label="true gradient")
    ax.bar(x, cd, width=0.27, color=bmlab.ORANGE, label="expected CD-1 update")
    ax.bar(x + 0.27, objective, width=0.27, color=bmlab.GRAY,
           label="-grad [KL(p0||p_inf) - KL(p1||p_inf)]")
    ax.set_xticks(x, [f"W{i}{j}" for i in range(4) for j in range(3)]
                  + [f"a{i}" for i in range(4)] + [f"b{j}" for j in range(3)],
                  fontsize=6, rotation=90)
    ax.set(title=name, ylabel="component")
axes[0].legend(fontsize=7)
bmlab.save_figure(fig, "fig05_cd_divergences")
plt.show()

# %% [markdown]
# With small weights all three vectors coincide: the chain mixes in a step, $p_1\approx
# p_\infty$, and CD-1 is nearly the likelihood gradient. At CD-1's own fixed point the
# expected CD-1 update has vanished and so, almost, has the gradient of the KL difference
# (both are a few per cent of the true gradient, and so is the dropped term): CD-1 has come to
# rest near a stationary point of that difference. But the true
# gradient is far from zero there: the machine that makes $\mathrm{KL}(p_0\|p_\infty)$ and
# $\mathrm{KL}(p_1\|p_\infty)$ equally large is not the one that makes the first small.
# Longer chains ($k=2, 5$) move the update back towards the true gradient.

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. A worked solution follows each check cell, collapsed:
# click the `…` (or the bar at the cell's left) to show it, then run it.

# %% [markdown]
# **1 · The other conditional.** Show that $p(v_i = 1\mid h) = \sigma(a_i + (Wh)_i)$ from
# $E(v,h)$, and use it to check `visible_probs` against brute force for the 4x3 machine
# `small` of Section 1. *Your answer:* $p(v_1 = 1 \mid h = (1, 0, 1))$ for `small`, to 3
# decimals.

# %%
my_answer = None  # p(v1 = 1 | h = (1, 0, 1)) for small, to 3 decimals
bmlab.check("05.1", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 1: the energy is linear in each v_i given h, so p(v|h) factorizes like p(h|v).
cond_v = P / P.sum(axis=0, keepdims=True)  # p(v | h), columns indexed by h
print("visible conditionals match brute force:",
      np.allclose(cond_v.T @ V4, small.visible_probs(H3), atol=1e-12))
answer = expit(small.a + small.W @ np.array([1.0, 0.0, 1.0]))[0]
assert bmlab.check("05.1", answer)

# %% [markdown]
# **2 · How many steps make CD exact?** For the CD-1 model of Section 3, how many Gibbs steps
# does the expected CD-k update need before its cosine with the true gradient exceeds 0.9?
# Relate the answer to the second largest eigenvalue modulus $|\lambda_2|$ of the transition
# matrix `T`. *Your answer:* $|\lambda_2|$, to 3 decimals.

# %%
my_answer = None  # |lambda_2| of T, to 3 decimals
bmlab.check("05.2", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 2: scan k; the slowest relaxation time is -1/log|lambda_2|.
lam = np.sort(np.abs(np.linalg.eigvals(T)))[::-1]
first = next(k for k, c in zip(ks, cosines, strict=True) if c > 0.9)
answer = lam[1]
print(f"cosine > 0.9 first at k = {first} among {ks}")
print(f"|lambda_2| = {answer:.4f}: relaxation time about {-1 / np.log(answer):.0f} steps")
assert bmlab.check("05.2", answer)

# %% [markdown]
# **3 · Weight decay against divergence.** Re-run the CD-1 comparison of Section 2 with a
# weight decay of $10^{-2}$ (`run("cd", 1, weight_decay=1e-2)`). Does the divergence
# disappear? What happens to the best log-likelihood reached? *Your answer:* the peak mean
# log-likelihood (nats), to 2 decimals.

# %%
my_answer = None  # peak log-likelihood of CD-1 with weight decay 1e-2, to 2 decimals
bmlab.check("05.3", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 3: strong decay removes the fall but also caps the likelihood.
res = run("cd", 1, weight_decay=1e-2)
answer = res.history["ll"].max()
print(f"peak {answer:.3f}, final {res.history['ll'][-1]:.3f}")
assert bmlab.check("05.3", answer)
