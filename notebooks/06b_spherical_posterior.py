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
# # 06b · The spherical machine learned as a Bayesian
#
# Notebook 06 trained the spherical machine by maximum likelihood, with and without a weight
# penalty: one matrix $W$ per data set. Here $W$ is itself random. Training with noise, or
# Bayes' rule with a prior on $W$, gives a whole *law* over coupling matrices, a tempered
# posterior, and every question of notebook 06 (does the machine condense, along the teacher
# or elsewhere, how far is it from the teacher) gets an answer averaged over that law. The
# companion paper on spherical Boltzmann machines (Tulinski, Cocco, Monasson and
# Fernandez-De-Cossio-Diaz; summary in `../shared/lecture/`) describes its phases, a double
# descent, warm and cold posteriors and a transition of training with too few sampling steps,
# for $N \to \infty$. Since $\log Z$, $\langle xx^\top\rangle$ and every KL divergence between
# two spherical machines are exact functions of eigenvalues and eigenvectors, we can check
# each of these at $N = 50$–$200$ with nothing estimated except the posterior average itself.
#
# **What this notebook teaches**
# - the tempered posterior $P_\eta(W\mid X)$, how it relates to noisy training and to the
#   weight-decay fit of notebook 06, and an exact-in-the-limit sampler for it, checked by
#   quadrature (Section 1);
# - the phases of the posterior's machines against a rank-one teacher, measured by two order
#   parameters (Section 2), and what the sampling temperature does in each (Section 3);
# - double descent of the reverse KL against the prior's strength, and where it goes in the
#   MAP limit (Section 4); warm and cold posteriors (Section 5);
# - training with persistent chains and too few sampling steps per update (Section 6).
#
# **What it assumes**
# - notebook 06: the spherical machine, its exact $\log Z$ and $\langle xx^\top\rangle$,
#   condensation, the exact gradient and PCD, the KL from a teacher;
# - Bayes' rule; the idea of a Markov chain with a stationary law (notebook 01).

# %% [markdown]
# > **Notation.** As in notebook 06: $x$ on the sphere $|x|^2 = N$, $p_W(x) =
# > e^{\beta x^\top W x/2}/Z(W)$ relative to the uniform law ($\beta = 1$ unless said),
# > $W = U\,\mathrm{diag}(\lambda)\,U^\top$. Data $X$: $K$ rows $x_k$, second moment $C =
# > X^\top X/K$. Teacher $W^* = c^*\,uu^\top$, $u$ a unit vector. The posterior's
# > parameters: $\gamma$, the strength of the Gaussian prior $e^{-\gamma\|W\|_F^2/2}$, and
# > $\eta$, its inverse temperature. *Order parameters* of a machine against $u$, with $v$
# > the top eigenvector of $W$: the alignment $A = (u\cdot v)^2$, the condensation $H =
# > \langle (v\cdot x)^2\rangle/N$ and the overlap $q = \langle (u\cdot x)^2\rangle/N$.
# > $\mathrm{KL}(p\,\|\,p^*)$ is the *reverse* KL (model first), $\mathrm{KL}(p^*\|\,p)$ the
# > forward one. $\nu$: heat-bath steps per update of a persistent chain.

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
from scipy.special import ive

import bmlab
from bmlab.plotting import EXTRA
from bmlab.widgets.posterior import posterior_panel

bmlab.use_style()
SEED = 62
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · The posterior as the law of noisy training
#
# For data $X$ the log-likelihood of a coupling matrix is $\sum_k \log p_W(x_k) =
# \frac K2\mathrm{tr}(WC) - K\log Z(W)$. We study the law over symmetric $W$
#
# $$ P_\eta(W\mid X) \;\propto\; \exp\Big(\eta\Big[\sum_{k=1}^K \log p_W(x_k) -
# \frac\gamma2\|W\|_F^2\Big]\Big). $$
#
# At $\eta = 1$ this is Bayes' rule with the prior $e^{-\gamma\|W\|_F^2/2}$. As $\eta \to
# \infty$ it concentrates on the $W$ that maximises the bracket, that is
# $K\,[L(W) - \frac{\gamma/K}{2}\|W\|_F^2]$ with $L$ the mean log-likelihood: the weight-decay
# fit of notebook 06, Section 6, with decay $\gamma/K$. The paper calls $\eta$ the posterior's
# (inverse) temperature: $\eta < 1$ is a *warm* posterior, $\eta > 1$ a *cold* one.
#
# One direction of $W$ is special. Adding $c\,I$ adds $cN/2$ to every $x^\top W x/2$ and
# $cN/2$ to $\log Z$, so $\log p_W$ does not change: the data cannot see the trace. Along
# $I/\sqrt N$ only the prior acts, and $t = \mathrm{tr}(W)/\sqrt N$ is exactly
# $\mathcal N(0, 1/(\eta\gamma))$, whatever the data.
#
# *Noisy training.* Gradient ascent on the bracket plus Gaussian noise, the Langevin update
#
# $$ W \leftarrow W + \epsilon\Big[\tfrac K2\big(C - \langle xx^\top\rangle_W\big) -
# \gamma W\Big] + \sqrt{2\epsilon/\eta}\;\Xi, \qquad \Xi = \tfrac12(A + A^\top),\
# A_{ij} \sim \mathcal N(0, 1), $$
#
# has $P_\eta$ as its stationary law when the learning rate $\epsilon$ is small (the drift is
# the gradient of $\log P_\eta$ divided by $\eta$; the noise $\Xi$ is standard normal on
# symmetric matrices). `bmlab.LangevinSphericalGradient` makes these updates inside
# `bmlab.train`. At finite $\epsilon$ the law is slightly off; `bmlab.spherical_posterior`
# removes that error with a Metropolis test (the Metropolis-adjusted Langevin algorithm,
# MALA, on the traceless part of $W$, the trace drawn exactly), so its draws follow
# $P_\eta$ exactly in the limit of a long chain. Each step costs one eigendecomposition and
# one exact $\log Z$.
#
# First, one noisy training update written out in numpy against bmlab's, and the trace's
# invisibility.

# %%
N, K, C_STAR = 50, 50, 3.0
u = np.eye(N)[-1]  # the teacher's direction: the last axis (eigenvectors exact on every BLAS)
teacher = bmlab.SphericalBM(C_STAR * np.outer(u, u))
X = teacher.sample(K, rng=np.random.default_rng(SEED))  # the strong teacher's data set
C = X.T @ X / K


def log_likelihood(W):
    """sum_k log p_W(x_k) of the data X."""
    return 0.5 * K * np.sum(W * C) - K * bmlab.SphericalBM(W).log_partition()


G = rng.normal(size=(N, N)) / np.sqrt(2 * N)
W0 = G + G.T + 2.0 * np.outer(u, u)  # some symmetric W
gamma, eta, lr = 30.0, 1.0, 1e-4
lam0, U0 = np.linalg.eigh(W0)
M0 = (U0 * bmlab.spherical_moments(lam0)[1]) @ U0.T  # <x x^T> of W0
A = np.random.default_rng(1).normal(size=(N, N))
by_hand = W0 + lr * (0.5 * K * (C - M0) - gamma * W0) + np.sqrt(2 * lr / eta) * (A + A.T) / 2
langevin = bmlab.LangevinSphericalGradient(X, gamma=gamma, eta=eta, lr=lr)
by_bmlab = bmlab.train(
    {"W": W0}, langevin, n_steps=1, lr=langevin.lr, rng=np.random.default_rng(1)
).params["W"]
print(
    "reference agrees with bmlab (one Langevin update, to 1e-12):",
    np.abs(by_hand - by_bmlab).max() < 1e-12,
)
shift = abs(log_likelihood(W0 + 5.0 * np.eye(N)) - log_likelihood(W0))
print(f"log-likelihood unchanged by W -> W + 5 I (to 1e-9): {shift < 1e-9}")

# %% [markdown]
# Now the reference for the whole law. At $N = 2$ a symmetric $W$ has three entries; write
# it as $W = \begin{pmatrix} s + d & c\\ c & s - d\end{pmatrix}$. Its eigenvalues are $s \pm
# r$ with $r = \sqrt{d^2 + c^2}$, and on the circle $\log Z = s + \log I_0(r)$ (notebook 06,
# Exercise 1). The likelihood becomes $K(dD + cE) - K\log I_0(r)$ with $D = (C_{11} -
# C_{22})/2$ and $E = C_{12}$: $s$ cancels, as it must. In polar coordinates $(d, c) =
# r(\cos a, \sin a)$ the angle integrates to a Bessel function, and what remains is one
# integral over $r$:
#
# $$ P(r) \propto r\, I_0(\eta K\rho\, r)\, I_0(r)^{-\eta K}\, e^{-\eta\gamma r^2},
# \qquad \rho = \sqrt{D^2 + E^2}. $$
#
# The posterior means of $(W_{11} - W_{22})/2 = d$, of $W_{12} = c$ and of the eigenvalue
# gap $\lambda_\max - \lambda_\min = 2r$ follow from it ($\langle\cos(a - a_0)\rangle$ at
# fixed $r$ is $I_1/I_0$ of $\eta K\rho r$). We compare them with 4000 draws of
# `bmlab.spherical_posterior` and with 4000 updates of noisy training, whose draws are
# correlated: their standard errors come from the spread of 20 batch means.

# %%
X2 = bmlab.SphericalBM(np.diag([0.0, 3.0])).sample(10, rng=rng)  # 10 points on the circle
K2, GAMMA2, ETA2 = len(X2), 1.0, 1.0
C2 = X2.T @ X2 / K2
D, E = (C2[0, 0] - C2[1, 1]) / 2, C2[0, 1]
rho, a0 = np.hypot(D, E), np.arctan2(E, D)
r = np.linspace(1e-4, 20, 100_001)
kr = ETA2 * K2 * rho * r
log_density = (  # log P(r) up to a constant; ive(n, z) = I_n(z) exp(-z)
    np.log(r) + np.log(ive(0, kr)) + kr - ETA2 * K2 * (np.log(ive(0, r)) + r) - ETA2 * GAMMA2 * r**2
)
density = np.exp(log_density - log_density.max())
density /= np.trapezoid(density, r)
along = np.trapezoid(density * r * ive(1, kr) / ive(0, kr), r)  # <r cos(a - a0)>
quadrature = np.array([along * np.cos(a0), along * np.sin(a0), 2 * np.trapezoid(density * r, r)])


def summary(W):
    """(W11 - W22)/2, W12 and the eigenvalue gap of each matrix of W (m, 2, 2): (m, 3)."""
    lam = np.linalg.eigvalsh(W)
    return np.column_stack([(W[:, 0, 0] - W[:, 1, 1]) / 2, W[:, 0, 1], lam[:, 1] - lam[:, 0]])


def batch_means(values, n_batches=20):
    """Means of the columns and their standard errors from n_batches batch means."""
    batches = values[: len(values) // n_batches * n_batches]
    batches = batches.reshape(n_batches, -1, values.shape[1]).mean(axis=1)
    return batches.mean(axis=0), batches.std(axis=0, ddof=1) / np.sqrt(n_batches)


mala = summary(bmlab.spherical_posterior(X2, gamma=GAMMA2, eta=ETA2, n_samples=4000, rng=rng))
LR2 = 0.02
noisy = bmlab.LangevinSphericalGradient(X2, gamma=GAMMA2, eta=ETA2, lr=LR2)
run = bmlab.train(
    {"W": np.zeros((2, 2))},
    noisy,
    n_steps=4500,
    lr=noisy.lr,
    rng=rng,
    metrics={"summary": lambda p: summary(p["W"][None])[0]},
)
trained = np.array(run.history["summary"])[500:]  # after 500 updates of burn-in
print("                    quadrature   MALA (bmlab)      noisy training")
for i, name in enumerate(["(W11 - W22)/2", "W12", "lam_max - lam_min"]):
    cells = [f"{m[i]:7.3f} ± {s[i]:.3f}" for m, s in map(batch_means, (mala, trained))]
    print(f"{name:18s} {quadrature[i]:9.3f}   " + "   ".join(cells))
z_mala = (batch_means(mala)[0] - quadrature) / batch_means(mala)[1]
print(f"reference agrees with bmlab (posterior means at N = 2, |z| < 4): {np.all(abs(z_mala) < 4)}")

# %%
fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
bins = np.linspace(0, 6, 41)
ax.hist(mala[:, 2], bins=bins, density=True, color=bmlab.ORANGE, alpha=0.6,
        label="MALA draws (bmlab.spherical_posterior)")
ax.hist(trained[:, 2], bins=bins, density=True, histtype="step", lw=2, color=EXTRA[0],
        label=rf"noisy training, $\epsilon = {LR2}$")
ax.plot(2 * r, density / 2, color=bmlab.NAVY, label="quadrature")
ax.set_xlim(0, 6)
ax.set_xlabel(r"eigenvalue gap $\lambda_\max - \lambda_\min$ of $W$ ($N = 2$)")
ax.set_ylabel("probability density")
ax.set_title(r"the posterior at $\eta = \gamma = 1$, three ways")
ax.legend(loc="upper right", fontsize="small")
plt.show()

# %% [markdown]
# **What to look for:** the orange histogram of the sampler's draws and the green outline of
# noisy training both follow the navy density computed by quadrature.
#
# The table shows the same in numbers: the sampler's means agree with quadrature within
# their standard errors, and noisy training at this learning rate agrees within a few of its
# (larger) standard errors; its updates are strongly correlated, and what remains of its
# discretisation error is smaller than their spread here. How correlated are the sampler's
# draws? The autocorrelation of the gap between draws $t$ steps apart, and the share of
# proposals accepted (a rejected proposal repeats the traceless part of $W$):

# %%
gap = mala[:, 2] - mala[:, 2].mean()
lags = np.arange(11)
autocorrelation = np.array([np.mean(gap[: len(gap) - t] * gap[t:]) for t in lags]) / gap.var()
tau = 1 + 2 * autocorrelation[1:].sum()
print("lag t:            " + " ".join(f"{t:5d}" for t in lags))
print("autocorrelation:  " + " ".join(f"{a:5.2f}" for a in autocorrelation))
print(f"integrated autocorrelation time (lags up to 10): {tau:.1f} steps")
draws = bmlab.spherical_posterior(X2, gamma=GAMMA2, eta=ETA2, n_samples=2000, rng=rng)
traceless = draws - np.trace(draws, axis1=1, axis2=2)[:, None, None] / 2 * np.eye(2)
moved = np.abs(np.diff(traceless.reshape(len(draws), -1), axis=0)).max(axis=1) > 1e-9
print(f"share of steps that moved W: {moved.mean():.2f}")

# %% [markdown]
# The step size adapts during the first 1000 steps (the burn-in) until about 0.57 of the
# proposals are accepted, the best rate for this algorithm in many dimensions, then stays
# fixed; after a few steps the draws are nearly independent. At $N = 50$ the recorded chains
# of the next sections keep one draw every 20 steps and measure their own autocorrelation.
#
# ## 2 · Phases of the trained machine
#
# Now the teacher $W^* = 3\,uu^\top$ of the first cell, $K = 50$ data vectors in $N = 50$
# dimensions, and a second, weaker teacher $W^* = 1.5\,uu^\top$ with its own 50 vectors. Is a
# machine drawn from the posterior condensed, and along what? Three order parameters answer:
# the alignment $A$ of $W$'s top eigenvector $v$ with $u$, the condensation $H$ (the share
# of $|x|^2$ on $v$) and the overlap $q$ (the share along $u$), all exact for a given $W$
# (`bmlab.spherical_order_parameters`); and how far the machine is from the teacher, in both
# directions (`bmlab.spherical_kl`: the log-densities are quadratic in $x$, so
#
# $$ \mathrm{KL}(p_A\,\|\,p_B) = \tfrac12\mathrm{tr}\big((W_A - W_B)\,\langle xx^\top
# \rangle_A\big) - \log Z_A + \log Z_B $$
#
# needs only $A$'s second moment and the two $\log Z$). Reference: both in plain numpy.

# %%
lam, U = np.linalg.eigh(W0)
log_Z, y2 = bmlab.spherical_moments(lam)
M = (U * y2) @ U.T
log_Z_star, y2_star = bmlab.spherical_moments(teacher.lam)
M_star = (teacher.U * y2_star) @ teacher.U.T
mine = [
    (U[:, -1] @ u) ** 2,  # alignment
    y2[-1] / N,  # condensation
    u @ M @ u / N,  # overlap
    0.5 * np.sum((W0 - teacher.W) * M) - log_Z + log_Z_star,  # KL(p_W0 || teacher)
    0.5 * np.sum((teacher.W - W0) * M_star) - log_Z_star + log_Z,  # KL(teacher || p_W0)
]
model0 = bmlab.SphericalBM(W0)
theirs = [
    *bmlab.spherical_order_parameters(model0, u),
    bmlab.spherical_kl(model0, teacher),
    bmlab.spherical_kl(teacher, model0),
]
print(
    "reference agrees with bmlab (order parameters and both KL, to 1e-10):",
    np.allclose(mine, theirs, rtol=0, atol=1e-10),
)

# %% [markdown]
# The posterior was sampled over a grid, $\gamma$ from 3 to $10^4$ and $\eta$ from 0.03 to
# 10, for both teachers: at each point two chains of `bmlab.spherical_posterior`, one
# started at $W = 0$ and one at a random $W$ with a wide spectrum, each 1000 steps of
# burn-in and then 100 draws 20 steps apart (recorded by
# `benchmarks/record_spherical_posterior.py`, about 15 minutes). Each draw was measured
# exactly. Before trusting the averages: do the two chains agree, and how correlated are
# the draws?

# %%
rec = bmlab.load_results("spherical_posterior")
GAMMAS, ETAS = rec["params"]["gammas"], rec["params"]["etas"]
points = {(p["c_star"], p["eta"], p["gamma"]): p for p in rec["data"]["points"]}
TEACHERS = {1.5: "weak", 3.0: "strong"}
for c_star in TEACHERS:
    X_c = bmlab.SphericalBM(c_star * np.outer(u, u)).sample(K, rng=np.random.default_rng(SEED))
    same = abs(np.mean((X_c @ u) ** 2) / N - rec["data"]["teachers"][str(c_star)]["data_share"])
    print(f"c* = {c_star}: the recorded data are these (share along u to 1e-6): {same < 1e-6}")
worst, taus = 0.0, []
for p in points.values():
    a, b = p["chains"]
    for m in ("reverse_kl", "condensation", "alignment"):
        worst = max(worst, abs(a[m] - b[m]) / np.hypot(a[f"{m}_se"], b[f"{m}_se"]))
    taus += [a["tau_steps"], b["tau_steps"]]
print(f"{len(points)} grid points, 2 chains each: largest disagreement of the chains' means "
      f"(reverse KL, condensation, alignment): {worst:.1f} standard errors")
print(f"integrated autocorrelation time of the reverse KL: median {np.median(taus):.0f} steps, "
      f"largest {max(taus):.0f} steps (draws are 20 steps apart)")


def mean(c_star, eta, gamma, measure):
    """The posterior mean of a measure at a grid point (the two chains pooled)."""
    return float(np.mean([chain[measure] for chain in points[c_star, eta, gamma]["chains"]]))

# %% [markdown]
# We name the phases with two thresholds on the posterior means, chosen for $N = 50$ (at
# this size the transitions are smooth crossovers): *condensed* when $H \ge 0.2$, along the
# teacher when also $A \ge 0.5$ and off the teacher otherwise; below that, *aligned but
# silent* when $A \ge 0.5$ (the top eigenvector points along $u$ but the samples do not
# condense onto it) and *isotropic* otherwise. In the tables: `C+` condensed along the
# teacher, `C-` condensed off it, `S` aligned but silent, `.` isotropic.

# %%
def phase(c_star, eta, gamma):
    A, H = mean(c_star, eta, gamma, "alignment"), mean(c_star, eta, gamma, "condensation")
    if H >= 0.2:
        return "C+" if A >= 0.5 else "C-"
    return "S" if A >= 0.5 else "."


for c_star, name in TEACHERS.items():
    print(f"{name} teacher c* = {c_star}: rows eta, columns gamma")
    print("  eta \\ gamma " + "".join(f"{g:>7g}" for g in GAMMAS))
    for eta in ETAS:
        print(f"  {eta:11g} " + "".join(f"{phase(c_star, eta, g):>7s}" for g in GAMMAS))

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained", sharey=True)
for ax, (c_star, name) in zip(axes, TEACHERS.items(), strict=True):
    H = np.array([[mean(c_star, e, g, "condensation") for g in GAMMAS] for e in ETAS])
    image = ax.imshow(H, cmap="Blues", vmin=0, vmax=1, origin="lower", aspect="auto")
    A = np.array([[mean(c_star, e, g, "alignment") for g in GAMMAS] for e in ETAS])
    rows, cols = np.nonzero(A >= 0.5)
    ax.plot(cols, rows, "o", color=bmlab.ORANGE, ms=6, ls="none",
            label=r"alignment $A \geq 0.5$")
    ax.set_xticks(range(len(GAMMAS)), [f"{g:g}" for g in GAMMAS], rotation=45)
    ax.set_yticks(range(len(ETAS)), [f"{e:g}" for e in ETAS])
    ax.set_xlabel(r"prior strength $\gamma$")
    ax.set_title(rf"{name} teacher, $c^* = {c_star}$")
axes[0].set_ylabel(r"posterior inverse temperature $\eta$")
fig.colorbar(image, ax=axes, label=r"condensation $H$")
fig.legend(*axes[1].get_legend_handles_labels(), loc="outside lower center")
plt.show()

# %% [markdown]
# **What to look for:** dark cells (condensed) at small $\gamma$, light ones at large
# $\gamma$; the orange dots (top eigenvector along the teacher) cover the strong teacher's
# dark region and reach into the light one, while the weak teacher's dark region at small
# $\eta$ has no dots.
#
# PLACEHOLDER: reading of the phase tables.
#
# ## 3 · The sampling temperature on each phase
#
# A trained machine may be sampled at $\beta \neq 1$ (notebook 06, Section 5). The record
# holds, for 25 draws of each grid point, the reverse KL from the teacher and the overlap of
# the machine $\beta W$ at nine values of $\beta$ between 0.5 and 3. Two points of the tables
# above: an aligned but silent posterior of the strong teacher and one condensed off the weak
# teacher.

# %%
BETAS = np.array(rec["params"]["betas"])
CASES = {
    "aligned but silent": (3.0, 0.1, 1000.0),
    "condensed off the teacher": (1.5, 0.03, 100.0),
}
fig, axes = plt.subplots(2, 2, figsize=(9.6, 5.2), layout="constrained", sharex=True)
for column, (name, key) in enumerate(CASES.items()):
    c_star, eta, gamma = key
    scan = points[key]["beta_scan"]
    kl, q = np.array(scan["reverse_kl"]), np.array(scan["overlap"])
    best = np.argmin(kl)
    teacher_c = rec["data"]["teachers"][str(c_star)]
    print(f"{name} (c* = {c_star}, eta = {eta:g}, gamma = {gamma:g}): phase {phase(*key)}")
    print(f"  beta = 1: reverse KL {kl[BETAS == 1][0]:.2f} nats, overlap {q[BETAS == 1][0]:.3f}")
    print(f"  best beta {BETAS[best]:.2f}: reverse KL {kl[best]:.2f} nats, overlap {q[best]:.3f}"
          f" (teacher's overlap {teacher_c['teacher_share']:.3f}, uniform law's KL "
          f"{teacher_c['uniform_reverse_kl']:.2f})")
    top, bottom = axes[0, column], axes[1, column]
    top.plot(BETAS, kl, "o-", color=bmlab.ORANGE, label="posterior mean")
    top.axhline(teacher_c["uniform_reverse_kl"], color=bmlab.GRAY, ls="--", lw=1,
                label="uniform law")
    top.set_title(f"{name}\n" + rf"($c^* = {c_star}$, $\eta = {eta:g}$, $\gamma = {gamma:g}$)",
                  fontsize="medium")
    bottom.plot(BETAS, q, "o-", color=bmlab.ORANGE)
    bottom.axhline(teacher_c["teacher_share"], color=bmlab.GRAY, ls=":", lw=1.5,
                   label="teacher's overlap")
    bottom.set_xlabel(r"sampling inverse temperature $\beta$")
    for ax in (top, bottom):
        ax.axvline(1.0, color=bmlab.GRAY, lw=0.8)
        ax.set_xscale("log")
        ax.set_xticks([0.5, 1, 2, 3], ["0.5", "1", "2", "3"])
axes[0, 0].set_ylabel(r"reverse KL$(p_{\beta W}\,\|\,p^*)$, nats")
axes[1, 0].set_ylabel(r"overlap $q$")
axes[0, 1].legend(loc="upper right", fontsize="small")
axes[1, 1].legend(loc="upper left", fontsize="small")
plt.show()

# %% [markdown]
# **What to look for:** PLACEHOLDER
#
# ## 4 · Double descent
#
# PLACEHOLDER

# %%
def map_fit(X_c, gammas, n_steps=300):
    """The MAP W (eta -> infinity) for each gamma, strong to weak penalty, warm-started: train
    the eigenvalues of W in the data's eigenbasis with weight decay gamma / K."""
    basis = np.linalg.eigh(X_c.T @ X_c / len(X_c))[1]
    gradient = bmlab.ExactSphericalGradient(X_c @ basis)
    w, fits, largest = np.zeros(N), {}, 0.0
    for g in sorted(gammas, reverse=True):
        decay = g / len(X_c)
        w = bmlab.train({"W": w}, gradient, n_steps=n_steps, lr=min(0.03, 0.5 / decay),
                        momentum=0.9, weight_decay=decay).params["W"]
        largest = max(largest, np.abs(gradient({"W": w})["W"] - decay * w).max())
        fits[g] = bmlab.SphericalBM((basis * w) @ basis.T)
    return fits, largest


fits, largest = map_fit(X, GAMMAS)
print(f"MAP fits: largest |gradient of the penalised likelihood| at the end < 1e-3: "
      f"{largest < 1e-3}")
uniform_kl = rec["data"]["teachers"]["3.0"]["uniform_reverse_kl"]
print(f"reverse KL of the uniform law from the strong teacher: {uniform_kl:.2f} nats")
print("  eta \\ gamma " + "".join(f"{g:>7g}" for g in GAMMAS))
curves = {}
for eta in ETAS:
    curves[eta] = np.array([mean(3.0, eta, g, "reverse_kl") for g in GAMMAS])
    print(f"  {eta:11g} " + "".join(f"{kl:7.2f}" for kl in curves[eta]))
map_curve = np.array([bmlab.spherical_kl(fits[g], teacher) for g in GAMMAS])
print("  MAP        " + "".join(f"{kl:7.2f}" for kl in map_curve))

# %%
def pooled_se(c_star, eta, gamma, measure):
    """The standard error of the two chains' pooled mean."""
    a, b = points[c_star, eta, gamma]["chains"]
    return 0.5 * np.hypot(a[f"{measure}_se"], b[f"{measure}_se"])


for eta in ETAS:
    kl = curves[eta]
    i_min = int(np.argmin(kl))
    if i_min == len(GAMMAS) - 1:
        print(f"eta = {eta:5g}: the KL falls all the way to gamma = {GAMMAS[-1]:g}")
        continue
    i_peak = i_min + 1 + int(np.argmax(kl[i_min + 1 :]))
    margin = 5 * np.hypot(pooled_se(3.0, eta, GAMMAS[i_peak], "reverse_kl"),
                          pooled_se(3.0, eta, GAMMAS[-1], "reverse_kl"))
    second = kl[i_peak] - max(kl[-1], uniform_kl) > margin
    print(f"eta = {eta:5g}: smallest KL {kl[i_min]:.2f} at gamma = {GAMMAS[i_min]:g}, largest "
          f"after it {kl[i_peak]:.2f} at gamma = {GAMMAS[i_peak]:g}; falls again, to the "
          f"uniform law, by more than 5 standard errors: {second}")

fig, ax = plt.subplots(figsize=(7.2, 4.2), layout="constrained")
shades = plt.get_cmap("Oranges")(np.linspace(0.35, 1.0, len(ETAS)))
for (eta, kl), shade, marker in zip(curves.items(), shades, "os^vDP", strict=True):
    ax.plot(GAMMAS, kl, marker=marker, color=shade, ms=5, label=rf"$\eta = {eta:g}$")
ax.plot(GAMMAS, map_curve, "k-", color=bmlab.NAVY, lw=2.5, label=r"MAP ($\eta\to\infty$)")
ax.axhline(uniform_kl, color=bmlab.GRAY, ls="--", lw=1, label="uniform law")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(r"prior strength $\gamma$")
ax.set_ylabel(r"mean reverse KL$(p_W\,\|\,p^*)$, nats")
ax.set_title(r"strong teacher: the reverse KL against $\gamma$")
fig.legend(loc="outside right upper", fontsize="small")
plt.show()

# %% [markdown]
# **What to look for:** PLACEHOLDER
#
# ## 5 · Warm and cold posteriors
#
# PLACEHOLDER

# %%
for c_star, name in TEACHERS.items():
    print(f"{name} teacher c* = {c_star}:")
    print("   gamma   best eta   its reverse KL   at eta = 1    best eta (forward KL)")
    for g in GAMMAS:
        reverse = [mean(c_star, e, g, "reverse_kl") for e in ETAS]
        forward = [mean(c_star, e, g, "forward_kl") for e in ETAS]
        at_one = reverse[ETAS.index(1.0)]
        print(f"  {g:6g}   {ETAS[np.argmin(reverse)]:8g}   {min(reverse):14.2f}   "
              f"{at_one:10.2f}    {ETAS[np.argmin(forward)]:8g}")

fig, axes = plt.subplots(1, 2, figsize=(9.6, 3.6), layout="constrained", sharey=True)
for ax, (c_star, name) in zip(axes, TEACHERS.items(), strict=True):
    for g, shade, marker in zip((10.0, 100.0, 1000.0), shades[1::2], "os^", strict=True):
        kl = [mean(c_star, e, g, "reverse_kl") for e in ETAS]
        ax.plot(ETAS, kl, marker=marker, color=shade, label=rf"$\gamma = {g:g}$")
    ax.axvline(1.0, color=bmlab.GRAY, lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"posterior inverse temperature $\eta$")
    ax.set_title(rf"{name} teacher, $c^* = {c_star}$")
axes[0].set_ylabel("mean reverse KL, nats")
axes[1].legend(loc="upper right", fontsize="small")
plt.show()

# %% [markdown]
# **What to look for:** PLACEHOLDER
#
# ## 6 · Too few sampling steps
#
# PLACEHOLDER

# %%
pcd = bmlab.load_results("spherical_pcd")
NUS = pcd["params"]["nus"]
for n, run_n in pcd["data"].items():
    runs = run_n["runs"]
    print(f"N = {n} (data's share along u {run_n['data_share']:.3f})")
    print("  negative phase     top eigenvalue   overlap q of W   chains' share")
    for key in ("exact", *map(str, NUS)):
        r_ = runs[key]
        label = "exact" if key == "exact" else f"nu = {key}"
        print(f"  {label:14s}  " + "  ".join(
            f"{r_[f'{m}_mean']:8.3f} ± {r_[f'{m}_se']:.3f}" for m in ("top", "overlap", "chains")
        ))

# %%
fig, axes = plt.subplots(1, 3, figsize=(11, 3.6), layout="constrained", sharex=True)
for (n, run_n), marker in zip(pcd["data"].items(), "os", strict=True):
    runs = run_n["runs"]
    for ax, m in zip(axes, ("top", "overlap", "chains"), strict=True):
        ax.errorbar(NUS, [runs[str(nu)][f"{m}_mean"] for nu in NUS],
                    [runs[str(nu)][f"{m}_se"] for nu in NUS], marker=marker, color=EXTRA[1],
                    ls="-" if marker == "o" else "--", label=f"persistent chains, N = {n}")
        if m != "chains":
            ax.axhline(runs["exact"][f"{m}_mean"], color=EXTRA[0],
                       ls="-" if marker == "o" else "--", label=f"exact negative phase, N = {n}")
LABELS = ("top eigenvalue of W", r"overlap $q$ of $p_W$", "chains' share along u")
for ax, label in zip(axes, LABELS, strict=True):
    ax.set_xscale("log", base=2)
    ax.set_xlabel(r"heat-bath steps per update $\nu$")
    ax.set_ylabel(label)
axes[2].axhline(pcd["data"]["100"]["data_share"], color=bmlab.GRAY, ls=":", label="data, N = 100")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2,
           fontsize="small")
plt.show()

# %% [markdown]
# **What to look for:** PLACEHOLDER
#
# ## 7 · The posterior, live
#
# PLACEHOLDER

# %% tags=["nbval-ignore-output"]
panel = posterior_panel()
panel

# %% [markdown]
# ## Exercises
#
# PLACEHOLDER
