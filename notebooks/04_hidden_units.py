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
# # 04 · Hidden units: what they buy and what they cost
#
# Companion to Section 5.6 of the lecture (Figure 5.4). A fully visible Boltzmann machine can
# only match first and second moments of its data. Here we add units that the data never
# show, sum them out, and check on machines small enough to enumerate completely:
#
# 1. how $p(v)$ arises from the joint distribution, and what $Z(v)$ is;
# 2. that the learning rule keeps its "clamped minus model" shape (and collapses to Eq. 5.4);
# 3. that hidden units fit parity, which no fully visible machine can;
# 4. where that power comes from: interactions of order three, four, ... among the visibles;
# 5. the price: a second expectation that is hard unless the machine is *restricted*;
# 6. a second price: the log-likelihood is no longer concave;
# 7. Figure 5.4, redrawn.
#
# All units are $\pm 1$ spins here, with the energy of Eq. 5.1 over the whole system
# $s = (v, h)$. (Notebook 05 switches to $\{0,1\}$ units; the two are related by
# $s = 2x - 1$.) Every number below is exact: each function sums over all joint states.

# %% [markdown]
# > **Notation.** All units are $\pm1$ spins: visibles $v_i$, hidden units $h_j$, together
# > $s=(v,h)$. Here $h$ is a *hidden unit* -- not the local field $h_k$ of notebook 01. $J$
# > couples all units (general machine) and $W_{ij}$ is its visible-hidden block (the only one a
# > restricted machine keeps); $\theta$ holds the biases of all units. Notebook 05 uses $\{0,1\}$
# > units $x=(s+1)/2$ with visible biases $a$ and hidden biases $b$ instead. States are listed in
# > the order of `bmlab.all_states` (row $c$: unit $i$ is $+1$ exactly when bit $i$ of $c$ is 1).

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
from bmlab.hidden import HiddenMachine
from bmlab.plotting import draw_network
from bmlab.widgets.hidden import hidden_training_panel

bmlab.use_style()
SEED = 4
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · $p(v)$ by summing out the hidden units
#
# Give the machine a joint energy $E(v, h)$ and ask only about the visibles. The probability
# of a visible string is the total weight of all its hidden completions,
#
# $$ p(v) = \frac{1}{Z}\sum_h e^{-E(v,h)} = \frac{Z(v)}{Z}, \qquad Z(v) = \sum_h e^{-E(v,h)} . $$
#
# $Z(v)$ is a partition function in its own right: the one of the hidden units alone, while
# the visibles are held ("clamped") at $v$. Its logarithm is minus a free energy,
# $F(v) = -\log Z(v)$, so $p(v) \propto e^{-F(v)}$. Summing $Z(v)$ over all $v$ gives back
# the full $Z$.
#
# A general machine with 3 visible and 2 hidden units, random couplings. We compute $Z(v)$
# literally, one visible string at a time, and compare with bmlab, which treats $(v, h)$ as
# one fully visible machine of 5 units (`bmlab.log_partition`, `HiddenMachine.prob_joint`)
# and then sums over $h$:

# %%
machine = HiddenMachine(3, 2, restricted=False)
params = machine.init_params(rng=rng, scale=0.8, bias_scale=0.3)
J, theta = params["J"], params["theta"]
V, H = bmlab.all_states(3), bmlab.all_states(2)       # every v, every h


def energy(s):
    """Eq. 5.1 over the joint state s = (v, h) (J has a zero diagonal)."""
    return -0.5 * s @ J @ s - theta @ s


Z_v = np.array([sum(np.exp(-energy(np.concatenate([v, h]))) for h in H) for v in V])
p_v = machine.prob_visible(params)                  # bmlab: row sums of p(v, h)

print("sum_v Z(v) = Z:          ", np.isclose(Z_v.sum(), np.exp(bmlab.log_partition(J, theta)),
                                              rtol=1e-12))
print("Z(v) / Z = p(v) of bmlab:", np.allclose(Z_v / Z_v.sum(), p_v, atol=1e-14))
print("p(v) sums to 1:          ", np.isclose(p_v.sum(), 1.0, atol=1e-12))
print()
print(" v      F(v)    p(v)")
for v, F, p in zip(V, -np.log(Z_v), p_v, strict=True):
    print("".join("+" if x > 0 else "-" for x in v), f"  {F:+.3f}  {p:.3f}")

# %% [markdown]
# ## 2 · The gradient: clamped minus model
#
# Differentiate $\log p(v) = \log Z(v) - \log Z$ with respect to a visible–hidden coupling
# $W_{ij}$. Both terms are logarithms of partition functions, so both derivatives are
# averages of $v_i h_j$: the first under $p(h\mid v)$ with $v$ clamped to a training string,
# the second under the free-running model. Averaged over the data,
#
# $$ \frac{\partial L}{\partial W_{ij}} = \langle v_i h_j\rangle_\text{clamped} - \langle v_i
# h_j\rangle_\text{model}, $$
#
# where "clamped" means: draw $v$ from the data and $h$ from $p(h \mid v)$. The same holds
# for every coupling $J_{ab}$ and bias $\theta_a$ of the joint system. Written out for the
# machine above: the clamped phase enumerates $h$ for each training string, the free phase
# enumerates $(v, h)$ jointly, and the gradient is their difference. bmlab's
# `machine.gradient(data)` returns the same thing as a function of the parameters, which is
# what `bmlab.train` calls at every step.

# %%
data = parity(3)  # the data set of Section 3, used here just as some training strings


def averages(S, weights):
    """<s_a> and <s_a s_b> over the rows of S, weighted by weights / sum(weights)."""
    q = weights / weights.sum()
    return q @ S, S.T @ (q[:, None] * S)


N = machine.n_units
m_clamped, C_clamped = np.zeros(N), np.zeros((N, N))
for v in data:                                      # clamped: v from the data, h ~ p(h | v)
    S_v = np.array([np.concatenate([v, h]) for h in H])
    m, C = averages(S_v, np.exp([-energy(s) for s in S_v]))
    m_clamped, C_clamped = m_clamped + m / len(data), C_clamped + C / len(data)
S_all = np.array([np.concatenate([v, h]) for v in V for h in H])
m_free, C_free = averages(S_all, np.exp([-energy(s) for s in S_all]))   # free: (v, h) ~ p(v, h)
dJ = (C_clamped - C_free) * machine.mask            # no self-coupling: diagonal dropped
dtheta = m_clamped - m_free

grad = machine.gradient(data)(params)
diff = max(np.abs(dJ - grad["J"]).max(), np.abs(dtheta - grad["theta"]).max())
print(f"reference agrees with bmlab (max difference < 1e-10): {diff < 1e-10}")

# %% [markdown]
# Is "clamped minus model" really the slope of $L$? Nudge each $W_{ij}$ (that is, the pair
# $J_{i,3+j} = J_{3+j,i}$) up and down and difference the exact log-likelihood:

# %%
L = machine.metrics(data)["log_likelihood"]         # exact L(params), by enumeration
eps, fd = 1e-5, np.zeros((3, 2))
for i, j in np.ndindex(3, 2):
    step = np.zeros((N, N))
    step[i, 3 + j] = step[3 + j, i] = eps
    fd[i, j] = (L({"J": J + step, "theta": theta}) - L({"J": J - step, "theta": theta})) / (2 * eps)
print("dL/dW = finite differences of L to 1e-8:", np.abs(fd - dJ[:3, 3:]).max() < 1e-8)
print("dL/dW (rows: visible i, columns: hidden j):")
print(np.round(dJ[:3, 3:], 3))

# %% [markdown]
# Remove the hidden units and nothing is left to infer: the clamped average is the plain
# data average, and the rule is Eq. 5.4 again. Check against the fully visible machinery of
# `bmlab.exact`:

# %%
visible_only = HiddenMachine(4, 0)
p0 = visible_only.init_params(rng=rng, scale=0.7, bias_scale=0.3)
some_data = bmlab.codes_to_states(rng.integers(0, 16, size=20), 4)
g0 = visible_only.gradient(some_data)(p0)
mean_model, corr_model = bmlab.exact_moments(p0["J"], p0["theta"])
eq54 = some_data.T @ some_data / len(some_data) - corr_model
np.fill_diagonal(eq54, 0.0)
print("no hidden units: gradient = Eq. 5.4 (data minus model) to 1e-12:",
      np.allclose(g0["J"], eq54, atol=1e-12)
      and np.allclose(g0["theta"], some_data.mean(axis=0) - mean_model, atol=1e-12))

# %% [markdown]
# ## 3 · Parity: a data set with no first or second moments
#
# The even-parity strings of 3 bits are the four strings with an even number of $+1$s.
# Every unit is $+1$ half of the time and every pair agrees half of the time: the means and
# pair correlations are exactly those of coin flips. A fully visible machine only "sees" those
# moments (its optimum matches them, and the log-likelihood is concave, so the optimum is
# unique), so the best it can do is the uniform distribution over all 8 strings. Half of that
# mass lands on strings that never occur, and
# $\mathrm{KL}(p_\text{data}\,\|\,p_\text{model}) = \log 8 - \log 4 = \log 2$.

# %%
D3 = parity(3)
print("even-parity strings:", ["".join("+" if x > 0 else "-" for x in s) for s in D3])
print("means all zero:", np.all(D3.mean(axis=0) == 0),
      "| pair correlations all zero:", np.all((D3.T @ D3 / 4 - np.eye(3)) == 0))



def fit_best_of(machine, data, restarts=3, n_steps=1500):
    """Train from `restarts` random starts with the exact gradient (rate 0.1, momentum 0.9);
    return the run with the lowest final KL and the final KL of every run."""
    kl = machine.metrics(data)["kl"]
    runs = [bmlab.train(machine.init_params(rng=rng), machine.gradient(data), n_steps=n_steps,
                        lr=0.1, momentum=0.9) for _ in range(restarts)]
    final = np.array([kl(run.params) for run in runs])
    return runs[np.argmin(final)], final


fully_visible = HiddenMachine(3, 0)
_, fv_kls = fit_best_of(fully_visible, D3, n_steps=600)
print(f"fully visible, best of 3 restarts: KL = {fv_kls.min():.4f} nats "
      f"(log 2 = {np.log(2):.4f}); equals log 2 to 1e-6:",
      abs(fv_kls.min() - np.log(2)) < 1e-6)

# %% [markdown]
# Now the same strings with hidden units. Two architectures (Figure 5.4): a *general*
# machine with a single hidden unit (its visibles are also coupled to each other), and a
# *restricted* machine with three hidden units and couplings only between the layers. Each
# is trained with the exact gradient through `bmlab.train` (learning rate 0.1, momentum 0.9,
# 1500 steps), best of 3 random starts (`fit_best_of` above; Section 6 explains why several
# starts). The KL can only approach zero as couplings grow without bound, so we ask for
# KL < 0.01.

# %%
RESTARTS, STEPS = 3, 1500
architectures = {"general, 1 hidden unit": HiddenMachine(3, 1, restricted=False),
                 "restricted, 3 hidden units": HiddenMachine(3, 3, restricted=True)}
fits = {}
for name, m in architectures.items():
    fits[name], kls = fit_best_of(m, D3, RESTARTS, STEPS)
    print(f"{name:27s} best of {RESTARTS}: KL = {kls.min():.3f} nats; "
          f"KL < 0.01: {kls.min() < 0.01}")

# %% [markdown]
# How many hidden units does each architecture need? The sweep below trains every
# combination (0–4 hidden units, general and restricted, best of 3 starts each; about 5 s).

# %%
hidden_counts = range(5)
sweep = {}
for restricted in (False, True):
    sweep[restricted] = [
        fit_best_of(HiddenMachine(3, k, restricted=restricted), D3, RESTARTS, STEPS)[1].min()
        for k in hidden_counts
    ]
print("hidden units:        ", "  ".join(f"{k:5d}" for k in hidden_counts))
for restricted, label in ((False, "general"), (True, "restricted")):
    print(f"KL, {label:11s}      ", "  ".join(f"{kl:5.3f}" for kl in sweep[restricted]))

fig, ax = plt.subplots(figsize=(6, 3.4))
ax.plot(hidden_counts, sweep[False], "o-", color=bmlab.NAVY, label="general")
ax.plot(hidden_counts, sweep[True], "s-", color=bmlab.ORANGE, label="restricted")
ax.axhline(np.log(2), color=bmlab.GRAY, ls="--", lw=1)
ax.text(4, np.log(2) * 1.15, "log 2: best fully visible machine", color=bmlab.GRAY,
        ha="right", fontsize=9)
ax.axhline(0.01, color=bmlab.GRAY, ls=":", lw=1)
ax.set_yscale("log")
ax.set_xticks(list(hidden_counts))
ax.set_xlabel("number of hidden units")
ax.set_ylabel("KL(p_data || p_model), nats")
ax.set_title("3-bit parity, exact training, best of 3 starts")
ax.legend(loc="center right")
plt.show()

# %% [markdown]
# **What to look for:** both curves start on the dashed $\log 2$ line; the navy one drops below the
# dotted 0.01 at
# one hidden unit, the orange one only at three.

# %% [markdown]
# With no hidden units both curves sit at $\log 2$ (the restricted machine with no hidden
# units has no couplings at all). One hidden unit is enough for the general machine, whose
# visibles also talk to each other directly; the restricted machine needs three before the
# fit succeeds, and with one or two it stays far above zero.
#
# ## 4 · Where the power comes from: interactions of every order
#
# Any function of $n$ spins $\pm 1$ can be written as a sum of products of spins,
#
# $$ \log p(v) = c_\varnothing + \sum_i c_i v_i + \sum_{i<j} c_{ij} v_i v_j + \sum_{i<j<k} c_{ijk}
# v_i v_j v_k + \dots , $$
#
# (the Walsh or Fourier expansion; $c_A = 2^{-n}\sum_v \log p(v) \prod_{i\in A} v_i$). A fully
# visible machine has only the first three kinds of term, up to pairs. Summing out one
# hidden unit with couplings $w$ and bias $b$ gives the factor $2\cosh(b + w\cdot v)$, and its
# logarithm is not a polynomial of degree two: it contains terms of every order.
#
# The coefficients are one matrix product: row $A$ of `bmlab.all_states(n)` doubles as the
# subset $A$ (unit $i$ belongs to $A$ where the row holds $+1$). One hidden unit on 4
# visibles, no biases anywhere:

# %%
def walsh_coefficients(f, n):
    """c_A = 2^-n sum_v f(v) prod_{i in A} v_i for every subset A; also the orders |A|."""
    V_n = bmlab.all_states(n)                       # the states v, in all_states order
    in_A = V_n > 0                                  # row A: the members of subset A
    chi = np.where(in_A[:, None, :], V_n[None, :, :], 1).prod(axis=2)   # chi[A, v]
    return chi @ f / 2**n, in_A.sum(axis=1)


w = np.array([0.9, -0.7, 0.5, 1.1])
J_w = np.zeros((5, 5))
J_w[:4, 4] = J_w[4, :4] = w                         # W: the hidden unit's couplings
one_unit = HiddenMachine(4, 1, restricted=True, visible_bias=False, hidden_bias=False)
c, order = walsh_coefficients(np.log(one_unit.prob_visible({"J": J_w, "theta": np.zeros(5)})), 4)
size = np.array([np.abs(c[order == k]).max() for k in range(1, 5)])
print("largest |c_A| by order 1..4:", np.round(size, 4))
print("4-body term c_1234 (of v1 v2 v3 v4) =", f"{c[15]:+.4f}")
V4 = bmlab.all_states(4)
print("c_1234 = 2^-4 sum_v v1 v2 v3 v4 log 2cosh(w.v) to 1e-12:",
      abs(c[15] - np.mean(V4.prod(axis=1) * np.log(2 * np.cosh(V4 @ w)))) < 1e-12)
print("odd orders vanish (|c| < 1e-12) without biases:", size[0] < 1e-12 and size[2] < 1e-12)

with_bias = HiddenMachine(4, 1, restricted=True, visible_bias=False)
theta_b = np.array([0, 0, 0, 0, 0.6])
c_b, _ = walsh_coefficients(np.log(with_bias.prob_visible({"J": J_w, "theta": theta_b})), 4)
print("\nwith hidden bias b = 0.6, the 3-body terms:")
for A in np.flatnonzero(order == 3):
    print("  " + "".join(f"v{i + 1}" for i in range(4) if A >> i & 1), f"{c_b[A]:+.4f}")

# %% [markdown]
# Why only even orders without biases: flipping every spin, visible and hidden, leaves a
# purely pairwise energy unchanged, so $p(v) = p(-v)$ and $\log p$ is an even function of
# $v$. Biases are the only terms that break this symmetry, and with them the odd orders
# appear. (Consequence for 3-bit parity, whose strings all flip into *odd* strings: a machine
# without biases cannot fit it, however many hidden units it has. See exercise 2.)
#
# The trained general machine of Section 3 (one hidden unit) shows what the fit needed: the
# expansion of its $\log p(v)$ is dominated by the single 3-body term $v_1 v_2 v_3$, the very
# term that tells even strings from odd ones.

# %%
trained = architectures["general, 1 hidden unit"]
p_fit = trained.prob_visible(fits["general, 1 hidden unit"].params)
c_fit, orders = walsh_coefficients(np.log(p_fit), 3)
print("orders 1 and 2, largest |c|:",
      np.round([np.abs(c_fit[orders == k]).max() for k in (1, 2)], 2),
      "| 3-body c_123 =", f"{c_fit[7]:+.2f}")

labels = ["const" if a == 0 else "".join(f"v{i + 1}" for i in range(3) if a >> i & 1)
          for a in range(8)]
order_of = np.argsort(orders, kind="stable")[1:]  # skip the constant (it holds -log Z)
fig, ax = plt.subplots(figsize=(6, 3))
ax.bar(range(7), c_fit[order_of], color=[bmlab.ORANGE if orders[a] == 3 else bmlab.NAVY
                                          for a in order_of])
ax.set_xticks(range(7), [labels[a] for a in order_of])
ax.axhline(0, color="k", lw=0.6)
ax.set_ylabel("coefficient in log p(v)")
ax.set_title("trained machine on 3-bit parity: multi-spin terms")
plt.show()

# %% [markdown]
# **What to look for:** the orange three-body bar dwarfs the navy one- and two-body bars: parity
# lives entirely
# in the $v_1v_2v_3$ term.

# %% [markdown]
# ## 5 · The price: a second hard expectation
#
# The clamped average needs $p(h \mid v)$ for every training string. In a general machine
# the hidden units are coupled to each other, so with $v$ clamped they still form an
# interacting system: $p(h\mid v)$ does not split into a product over units, and computing it
# means summing over all $2^{N_h}$ hidden configurations, for every data point, at every
# step. We compare the exact conditional with the product of its own one-unit marginals.

# %%
H_all = bmlab.all_states(3)


def conditional(m, p):
    """p(h | v): row v of the table p(v, h), normalised (rows: 8 strings v, columns: 8 h)."""
    joint = m.prob_joint(p)
    return joint / joint.sum(axis=1, keepdims=True)


def product_of_marginals(cond):
    """prod_j p(h_j | v) from the exact one-unit means <h_j | v>, for all v and h."""
    means = cond @ H_all                                  # (8 visible strings, 3 units)
    return np.prod((1 + H_all[None, :, :] * means[:, None, :]) / 2, axis=2)


general = HiddenMachine(3, 3, restricted=False)
restricted = HiddenMachine(3, 3, restricted=True)
pg = general.init_params(rng=rng, scale=0.8, bias_scale=0.3)
pr = restricted.init_params(rng=rng, scale=0.8, bias_scale=0.3)
cond_g, cond_r = conditional(general, pg), conditional(restricted, pr)
gap_g = np.abs(cond_g - product_of_marginals(cond_g)).max()
gap_r = np.abs(cond_r - product_of_marginals(cond_r)).max()
print(f"general:    max |p(h|v) - prod_j p(h_j|v)| = {gap_g:.3f}  "
      f"({'factorizes' if gap_g < 1e-12 else 'does not factorize'})")
print(f"restricted: max |p(h|v) - prod_j p(h_j|v)| < 1e-12: {gap_r < 1e-12}")
for n_h in (10, 30, 100):
    print(f"general machine, N_h = {n_h:3d}: 2^N_h = {2**n_h:.3g} hidden states per data point")

# %% [markdown]
# In the restricted machine each hidden unit sees only the visibles, so once they are fixed
# the hidden units are independent two-state systems in a field, with
# $\langle h_j \mid v\rangle = \tanh\big(b_j + \sum_i W_{ij} v_i\big)$. The whole clamped
# phase is then one vectorised line, with no sum over hidden configurations:

# %%
W, b = pr["J"][:3, 3:], pr["theta"][3:]
clamped_vh = D3.T @ np.tanh(D3 @ W + b) / len(D3)                # <v_i h_j>_clamped, one line
enumerated = D3.T @ (cond_r[bmlab.state_codes(D3)] @ H_all) / len(D3)   # sum over all 2^N_h h
print("one-line clamped phase = enumeration over all 2^N_h hidden states:",
      np.allclose(clamped_vh, enumerated, atol=1e-13))

# %% [markdown]
# ## 6 · The second price: the landscape is no longer concave
#
# For the fully visible machine, $L$ is concave (notebook 03): along any straight line in
# parameter space it bends downward only, so there is a single hill. Hidden units have no
# names, though. Swap the labels of two hidden units of a trained machine, with their
# couplings and biases: the result is a *different* parameter vector describing *the same*
# $p(v)$, so it has the same $L$. Walk in a straight line from one to the other. A concave
# function would stay at least as high as both ends; here it drops in the middle.

# %%
two_hidden = HiddenMachine(3, 2, restricted=False)
best2, _ = fit_best_of(two_hidden, D3, RESTARTS, STEPS)
start = best2.params
swap = [0, 1, 2, 4, 3]                              # units v1 v2 v3 h2 h1: relabel h1 <-> h2
swapped = {"J": start["J"][np.ix_(swap, swap)], "theta": start["theta"][swap]}
sign = np.array([1, 1, 1, -1, 1])                   # h1 -> -h1, with its couplings and bias
flipped = {"J": start["J"] * np.outer(sign, sign), "theta": start["theta"] * sign}


def along(L, a, b, t):
    """L on the straight line (1 - t) a + t b in parameter space."""
    return np.array([L({k: (1 - tk) * a[k] + tk * b[k] for k in a}) for tk in t])


t = np.linspace(-0.25, 1.25, 61)                    # t[30] = 0.5, the midpoint
L_D3 = two_hidden.metrics(D3)["log_likelihood"]
L_swap, L_flip = along(L_D3, start, swapped, t), along(L_D3, start, flipped, t)
L_end = L_D3(start)
print("same L at both ends (relabelled machine):", np.isclose(L_end, L_D3(swapped), atol=1e-12))
for name, curve in (("swap h1 <-> h2", L_swap), ("flip the sign of h1", L_flip)):
    dip = L_end - curve[30]
    print(f"{name:20s}: L at the midpoint is {dip:.2f} nats below both ends "
          f"(non-concave: {dip > 1e-3})")

fully = HiddenMachine(3, 0)
qa, qb = fully.init_params(rng=rng, scale=1.5), fully.init_params(rng=rng, scale=1.5)
L_fv = along(fully.metrics(D3)["log_likelihood"], qa, qb, t)
print("fully visible slice: second differences all <= 0 (concave):",
      np.all(np.diff(L_fv, 2) <= 1e-12))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.2))
ax1.plot(t, L_swap, color=bmlab.NAVY, label="swap two hidden units")
ax1.plot(t, L_flip, color=bmlab.ORANGE, label="flip one hidden unit")
ax1.axvline(0, color=bmlab.GRAY, lw=0.8)
ax1.axvline(1, color=bmlab.GRAY, lw=0.8)
ax1.set_xlabel("t  (0: trained machine, 1: its relabelled copy)")
ax1.set_ylabel("L, nats")
ax1.set_title("with hidden units: two peaks, a valley")
ax1.legend(fontsize=8, loc="lower center")
ax2.plot(t, L_fv, color=bmlab.NAVY)
ax2.set_xlabel("t  (between two random parameter points)")
ax2.set_title("fully visible: concave (notebook 03)")
fig.tight_layout()
plt.show()

# %% [markdown]
# **What to look for:** on the left, equal heights at $t=0$ and $t=1$ with a valley between them; on
# the right,
# a single hump with no valley.

# %% [markdown]
# A machine with $N_h$ hidden units has up to $N_h!\,2^{N_h}$ equivalent copies of each
# solution (relabellings and sign flips), so the landscape has many equally good peaks with
# valleys between them. Gradient ascent still climbs one of them, but "every local maximum is
# global" is no longer guaranteed: different starts can end on peaks of different height,
# which is why every fit above reports the best of several starts.
#
# ## 7 · Figure 5.4, redrawn
#
# Left, the general machine: couplings everywhere, within each layer too. Right, the
# restricted machine: only between the layers, which is exactly what made the clamped phase
# of Section 5 a one-liner.

# %%
fig, (ax_g, ax_r) = plt.subplots(1, 2, figsize=(9, 3.4))
draw_network(ax_g, 4, 3, restricted=False, title="general Boltzmann machine")
draw_network(ax_r, 4, 3, restricted=True, title="restricted Boltzmann machine")
fig.tight_layout()
bmlab.save_figure(fig, "fig5.4_general_vs_restricted")
plt.show()

# %% [markdown]
# **What to look for:** the lines inside each layer on the left, and their absence on the right.

# %% [markdown]
# ## Try it: train with hidden units
#
# Pick a data set, a machine and a number of hidden units, then press **Run**. The gray bars
# are the data, the navy bars the trained model's $p(v)$; the right panel shows the KL during
# training. Things to try: parity with 0, 1, 2, 3 hidden units in each architecture; one-hot
# strings, which a fully visible ("general", 0 hidden) machine already fits.

# %% tags=["nbval-ignore-output"]
panel = hidden_training_panel()
panel

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. A worked solution follows each check cell, collapsed:
# click the `…` (or the bar at the cell's left) to show it, then run it.

# %% [markdown]
# **1 · Two-bit parity.** Even parity of *two* bits is the pair $\{(+,+), (-,-)\}$. Can a
# fully visible machine fit it? Predict, then check with
# `fit_best_of(HiddenMachine(2, 0), parity(2), ...)`. *Your answer:* the KL (nats) of the
# fully visible machine with $J_{12} = 2$ and no biases, to 3 decimals.

# %%
my_answer = None  # KL(p_data || p_model) for J12 = 2, theta = 0, to 3 decimals
bmlab.check("04.1", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 1. Here the pair correlation is +1, a second moment, so a single coupling J_12 > 0
# pushes the mass onto the two aligned strings: no hidden units needed. The KL falls like
# log(1 + e^{-2 J12}) as J12 grows.
_, kls_2bit = fit_best_of(HiddenMachine(2, 0), parity(2), restarts=1)
print("2-bit parity, fully visible: KL < 0.01:", kls_2bit.min() < 0.01)
answer = HiddenMachine(2, 0).metrics(parity(2))["kl"]({"J": np.array([[0.0, 2.0], [2.0, 0.0]]),
                                                        "theta": np.zeros(2)})
print(f"KL at J12 = 2: {answer:.3f} nats")
assert bmlab.check("04.1", answer)

# %% [markdown]
# **2 · No biases.** Take a general machine with 2 hidden units for 3-bit parity, but switch
# off *all* biases (`visible_bias=False, hidden_bias=False`). What KL do you expect after
# training, and why? Check it. *Your answer:* the best KL (nats), to 3 decimals.

# %%
my_answer = None  # best KL without biases, to 3 decimals
bmlab.check("04.2", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 2. Without biases p(v) = p(-v) (Section 4), and flipping an even 3-bit string gives
# an odd one. So every model of this kind puts exactly half of its mass on strings that never
# occur; the best it can do is spread the other half evenly, 1/8 per string: KL = log 2 again.
no_bias = HiddenMachine(3, 2, restricted=False, visible_bias=False, hidden_bias=False)
_, kls_nb = fit_best_of(no_bias, D3)
answer = kls_nb.min()
print(f"no biases: best KL = {answer:.4f} nats; equals log 2 to 1e-3:",
      abs(answer - np.log(2)) < 1e-3)
assert bmlab.check("04.2", answer)

# %% [markdown]
# **3 · The midpoint.** In Section 6, the line to the *sign-flipped* copy passes through
# $t = 1/2$. What is special about the machine at that midpoint? Inspect its couplings of
# hidden unit 1. *Your answer:* how many hidden units of the midpoint machine are connected
# to anything (a whole number)?

# %%
my_answer = None  # connected hidden units at t = 1/2 (a whole number)
bmlab.check("04.3", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 3. Flipping h1 negates its couplings and bias; the average of w and -w is 0, so at
# t = 1/2 hidden unit 1 is disconnected from everything: the midpoint is a machine with one
# hidden unit fewer, which fits parity worse than the trained one.
mid = {k: 0.5 * (start[k] + flipped[k]) for k in start}
print("hidden unit 1 disconnected at the midpoint:",
      np.all(mid["J"][3] == 0) and mid["theta"][3] == 0)
answer = sum(bool(np.any(mid["J"][i] != 0) or mid["theta"][i] != 0) for i in (3, 4))
assert bmlab.check("04.3", answer)
