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
# # 03 · The maximum-likelihood gradient: two forces, a trap, and a duality
#
# Companion to Sections 5.2, 5.4 and 5.5 of the lecture. We fit a fully visible Boltzmann
# machine (±1 spins, energy Eq. 5.1, $\beta = 1$) to data by climbing the average log-likelihood
#
# $$L(J,\theta) = \langle \log p(s)\rangle_\text{data} = \langle -E(s)\rangle_\text{data} - \log Z
# .$$
#
# Every number below is checked against exact enumeration: with $N \le 10$ spins there are at
# most 1024 states, so $Z$, the model moments and even the Hessian are cheap. The plan:
#
# 1. data from a teacher machine and from a tiny pattern set;
# 2. the gradient, Eq. 5.4, written out in numpy (exact and sampled), and training curves;
# 3. moment matching at the optimum, Eq. 5.6;
# 4. why there are no local maxima (concavity);
# 5. replacing the exact negative phase by Glauber chains;
# 6. the trap of Section 5.5;
# 7. maximum entropy and duality;
# 8. memorizing (Hebb) versus learning, and the two forces of Figures 5.1 and 5.2.
#
# Parameters are a dict `{"J": (N, N) symmetric with zero diagonal, "theta": (N,)}`.

# %% [markdown]
# > **Notation.** Spins are $s_i=\pm1$ (not $\{0,1\}$ units; those come in notebook 05, with
# > biases $a, b$). $J_{ij}$ are the couplings, $\theta_i$ the biases; there are no hidden units
# > here, and $h$ (where it appears) is a spin's local field. $C$ and $m$ are second and first
# > moments, $\langle s_is_j\rangle$ and $\langle s_i\rangle$; a prime, $C'$, means the diagonal
# > set to zero. States are listed in the order of `bmlab.all_states` (row $c$: $s_i=+1$ exactly
# > when bit $i$ of $c$ is 1), as in every notebook.

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

import bmlab
from bmlab.data import letters_3x3, noisy_copies
from bmlab.visible import visible_gradient, visible_log_likelihood, visible_newton_fit

bmlab.use_style()
SEED = 2024
rng = np.random.default_rng(SEED)

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
print(f"<s_i s_j>_data : min {C_data[iu].min():.2f}, mean {C_data[iu].mean():.2f}, "
      f"max {C_data[iu].max():.2f}")
print("fraction of configurations with |magnetization| >= 0.8: "
      f"{np.mean(np.abs(S.sum(axis=1)) >= 8):.2f}")

# %% [markdown]
# The second data set is structured: four letters on a $3\times 3$ grid ($N = 9$), each
# copied 30 times with 8% of the pixels flipped.

# %%
letters = letters_3x3("TLXO")
S_letters = noisy_copies(letters, 30, 0.08, rng=rng)
m_let, C_let = S_letters.mean(axis=0), S_letters.T @ S_letters / len(S_letters)

fig, axes = plt.subplots(2, 8, figsize=(8, 2.3))
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
# **What to look for:** the teacher's correlation matrix is nearly uniform and strong (all pairs
# aligned); the
# letters' one has structure: pixels that share letters are correlated, others anti-correlated.

# %% [markdown]
# ## 2 · The learning rule, Eq. 5.4
#
# The gradient is the data moment minus the model moment, for every pair and every spin.
# Here it is in plain numpy: the positive phase is an average over the data, the negative
# phase an average over all $2^N$ states weighted by $p(s) = e^{-E(s)}/Z$ (Eq. 5.5). One
# ascent step adds $\eta$ times it. We compare it with bmlab's `visible_gradient(S)` at a
# random parameter point.

# %%
def energy(s, J, theta):
    return -0.5 * np.einsum("ci,ij,cj->c", s, J, s) - s @ theta            # Eq. 5.1


def gradient_by_enumeration(params, S):
    J, theta = params["J"], params["theta"]
    states = bmlab.all_states(len(theta)).astype(float)                     # all 2^N configurations
    w = np.exp(-energy(states, J, theta))
    p = w / w.sum()                                                         # p(s) = e^{-E(s)} / Z
    positive_J, positive_theta = S.T @ S / len(S), S.mean(axis=0)       # <s_i s_j>, <s_i> data
    negative_J, negative_theta = states.T @ (p[:, None] * states), p @ states   # <.>_model, Eq. 5.5
    dJ = positive_J - negative_J
    np.fill_diagonal(dJ, 0.0)                                               # J_ii is no parameter
    return {"J": dJ, "theta": positive_theta - negative_theta}


params = random_machine(N, J_std=0.5, theta_std=0.3, rng=rng)
g_ref = gradient_by_enumeration(params, S)
eta = 0.1
stepped = {key: params[key] + eta * g_ref[key] for key in params}           # one ascent step
raised = visible_log_likelihood(stepped, S) > visible_log_likelihood(params, S)
print(f"one step with eta = {eta} raises L: {raised}")
g_bm = visible_gradient(S)(params)
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
    return {"J": J + J.T, "theta": u[n * (n - 1) // 2:]}


u0, h = pack(params), 1e-5
fd = np.array([(visible_log_likelihood(unpack(u0 + h * e, N), S)
                - visible_log_likelihood(unpack(u0 - h * e, N), S)) / (2 * h)
               for e in np.eye(u0.size)])
print("P =", u0.size, "parameters")
print("Eq. 5.4 agrees with finite differences to 1e-7:", bool(np.abs(pack(g_bm) - fd).max() < 1e-7))

# %% [markdown]
# **The sampled negative phase.** For large $N$ the sum over states is out of reach; instead
# we run `n_chains` Glauber chains (the heat-bath update of Eq. 5.2, notebook 01) for $k$
# sweeps from random starts and average over their final states. Written out, next to
# bmlab's vectorised `visible_gradient(S, method="glauber")`: both are the *same* random
# algorithm, so each of the 55 components of their difference has mean zero, whatever $k$.
# We check that with z-scores (independent draws, 4000 chains each, $k = 2$); the threshold
# $|z| < 4.5$ is crossed by chance with probability below $4 \times 10^{-4}$ over 55 components.

# %%
def gradient_by_glauber(params, S, *, n_chains, k, rng):
    J, theta = params["J"], params["theta"]
    s = rng.choice([-1.0, 1.0], size=(n_chains, len(theta)))               # random starts
    for _ in range(k):                                                        # k sweeps
        for i in range(len(theta)):                                          # sites in order
            field = s @ J[i] + theta[i]                                      # local field h_i
            s[:, i] = np.where(rng.random(n_chains) < 1 / (1 + np.exp(-2 * field)), 1.0, -1.0)
    dJ = S.T @ S / len(S) - s.T @ s / n_chains                               # data minus chains
    np.fill_diagonal(dJ, 0.0)
    return {"J": dJ, "theta": S.mean(axis=0) - s.mean(axis=0)}, s


check_rng = np.random.default_rng(SEED + 1)
g_ref, s_ref = gradient_by_glauber(params, S, n_chains=4000, k=2, rng=check_rng)
g_bm = visible_gradient(S, method="glauber", n_chains=4000, k=2)(params, check_rng)
phi_ref = np.concatenate([s_ref[:, iu[0]] * s_ref[:, iu[1]], s_ref], axis=1)  # per chain
standard_error = np.sqrt(2 * phi_ref.var(axis=0) / 4000)
z = np.abs(pack(g_ref) - pack(g_bm)) / standard_error
print(f"reference agrees with bmlab (max |z| = {z.max():.2f} < 4.5 over 55 components): "
      f"{z.max() < 4.5}")

# %% [markdown]
# From here on bmlab's version does the work. Gradient ascent from $J = 0, \theta = 0$ with
# the training loop `bmlab.train` (the same loop notebooks 04 and 05 use); the metric
# recorded along the way is the exact $L$.

# %%
def L_teacher(p):
    return visible_log_likelihood(p, S)


zero = {"J": np.zeros((N, N)), "theta": np.zeros(N)}
exact = visible_gradient(S)
sgd = bmlab.train(zero, exact, n_steps=300, lr=0.1, record_every=5, metrics={"L": L_teacher})
print("L at the start: {:.4f}  (= -N log 2 = {:.4f})".format(sgd.history["L"][0], -N * np.log(2)))
print("L after 300 steps: {:.4f}".format(sgd.history.last("L")))
print("L rose at every recorded step:", bool(np.all(np.diff(sgd.history["L"]) > 0)))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3))
ax1.plot(sgd.history["step"], sgd.history["L"], color=bmlab.NAVY)
ax1.set_xlabel("update")
ax1.set_ylabel("L (nats)")
ax1.set_title("log-likelihood rises")
ax2.semilogy(sgd.history["step"], sgd.history["grad_norm"], color=bmlab.ORANGE)
ax2.set_xlabel("update")
ax2.set_ylabel("gradient norm")
ax2.set_title("gradient norm falls")
plt.show()

# %% [markdown]
# **What to look for:** $L$ rises fast at first and then flattens while the gradient norm keeps
# falling steadily:
# plain ascent crawls along flat directions near the optimum.

# %% [markdown]
# ## 3 · Moment matching at the optimum, Eq. 5.6
#
# Plain gradient ascent slows down along flat directions. Because we have the exact Hessian
# (next section), `visible_newton_fit` climbs with Newton steps $\Delta u = -H^{-1}\nabla L$,
# which converge quadratically, halving a step whenever it would lower $L$.

# %%
fit = visible_newton_fit(S)
print("converged, gradient norm < 1e-8:", bool(np.linalg.norm(pack(exact(fit))) < 1e-8))
print(f"L at the optimum: {L_teacher(fit):.4f}   "
      f"L of the teacher on the same data: {L_teacher(teacher):.4f}")
m_fit, C_fit = bmlab.exact_moments(fit["J"], fit["theta"])
print("model moments equal data moments to 1e-8:",
      bool(max(np.abs(m_fit - m_data).max(), np.abs(C_fit - C_data).max()) < 1e-8))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3.4))
ax1.plot([-1, 1], [-1, 1], color=bmlab.GRAY, lw=1)
ax1.scatter(C_data[iu], C_fit[iu], s=14, color=bmlab.NAVY, label=r"$\langle s_i s_j\rangle$")
ax1.scatter(m_data, m_fit, s=22, marker="s", color=bmlab.ORANGE, label=r"$\langle s_i\rangle$")
ax1.set_xlabel("data moment")
ax1.set_ylabel("model moment")
ax1.set_title("Eq. 5.6: moments match")
ax1.legend()
lim = 1.1 * max(np.abs(teacher["J"]).max(), np.abs(fit["J"]).max())
ax2.plot([-lim, lim], [-lim, lim], color=bmlab.GRAY, lw=1)
ax2.scatter(teacher["J"][iu], fit["J"][iu], s=14, color=bmlab.NAVY)
ax2.set_xlabel(r"teacher $J_{ij}$")
ax2.set_ylabel(r"learned $J_{ij}$")
ax2.set_title("couplings: learned vs teacher")
plt.show()
print("largest |learned - teacher| coupling: {:.2f} (finite data: D = 1000)".format(
    np.abs(fit["J"] - teacher["J"]).max()))

# %% [markdown]
# **What to look for:** left, every point on the diagonal (Eq. 5.6); right, a visible scatter about
# the diagonal.

# %% [markdown]
# The moments match to machine precision, but the couplings differ from the teacher's: the
# fit maximizes the likelihood of *these* 1000 samples, and a finite sample's moments are not
# the teacher's moments. With more data the two would converge (exercise 2).
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
    X = phi - p @ phi                                  # centred sufficient statistics
    return -(X.T @ (X * p[:, None]))                   # minus their model covariance


H = hessian(fit)
u_fit = pack(fit)
fd_H = np.array([(pack(exact(unpack(u_fit + h * e, N))) - pack(exact(unpack(u_fit - h * e, N))))
                 / (2 * h) for e in np.eye(u_fit.size)])
eig = np.linalg.eigvalsh(H)
print("Hessian shape:", H.shape)
print("Hessian equals finite differences of Eq. 5.4 (to 1e-6):",
      bool(np.abs(H - fd_H).max() < 1e-6))
print("all eigenvalues <= 0 (to 1e-12):", bool(eig.max() <= 1e-12))
print(f"most negative eigenvalue lambda_min: {eig.min():.3f}, least negative: {eig.max():.2e}")
print(f"2/|lambda_min| = {2 / abs(eig.min()):.3f}")

direction = rng.standard_normal(u_fit.size)
direction /= np.linalg.norm(direction)
ts = np.linspace(-3, 3, 61)
slice_L = np.array([L_teacher(unpack(u_fit + t * direction, N)) for t in ts])
print("1-D slice is concave (second differences <= 0):", bool(np.all(np.diff(slice_L, 2) <= 1e-12)))
print("slice peaks at t = 0:", bool(abs(ts[np.argmax(slice_L)]) < 1e-12))

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(ts, slice_L, color=bmlab.NAVY)
ax.axvline(0, color=bmlab.GRAY, ls="--", lw=1)
ax.set_xlabel("t (distance from the optimum along a random unit direction)")
ax.set_ylabel("L")
ax.set_title("a slice through L is concave")
plt.show()

# %% [markdown]
# **What to look for:** one smooth hump with its top at $t=0$ and no second bump anywhere along the
# slice.

# %% [markdown]
# The curvature also sets the largest stable learning rate of plain gradient ascent: near the
# optimum, $u$ moves by $(1 + \eta H)$ per step, which shrinks every direction only when
# $\eta < 2/|\lambda_\text{min}|$, with $\lambda_\text{min}$ the most negative eigenvalue
# (printed above; the learning rate 0.1 used here is below it; exercise 1 tries both sides).
#
# ## 5 · A sampled negative phase
#
# Now the Glauber negative phase of Section 2 inside the training loop, either from fresh
# random starts at every step or *persistently* (each step continues the chains of the
# previous one). We train with each, from the same start and with the same learning rate,
# and record the exact $L$.

# %%
runs = {  # name: (method, k)
    "exact": ("exact", 1),
    "fresh chains, k=1": ("glauber", 1),
    "fresh chains, k=10": ("glauber", 10),
    "persistent, k=1": ("persistent", 1),
}
curves = {}
for name, (method, k) in runs.items():
    res = bmlab.train(zero, visible_gradient(S, method=method, n_chains=100, k=k), n_steps=300,
                      lr=0.1, record_every=5, metrics={"L": L_teacher},
                      rng=np.random.default_rng(SEED))  # the exact gradient draws nothing
    curves[name] = res.history
L_opt = L_teacher(fit)
print(f"{'negative phase':<20} {'spin updates/step':>18} {'final L':>9} {'L_opt - L':>10}")
for name, (method, k) in runs.items():
    cost = 2**N * N if method == "exact" else 100 * k * N
    L_end = curves[name].last("L")
    print(f"{name:<20} {cost:>18d} {L_end:>9.3f} {L_opt - L_end:>10.3f}")

fig, ax = plt.subplots(figsize=(6, 3.4))
for name, hist in curves.items():
    ax.plot(hist["step"], hist["L"], label=name, lw=2.2 if name == "exact" else 1.4)
ax.axhline(L_opt, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
ax.set_ylim(L_opt - 3, L_opt + 0.3)
ax.set_xlabel("update")
ax.set_ylabel("exact L")
ax.set_title("exact vs sampled negative phase")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to look for:** which curves stop short of the dashed optimum: fresh chains with $k=1$ far
# below it,
# $k=10$ closer, persistent chains almost on the exact curve.

# %% [markdown]
# (The exact row's cost counts one energy per state, $2^N N$ multiply-adds, for comparison.)
# To separate **noise** from **bias**, sit at the optimum, where the exact gradient is zero,
# and draw 30 independent gradient estimates with fresh chains for several sweep budgets $k$.
# The norm of their mean is the bias (it would be zero for an unbiased estimator, up to
# $\text{noise}/\sqrt{30}$); their spread is the noise.

# %%
print(f"{'k sweeps':>8} {'bias |mean|':>12} {'noise (rms)':>12}")
bias_rows = []
for k in (1, 3, 10, 30):
    est = visible_gradient(S, method="glauber", n_chains=100, k=k)
    G = np.array([pack(est(fit, rng)) for _ in range(30)])
    bias = np.linalg.norm(G.mean(axis=0))
    noise = np.sqrt(np.mean(np.sum((G - G.mean(axis=0)) ** 2, axis=1)))
    bias_rows.append((k, bias, noise))
    print(f"{k:>8d} {bias:>12.3f} {noise:>12.3f}")
print("bias exceeds 3 noise/sqrt(30) for every k:",
      all(bias > 3 * noise / np.sqrt(30) for _, bias, noise in bias_rows))

# %% [markdown]
# With one sweep from a random start the chains have not yet aligned: the estimated
# correlations are too weak, and the gradient keeps pushing the couplings up -- bias, not
# noise, and more chains would not remove it. More sweeps fix the alignment but *not* the
# remaining bias: the teacher has two modes (mostly $-$, about two thirds of the mass, and
# mostly $+$), a fresh chain drops into one of them depending on its random start, and
# crossing between them takes far longer than 30 sweeps. The mode weights of the estimate are
# set by the starting points, not by the model: the mixing obstruction of Section 5.5.
# Persistent chains never restart, so their mode populations can follow the model -- they
# did best above at the lowest cost -- as long as the parameters move slowly compared with
# the chains.
#
# ## 6 · The trap (Section 5.5)
#
# **(a) A frozen negative phase.** Compute the model moments once, at $J = 0, \theta = 0$
# (where they are all zero), and reuse them. The "gradient" is then a constant vector, the
# data moments themselves, and nothing ever stops the update.

# %%
frozen = bmlab.train(zero, visible_gradient(S, method="frozen"), n_steps=200, lr=0.1,
                     record_every=10,
                     metrics={"L": L_teacher, "max|J|": lambda p: float(np.abs(p["J"]).max())})
steps, maxJ = frozen.history["step"], frozen.history["max|J|"]
slope = np.diff(maxJ) / np.diff(steps)
print("max|J| grows linearly, slope = lr * max<s_i s_j>_data = %.4f:" % (0.1 * C_data[iu].max()),
      bool(np.allclose(slope, 0.1 * C_data[iu].max())))
print("max|J| after 200 steps: {:.1f}, and L has fallen to {:.1f}".format(
    maxJ[-1], frozen.history.last("L")))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3))
ax1.plot(steps, maxJ, color=bmlab.ORANGE, label="frozen negative phase")
ax1.axhline(np.abs(fit["J"]).max(), color=bmlab.NAVY, ls="--", lw=1, label="ML optimum")
ax1.set_xlabel("update")
ax1.set_ylabel(r"max $|J_{ij}|$")
ax1.legend(fontsize=8)
ax2.plot(steps, frozen.history["L"], color=bmlab.ORANGE)
ax2.axhline(L_opt, color=bmlab.NAVY, ls="--", lw=1)
ax2.set_xlabel("update")
ax2.set_ylabel("exact L")
ax2.set_title("drift overshoots the optimum")
plt.show()

# %% [markdown]
# **What to look for:** $\max|J|$ climbing on a straight line through the optimum's value without
# stopping, and
# $L$ rising briefly, then falling without end.

# %% [markdown]
# **Hebb forever.** At $J=0,\theta=0$ every state is as likely as its mirror image, so all model
# moments vanish ($\langle s_i\rangle=0$, $\langle s_is_j\rangle=0$ for $i\ne j$). The first exact
# step of Eq. 5.4 from zero is therefore $\Delta J_{ij}=\eta\langle s_is_j\rangle_\text{data}$,
# $\Delta\theta_i=\eta\langle s_i\rangle_\text{data}$: Hebb's rule, with the data as the patterns
# (Section 8 writes it for the letter prototypes). The frozen negative phase is that first
# step repeated for ever, so the trapped machine is Hebb's, scaled by the number of steps.

# %%
m0, C0 = bmlab.exact_moments(zero["J"], zero["theta"])
print("model moments at J = 0, theta = 0 vanish (1e-12):",
      bool(max(np.abs(m0).max(), np.abs(C0 - np.eye(N)).max()) < 1e-12))
hebb_data = C_data - np.diag(np.diag(C_data))    # Hebb on the data: <s_i s_j>_data, J_ii = 0
first = {key: 0.1 * v for key, v in exact(zero).items()}   # Section 2's first step (lr 0.1)
print("first exact step from zero is Hebb's rule on the data, dJ = 0.1 <s_i s_j>_data (1e-12):",
      bool(np.abs(first["J"] - 0.1 * hebb_data).max() < 1e-12
           and np.abs(first["theta"] - 0.1 * m_data).max() < 1e-12))
n_frozen = frozen.history["step"][-1]
print(f"at the trap, after {n_frozen} frozen steps: "
      f"J = {0.1 * n_frozen:g} x Hebb couplings (1e-10):",
      bool(np.abs(frozen.params["J"] - 0.1 * n_frozen * hebb_data).max() < 1e-10))

# %% [markdown]
# **(b) Data moments in place of model moments.** If the negative phase is (wrongly) read off
# the data, both terms of Eq. 5.4 are the same number.

# %%
data_as_model = bmlab.train(zero, visible_gradient(S, method="data"), n_steps=50, lr=0.1)
print("gradient identically zero at every step:",
      bool(np.all(data_as_model.history["grad_norm"] == 0)))
print("parameters after 50 steps unchanged (all zero):",
      bool(all(np.all(v == 0) for v in data_as_model.params.values())))

# %% [markdown]
# ## 7 · Maximum entropy, run backwards
#
# Among all distributions with the data's first and second moments, the fitted machine is the
# one of largest entropy, and $(\theta, J)$ are the Lagrange multipliers of the moment
# constraints. The dual function
#
# $$L_D(\theta, J) = \log Z - \sum_i \theta_i \langle s_i\rangle_\text{data}
#   - \tfrac12 \sum_{i\ne j} J_{ij}\langle s_i s_j\rangle_\text{data} = -L$$
#
# upper-bounds the maximum entropy everywhere (weak duality) and touches it at the optimum
# (strong duality). Away from the optimum, $L_D$ also exceeds the machine's *own* entropy
# $H(p_\text{model}) = \log Z + \langle E\rangle_\text{model}$, by
# $L_D - H(p_\text{model}) = \langle E\rangle_\text{data} - \langle E\rangle_\text{model}$,
# a gap that closes only where the moments match.

# %%
def dual(params, S):
    J, theta = params["J"], params["theta"]
    return (bmlab.log_partition(J, theta) - theta @ S.mean(axis=0)
            - 0.5 * np.sum(J * (S.T @ S / len(S))))


def entropy(p):
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def model_entropy(params):
    return entropy(bmlab.boltzmann_probs(params["J"], params["theta"]))


H_fit = model_entropy(fit)
print(f"at the optimum:  L_D = {dual(fit, S):.4f},  H(p_model) = {H_fit:.4f}")
print("strong duality, |L_D - H| < 1e-8:", bool(abs(dual(fit, S) - H_fit) < 1e-8))
p_params = bmlab.boltzmann_probs(params["J"], params["theta"])
gap = dual(params, S) - model_entropy(params)
E_gap = bmlab.energy(S, params["J"], params["theta"]).mean() - p_params @ bmlab.energy(
    bmlab.all_states(N), params["J"], params["theta"])
print(f"at the random point of Section 2: L_D - H(p_model) = {gap:.3f} "
      "= <E>_data - <E>_model (to 1e-10):",
      bool(abs(gap - E_gap) < 1e-10))
print("weak duality, L_D(anywhere) >= H(p_model at the optimum):",
      bool(dual(params, S) >= H_fit and dual(zero, S) >= H_fit))

# %% [markdown]
# Two other distributions with exactly the same first and second moments: the data's own
# empirical distribution, and one built by tilting the model's probabilities along a random
# direction $w(s)$ that is orthogonal, in the $p$-weighted inner product, to the constant and
# to every sufficient statistic -- so no moment changes. Both have lower entropy.

# %%
def same_moments(p, phi, *, rng):
    A = np.concatenate([np.ones((len(p), 1)), phi], axis=1)        # 1 and phi(s) for every state
    g = rng.standard_normal(len(p))
    root = np.sqrt(p)[:, None]
    w = g - A @ np.linalg.lstsq(root * A, root[:, 0] * g, rcond=None)[0]   # orthogonal to A
    q = np.clip(p * (1 + w / np.max(-w[p > 0])), 0, None)         # largest tilt keeping q >= 0
    return q / q.sum()


states10 = bmlab.all_states(N).astype(float)
p_fit = bmlab.boltzmann_probs(fit["J"], fit["theta"])
p_data = np.bincount(bmlab.state_codes(S), minlength=2**N) / len(S)
phi10 = np.concatenate([states10[:, iu[0]] * states10[:, iu[1]], states10], axis=1)
q = same_moments(p_fit, phi10, rng=rng)
for name, dist in (("empirical data distribution", p_data), ("moment-preserving perturbation", q)):
    m_q, C_q = bmlab.moments_from_probs(dist, N)
    same = max(np.abs(m_q - m_fit).max(), np.abs(C_q - C_fit).max()) < 1e-8
    print(f"{name}: same moments: {same}, entropy {entropy(dist):.4f} < {H_fit:.4f}:",
          entropy(dist) < H_fit)
for name, p in (("optimum", fit), ("J=0, theta=0", zero)):
    log_p = np.log(bmlab.boltzmann_probs(p["J"], p["theta"]))
    kl = np.sum(p_data[p_data > 0] * (np.log(p_data[p_data > 0]) - log_p[p_data > 0]))
    print(f"L = -KL(p_data||p_model) - H(p_data) at the {name} (to 1e-10):",
          bool(abs(L_teacher(p) - (-kl - entropy(p_data))) < 1e-10))

# %% [markdown]
# ## 8 · Memorize versus learn, and the two forces (Figures 5.1 and 5.2)
#
# Hebb's rule writes the couplings in one pass, $J = \frac1N\sum_\mu \xi^\mu \xi^{\mu\top}$
# (zero diagonal), from the four letter prototypes. To give it a fair chance we let maximum
# likelihood choose its overall scale $c$ (a one-dimensional fit of $L(cJ)$); Hebb itself
# fixes only the couplings' pattern. Maximum likelihood instead fits all $P = 45$ parameters
# to the noisy copies.

# %%
N_let = 9
J_hebb = letters.T @ letters / N_let                  # Hebb: sum over patterns of xi xi^T / N
np.fill_diagonal(J_hebb, 0.0)
zero9 = np.zeros(N_let)
c = minimize_scalar(lambda c: -visible_log_likelihood({"J": c * J_hebb, "theta": zero9}, S_letters),
                    bounds=(0.0, 10.0), method="bounded", options={"xatol": 1e-9}).x
hebb = {"J": c * J_hebb, "theta": zero9}
ml = visible_newton_fit(S_letters)
L_hebb, L_ml = visible_log_likelihood(hebb, S_letters), visible_log_likelihood(ml, S_letters)
L_best = -entropy(np.bincount(bmlab.state_codes(S_letters), minlength=2**N_let) / len(S_letters))
print(f"maximum-likelihood scale of the Hebb couplings: c = {c:.3f}")
print(f"L, Hebb (scale fitted): {L_hebb:.3f}")
print(f"L, maximum likelihood : {L_ml:.3f}")
print(f"L, empirical law (no model can beat it on this data): {L_best:.3f}")
print("maximum likelihood beats Hebb:", L_ml > L_hebb)

# %% [markdown]
# Where do the prototypes sit in each landscape? Many states share an energy exactly (Hebb's
# energy is symmetric under $s \to -s$, and its couplings take few values), so we rank the
# *distinct energy levels* -- energies closer than $10^{-9}$ count as one level, level 0 is
# the lowest -- rather than the states, whose order within a level is arbitrary.

# %%
def level_of(E, e, tol=1e-9):
    """Rank of energy e among the distinct levels of E (0 = lowest)."""
    E_sorted = np.sort(E)
    lowest_of_each_level = E_sorted[np.concatenate([[True], np.diff(E_sorted) > tol])]
    return int(np.sum(lowest_of_each_level < e - tol))


states = bmlab.all_states(N_let)
codes_proto = bmlab.state_codes(letters)
in_data = np.bincount(bmlab.state_codes(S_letters), minlength=2**N_let) > 0
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
for ax, (name, p) in zip(axes, (("Hebb, scale fitted", hebb), ("maximum likelihood", ml)),
                         strict=True):
    E = bmlab.energy(states, p["J"], p["theta"])
    order = np.argsort(E, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    ax.plot(np.arange(E.size), E[order], color=bmlab.GRAY, lw=1)
    ax.scatter(rank[in_data], E[in_data], s=10, color=bmlab.ORANGE, label="states in the data",
               zorder=3)
    ax.scatter(rank[codes_proto], E[codes_proto], s=60, marker="*", color=bmlab.NAVY,
               label="letter prototypes", zorder=4)
    ax.set_xlabel("state, sorted by energy")
    ax.set_ylabel("energy E(s)")
    ax.set_title(f"{name}: L = {visible_log_likelihood(p, S_letters):.2f}")
    levels = [level_of(E, e) for e in E[codes_proto]]
    n_levels = level_of(E, np.inf)
    print(f"{name}: prototypes T, L, X, O on energy levels {levels} of {n_levels} distinct levels;"
          f" {int(np.sum(np.abs(E - E.min()) < 1e-9))} state(s) share the lowest level")
axes[0].legend(fontsize=8)
fig.suptitle("Figure 5.1: couplings written (Hebb) vs couplings fitted (maximum likelihood)")
fig.tight_layout()
bmlab.save_figure(fig, "fig5.1_memorize_vs_learn")
plt.show()

# %% [markdown]
# **What to look for:** where the navy stars sit on the gray staircase: on Hebb's coarse steps
# beside other
# states, on maximum likelihood's four lowest energies.

# %% [markdown]
# Hebb did **not** put the minima at the patterns. The letter L shares the lowest level with
# three other states: its inverted twin (Hebb's energy is symmetric under $s \to -s$) and a
# spurious state that is no letter, with its twin. T and O sit one level up, beside their
# twins and four more spurious states, and X two levels up. Four patterns on nine units are
# far more than Hebb's rule can store (Section 4.2: about $0.138\,N \approx 1$ pattern here),
# so the stored patterns interfere and mixtures compete with them. The fitted scale $c$ does
# not change the order of the levels, so these are pure Hebb's ranks. Maximum likelihood, fit
# to the noisy copies, puts the four prototypes on its four lowest energies: the landscape is
# molded until its basins sit under the data.
#
# **The two forces.** Start from the Hebb machine and take one exact gradient step. The change
# of each state's energy splits into the positive phase, $-\eta(\tfrac12 s^\top C'_\text{data} s +
# m_\text{data}\cdot s)$, which is most negative where the data are, and the negative phase,
# $+\eta(\tfrac12 s^\top C'_\text{model} s + m_\text{model}\cdot s)$, which is largest where the
# model already puts its mass -- on its own samples, including the spurious states
# (primes: diagonal set to zero).

# %%
def push(m, C, states):
    """1/2 s^T C' s + m . s for every state (C' = C with zero diagonal)."""
    return 0.5 * np.einsum("ci,ij,cj->c", states, C - np.diag(np.diag(C)), states) + states @ m


lr_step = 0.5
states_f = states.astype(float)
m_hebb, C_hebb = bmlab.exact_moments(hebb["J"], hebb["theta"])
dE_pos = -lr_step * push(m_let, C_let, states_f)              # down where the data are
dE_neg = +lr_step * push(m_hebb, C_hebb, states_f)            # up where the model puts mass
g_hebb = visible_gradient(S_letters)(hebb)
after = {key: hebb[key] + lr_step * g_hebb[key] for key in hebb}
E_hebb = bmlab.energy(states, hebb["J"], hebb["theta"])
dE = bmlab.energy(states, after["J"], after["theta"]) - E_hebb
print("the two phases add up to the energy change of one gradient step (to 1e-10):",
      bool(np.abs(dE_pos + dE_neg - dE).max() < 1e-10))

order = np.argsort(E_hebb, kind="stable")
model_samples = bmlab.state_codes(
    bmlab.glauber_sample(hebb["J"], hebb["theta"], n_chains=200, n_sweeps=20, init="random",
                         rng=rng))
sampled = np.zeros(states.shape[0], dtype=bool)
sampled[model_samples] = True
x = np.arange(states.shape[0])
rank = np.empty_like(order)
rank[order] = x

fig, ax = plt.subplots(figsize=(9, 3.6))
ax.bar(x, dE_pos[order], width=1.0, color=bmlab.NAVY, alpha=0.55,
       label="positive phase (down on data)")
ax.bar(x, dE_neg[order], width=1.0, color=bmlab.ORANGE, alpha=0.55,
       label="negative phase (up on the model)")
ax.plot(x, dE[order], color="k", lw=0.8, label="net change")
ax.scatter(rank[in_data], dE_pos[in_data] - 0.3, marker="^", s=12, color=bmlab.NAVY,
           label="data states")
ax.scatter(rank[sampled], dE_neg[sampled] + 0.3, marker="v", s=12, color=bmlab.ORANGE,
           label="Glauber samples of the model")
ax.axhline(0, color=bmlab.GRAY, lw=0.8)
ax.set_xlabel("state, sorted by its energy under the Hebb machine")
ax.set_ylabel(r"change of $E(s)$ in one step")
ax.set_title(f"Figure 5.2: the two forces of one gradient step (lr = {lr_step})")
ax.legend(fontsize=7, ncol=2, loc="lower right")
bmlab.save_figure(fig, "fig5.2_two_forces")
plt.show()
print(f"mean positive push on data states: {dE_pos[in_data].mean():.2f} "
      f"(averaged over all states it is zero: {bool(abs(dE_pos.mean()) < 1e-12)})")
print(f"mean negative push on model-sampled states: {dE_neg[sampled].mean():.2f} "
      f"(averaged over all states it is zero: {bool(abs(dE_neg.mean()) < 1e-12)})")

# %% [markdown]
# **What to look for:** the navy bars are not all negative nor the orange all positive; the black
# net change is
# what moves the landscape: down under the data triangles, up under the model's samples.

# %% [markdown]
# **A quadratic form, not a pull at single points.** Each phase changes the energy of *every*
# state: the positive phase by $-\eta(\tfrac12 s^\top C'_\text{data}s+m_\text{data}\cdot s)$, a
# quadratic form in $s$. Summed over all $2^9$ states, $s_is_j$ ($i\ne j$) and $s_i$ each cancel
# (every state has partners with the sign flipped), so each phase raises as much energy as it
# lowers. The "down on data" bars therefore push down the states that agree with the data's
# correlations -- the data states among them, on average -- and push *up* every state that
# disagrees, a large share of all states. Likewise for the negative phase with the model's
# moments. Neither phase acts only where its samples are.
#
# At the maximum-likelihood machine `ml` the model's moments equal the data's (Eq. 5.6): the
# two quadratic forms are the same with opposite signs, so the two forces cancel on every state
# and the landscape stops moving.

# %%
up_pos = np.mean(dE_pos > 1e-9)
print(f"the positive phase (at the Hebb machine) raises the energy of {up_pos:.0%} of all states")
m_ml, C_ml = bmlab.exact_moments(ml["J"], ml["theta"])
dE_pos_ml = -lr_step * push(m_let, C_let, states_f)
dE_neg_ml = +lr_step * push(m_ml, C_ml, states_f)
print("at the optimum the two forces cancel on every state (|net| < 1e-6):",
      bool(np.abs(dE_pos_ml + dE_neg_ml).max() < 1e-6))
E_ml = bmlab.energy(states, ml["J"], ml["theta"])
order_ml = np.argsort(E_ml, kind="stable")
fig, ax = plt.subplots(figsize=(9, 3.2))
ax.bar(x, dE_pos_ml[order_ml], width=1.0, color=bmlab.NAVY, alpha=0.55,
       label="positive phase (data moments)")
ax.bar(x, dE_neg_ml[order_ml], width=1.0, color=bmlab.ORANGE, alpha=0.55,
       label="negative phase (model moments)")
ax.axhline(0, color=bmlab.GRAY, lw=0.8)
ax.plot(x, (dE_pos_ml + dE_neg_ml)[order_ml], color="k", lw=1.2, label="net change")
ax.set_xlabel("state, sorted by its energy under the maximum-likelihood machine")
ax.set_ylabel(r"change of $E(s)$ in one step")
ax.set_title(f"Figure 5.2 at the optimum: the two forces balance (lr = {lr_step})")
ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
fig.tight_layout()
bmlab.save_figure(fig, "fig5.2_two_forces_at_optimum")
plt.show()

# %% [markdown]
# **What to look for:** each orange bar is the mirror image of the navy bar of its state, and the
# black net line
# lies flat on zero.

# %% [markdown]
# ## Live: train it yourself
#
# Pick a learning rate, a number of steps and the negative phase, then press **Run**. The left
# panel shows the exact $L$ against the update, the right one the moment-matching scatter of
# Eq. 5.6. Try the frozen and data-as-model settings (Section 5.5), Glauber with $k = 1$ versus
# $k = 10$, and a learning rate above $2/|\lambda_\text{min}|$ (Section 4; about 0.23 for these
# letters, see exercise 1).

# %% tags=["nbval-ignore-output"]
from bmlab.widgets.training import training_panel

panel = training_panel()
panel

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. A worked solution follows each check cell, collapsed:
# click the `…` (or the bar at the cell's left) to show it, then run it.

# %% [markdown]
# **1 · Step size.** Compute the most negative Hessian eigenvalue $\lambda_\text{min}$ at the
# letter optimum `ml`. Train from zero with plain gradient ascent with learning rates just
# below and just above $2/|\lambda_\text{min}|$. What happens, and why? *Your answer:*
# $2/|\lambda_\text{min}|$ at `ml`, to 3 decimals.

# %%
my_answer = None  # 2 / |lambda_min| at the letter optimum ml, to 3 decimals
bmlab.check("03.1", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 1: plain ascent is stable when lr < 2/|lambda_min| (a linearisation at the optimum).
lam = np.linalg.eigvalsh(hessian(ml)).min()
answer = 2 / abs(lam)
zero_let = {"J": np.zeros((N_let, N_let)), "theta": np.zeros(N_let)}
for lr_try in (0.9 * answer, 1.2 * answer):
    r = bmlab.train(zero_let, visible_gradient(S_letters), n_steps=400, lr=lr_try,
                    on_diverge="stop", max_abs=100.0)
    print(f"lr = {lr_try:.3f}: L after 400 steps = "
          f"{visible_log_likelihood(r.params, S_letters):.3f} (optimum {L_ml:.3f})")
assert bmlab.check("03.1", answer)

# %% [markdown]
# **2 · Moment matching without a sampler.** What is the model's $\langle s_1 s_9\rangle$ (top
# left and bottom right pixels) at the letter optimum `ml`? Why can you answer without
# computing anything about the model? *Your answer:* to 3 decimals.

# %%
my_answer = None  # <s1 s9>_model at ml, to 3 decimals
bmlab.check("03.2", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 2: at the maximum the gradient (Eq. 5.4) vanishes, so every model pair moment equals
# the data's (Eq. 5.6); the data moment is an average over the 120 noisy letters.
answer = (S_letters[:, 0] * S_letters[:, 8]).mean()
_, C_ml = bmlab.exact_moments(ml["J"], ml["theta"])
print(f"<s1 s9>: data {answer:.3f}, model at ml {C_ml[0, 8]:.3f}")
assert bmlab.check("03.2", answer)

# %% [markdown]
# **3 · Weight decay.** With `weight_decay=w` the loop climbs $L - \tfrac w2\sum_{i<j}
# J_{ij}^2$. Which equation replaces Eq. 5.6 at its optimum? Check it numerically on the
# letters with $w = 0.05$ (`visible_newton_fit(S_letters, weight_decay=0.05)`). *Your
# answer:* the largest $|\langle s_i s_j\rangle_\text{data} - \langle s_i
# s_j\rangle_\text{model}|$ over pairs $i \ne j$ at that optimum, to 3 decimals.

# %%
my_answer = None  # largest |C_data - C_model| off the diagonal at w = 0.05, to 3 decimals
bmlab.check("03.3", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 3: at the optimum <s_i s_j>_data - <s_i s_j>_model = w J_ij (biases still match).
w = 0.05
wd = visible_newton_fit(S_letters, weight_decay=w)
m_w, C_w = bmlab.exact_moments(wd["J"], wd["theta"])
off = ~np.eye(N_let, dtype=bool)
print("C_data - C_model = w J off the diagonal (to 1e-8):",
      bool(np.allclose((C_let - C_w)[off], w * wd["J"][off], atol=1e-8)))
print("m_data = m_model (to 1e-8):", bool(np.allclose(m_let, m_w, atol=1e-8)))
answer = np.abs(C_let - C_w)[off].max()
assert bmlab.check("03.3", answer)

# %% [markdown]
# **4 · More data, closer to the teacher** (an open question, no check). Fit the teacher's
# data with $D = 1000$ and $D = 10\,000$ exact samples (Newton). How does the largest coupling
# error scale with $D$? Why can a very small sample make some learned coupling huge?

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 4: the error shrinks roughly like 1/sqrt(D). With few samples a pair may be aligned in
# every sample (<s_i s_j>_data = 1): its ML coupling is then infinite (a boundary of moment space).
for D in (1000, 10_000):
    S_D = bmlab.sample_exact(teacher["J"], teacher["theta"], n_samples=D, rng=rng)
    fit_D = visible_newton_fit(S_D)
    print(f"D = {D:5d}: largest coupling error {np.abs(fit_D['J'] - teacher['J']).max():.2f}")
