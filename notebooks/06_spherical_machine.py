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
# # 06 · A Boltzmann machine you can solve: the spherical machine
#
# Every exact check in notebooks 01–05 stops near $N = 30$ units, because the partition
# function is a sum over $2^N$ states. Here we keep the energy of Eq. 5.1 (without biases,
# the sum now including $i = j$) but let the state be a vector $x$ of real numbers on a
# sphere instead of $\pm1$ spins. Then $Z$
# depends on $N$ numbers only, the eigenvalues of $W$, and learning, sampling and what can go
# wrong with them can all be computed exactly at $N = 1000$. The model and the phenomena
# follow the paper on spherical Boltzmann machines by Tulinski, Cocco, Monasson and
# Fernandez-De-Cossio-Diaz (summary in `../shared/lecture/`).
#
# **What this notebook teaches**
# - why $Z$ of the spherical machine is solvable: it depends on the eigenvalues of $W$, and
#   the constraint $|x|^2 = N$ costs one Lagrange multiplier (Section 1);
# - condensation: above a critical $\beta$ a finite share of $|x|^2$ lines up with the top
#   eigenvector of $W$, and the transition sharpens as $N$ grows (Section 2);
# - that learning is Eq. 5.4 again, data minus model, and that a trained $W$ grows one
#   eigenvalue out of the bulk (Section 3);
# - what persistent chains with too few sampling steps per update do to learning (Section 4);
# - how the sampling temperature and a weight penalty change the quality of a trained model,
#   measured by an exact KL divergence (Sections 5 and 6).
#
# **What it assumes**
# - the energy and the Boltzmann law (Eq. 5.1), and the learning rule Eq. 5.4 (notebook 03);
# - persistent contrastive divergence (PCD, notebook 05);
# - eigenvalues and eigenvectors of a symmetric matrix; numpy.

# %% [markdown]
# > **Notation.** The state is $x \in \mathbb{R}^N$ on the sphere $|x|^2 = N$; the energy is
# > $E(x) = -\tfrac12 x^\top W x$ with a symmetric coupling matrix $W$ (the $J$ of Eq. 5.1,
# > renamed as in the paper, with a diagonal that matters: $x_i^2$ is not constant on the
# > sphere), and $p(x) = e^{-\beta E(x)}/Z$ relative to the uniform law on
# > the sphere, so $Z = 1$ at $W = 0$. $W = U\,\mathrm{diag}(\lambda)\,U^\top$: eigenvalues
# > $\lambda_i$, eigenvectors the columns of $U$; $y = U^\top x$ are the coordinates of $x$
# > along them. $z$ is the Lagrange multiplier of the constraint. The *share* $q =
# > \langle (u\cdot x)^2\rangle / N$ is the fraction of $|x|^2$ along a unit vector $u$. A
# > rank-one $W = c\,uu^\top$ has *spike* $c$; a teacher $W^* = c^*\,u u^\top$ generates $K$
# > data vectors. $\nu$ is the number of Markov-chain steps per PCD update and $\gamma$ the
# > strength of an L2 penalty on $W$.

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
from scipy.optimize import brentq

import bmlab
from bmlab.widgets.spherical import condensation_panel

bmlab.use_style()
SEED = 6
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · The model, and why its $Z$ is solvable
#
# The partition function is an average over the uniform law on the sphere,
#
# $$ Z = \Big\langle e^{\beta x^\top W x/2} \Big\rangle_{|x|^2 = N} . $$
#
# Rotate to the eigenbasis of $W$: $y = U^\top x$ lies on the same sphere, and the uniform
# law does not notice a rotation, so $Z = \langle e^{\beta \sum_i \lambda_i y_i^2/2}\rangle$
# depends on the eigenvalues $\lambda_i$ only. Now trade the hard constraint $\sum_i y_i^2 =
# N$ for a soft one, a weight $e^{-z|y|^2/2}$ with one Lagrange multiplier $z$: under it
# every $y_i$ is an independent Gaussian with variance $1/(z - \beta\lambda_i)$ (which needs
# $z > \beta \max_i \lambda_i$), and $z$ is chosen so that the variances add up to $N$,
#
# $$ \sum_{i=1}^N \frac{1}{z - \beta\lambda_i} = N . $$
#
# For large $N$ that is the whole solution (a saddle point). bmlab is exact at every $N$:
# it writes the constraint as an integral over $z$ and evaluates it along the path of
# steepest descent through that saddle point (`bmlab.spherical`'s docstring has the details
# and the measured accuracy).
#
# Reference: at $N = 3$ the sphere has two angles, and plain quadrature over them
# ($\cos\theta$ by Gauss–Legendre, $\varphi$ on an even grid) gives $\log Z$ and
# $\langle xx^\top\rangle$ directly.

# %%
W3 = rng.normal(size=(3, 3))
W3 = W3 + W3.T  # any symmetric matrix
beta = 1.0
cos_t, w_t = np.polynomial.legendre.leggauss(200)
phi = 2 * np.pi * np.arange(400) / 400
sin_t = np.sqrt(1 - cos_t**2)[:, None]
grid = (len(cos_t), len(phi))
X3 = np.sqrt(3) * np.stack(
    [sin_t * np.cos(phi), sin_t * np.sin(phi), np.broadcast_to(cos_t[:, None], grid)], axis=-1
)  # points on |x|^2 = 3, shape (200, 400, 3)
area = w_t[:, None] * (2 * np.pi / 400) / (4 * np.pi)  # uniform law: d(cos t) d(phi) / 4 pi
boltzmann = area * np.exp(0.5 * beta * np.einsum("abi,ij,abj->ab", X3, W3, X3))
log_Z_quad = np.log(boltzmann.sum())
second_quad = np.einsum("ab,abi,abj->ij", boltzmann, X3, X3) / boltzmann.sum()

model3 = bmlab.SphericalBM(W3)
err_log_Z = abs(log_Z_quad - model3.log_partition(beta))
err_second = np.abs(second_quad - model3.second_moment(beta)).max()
print(f"largest differences: log Z {err_log_Z:.0e}, <x x^T> {err_second:.0e}")
print(f"reference agrees with bmlab (log Z and <x x^T> to 1e-10): "
      f"{err_log_Z < 1e-10 and err_second < 1e-10}")
Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))  # a random rotation
print(
    "log Z of Q W Q^T = log Z of W (eigenvalues only, to 1e-10):",
    abs(bmlab.SphericalBM(Q @ W3 @ Q.T).log_partition(beta) - log_Z_quad) < 1e-10,
)

# %% [markdown]
# The Lagrange multiplier in action at $N = 1000$: solve the equation for $z$ by hand and
# compare the Gaussian variances $1/(z - \beta\lambda_i)$ with the exact $\langle y_i^2
# \rangle$ that `bmlab.spherical_moments(lam, beta)` returns from the eigenvalues alone. The
# eigenvalues below are a bulk spread over $[-2, 2]$ ($2\cos$ of evenly spaced angles, so
# densest near the edges) plus one outlier at 3.

# %%
N = 1000
lam = 2 * np.cos(np.pi * (np.arange(N - 1) + 0.5) / (N - 1))  # bulk on [-2, 2]
lam = np.append(lam, 3.0)  # one outlier
for beta in (0.25, 2.0):
    a = beta * lam
    z = brentq(lambda z, a=a: np.sum(1 / (z - a)) - N, a.max() + 1e-9, a.max() + 10)
    variance = 1 / (z - a)
    y2 = bmlab.spherical_moments(lam, beta)[1]
    bulk = np.abs(variance[:-1] / y2[:-1] - 1).max()
    print(
        f"beta = {beta}: z = {z:.2f}; bulk variances differ from <y_i^2> by at most "
        f"{100 * bulk:.2f} %; share of |x|^2 on the outlier: {y2[-1] / N:.2f}"
    )


# %% [markdown]
# At $\beta = 0.25$ every coordinate gets a little of $|x|^2$. At $\beta = 2$, $z$ has
# moved next to $\beta\lambda_\text{max}$, and one term of the sum, the outlier's, holds
# a finite fraction of $N$: the state has *condensed* onto the top eigenvector.
#
# ## 2 · Condensation
#
# Take the simplest coupling with a preferred direction, a rank-one $W = c\,uu^\top$ with a
# unit vector $u$, and follow the share $q = \langle (u \cdot x)^2\rangle/N$ as $\beta$
# grows. For large $N$ the equation for $z$ gives $q = 1 - 1/(\beta c)$ above $\beta c = 1$
# and $q = 0$ below: a phase transition. At finite $N$ it is smoothed out. We take $c = 1$,
# compute $q$ exactly at $N = 100$ and $N = 1000$, and compare with the exact sampler
# (`SphericalBM.sample`: rejection from an angular central Gaussian).

# %%
def share(n, beta, c=1.0):
    """Exact share of |x|^2 along the spike of W = c u u^T at size n (eigenvalues only)."""
    lam = np.zeros(n)
    lam[-1] = c
    return bmlab.spherical_moments(lam, beta)[1][-1] / n


betas = np.linspace(0.2, 3.0, 29)
curves = {n: np.array([share(n, b) for b in betas]) for n in (100, 1000)}
sampled_betas = (0.5, 1.0, 1.5, 2.0, 3.0)
exact = {(n, b): share(n, b) for n in (100, 1000) for b in sampled_betas}
limit = np.maximum(0.0, 1 - 1 / betas)
sampled = {}
for n, draws in ((100, 400), (1000, 100)):
    u = rng.normal(size=n)
    u /= np.linalg.norm(u)
    machine = bmlab.SphericalBM(np.outer(u, u))  # c = 1
    for b in sampled_betas:
        q_draws = (machine.sample(draws, beta=b, rng=rng) @ u) ** 2 / n
        sampled[n, b] = (q_draws.mean(), q_draws.std() / np.sqrt(draws))

print(" beta   exact N=100  sampled N=100   exact N=1000  sampled N=1000   N -> inf")
for b in sampled_betas:
    cells = []
    for n in (100, 1000):
        mean, err = sampled[n, b]
        cells += [f"{exact[n, b]:11.2f}", f"{mean:8.2f} ± {err:.3f}"]
    print(f"{b:5.1f}  " + "   ".join(cells) + f"   {max(0, 1 - 1 / b):8.2f}")
z_scores = [abs(sampled[key][0] - exact[key]) / sampled[key][1] for key in sampled]
print(f"largest deviation of a sampled share {max(z_scores):.1f} standard errors; every one "
      f"within 4: {max(z_scores) < 4}")

fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
ax.plot(betas, limit, color=bmlab.GRAY, ls="--", label=r"$N\to\infty$: $1 - 1/\beta$")
for n, ls, marker in ((100, ":", "s"), (1000, "-", "o")):  # navy exact, orange sampled
    ax.plot(betas, curves[n], color=bmlab.NAVY, ls=ls, lw=1.8, label=f"exact, N = {n}")
    means = [sampled[n, b][0] for b in sampled_betas]
    errs = [sampled[n, b][1] for b in sampled_betas]
    ax.errorbar(sampled_betas, means, errs, color=bmlab.ORANGE, marker=marker, ls="none",
                mfc="none" if n == 100 else bmlab.ORANGE, label=f"sampled, N = {n}")
ax.set_xlabel(r"inverse temperature $\beta$ (spike $c = 1$)")
ax.set_ylabel(r"share $q$ along the spike")
ax.set_title(r"condensation onto the top eigenvector of $W = uu^\top$")
ax.legend(loc="upper left")
bmlab.save_figure(fig, "fig06_condensation")
plt.show()

# %% [markdown]
# **What to look for:** below $\beta = 1$ the solid navy curve ($N = 1000$) hugs zero, above
# it it follows the dashed gray limit; the dotted one ($N = 100$) rounds the corner off; the
# orange sampled points (open squares $N = 100$, filled circles $N = 1000$) sit on their
# curves.
#
# How fast does the corner sharpen? At the critical point $\beta c = 1$ the share falls like
# $1/\sqrt N$:

# %%
for n in (100, 1000, 10_000):
    q = share(n, 1.0)
    print(f"N = {n:6d}: q at beta c = 1 is {q:.3f}, q sqrt(N) = {q * np.sqrt(n):.1f}")

# %% [markdown]
# ### Try it: condensation, live
#
# Move $\beta$ (the spike is $c = 1$; only $\beta c$ matters) or choose $N$, and watch the
# exact share (left, orange dot on the curve) and a histogram of the share $(u\cdot x)^2/N$
# of single samples (right). Below the transition the samples scatter near zero; above it
# they pile up around the exact $q$.

# %% tags=["nbval-ignore-output"]
panel = condensation_panel()
panel

# %% [markdown]
# ## 3 · Learning exactly
#
# Now the machine learns. A teacher $W^* = c^*\,uu^\top$ with $c^* = 3$ (condensed at
# $\beta = 1$) generates $K = 400$ data vectors in $N = 200$ dimensions. A rotation changes
# nothing (Section 1), so $u$ may as well be the last coordinate axis; then the teacher's
# eigenvectors, and so its samples, are exact on every computer. The log-likelihood of
# the data, $L(W) = \frac{\beta}{2}\langle x^\top W x\rangle_\text{data} - \log Z(W)$, has
# the gradient
#
# $$ \frac{\partial L}{\partial W} = \tfrac12\big(\langle xx^\top\rangle_\text{data} -
# \langle xx^\top\rangle_\text{model}\big) \qquad (\beta = 1), $$
#
# Eq. 5.4 again: data minus model. (The $\tfrac12$ appears because $W_{ij}$ and $W_{ji}$ are treated
# as separate entries here; for the pair as one coupling, as in Eq. 5.4, the two halves add up.)
# Here, unlike for $\pm1$ spins, the model term is exact for any $N$. Reference: the two moments in
# plain numpy against bmlab's gradient, and the slope of $L$ along a random direction by finite
# differences.

# %%
N, K, C_STAR = 200, 400, 3.0
u = np.eye(N)[-1]  # the teacher's direction: the last axis (any unit vector would do)
teacher = bmlab.SphericalBM(C_STAR * np.outer(u, u))
data = teacher.sample(K, rng=rng)
C_data = data.T @ data / K  # <x x^T>_data


def log_likelihood(W):
    """Mean log p(x) of the data at beta = 1 (relative to the uniform law)."""
    return 0.5 * np.einsum("ki,ij,kj->", data, W, data) / K - bmlab.SphericalBM(W).log_partition()


W_try = rng.normal(size=(N, N)) / np.sqrt(8 * N)
W_try = W_try + W_try.T + 2.0 * np.outer(u, u)  # some symmetric coupling matrix
grad_ref = 0.5 * (C_data - bmlab.SphericalBM(W_try).second_moment())
grad = bmlab.ExactSphericalGradient(data)({"W": W_try})["W"]
print(f"reference agrees with bmlab (gradient to 1e-10): {np.abs(grad - grad_ref).max() < 1e-10}")
E = rng.normal(size=(N, N))
E = (E + E.T) / 2  # a random symmetric direction
eps = 1e-4
slope = (log_likelihood(W_try + eps * E) - log_likelihood(W_try - eps * E)) / (2 * eps)
print("finite difference of L = gradient . direction (rel. 1e-3):",
      abs(slope - np.sum(grad * E)) < 1e-3 * abs(slope))

# %% [markdown]
# **Only differences of eigenvalues matter.** On the sphere
# $x^\top (W + cI)\,x = x^\top W x + cN$ for every $x$, so adding $cI$ to $W$ multiplies every
# Boltzmann weight by the same factor $e^{\beta cN/2}$: $\log Z$ grows by $\beta cN/2$ and
# $p(x)$ does not change. No data can tell $W$ from $W + cI$, and the gradient knows it: both
# moments have trace $N$ (every $x$ has $|x|^2 = N$), so the gradient has trace zero, and
# training from $W = 0$ keeps $\mathrm{tr}\,W = 0$. Below, $\log p$ of three data points under
# `W_try` and under `W_try` $+ \, 2.5\,I$.


# %%
def log_p(W, X):
    """log p(x) at beta = 1 for each row of X (relative to the uniform law)."""
    return 0.5 * np.einsum("ki,ij,kj->k", X, W, X) - bmlab.SphericalBM(W).log_partition()


shift = 2.5
before, after = log_p(W_try, data[:3]), log_p(W_try + shift * np.eye(N), data[:3])
print(f"log p, W     : {np.round(before, 2)}")
print(f"log p, W + cI: {np.round(after, 2)}  (c = {shift})")
print("the same to 1e-8:", np.abs(after - before).max() < 1e-8)
log_Z_gain = bmlab.SphericalBM(W_try + shift * np.eye(N)).log_partition() - (
    bmlab.SphericalBM(W_try).log_partition())
print(f"log Z grows by c N / 2 = {shift * N / 2:g} (to 1e-8):",
      abs(log_Z_gain - shift * N / 2) < 1e-8)
print("the gradient has trace zero (to 1e-8):", abs(np.trace(grad)) < 1e-8)

# %% [markdown]
# Training from $W = 0$ keeps $W$ diagonal in the eigenbasis $V$ of the data moment
# $\langle xx^\top\rangle_\text{data}$: the gradient is then diagonal there too. So we rotate
# the data once, $x \to V^\top x$, and train the $N$ eigenvalues $w_i$ of $W$ with
# `bmlab.train` (learning rate 0.03, momentum 0.9); `ExactSphericalGradient` accepts such a
# diagonal $W$ as a vector. We record the largest eigenvalue, the second largest (the top of
# the bulk) and the smallest.

# %%
c_data, V = np.linalg.eigh(C_data)
data_V = data @ V  # the data in the eigenbasis of its second moment
exact_gradient = bmlab.ExactSphericalGradient(data_V)
run = bmlab.train(
    {"W": np.zeros(N)},
    exact_gradient,
    n_steps=200,
    lr=0.03,
    momentum=0.9,
    metrics={
        "top": lambda p: np.sort(p["W"])[-1],
        "edge": lambda p: np.sort(p["W"])[-2],
        "bottom": lambda p: p["W"].min(),
    },
    record_every=5,
)
w_ml = run.params["W"]
u_V = V.T @ u  # the teacher's direction in the rotated coordinates
y2_ml = bmlab.spherical_moments(w_ml)[1]
print(f"largest |gradient| after 200 steps: {np.abs(exact_gradient({'W': w_ml})['W']).max():.2f}")
print(f"trace of W after 200 updates is zero (to 1e-8): {abs(w_ml.sum()) < 1e-8}")
print(f"top eigenvalue {w_ml.max():.1f}, top of the bulk {np.sort(w_ml)[-2]:.1f}, "
      f"bottom {w_ml.min():.1f}; gap from the top to the bulk {w_ml.max() - np.sort(w_ml)[-2]:.1f}")
print(f"share along u: teacher {u @ teacher.second_moment() @ u / N:.2f}, "
      f"data {u @ C_data @ u / N:.2f}, trained model {u_V**2 @ y2_ml / N:.2f}")
print(f"squared overlap of u with the top eigenvector of W: {u_V[np.argmax(w_ml)] ** 2:.2f}")
gap = np.subtract(run.history["top"], run.history["edge"])
at = {n: gap[run.history["step"] == n][0] for n in (100, 200)}
print(f"gap from the top to the bulk at update 100: {at[100]:.2f}, at update 200: {at[200]:.2f}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
steps = run.history["step"]
ax1.fill_between(steps, run.history["bottom"], run.history["edge"], color=bmlab.GRAY, alpha=0.4,
                 lw=0, label="bulk (all other eigenvalues)")
ax1.plot(steps, run.history["top"], color=bmlab.NAVY, label="top eigenvalue")
ax1.set_xlabel("update")
ax1.set_ylabel(r"eigenvalues $w_i$ of $W$")
ax1.set_title("training: one eigenvalue detaches")
ax1.legend(loc="lower left")
ax2.hist(np.sort(w_ml)[:-1], bins=30, color=bmlab.GRAY, label="bulk")
ax2.axvline(w_ml.max(), color=bmlab.NAVY, lw=2, label="top eigenvalue")
ax2.set_xlabel(r"eigenvalue $w_i$ after training")
ax2.set_ylabel("count")
ax2.set_title("the trained spectrum")
ax2.legend(loc="upper left")
plt.show()

# %% [markdown]
# **What to look for:** left, the navy line leaves the gray band within the first updates and
# stays above it; right, one navy line to the right of the gray histogram.
#
# The trained model puts the same share along $u$ as the data: the top eigenvector of $W$ lines up
# with the teacher (squared overlap printed above) and carries the condensed share. The eigenvalues
# printed are those of the traceless $W$ that training keeps; $W + cI$ is the same model, so only
# differences, such as the gap between the top eigenvalue and the top of the bulk, are properties
# of the trained model. After 200 updates the gradient is small but not zero: the lowest
# eigenvalues are still sinking (left panel) and, the trace held at zero, the rest of the
# spectrum drifts up with them; what has settled is the gap from the top eigenvalue to the
# bulk (printed at updates 100 and 200). We stop here, before the maximum of the likelihood:
# Sections 5 and 6 measure this model. The bulk is not zero: with $K = 2N$ samples, the data
# moment has eigenvalues scattered around their true value, and training copies that scatter
# into $W$. Sections 5 and 6 measure what that costs.
#
# ## 4 · Too few sampling steps: PCD
#
# In practice the model moment is not exact: PCD (notebook 05) estimates it from persistent
# chains, moved by $\nu$ Markov-chain steps per update (`PCDSphericalGradient(data, k=nu)`:
# bmlab calls the steps per update `k` for every machine, as in CD-$k$; heat-bath moves along
# random great circles of the sphere). A step turns $x$ towards a random
# direction, which has only a small component along the top eigenvector, so a chain needs
# many steps, more as $N$ grows, to change its share along it. We therefore use a smaller
# machine, $N = 50$ and $K = 200$ (same teacher strength), train with the exact gradient and
# with PCD at $\nu = 1, 4, 16$ (200 chains, one per data vector, learning rate 0.01), and
# follow the top eigenvalue and the share of the chains along the teacher.

# %%
N_PCD, K_PCD, STEPS_PCD = 50, 200, 200
u_s = np.eye(N_PCD)[-1]
small = bmlab.SphericalBM(C_STAR * np.outer(u_s, u_s)).sample(K_PCD, rng=rng)
_, V_s = np.linalg.eigh(small.T @ small / K_PCD)
small_V, u_sV = small @ V_s, V_s.T @ u_s
runs = {}
for nu in (None, 1, 4, 16):  # None: the exact gradient
    if nu is None:
        gradient = bmlab.ExactSphericalGradient(small_V)
    else:
        gradient = bmlab.PCDSphericalGradient(small_V, k=nu)
    chains = {"overlap": lambda p, g=gradient: (
        np.mean((g.X @ u_sV) ** 2) / N_PCD if getattr(g, "X", None) is not None else np.nan)}
    runs[nu] = bmlab.train({"W": np.zeros(N_PCD)}, gradient, n_steps=STEPS_PCD, lr=0.01,
                           momentum=0.9, rng=rng, record_every=2,
                           metrics={"top": lambda p: p["W"].max(), **chains})
exact_top = runs[None].history["top"]
late = runs[None].history["step"] > 130
for nu in (1, 4, 16):
    top, overlap = runs[nu].history["top"], runs[nu].history["overlap"]
    overshoot = top.max() > 2 * exact_top.max()
    swings = np.ptp(overlap[late]) > 0.3
    print(f"nu = {nu:2d}: top eigenvalue overshoots twice the exact run's maximum: {overshoot}; "
          f"chain share swings by more than 0.3 in the last 70 updates: {swings}; "
          f"final top eigenvalue {top[-1]:.1f}")
print(f"exact gradient: final top eigenvalue {exact_top[-1]:.1f}")
largest_trace = max(abs(r.params["W"].sum()) for r in runs.values())
print(f"every run ends with tr W = 0 (to 1e-8): {largest_trace < 1e-8}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9.6, 3.4), layout="constrained")
styles = {None: (bmlab.NAVY, "-", 2.5, "exact gradient"),  # PCD: orange, one style per nu
          1: (bmlab.ORANGE, ":", 1.8, r"PCD, $\nu = 1$"),
          4: (bmlab.ORANGE, "--", 1.4, r"PCD, $\nu = 4$"),
          16: (bmlab.ORANGE, "-", 1.4, r"PCD, $\nu = 16$")}
for nu, (color, ls, lw, label) in styles.items():
    h = runs[nu].history
    ax1.plot(h["step"], h["top"], color=color, ls=ls, lw=lw, label=label)
    if nu is not None:
        ax2.plot(h["step"], h["overlap"], color=color, ls=ls, lw=lw, label=label)
ax1.set_yscale("log")
ax1.set_ylim(0.5, None)
ax1.set_xlabel("update")
ax1.set_ylabel("top eigenvalue of $W$")
ax1.set_title("learned top eigenvalue")
teacher_line = ax2.axhline(1 - 1 / C_STAR, color=bmlab.GRAY, ls="--", lw=1.5,
                           label="teacher's share")
ax2.set_xlabel("update")
ax2.set_ylabel("share of the chains along $u$")
ax2.set_title("what the chains see")
fig.legend(handles=ax1.get_legend_handles_labels()[0] + [teacher_line], loc="outside right upper")
plt.show()

# %% [markdown]
# **What to look for:** the navy exact run climbs, overshoots once (the momentum) and
# settles; the dotted ($\nu = 1$) and dashed ($\nu = 4$) orange runs overshoot several
# times over and keep swinging, their chains jumping between the condensed state and no
# condensation at all; the solid orange run ($\nu = 16$) swings less and ends near the
# exact one. Every run ends with $\mathrm{tr}\,W = 0$ (Section 3; printed above), so their
# eigenvalues can be compared.
#
# What goes wrong: when the chains have not yet condensed, the model term lacks the top
# share, so the gradient keeps raising the top eigenvalue; by the time the slow chains
# condense, $W$ has overshot far beyond the exact solution, and the gradient turns and
# drives it down until the chains fall out of the condensed state again. At this size and
# learning rate, too few steps give repeated swings within 200 updates rather than a fixed
# biased state; the paper's large-$N$ analysis finds a biased stationary state below a
# critical $\nu$. Either way, a model trained with too few steps is not the
# maximum-likelihood model, and its own chains tell a wrong story about it.

# %% [markdown]
# ## 5 · The sampling temperature after training
#
# A trained model is often sampled at an inverse temperature $\beta \ne 1$. With exact $\log
# Z$ we can ask how good that is, by the exact KL divergence of the model at $\beta$ from the
# teacher,
#
# $$ \mathrm{KL}(p^* \,\|\, p_\beta) = \tfrac12\langle x^\top W^* x\rangle_* - \log Z^* -
# \tfrac\beta2 \langle x^\top W x\rangle_* + \log Z(\beta W), $$
#
# where $\langle\cdot\rangle_*$ is the average over the teacher's law. bmlab gives the
# teacher's second moment exactly, so $\langle x^\top W x\rangle_* = \mathrm{tr}(W\langle
# xx^\top\rangle_*)$ is exact too. Check by Monte Carlo on teacher samples first, then scan
# $\beta$ for the model of Section 3.

# %%
log_Z_star, y2_star = bmlab.spherical_moments(teacher.lam)
M_star = teacher.second_moment()  # <x x^T> of the teacher


def teacher_diagonal(basis):
    """The diagonal of the teacher's <x x^T> in the coordinates of ``basis`` (columns)."""
    return np.einsum("ij,ik,jk->k", M_star, basis, basis)


M_star_V = teacher_diagonal(V)  # in the data basis of Section 3
energy_star = 0.5 * C_STAR * (u @ M_star @ u)  # <x^T W* x> / 2 under the teacher


def kl_teacher(w, beta=1.0, M_diag=M_star_V):
    """KL(teacher || model W = V diag(w) V^T at beta), exact, in nats; ``M_diag`` is the
    teacher's <x x^T> in the basis V (by default that of Section 3)."""
    cross = 0.5 * beta * (w @ M_diag) - bmlab.spherical_moments(w, beta)[0]
    return energy_star - log_Z_star - cross


X_star = teacher.sample(2000, rng=rng)
log_ratio = (0.5 * C_STAR * (X_star @ u) ** 2 - log_Z_star) - (
    0.5 * ((X_star @ V) ** 2 @ w_ml) - bmlab.spherical_moments(w_ml)[0])
mc, mc_err = log_ratio.mean(), log_ratio.std() / np.sqrt(len(log_ratio))
print(f"Monte Carlo KL {mc:.2f} ± {mc_err:.2f}, exact {kl_teacher(w_ml):.2f}: within 4 standard "
      f"errors: {abs(mc - kl_teacher(w_ml)) < 4 * mc_err}")

beta_scan = np.linspace(0.4, 1.6, 25)
kl_scan = np.array([kl_teacher(w_ml, b) for b in beta_scan])
best = beta_scan[np.argmin(kl_scan)]
print(f"KL at beta = 1: {kl_teacher(w_ml):.1f} nats; smallest KL {kl_scan.min():.1f} nats "
      f"at beta = {best:.1f}")
share_best = u_V**2 @ bmlab.spherical_moments(w_ml, best)[1] / N
print(f"share along u at beta = {best:.1f}: {share_best:.2f} (teacher: {1 - 1 / C_STAR:.2f})")
print(f"KL of the uniform law (W = 0): {kl_teacher(np.zeros(N)):.0f} nats")
w_flat = np.full(N, np.sort(w_ml)[:-1].mean())  # every bulk eigenvalue set to the bulk's mean
w_flat[np.argmax(w_ml)] = w_ml.max()  # the top eigenvalue kept
share_flat = u_V**2 @ bmlab.spherical_moments(w_flat)[1] / N
print(f"KL at beta = 1 with the bulk's scatter removed: {kl_teacher(w_flat):.1f} nats "
      f"(share along u {share_flat:.2f})")

fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
ax.plot(beta_scan, kl_scan, color=bmlab.NAVY)
ax.axvline(1.0, color=bmlab.GRAY, ls="--", lw=1)
ax.plot([best], [kl_scan.min()], "o", color=bmlab.NAVY, ms=8, label="smallest KL on the grid")
ax.legend(loc="upper left")
ax.set_xlabel(r"sampling inverse temperature $\beta$")
ax.set_ylabel(r"$\mathrm{KL}(p^*\,\|\,p_\beta)$, nats")
ax.set_title("the model of Section 3, sampled at other temperatures")
plt.show()


# %% [markdown]
# **What to look for:** the minimum (the dot) lies left of the dashed line at $\beta = 1$.
#
# Sampling this model *hotter* than it was trained ($\beta < 1$) brings it closer to the
# teacher. Most of its KL at $\beta = 1$ is the scatter in the bulk of Section 3, where
# training fitted the sampling noise of 400 data vectors: every bulk eigenvalue set to the
# bulk's mean with the top eigenvalue kept lowers the KL from 24.7 to the value printed
# last, though the share along $u$ then overshoots the teacher's (printed beside it), so
# part of what remains is over-condensation. A smaller $\beta$ scales that scatter down
# together with everything else. The top eigenvalue, above the bulk, keeps the model
# condensed, at a price: its share along $u$ falls to 0.52, below the teacher's 0.67. Near
# the best $\beta$ the two effects balance. The paper describes both directions, by
# other mechanisms: $\beta < 1$ helps a model that has condensed along a wrong direction, and
# $\beta > 1$ helps one whose aligned mode is not yet condensed.
#
# ## 6 · A weight penalty, and the search for double descent
#
# The other cure for fitted noise is a penalty: maximise $L(W) - \frac\gamma2\|W\|^2$, that is,
# train with weight decay $\gamma$ (`bmlab.train(..., weight_decay=gamma)`). The paper reports that
# the KL against $\gamma$ can fall, rise to a peak where the condensed state disappears, and fall
# again: *double descent*. Its curve is for the reverse divergence, $\mathrm{KL}(p_W\,\|\,
# p^*)$, the average over the *model's* law of $\log p_W - \log p^*$; we keep
# $\mathrm{KL}(p^*\,\|\,p_W)$ of Section 5, the average over the teacher's law. We scan $\gamma$
# from strong to weak, each run starting from the previous one's $W$ (60 updates each, the
# learning rate shrinking as $1/\gamma$ at strong penalties to keep the ascent stable): a
# fixed budget that stops short of the exact maximum of the penalised likelihood. Two data sets: the
# $K = 400$ vectors of Section 3, and $K = 100$ fresh ones, fewer than the $N = 200$
# dimensions (the undersampled regime of the paper).

# %%
def penalty_sweep(X, gammas):
    """KL from the teacher and share along u after 60 updates towards the MAP W, for each
    penalty, warm-started."""
    _, basis = np.linalg.eigh(X.T @ X / len(X))
    gradient = bmlab.ExactSphericalGradient(X @ basis)
    M_diag, along_u = teacher_diagonal(basis), (basis.T @ u) ** 2
    w, kls, shares = np.zeros(N), [], []
    for gamma in gammas:
        w = bmlab.train({"W": w}, gradient, n_steps=60, lr=min(0.03, 0.5 / gamma),
                        momentum=0.9, weight_decay=gamma).params["W"]
        kls.append(kl_teacher(w, M_diag=M_diag))
        shares.append(along_u @ bmlab.spherical_moments(w)[1] / N)
    return np.array(kls), np.array(shares)


gammas = np.geomspace(100, 0.01, 13)
fewer = teacher.sample(100, rng=rng)  # K = 100 < N
sweeps = {k: penalty_sweep(X, gammas) for k, X in ((400, data), (100, fewer))}
print(" gamma   KL (K=400)  share   KL (K=100)  share")
for i, gamma in enumerate(gammas):
    row = [f"  {sweeps[k][0][i]:9.1f}   {sweeps[k][1][i]:.2f}" for k in sweeps]
    print(f"{gamma:6.2f}" + "".join(row))
for k, (kl_gamma, _) in sweeps.items():
    i_min = np.argmin(kl_gamma)
    one = np.all(np.diff(kl_gamma[: i_min + 1]) < 0) and np.all(np.diff(kl_gamma[i_min:]) > 0)
    print(f"K = {k}: one minimum (KL falls, then rises, as gamma decreases): {one}")

fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(6, 4.8), sharex=True, layout="constrained")
for k, color, marker in ((400, bmlab.NAVY, "o"), (100, bmlab.ORANGE, "s")):
    ax1.plot(gammas, sweeps[k][0], marker=marker, color=color, label=f"K = {k}")
    ax2.plot(gammas, sweeps[k][1], marker=marker, color=color, label=f"K = {k}")
ax1.set_yscale("log")
ax1.set_ylabel("KL, nats")
ax1.set_title(r"penalty $\gamma$: KL from the teacher and condensation")
ax1.legend(loc="upper center")
ax2.set_ylabel(r"share $q$ along $u$")
ax2.set_xscale("log")
ax2.set_xlabel(r"L2 penalty $\gamma$ (weight decay)")
plt.show()

# %% [markdown]
# **What to look for:** one valley in each KL curve (top) and no second one; below, the
# condensed share dies out at the strongest penalties, with no bump in the KL where it does.
#
# At these sizes we see **no double descent**, with 400 samples or with 100, only the
# familiar U: too strong a penalty keeps $W$ near zero (the uniform law, far from the
# teacher), too weak a one fits the noise, and more so with fewer samples. Why: weight decay
# finds the single most probable $W$ (the MAP estimate under a Gaussian prior). The paper's
# double descent is a property of $W$ drawn from a posterior at finite temperature, whose
# fluctuations near the condensation transition produce the peak; it reports that the
# effect vanishes in the MAP limit, which is what `bmlab.train` approaches. Here, as $\gamma$
# falls from 100, the share along $u$ rises smoothly from zero and the KL falls with it, with
# no peak where condensation sets in. [Notebook 06b](06b_spherical_posterior.ipynb) samples
# that posterior: there a weak peak appears for warm posteriors only, gone long before the
# MAP limit (its Section 4).

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. The worked solutions are in a notebook of their own,
# [solutions/06_solutions.ipynb](solutions/06_solutions.ipynb):
# open it after you have tried.
#
# **1 · The circle.** At $N = 2$ the sphere is the circle $x = \sqrt2(\cos\varphi,
# \sin\varphi)$. For $W = \mathrm{diag}(1, -1)$ and $\beta = 1$, write $x^\top W x$ as a
# function of $\varphi$ and find $\log Z$ in closed form (a Bessel function), then check it
# with `bmlab.SphericalBM`. *Your answer:* $\log Z$, to 3 decimals.
# [worked solution](solutions/06_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # log Z at N = 2, W = diag(1, -1), beta = 1, to 3 decimals
bmlab.check("06.1", my_answer)

# %% [markdown]
# **2 · Finite size.** For a rank-one $W = 4\,uu^\top$ at $\beta = 1$ the large-$N$ share
# along $u$ is $1 - 1/4$. What is the exact share at $N = 100$? Use
# `bmlab.spherical_moments` with the eigenvalues of $W$. *Your answer:* $q$ at $N = 100$,
# to 3 decimals.
# [worked solution](solutions/06_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # exact share along u at N = 100, c = 4, beta = 1, to 3 decimals
bmlab.check("06.2", my_answer)

# %% [markdown]
# **3 · How far is the uniform law?** Section 5 printed the KL of the uniform law from the
# teacher at $N = 200$. Compute it for the teacher $W^* = 3\,uu^\top$ at $N = 1000$
# (no data needed: the teacher's exact moments are enough). Roughly how does it grow
# with $N$? *Your answer:* $\mathrm{KL}(p^*\,\|\,\text{uniform})$ at $N = 1000$ in nats,
# to 1 decimal.
# [worked solution](solutions/06_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # KL(teacher || uniform) at N = 1000, c* = 3, in nats, to 1 decimal
bmlab.check("06.3", my_answer)

# %% [markdown]
# ## Summary
#
# - On the sphere $|x|^2 = N$, $Z$ of $E(x) = -\frac12 x^\top W x$ depends only on the
#   eigenvalues of $W$; one Lagrange multiplier enforces the constraint, and bmlab evaluates
#   $\log Z$ and $\langle xx^\top\rangle$ exactly at any $N$ (Section 1).
# - Above $\beta c = 1$ a finite share of $|x|^2$ condenses onto the top eigenvector; the
#   transition sharpens as $N$ grows (Section 2).
# - The gradient is Eq. 5.4 again, data minus model; maximum likelihood on data from a
#   rank-one teacher grows one eigenvalue out of the bulk and copies the data's noise into
#   the bulk; $W$ and $W + cI$ give the same law, so training keeps $\mathrm{tr}\,W = 0$ and
#   only differences of eigenvalues mean anything (Section 3).
# - PCD with too few steps per update overshoots the top eigenvalue and, at this size,
#   keeps swinging instead of settling (Section 4).
# - Sampling the trained model hotter lowers its KL from the teacher (Section 5);
#   an L2 penalty gives one optimum and, at the MAP estimate, no double descent (Section 6).
#
# ## References
#
# - The lecture, Chapter 5: Eq. 5.1 (the energy) and Eq. 5.4 (the gradient, data minus
#   model); Section 5.8 announces contrastive divergence, and notebook 05 covers PCD.
# - T. Tulinski, S. Cocco, R. Monasson, J. Fernandez-De-Cossio-Diaz, "Spherical Boltzmann
#   machines: a solvable theory of learning and generation in energy-based models" (2026;
#   summary in `../shared/lecture/`): the model, condensation, the out-of-equilibrium bias of
#   PCD, sampling temperature and double descent.
# - J. M. Kosterlitz, D. J. Thouless, R. C. Jones, "Spherical model of a spin-glass",
#   *Physical Review Letters* (1976): the spherical constraint and its Lagrange
#   multiplier.
# - J. T. Kent, A. M. Ganeiber, K. V. Mardia, "A new unified approach for the simulation of a
#   wide class of directional distributions", *Journal of Computational and Graphical
#   Statistics* (2018): the rejection sampler behind `SphericalBM.sample`.
