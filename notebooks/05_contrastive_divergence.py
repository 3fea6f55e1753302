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
# 7. side by side with scikit-learn's `BernoulliRBM`.

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
from scipy.special import expit, logsumexp

import bmlab
from bmlab.data import bars_and_stripes, binarized_digits, max_log_likelihood
from bmlab.learning import train
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
lib = train(init.params, CDGradient(V3, 3), n_steps=5, lr=LR, rng=lib_rng).params
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
lib = train(init.params, PCDGradient(V3, 1), n_steps=5, lr=LR, rng=lib_rng).params
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
    if algorithm == "exact":  # draws nothing: no rng
        gradient, run_rng = ExactRBMGradient(V3), None
    else:
        gradient = {"cd": CDGradient, "pcd": PCDGradient}[algorithm](V3, k)
    return train(init.params, gradient, n_steps=steps, lr=lr, weight_decay=weight_decay,
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
# Decelle, Fissore and Furtlehner (2018) describe training from small weights as a sequence: at first the RBM
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


dyn_rng = np.random.default_rng(SEED)
init = RBM.random(64, 16, rng=dyn_rng, data=train_D)
dyn = train(init.params, PCDGradient(train_D, 5, batch_size=100), n_steps=1500, lr=0.05,
            metrics={"spec": overlap_and_spectrum}, record_every=25, rng=dyn_rng)
spec = dyn.history["spec"]
steps = dyn.history["step"]
for s in (0, 300, 600, 1500):
    i = int(np.searchsorted(steps, s))
    print(f"update {s:4d}: overlap with top-3 PCs {spec[i, 0]:.2f}, "
          f"top singular values {np.round(spec[i, 1:4], 1)}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
axes[0].plot(steps, spec[:, 1:9])
axes[0].set(xlabel="update", ylabel="singular values of W", title="modes grow one by one")
axes[1].plot(steps, spec[:, 0], color=bmlab.NAVY)
axes[1].set(xlabel="update", ylabel="overlap", ylim=(0, 1.05),
            title="top-3 singular vectors vs top-3 PCs")
bmlab.save_figure(fig, "fig05_singular_values")
plt.show()

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
many = train(
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
dig = train(init.params, PCDGradient(train_D, 1, batch_size=10), n_steps=3000,
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
# ## Exercises
#
# 1. Show that $p(v_i = 1\mid h) = \sigma(a_i + (Wh)_i)$ from $E(v,h)$, and use it to check
#    `visible_probs` against brute force for the 4x3 machine of Section 1.
# 2. For the CD-1 model of Section 3, how many Gibbs steps does the expected CD-k update need
#    before its cosine with the true gradient exceeds 0.9? Relate the answer to the second
#    largest eigenvalue of the transition matrix $T$.
# 3. Re-run the CD-1 comparison of Section 2 with a weight decay of $10^{-2}$. Does the
#    divergence disappear? What happens to the best log-likelihood reached?

# %% jupyter={"source_hidden": true}
# Solution 1: the energy is linear in each v_i given h, so p(v|h) factorizes like p(h|v).
cond_v = P / P.sum(axis=0, keepdims=True)  # p(v | h), columns indexed by h
print("visible conditionals match brute force:",
      np.allclose(cond_v.T @ V4, small.visible_probs(H3), atol=1e-12))

# %% jupyter={"source_hidden": true}
# Solution 2: scan k; the slowest relaxation time is -1/log|lambda_2|.
lam = np.sort(np.abs(np.linalg.eigvals(T)))[::-1]
first = next(k for k, c in zip(ks, cosines, strict=True) if c > 0.9)
print(f"cosine > 0.9 first at k = {first} among {ks}")
print(f"|lambda_2| = {lam[1]:.4f}: relaxation time about {-1 / np.log(lam[1]):.0f} steps")

# %% jupyter={"source_hidden": true}
# Solution 3: strong decay removes the fall but also caps the likelihood.
res = run("cd", 1, weight_decay=1e-2)
print(f"peak {res.history['ll'].max():.3f}, final {res.history['ll'][-1]:.3f}")
