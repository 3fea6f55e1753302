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
# # 03 · The maximum-likelihood gradient: two forces, a trap, and a duality
#
# Companion to Sections 5.2, 5.4, 5.5 and 5.8 of the lecture (Figures 5.1 and 5.2). We fit a
# fully visible Boltzmann machine (±1 spins, energy Eq. 5.1, $\beta = 1$) to data by climbing
# the average log-likelihood
#
# $$L(J,\theta) = \langle \log p(s)\rangle_\text{data} = \langle -E(s)\rangle_\text{data} - \log Z
# .$$
#
# In Sections 1 to 8 every number is checked against exact enumeration: with $N \le 10$ spins
# there are at most $2^{10}$ states, so $Z$, the model moments and even the Hessian are cheap.
#
# **What this notebook teaches**
#
# 1. data from a teacher machine and from a tiny set of letters (Section 1);
# 2. the gradient, Eq. 5.4, written out in numpy, exact and sampled, and a training curve
#    (Section 2);
# 3. moment matching at the optimum, Eq. 5.6 (Section 3);
# 4. why there are no local maxima: the Hessian is minus a covariance (Section 4);
# 5. what a sampled negative phase costs, and where its bias comes from (Section 5);
# 6. the trap of Section 5.5: a frozen or a wrong negative phase (Section 6);
# 7. maximum entropy, and the likelihood as its dual (Section 7);
# 8. memorizing (Hebb) versus learning, and the two forces, wake and sleep, of Figures 5.1
#    and 5.2 (Section 8);
# 9. how many patterns Hebb's couplings and learned couplings can hold (Section 9);
# 10. why score matching, the outlook of Section 5.8, needs no $Z$ (Section 10).
#
# **What it assumes**
#
# - the energy of Eq. 5.1, the Boltzmann distribution and Glauber dynamics (notebook 01);
# - exact enumeration of all $2^N$ states and the negative phase as a sum (notebook 02);
# - calculus: gradient, Hessian, concavity; numpy arrays and broadcasting.
#
# Parameters are a dict `{"J": (N, N) symmetric with zero diagonal, "theta": (N,)}`.

# %% [markdown]
# > **Notation.** Every unit is a spin $s_i=\pm1$ (notebook 05 switches to $\{0,1\}$ units with
# > biases $a, b$). $J_{ij}=J_{ji}$ couples spins $i$ and $j$ ($J_{ii}=0$) and $\theta_i$ is the
# > bias of spin $i$; there are no hidden units, so $h_i$ is always a local field, the pull
# > $\sum_j J_{ij}s_j+\theta_i$ on spin $i$. $m_i=\langle s_i\rangle$ and
# > $C_{ij}=\langle s_is_j\rangle$ are first and second moments, averaged over the data or over
# > the model as the subscript says; $C'$ is $C$ with its diagonal set to zero. $\eta$ is the
# > learning rate (`lr` in code). $L_D$ is the dual function of Section 7 and
# > $\xi^\mu$ the $\mu$-th stored pattern of Sections 8 and 9. States are listed in the order
# > of `bmlab.all_states` (row $c$: $s_i=+1$ exactly when bit $i$ of $c$ is 1), as in every
# > notebook. Colours: navy is exact (the exact gradient and the model it fits), orange is
# > sampled (the data, and fresh chains' estimates), gray marks references, and every other
# > algorithm keeps one colour of its own throughout (`COLORS` below).

# %%
# On Colab or a fresh kernel without bmlab, install it first (does nothing where it is installed).
import importlib.util

BMLAB_REPO = "git+https://github.com/OWNER/bmlab"  # placeholder: the project's public repository
if importlib.util.find_spec("bmlab") is None:
    from IPython import get_ipython

    get_ipython().run_line_magic("pip", f"install -q {BMLAB_REPO}")

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
from scipy.integrate import quad
from scipy.optimize import linprog, minimize_scalar

import bmlab
from bmlab.data import letters_3x3, noisy_copies
from bmlab.plotting import EXTRA
from bmlab.visible import VisibleGradient, visible_log_likelihood, visible_newton_fit

bmlab.use_style()
SEED = 2024
rng = np.random.default_rng(SEED)
COLORS = {  # one colour per algorithm in every figure below; gray marks references
    "exact": bmlab.NAVY,  # the exact gradient (ascent or Newton) and the model it fits
    "fresh chains": bmlab.ORANGE,
    "persistent chains": EXTRA[0],
    "frozen": EXTRA[1],
    "Hebb": EXTRA[2],
    "perceptron": EXTRA[3],
}

# %% [markdown]
# ## 1 · Data: a strongly coupled teacher and a set of tiny letters
#
# The teacher has $N = 10$ spins, ferromagnetic couplings on top of random ones and weak
# biases. Its distribution has two heavy modes (mostly up / mostly down), which is what makes
# it hard for a local sampler. We draw $D = 1000$ configurations from it *exactly* (by
# enumeration, `bmlab.sample_exact`), so the data are a perfect sample.


# %%
def random_machine(n, *, J_mean=0.0, J_std=1.0, theta_std=0.0, rng):
    """J_ij = J_mean/N + J_std g_ij/sqrt(N) with g_ij = g_ji standard normal;
    theta_i = theta_std g_i."""
    G = np.triu(rng.standard_normal((n, n)), 1)
    J = J_mean / n + J_std * (G + G.T) / np.sqrt(n)
    np.fill_diagonal(J, 0.0)
    return {"J": J, "theta": theta_std * rng.standard_normal(n)}


N = 10
iu = np.triu_indices(N, 1)  # the pairs i < j
teacher = random_machine(N, J_mean=2.5, J_std=0.5, theta_std=0.1, rng=rng)
S = bmlab.sample_exact(teacher["J"], teacher["theta"], n_samples=1000, rng=rng)
m_data, C_data = S.mean(axis=0), S.T @ S / len(S)
print("data: D =", S.shape[0], "configurations of N =", S.shape[1], "spins")
print("<s_i>_data     :", np.round(m_data, 2))
print(
    f"<s_i s_j>_data : min {C_data[iu].min():.2f}, mean {C_data[iu].mean():.2f}, "
    f"max {C_data[iu].max():.2f}"
)
print(
    "fraction of configurations with |magnetization| >= 0.8: "
    f"{np.mean(np.abs(S.sum(axis=1)) >= 8):.2f}"
)

# %% [markdown]
# The second data set is structured: four letters on a $3\times 3$ grid ($N = 9$), each
# copied 30 times with 8% of the pixels flipped.

# %%
letters = letters_3x3("TLXO")
S_letters = noisy_copies(letters, 30, 0.08, rng=rng)
m_let, C_let = S_letters.mean(axis=0), S_letters.T @ S_letters / len(S_letters)

fig, axes = plt.subplots(2, 8, figsize=(8, 2.4))
for j, ax in enumerate(axes[0, :4]):
    ax.imshow(letters[j].reshape(3, 3), cmap="gray_r", vmin=-1, vmax=1)
    ax.set_title("TLXO"[j])
for j, ax in enumerate(axes[1, :4]):
    ax.imshow(S_letters[30 * j + 1].reshape(3, 3), cmap="gray_r", vmin=-1, vmax=1)
axes[0, 4].imshow(C_data, vmin=-1, vmax=1)
axes[0, 4].set_title("teacher data\n" + r"$\langle s_i s_j\rangle$", fontsize=8)
axes[1, 4].imshow(C_let, vmin=-1, vmax=1)
axes[1, 4].set_title(r"letters $\langle s_i s_j\rangle$", fontsize=8)
for ax in axes.ravel():
    ax.set_xticks([])
    ax.set_yticks([])
for ax in list(axes[0, 5:]) + list(axes[1, 5:]):
    ax.axis("off")
axes[1, 0].set_ylabel("noisy copy", fontsize=8)
plt.show()

# %% [markdown]
# **What to look for:** in the two small matrices red is positive, blue negative and white
# zero. The teacher's matrix is nearly uniform and deep red (all pairs aligned); the letters'
# one has structure: pixels that are black in the same letters are positively correlated,
# pixels that differ in most letters negatively, and some pairs hardly at all.

# %% [markdown]
# ## 2 · The learning rule, Eq. 5.4
#
# The gradient is the data moment minus the model moment, for every pair and every spin.
# Here it is in plain numpy: the positive phase is an average over the data, the negative
# phase an average over all $2^N$ states weighted by $p(s) = e^{-E(s)}/Z$ (Eq. 5.5). One
# ascent step adds $\eta$ times it. We compare it with bmlab's `VisibleGradient(S)` at a
# random parameter point.


# %%
def energy(s, J, theta):
    return -0.5 * np.einsum("ci,ij,cj->c", s, J, s) - s @ theta  # Eq. 5.1


def gradient_by_enumeration(params, S):
    J, theta = params["J"], params["theta"]
    states = bmlab.all_states(len(theta)).astype(float)  # all 2^N configurations
    w = np.exp(-energy(states, J, theta))
    p = w / w.sum()  # p(s) = e^{-E(s)} / Z
    positive_J, positive_theta = S.T @ S / len(S), S.mean(axis=0)  # <s_i s_j>, <s_i> data
    negative_J, negative_theta = states.T @ (p[:, None] * states), p @ states  # Eq. 5.5
    dJ = positive_J - negative_J
    np.fill_diagonal(dJ, 0.0)  # J_ii is no parameter
    return {"J": dJ, "theta": positive_theta - negative_theta}


params = random_machine(N, J_std=0.5, theta_std=0.3, rng=rng)
g_ref = gradient_by_enumeration(params, S)
eta = 0.1
stepped = {key: params[key] + eta * g_ref[key] for key in params}  # one ascent step
raised = visible_log_likelihood(stepped, S) > visible_log_likelihood(params, S)
print(f"one step with eta = {eta} raises L: {raised}")
g_bm = VisibleGradient(S)(params)
difference = max(np.abs(g_ref[key] - g_bm[key]).max() for key in g_ref)
print(f"reference agrees with bmlab (max difference < 1e-10): {difference < 1e-10}")

# %% [markdown]
# The pair $(J_{ij}, J_{ji})$ is *one* parameter and the diagonal is none, so a machine on $N$
# spins has $P = N(N-1)/2 + N$ free numbers $u = (J_{ij}\ (i<j),\ \theta_i)$. In these
# coordinates Eq. 5.4 is the true derivative of $L$: a centred finite difference of the exact
# $L$ along each of the $P = 55$ coordinates agrees with it.


# %%
def pack(params):
    n = len(params["theta"])
    return np.concatenate([params["J"][np.triu_indices(n, 1)], params["theta"]])


def unpack(u, n):
    J = np.zeros((n, n))
    J[np.triu_indices(n, 1)] = u[: n * (n - 1) // 2]
    return {"J": J + J.T, "theta": u[n * (n - 1) // 2 :]}


def L_of(u, n, data):
    return visible_log_likelihood(unpack(u, n), data)


u0, h = pack(params), 1e-5
fd = np.array(
    [(L_of(u0 + h * e, N, S) - L_of(u0 - h * e, N, S)) / (2 * h) for e in np.eye(u0.size)]
)
print("P =", u0.size, "parameters")
print("Eq. 5.4 agrees with finite differences to 1e-7:", bool(np.abs(pack(g_bm) - fd).max() < 1e-7))

# %% [markdown]
# **The sampled negative phase.** For large $N$ the sum over states is out of reach; instead
# we run `n_chains` Glauber chains (the heat-bath update of Eq. 5.2, notebook 01) for $k$
# sweeps from random starts and average over their final states. Written out, next to
# bmlab's vectorised `VisibleGradient(S, method="glauber")`: both are the *same* random
# algorithm, so each of the 55 components of their difference has mean zero, whatever $k$.
# We check that with z-scores (independent draws, 4000 chains each, $k = 2$); the threshold
# $|z| < 4.5$ is crossed by chance with probability below $4 \times 10^{-4}$ over 55 components.


# %%
def gradient_by_glauber(params, S, *, n_chains, k, rng):
    J, theta = params["J"], params["theta"]
    s = rng.choice([-1.0, 1.0], size=(n_chains, len(theta)))  # random starts
    for _ in range(k):  # k sweeps
        for i in range(len(theta)):  # sites in order
            field = s @ J[i] + theta[i]  # local field h_i
            up = rng.random(n_chains) < 1 / (1 + np.exp(-2 * field))  # heat bath, Eq. 5.2
            s[:, i] = np.where(up, 1.0, -1.0)
    dJ = S.T @ S / len(S) - s.T @ s / n_chains  # data minus chains
    np.fill_diagonal(dJ, 0.0)
    return {"J": dJ, "theta": S.mean(axis=0) - s.mean(axis=0)}, s


check_rng = np.random.default_rng(SEED + 1)
g_ref, s_ref = gradient_by_glauber(params, S, n_chains=4000, k=2, rng=check_rng)
g_bm = VisibleGradient(S, method="glauber", n_chains=4000, k=2)(params, check_rng)
phi_ref = np.concatenate([s_ref[:, iu[0]] * s_ref[:, iu[1]], s_ref], axis=1)  # per chain
standard_error = np.sqrt(2 * phi_ref.var(axis=0) / 4000)
z = np.abs(pack(g_ref) - pack(g_bm)) / standard_error
chance = 55 * math.erfc(4.5 / math.sqrt(2))  # P(some |z| > 4.5) <= 55 P(|z| > 4.5)
print(f"chance that some |z| of 55 exceeds 4.5 by luck: below {chance:.1e}")
print(
    f"reference agrees with bmlab (max |z| = {z.max():.2f} < 4.5 over 55 components): "
    f"{z.max() < 4.5}"
)

# %% [markdown]
# From here on bmlab's version does the work. Gradient ascent from $J = 0, \theta = 0$ with
# the training loop `bmlab.train` (the same loop notebooks 04 and 05 use); the metric
# recorded along the way is the exact $L$.


# %%
def L_teacher(p):
    return visible_log_likelihood(p, S)


zero = {"J": np.zeros((N, N)), "theta": np.zeros(N)}
exact = VisibleGradient(S)
sgd = bmlab.train(zero, exact, n_steps=300, lr=0.1, record_every=5, metrics={"L": L_teacher})
print(f"L at the start: {sgd.history['L'][0]:.4f}  (= -N log 2 = {-N * np.log(2):.4f})")
print(f"L after 300 steps: {sgd.history.last('L'):.4f}")
print("L rose at every recorded step:", bool(np.all(np.diff(sgd.history["L"]) > 0)))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3), layout="constrained")
ax1.plot(sgd.history["step"], sgd.history["L"], color=COLORS["exact"])
ax1.set_xlabel("update")
ax1.set_ylabel("L (nats)")
ax1.set_title("log-likelihood rises")
ax2.semilogy(sgd.history["step"], sgd.history["grad_norm"], color=COLORS["exact"])
ax2.set_xlabel("update")
ax2.set_ylabel("gradient norm")
ax2.set_title("gradient norm falls")
plt.show()

# %% [markdown]
# **What to look for:** $L$ rises fast at first and then flattens while the gradient norm keeps
# falling steadily: plain ascent crawls along flat directions near the optimum.

# %% [markdown]
# ## 3 · Moment matching at the optimum, Eq. 5.6
#
# Plain gradient ascent slows down along flat directions. Because we have the exact Hessian
# (next section), `visible_newton_fit` climbs with Newton steps $\Delta u = -H^{-1}\nabla L$,
# which converge quadratically, halving a step whenever it would lower $L$.

# %%
fit = visible_newton_fit(S)
print("converged, gradient norm < 1e-8:", bool(np.linalg.norm(pack(exact(fit))) < 1e-8))
print(
    f"L at the optimum: {L_teacher(fit):.4f}   "
    f"L of the teacher on the same data: {L_teacher(teacher):.4f}"
)
m_fit, C_fit = bmlab.exact_moments(fit["J"], fit["theta"])
print(
    "model moments (all 10 means and 45 pairs) equal data moments to 1e-8:",
    bool(max(np.abs(m_fit - m_data).max(), np.abs(C_fit - C_data).max()) < 1e-8),
)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3.4), layout="constrained")
near = [C_data[iu].min() - 0.01, C_data[iu].max() + 0.01]  # zoom on the data's pair moments
ax1.plot(near, near, color=bmlab.GRAY, lw=1)
ax1.scatter(C_data[iu], C_fit[iu], s=14, color=bmlab.NAVY)
ax1.set_xlim(near)
ax1.set_ylim(near)
ax1.set_xlabel(r"data $\langle s_i s_j\rangle$")
ax1.set_ylabel(r"model $\langle s_i s_j\rangle$")
ax1.set_title("Eq. 5.6: pair moments match")
lim = 1.1 * max(np.abs(teacher["J"]).max(), np.abs(fit["J"]).max())
ax2.plot([-lim, lim], [-lim, lim], color=bmlab.GRAY, lw=1)
ax2.scatter(teacher["J"][iu], fit["J"][iu], s=14, color=bmlab.NAVY)
ax2.set_xlabel(r"teacher $J_{ij}$")
ax2.set_ylabel(r"learned $J_{ij}$")
ax2.set_title("couplings: learned vs teacher")
plt.show()
print(
    f"largest |learned - teacher| coupling: {np.abs(fit['J'] - teacher['J']).max():.2f} "
    "(finite data: D = 1000)"
)

# %% [markdown]
# **What to look for:** left (zoomed on the narrow range of the data's pair moments), every
# pair on the diagonal (Eq. 5.6; the ten means match too, as printed); right, a visible scatter
# about the diagonal.

# %% [markdown]
# The moments match to machine precision, but the couplings differ from the teacher's: the
# fit maximizes the likelihood of *these* 1000 samples, and a finite sample's moments are not
# the teacher's moments. With more data the two would converge (exercise 4).
#
# ## 4 · Concavity: no local maxima
#
# Differentiating Eq. 5.4 once more gives the Hessian. In the $P$ coordinates it is minus the
# covariance matrix of the sufficient statistics $\phi(s) = (s_i s_j\ (i<j),\ s_i)$ under the
# model, so no eigenvalue can be positive and $L$ is concave. We check it against finite
# differences of the exact gradient.


# %%
def hessian(params):
    n = len(params["theta"])
    states = bmlab.all_states(n).astype(float)
    pairs = np.triu_indices(n, 1)
    phi = np.concatenate([states[:, pairs[0]] * states[:, pairs[1]], states], axis=1)
    p = bmlab.boltzmann_probs(params["J"], params["theta"])
    X = phi - p @ phi  # centred sufficient statistics
    return -(X.T @ (X * p[:, None]))  # minus their model covariance


def gradient_at(u):
    return pack(exact(unpack(u, N)))


H = hessian(fit)
u_fit = pack(fit)
fd_H = np.array(
    [
        (gradient_at(u_fit + h * e) - gradient_at(u_fit - h * e)) / (2 * h)
        for e in np.eye(u_fit.size)
    ]
)
eig = np.linalg.eigvalsh(H)
print("Hessian shape:", H.shape)
print(
    "Hessian equals finite differences of Eq. 5.4 (to 1e-6):",
    bool(np.abs(H - fd_H).max() < 1e-6),
)
print("all eigenvalues <= 0 (to 1e-12):", bool(eig.max() <= 1e-12))
print(f"most negative eigenvalue lambda_min: {eig.min():.3f}, least negative: {eig.max():.2e}")
print(f"2/|lambda_min| = {2 / abs(eig.min()):.3f}")

direction = rng.standard_normal(u_fit.size)
direction /= np.linalg.norm(direction)
ts = np.linspace(-3, 3, 61)
slice_L = np.array([L_teacher(unpack(u_fit + t * direction, N)) for t in ts])
print(
    "1-D slice is concave (second differences <= 0):",
    bool(np.all(np.diff(slice_L, 2) <= 1e-12)),
)
print("slice peaks at t = 0:", bool(abs(ts[np.argmax(slice_L)]) < 1e-12))

fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
ax.plot(ts, slice_L, color=bmlab.NAVY)
ax.axvline(0, color=bmlab.GRAY, ls="--", lw=1)
ax.set_xlabel("t, distance from the optimum along a random unit direction")
ax.set_ylabel("L")
ax.set_title("a slice through L is concave")
plt.show()

# %% [markdown]
# **What to look for:** one smooth hump with its top at $t=0$ and no second bump anywhere along
# the slice.

# %% [markdown]
# The curvature also sets the largest stable learning rate of plain gradient ascent: near the
# optimum, $u$ moves by $(1 + \eta H)$ per step, which shrinks every direction only when
# $\eta < 2/|\lambda_\text{min}|$, with $\lambda_\text{min}$ the most negative eigenvalue
# (printed above; the learning rate 0.1 used here is below it; exercise 1 tries both sides on
# another data set).
#
# ## 5 · A sampled negative phase
#
# Now the Glauber negative phase of Section 2 inside the training loop, either from fresh
# random starts at every step or *persistently* (each step continues the chains of the
# previous one). We train with each, from the same start and with the same learning rate,
# and record the exact $L$. The cost column counts multiply-adds per step, roughly: the exact
# negative phase computes one energy per state, about $N^2/2$ multiply-adds, and adds the
# state's $N^2/2$ products $s_is_j$ into the moments, so about $2^N N^2$ in all; a Glauber sweep
# updates $N$ spins, each after a local field of $N$ multiply-adds, so `n_chains` $\cdot\, k N^2$.

# %%
runs = {  # name: (method, k)
    "exact": ("exact", 1),
    "fresh chains, k=1": ("glauber", 1),
    "fresh chains, k=10": ("glauber", 10),
    "persistent, k=1": ("persistent", 1),
}
line_styles = {  # name: (colour, line style, width)
    "exact": (COLORS["exact"], "-", 2.2),
    "fresh chains, k=1": (COLORS["fresh chains"], ":", 1.8),
    "fresh chains, k=10": (COLORS["fresh chains"], "-", 1.4),
    "persistent, k=1": (COLORS["persistent chains"], "-", 1.4),
}
curves = {}
for name, (method, k) in runs.items():
    res = bmlab.train(
        zero,
        VisibleGradient(S, method=method, n_chains=100, k=k),
        n_steps=300,
        lr=0.1,
        record_every=5,
        metrics={"L": L_teacher},
        rng=np.random.default_rng(SEED),  # the exact gradient draws nothing
    )
    curves[name] = res.history
L_opt = L_teacher(fit)
print(f"{'negative phase':<20} {'multiply-adds/step':>18} {'final L':>9} {'L_opt - L':>10}")
for name, (method, k) in runs.items():
    cost = 2**N * N**2 if method == "exact" else 100 * k * N**2
    L_end = curves[name].last("L")
    print(f"{name:<20} {cost:>18d} {L_end:>9.3f} {L_opt - L_end:>10.3f}")

fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
for name, hist in curves.items():
    color, ls, lw = line_styles[name]
    ax.plot(hist["step"], hist["L"], color=color, ls=ls, lw=lw, label=name)
ax.axhline(L_opt, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
ax.set_ylim(L_opt - 3, L_opt + 0.3)
ax.set_xlabel("update")
ax.set_ylabel("exact L")
ax.set_title("exact vs sampled negative phase")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to look for:** which curves stop short of the dashed optimum: fresh chains with
# $k=1$ (dotted orange) falling off the bottom of the plot, $k=10$ (solid orange) hovering
# well below the optimum, and persistent chains (green) swinging up and down, coming back to
# the optimum again and again and ending close to it (the table gives the final values).

# %% [markdown]
# To separate **noise** from **bias**, sit at the optimum, where the exact gradient is zero,
# and draw 30 independent gradient estimates with fresh chains for several sweep budgets $k$.
# The norm of their mean is the bias (it would be zero for an unbiased estimator, up to
# $\text{noise}/\sqrt{30}$); their spread is the noise. The last row changes one thing, ten
# times as many chains at $k = 1$.


# %%
def bias_and_noise(k, n_chains):
    """|mean| and rms spread of 30 fresh-chain gradient estimates at the optimum."""
    estimate = VisibleGradient(S, method="glauber", n_chains=n_chains, k=k)
    G = np.array([pack(estimate(fit, rng)) for _ in range(30)])
    return np.linalg.norm(G.mean(axis=0)), np.sqrt(
        np.mean(np.sum((G - G.mean(axis=0)) ** 2, axis=1))
    )


print(f"{'chains':>6} {'k sweeps':>8} {'bias |mean|':>12} {'noise (rms)':>12}")
bias_rows = [(100, k, *bias_and_noise(k, 100)) for k in (1, 3, 10, 30)]
bias_rows.append((1000, 1, *bias_and_noise(1, 1000)))
for n_chains, k, bias, noise in bias_rows:
    print(f"{n_chains:>6d} {k:>8d} {bias:>12.3f} {noise:>12.3f}")
print(
    "bias exceeds 3 noise/sqrt(30) in every row:",
    all(bias > 3 * noise / np.sqrt(30) for *_, bias, noise in bias_rows),
)
p_fit = bmlab.boltzmann_probs(fit["J"], fit["theta"])
states10 = bmlab.all_states(N).astype(float)
mostly_down = p_fit[states10.sum(axis=1) < 0].sum()
print(f"model mass on mostly-down states (more spins -1 than +1): {mostly_down:.2f}")
for k in (30, 1000):
    ends = bmlab.glauber_sample(
        fit["J"], fit["theta"], n_chains=1000, n_sweeps=k, init="random", rng=rng
    )
    share_down = np.mean(ends.sum(axis=1) < 0)
    print(f"share of 1000 fresh chains mostly down after {k:4d} sweeps: {share_down:.2f}")

# %% [markdown]
# With one sweep from a random start the chains have not yet aligned: the estimated
# correlations are too weak, and the gradient keeps pushing the couplings up -- bias, not
# noise. Ten times as many chains (last row) shrink the noise and leave the bias where it
# was. More sweeps fix the alignment but *not* the remaining bias: the model has two modes
# (mostly $-$, which holds the mass printed above, and mostly $+$), a fresh chain drops into
# one of them depending on its random start, and crossing between them takes far longer
# than 30 sweeps: after 30 sweeps about half of the chains are mostly down, as symmetric
# random starts give, and only after 1000 do they approach the model's share. The mode
# weights of the estimate are set by the starting points, not by the model: the mixing
# obstruction of Section 5.5. Persistent chains never restart, so their mode populations
# can follow the model -- they ended closest to the optimum above, at the lowest cost -- as
# long as the parameters move slowly compared with the chains. A likely reading of their
# swings in the figure (not tested here): the 100 chains lag behind the model, so each
# step's negative phase comes from samples of the parameters as they were a few steps
# earlier.
#
# ## 6 · The trap (Section 5.5)
#
# **(a) A frozen negative phase.** Compute the model moments once, at $J = 0, \theta = 0$
# (where they are all zero), and reuse them. The "gradient" is then a constant vector, the
# data moments themselves, and nothing ever stops the update.

# %%
frozen = bmlab.train(
    zero,
    VisibleGradient(S, method="frozen"),
    n_steps=200,
    lr=0.1,
    record_every=10,
    metrics={"L": L_teacher, "max|J|": lambda p: float(np.abs(p["J"]).max())},
)
steps, maxJ = frozen.history["step"], frozen.history["max|J|"]
slope = np.diff(maxJ) / np.diff(steps)
print(
    f"max|J| grows linearly, slope = lr * max<s_i s_j>_data = {0.1 * C_data[iu].max():.4f}:",
    bool(np.allclose(slope, 0.1 * C_data[iu].max())),
)
print(f"max|J| after 200 steps: {maxJ[-1]:.1f}, and L has fallen to {frozen.history.last('L'):.1f}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3), layout="constrained")
ax1.plot(steps, maxJ, color=COLORS["frozen"], label="frozen negative phase")
ax1.axhline(np.abs(fit["J"]).max(), color=COLORS["exact"], ls="--", lw=1, label="ML optimum")
ax1.set_xlabel("update")
ax1.set_ylabel(r"max $|J_{ij}|$")
ax1.legend(fontsize=8)
ax2.plot(steps, frozen.history["L"], color=COLORS["frozen"])
ax2.axhline(L_opt, color=COLORS["exact"], ls="--", lw=1)
ax2.set_xlabel("update")
ax2.set_ylabel("exact L")
ax2.set_title("drift overshoots the optimum")
plt.show()

# %% [markdown]
# **What to look for:** $\max|J|$ climbing on a straight line through the optimum's value
# without stopping, and $L$ rising briefly, then falling without end.

# %% [markdown]
# **Hebb forever.** At $J=0,\theta=0$ every state is as likely as its mirror image, so all
# model moments vanish ($\langle s_i\rangle=0$, $\langle s_is_j\rangle=0$ for $i\ne j$). The
# first exact step of Eq. 5.4 from zero is therefore $\Delta J_{ij}=\eta\langle
# s_is_j\rangle_\text{data}$, $\Delta\theta_i=\eta\langle s_i\rangle_\text{data}$: Hebb's rule,
# with the data as the patterns (Section 8 writes it for the letter prototypes). The frozen
# negative phase is that first step repeated for ever, so the trapped machine is Hebb's,
# scaled by the number of steps.

# %%
m0, C0 = bmlab.exact_moments(zero["J"], zero["theta"])
print(
    "model moments at J = 0, theta = 0 vanish (1e-12):",
    bool(max(np.abs(m0).max(), np.abs(C0 - np.eye(N)).max()) < 1e-12),
)
hebb_data = C_data - np.diag(np.diag(C_data))  # Hebb on the data: <s_i s_j>_data, J_ii = 0
first = {key: 0.1 * v for key, v in exact(zero).items()}  # Section 2's first step (lr 0.1)
print(
    "first exact step from zero is Hebb's rule on the data, dJ = 0.1 <s_i s_j>_data (1e-12):",
    bool(
        np.abs(first["J"] - 0.1 * hebb_data).max() < 1e-12
        and np.abs(first["theta"] - 0.1 * m_data).max() < 1e-12
    ),
)
n_frozen = frozen.history["step"][-1]
print(
    f"at the trap, after {n_frozen} frozen steps: J = {0.1 * n_frozen:g} x Hebb couplings (1e-10):",
    bool(np.abs(frozen.params["J"] - 0.1 * n_frozen * hebb_data).max() < 1e-10),
)

# %% [markdown]
# **(b) Data moments in place of model moments.** If the negative phase is (wrongly) read off
# the data, both terms of Eq. 5.4 are the same number.

# %%
data_as_model = bmlab.train(zero, VisibleGradient(S, method="data"), n_steps=50, lr=0.1)
print(
    "gradient identically zero at every step:",
    bool(np.all(data_as_model.history["grad_norm"] == 0)),
)
print(
    "parameters after 50 steps unchanged (all zero):",
    bool(all(np.all(v == 0) for v in data_as_model.params.values())),
)

# %% [markdown]
# ## 7 · Maximum entropy, run backwards
#
# Among all distributions with the data's first and second moments, the fitted machine is the
# one of largest entropy, $H_\text{max}$, and $(\theta, J)$ are the Lagrange multipliers of the
# moment constraints. The dual function
#
# $$L_D(\theta, J) = \log Z - \sum_i \theta_i \langle s_i\rangle_\text{data}
#   - \tfrac12 \sum_{i\ne j} J_{ij}\langle s_i s_j\rangle_\text{data} = -L$$
#
# bounds the maximum entropy from above for *every* choice of multipliers (weak duality) and
# touches it at the optimum (strong duality). The gap has a name: since the fitted machine
# $p^*$ has the data's moments, $L_D(\theta, J) - H_\text{max} = \mathrm{KL}(p^*\,\|\,p_{\theta,
# J})$, which is zero only at the optimum. We check it at the random point of Section 2 and
# along the line $t\cdot(\theta^*, J^*)$ through zero and the optimum. Both identities use
# that $p^*$ has the data's moments; the Newton fit has them only to its stopping tolerance,
# and the error it leaves grows with the size of the multipliers, so we check them to
# $10^{-7}$, far above that error and far below the gaps themselves.


# %%
def dual(params, S):
    J, theta = params["J"], params["theta"]
    return (
        bmlab.log_partition(J, theta)
        - theta @ S.mean(axis=0)
        - 0.5 * np.sum(J * (S.T @ S / len(S)))
    )


def entropy(p):
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def kl(p, q):
    keep = p > 0
    return float(np.sum(p[keep] * (np.log(p[keep]) - np.log(q[keep]))))


def scaled(params, t):
    return {key: t * value for key, value in params.items()}


H_max = entropy(p_fit)
print(f"at the optimum: L_D = {dual(fit, S):.4f}, H_max = H(p*) = {H_max:.4f}")
print("strong duality, |L_D - H_max| < 1e-7:", bool(abs(dual(fit, S) - H_max) < 1e-7))
print(f"{'point':>22} {'L_D - H_max':>12}   = KL(p* || p) (to 1e-7)")
points = {"random (Section 2)": params} | {f"t = {t:g}": scaled(fit, t) for t in (0, 0.5, 1, 1.5)}
for name, point in points.items():
    gap = dual(point, S) - H_max
    p_point = bmlab.boltzmann_probs(point["J"], point["theta"])
    same = abs(gap - kl(p_fit, p_point)) < 1e-7
    print(f"{name:>22} {round(gap, 3) + 0.0:>12.3f}   {same}")
zero_entropy = entropy(bmlab.boltzmann_probs(zero["J"], zero["theta"]))
print(
    "at J = 0, theta = 0: L_D = H(p_zero) = N log 2 (to 1e-10):",
    abs(dual(zero, S) - N * np.log(2)) < 1e-10 and abs(zero_entropy - N * np.log(2)) < 1e-10,
)

# %% [markdown]
# The bound is on $H_\text{max}$, not on the entropy of the machine at hand: at $J=0,\theta=0$
# the uniform machine has the largest entropy of all, and $L_D$ equals it exactly, although its
# moments are wrong. Gradient descent on $L_D$ is ascent on $L$, Eq. 5.4 step by step.
#
# Two other distributions with exactly the same first and second moments: the data's own
# empirical distribution, and one built by tilting the model's probabilities along a random
# direction $w(s)$ that is orthogonal, in the $p$-weighted inner product, to the constant and
# to every sufficient statistic -- so no moment changes. Both have lower entropy.


# %%
def same_moments(p, phi, *, rng):
    A = np.concatenate([np.ones((len(p), 1)), phi], axis=1)  # 1 and phi(s) for every state
    g = rng.standard_normal(len(p))
    root = np.sqrt(p)[:, None]
    w = g - A @ np.linalg.lstsq(root * A, root[:, 0] * g, rcond=None)[0]  # orthogonal to A
    q = np.clip(p * (1 + w / np.max(-w[p > 0])), 0, None)  # largest tilt keeping q >= 0
    return q / q.sum()


p_data = np.bincount(bmlab.state_codes(S), minlength=2**N) / len(S)
phi10 = np.concatenate([states10[:, iu[0]] * states10[:, iu[1]], states10], axis=1)
q = same_moments(p_fit, phi10, rng=rng)
for name, dist in (("empirical data distribution", p_data), ("moment-preserving tilt", q)):
    m_q, C_q = bmlab.moments_from_probs(dist, N)
    same = max(np.abs(m_q - m_fit).max(), np.abs(C_q - C_fit).max()) < 1e-8
    print(
        f"{name}: same moments: {same}, entropy {entropy(dist):.4f} < {H_max:.4f}:",
        entropy(dist) < H_max,
    )
for name, p in (("optimum", fit), ("J=0, theta=0", zero)):
    p_model = bmlab.boltzmann_probs(p["J"], p["theta"])
    print(
        f"L = -KL(p_data||p_model) - H(p_data) at the {name} (to 1e-10):",
        bool(abs(L_teacher(p) - (-kl(p_data, p_model) - entropy(p_data))) < 1e-10),
    )

# %% [markdown]
# ## 8 · Memorize versus learn, and the two forces (Figures 5.1 and 5.2)
#
# Hebb's rule writes the couplings in one pass, $J = \frac1N\sum_\mu \xi^\mu \xi^{\mu\top}$
# (zero diagonal), from the four letter prototypes $\xi^\mu$. To give it a fair chance we let
# maximum likelihood choose its overall scale $c$ (a one-dimensional fit of $L(cJ)$); Hebb
# itself fixes only the couplings' pattern. Maximum likelihood instead fits all $P = 45$
# parameters to the noisy copies.

# %%
N_let = 9
J_hebb = letters.T @ letters / N_let  # Hebb: sum over patterns of xi xi^T / N
np.fill_diagonal(J_hebb, 0.0)
zero9 = np.zeros(N_let)


def minus_L_hebb(c):
    return -visible_log_likelihood({"J": c * J_hebb, "theta": zero9}, S_letters)


c = minimize_scalar(minus_L_hebb, bounds=(0.0, 10.0), method="bounded", options={"xatol": 1e-9}).x
hebb = {"J": c * J_hebb, "theta": zero9}
ml = visible_newton_fit(S_letters)
L_hebb, L_ml = visible_log_likelihood(hebb, S_letters), visible_log_likelihood(ml, S_letters)
p_letters = np.bincount(bmlab.state_codes(S_letters), minlength=2**N_let) / len(S_letters)
L_best = -entropy(p_letters)
print("parameters of the letter machine:", pack(ml).size)
print(f"maximum-likelihood scale of the Hebb couplings: c = {c:.3f}")
print(f"L, Hebb (scale fitted): {L_hebb:.3f}")
print(f"L, maximum likelihood : {L_ml:.3f}")
print(f"L, empirical law (no model can beat it on this data): {L_best:.3f}")
print("maximum likelihood beats Hebb:", L_ml > L_hebb)

# %% [markdown]
# Where do the prototypes sit in each landscape? Many states share an energy exactly (Hebb's
# energy is symmetric under $s \to -s$, and its couplings take few values), so we rank the
# *distinct energy levels* -- energies closer than $10^{-9}$ count as one level, level 0 is
# the lowest -- rather than the states, whose order within a level is arbitrary. The figure
# puts the states on a logarithmic axis of their rank, so that the few lowest ones, where the
# prototypes sit, get room.


# %%
def level_of(E, e, tol=1e-9):
    """Rank of energy e among the distinct levels of E (0 = lowest)."""
    E_sorted = np.sort(E)
    lowest_of_each_level = E_sorted[np.concatenate([[True], np.diff(E_sorted) > tol])]
    return int(np.sum(lowest_of_each_level < e - tol))


states = bmlab.all_states(N_let)
codes_proto = bmlab.state_codes(letters)
in_data = p_letters > 0
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
machines = (("Hebb, scale fitted", hebb, "Hebb"), ("maximum likelihood", ml, "exact"))
for ax, (name, p, algorithm) in zip(axes, machines, strict=True):
    E = bmlab.energy(states, p["J"], p["theta"])
    order = np.argsort(E, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(1, order.size + 1)  # 1 = lowest energy
    ax.plot(np.arange(1, E.size + 1), E[order], color=COLORS[algorithm], lw=1.2)
    ax.scatter(rank[in_data], E[in_data], s=10, color=bmlab.ORANGE, label="states in the data")
    ax.scatter(
        rank[codes_proto],
        E[codes_proto],
        s=40,
        marker="*",
        color="k",
        label="letter prototypes",
        zorder=4,
    )
    ax.set_xscale("log")
    ax.set_xlabel("rank of the state by energy (1 = lowest)")
    ax.set_ylabel("energy E(s)")
    ax.set_title(f"{name}: L = {visible_log_likelihood(p, S_letters):.2f}", fontsize=10)
    levels = [level_of(E, e) for e in E[codes_proto]]
    n_levels = level_of(E, np.inf)
    n_lowest = int(np.sum(np.abs(E - E.min()) < 1e-9))
    print(
        f"{name}: prototypes T, L, X, O on energy levels {levels} of {n_levels} distinct "
        f"levels; {n_lowest} state(s) share the lowest level"
    )
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=8)
fig.suptitle("Figure 5.1: couplings written (Hebb) vs couplings fitted (maximum likelihood)")
bmlab.save_figure(fig, "fig5.1_memorize_vs_learn")
plt.show()

# %% [markdown]
# **What to look for:** where the black stars sit on each staircase of energies: on Hebb's
# coarse purple steps, beside other states and not all at the bottom; on maximum likelihood's
# navy curve, at the four lowest ranks.

# %% [markdown]
# Hebb did **not** put the minima at the patterns. The letter L shares the lowest level with
# three other states: its inverted twin (Hebb's energy is symmetric under $s \to -s$) and a
# spurious state that is no letter, with its twin. T and O sit one level up, beside their
# twins and more spurious states, and X two levels up. Four patterns on nine units are
# far more than Hebb's rule can hold (Section 9 measures how many it can), so the stored
# patterns interfere and mixtures compete with them. The fitted scale $c$ does not change the
# order of the levels, so these are pure Hebb's ranks. Maximum likelihood, fit to the noisy
# copies, puts the four prototypes on its four lowest energies: the landscape is molded until
# its basins sit under the data.
#
# **The two forces.** Start from the Hebb machine and take one exact gradient step. The change
# of each state's energy splits into two terms. The positive phase, Hinton's *wake* phase,
# $-\eta(\tfrac12 s^\top C'_\text{data} s + m_\text{data}\cdot s)$, is built from the data's
# moments and is most negative where the data are. The negative phase, the *sleep* phase,
# $+\eta(\tfrac12 s^\top C'_\text{model} s + m_\text{model}\cdot s)$, is built from the model's
# moments and is largest where the model already puts its mass -- on its own samples,
# including the spurious states. (The lecture keeps positive and negative as the technical
# names; wake and sleep are a mnemonic, not the later wake-sleep algorithm.)


# %%
def push(m, C, states):
    """1/2 s^T C' s + m . s for every state (C' = C with zero diagonal)."""
    C_off = C - np.diag(np.diag(C))
    return 0.5 * np.einsum("ci,ij,cj->c", states, C_off, states) + states @ m


def drawn_by(params, n_draws=200):
    """Mask of the states among n_draws exact draws from the machine (enumeration, N = 9)."""
    draws = bmlab.sample_exact(params["J"], params["theta"], n_samples=n_draws, rng=rng)
    return np.isin(np.arange(2**N_let), bmlab.state_codes(draws))


def groups(drawn):
    """The states in three groups, each with its colour and marker size."""
    return {
        "data states": (in_data, bmlab.ORANGE, 22),
        "drawn by the model, not data": (drawn & ~in_data, COLORS["exact"], 22),
        "all other states": (~(in_data | drawn), "#c8c8c8", 8),
    }


def two_forces(forces, drawn, title):
    """Table and figure: wake, sleep and net change of E(s), per group of states."""
    print(f"{'mean change of E(s)':>30} {'states':>6}" + "".join(f"{f:>7}" for f in forces))
    for name, (mask, *_) in groups(drawn).items():
        means = "".join(f"{round(v[mask].mean(), 2) + 0.0:>7.2f}" for v in forces.values())
        print(f"{name:>30} {mask.sum():>6d}{means}")
    fig, axes = plt.subplots(1, 3, figsize=(9, 4.2), sharey=True, layout="constrained")
    for ax, (force, values) in zip(axes, forces.items(), strict=True):
        for k, (name, (mask, color, size)) in enumerate(groups(drawn).items()):
            v = np.sort(values[mask])  # each group's states side by side, sorted
            x_k = k + np.linspace(-0.35, 0.35, v.size)
            ax.scatter(x_k, v, s=size, color=color, lw=0, label=f"{name} ({v.size})")
            ax.plot([k - 0.42, k + 0.42], [v.mean()] * 2, color="k", lw=2)  # the group's mean
        ax.axhline(0, color=bmlab.GRAY, lw=0.8, zorder=0)
        ax.set_xticks([])
        ax.set_title(FORCE_TITLES[force], fontsize=10)
    axes[0].set_ylabel(r"change of $E(s)$ in one step")
    axes[1].set_xlabel("the states of each group, sorted; black bar: the group's mean")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    fig.suptitle(title)
    return fig


FORCE_TITLES = {
    "wake": "wake: from the data's moments",
    "sleep": "sleep: from the model's moments",
    "net": "net: the step's change",
}
lr_step = 0.5
states_f = states.astype(float)
m_hebb, C_hebb = bmlab.exact_moments(hebb["J"], hebb["theta"])
dE_pos = -lr_step * push(m_let, C_let, states_f)  # wake: from the data's moments
dE_neg = +lr_step * push(m_hebb, C_hebb, states_f)  # sleep: from the model's moments
g_hebb = VisibleGradient(S_letters)(hebb)
after = {key: hebb[key] + lr_step * g_hebb[key] for key in hebb}
E_hebb = bmlab.energy(states, hebb["J"], hebb["theta"])
dE = bmlab.energy(states, after["J"], after["theta"]) - E_hebb
print(
    "the two phases add up to the energy change of one gradient step (to 1e-10):",
    bool(np.abs(dE_pos + dE_neg - dE).max() < 1e-10),
)
print(
    f"averaged over all {2**N_let} states, wake and sleep changes are zero (to 1e-12):",
    bool(max(abs(dE_pos.mean()), abs(dE_neg.mean())) < 1e-12),
)
fig = two_forces(
    {"wake": dE_pos, "sleep": dE_neg, "net": dE},
    drawn_by(hebb),
    f"Figure 5.2: the two forces of one gradient step from the Hebb machine (lr = {lr_step})",
)
bmlab.save_figure(fig, "fig5.2_two_forces")
plt.show()

# %% [markdown]
# **What to look for:** the black bars, each group's mean, as the table prints them. Left,
# the wake force lowers the data states (orange) on average and raises the other states
# (gray). Middle, the sleep force raises the states the model draws that are no data (navy;
# 200 exact draws) and, on average, the data states too: Hebb wrote the model's couplings
# from the letters, so its pair correlations resemble the data's. Right, what is left of the
# two: on average the step lowers the data states and raises the model's draws that are no
# data, while the other states barely move. Within every group some states go the other way.

# %% [markdown]
# **A quadratic form, not a pull at single points.** Each phase changes the energy of *every*
# state: the positive phase by $-\eta(\tfrac12 s^\top C'_\text{data}s+m_\text{data}\cdot s)$, a
# quadratic form in $s$. Summed over all $2^9$ states, $s_is_j$ ($i\ne j$) and $s_i$ each cancel
# (every state has partners with the sign flipped), so each phase raises as much energy as it
# lowers, as printed above. The wake force therefore pushes down the states that agree with
# the data's correlations -- the data states among them, on average -- and pushes *up* every
# state that disagrees, a large share of all states. Likewise for the sleep force with the
# model's moments. Neither phase acts only where its samples are.
#
# At the maximum-likelihood machine `ml` the model's moments equal the data's (Eq. 5.6): the
# two quadratic forms are the same with opposite signs, so the two forces cancel on every state
# and the landscape stops moving. The figure below repeats the one above at `ml`, with exact
# draws from `ml`.

# %%
up_pos = np.mean(dE_pos > 1e-9)
print(f"the positive phase (at the Hebb machine) raises the energy of {up_pos:.0%} of all states")
m_ml, C_ml = bmlab.exact_moments(ml["J"], ml["theta"])
dE_pos_ml = -lr_step * push(m_let, C_let, states_f)
dE_neg_ml = +lr_step * push(m_ml, C_ml, states_f)
print(
    "at the optimum the two forces cancel on every state (|net| < 1e-6):",
    bool(np.abs(dE_pos_ml + dE_neg_ml).max() < 1e-6),
)
fig = two_forces(
    {"wake": dE_pos_ml, "sleep": dE_neg_ml, "net": dE_pos_ml + dE_neg_ml},
    drawn_by(ml),
    f"Figure 5.2 at the optimum: the two forces balance (lr = {lr_step})",
)
bmlab.save_figure(fig, "fig5.2_two_forces_at_optimum")
plt.show()

# %% [markdown]
# **What to look for:** every state's sleep change is minus its wake change, so the sleep
# panel is the wake panel turned upside down (group means included), and every point of the
# net panel lies on zero.

# %% [markdown]
# ## 9 · How many patterns? Hebb's rule against learned couplings
#
# Section 5.4 of the lecture puts a number on "Hebb over-writes": in a large network Hebb's
# couplings recall stored patterns only up to $\alpha = P/N \approx 0.138$, while couplings
# chosen well can make up to $\alpha = 2$ random patterns stable (Gardner's bound). In this
# section $P$ counts stored patterns, not parameters as in Sections 2-8. We test the
# simplest version on $N = 50$ spins: a pattern is *stored* when it is a fixed point, every
# spin aligned with its local field, $\xi_i h_i > 0$, and a set of patterns is stored when all
# of them are. Hebb writes $J = \sum_\mu \xi^\mu \xi^{\mu\top}$; the learned couplings come
# from the perceptron rule, which, for every spin $i$ and pattern $\mu$ still misaligned, adds
# $\xi^\mu_i \xi^\mu_j$ to $J_{ij}$ and repeats, sweep after sweep, up to a cap. All entries
# stay whole numbers, so every comparison is exact. The learned $J$ is not symmetric: each
# spin learns its own row, which is what Gardner's count assumes.
#
# Whether couplings storing the set *exist* is a separate question with an exact answer: for
# row $i$ the conditions $\xi^\mu_i h^\mu_i > 0$ are $P$ linear inequalities in its $N - 1$
# couplings, and a linear program (scipy's `linprog`) decides whether they have a solution.
# Cover counted the sign patterns a row can produce: $P$ random patterns leave a solution with
# chance $2^{1-P}\sum_{k=0}^{N-2}\binom{P-1}{k}$, and for the whole set we take the $N$ rows as
# independent. So we compare like with like: at each load, 20 random pattern sets, and the
# share of them that Hebb stores, that the perceptron rule stores within $10^2$, $10^3$ and
# $10^4$ sweeps (the same runs, read at three caps: only the cap varies), and that can be
# stored at all, beside Cover's chance.

# %%
ALPHA_HEBB, ALPHA_GARDNER = 0.138, 2.0  # the lecture's limits for N -> infinity
CAPS = (100, 1000, 10_000)  # caps on the perceptron rule's sweeps


def stored_all(J, xi):
    """True when every pattern of xi (P, N) is a fixed point: xi_i h_i > 0 for every i."""
    return bool(np.all(xi * (xi @ J.T) > 0))


def perceptron_sweeps(xi, max_sweeps):
    """Sweeps the perceptron rule needs to store every pattern of xi (P, N), or inf if more
    than max_sweeps; and the rows that still have a misaligned pattern at the end."""
    J = np.zeros((xi.shape[1], xi.shape[1]))
    for sweep in range(max_sweeps + 1):
        wrong = xi * (xi @ J.T) <= 0  # (P, N): spin i of pattern mu misaligned
        if not wrong.any():
            return sweep, []
        if sweep < max_sweeps:
            J += (wrong * xi).T @ xi  # row i learns from its misaligned patterns only
            np.fill_diagonal(J, 0.0)
    return np.inf, np.flatnonzero(wrong.any(axis=0))


def row_storable(xi, i):
    """Linear program: do couplings J_ij (j != i) with xi_i h_i >= 1 for every pattern exist?"""
    A = -xi[:, [i]] * np.delete(xi, i, axis=1)  # A @ J_i <= -1 is xi_i h_i >= 1
    return linprog(
        np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(len(xi)), bounds=(None, None)
    ).success


def chance_storable(P, n):
    """Cover's count: the chance that couplings storing P random patterns exist, each of the n
    rows (n - 1 free couplings) separating its P labels; rows taken as independent."""
    one_row = sum(math.comb(P - 1, k) for k in range(n - 1)) / 2 ** (P - 1)
    return one_row**n


n_cap, n_sets = 50, 20
alphas = np.array([0.1, 0.2, 0.3, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0])
table = []  # per load: shares stored by Hebb, by the rule within each cap, storable at all
for alpha in alphas:
    P = round(alpha * n_cap)
    hebb_ok, storable, needed = [], [], []
    for _ in range(n_sets):
        xi = rng.choice([-1.0, 1.0], size=(P, n_cap))
        J_h = xi.T @ xi
        np.fill_diagonal(J_h, 0.0)
        hebb_ok.append(stored_all(J_h, xi))
        sweeps, unsolved = perceptron_sweeps(xi, CAPS[1])
        storable.append(all(row_storable(xi, i) for i in unsolved))  # solved rows need no LP
        if storable[-1] and sweeps > CAPS[1]:  # a hopeless set is not run to the last cap
            sweeps, _ = perceptron_sweeps(xi, CAPS[-1])
        needed.append(sweeps)
    within = [np.mean(np.array(needed) <= cap) for cap in CAPS]
    table.append([np.mean(hebb_ok), *within, np.mean(storable), chance_storable(P, n_cap)])
table = np.array(table)
print(f"N = {n_cap}; share of {n_sets} random pattern sets with every pattern a fixed point")
print(f"{'':16}{'perceptron rule within':>24}")
caps = " ".join(f"{cap:>6}" for cap in CAPS)
print(f"{'alpha':>5} {'P':>4} {'Hebb':>5}   {caps}  {'storable':>8} {'Cover':>6}")
for alpha, row in zip(alphas, table, strict=True):
    hebb_share, *perceptron_shares, storable_share, cover = row
    shares = " ".join(f"{v:>6.2f}" for v in perceptron_shares)
    print(
        f"{alpha:>5.2f} {round(alpha * n_cap):>4d} {hebb_share:>5.2f}   {shares}"
        f"  {storable_share:>8.2f} {cover:>6.2f}"
    )
cover_15 = chance_storable(round(1.5 * n_cap), n_cap)
print(
    f"sampling error of a share of {n_sets} sets at alpha = 1.5 (chance {cover_15:.2f}): "
    f"{np.sqrt(cover_15 * (1 - cover_15) / n_sets):.2f}"
)

fig, ax = plt.subplots(figsize=(7.5, 3.6), layout="constrained")
fine = np.arange(5, 101) / n_cap
ax.plot(
    fine,
    [chance_storable(round(a * n_cap), n_cap) for a in fine],
    color=bmlab.GRAY,
    label="Cover's chance",
)
ax.plot(
    alphas, table[:, 4], "o", color=bmlab.GRAY, mfc="none", ms=9, label="storable (linear program)"
)
ax.plot(alphas, table[:, 0], "o-", color=COLORS["Hebb"], label="Hebb")
for cap, col, ls, marker in zip(CAPS, (1, 2, 3), (":", "--", "-"), "v^s", strict=True):
    ax.plot(
        alphas,
        table[:, col],
        ls=ls,
        marker=marker,
        color=COLORS["perceptron"],
        label=f"perceptron rule, {cap} sweeps",
    )
ax.axvline(ALPHA_HEBB, color=COLORS["Hebb"], ls=":", lw=1)
ax.axvline(ALPHA_GARDNER, color=bmlab.GRAY, ls=":", lw=1)
ax.set_xlabel(r"load $\alpha = P/N$ (dotted: 0.138 and 2, the limits for large $N$)")
ax.set_ylabel(f"share of {n_sets} sets stored")
ax.set_ylim(-0.05, 1.05)
ax.set_title(f"random pattern sets stored entirely, N = {n_cap}")
fig.legend(loc="outside right upper", fontsize=8)
plt.show()

# %% [markdown]
# **What to look for:** the purple Hebb curve drops near the left dotted line; the blue
# perceptron curves stay at one far beyond it and drop before the right one, the later the
# higher the cap; the gray circles (couplings exist) sit on the gray curve of Cover's chance.
#
# At this small $N$ both edges are smeared, and the numbers are not the limits themselves.
# Hebb stores every pattern of a set only at the lightest load, $\alpha = 0.1$, and of no set
# at $0.2$: exact fixed points of every pattern ask more than recall with a few wrong spins,
# which is what $0.138$ measures, and at finite $N$ one wrong spin in one pattern is enough to
# fail the set. Couplings that store every pattern exist in every set up to $\alpha = 1.25$, in
# most of them at $1.5$ and in none at $1.75$: the linear program's column follows Cover's
# chance within the sampling error of 20 sets (printed for $\alpha = 1.5$). Only for
# $N \to \infty$ does that fall become a step at $\alpha = 2$.
#
# Whether the perceptron rule *finds* such couplings is a question of the cap. Read the same
# runs at three caps: at $\alpha \le 1$ a hundred sweeps store nearly every set, at $1.25$
# they store about a third and a thousand store all, and at $1.5$ the share grows with every
# cap and still stays below the storable share at $10^4$ sweeps. Near the edge the rule needs
# ever more sweeps, so a capped rule stops short of what couplings can do. Still, even at a
# hundred sweeps the learned couplings store every set at loads where Hebb stores none: the
# gap between writing couplings and learning them.

# %% [markdown]
# ## 10 · Outlook: a gradient that needs no $Z$ (Section 5.8)
#
# The negative phase exists because $\log Z$ depends on the parameters. For a *continuous*
# variable $x$ with $p(x) = e^{-E(x)}/Z$, the gradient with respect to $x$ itself, the
# *score*, is $\nabla_x \log p = -\nabla_x E - \nabla_x \log Z = -\nabla_x E$: $Z$ is a number,
# the same wherever the density is evaluated. Score matching fits energies through this
# gradient. One continuous unit with $E(x) = x^4/4 - \theta x$ and $\theta = 0.5$ shows both
# facts, with $Z$ computed by numerical integration.

# %%
theta_c = 0.5


def E_c(x, theta):
    return x**4 / 4 - theta * x


def log_Z_c(theta):
    return math.log(quad(lambda x: math.exp(-E_c(x, theta)), -np.inf, np.inf, epsabs=1e-13)[0])


def log_p_c(x, theta):
    return -E_c(x, theta) - log_Z_c(theta)


d = 1e-4
dlogZ = (log_Z_c(theta_c + d) - log_Z_c(theta_c - d)) / (2 * d)
mean_x = quad(lambda x: x * math.exp(log_p_c(x, theta_c)), -np.inf, np.inf)[0]
print(f"d log Z / d theta = {dlogZ:.4f} = <x>_model = {mean_x:.4f}: not zero, a negative phase")
xs = np.array([-1.5, -0.3, 0.4, 1.2])
score = np.array([(log_p_c(x + d, theta_c) - log_p_c(x - d, theta_c)) / (2 * d) for x in xs])
print(
    "d log p / dx = -dE/dx = -x^3 + theta at x = -1.5, -0.3, 0.4, 1.2, with no Z (to 1e-5):",
    bool(np.abs(score - (-(xs**3) + theta_c)).max() < 1e-5),
)

# %% [markdown]
# The derivative with respect to $\theta$ is an expectation under the model, the negative
# phase again; the derivative with respect to $x$ is the energy's slope and nothing else. For
# $\pm1$ spins there is no such derivative, which is why this notebook needed $Z$ throughout.

# %% [markdown]
# ## Live: train it yourself
#
# The panel trains a machine on letters, not on the teacher: its own set of noisy copies of the
# four letters of Section 1, from $J = 0, \theta = 0$. Pick a learning rate, a number of
# steps and the negative phase, then press **Run**. The left panel shows the exact $L$
# against the update, the right one the moment-matching scatter of Eq. 5.6. Try the frozen
# and data-as-model settings (Section 6), Glauber with $k = 1$ versus $k = 10$, and a learning
# rate far above the stability limit $2/|\lambda_\text{min}|$ of Section 4 (for these data
# it has its own value; the status line says when the step is too large).

# %% tags=["nbval-ignore-output"]
from bmlab.widgets.training import training_panel

panel = training_panel()
panel

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. The worked solutions are in a notebook of their own,
# [solutions/03_solutions.ipynb](solutions/03_solutions.ipynb):
# open it after you have tried.
#
# **1 · Step size.** Two spins and ten data rows,
# `S2 = np.array([[1, 1]] * 6 + [[-1, -1]] * 2 + [[1, -1], [-1, 1]], dtype=float)`. Fit the
# machine (`visible_newton_fit(S2)`) and find the most negative eigenvalue
# $\lambda_\text{min}$ of the Hessian at the optimum (`hessian` of Section 4). Train from zero
# with plain gradient ascent at learning rates just below and just above
# $2/|\lambda_\text{min}|$. What happens, and why? Why is the fitted model here exactly the
# data's empirical distribution? *Your answer:* $2/|\lambda_\text{min}|$, to 3 decimals.
# [worked solution](solutions/03_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # 2 / |lambda_min| at the optimum for S2, to 3 decimals
bmlab.check("03.1", my_answer)

# %% [markdown]
# **2 · A moment of the fitted machine.** Three spins and fourteen data rows,
# `S3 = np.array([[1, 1, 1]] * 4 + [[-1, -1, -1]] * 2 + [[1, -1, 1]] * 2 + [[-1, 1, -1],`
# `[1, 1, -1], [-1, -1, 1]] + [[1, -1, -1]] * 2 + [[-1, 1, 1]], dtype=float)`. What is the
# model's $\langle s_1 s_3\rangle$ at the maximum-likelihood optimum for these data? Fit the
# machine (`visible_newton_fit`, then `bmlab.exact_moments`) and compare its moments, the
# three-spin moment $\langle s_1 s_2 s_3\rangle$ included, with the data's: which agree, and
# why? *Your answer:* $\langle s_1 s_3\rangle_\text{model}$, to 3 decimals.
# [worked solution](solutions/03_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # <s1 s3>_model at the optimum for S3, to 3 decimals
bmlab.check("03.2", my_answer)

# %% [markdown]
# **3 · Weight decay.** With `weight_decay=w` the loop climbs $L - \tfrac w2\sum_{i<j}
# J_{ij}^2$. Which equation replaces Eq. 5.6 at its optimum? Take two spins and eight rows,
# `S_wd = np.array([[1, 1]] * 3 + [[-1, -1]] * 3 + [[1, -1], [-1, 1]], dtype=float)`, and
# $w = 0.05$ (`visible_newton_fit(S_wd, weight_decay=0.05)`). *Your answer:*
# $\langle s_1 s_2\rangle_\text{data} - \langle s_1 s_2\rangle_\text{model}$ at that optimum,
# to 3 decimals.
# [worked solution](solutions/03_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # <s1 s2>_data - <s1 s2>_model at w = 0.05, to 3 decimals
bmlab.check("03.3", my_answer)

# %% [markdown]
# **4 · More data, closer to the teacher** (an open question, no check). Fit the teacher's
# data with $D = 1000$ and $D = 10\,000$ exact samples (Newton). How does the largest coupling
# error scale with $D$? Why can a very small sample make some learned coupling huge?
# [discussion](solutions/03_solutions.ipynb#cell-id=Open-question)

# %% [markdown]
# ## Summary
#
# - The gradient of the log-likelihood is data moments minus model moments, Eq. 5.4; the model
#   moments are a sum over all $2^N$ states, or an estimate from Glauber chains (Section 2).
# - At the optimum the model's means and pair correlations equal the data's, Eq. 5.6, while
#   the couplings differ from the teacher's by the sampling error of finite data (Section 3).
# - The Hessian is minus a covariance, so $L$ is concave: no local maxima, and a largest stable
#   learning rate $2/|\lambda_\text{min}|$ (Section 4).
# - A sampled negative phase is biased when its chains do not mix; persistent chains follow the
#   model best (Section 5). A frozen negative phase is Hebb's rule repeated for ever, and the
#   data in place of the model stop learning at once (Section 6).
# - Maximum likelihood is the dual of maximum entropy: $L_D = -L$ lies above the largest
#   entropy with the data's moments everywhere, by $\mathrm{KL}(p^*\|p)$ (Section 7).
# - Hebb writes couplings; learning molds the landscape with two forces, wake (down where the
#   data are) and sleep (up where the model puts its mass), which balance at the optimum
#   (Section 8). Couplings that store every pattern exist far beyond Hebb's load, as Cover's
#   count predicts, and the perceptron rule finds them if it may sweep long enough (Section 9).
# - The score, $\nabla_x \log p$, needs no $Z$; the parameter gradient always does
#   (Section 10).
#
# ## References
#
# - The lecture, Chapter 5: Section 5.2 (Figures 5.1 and 5.2, the two phases), Section 5.4
#   (the gradient Eq. 5.4, concavity, Hebb's and Gardner's capacities), Section 5.5 (the
#   negative phase, moment matching Eq. 5.6, maximum entropy and its dual) and Section 5.8
#   (outlook: score matching).
# - D. H. Ackley, G. E. Hinton, T. J. Sejnowski, "A learning algorithm for Boltzmann
#   machines", *Cognitive Science* (1985): the learning rule and its two phases.
# - D. J. Amit, H. Gutfreund, H. Sompolinsky, "Storing infinite numbers of patterns in a
#   spin-glass model of neural networks", *Physical Review Letters* (1985): Hebb's capacity.
# - E. Gardner, "The space of interactions in neural network models", *Journal of Physics A*
#   (1988): the capacity of the best couplings.
# - T. M. Cover, "Geometrical and statistical properties of systems of linear inequalities with
#   applications in pattern recognition", *IEEE Transactions on Electronic Computers* (1965):
#   the count of sign patterns behind Section 9's last column.
# - E. T. Jaynes, "Information theory and statistical mechanics", *Physical Review* (1957):
#   maximum entropy.
# - A. Hyvärinen, "Estimation of non-normalized statistical models by score matching",
#   *Journal of Machine Learning Research* (2005).
