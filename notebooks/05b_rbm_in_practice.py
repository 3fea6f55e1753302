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
# # 05b · Training RBMs in practice: dynamics, sampling, digits and temperature
#
# Companion to Section 5.8, continuing notebook 05. There we wrote CD-k and PCD-k out and
# judged them on bars and stripes by the exact log-likelihood. Here we watch what training
# does to the weights over time, what happens when the sampler cannot keep up, how far exact
# evaluation reaches on handwritten digits, and what re-tuning the temperature of a trained
# machine buys. The machines stay small enough for an exact $Z$ (or, for larger ones, a
# bracket from both sides), so every claim is still checked against the true likelihood.
#
# **What this notebook teaches**
# - how $W$ grows during training: modes detach from the bulk one by one, predicted in the
#   linear regime by the data covariance, and only change samples once they are large
#   (Section 1);
# - what too few sampling steps per update do to PCD, and which remedies cure it when each
#   is tried on its own (Section 2);
# - exact and AIS-bracketed log-likelihoods of RBMs trained on handwritten digits (Section 3);
# - a comparison with scikit-learn's `BernoulliRBM` by the exact score (Section 4);
# - the temperature of a trained machine, and what re-tuning it reveals (Section 5).
#
# **What it assumes**
# - notebook 05: the RBM, CD-k, PCD-k and their fantasy particles, bars and stripes;
# - annealed importance sampling as a bracket on $\log Z$ (notebook 02);
# - numpy: singular values and eigenvectors (`np.linalg.svd`, `np.linalg.eigh`).

# %% [markdown]
# > **Notation.** As in notebook 05: units in $\{0,1\}$, a visible state $v$ and a hidden
# > state $h$, weights $W$ (visible × hidden), visible biases $a$, hidden biases $b$, energy
# > $E(v,h) = -v^\top W h - a^\top v - b^\top h$, and $\sigma$ the logistic function. The
# > singular values of $W$ are $w_1 \ge w_2 \ge \dots$; the $r$-th of them with its pair of
# > singular vectors is *mode* $r$. $C$ is the covariance matrix of the training images and
# > $\mathrm{diag}(C)$ its diagonal, what independent pixels would have. $\eta$ is the
# > learning rate, and $\beta$ an inverse temperature: the machine at $\beta$ has
# > $p_\beta(v,h) \propto e^{-\beta E(v,h)}$.

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
from scipy.special import logsumexp
from scipy.stats import chi2 as chi2_dist

import bmlab
from bmlab.data import bars_and_stripes, binarized_digits, max_log_likelihood
from bmlab.plotting import EXTRA, mosaic
from bmlab.rbm import RBM, CDGradient, PCDGradient

bmlab.use_style()
SEED = 5
rng = np.random.default_rng(SEED)


def bits(n):
    """All 2**n states of n {0,1} units, row c = the binary digits of c (unit i = bit i)."""
    return bmlab.codes_to_states(np.arange(2**n), n, binary=True)


def grid(ax, V, n, title):
    """Show the rows of V as a strip of n x n images (display only)."""
    image = mosaic(np.asarray(V).reshape(-1, n, n), len(V), fill=0.5)
    ax.imshow(image, cmap="gray_r", vmin=0, vmax=1)
    ax.set_title(title, fontsize=9, loc="left")
    ax.axis("off")


# %% [markdown]
# ## 1. Learning dynamics: the singular values of W (arXiv:1803.01960)
#
# Decelle, Fissore and Furtlehner (2018) describe training from small weights as a sequence:
# at first the RBM is nearly linear and $W$ grows along the leading principal directions of
# the data; later the grown modes interact and the singular values level off. We watch this
# on the 8x8 handwritten digits of scikit-learn (bundled, no download), binarized at half
# intensity, with visible biases at the data's log-odds, so the first-order statistics are
# fitted from the start: the singular values of $W$, and the overlap of its top-3 left
# singular vectors with the top-3 eigenvectors of the centred data covariance (1 = same
# subspace). PCD-5, minibatches of 100, rate 0.05, 16 hidden units.

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
print(f"{len(train_D)} training and {len(test_D)} held-out images of {digits.shape[1]} pixels")
for s in (0, 300, 600, 1500):
    i = int(np.searchsorted(steps, s))
    print(f"update {s:4d}: overlap with top-3 PCs {spec[i, 0]:.2f}, "
          f"top singular values {np.round(spec[i, 1:4], 1)}")

# %% [markdown]
# **The linear regime, predicted.** While $W$ is small, expand $p(h_j=1\mid v)$ to first
# order in $W$ (here $b=0$, so $\sigma'(0)=1/4$). The clamped phase then gives
# $\tfrac14\langle vv^\top\rangle_\text{data}W$ and the free phase
# $\tfrac14\langle vv^\top\rangle_\text{model}W$, plus a term $\tfrac12\langle v\rangle$
# that cancels as long as the visible biases keep the model's pixel means at the data's
# (they start there, and the bias updates keep them close). At $W=0$ the
# model's visible units are independent with the data's means, so the two second moments
# differ only by the covariance off the diagonal: $C - \mathrm{diag}(C)$. Hence
# $W \leftarrow (1 + \tfrac{\eta}{4}A)\,W$ with $A = C - \mathrm{diag}(C)$: every eigenvector
# of $A$ with a positive eigenvalue $\lambda$ is an unstable mode that grows like
# $(1+\eta\lambda/4)^t$ -- the data's covariance beyond what independent pixels already
# explain. This is the linear regime of Decelle et al., written for $\{0,1\}$ units with
# fitted visible biases. The dashed lines below iterate this prediction from the same
# initial $W$.

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
MODE_COLORS = (bmlab.NAVY, bmlab.ORANGE, EXTRA[0], EXTRA[1])  # modes 1-4, in every panel
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), layout="constrained")
axes[0].fill_between(steps, spec[:, 5:].min(axis=1), spec[:, 5:].max(axis=1),
                     color=bmlab.GRAY, alpha=0.4, lw=0, label="modes 5-16 (range)")
for j, color in enumerate(MODE_COLORS):
    axes[0].plot(steps, spec[:, 1 + j], color=color, label=f"mode {j + 1}")
axes[0].set(xlabel="update", ylabel="singular values of W", title="modes grow one by one")
axes[1].plot(steps, spec[:, 0], color=EXTRA[2])
axes[1].set(xlabel="update", ylabel="overlap", ylim=(0, 1.05))
axes[1].set_title("top-3 singular vectors vs top-3 PCs", fontsize=10)
early = steps <= 600
for j in range(3):
    axes[2].semilogy(steps[early], spec[early, 1 + j], color=MODE_COLORS[j])
    axes[2].semilogy(steps[early], linear[early, j], "--", color=MODE_COLORS[j], lw=1)
axes[2].plot([], [], "--", color=bmlab.GRAY, lw=1, label="linear prediction (dashed)")
axes[2].set(xlabel="update", ylabel="singular value (log scale)")
axes[2].set_title("linear regime: measured, predicted (dashed)", fontsize=10)
handles, labels = axes[0].get_legend_handles_labels()
extra_handles, extra_labels = axes[2].get_legend_handles_labels()
fig.legend(handles + extra_handles, labels + extra_labels, loc="outside lower center", ncol=6)
bmlab.save_figure(fig, "fig05_singular_values")
plt.show()


# %% [markdown]
# **What to look for:** on the left, the navy mode 1 leaving the gray bulk first, then the
# orange mode 2 and the others in turn; on the right, each solid line following its dashed
# prediction early on and falling below it later; in the middle, the overlap jumping towards
# 1 early.
#
# The overlap jumps to nearly 1 while the weights are still small (linear regime: the
# gradient is dominated by the data covariance), and the singular values detach from the
# bulk one after another. Later the overlap drifts down and the growth of the leading values
# slows: the modes now interact and $W$ is shaped by higher-order structure, not by the
# covariance alone.
#
# **Before and after the first modes condense.** A mode that has grown out of the bulk changes
# the machine's own distribution only once it is large enough -- we say it *condenses*. Then
# the model's variance along the mode's direction $u$ (its left singular vector, in pixel
# space) jumps from the independent-pixel value $u^\top \mathrm{diag}(C)\,u$ towards
# the data's $u^\top C\,u$, and the machine's samples stop being speckle. With 16 hidden
# units both are exact: $p(v)=\sum_h p(h)\,p(v\mid h)$ with $p(v\mid h)$ a product, so the
# $2^{16}$ hidden states can be enumerated. That gives every moment of $v$ (the variance
# splits into the average variance given $h$ plus the variance of the mean given $h$), and
# exact samples: draw $h$ from the table $p(h)$, then each $v_i$ given $h$ on its own. No
# Gibbs chain is involved, so nothing has to mix. We check both first against a machine small
# enough to enumerate $p(v)$.

# %%
def hidden_law(model):
    """p(h) of all 2**n_hidden hidden states (v summed out), shape (2**n_hidden,), and the
    visible means E[v_i | h] = sigmoid(a + W h) for each, shape (2**n_hidden, n_visible)."""
    H = bits(model.W.shape[1])
    field = H @ model.W.T + model.a  # the field on each visible unit, for every h
    softplus = np.logaddexp(0, field)
    log_ph = H @ model.b + softplus.sum(axis=1)  # log p(h) + const
    return np.exp(log_ph - logsumexp(log_ph)), np.exp(field - softplus)


def variance_along(law, u):
    """Exact Var(u . v) from hidden_law(model): p(v|h) is a product of Bernoullis, so
    Var(u . v) = E_h[Var(u . v | h)] + Var_h(E[u . v | h])."""
    p_h, mu = law
    within = (mu * (1 - mu)) @ u**2  # Var(u . v | h): the units are independent given h
    between = mu @ u  # E[u . v | h]
    return p_h @ within + p_h @ (between - p_h @ between) ** 2


def exact_draws(law, n, rng):
    """n independent exact samples v of the RBM, (n, n_visible): h ~ p(h), then v ~ p(v|h)."""
    p_h, mu = law
    h = rng.choice(p_h.size, size=n, p=p_h / p_h.sum())
    return (rng.random((n, mu.shape[1])) < mu[h]).astype(float)


r4 = np.random.default_rng(4)  # a 4x3 machine of its own, and a direction
small = RBM(r4.normal(0, 1, (4, 3)), r4.normal(0, 1, 4), r4.normal(0, 1, 3))
u4 = r4.normal(0, 1, 4)
uv = bits(4) @ u4  # u . v for all 16 visible states
p4 = small.visible_distribution()
brute = p4 @ uv**2 - (p4 @ uv) ** 2
print(f"reference agrees with bmlab (Var(u . v) vs the enumerated p(v), difference < 1e-12): "
      f"{abs(variance_along(hidden_law(small), u4) - brute) < 1e-12}")
counts = np.bincount((exact_draws(hidden_law(small), 20_000, r4) @ 2 ** np.arange(4)).astype(int),
                     minlength=16)
chi2 = np.sum((counts - 20_000 * p4) ** 2 / (20_000 * p4))
print(f"20 000 exact draws against the enumerated p(v): chi-square {chi2:.1f} on 15 degrees of "
      f"freedom (its 99.9 % point is {chi2_dist.ppf(0.999, 15):.1f})")

# %%
draw_rng = np.random.default_rng(SEED)
fig, axes = plt.subplots(len(SNAPS), 1, figsize=(9, 1.25 * len(SNAPS)), layout="constrained")
for ax, n in zip(axes, SNAPS, strict=True):
    snap = RBM.from_params(snapshots[n])
    law = hidden_law(snap)
    U, sv, _ = np.linalg.svd(snap.W)
    u = U[:, 0]  # the leading mode's direction in pixel space
    ll_n = snap.mean_log_likelihood(train_D)
    print(f"update {n:4d}: top singular value {sv[0]:5.2f}; variance along its direction: "
          f"model {variance_along(law, u):.3f}, data {u @ C_data @ u:.3f}, independent pixels "
          f"{u @ np.diag(np.diag(C_data)) @ u:.3f}; exact train log-likelihood {ll_n:.2f}")
    grid(ax, exact_draws(law, 12, draw_rng), 8,
         f"update {n}: top singular value {sv[0]:.2f}, exact log-likelihood {ll_n:.1f}")
bmlab.save_figure(fig, "fig05_condensation")
plt.show()

# %% [markdown]
# **What to look for:** the first rows, speckle at the pixel means; the last rows, strokes
# and digit-like shapes, once the top singular value has grown past a few units.
#
# By update 400 the top singular values have grown to 1.21, 0.90 and 0.46 (the leading one
# about tenfold), yet the model's variance along the
# leading one is still close to that of independent pixels and its exact samples are speckle
# at the pixel means: the modes are aligned with the data but *silent*, and the exact
# log-likelihood has hardly moved. Once the leading singular value passes a few units the
# variance along it climbs towards the data's value and the samples turn into strokes and
# digit-like shapes; the exact log-likelihood rises with it. From here on the linear
# prediction (dashed, above) overshoots: the modes interact and stop growing exponentially.

# %% [markdown]
# ## 2. Too few sampling steps per update
#
# The spherical-Boltzmann-machine analysis (Tulinski et al., summary in the lecture folder)
# predicts that when the persistent chain makes too few steps per parameter update, training
# settles in a biased, out-of-equilibrium state, with weight eigenvalues that *overshoot*.
# We test it on 3x3 bars and stripes, starting from the PCD-1 run of notebook 05 (9 hidden
# units, rate 0.3, 4000 full-batch updates, 16 fantasy particles), which collapses there.
# Each further run changes one of its settings: 100 Gibbs steps per update instead of 1; 256
# fantasy particles instead of 16; or a ten times smaller rate with ten times as many
# updates, so that the distance travelled (rate times updates) stays the same. A last run
# changes the particles and the rate together, and the exact gradient is the reference.
# CD-1, CD-10, PCD-1 and PCD-1 with 256 particles are trained live (Section 5 reuses the
# first three); the slower runs were **recorded** by `benchmarks/record_bas3_slow.py` with the
# same settings and seed, and every run again with four other seeds, to see which
# differences are more than one seed's luck.

# %%
V3 = bars_and_stripes(3)
best3 = max_log_likelihood(V3)
N_HIDDEN, LR, STEPS = 9, 0.3, 4000
COLORS = {"exact gradient": bmlab.NAVY, "CD-1": bmlab.ORANGE, "CD-10": EXTRA[0],
          "PCD-1": EXTRA[1], "PCD-100": EXTRA[2], "PCD-1, 256 particles": EXTRA[3]}


def run(algorithm, k, n_chains=None):
    """Train a 9-hidden RBM on 3x3 bars and stripes with CD-k or PCD-k (n_chains fantasy
    particles, one per data row by default) as in notebook 05; record the exact mean
    log-likelihood and the largest singular value of W every 100 updates."""
    run_rng = np.random.default_rng(SEED)
    init = RBM.random(9, N_HIDDEN, rng=run_rng, data=V3)
    gradient = CDGradient(V3, k) if algorithm == "cd" else PCDGradient(V3, k, n_chains=n_chains)
    metrics = {"ll": lambda p: RBM.from_params(p).mean_log_likelihood(V3),
               "sv": lambda p: np.linalg.svd(p["W"], compute_uv=False)[0]}
    return bmlab.train(init.params, gradient, n_steps=STEPS, lr=LR, metrics=metrics,
                       record_every=100, rng=run_rng)


runs = {"CD-1": run("cd", 1), "CD-10": run("cd", 10), "PCD-1": run("pcd", 1),
        "PCD-1, 256 particles": run("pcd", 1, n_chains=256)}
slow = bmlab.load_results("bas3_slow")
recorded = slow["data"]["runs"]
exact_fit = RBM.from_params({key: np.array(x) for key, x in
                             recorded["exact gradient"]["params"].items()})
print(f"recorded {slow['recorded']} on {slow['machine']}")
seeds = slow["params"]["seeds"]
print(f"{'':32s}{'seed 5 (plotted below)':^33s}  | seeds {seeds[0]}-{seeds[-1]}")
print(f"{'':32s}{'log-likelihood':^15s} {'largest s.v. of W':^17s}  | final log-lik.")
print(f"{'run':31s} {'peak':>7s} {'final':>7s} {'max':>9s} {'final':>7s}  | "
      f"{'lowest':>7s} {'highest':>7s}")
curves = {}
for name in ("exact gradient", "PCD-1", "PCD-100", "PCD-1, 256 particles", "PCD-1, rate 0.03",
             "PCD-1, 256 particles, rate 0.03"):
    r = recorded[name]
    if name in runs:  # trained live above: the record's seed 5 is the same run
        curves[name] = {key: np.asarray(runs[name].history[key]) for key in ("step", "ll", "sv")}
    else:
        curves[name] = {"step": np.array(r["step"]), "ll": np.array(r["log_likelihood"]),
                        "sv": np.array(r["top_singular_value"])}
    h, finals = curves[name], r["final_log_likelihood"]
    print(f"{name:31s} {h['ll'].max():7.2f} {h['ll'][-1]:7.2f} {h['sv'].max():9.1f} "
          f"{h['sv'][-1]:7.1f}  | {min(finals):7.2f} {max(finals):7.2f}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), layout="constrained")
for name, h in curves.items():
    slower = name.endswith(", rate 0.03")  # ten times the updates: drawn at update / 10
    style = {"color": COLORS[name.removesuffix(", rate 0.03")], "ls": ":" if slower else "-",
             "lw": 2.2 if slower else None, "label": name}
    axes[0].plot(h["step"] / (10 if slower else 1), h["ll"], **style)
    axes[1].plot(h["step"] / (10 if slower else 1), h["sv"], **style)
axes[0].axhline(best3, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
axes[0].set(xlabel="update (rate 0.03: update / 10)", ylabel="exact mean log-likelihood",
            ylim=(-8, -2.4))
axes[1].set(xlabel="update (rate 0.03: update / 10)", ylabel="largest singular value of W")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=3)
bmlab.save_figure(fig, "fig05_pcd_sampling_rate")
plt.show()

# %% [markdown]
# **What to look for:** a colour is one sampler (its Gibbs steps per update and its number of
# particles), and a dotted line the same sampler at the ten times smaller rate. On the
# right, the red PCD-1 curve running far above the navy exact gradient and the dotted red
# one below it but still above the rest; on the left, where each run ends against the gray
# dashed optimum.
#
# The overshoot is there at this size: with one Gibbs step per update the largest singular
# value of $W$ runs well past the exact gradient's, and the likelihood collapses after an
# early peak. Changing one setting at a time:
#
# - **100 Gibbs steps per update** instead of one cure it: the spectrum follows the exact
#   run closely and the likelihood ends within a nat of it, with every seed (it jitters: 16
#   fantasy particles make a noisy negative phase).
# - **256 fantasy particles** instead of 16 damp it: the largest singular value overshoots
#   far less and the likelihood ends many nats higher than PCD-1's, but with seed 5 it still
#   falls about two nats from its peak, and over the seeds its final value spreads widely,
#   from close to PCD-100's to two nats below it.
# - **A ten times smaller rate** (with ten times as many updates) damps it too, and no more:
#   the weights still overshoot, and with every seed the likelihood ends more than a nat and a
#   half below the exact gradient's.
#
# Only the last two remedies together, 256 particles *and* the smaller rate, end as close to
# the exact gradient as 100 steps per update do: with one Gibbs step per update, neither a
# smaller rate nor more particles is enough on its own.

# %% [markdown]
# The recorded 4x4 PCD-1 run of notebook 05 (one fantasy particle per data row, rate 0.1)
# collapses the same way: its peak and final log-likelihood are printed in Section 2 there.
#
# ## 3. Handwritten digits
#
# Back to the digits of Section 1. With 16 hidden units the exact $\log Z$ is still a sum
# over $2^{16}$ hidden states, so we can follow the true log-likelihood on the training
# images and on the held-out ones. PCD-1, minibatches of 10, rate 0.05.

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
best = int(np.argmax(dig.history["train"]))
print(f"highest after {dig.history['step'][best]} updates: train {dig.history['train'][best]:.1f}, "
      f"held-out {dig.history['test'][best]:.1f}; after 3000 updates (20 epochs): train "
      f"{dig.history['train'][-1]:.1f}, held-out {dig.history['test'][-1]:.1f} nats per image")

# %%
fig = plt.figure(figsize=(10, 3.6), layout="constrained")
ax = fig.add_subplot(1, 3, 1)
ax.plot(dig.history["step"] / 150, dig.history["train"], "o-", color=bmlab.NAVY,
        label="train")
ax.plot(dig.history["step"] / 150, dig.history["test"], "s--", color=bmlab.ORANGE,
        label="held-out")
ax.set(xlabel="epoch", ylabel="exact mean log-likelihood")
ax.legend(loc="lower right")
ax = fig.add_subplot(1, 3, 2)
samples = exact_draws(hidden_law(digit_model), 16, rng)
ax.imshow(mosaic(samples.reshape(16, 8, 8), 4, fill=0.5), cmap="gray_r", vmin=0, vmax=1)
ax.set_title("exact samples of the model", fontsize=9)
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
# **What to look for:** the two curves moving together a small gap apart (little
# overfitting): up for most of training and down together at the very end, since nothing
# makes PCD-1's likelihood rise at every step; samples built of strokes; receptive fields
# that are blobs and strokes in red (positive weights) and blue (negative), each a part of
# some digits.
#
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
ais_params = ais_rec["params"]
print(f"recorded {ais_rec['recorded']}: mean log-likelihood per image, bracketed by AIS "
      f"({ais_params['n_betas']} temperatures, {ais_params['n_chains']} chains; reverse from "
      f"{ais_params['gibbs_steps_reverse']} block-Gibbs steps)")
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
# the exact value sits inside it. (Each end carries two standard errors: when both estimates
# are this accurate, their centres alone could come out in the wrong order by chance.) The
# comparison itself is a lesson: after the same brief PCD-1 training, *more* hidden units
# give a *lower* likelihood (our reading: the larger models are further from converged after
# the same number of updates), and a reconstruction error or a sample mosaic would not have
# told us.

# %% [markdown]
# ## 4. Side by side with scikit-learn's BernoulliRBM
#
# Recorded by `benchmarks/record_sklearn_rbm.py`: both libraries run the same algorithm at
# identical settings (printed below; both start from the same kind of small random weights,
# `W ~ N(0, 0.01**2)`) for five seeds each, and the fitted models (sklearn's `components_.T`,
# `intercept_visible_`, `intercept_hidden_`) are scored by bmlab's exact log-likelihood.

# %%
sk = bmlab.load_results("sklearn_rbm")
same = sk["data"]["identical"]
settings = sk["params"]
print(f"recorded {sk['recorded']}: {settings['algorithm']}, batch {settings['batch']}, rate "
      f"{settings['lr']}, {settings['n_hidden']} hidden units, {settings['epochs']} epochs; "
      f"exact mean log-likelihood, {settings['repeats']} seeds each")
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
# fantasy particles at data rows, while sklearn visits the minibatches in one fixed order and
# starts the particles' hidden units at zero. Both carry a particle's hidden state over,
# drawn from the $p(h\mid v)$ the gradient needs anyway, so one update costs a single extra
# half-step. (Speed: see the README.)

# %% [markdown]
# ## 5. The temperature of a trained RBM
#
# A trained machine can be sampled at an inverse temperature $\beta\neq1$:
# $p_\beta(v,h)\propto e^{-\beta E(v,h)}$, i.e. the same machine with $W, a, b$ all multiplied
# by $\beta$ (the sampling panel of notebook 05 has a $\beta$ slider). The
# spherical-Boltzmann-machine analysis (Tulinski et al.) finds that re-tuning $\beta$ after
# training can improve the samples. Here the exact log-likelihood of the data as a function
# of $\beta$ answers it for the four bars-and-stripes fits of Section 2. One fact to check
# first: $\beta$ scales every parameter, so $\frac{d}{d\beta}L$ at $\beta=1$ is
# $\theta\cdot\nabla_\theta L$; at a maximum of the likelihood the gradient vanishes and
# $\beta=1$ is the best temperature. This is an identity, checked here by finite
# differences.

# %%
def at_beta(model, beta):
    """The same machine at inverse temperature beta: W, a and b multiplied by beta."""
    return RBM(beta * model.W, beta * model.a, beta * model.b)


fits = {"exact gradient": exact_fit,
        **{name: RBM.from_params(runs[name].params) for name in ("CD-10", "CD-1", "PCD-1")}}
m, eps = fits["CD-1"], 1e-5
slope = (at_beta(m, 1 + eps).mean_log_likelihood(V3)
         - at_beta(m, 1 - eps).mean_log_likelihood(V3)) / (2 * eps)
theta_dot_grad = sum(np.sum(m.params[x] * g) for x, g in m.exact_gradient(V3).items())
print(f"finite-difference check: dL/dbeta at 1 = theta . grad L (to 1e-6): "
      f"{abs(slope - theta_dot_grad) < 1e-6}")

# %%
betas = np.linspace(0.2, 2.0, 91)
curves, best_beta = {}, {}
for name, m in fits.items():
    curves[name] = np.array([at_beta(m, x).mean_log_likelihood(V3) for x in betas])
    opt = minimize_scalar(lambda x, m=m: -at_beta(m, x).mean_log_likelihood(V3),
                          bounds=(0.1, 3.0), method="bounded", options={"xatol": 1e-6})
    best_beta[name] = opt.x
    gain = max(-opt.fun - m.mean_log_likelihood(V3), 0.0)  # >= 0 up to the optimizer's tolerance
    print(f"{name:15s} at beta = 1: {m.mean_log_likelihood(V3):6.3f}; best beta {opt.x:.2f} "
          f"gives {-opt.fun:6.3f} (+{gain:.3f} nats); "
          f"largest singular value of W {np.linalg.svd(m.W, compute_uv=False)[0]:5.2f}")

# %%
weights9 = 2 ** np.arange(9)  # state code of an image
patterns = np.unique((V3 @ weights9).astype(int))
temp_rng = np.random.default_rng(SEED)
fig = plt.figure(figsize=(10, 4.2))
ax = fig.add_axes([0.07, 0.3, 0.4, 0.62])
for name, ll_b in curves.items():
    ax.plot(betas, ll_b, color=COLORS[name], label=name)
    ax.plot(best_beta[name], at_beta(fits[name], best_beta[name]).mean_log_likelihood(V3),
            "o", color=COLORS[name])
ax.axvline(1, color=bmlab.GRAY, lw=1, ls=":")
ax.axhline(best3, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
ax.set(xlabel=r"inverse temperature $\beta$", ylabel="exact mean log-likelihood",
       ylim=(-8, -2.4), title="re-tuning the temperature after training")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize=8)
cd1 = fits["CD-1"]
for row, x in enumerate((0.5, 1.0, 2.0)):
    p_v = at_beta(cd1, x).visible_distribution()  # exact, all 512 images
    S = bits(9)[temp_rng.choice(512, size=10, p=p_v / p_v.sum())]  # 10 exact draws
    print(f"CD-1 fit at beta = {x}: exact mass on valid patterns {p_v[patterns].sum():.2f}, "
          f"on its most likely image {p_v.max():.2f}; {len(np.unique(S, axis=0))} distinct "
          f"images among the 10 exact draws shown (expected {np.sum(1 - (1 - p_v) ** 10):.1f})")
    grid(fig.add_axes([0.53, 0.7 - 0.3 * row, 0.45, 0.2]), S, 3,
         f"CD-1 model at β = {x}: exact mass on valid patterns {p_v[patterns].sum():.2f}")
bmlab.save_figure(fig, "fig05_temperature")
plt.show()

# %% [markdown]
# **What to look for:** on the left, where each curve peaks (the dots) relative to the
# dotted line at $\beta = 1$; on the right, exact draws of the CD-1 fit: invalid images at
# $\beta = 0.5$, and at $\beta = 2$ only valid ones, with repeats.
#
# The PCD-1 fit, whose weights ran away (Section 2; its largest singular value is the largest
# of the four), gains several nats by being sampled hot, at $\beta$ well below 1. The CD-1
# fit also prefers a slightly higher temperature, but not because its weights are too
# large: its largest singular value is a little *smaller* than that of the exact-gradient
# fit. What heating corrects in CD-1 is the shape of its distribution, which over-weights a
# few patterns (the out-of-equilibrium effect of notebook 05); a hotter machine spreads that
# mass out a little. CD-10 gains nothing at the printed precision (its best $\beta$ is
# 1.01). The exact-gradient run, still climbing after 4000 updates (in the table of
# Section 2 its peak is its final value), prefers $\beta > 1$: its weights have not yet
# grown to their maximum-likelihood size, and cooling the machine is a cheap way to go
# further along the same direction.
#
# The exact draws show the trade-off for the CD-1 fit. Hot, it leaves the valid patterns:
# most of its mass sits on other images. Cold, it puts essentially all of its mass on valid
# patterns and concentrates it: its most likely image carries more than twice the share it
# has at $\beta = 1$, and ten exact draws are expected to show about 4.6 different images,
# against 6.8 at $\beta = 1$ and 9.5 at $\beta = 0.5$. It does not freeze into a single
# image, but a strip of ten draws at $\beta = 2$ repeats a few of them (exercise 3 measures
# how concentrated it is).

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. The worked solutions are in a notebook of their own,
# [solutions/05b_solutions.ipynb](solutions/05b_solutions.ipynb):
# open it after you have tried.
#
# **1 · How fast does the first mode grow?** In the linear regime of Section 1, mode 1 is
# multiplied by $1 + \eta\lambda_1/4$ at every update, with $\lambda_1$ the largest eigenvalue
# of $A = C - \mathrm{diag}(C)$ ($C$ = `C_data` of Section 1, the covariance divided by the
# number of images: `bias=True`) and $\eta = 0.05$. How many updates does it take, by this
# prediction, to grow tenfold? Compare with the measured curve. *Your answer:* the number of
# updates (not necessarily whole), to 1 decimal.
# [worked solution](solutions/05b_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # updates for mode 1 to grow tenfold in the linear regime, to 1 decimal
bmlab.check("05b.1", my_answer)

# %% [markdown]
# **2 · How much structure is there to find?** Take the leading eigenvector $u$ of the data
# covariance $C$ of the training images of Section 1. By what factor is the data's variance
# along $u$ larger than what independent pixels with the same means would give? This is the
# jump a condensed mode has to make. *Your answer:* the ratio
# $u^\top C u \,/\, u^\top \mathrm{diag}(C)\, u$, to 2 decimals.
# [worked solution](solutions/05b_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # u.C.u / u.diag(C).u for the leading eigenvector u of C, to 2 decimals
bmlab.check("05b.2", my_answer)

# %% [markdown]
# **3 · How concentrated is a cold machine?** Cooling the CD-1 fit of Section 5 to
# $\beta = 2$ moves its mass onto the valid patterns. Does it also concentrate on a few of
# them? One number that says so: the probability that two independent samples of the machine
# are the same image.
# *Your answer:* $\sum_v p_\beta(v)^2$ at $\beta = 2$ for the CD-1 fit, to 3 decimals.
# [worked solution](solutions/05b_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # sum over v of p_beta(v)^2 at beta = 2, CD-1 fit, to 3 decimals
bmlab.check("05b.3", my_answer)

# %% [markdown]
# ## Summary
#
# - Trained from small weights, $W$ first grows along the data's principal directions, as
#   the linear regime predicts from $C - \mathrm{diag}(C)$; modes detach from the bulk one by
#   one, and change the samples only once they are large enough to condense (Section 1).
# - With too few Gibbs steps per update PCD overshoots: its weights run past those of the
#   exact gradient and the likelihood collapses. Changing one setting at a time, 100 steps
#   per update cure it, while 256 fantasy particles or a ten times smaller rate only damp it;
#   the last two together cure it as well (Section 2).
# - On digits, the exact log-likelihood follows training with 16 hidden units; for more, AIS
#   from both sides brackets it to a tenth of a nat, and shows that larger models trained as
#   briefly are worse (Section 3).
# - Scored exactly, bmlab's and scikit-learn's PCD-1 implementations can be compared
#   honestly (Section 4).
# - Re-tuning $\beta$ after training is free and can gain nats; at a maximum of the
#   likelihood $\beta = 1$ is best (Section 5).
#
# ## References
#
# - The lecture, Chapter 5: Section 5.8 (the outlook, which names contrastive divergence as
#   the next step) and Section 5.6 (hidden units; the RBM previewed in Figure 5.4).
# - A. Decelle, G. Fissore, C. Furtlehner, "Thermodynamics of restricted Boltzmann machines
#   and related learning dynamics", arXiv:1803.01960 (summary in the lecture folder): the
#   linear regime and the growth of the modes of $W$.
# - The spherical-Boltzmann-machine analysis of Tulinski et al. (summary in the lecture
#   folder): too few sampling steps per update, and re-tuning the temperature.
# - T. Tieleman, "Training restricted Boltzmann machines using approximations to the
#   likelihood gradient", ICML (2008): persistent CD and its fantasy particles.
# - R. Salakhutdinov, I. Murray, "On the quantitative analysis of deep belief networks",
#   ICML (2008): AIS for the log-likelihood of RBMs trained on digits.
# - scikit-learn's `BernoulliRBM` (`sklearn/neural_network/_rbm.py`), the library compared
#   in Section 4.
