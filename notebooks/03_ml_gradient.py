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
# machine (±1 spins, energy Eq. 5.1) to data by climbing the average log-likelihood
#
# $$L(J,\theta) = \langle \log p(s)\rangle_\text{data} = \langle -E(s)\rangle_\text{data} - \log Z .$$
#
# Every number below is checked against exact enumeration: with $N \le 10$ spins there are at
# most 1024 states, so $Z$, the model moments and even the Hessian are cheap. The plan:
#
# 1. data from a teacher machine and from a tiny pattern set;
# 2. the gradient, Eq. 5.4, checked against finite differences, and training curves;
# 3. moment matching at the optimum, Eq. 5.6;
# 4. why there are no local maxima (concavity);
# 5. replacing the exact negative phase by Glauber chains;
# 6. the trap of Section 5.5;
# 7. maximum entropy and strong duality;
# 8. memorizing (Hebb) versus learning, and the two forces of Figures 5.1 and 5.2.
#
# **Parameters.** The pair $(J_{ij}, J_{ji})$ is *one* parameter and the diagonal is none, so
# a machine on $N$ spins has $P = N(N-1)/2 + N$ free numbers. `bmlab.visible` stores $J$ as a
# symmetric matrix with zero diagonal and converts to these $P$ coordinates with `pack` /
# `unpack`; all derivatives below are with respect to them.

# %%
import matplotlib.pyplot as plt
import numpy as np

import bmlab
from bmlab import visible as V
from bmlab.data import letters_3x3, noisy_copies
from bmlab.learning import train

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
N = 10
teacher = V.random_machine(N, J_mean=2.5, J_std=0.5, theta_std=0.1, rng=rng)
S = bmlab.sample_exact(teacher["J"], teacher["theta"], n_samples=1000, rng=rng)
m_data, C_data = V.data_moments(S)
print("data: D =", S.shape[0], "configurations of N =", S.shape[1], "spins")
print("<s_i>_data     :", np.round(m_data, 2))
print(f"<s_i s_j>_data : min {V.upper(C_data).min():.2f}, mean {V.upper(C_data).mean():.2f}, max {V.upper(C_data).max():.2f}")
print(f"fraction of configurations with |magnetization| >= 0.8: {np.mean(np.abs(S.mean(axis=1)) >= 0.8):.2f}")

# %% [markdown]
# The second data set is structured: four letters on a $3\times 3$ grid ($N = 9$), each
# copied 30 times with 8% of the pixels flipped.

# %%
letters = letters_3x3("TLXO")
S_letters = noisy_copies(letters, 30, 0.08, rng=rng)
m_let, C_let = V.data_moments(S_letters)

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
# ## 2 · The learning rule, Eq. 5.4
#
# The gradient is the data moment minus the model moment, for every pair and every spin.
# `V.ExactGradient(S)` computes the model moments by enumeration. We compare it with a
# centred finite difference of the exact $L$ along each of the $P = 55$ coordinates, at a
# random parameter point.

# %%
exact = V.ExactGradient(S)
params = V.random_machine(N, J_std=0.5, theta_std=0.3, rng=rng)
g = V.pack(exact(params))
u0, h = V.pack(params), 1e-5
fd = np.array([
    (V.log_likelihood(V.unpack(u0 + h * e, N), S) - V.log_likelihood(V.unpack(u0 - h * e, N), S))
    / (2 * h)
    for e in np.eye(u0.size)
])
print("P =", u0.size, "parameters")
print("Eq. 5.4 agrees with finite differences to 1e-7:", bool(np.abs(g - fd).max() < 1e-7))

# %% [markdown]
# Now gradient ascent from $J = 0, \theta = 0$ with the training loop `bmlab.learning.train`
# (the same loop notebooks 04 and 05 use). The metric recorded along the way is the exact $L$.

# %%
def L_teacher(p):
    return V.log_likelihood(p, S)


sgd = train(V.zero_params(N), exact, n_steps=300, lr=0.1, record_every=5,
            metrics={"L": L_teacher}, rng=rng)
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
# ## 3 · Moment matching at the optimum, Eq. 5.6
#
# Plain gradient ascent slows down along flat directions. Because we have the exact Hessian
# (next section), we finish with Newton steps, which converge quadratically; the loop halves a
# Newton step whenever it would lower $L$.

# %%
newton = train(sgd.params, exact, n_steps=50, optimizer="newton", lr=1.0,
               stop_grad_norm=1e-10, metrics={"L": L_teacher})
fit = newton.params
print("Newton steps used:", newton.n_updates)
print("converged, gradient norm < 1e-8:", bool(newton.history.last("grad_norm") < 1e-8))
print(f"L at the optimum: {L_teacher(fit):.4f}   L of the teacher on the same data: {L_teacher(teacher):.4f}")
m_fit, C_fit = V.model_moments(fit)
print("model moments equal data moments to 1e-8:",
      bool(max(np.abs(m_fit - m_data).max(), np.abs(C_fit - C_data).max()) < 1e-8))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3.4))
ax1.plot([-1, 1], [-1, 1], color=bmlab.GRAY, lw=1)
ax1.scatter(V.upper(C_data), V.upper(C_fit), s=14, color=bmlab.NAVY,
            label=r"$\langle s_i s_j\rangle$")
ax1.scatter(m_data, m_fit, s=22, marker="s", color=bmlab.ORANGE, label=r"$\langle s_i\rangle$")
ax1.set_xlabel("data moment")
ax1.set_ylabel("model moment")
ax1.set_title("Eq. 5.6: moments match")
ax1.legend()
lim = 1.1 * max(np.abs(teacher["J"]).max(), np.abs(fit["J"]).max())
ax2.plot([-lim, lim], [-lim, lim], color=bmlab.GRAY, lw=1)
ax2.scatter(V.upper(teacher["J"]), V.upper(fit["J"]), s=14, color=bmlab.NAVY)
ax2.set_xlabel(r"teacher $J_{ij}$")
ax2.set_ylabel(r"learned $J_{ij}$")
ax2.set_title("couplings: learned vs teacher")
plt.show()
print("largest |learned - teacher| coupling: {:.2f} (finite data: D = 1000)".format(np.abs(fit["J"] - teacher["J"]).max()))

# %% [markdown]
# The moments match to machine precision, but the couplings differ from the teacher's: the
# fit maximizes the likelihood of *these* 1000 samples, and a finite sample's moments are not
# the teacher's moments. With more data the two would converge (exercise 2).
#
# ## 4 · Concavity: no local maxima
#
# Differentiating Eq. 5.4 once more gives the Hessian. In the $P$ coordinates it is minus the
# covariance matrix of the sufficient statistics $\phi(s) = (s_i s_j\ (i<j),\ s_i)$ under the
# model, so no eigenvalue can be positive and $L$ is concave.

# %%
H = V.hessian(fit)
p_fit = V.model_probs(fit)
Phi = V.sufficient_statistics(bmlab.all_states(N))
cov = (Phi * p_fit[:, None]).T @ Phi - np.outer(p_fit @ Phi, p_fit @ Phi)
eig = np.linalg.eigvalsh(H)
print("Hessian shape:", H.shape)
print("Hessian equals minus the covariance of phi (to 1e-12):", bool(np.abs(H + cov).max() < 1e-12))
print("all eigenvalues <= 0 (to 1e-12):", bool(eig.max() <= 1e-12))
print(f"most negative eigenvalue: {eig.min():.3f}, least negative: {eig.max():.2e}")

direction = rng.standard_normal(u0.size)
direction /= np.linalg.norm(direction)
ts = np.linspace(-3, 3, 61)
slice_L = np.array([V.log_likelihood(V.unpack(V.pack(fit) + t * direction, N), S) for t in ts])
print("1-D slice is concave (second differences <= 0):", bool(np.all(np.diff(slice_L, 2) <= 1e-12)))
print("slice peaks at t = 0:", bool(ts[np.argmax(slice_L)] == 0.0))

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(ts, slice_L, color=bmlab.NAVY)
ax.axvline(0, color=bmlab.GRAY, ls="--", lw=1)
ax.set_xlabel("t (distance from the optimum along a random unit direction)")
ax.set_ylabel("L")
ax.set_title("a slice through L is concave")
plt.show()

# %% [markdown]
# ## 5 · A sampled negative phase
#
# For large $N$ the model moments cannot be enumerated (Eq. 5.5 has $2^N$ terms). The classic
# remedy is to estimate them from Glauber chains at every step. `V.GlauberGradient` runs
# `n_chains` chains for `k` sweeps per step, either from fresh random starts every time or
# *persistently* (each step continues the chains of the previous one). We train with each,
# from the same start and with the same learning rate, and record the exact $L$.

# %%
runs = {
    "exact": V.ExactGradient(S),
    "fresh chains, k=1": V.GlauberGradient(S, n_chains=100, k=1),
    "fresh chains, k=10": V.GlauberGradient(S, n_chains=100, k=10),
    "persistent, k=1": V.GlauberGradient(S, n_chains=100, k=1, persistent=True),
}
curves = {}
for name, est in runs.items():
    res = train(V.zero_params(N), est, n_steps=300, lr=0.1, record_every=5,
                metrics={"L": L_teacher}, rng=np.random.default_rng(SEED))
    curves[name] = res.history
L_opt = L_teacher(fit)
print(f"{'negative phase':<20} {'spin updates/step':>18} {'final L':>9} {'L_opt - L':>10}")
for name, est in runs.items():
    cost = 2**N * N if name == "exact" else est.n_chains * est.k * N
    L_end = curves[name].last("L")
    print(f"{name:<20} {cost:>18d} {L_end:>9.3f} {L_opt - L_end:>10.3f}")

fig, ax = plt.subplots(figsize=(6, 3.4))
for name, h in curves.items():
    ax.plot(h["step"], h["L"], label=name, lw=2.2 if name == "exact" else 1.4)
ax.axhline(L_opt, color=bmlab.GRAY, ls="--", lw=1, label="optimum")
ax.set_ylim(L_opt - 3, L_opt + 0.3)
ax.set_xlabel("update")
ax.set_ylabel("exact L")
ax.set_title("exact vs sampled negative phase")
ax.legend(fontsize=8)
plt.show()

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
    est = V.GlauberGradient(S, n_chains=100, k=k)
    G = np.array([V.pack(est(fit, rng)) for _ in range(30)])
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
frozen = train(V.zero_params(N), V.FrozenGradient(S), n_steps=200, lr=0.1, record_every=10,
               metrics={"L": L_teacher, "max|J|": lambda p: float(np.abs(p["J"]).max())})
steps, maxJ = frozen.history["step"], frozen.history["max|J|"]
slope = np.diff(maxJ) / np.diff(steps)
print("max|J| grows linearly, slope = lr * max<s_i s_j>_data = %.4f:" % (0.1 * V.upper(C_data).max()),
      bool(np.allclose(slope, 0.1 * V.upper(C_data).max())))
print("max|J| after 200 steps: {:.1f}, and L has fallen to {:.1f}".format(maxJ[-1], frozen.history.last("L")))

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
# **(b) Data moments in place of model moments.** If the negative phase is (wrongly) read off
# the data, both terms of Eq. 5.4 are the same number.

# %%
data_as_model = train(V.zero_params(N), V.DataAsModelGradient(S), n_steps=50, lr=0.1)
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
# upper-bounds the maximum entropy everywhere and touches it at the optimum (strong duality).

# %%
H_fit = V.model_entropy(fit)
print(f"at the optimum:  L_D = {V.dual_function(fit, S):.4f},  H(p_model) = {H_fit:.4f}")
print("strong duality, |L_D - H| < 1e-8:", bool(abs(V.dual_function(fit, S) - H_fit) < 1e-8))
start = V.zero_params(N)
gap = V.dual_function(params, S) - V.model_entropy(params)
print(f"at the random point of Section 2: L_D - H(p_model) = {gap:.3f} -> check holds:",
      bool(abs(gap) < 1e-8))
print("weak duality, L_D(anywhere) >= H(p_model at the optimum):",
      bool(V.dual_function(params, S) >= H_fit and V.dual_function(start, S) >= H_fit))

# %% [markdown]
# Two other distributions with exactly the same first and second moments: the data's own
# empirical distribution, and one built by moving the model's probabilities along a direction
# that changes no moment (`V.same_moments_distribution`). Both have lower entropy.

# %%
p_data = V.empirical_distribution(S)
q = V.same_moments_distribution(p_fit, N, rng=rng, fraction=1.0)
for name, dist in (("empirical data distribution", p_data), ("moment-preserving perturbation", q)):
    m_q, C_q = bmlab.moments_from_probs(dist, N)
    same = max(np.abs(m_q - m_fit).max(), np.abs(C_q - C_fit).max()) < 1e-8
    print(f"{name}: same moments: {same}, entropy {V.entropy(dist):.4f} < {H_fit:.4f}:",
          V.entropy(dist) < H_fit)
for name, p in (("optimum", fit), ("J=0, theta=0", start)):
    lhs = V.log_likelihood(p, S)
    rhs = -V.kl_data_model(p, S) - V.entropy(p_data)
    print(f"L = -KL(p_data||p_model) - H(p_data) at the {name} (to 1e-10):", bool(abs(lhs - rhs) < 1e-10))

# %% [markdown]
# ## 8 · Memorize versus learn, and the two forces (Figures 5.1 and 5.2)
#
# Hebb's rule writes the couplings in one pass, $J = \frac1N\sum_\mu \xi^\mu \xi^{\mu\top}$
# (zero diagonal), from the four letter prototypes. To give it a fair chance we let maximum
# likelihood choose only its overall scale $c$ (a 1-D concave fit, `V.fit_scale`). Maximum
# likelihood instead fits all $P = 45$ parameters to the noisy copies.

# %%
N_let = 9
J_hebb = V.hebb_couplings(letters)
c = V.fit_scale(J_hebb, S_letters)
hebb = {"J": c * J_hebb, "theta": np.zeros(N_let)}
ml = train(V.zero_params(N_let), V.ExactGradient(S_letters), n_steps=100, optimizer="newton",
           lr=1.0, stop_grad_norm=1e-10).params
L_hebb, L_ml = V.log_likelihood(hebb, S_letters), V.log_likelihood(ml, S_letters)
L_best = -V.entropy(V.empirical_distribution(S_letters))
print(f"ML scale of the Hebb couplings: c = {c:.3f}")
print(f"L, Hebb (scale fitted): {L_hebb:.3f}")
print(f"L, maximum likelihood : {L_ml:.3f}")
print(f"L, empirical law (no model can beat it on this data): {L_best:.3f}")
print("maximum likelihood beats Hebb:", L_ml > L_hebb)

# %%
states = bmlab.all_states(N_let)
codes_proto = bmlab.state_codes(letters)
in_data = V.empirical_distribution(S_letters) > 0
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=False)
for ax, (name, p) in zip(axes, (("Hebb, scale fitted", hebb), ("maximum likelihood", ml)), strict=False):
    E = bmlab.energy(states, p["J"], p["theta"])
    order = np.argsort(E)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    ax.plot(np.arange(E.size), E[order], color=bmlab.GRAY, lw=1)
    ax.scatter(rank[in_data], E[in_data], s=10, color=bmlab.ORANGE, label="states in the data", zorder=3)
    ax.scatter(rank[codes_proto], E[codes_proto], s=60, marker="*", color=bmlab.NAVY,
               label="letter prototypes", zorder=4)
    ax.set_xlabel("state, sorted by energy")
    ax.set_ylabel("energy E(s)")
    ax.set_title(f"{name}: L = {V.log_likelihood(p, S_letters):.2f}")
    print(f"{name}: energy ranks of the prototypes T, L, X, O:", sorted(rank[codes_proto].tolist()))
axes[0].legend(fontsize=8)
fig.suptitle("Figure 5.1: couplings written (Hebb) vs couplings fitted (maximum likelihood)")
fig.tight_layout()
bmlab.save_figure(fig, "fig5.1_memorize_vs_learn")
plt.show()

# %% [markdown]
# Hebb's energy is symmetric under $s \to -s$, so every letter has an equally deep inverted
# twin, and mixtures of letters compete with the letters themselves. The fitted landscape puts
# its lowest energies under the data.
#
# **The two forces.** Start from the Hebb machine and take one exact gradient step. The change
# of each state's energy splits into the positive phase, $-\eta(\tfrac12 s^\top C'_\text{data} s
# + m_\text{data}\cdot s)$, which is most negative where the data are, and the negative phase,
# $+\eta(\tfrac12 s^\top C'_\text{model} s + m_\text{model}\cdot s)$, which is largest where the
# model already puts its mass -- on its own samples, including the spurious inverted letters.

# %%
lr_step = 0.5
dE_pos, dE_neg = V.energy_change_split(hebb, S_letters, lr=lr_step)
E_hebb = bmlab.energy(states, hebb["J"], hebb["theta"])
order = np.argsort(E_hebb)
model_samples = bmlab.state_codes(
    bmlab.glauber_sample(hebb["J"], hebb["theta"], n_chains=200, n_sweeps=20, init="random", rng=rng))
sampled = np.zeros(states.shape[0], dtype=bool)
sampled[model_samples] = True
x = np.arange(states.shape[0])
rank = np.empty_like(order)
rank[order] = x

fig, ax = plt.subplots(figsize=(9, 3.6))
ax.bar(x, dE_pos[order], width=1.0, color=bmlab.NAVY, alpha=0.55, label="positive phase (down on data)")
ax.bar(x, dE_neg[order], width=1.0, color=bmlab.ORANGE, alpha=0.55, label="negative phase (up on the model)")
ax.plot(x, (dE_pos + dE_neg)[order], color="k", lw=0.8, label="net change")
ax.scatter(rank[in_data], dE_pos[in_data] - 0.3, marker="^", s=12, color=bmlab.NAVY, label="data states")
ax.scatter(rank[sampled], dE_neg[sampled] + 0.3, marker="v", s=12, color=bmlab.ORANGE,
           label="Glauber samples of the model")
ax.axhline(0, color=bmlab.GRAY, lw=0.8)
ax.set_xlabel("state, sorted by its energy under the Hebb machine")
ax.set_ylabel(r"change of $E(s)$ in one step")
ax.set_title(f"Figure 5.2: the two forces of one gradient step (lr = {lr_step})")
ax.legend(fontsize=7, ncol=2, loc="lower right")
bmlab.save_figure(fig, "fig5.2_two_forces")
plt.show()
print(f"mean positive push on data states: {dE_pos[in_data].mean():.2f} (averaged over all states it is zero: {bool(abs(dE_pos.mean()) < 1e-12)})")
print(f"mean negative push on model-sampled states: {dE_neg[sampled].mean():.2f} (averaged over all states it is zero: {bool(abs(dE_neg.mean()) < 1e-12)})")

# %% [markdown]
# ## Live: train it yourself
#
# Pick a learning rate, a number of steps and the negative phase, then press **Run**. The left
# panel shows the exact $L$ against the update, the right one the moment-matching scatter of
# Eq. 5.6. Try the frozen and data-as-model settings (Section 5.5), Glauber with $k = 1$ versus
# $k = 10$, and a learning rate above about $2/|\lambda_\text{max}|$ of the Hessian.

# %% tags=["nbval-ignore-output"]
from bmlab.widgets.training import training_panel

panel = training_panel()
panel

# %% [markdown]
# ## Exercises
#
# 1. **Step size.** Compute the most negative Hessian eigenvalue $\lambda_\text{min}$ at the
#    letter optimum `ml`. Train from zero with plain gradient ascent with learning rates just
#    below and just above $2/|\lambda_\text{min}|$. What happens, and why?
# 2. **More data, closer to the teacher.** Fit the teacher's data with $D = 1000$ and
#    $D = 10\,000$ exact samples (Newton). How does the largest coupling error scale with $D$?
#    Why can a very small sample make some learned coupling huge?
# 3. **Weight decay.** With `weight_decay=w` the loop climbs $L - \tfrac w2\|J\|^2$. Which
#    equation replaces Eq. 5.6 at its optimum? Check it numerically on the letters.

# %% jupyter={"source_hidden": true}
# Solution 1: plain ascent is stable when lr < 2/|lambda_min| (a linearisation at the optimum).
lam = np.linalg.eigvalsh(V.hessian(ml)).min()
for lr_try in (1.8 / abs(lam), 2.4 / abs(lam)):
    r = train(V.zero_params(N_let), V.ExactGradient(S_letters), n_steps=400, lr=lr_try,
              on_nonfinite="stop", max_abs=100.0)
    print(f"lr = {lr_try:.3f}: L after 400 steps = {V.log_likelihood(r.params, S_letters):.3f} (optimum {L_ml:.3f})")

# %% jupyter={"source_hidden": true}
# Solution 2: the error shrinks roughly like 1/sqrt(D). With few samples a pair may be aligned in
# every sample (<s_i s_j>_data = 1): its ML coupling is then infinite (a boundary of moment space).
for D in (1000, 10_000):
    S_D = bmlab.sample_exact(teacher["J"], teacher["theta"], n_samples=D, rng=rng)
    fit_D = train(V.zero_params(N), V.ExactGradient(S_D), n_steps=100, optimizer="newton",
                  lr=1.0, stop_grad_norm=1e-9).params
    print(f"D = {D:5d}: largest coupling error {np.abs(fit_D['J'] - teacher['J']).max():.2f}")

# %% jupyter={"source_hidden": true}
# Solution 3: at the optimum <s_i s_j>_data - <s_i s_j>_model = w J_ij (biases still match).
w = 0.05
wd = train(V.zero_params(N_let), V.ExactGradient(S_letters), n_steps=100, optimizer="newton",
           lr=1.0, weight_decay=w, stop_grad_norm=1e-10).params
m_w, C_w = V.model_moments(wd)
print("C_data - C_model = w J (to 1e-8):", bool(np.allclose(C_let - C_w, w * wd["J"], atol=1e-8)))
print("m_data = m_model (to 1e-8):", bool(np.allclose(m_let, m_w, atol=1e-8)))
