# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (bmlab)
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
# below is checked against the **true log-likelihood**, not against a proxy. Notebook 05b
# continues with what happens during longer training: learning dynamics, too few sampling
# steps, handwritten digits, scikit-learn and the temperature of a trained machine.
#
# **What this notebook teaches**
# - why the bipartite restriction makes $p(h\mid v)$ a product and $Z$ a sum over one layer
#   (Section 1);
# - CD-k and PCD-k written out in numpy, and how they compare with the exact gradient on
#   bars and stripes, live and in longer recorded runs (Section 2);
# - why a truncated chain is allowed early in training and misleads later, and what a
#   model trained with CD-1 looks like at equilibrium (Section 3);
# - what CD-k optimizes: a difference of two divergences, minus a term it drops (Section 4).
#
# **What it assumes**
# - hidden units, $p(v)$ by summing them out, and the gradient "clamped minus model"
#   (notebook 04);
# - block Gibbs sampling as a Markov chain with a transition matrix (notebook 01);
# - numpy: matrix products, broadcasting, `np.linalg`.

# %% [markdown]
# > **Notation.** From here on units take the values 0 and 1 (notebook 04 used $\pm1$ spins;
# > the two are related by $x = (s+1)/2$). A visible state is a row vector $v$, a hidden state
# > $h$; the machine is the weight matrix $W$ (visible × hidden) with visible biases $a$ and
# > hidden biases $b$, and $\theta$ stands for all of them at once. The energy is
# > $E(v,h) = -v^\top W h - a^\top v - b^\top h$, and $F(v)$ is the free energy left after the
# > hidden units are summed out, $p(v) = e^{-F(v)}/Z$. $\sigma(x) = 1/(1+e^{-x})$ is the
# > logistic function (`expit`). $p_0$ is the distribution of the training data, $p_k$ the
# > law of a Gibbs chain after $k$ block steps started from $p_0$, $p_\infty$ the model itself,
# > and $T$ the matrix of one block-Gibbs step $v \to h \to v'$. States are coded by their bits:
# > state $c$ has unit $i$ on exactly when bit $i$ of $c$ is 1.

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
from bmlab.data import bars_and_stripes, max_log_likelihood
from bmlab.plotting import EXTRA, mosaic
from bmlab.rbm import RBM, CDGradient, ExactRBMGradient, PCDGradient
from bmlab.widgets.rbm import rbm_sampling_panel, rbm_training_panel

bmlab.use_style()
SEED = 5
rng = np.random.default_rng(SEED)


def bits(n):
    """All 2**n states of n {0,1} units, row c = the binary digits of c (unit i = bit i)."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)


def grid(ax, V, n, title):
    """Show the rows of V as a strip of n x n images (display only)."""
    image = mosaic(np.asarray(V).reshape(-1, n, n), len(V), fill=0.5)
    ax.imshow(image, cmap="gray_r", vmin=0, vmax=1)
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
#   $v_i\,\sigma(b_j + (vW)_j)$, for the whole data set one matrix product
#   `V.T @ expit(V @ W + b)`;
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
      np.allclose(cond @ H3, small.hidden_probs(V4), rtol=0, atol=1e-12))
Q = small.hidden_probs(V4)
factorized = np.prod(np.where(H3[None] == 1, Q[:, None], 1 - Q[:, None]), axis=2)
print("p(h|v) = product over hidden units, to 1e-12:",
      np.allclose(factorized, cond, rtol=0, atol=1e-12))
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
# **CD-k** replaces the model average by $k$ block-Gibbs steps started at each data vector.
# We follow scikit-learn's choices: probabilities $p(h\mid v)$ on the data, sampled states
# inside the chain, a *sampled* $v_k$ at the end, and $p(h\mid v_k)$ for the negative phase.
# (Hinton's practical guide suggests the probabilities $p(v\mid h)$ for the final
# reconstruction instead of a sample: less sampling noise, though he reports some evidence
# of slightly worse density models.) **PCD-k**
# keeps its chains -- visible and hidden states -- from one update to the next; these
# persistent chains are called *fantasy particles*, since they wander through what the model
# currently believes rather than through the data. The **exact gradient** enumerates.

# %%
V3 = bars_and_stripes(3)
best3 = max_log_likelihood(V3)
print(f"{V3.shape[0]} patterns, {len(np.unique(V3, axis=0))} distinct; "
      f"best possible mean log-likelihood {best3:.4f} nats")
fig, ax = plt.subplots(figsize=(8, 1.0))
grid(ax, V3, 3, "bars and stripes, 3x3")
plt.show()

# %% [markdown]
# **What to look for:** 16 images, each made of whole rows or whole columns; the blank and
# the full image appear twice.
#
# ### CD-k and PCD-1, written out
# One update each, in the spirit of scikit-learn's `BernoulliRBM._fit`: the positive phase
# on the batch, a short chain, the negative phase at its end, one ascent step. Replayed with
# the same random numbers, bmlab's `CDGradient` / `PCDGradient` inside the training loop
# `train` must give the same parameters. (bmlab computes both phases in one matrix product,
# `expit(concatenate([v0, vk]) @ W + b)`; the arithmetic is the same.)

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


# Hinton's start: W ~ N(0, 0.01^2), b = 0, visible biases a at the data's log-odds
init = RBM.random(9, N_HIDDEN, rng=np.random.default_rng(SEED), data=V3)
W, a, b = init.W, init.a, init.b
ref_rng, lib_rng = np.random.default_rng(1), np.random.default_rng(1)  # the same draws
for _ in range(5):
    W, a, b = cd_update(W, a, b, V3, 3, LR, ref_rng)
lib = bmlab.train(init.params, CDGradient(V3, 3), n_steps=5, lr=LR, rng=lib_rng).params
diff = max(np.abs(x - lib[key]).max() for x, key in zip((W, a, b), "Wab", strict=True))
print(f"reference agrees with bmlab (CD-3, 5 updates, same draws, max difference < 1e-12): "
      f"{diff < 1e-12}")


# %% [markdown]
# PCD-1 differs in one place: the negative phase comes from the fantasy particles, which
# take one step per update from wherever the previous update left them.

# %%
def pcd_update(W, a, b, v0, chains, lr, rng):
    """One PCD-1 update on the batch v0; the fantasy particles (v, h) go on from the last
    update."""
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
print(f"reconstruction error at update 0 (the same start for every run): "
      f"{runs['CD-1'].history['recon'][0]:.2g}")
for name, res in runs.items():
    ll, recon = res.history["ll"], res.history["recon"]
    print(f"{name:15s} peak {ll.max():6.3f} at update {res.history['step'][ll.argmax()]:4d}, "
          f"final {ll[-1]:6.3f}; reconstruction error at the peak {recon[ll.argmax()]:.2g}, "
          f"at the end {recon[-1]:.2g}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.0), layout="constrained")
for name, res in runs.items():
    axes[0].plot(res.history["step"], res.history["ll"], label=name, color=COLORS[name])
    axes[1].plot(res.history["step"], res.history["recon"], label=name, color=COLORS[name])
axes[0].axhline(best3, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
axes[0].set(xlabel="update", ylabel="exact mean log-likelihood (nats)", ylim=(-6.5, -2.4),
            title=f"3x3 live, rate {LR}, {N_HIDDEN} hidden")
axes[1].set(xlabel="update", ylabel="reconstruction error", yscale="log",
            title="what CD users usually watch")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=5)
bmlab.save_figure(fig, "fig05_cd_bas3_live")
plt.show()

# %% [markdown]
# **What to look for:** on the left, how far below the dashed optimum each curve ends (PCD-1
# drops off the bottom); on the right, every reconstruction error falling by orders of
# magnitude, PCD-1's included: the curve CD users watch does not show the collapse.
#
# On this small problem CD-1 climbs with the others and then stalls and wanders well below
# the exact gradient, while its reconstruction error keeps going down the whole time: a
# reconstruction is one Gibbs step from the data, the very place CD-1's chains look, so it
# says nothing about the rest of the state space. PCD-1 at this rate collapses outright;
# notebook 05b (Section 2) changes one setting of this run at a time and finds that more
# Gibbs steps per update prevent the collapse, while more fantasy particles or a smaller
# rate, each on its own, only soften it. CD-10 stays close to the exact gradient. The clear
# rise-then-fall of CD-1 reported by Fischer & Igel (2010) needs the longer 4x4 runs
# recorded below.
#
# ### What damps the divergence
# Longer chains (CD-10, above), a weight decay that keeps $W$ small, or a smaller rate. A
# weight decay $\lambda$ subtracts $\lambda W$ from the direction of every update of $W$ (the
# biases are left alone), which pulls the weights back towards zero.

# %%
damped = {
    "CD-1": runs["CD-1"],
    "CD-1, weight decay 1e-3": run("cd", 1, weight_decay=1e-3),
    "CD-1, rate 0.1": run("cd", 1, lr=0.1),
}
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
for name, res in damped.items():
    axes[0].plot(res.history["step"], res.history["ll"], label=name, color=COLORS[name])
    axes[1].plot(res.history["step"], res.history["sv"][:, 0], label=name, color=COLORS[name])
axes[0].axhline(best3, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
axes[0].set(xlabel="update", ylabel="exact mean log-likelihood", ylim=(-5, -2.4))
axes[1].set(xlabel="update", ylabel="largest singular value of W")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=4)
bmlab.save_figure(fig, "fig05_cd_damping")
plt.show()
for name, res in damped.items():
    ll = res.history["ll"]
    print(f"{name:25s} peak {ll.max():6.3f} at update {res.history['step'][ll.argmax()]:4d}, "
          f"final {ll[-1]:6.3f}; largest singular value of W at the end "
          f"{res.history['sv'][-1, 0]:5.2f}")

# %% [markdown]
# **What to look for:** on the right, the purple weight-decay curve levelling off far below
# the orange CD-1 curve; on the left, where each run ends against the dashed optimum.
#
# Weight decay keeps the largest singular value of $W$ from running away, and its
# log-likelihood ends higher than plain CD-1's.
# The smaller rate slows everything -- the rise as much as the fall -- so within 4000 updates
# it is still climbing; the recorded 4x4 runs below include a five times smaller rate (0.02),
# followed for 30 000 updates.

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
print(f"optimum {best4:.4f}; PCD-1 with {rec['params']['pcd_chains']} fantasy particles")
for name, r in recorded.items():
    ll, i = np.array(r["log_likelihood"]), int(np.argmax(r["log_likelihood"]))
    print(f"{name:25s} peak {ll.max():6.2f} at {r['step'][i]:5d}, final {ll[-1]:6.2f}; "
          f"reconstruction error at the peak {r['reconstruction_error'][i]:.2g}, at the end "
          f"{r['reconstruction_error'][-1]:.2g}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
for name, r in recorded.items():
    axes[0].plot(r["step"], r["log_likelihood"], label=name, color=COLORS[name])
    axes[1].plot(r["step"], r["reconstruction_error"], label=name, color=COLORS[name])
axes[0].axhline(best4, color=bmlab.GRAY, ls="--", lw=1, label=f"optimum {best4:.3f}")
axes[0].set(xlabel="update", ylabel="exact mean log-likelihood", ylim=(-8, -3),
            title=f"4x4, recorded {rec['recorded']}")
axes[1].set(xlabel="update", ylabel="reconstruction error", yscale="log")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=4)
bmlab.save_figure(fig, "fig05_cd_bas4_recorded")
plt.show()

# %% [markdown]
# **What to look for:** the orange CD-1 curve peaking early and then sinking on the left while
# it keeps falling on the right; the navy exact gradient still creeping up at the end.
#
# Here the divergence is unmistakable: CD-1 peaks early and then loses more than a nat per
# pattern while its reconstruction error keeps falling; CD-10 falls too, later and less;
# weight decay and a smaller rate damp the fall; PCD-1 with 32 fantasy particles collapses;
# only the exact gradient creeps on towards the optimum.
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
    """The CD-k estimate averaged over the chains: their law after k steps is p_k = p_0 T^k
    (here called q, with q0 = p_0 the empirical distribution of V)."""
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
fig, ax = plt.subplots(figsize=(6.5, 3.6), layout="constrained")
err_line, = ax.loglog(ks, rel_errors, "o-", color=bmlab.NAVY,
                      label="relative error |g_k - g| / |g| (left)")
ax.set(xlabel="Gibbs steps k", ylabel="relative error", title="CD-k vs the exact gradient")
ax2 = ax.twinx()
cos_line, = ax2.semilogx(ks, cosines, "s--", color=bmlab.ORANGE, label="cosine (right)")
ax2.set_ylabel("cosine")
ax2.spines["right"].set_visible(True)
fig.legend(handles=[err_line, cos_line], loc="outside lower center", ncol=2)
bmlab.save_figure(fig, "fig05_cdk_vs_exact")
plt.show()

# %% [markdown]
# **What to look for:** the orange cosine climbing above 0.9 within about ten steps, while the
# navy error needs hundreds of steps to drop.
#
# At the parameters CD-1 itself converged to, CD-1's expected update is tiny and points
# nowhere useful (cosine near 0) -- CD-1 has reached *its* fixed point, while the true
# gradient is still large. The CD-k direction lines up with the true one after ten steps or
# so, but the relative error is still above 0.1 after 300 steps and below 0.01 only at 1000:
# this model mixes slowly (exercise 2).
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
# probability model should be sampled -- exactly, from the enumerated $p(v)$, or with chains
# long enough to forget their start -- and the frequencies of the patterns come out wrong.

# %%
weights9 = 2 ** np.arange(9)  # state code of an image
patterns, counts = np.unique((V3 @ weights9).astype(int), return_counts=True)
p_data = counts / counts.sum()
p_equilibrium = model_cd1.visible_distribution()[patterns]
one_step = model_cd1.gibbs(np.tile(V3, (100, 1)), 1, rng=rng)  # 100 chains per pattern
codes1 = (one_step @ weights9).astype(int)
p_one_step = np.array([np.mean(codes1 == c) for c in patterns])


def tv(p, q):
    """Total variation between two laws given on the data patterns only: the second term
    counts the mass that q (or p) puts on all other images."""
    return 0.5 * np.abs(p - q).sum() + 0.5 * abs(p.sum() - q.sum())


print(f"1 step from the data:  total variation to the data {tv(p_one_step, p_data):.2f}")
print(f"equilibrium p(v):      total variation to the data {tv(p_equilibrium, p_data):.2f}")
print(f"equilibrium mass on valid patterns {p_equilibrium.sum():.2f}; "
      f"smallest {p_equilibrium.min():.3f}, largest {p_equilibrium.max():.3f} "
      f"(data: 0.062 and 0.125)")
print(f"exact log-likelihood of the CD-1 model {model_cd1.mean_log_likelihood(V3):.3f}, "
      f"optimum {best3:.3f}")

# %%
fig = plt.figure(figsize=(10, 5.0))
x = np.arange(patterns.size)
ax = fig.add_axes([0.07, 0.44, 0.9, 0.47])
ax.bar(x - 0.27, p_data, width=0.27, color=bmlab.GRAY, label="data")
ax.bar(x, p_one_step, width=0.27, color=bmlab.ORANGE, label="1 Gibbs step from the data")
ax.bar(x + 0.27, p_equilibrium, width=0.27, color=bmlab.NAVY, label="equilibrium p(v), exact")
ax.set_xlim(-0.6, patterns.size - 0.4)
ax.set_ylim(0, 1.45 * max(p_data.max(), p_one_step.max(), p_equilibrium.max()))
ax.set_xticks(x, [""] * patterns.size)
ax.set(ylabel="frequency", title="CD-1 model: sampled the way it was trained vs at equilibrium")
ax.legend(loc="upper center", ncol=3, fontsize=9)
for i, code in enumerate(patterns):  # each bar group's pattern, drawn under it
    left = 0.07 + 0.9 * (i - 0.3 + 0.6) / patterns.size
    thumb = fig.add_axes([left, 0.335, 0.9 * 0.6 / patterns.size, 0.09])
    thumb.imshow(bits(9)[code].reshape(3, 3), cmap="gray_r", vmin=0, vmax=1)
    thumb.set_xticks([])
    thumb.set_yticks([])
    thumb.spines[:].set_visible(True)  # a full frame: the blank pattern is a framed square
p_all = model_cd1.visible_distribution()  # exact, all 512 images
exact_draws = bits(9)[rng.choice(512, size=16, p=p_all / p_all.sum())]
for row, (S, label) in enumerate([(one_step[:16], "1 step from each data row"),
                                  (exact_draws, "16 exact draws from p(v)")]):
    grid(fig.add_axes([0.07, 0.17 - 0.14 * row, 0.9, 0.1]), S, 3, label)
bmlab.save_figure(fig, "fig05_out_of_equilibrium")
plt.show()

# %% [markdown]
# **What to look for:** the orange bars matching the gray data bars, while the navy bars
# are far too tall for some patterns and far too short for others; the pattern each bar
# group belongs to is drawn under it. The two strips at the bottom are samples drawn both
# ways, the second exactly from the model's $p(v)$: image by image they look much alike --
# the difference is in how often each pattern comes up, which only the bars show.
#
# One step from the data gives back the training set almost exactly -- CD-1 trained precisely
# this map. The model's own distribution is something else: it over-weights a few patterns
# and nearly forgets others. Only the exact $p(v)$ (or its log-likelihood), or chains long
# enough to forget the data, reveal it.

# %% [markdown]
# ## 4. Contrastive divergence as a difference of divergences
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
# Two machines: small random weights (early in training), and where the expected CD-1
# update itself nearly stops: after 1500 updates of `train` on it (a deterministic
# gradient), when it has shrunk to a few per cent of the true gradient (printed below).
# Two checks come first, neither of them a reference algorithm: finite differences of the
# exact KL must give bmlab's exact gradient, and the identity above must hold numerically.

# %%
start = RBM.random(4, 3, rng=np.random.default_rng(SEED), data=V2)
young4 = RBM(np.random.default_rng(SEED).normal(0, 0.5, (4, 3)), start.a, start.b)
cd_fixed = RBM.from_params(bmlab.train(
    start.params, lambda p, rng: unflatten(expected_cd_update(flatten(p), 1)),
    n_steps=1500, lr=2.0).params)
machines = {"small weights": young4, "1500 CD-1 updates": cd_fixed}
ok_true, ok_split = True, True
table = {}
for name, mach in machines.items():
    theta = flatten(mach.params)
    for k in (1, 2, 5):
        objective, cd, dropped, true = decompose(theta, k)
        ok_true &= np.abs(true - flatten(mach.exact_gradient(V2))).max() < 1e-7
        ok_split &= np.abs(objective - cd - dropped).max() < 1e-7
        table[name, k] = (objective, cd, dropped, true)
print(f"finite-difference check: -grad KL(p0||p_inf) = bmlab's exact gradient (1e-7): {ok_true}")
print(f"identity check: -grad of the KL difference = CD-k update + dropped term (1e-7): "
      f"{ok_split}")
for (name, k), (objective, cd, dropped, true) in table.items():
    size = np.linalg.norm(true)
    print(f"{name:18s} k = {k}: |KL-difference gradient| {np.linalg.norm(objective) / size:.3f}, "
          f"|CD-k| {np.linalg.norm(cd) / size:.3f}, "
          f"|dropped| {np.linalg.norm(dropped) / size:.3f} (in units of |true gradient|); "
          f"cosine(CD-k, true) {cd @ true / np.linalg.norm(cd) / size:+.3f}")
print(f"exact log-likelihood after 1500 CD-1 updates {cd_fixed.mean_log_likelihood(V2):.3f}, "
      f"optimum {max_log_likelihood(V2):.3f}")
p1_young, log_pinf_young = chain_laws(flatten(young4.params), 1)
p_inf_young = np.exp(log_pinf_young)
print(f"small weights: TV(p_1, p_inf) = {tv(p1_young, p_inf_young):.3f} "
      f"(p_0: {tv(p0, p_inf_young):.2f})")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.0), layout="constrained")
x = np.arange(19)
for ax, name in zip(axes, machines, strict=True):
    objective, cd, dropped, true = table[name, 1]
    ax.bar(x - 0.27, true, width=0.27, color=bmlab.NAVY, label="true gradient")
    ax.bar(x, cd, width=0.27, color=bmlab.ORANGE, label="expected CD-1 update")
    ax.bar(x + 0.27, objective, width=0.27, color=bmlab.GRAY,
           label="-grad [KL(p0||p_inf) - KL(p1||p_inf)]")
    ax.set_xticks(x, [f"W{i}{j}" for i in range(4) for j in range(3)]
                  + [f"a{i}" for i in range(4)] + [f"b{j}" for j in range(3)],
                  fontsize=8, rotation=90)
    ax.set(title=name, ylabel="component")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=3)
bmlab.save_figure(fig, "fig05_cd_divergences")
plt.show()

# %% [markdown]
# **What to look for:** on the left the three bars of each parameter nearly equal; on the
# right the navy bars large while the orange and gray ones have almost vanished.
#
# With small weights all three vectors coincide: the chain mixes in a step, $p_1\approx
# p_\infty$ (printed last), and CD-1 is nearly the likelihood gradient. After 1500 CD-1
# updates the expected CD-1 update and the gradient of the KL difference are both down to a
# few per cent of the true gradient (and so is the dropped term): CD-1 has nearly come to
# rest near a stationary point of that difference. But the true gradient is far from zero
# there: a stationary point of the difference is not one of $\mathrm{KL}(p_0\|p_\infty)$
# itself, and the exact log-likelihood there (printed) stays well below the optimum.
# Longer chains ($k=2, 5$) move the update back towards the true gradient.

# %% [markdown]
# ## Try it
# Train on 3x3 bars and stripes with your own settings (press Run), and compare samples from
# the data with samples from noise: the second panel is the out-of-equilibrium effect of
# Section 3, live. (Its $\beta$ slider belongs to notebook 05b.)

# %% tags=["nbval-ignore-output"]
rbm_training_panel()

# %% tags=["nbval-ignore-output"]
rbm_sampling_panel()

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. The worked solutions are in a notebook of their own,
# [05_solutions](solutions/05_solutions.ipynb):
# open it after you have tried.
#
# **1 · The other conditional.** Show that $p(v_i = 1\mid h) = \sigma(a_i + (Wh)_i)$ from
# $E(v,h)$, and use it to check `visible_probs` against brute force for the 4x3 machine
# `small` of Section 1. *Your answer:* $p(v_1 = 1 \mid h = (1, 0, 1))$ for `small`, to 3
# decimals, with $v_1$ the first visible unit (index 0 in numpy).
# [worked solution](solutions/05_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # p(v1 = 1 | h = (1, 0, 1)) for small, to 3 decimals
bmlab.check("05.1", my_answer)

# %% [markdown]
# **2 · How many steps make CD exact?** For the CD-1 model of Section 3, how many Gibbs steps
# does the expected CD-k update need before its cosine with the true gradient exceeds 0.9?
# Compare with how fast the chain forgets its start: the second largest eigenvalue modulus
# $|\lambda_2|$ of the transition matrix `T` gives the relaxation time
# $-1/\log|\lambda_2|$. *Your answer:* the relaxation time in Gibbs steps, to 1 decimal.
# [worked solution](solutions/05_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # relaxation time -1/log|lambda_2| of T in steps, to 1 decimal
bmlab.check("05.2", my_answer)

# %% [markdown]
# **3 · Weight decay against divergence.** Re-run the CD-1 comparison of Section 2 with a
# weight decay of $10^{-2}$, ten times the one shown there. Does the divergence disappear?
# What happens to the best log-likelihood reached? CD-1's curve depends on its random draws,
# so the number to check comes from a run without any: the exact gradient with the same
# start, rate and decay. The decay pulls $W$ back towards zero, so its weights stop growing
# where the pull balances the gradient. *Your answer:* the largest singular value of $W$
# where the exact gradient with weight decay $10^{-2}$ comes to rest, to 1 decimal.
# [worked solution](solutions/05_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # largest singular value of W, exact gradient with weight decay 1e-2, 1 decimal
bmlab.check("05.3", my_answer)

# %% [markdown]
# ## Summary
#
# - In an RBM $p(h\mid v)$ and $p(v\mid h)$ are products over units, so the clamped phase is
#   one matrix product, $Z$ is a sum over the smaller layer, and Gibbs sampling updates a
#   whole layer at once (Section 1).
# - CD-k takes the negative phase from $k$ Gibbs steps started at the data; PCD-k keeps its
#   fantasy particles from one update to the next. Judged by the exact log-likelihood, CD-1
#   stalls or falls while its reconstruction error keeps improving; longer chains, weight
#   decay or a smaller rate damp the fall (Section 2).
# - The truncation is harmless while the chain mixes fast (small weights) and misleading
#   once it does not: where CD-1's own update has nearly vanished the true gradient has not,
#   and the model is right one step from the data but wrong at equilibrium (Section 3).
# - CD-k follows the difference $\mathrm{KL}(p_0\|p_\infty)-\mathrm{KL}(p_k\|p_\infty)$
#   minus a term it drops; its fixed points are not those of the likelihood (Section 4).
#
# ## References
#
# - The lecture, Chapter 5: Section 5.6 (hidden units, Figure 5.4, the clamped phase),
#   Section 5.8 (the outlook, which names contrastive divergence as the next step), Eq. 5.1
#   (the energy) and Eq. 5.4 (the gradient).
# - G. E. Hinton, "Training products of experts by minimizing contrastive divergence",
#   *Neural Computation* 14 (2002): CD-k and the difference of divergences.
# - T. Tieleman, "Training restricted Boltzmann machines using approximations to the
#   likelihood gradient", ICML (2008): persistent CD and its fantasy particles.
# - G. E. Hinton, "A practical guide to training restricted Boltzmann machines", technical
#   report, University of Toronto (2010): probabilities versus sampled states in CD.
# - A. Fischer, C. Igel, "Empirical analysis of the divergence of Gibbs sampling based
#   learning algorithms for restricted Boltzmann machines", ICANN (2010): CD-1's rise and
#   fall on bars and stripes.
# - I. Sutskever, T. Tieleman, "On the convergence properties of contrastive divergence",
#   AISTATS (2010): CD is not the gradient of any objective function.
# - scikit-learn's `BernoulliRBM` (`sklearn/neural_network/_rbm.py`): the PCD step this
#   notebook's reference follows.
