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
# # 04 · Hidden units: what they buy and what they cost
#
# Companion to Section 5.6 of the lecture and its Figure 5.4. A fully visible Boltzmann
# machine can only reproduce the means and pair correlations of its data (Eq. 5.6). Here we
# give it units that the data never show, sum them out, and verify every step exactly, on
# machines small enough to list all of their states.
#
# **What this notebook teaches**
# - how $p(v)$ comes from the joint law of $(v, h)$, and what the clamped partition function
#   $Z(v)$ is (Section 1);
# - that the learning rule is still "clamped minus model", and turns back into Eq. 5.4 when
#   the hidden units are removed (Section 2);
# - that hidden units fit 3-bit parity, which no fully visible machine can (Section 3);
# - where that power comes from: summing out a hidden unit creates interactions of order
#   three, four, ... among the visibles (Section 4);
# - the two prices: a clamped phase that needs $p(h\mid v)$, cheap only in a *restricted*
#   machine (Section 5), and a log-likelihood that is no longer concave, with local maxima
#   below the best one (Section 6);
# - Figure 5.4, redrawn (Section 7).
#
# **What it assumes**
# - the energy of Eq. 5.1 and exact enumeration of all states (notebook 02);
# - the fully visible gradient, Eq. 5.4, and the concavity of its log-likelihood (notebook 03);
# - numpy: matrix products and broadcasting.
#
# Every number below is exact: each function sums over all joint states.

# %% [markdown]
# > **Notation.** Every unit is a $\pm1$ spin: visible units $v_i$, hidden units $h_j$, and
# > the joint state $s=(v,h)$, visibles first. The letter $h$ changes job in this notebook: in
# > notebook 01, $h_k$ was the field a spin feels from its neighbours; from here on $h$ and
# > $h_j$ are the unobserved units themselves, never a field. $J$ holds the couplings of
# > the joint system (a general machine may couple any two units), $W_{ij}$ is its
# > visible-hidden block (all that a restricted machine keeps), and $\theta$ the biases of all
# > units; where the layers matter, $b_j$ is the bias of hidden unit $j$. Notebook 05 switches
# > to $\{0,1\}$ units $x=(s+1)/2$, with visible biases $a$ and hidden biases $b$. States are
# > listed in the order of `bmlab.all_states` (row $c$: unit $i$ is $+1$ exactly when bit $i$
# > of $c$ is 1).

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

import bmlab
from bmlab.data import parity
from bmlab.hidden import HiddenGradient, HiddenMachine
from bmlab.plotting import draw_network, state_labels
from bmlab.widgets.hidden import hidden_training_panel

bmlab.use_style()
SEED = 4
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · $p(v)$ by summing out the hidden units
#
# The machine has one energy $E(v, h)$ for visibles and hidden units together, but we only
# ask about the visibles. A visible string is as probable as all of its hidden completions
# taken together:
#
# $$ p(v) = \frac{1}{Z}\sum_h e^{-E(v,h)} = \frac{Z(v)}{Z}, \qquad Z(v) = \sum_h e^{-E(v,h)} . $$
#
# $Z(v)$ is a partition function too, but a smaller one: its sum runs over the hidden
# configurations only, with $v$ held fixed ("clamped"). Written as $Z(v) = e^{-F(v)}$, it
# defines a free energy $F(v)$ of each visible string, and adding up $Z(v)$ over all $v$
# returns the full $Z$.
#
# Take a general machine with 3 visible and 2 hidden units and random couplings. We compute
# $Z(v)$ by brute force, one visible string at a time, and compare with bmlab, which treats
# $(v, h)$ as one fully visible machine of 5 units (`bmlab.log_partition`,
# `HiddenMachine.prob_joint`) and then sums over $h$:

# %%
machine = HiddenMachine(3, 2, restricted=False)
params = machine.init_params(rng=rng, scale=0.8, bias_scale=0.3)
J, theta = params["J"], params["theta"]
V, H = bmlab.all_states(3), bmlab.all_states(2)  # every v, every h


def energy(s):
    """Eq. 5.1 over the joint state s = (v, h) (J has a zero diagonal)."""
    return -0.5 * s @ J @ s - theta @ s


Z_v = np.array([sum(np.exp(-energy(np.concatenate([v, h]))) for h in H) for v in V])
p_v = machine.prob_visible(params)  # bmlab: row sums of p(v, h)

Z = np.exp(bmlab.log_partition(J, theta))
print("sum_v Z(v) = Z (relative 1e-12):", np.isclose(Z_v.sum(), Z, rtol=1e-12, atol=0))
print("Z(v) / Z = p(v) of bmlab (1e-12):", np.allclose(Z_v / Z_v.sum(), p_v, rtol=0, atol=1e-12))
print("p(v) sums to 1 (1e-12):          ", np.isclose(p_v.sum(), 1.0, rtol=0, atol=1e-12))
print()
print(" v      F(v)    p(v)")
for label, F, p in zip(state_labels(3), -np.log(Z_v), p_v, strict=True):
    print(label, f"  {F:+.3f}  {p:.3f}")

# %% [markdown]
# The lowest free energy goes with the most probable string: $p(v)$ falls as $F(v)$ rises.
#
# ## 2 · The gradient: clamped minus model
#
# Take the derivative of $\log p(v) = \log Z(v) - \log Z$ with respect to one visible–hidden
# coupling $W_{ij}$. Each term is the logarithm of a partition function, and the derivative of
# such a logarithm is an average of $v_i h_j$: for $\log Z(v)$ under $p(h\mid v)$, with $v$
# fixed to a training string; for $\log Z$ under the machine running freely. Averaged over
# the training strings,
#
# $$ \frac{\partial L}{\partial W_{ij}} = \langle v_i h_j\rangle_\text{clamped} - \langle v_i
# h_j\rangle_\text{model}, $$
#
# where "clamped" means: $v$ from the data, $h$ from $p(h \mid v)$. Every coupling $J_{ab}$
# and bias $\theta_a$ of the joint system obeys the same rule. Below, for the machine above,
# the clamped phase lists $h$ for each training string, the free phase lists $(v, h)$
# together, and the gradient is the difference. bmlab's `HiddenGradient(machine, data)` is
# the same as a callable object of the parameters, the form `bmlab.train` calls at every step.

# %%
data = parity(3)  # the data set of Section 3, used here just as some training strings


def averages(S, weights):
    """<s_a> and <s_a s_b> over the rows of S, weighted by weights / sum(weights)."""
    q = weights / weights.sum()
    return q @ S, S.T @ (q[:, None] * S)


N = machine.n_units
m_clamped, C_clamped = np.zeros(N), np.zeros((N, N))
for v in data:  # clamped: v from the data, h ~ p(h | v)
    S_v = np.array([np.concatenate([v, h]) for h in H])
    m, C = averages(S_v, np.exp([-energy(s) for s in S_v]))
    m_clamped, C_clamped = m_clamped + m / len(data), C_clamped + C / len(data)
S_all = np.array([np.concatenate([v, h]) for v in V for h in H])
m_free, C_free = averages(S_all, np.exp([-energy(s) for s in S_all]))  # free: (v, h) ~ p(v, h)
dJ = (C_clamped - C_free) * machine.mask  # no self-coupling: diagonal dropped
dtheta = m_clamped - m_free

grad = HiddenGradient(machine, data)(params, None)  # exact: the rng argument is ignored
diff = max(np.abs(dJ - grad["J"]).max(), np.abs(dtheta - grad["theta"]).max())
print(f"reference agrees with bmlab (max difference < 1e-10): {diff < 1e-10}")

# %% [markdown]
# Is "clamped minus model" really the slope of $L$? Nudge each $W_{ij}$ (the pair
# $J_{i,3+j} = J_{3+j,i}$) up and down, and take the difference of the exact log-likelihood:

# %%
L = machine.metrics(data)["log_likelihood"]  # exact L(params), by enumeration
eps, fd = 1e-5, np.zeros((3, 2))
for i, j in np.ndindex(3, 2):
    step = np.zeros((N, N))
    step[i, 3 + j] = step[3 + j, i] = eps
    fd[i, j] = (L({"J": J + step, "theta": theta}) - L({"J": J - step, "theta": theta})) / (2 * eps)
agree = np.abs(fd - dJ[:3, 3:]).max() < 1e-8
print("finite differences agree with clamped minus model (1e-8):", agree)
print("dL/dW (rows: visible i, columns: hidden j):")
print(np.round(dJ[:3, 3:], 3))

# %% [markdown]
# Without hidden units there is nothing to infer: the clamped average becomes the plain data
# average, and the rule is Eq. 5.4 again. The check uses the fully visible moments of
# `bmlab.exact_moments`:

# %%
visible_only = HiddenMachine(4, 0)
p0 = visible_only.init_params(rng=rng, scale=0.7, bias_scale=0.3)
some_data = bmlab.codes_to_states(rng.integers(0, 16, size=20), 4)
g0 = HiddenGradient(visible_only, some_data)(p0, None)
mean_model, corr_model = bmlab.exact_moments(p0["J"], p0["theta"])
eq54 = some_data.T @ some_data / len(some_data) - corr_model
np.fill_diagonal(eq54, 0.0)
print(
    "no hidden units: gradient = Eq. 5.4 (data minus model) to 1e-12:",
    np.allclose(g0["J"], eq54, rtol=0, atol=1e-12)
    and np.allclose(g0["theta"], some_data.mean(axis=0) - mean_model, rtol=0, atol=1e-12),
)

# %% [markdown]
# ## 3 · Parity: a data set with no first or second moments
#
# The even-parity strings of 3 bits are the four strings with an even number of $+1$s. In
# them each unit is $+1$ half of the time, and each pair agrees half of the time: means and
# pair correlations are exactly those of fair coins. A fully visible machine matches those
# moments and nothing more (its log-likelihood is concave, so the optimum is the single point
# where they match), which here means the uniform distribution over all 8 strings. Half of
# its mass then sits on strings that never occur, and
# $\mathrm{KL}(p_\text{data}\,\|\,p_\text{model}) = \log 8 - \log 4 = \log 2$.
#
# `fit_from_starts` trains a machine with the exact gradient through `bmlab.train` (learning
# rate 0.3, momentum 0.9) from several random starts and returns every run with its final
# KL. The fully visible machine needs one start: its log-likelihood is concave.

# %%
D3 = parity(3)
print("even-parity strings:", [state_labels(3)[c] for c in bmlab.state_codes(D3)])
print(
    "means all zero:",
    np.all(D3.mean(axis=0) == 0),
    "| pair correlations all zero:",
    np.all((D3.T @ D3 / 4 - np.eye(3)) == 0),
)

LR, MOMENTUM = 0.3, 0.9
RESTRICTED = bmlab.plotting.EXTRA[0]  # the restricted machine's colour in every figure below


def fit_from_starts(m, data, starts, n_steps):
    """Train machine m from `starts` random starts with the exact gradient; return the runs
    (bmlab.TrainResult) and the final KL of each, in nats."""
    gradient, kl = HiddenGradient(m, data), m.metrics(data)["kl"]
    runs = [
        bmlab.train(m.init_params(rng=rng), gradient, n_steps=n_steps, lr=LR, momentum=MOMENTUM,
                    record_every=n_steps)
        for _ in range(starts)
    ]
    return runs, np.array([kl(run.params) for run in runs])


_, fv_kl = fit_from_starts(HiddenMachine(3, 0), D3, starts=1, n_steps=300)
print(
    f"fully visible, one start: KL = {fv_kl[0]:.4f} nats (log 2 = {np.log(2):.4f}); "
    "equals log 2 to 1e-6:",
    abs(fv_kl[0] - np.log(2)) < 1e-6,
)

# %% [markdown]
# Now the same strings with hidden units, in the two architectures of Figure 5.4: a
# *general* machine (its visibles are also coupled to each other, and its hidden units too)
# and a *restricted* one (couplings only between the layers). How many hidden units does each
# need? We train both with 0 to 4 hidden units, 500 steps from each of 3 starts, keep the best
# start, and call a fit good when its KL is below 0.01. (The KL only reaches zero as the
# couplings grow without bound, so a threshold is needed.)

# %%
STARTS, STEPS = 3, 500
hidden_counts = range(5)
fits, best_kl = {}, {False: [], True: []}  # fits keyed by (restricted, number of hidden units)
for restricted in (False, True):
    for k in hidden_counts:
        runs, kls = fit_from_starts(HiddenMachine(3, k, restricted=restricted), D3, STARTS, STEPS)
        fits[restricted, k] = runs[np.argmin(kls)]
        best_kl[restricted].append(kls.min())
best_kl = {r: np.array(kls) for r, kls in best_kl.items()}

print("hidden units:        ", "  ".join(f"{k:5d}" for k in hidden_counts))
for restricted, label in ((False, "general"), (True, "restricted")):
    print(f"KL, {label:11s}      ", "  ".join(f"{kl:5.3f}" for kl in best_kl[restricted]))
for restricted, label in ((False, "general"), (True, "restricted")):
    fewest = int(np.argmax(best_kl[restricted] < 0.01))  # threshold: "good fit", a category
    print(f"{label}: fewest hidden units with KL < 0.01: {fewest}")

fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
ax.plot(hidden_counts, best_kl[False], "o-", color=bmlab.NAVY, label="general")
ax.plot(hidden_counts, best_kl[True], "s-", color=RESTRICTED, label="restricted")
ax.axhline(np.log(2), color=bmlab.GRAY, ls="--", lw=1)
ax.text(4, np.log(2) * 1.15, "log 2: best fully visible machine", color=bmlab.GRAY,
        ha="right", fontsize=9)
ax.axhline(0.01, color=bmlab.GRAY, ls=":", lw=1)
ax.text(4, 0.01 * 0.85, "good fit: KL < 0.01", color=bmlab.GRAY, ha="right", va="top", fontsize=9)
ax.set_yscale("log")
ax.set_xticks(list(hidden_counts))
ax.set_xlabel("number of hidden units")
ax.set_ylabel(r"$\mathrm{KL}(p_\mathrm{data}\,\|\,p_\mathrm{model})$, nats")
ax.set_title("3-bit parity, exact training, best of 3 starts")
ax.legend(loc="upper right", bbox_to_anchor=(1.0, 0.88))
plt.show()


# %% [markdown]
# **What to look for:** both curves start on the dashed $\log 2$ line; the navy one falls below
# the dotted 0.01 line at one hidden unit, the green one only at three.
#
# With no hidden units both machines stay at $\log 2$ (the restricted one then has no
# couplings at all, only biases). One hidden unit is enough for the general machine, whose
# visibles also interact directly; the restricted machine needs three, and with one or two it
# stays far above zero.

# %% [markdown]
# ## 4 · Where the power comes from: interactions of every order
#
# Every function of $n$ spins $\pm 1$ is a sum of products of spins,
#
# $$ \log p(v) = c_\varnothing + \sum_i c_i v_i + \sum_{i<j} c_{ij} v_i v_j + \sum_{i<j<k} c_{ijk}
# v_i v_j v_k + \dots , $$
#
# with one coefficient per subset $A$ of the units, $c_A = 2^{-n}\sum_v \log p(v) \prod_{i\in A}
# v_i$ (the Walsh, or Fourier, expansion). A fully visible machine has terms up to pairs and
# no further. Summing out one hidden unit with couplings $w$ and bias $b$ multiplies $p(v)$ by
# $2\cosh(b + w\cdot v)$, and the logarithm of that factor is no polynomial of degree two: it
# brings in terms of higher order (which orders, the output below shows).
#
# All coefficients come from one matrix product: row $A$ of `bmlab.all_states(n)` also serves
# as the subset $A$ (unit $i$ belongs to $A$ where the row holds $+1$). Below, one hidden unit
# on 4 visibles, with no biases anywhere:

# %%
def walsh_coefficients(f, n):
    """c_A = 2^-n sum_v f(v) prod_{i in A} v_i for every subset A; also the orders |A|."""
    V_n = bmlab.all_states(n)  # the states v, in all_states order
    in_A = V_n > 0  # row A: the members of subset A
    chi = np.where(in_A[:, None, :], V_n[None, :, :], 1).prod(axis=2)  # chi[A, v]
    return chi @ f / 2**n, in_A.sum(axis=1)


w = np.array([0.9, -0.7, 0.5, 1.1])
J_w = np.zeros((5, 5))
J_w[:4, 4] = J_w[4, :4] = w  # W: the hidden unit's couplings
one_unit = HiddenMachine(4, 1, restricted=True, visible_bias=False, hidden_bias=False)
c, order = walsh_coefficients(np.log(one_unit.prob_visible({"J": J_w, "theta": np.zeros(5)})), 4)
size = np.array([np.abs(c[order == k]).max() for k in range(1, 5)])
print("largest |c_A| by order 1..4:", np.round(size, 4))
print("4-body term c_1234 (of v1 v2 v3 v4) =", f"{c[15]:+.4f}")
V4 = bmlab.all_states(4)
print(
    "c_1234 = 2^-4 sum_v v1 v2 v3 v4 log 2cosh(w.v) to 1e-12:",
    abs(c[15] - np.mean(V4.prod(axis=1) * np.log(2 * np.cosh(V4 @ w)))) < 1e-12,
)
print("odd orders vanish (|c| < 1e-12) without biases:", size[0] < 1e-12 and size[2] < 1e-12)

with_bias = HiddenMachine(4, 1, restricted=True, visible_bias=False)
theta_b = np.array([0, 0, 0, 0, 0.6])
c_b, _ = walsh_coefficients(np.log(with_bias.prob_visible({"J": J_w, "theta": theta_b})), 4)
print("\nwith hidden bias b = 0.6, the 3-body terms:")
for A in np.flatnonzero(order == 3):
    print("  " + "".join(f"v{i + 1}" for i in range(4) if A >> i & 1), f"{c_b[A]:+.4f}")

# %% [markdown]
# Why only even orders without biases? Flipping every spin, visible and hidden, leaves a
# purely pairwise energy unchanged, so $p(v) = p(-v)$, and $\log p$ is an even function of
# $v$. Only biases break that symmetry, and with a bias the odd orders appear. (What this
# means for 3-bit parity is exercise 2.)
#
# The general machine with one hidden unit trained in Section 3 shows what the fit needed:
# the expansion of its $\log p(v)$ is dominated by the one 3-body term $v_1 v_2 v_3$, exactly
# the product that tells even strings from odd ones.

# %%
p_fit = HiddenMachine(3, 1).prob_visible(fits[False, 1].params)
c_fit, orders = walsh_coefficients(np.log(p_fit), 3)
print(
    "orders 1 and 2, largest |c|:",
    np.round([np.abs(c_fit[orders == k]).max() for k in (1, 2)], 2),
    "| 3-body c_123 =",
    f"{c_fit[7]:+.2f}",
)

labels = [
    "const" if a == 0 else "$" + "".join(f"v_{i + 1}" for i in range(3) if a >> i & 1) + "$"
    for a in range(8)
]
order_of = np.argsort(orders, kind="stable")[1:]  # skip the constant (it holds -log Z)
fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
ax.bar(range(7), c_fit[order_of], color=bmlab.NAVY)  # the model's coefficients
ax.set_xticks(range(7), [labels[a] for a in order_of])
ax.axhline(0, color="k", lw=0.6)
ax.set_ylabel(r"coefficient $c_A$ in $\log p(v)$")
ax.set_title("trained machine on 3-bit parity: multi-spin terms")
plt.show()

# %% [markdown]
# **What to look for:** the three-body bar, $v_1v_2v_3$ on the right, dwarfs the one- and
# two-body bars: the fit put parity into that term alone.

# %% [markdown]
# ## 5 · The price: a second hard expectation
#
# The clamped average needs $p(h \mid v)$ for every training string. In a general machine the
# hidden units are coupled to each other, so with $v$ clamped they still interact: $p(h\mid v)$
# is not a product over the units, and computing it means a sum over all $2^{N_h}$ hidden
# configurations, for every data point, at every step. We compare the exact conditional with
# the product of its own one-unit marginals.

# %%
H_all = bmlab.all_states(3)


def conditional(m, p):
    """p(h | v): row v of the table p(v, h), normalised (rows: 8 strings v, columns: 8 h)."""
    joint = m.prob_joint(p)
    return joint / joint.sum(axis=1, keepdims=True)


def product_of_marginals(cond):
    """prod_j p(h_j | v) from the exact one-unit means <h_j | v>, for all v and h."""
    means = cond @ H_all  # (8 visible strings, 3 units)
    return np.prod((1 + H_all[None, :, :] * means[:, None, :]) / 2, axis=2)


general = HiddenMachine(3, 3, restricted=False)
restricted = HiddenMachine(3, 3, restricted=True)
pg = general.init_params(rng=rng, scale=0.8, bias_scale=0.3)
pr = restricted.init_params(rng=rng, scale=0.8, bias_scale=0.3)
cond_g, cond_r = conditional(general, pg), conditional(restricted, pr)
gap_g = np.abs(cond_g - product_of_marginals(cond_g)).max()
gap_r = np.abs(cond_r - product_of_marginals(cond_r)).max()
print(
    f"general:    max |p(h|v) - prod_j p(h_j|v)| = {gap_g:.3f}  "
    f"({'factorizes' if gap_g < 1e-12 else 'does not factorize'})"
)
print(f"restricted: max |p(h|v) - prod_j p(h_j|v)| < 1e-12: {gap_r < 1e-12}")
for n_h in (10, 30, 100):
    print(f"general machine, N_h = {n_h:3d}: 2^N_h = {2**n_h:.3g} hidden states per data point")

# %% [markdown]
# In the restricted machine a hidden unit is coupled to visibles only, so once they are fixed
# the hidden units are independent two-state systems, each in its own field, with
# $\langle h_j \mid v\rangle = \tanh\big(b_j + \sum_i W_{ij} v_i\big)$. The whole clamped phase
# is then one vectorised line, with no sum over hidden configurations:

# %%
W, b = pr["J"][:3, 3:], pr["theta"][3:]
clamped_vh = D3.T @ np.tanh(D3 @ W + b) / len(D3)  # <v_i h_j>_clamped, one line
enumerated = D3.T @ (cond_r[bmlab.state_codes(D3)] @ H_all) / len(D3)  # sum over all 2^N_h h
print(
    "one-line clamped phase = enumeration over all 2^N_h hidden states:",
    np.allclose(clamped_vh, enumerated, rtol=0, atol=1e-13),
)

# %% [markdown]
# ## 6 · The second price: the landscape is no longer concave
#
# For the fully visible machine $L$ is concave (notebook 03): along every straight line in
# parameter space it only bends down, so it has a single hill. Hidden units, though, carry no
# names. Take the restricted machine with three hidden units trained in Section 3 and swap the
# labels of two of them, couplings and biases included: that is a *different* parameter vector
# for *the same* $p(v)$, so it has the same $L$. Flipping the sign of one hidden unit together
# with its couplings and bias does the same. On the straight line from a machine to such a
# copy, a concave function would stay at least as high as at both ends; here it drops in the
# middle.

# %%
rbm_3 = HiddenMachine(3, 3, restricted=True)
start = fits[True, 3].params  # the best restricted machine with 3 hidden units of Section 3
swap = [0, 1, 2, 4, 3, 5]  # units v1 v2 v3 h2 h1 h3: relabel h1 <-> h2
swapped = {"J": start["J"][np.ix_(swap, swap)], "theta": start["theta"][swap]}
sign = np.array([1, 1, 1, -1, 1, 1])  # h1 -> -h1, with its couplings and bias
flipped = {"J": start["J"] * np.outer(sign, sign), "theta": start["theta"] * sign}


def along(L, a, b, t):
    """L on the straight line (1 - t) a + t b in parameter space."""
    return np.array([L({k: (1 - tk) * a[k] + tk * b[k] for k in a}) for tk in t])


t = np.linspace(-0.25, 1.25, 61)  # t[30] = 0.5, the midpoint
L_D3 = rbm_3.metrics(D3)["log_likelihood"]
L_swap, L_flip = along(L_D3, start, swapped, t), along(L_D3, start, flipped, t)
L_end = L_D3(start)
print(
    "same L at both ends (both relabelled copies, 1e-12):",
    abs(L_end - L_D3(swapped)) < 1e-12 and abs(L_end - L_D3(flipped)) < 1e-12,
)
for name, curve in (("swap h1 <-> h2", L_swap), ("flip the sign of h1", L_flip)):
    dip = L_end - curve[30]
    print(
        f"{name:20s}: L at the midpoint is {dip:.2f} nats below both ends "
        f"(non-concave: {dip > 1e-3})"
    )

fully = HiddenMachine(3, 0)
qa, qb = fully.init_params(rng=rng, scale=1.5), fully.init_params(rng=rng, scale=1.5)
L_fv = along(fully.metrics(D3)["log_likelihood"], qa, qb, t)
print(
    "fully visible slice: second differences all <= 0 (concave):",
    np.all(np.diff(L_fv, 2) <= 1e-12),
)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
ax1.plot(t, L_swap, color=RESTRICTED, label="restricted, swap two hidden units")
ax1.plot(t, L_flip, "--", color=RESTRICTED, label="restricted, flip one hidden unit")
ax1.axvline(0, color=bmlab.GRAY, lw=0.8)
ax1.axvline(1, color=bmlab.GRAY, lw=0.8)
ax1.set_xlabel("t  (0: trained machine, 1: its relabelled copy)")
ax1.set_ylabel("L, nats")
ax1.set_title("restricted machine: two peaks, a valley")
ax1.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22))
ax2.plot(t, L_fv, color=bmlab.NAVY)
ax2.set_xlabel("t  (between two random parameter points)")
ax2.set_title("fully visible: concave (notebook 03)")
plt.show()

# %% [markdown]
# **What to look for:** on the left, equal heights at $t=0$ and $t=1$ with a valley between
# them; on the right, a single hump with no valley.
#
# A machine with $N_h$ hidden units has up to $N_h!\,2^{N_h}$ equivalent copies of each
# solution (relabellings and sign flips), so its landscape has many equally good peaks with
# valleys between them. Equal peaks do no harm. But $L$ can also have peaks that are *lower*
# than the best one, where gradient ascent stops for good: "every local maximum is global"
# no longer holds. The restricted machine with one hidden unit shows it. First, 10 starts:

# %%
restricted_1 = HiddenMachine(3, 1, restricted=True)
runs, kls = fit_from_starts(restricted_1, D3, starts=10, n_steps=STEPS)
print("restricted, 1 hidden unit, final KL of 10 starts:", *[f"{x:.3f}" for x in np.sort(kls)])
stalled = np.flatnonzero(np.abs(kls - np.log(2)) < 1e-3)
print(f"starts that stopped at KL = log 2: {len(stalled)} of 10")


# %% [markdown]
# Those starts are no better than a fully visible machine. Are they on a peak, or only
# stalled on a slope? Three exact checks at each of them, in the seven parameters
# $(a_1, a_2, a_3, b, w_1, w_2, w_3)$ of this machine: the gradient, after a few steps of
# Newton's method have taken the end of training onto the point where it vanishes; the
# curvature there, i.e. the eigenvalues of the Hessian of $L$ (by central differences of
# the exact gradient); and $L$ itself, against the best of the 10 starts.

# %%
def as_vector(p):
    """The parameters of restricted_1 as one vector (a1, a2, a3, b, w1, w2, w3)."""
    return np.concatenate([p["theta"], p["J"][:3, 3]])


def as_params(x):
    """The parameter dict of restricted_1 from the vector (a1, a2, a3, b, w1, w2, w3)."""
    J_1 = np.zeros((4, 4))
    J_1[:3, 3] = J_1[3, :3] = x[4:]
    return {"J": J_1, "theta": x[:4].copy()}


def derivative(f, x, step=1e-4):
    """Central differences of f at x; row k is df/dx_k."""
    return np.array([(f(x + step * e) - f(x - step * e)) / (2 * step) for e in np.eye(len(x))])


def slope(x):
    """The exact gradient of L (clamped minus model) as a vector."""
    return as_vector(HiddenGradient(restricted_1, D3)(as_params(x), None))


def p_visible(x):
    return restricted_1.prob_visible(as_params(x))


L_1 = restricted_1.metrics(D3)["log_likelihood"]
best_L = max(L_1(run.params) for run in runs)
def hessian(x):
    H = derivative(slope, x)
    return (H + H.T) / 2


for k in stalled:
    x = as_vector(runs[k].params)
    trained = np.abs(slope(x)).max()
    for _ in range(3):  # Newton steps; the pseudo-inverse, since the Hessian is singular here
        x = x - np.linalg.pinv(hessian(x), rcond=1e-6, hermitian=True) @ slope(x)
    L_k, i = L_1(as_params(x)), np.argmax(np.abs(x[4:]))  # i: the one coupling kept
    lam, U = np.linalg.eigh(hessian(x))
    zero = np.abs(lam) < 1e-6
    curved, flat = lam[~zero], U[:, zero]  # flat: directions of zero curvature
    unchanged = np.abs(flat.T @ derivative(p_visible, x)).max() < 1e-6
    print(f"start {k + 1}: hidden unit coupled to v{i + 1} only (w{i + 1} = {x[4 + i]:+.2f}; "
          f"the other two below 1e-8: {np.abs(np.delete(x[4:], i)).max() < 1e-8})")
    print(f"  max |gradient| after training below 1e-8: {trained < 1e-8}, "
          f"after 3 Newton steps below 1e-12: {np.abs(slope(x)).max() < 1e-12}")
    print(f"  Hessian: {len(curved)} eigenvalues from {curved.min():.2f} to {curved.max():.2f}, "
          f"{flat.shape[1]} zero (below 1e-6); p(v) unchanged along those (1e-6): {unchanged}")
    print(f"  L = {L_k:.3f} = log(1/8) to 1e-12: {abs(L_k + 3 * np.log(2)) < 1e-12}; "
          f"best start: L = {best_L:.3f}, higher by {best_L - L_k:.3f}")

# %% [markdown]
# Each stalled start kept a coupling to one visible unit only. Then
# $p(v) \propto e^{a\cdot v}\,2\cosh(b + w_i v_i)$ is a product of one factor per visible
# unit: the visibles are independent coins, and since each unit of the data is $+1$ half of
# the time (Section 3), the best such model is the uniform one, with $L = \log\frac18$. The
# gradient vanishes there. Five curvatures are negative: along those directions $L$ bends
# down. The two zero ones point along directions in which $p(v)$ does not change at all.
# Each stalled start therefore sits on a ridge of machines with the same uniform $p(v)$, and
# every step off the ridge goes down: a local maximum of $L$, 0.117 nats below what the best
# start reached. Gradient ascent cannot leave it, which is why every fit above keeps the
# best of several starts.
#
# ## 7 · Figure 5.4, redrawn
#
# Left, the general machine: any two units may be coupled, two visibles or two hidden units
# included. Right, the restricted machine: every coupling joins a visible unit to a hidden
# one, which is what turned the clamped phase of Section 5 into a single line.

# %%
fig, (ax_g, ax_r) = plt.subplots(1, 2, figsize=(9, 3.4))
draw_network(ax_g, 4, 3, restricted=False, title="general Boltzmann machine")
draw_network(ax_r, 4, 3, restricted=True, title="restricted Boltzmann machine")
fig.tight_layout()
bmlab.save_figure(fig, "fig5.4_general_vs_restricted")
plt.show()

# %% [markdown]
# **What to look for:** the arcs inside each layer on the left, and their absence on the right.

# %% [markdown]
# ## Try it: train with hidden units
#
# Pick a data set, a machine and a number of hidden units, then press **Run**. The gray bars
# are the data, the navy bars the trained model's $p(v)$; the right panel follows the KL
# during training. To try: parity with 0, 1, 2, 3 hidden units in each architecture; one-hot
# strings, which a fully visible ("general", 0 hidden) machine already fits.

# %% tags=["nbval-ignore-output"]
panel = hidden_training_panel()
panel

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. The worked solutions are in a notebook of their own,
# [solutions/04_solutions.ipynb](solutions/04_solutions.ipynb):
# open it after you have tried.
#
# **1 · Two-bit parity.** Even parity of *two* bits is the pair $\{(+,+), (-,-)\}$. Can a
# fully visible machine fit it? Predict, then try
# `fit_from_starts(HiddenMachine(2, 0), parity(2), 1, STEPS)`. *Your answer:* the KL (nats)
# of the fully visible machine with $J_{12} = 2$ and no biases, to 3 decimals.
# [worked solution](solutions/04_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # KL(p_data || p_model) for J12 = 2, theta = 0, to 3 decimals
bmlab.check("04.1", my_answer)

# %% [markdown]
# **2 · No biases.** Take a general machine with 2 hidden units for 3-bit parity, but switch
# off *all* biases (`visible_bias=False, hidden_bias=False`). What can the best such machine
# do with the data? Predict, then train it with `fit_from_starts`. *Your answer:* the
# probability $p(v)$ that the best bias-free machine gives to the data string $v = (-,-,-)$,
# to 3 decimals. [worked solution](solutions/04_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # p(---) of the best machine without biases, to 3 decimals
bmlab.check("04.2", my_answer)

# %% [markdown]
# **3 · The midpoint.** In Section 6, the line from the trained restricted machine (three
# hidden units) to its copy with $h_1$ sign-flipped passes through $t = 1/2$. What is special
# about the machine at that midpoint? Look at the couplings and the bias of $h_1$ there.
# *Your answer:* how many hidden units of the midpoint machine are connected to anything (a
# whole number)?
# [worked solution](solutions/04_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # connected hidden units at t = 1/2 (a whole number)
bmlab.check("04.3", my_answer)

# %% [markdown]
# ## Summary
#
# - A machine with hidden units models the visibles through $p(v) = Z(v)/Z$, where $Z(v)$
#   sums over the hidden units with $v$ clamped (Section 1).
# - Its gradient is still a difference of two averages, clamped minus model; without hidden
#   units it is Eq. 5.4 (Section 2).
# - 3-bit parity has the moments of fair coins, so a fully visible machine stays at
#   $\mathrm{KL} = \log 2$; one hidden unit fits it in a general machine, three in a
#   restricted one (Section 3).
# - Summing out hidden units creates multi-spin interactions; the fit of parity rests on the
#   3-body term, and biases are needed for the odd orders (Section 4).
# - The costs: $p(h \mid v)$ does not factorize in a general machine, so the clamped phase
#   is a sum over $2^{N_h}$ states, while a restricted machine does it in one line (Section 5);
#   and the log-likelihood is no longer concave: it has local maxima below the best one,
#   where gradient ascent stops, so starts matter (Section 6).
#
# ## References
#
# - The lecture, Chapter 5: Section 5.6 (hidden units, the clamped phase, Figure 5.4),
#   Section 5.4 (the gradient Eq. 5.4 and its concavity), Eq. 5.1 (the energy) and Eq. 5.6
#   (moment matching).
# - D. H. Ackley, G. E. Hinton, T. J. Sejnowski, "A learning algorithm for Boltzmann
#   machines", *Cognitive Science* 9 (1985): hidden units and the two-phase learning rule.
# - P. Smolensky, "Information processing in dynamical systems: foundations of harmony
#   theory" (1986): the bipartite machine later called the restricted Boltzmann machine.
# - N. Le Roux, Y. Bengio, "Representational power of restricted Boltzmann machines and deep
#   belief networks", *Neural Computation* 20 (2008): with enough hidden units an RBM can
#   represent any distribution over the visibles.
# - A. Decelle, G. Fissore, C. Furtlehner, "Thermodynamics of restricted Boltzmann machines
#   and related learning dynamics", arXiv:1803.01960 (summary in `../shared/lecture/`): how
#   the weights of an RBM evolve during training; computed in notebook 05b.
