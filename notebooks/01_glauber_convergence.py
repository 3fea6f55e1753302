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
# # 01 · Glauber dynamics: heat the network, get Boltzmann
#
# Companion to Section 5.3 of the lecture (and the sampling half of Section 5.5). Week 2's
# network flipped each spin to lower its energy. Here every update is a coin toss instead, and
# we check on machines small enough to list every state what that buys and what it costs.
#
# **What this notebook teaches**
#
# 1. the heat-bath coin of Eq. 5.2, written out as a five-line loop and checked against
#    bmlab's vectorised chain (Section 2), and Figure 5.3 redrawn from it (Section 3);
# 2. why the chain ends at the Boltzmann law of Eq. 5.1/5.3: detailed balance, checked
#    exactly on $8\times8$ transition matrices, and what the order of the updates changes
#    (Section 4);
# 3. why it ends there from *any* start: irreducibility and aperiodicity, shown by two chains
#    at $\beta=\infty$ that fail, one by cycling and one by getting stuck (Section 4c);
# 4. how fast it forgets its start: total-variation curves, the spectral gap and the bounds
#    it gives (Section 5); why $\beta$ can be absorbed into $J$ and $\theta$ (Section 6);
# 5. the second obstruction of the course: on landscapes with deep basins the forgetting
#    takes exponentially long, and parallel tempering as one way out (Section 7).
#
# **What it assumes**
#
# - the energy of Eq. 5.1 and the zero-temperature update $s_k=\operatorname{sign}(h_k)$ of
#   Week 2;
# - the two-state Boltzmann law and the logistic function $\sigma$ of Week 1;
# - a Markov chain as a matrix $T$ whose rows sum to one (the law after one step is $pT$);
# - numpy arrays and broadcasting.

# %% [markdown]
# > **Notation.** A state $s$ lists $N$ spins, each $s_i=\pm1$ (the $\{0,1\}$ units come
# > only in notebook 05). The couplings are symmetric, $J_{ij}=J_{ji}$, with no self-coupling
# > ($J_{ii}=0$); $\theta_i$ is the bias of spin $i$ and $\beta$ the inverse temperature
# > ($\beta=\infty$: the greedy network of Week 2). In this notebook $h_k=\sum_j
# > J_{kj}s_j+\theta_k$ is the *field* acting on spin $k$ -- not a hidden unit, which is what
# > $h_j$ means from notebook 04 on. $T(s,s')$ is the probability that one update (or one
# > sweep, when we say so) takes $s$ to $s'$. The eight states of three spins are numbered as
# > in `bmlab.all_states` and every other notebook: state $c$ has $s_i=+1$ exactly when bit
# > $i$ of $c$ is set, so the list opens with $-\,-\,-$ and $s_1$ alternates fastest.

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
from matplotlib.colors import to_rgb

import bmlab
from bmlab.plotting import state_labels
from bmlab.widgets.glauber import fig53_panel, figure_5_3, two_basin_panel

bmlab.use_style()
SEED = 1
rng = np.random.default_rng(SEED)


def tints(color, n):
    """n tints of one colour, light to full: one family of curves (exact laws in navy, chains
    in orange), told apart by strength."""
    rgb = np.array(to_rgb(color))
    return [tuple(1 - f * (1 - rgb)) for f in np.linspace(0.4, 1.0, n)]


# %% [markdown]
# ## 1. The machine of Figure 5.3
#
# Three ±1 spins on a triangle, $J_{12}=J_{23}=0.5$, $J_{13}=-0.5$, $\theta=0$, $\beta=1$.
# The product of the three couplings is negative, so no state satisfies every bond: six states
# break exactly one bond ($E=-0.5$) and two break all three ($E=+1.5$). Enumerating the eight
# states gives the exact Boltzmann law that every chain below is compared with.

# %%
J = np.array([[0.0, 0.5, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.5, 0.0]])
S = bmlab.all_states(3).astype(float)
E = bmlab.energy(S, J)
p = bmlab.boltzmann_probs(J)
pair = S[:, 0] * S[:, 1]  # the observable s1 s2 on every state
exact_pair = p @ pair
print(f"Z = {np.exp(bmlab.log_partition(J)):.2f}")
for label, e, pr in zip(state_labels(3), E, p, strict=True):
    print(f"  {label}   E = {e:+.1f}   p = {pr:.4f}")
print(f"exact <s1 s2> = {exact_pair:.3f}")


# %% [markdown]
# ## 2. One spin at a time (Eq. 5.2)
#
# Freeze every spin but $s_k$. Then $s_k$ feels the local field $h_k=\sum_j J_{kj}s_j+\theta_k$
# and is a two-level system: the heat-bath update redraws it with
# $p(s_k=+1\mid\text{rest})=\sigma(2\beta h_k)$. Seen from the current state, a redraw has
# two outcomes, $s_k$ stays or $s_k$ changes sign; the sign change costs $\Delta E_k=2s_kh_k$
# and its probability is $w = 1/(1+e^{\beta\Delta E_k})$ (Eq. 5.2).
#
# Left: going far downhill ($\beta\Delta E\ll-1$) is almost certain, going uphill costs about
# $e^{-\beta\Delta E}$ (dotted) -- small but never zero. Right: as $\beta\to\infty$ the coin
# becomes the deterministic rule $s_k=\operatorname{sign}(h_k)$ of the zero-temperature
# network.

# %%
def sigma(x):
    return 1.0 / (1.0 + np.exp(-x))


def flip_probability(dE, beta):
    """Eq. 5.2; at beta = inf: 1 downhill, 0 uphill, 1/2 at dE = 0."""
    return (1 - np.sign(dE)) / 2 if beta == np.inf else 1.0 / (1.0 + np.exp(beta * dE))


dE = np.linspace(-4, 4, 401)
h = np.linspace(-2, 2, 401)
fig, (ax_w, ax_p) = plt.subplots(1, 2, figsize=(9.0, 3.4))
betas_coin = [0.5, 1.0, 2.0, 5.0, np.inf]
for b, color in zip(betas_coin, tints(bmlab.NAVY, len(betas_coin)), strict=True):
    lab = r"$\beta=\infty$" if b == np.inf else rf"$\beta={b:g}$"
    ax_w.plot(dE, flip_probability(dE, b), color=color, label=lab)
    ax_p.plot(h, flip_probability(-2 * h, b), color=color, label=lab)  # from -1 it costs -2h
up = dE > 0
ax_w.plot(dE[up], np.exp(-2.0 * dE[up]), ":", color=bmlab.GRAY, lw=1.5,
          label=r"$e^{-\beta\Delta E}$, $\beta=2$")
ax_w.set(xlabel=r"energy change $\Delta E$ of the flip", ylabel=r"flip probability $w$",
         ylim=(-0.03, 1.03))
ax_w.legend(fontsize=8)
ax_p.set(xlabel=r"local field $h_k$", ylabel=r"$p(s_k=+1\mid \mathrm{rest})$", ylim=(-0.03, 1.03))
fig.tight_layout()
plt.show()

# %% [markdown]
# **What to look for:** every curve passes through 1/2 at zero cost; the larger $\beta$ (the
# darker the navy), the closer the coin comes to the step function of the $\beta=\infty$
# curve, and uphill flips never quite vanish at finite $\beta$.
#
# The cell below checks the two readings of the coin against each other at one temperature
# ($\beta=1.3$, from either value of $s_k$) and that a very cold coin ($\beta=200$) is the
# rule $s_k=\operatorname{sign}(h_k)$.

# %%
h_k = np.linspace(-3, 3, 61)
for s_k in (-1, 1):  # the redraw lands on -s_k with probability w(2 s_k h_k)
    p_flip = 1 - sigma(2 * 1.3 * h_k) if s_k == 1 else sigma(2 * 1.3 * h_k)
    same = np.allclose(p_flip, flip_probability(2 * s_k * h_k, 1.3), rtol=0, atol=1e-12)
    print(f"from s_k = {s_k:+d}: heat-bath redraw flips with probability w of Eq. 5.2 (1e-12): "
          f"{same}")
hk = np.array([-0.7, -0.1, 0.1, 0.7])
print("beta = 200 reproduces sign(h_k):",
      np.allclose(sigma(2 * 200 * hk), (1 + np.sign(hk)) / 2, rtol=0, atol=1e-12))


# %% [markdown]
# **The chain, written out.** The loop below is the whole algorithm: pick a site, compute its
# local field, redraw the spin. It runs one chain of the Figure 5.3 experiment (random site at
# every update, start at all $+1$, $4000$ sweeps of 3 updates). The coin flips and sites are
# drawn up front -- first all uniforms, then all sites, which is the order in which
# `bmlab.glauber_run` draws them -- so that bmlab's vectorised kernel, fed the same random
# stream, must produce the very same states.

# %%
def glauber_chain(J, theta, beta, u, sites):
    """One heat-bath chain from all +1; update t redraws spin k = sites[t] with uniform u[t]."""
    s = np.ones(len(theta))
    states = np.empty((len(u), len(theta)))
    for t, k in enumerate(sites):
        h_k = J[k] @ s + theta[k]  # local field of the other spins
        s[k] = 1.0 if u[t] < sigma(2 * beta * h_k) else -1.0  # p(s_k = +1 | rest)
        states[t] = s
    return states


n_updates = 3 * 4000
u, sites = rng.random(n_updates), rng.integers(3, size=n_updates)  # rng is still fresh here
chain = glauber_chain(J, np.zeros(3), 1.0, u, sites)
same_stream = np.random.default_rng(SEED)  # a new generator with the same seed: the same draws
run = bmlab.glauber_run(J, beta=1.0, n_sweeps=4000, order="random", rng=same_stream)
same = np.array_equal(chain, run.states[:, 0, :])
print(f"reference agrees with bmlab (same random draws, identical states after each of "
      f"{n_updates} updates): {same}")


# %% [markdown]
# ## 3. Figure 5.3: one chain against the exact law
#
# Left: the fraction of time the chain of Section 2 spent in each state, beside $e^{-E}/Z$.
# Right: its running average of $s_1s_2$ approaching the exact value (dashed). Nothing in the
# chain knows $Z$.

# %%
def tv(p, q):
    """Total-variation distance 1/2 sum_s |p(s) - q(s)| along the last axis."""
    return 0.5 * np.abs(p - q).sum(axis=-1)


visits = np.bincount(run.codes[:, 0], minlength=8) / n_updates
running = np.cumsum(chain[:, 0] * chain[:, 1]) / np.arange(1, n_updates + 1)
fig = figure_5_3(p, visits, E, run.sweeps, running, exact_pair)
bmlab.save_figure(fig, "fig5.3_glauber_convergence")
plt.show()

# %% [markdown]
# **What to look for:** each orange bar about as tall as the navy bar beside it (the six
# $E=-0.5$ states share one height), and the
# running average ends near the dashed exact line while still wobbling.
#
# **How near is near?** Successive states of the chain are correlated, so a time average of
# $n$ updates has the standard error $\sqrt{\operatorname{Var}(s_1s_2)\,\tau/n}$, where
# $\tau=1+2\sum_{t\ge1}\rho(t)$ counts the updates per effectively independent sample
# (Section 7b estimates it from a trace). On the triangle $\rho(t)$ is exact: with
# $f=s_1s_2-\langle s_1s_2\rangle$ and $T$ the matrix of one random-site update (Section 4),
# the covariance of $f$ at lag $t$ is $\sum_s p(s)\,f(s)\,(T^tf)(s)$.

# %%
T_update = bmlab.glauber_transition_matrix(J, beta=1.0)  # one random-site update (Section 4)
f_pair = pair - exact_pair
lag_cov = np.array([p @ (f_pair * (np.linalg.matrix_power(T_update, t) @ f_pair))
                    for t in range(200)])  # exact covariance at lag t; negligible by t = 200
tau_pair = 1 + 2 * lag_cov[1:].sum() / lag_cov[0]
se_pair = np.sqrt(lag_cov[0] * tau_pair / n_updates)
z_pair = (running[-1] - exact_pair) / se_pair
print(f"chain estimate of <s1 s2> after 4000 sweeps: {running[-1]:.3f}   (exact {exact_pair:.3f})")
print(f"total-variation distance, visits vs exact: {tv(visits, p):.3f}")
print(f"standard error of a time average over {n_updates} updates: {se_pair:.4f} "
      f"(Var(s1 s2) = {lag_cov[0]:.3f}, tau = {tau_pair:.2f} updates, both exact)")
print(f"chain minus exact: {running[-1] - exact_pair:+.3f} = {z_pair:+.1f} standard errors; "
      f"within 4 standard errors: {abs(z_pair) < 4}")


# %% [markdown]
# ## 4. Detailed balance, checked exactly
#
# Random-site Glauber dynamics on 3 spins is an $8\times 8$ matrix $T$: from state $s$, pick
# one of the 3 sites and flip it with the probability of Eq. 5.2. For every pair $s, s'$ one
# flip apart the ratio of forward to backward moves should be $e^{-\beta[E(s')-E(s)]}$, which
# makes the Boltzmann vector a left eigenvector of $T$ with eigenvalue 1. We test it on the
# triangle and on a random 4-spin machine with biases at $\beta=1.7$.

# %%
def check_balance(J, theta, beta):
    n = J.shape[0]
    T = bmlab.glauber_transition_matrix(J, theta, beta)
    pb = bmlab.boltzmann_probs(J, theta, beta)
    En = bmlab.energy(bmlab.all_states(n), J, theta)
    codes = np.arange(2**n)
    rel_err = 0.0
    for k in range(n):  # all single-flip pairs at once, one site at a time
        d = codes ^ (1 << k)
        ratio = T[codes, d] / T[d, codes]
        rel_err = max(rel_err, np.max(np.abs(ratio / np.exp(-beta * (En[d] - En)) - 1)))
    return T, pb, rel_err


A = rng.normal(size=(4, 4))
J4 = (A + A.T) / 2
np.fill_diagonal(J4, 0.0)
machines = {
    "triangle, beta=1": (J, None, 1.0),
    "random N=4 with biases, beta=1.7": (J4, rng.normal(size=4), 1.7),
}
for name, (Jm, th, b) in machines.items():
    T, pb, rel_err = check_balance(Jm, th, b)
    print(f"{name}:")
    print(f"  w(s->s')/w(s'->s) = e^(-beta dE) for every single flip, to 1e-12: {rel_err < 1e-12}")
    print(f"  Boltzmann vector stationary, |pT - p| < 1e-14: {np.abs(pb @ T - pb).max() < 1e-14}")


# %% [markdown]
# ### 4b. The order of the updates
#
# $T$ above picks the site at random. Section 7 will visit the sites in turn instead (a
# *sequential* sweep, $T_1T_2T_3$), and a tempting shortcut is to update all spins at once from
# the same old state (*synchronous*). Written out as exact $8\times8$ matrices on the triangle
# at $\beta=1$: $T_k$ redraws spin $k$ from its local field. Every $T_k$ leaves the Boltzmann law
# stationary, so the random-site average and the sequential product do too; but only the
# random-site matrix satisfies detailed balance, $p(s)T(s,s')=p(s')T(s',s)$ -- a sweep in a
# fixed order, run backwards, visits the sites in the other order. The synchronous update
# redraws all three spins from the *old* fields and keeps neither property.

# %%
def p_plus(h, beta):
    """p(s_k = +1 | rest) = sigma(2 beta h); at beta = inf the step (1 + sign h) / 2 (1/2 at a
    tie)."""
    return (1 + np.sign(h)) / 2 if beta == np.inf else sigma(2 * beta * h)


def site_matrix(J, theta, beta, k):
    """Heat-bath redraw of spin k as a (2^N, 2^N) matrix, rows and columns in all_states order."""
    Sk = bmlab.all_states(len(theta)).astype(float)
    p_up = p_plus(Sk @ J[k] + theta[k], beta)  # J_kk = 0: the field ignores s_k itself
    up, down = Sk.copy(), Sk.copy()
    up[:, k], down[:, k] = 1.0, -1.0
    Tk, rows = np.zeros((len(Sk), len(Sk))), np.arange(len(Sk))
    Tk[rows, bmlab.state_codes(up)] += p_up
    Tk[rows, bmlab.state_codes(down)] += 1 - p_up
    return Tk


def synchronous_matrix(J, theta, beta):
    """All spins redrawn at once from the old state: T(s, s') = prod_i p(s'_i | old fields)."""
    Sk = bmlab.all_states(len(theta)).astype(float)
    p_up = p_plus(Sk @ J + theta, beta)  # (states, N): p(s'_i = +1 | s)
    return np.prod(np.where(Sk[None, :, :] > 0, p_up[:, None, :], 1 - p_up[:, None, :]), axis=2)


T_k = [site_matrix(J, np.zeros(3), 1.0, k) for k in range(3)]
orders = {"random site": sum(T_k) / 3, "sequential": T_k[0] @ T_k[1] @ T_k[2],
          "synchronous": synchronous_matrix(J, np.zeros(3), 1.0)}
print("reference agrees with bmlab (random-site matrix, 1e-12):",
      np.allclose(orders["random site"], bmlab.glauber_transition_matrix(J, beta=1.0),
                  rtol=0, atol=1e-12))
for name, To in orders.items():
    flow = p[:, None] * To  # p(s) T(s, s')
    stationary, balanced = np.abs(p @ To - p).max() < 1e-12, np.abs(flow - flow.T).max() < 1e-12
    print(f"{name:>12}: Boltzmann law {'stationary' if stationary else 'NOT stationary'} (1e-12),"
          f" detailed balance {'holds' if balanced else 'fails'} (1e-12)")

# %% [markdown]
# At $\beta=\infty$ the synchronous rule is deterministic, $s\to\operatorname{sign}(Js)$, and on the
# triangle it never settles: from $-+-$ every spin sees a field against it and all three flip,
# landing on $+-+$, which maps back. The two states of this period-2 orbit are the two
# *highest*-energy states. Any single flip from them lowers the energy by 2, so a one-spin rule
# would leave at once.

# %%
labels = state_labels(3)
s_now = np.array([-1.0, 1.0, -1.0])
orbit = [s_now]
for _ in range(4):
    fields = J @ orbit[-1]
    assert np.all(fields != 0)  # no ties: sign(h) is decided on this orbit
    orbit.append(np.sign(fields))  # every spin to the sign of its old local field
codes = bmlab.state_codes(np.array(orbit))
print("synchronous, beta = inf: " + " -> ".join(f"{labels[c]} (E = {E[c]:+.1f})" for c in codes))
print("period 2:", np.array_equal(orbit[2], orbit[0]) and not np.array_equal(orbit[1], orbit[0]))
dE_single = [bmlab.energy(o * np.where(np.arange(3) == k, -1, 1), J) - bmlab.energy(o, J)
             for o in orbit[:2] for k in range(3)]
print("every single flip from the orbit lowers E by 2 (1e-12):",
      np.allclose(dE_single, -2.0, rtol=0, atol=1e-12))


# %% [markdown]
# ### 4c. Stationary is not enough: irreducibility and aperiodicity
#
# A law that $T$ leaves in place is where a chain *can* rest. The chain reaches it from every
# start when, in addition, every state can reach every other (*irreducible*) and the chain
# does not cycle (*aperiodic*). Together they say that some power $T^k$ has no zero entry. At
# finite $\beta$ every flip of Eq. 5.2 has $w>0$ and the heat bath may also keep the spin,
# so random-site Glauber dynamics has both. At $\beta=\infty$ each can fail, and the exact
# $8\times8$ matrices show how:
#
# - **a cycle:** the synchronous rule on the triangle, started at $-+-$, alternates between
#   the two states of a period-2 orbit for ever; since no move leaves that orbit, this chain
#   is not irreducible either. Its law never settles. For contrast, a chain that has both
#   properties: the random-site chain at $\beta=1$ from the same start forgets it (it
#   differs from the synchronous rule in the order of the updates and in $\beta$; it shows
#   what settling looks like, not which of the two causes the cycle);
# - **no irreducibility:** greedy random-site updates on the *unfrustrated* triangle
#   ($J_{13}=+0.5$) cannot leave $+++$ or $---$, where every flip costs energy. The
#   limit then depends on the start, while the cold Boltzmann law puts weight $\tfrac12$ on
#   each of the two.

# %%
def first_positive_power(T, k_max=64):
    """Smallest k <= k_max with every entry of T^k positive (irreducible and aperiodic), else
    None."""
    P = np.eye(len(T))
    for k in range(1, k_max + 1):
        P = P @ T
        if np.all(P > 0):
            return k
    return None


J_un = np.abs(J)  # J13 = +0.5: no frustration, two ground states +++ and ---
cold = {"random-site Glauber, beta = 1": orders["random site"],
        "synchronous, beta = inf": synchronous_matrix(J, np.zeros(3), np.inf),
        "greedy random-site, beta = inf, J13 = +0.5": sum(
            site_matrix(J_un, np.zeros(3), np.inf, k) for k in range(3)) / 3}
print("smallest k with every entry of T^k > 0 (k single-site updates or synchronous steps):")
for name, Tc in cold.items():
    k = first_positive_power(Tc)
    print(f"  {name:<43} {'none up to 64' if k is None else k}")

start = np.eye(8)[2]  # -+- (code 2: only s_2 = +1), a frustrated state
sweep_rs = np.linalg.matrix_power(cold["random-site Glauber, beta = 1"], 3)  # 3 updates
law_rs, law_sync = [start], [start]
for _ in range(12):  # one sweep: 3 random-site updates, or one synchronous step
    law_rs.append(law_rs[-1] @ sweep_rs)
    law_sync.append(law_sync[-1] @ cold["synchronous, beta = inf"])
law_rs, law_sync = np.array(law_rs), np.array(law_sync)
back = law_sync @ start  # probability of being at the start again
print(f"synchronous, beta = inf, from {labels[2]}: p_t({labels[2]}) for t = 0..8 sweeps:",
      " ".join(f"{x:.0f}" for x in back[:9]))
print(f"random-site, beta = 1, from {labels[2]}: TV to Boltzmann after 12 sweeps below 1e-10:",
      tv(law_rs[-1], p) < 1e-10)

T_greedy = np.linalg.matrix_power(cold["greedy random-site, beta = inf, J13 = +0.5"], 3)
greedy_starts = {"+++": 7, "+\u2212+": 5, "\u2212\u2212\u2212": 0}  # all_states codes
law_greedy = {name: [np.eye(8)[c]] for name, c in greedy_starts.items()}
for name in greedy_starts:
    for _ in range(300):
        law_greedy[name].append(law_greedy[name][-1] @ T_greedy)
    law_greedy[name] = np.array(law_greedy[name])
p_cold = bmlab.boltzmann_probs(J_un, beta=200.0)  # as good as beta = inf here
print("greedy, beta = inf, J13 = +0.5: p(+++) after 300 sweeps from "
      + ", from ".join(f"{n} {law_greedy[n][-1, 7]:.3f}" for n in greedy_starts)
      + f"; Boltzmann law as beta -> inf: {p_cold[7]:.3f}")

# %%
t12 = np.arange(13)
SYNC = bmlab.plotting.EXTRA[1]  # the synchronous rule, a different algorithm: its own colour
fig, (ax_a, ax_i) = plt.subplots(1, 2, figsize=(9.0, 3.9), layout="constrained")
ax_a.plot(t12, back, "o-", ms=4, color=SYNC, label=r"synchronous, $\beta=\infty$")
ax_a.plot(t12, law_rs @ start, "s-", ms=4, color=bmlab.NAVY, label=r"random site, $\beta=1$")
ax_a.axhline(p @ start, color=bmlab.GRAY, ls="--", lw=1, label=r"Boltzmann, $\beta=1$")
ax_a.set(xlabel="sweeps", ylabel=r"$p_t(-+-)$", title="a cycle of period 2",
         ylim=(-0.05, 1.05), yticks=[0, 0.5, 1])
ax_a.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
for name, marker in zip(greedy_starts, "o^s", strict=True):  # one algorithm, three starts
    ax_i.plot(t12, law_greedy[name][:13, 7], marker + "-", ms=5, color=bmlab.NAVY,
              mfc="white", label=f"start {name}")
ax_i.axhline(p_cold[7], color=bmlab.GRAY, ls="--", lw=1, label=r"Boltzmann, $\beta\to\infty$")
ax_i.set(xlabel="sweeps", ylabel=r"$p_t(+++)$",
         title=r"irreducibility fails: stuck (greedy, $\beta=\infty$)",
         ylim=(-0.05, 1.05), yticks=[0, 0.5, 1])
ax_i.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
bmlab.save_figure(fig, "fig01_irreducible_aperiodic")
plt.show()

# %% [markdown]
# **What to look for:** left, the red zigzag between 1 and 0 that never damps, beside the
# navy curve settling on the dashed Boltzmann value; right, three starts, three different
# limits, none of them the dashed $\tfrac12$.

# %% [markdown]
# ## 5. Convergence from any start
#
# Detailed balance says where the chain ends, not how fast it gets there. The law after $t$
# sweeps from a start $s_0$ is row $s_0$ of $T^{3t}$ (a sweep is 3 updates), so we can follow
# the total-variation distance $\tfrac12\sum_s |p_t(s)-p(s)|$ exactly -- and compare with an
# ensemble of 20 000 chains run in parallel from the same start.

# %%
T = bmlab.glauber_transition_matrix(J, beta=1.0)
T_sweep = np.linalg.matrix_power(T, 3)  # one sweep = 3 single-site updates
n_sw = 12
# three starts: a ground state, a high-energy state, and a uniformly random state
starts = {"+++": np.eye(8)[7], "+\u2212+": np.eye(8)[5], "random": np.full(8, 1 / 8)}
inits = {"+++": np.ones(3), "+\u2212+": np.array([1.0, -1.0, 1.0]), "random": "random"}
tv_exact, tv_chains, ensemble = {}, {}, {}
for name, p0 in starts.items():
    laws = [p0]
    for _ in range(n_sw):
        laws.append(laws[-1] @ T_sweep)  # exact law after one more sweep
    tv_exact[name] = tv(np.array(laws), p)
    ens = bmlab.glauber_run(J, beta=1.0, n_chains=20000, n_sweeps=n_sw, init=inits[name],
                            record_unit="sweep", rng=rng)
    hist = np.array([np.bincount(c, minlength=8) for c in ens.codes]) / 20000
    tv_chains[name] = tv(hist, p)
    ensemble[name] = ens

# %%
t_sweeps = np.arange(n_sw + 1)
fig, (ax_tv, ax_avg) = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="constrained")
handles = []
for name, ls, marker in zip(starts, ("-", "--", "-."), "os^", strict=True):
    (exact_line,) = ax_tv.semilogy(t_sweeps, tv_exact[name], ls, color=bmlab.NAVY)
    (chain_dots,) = ax_tv.semilogy(t_sweeps[1:], tv_chains[name], marker, ms=4,
                                   color=bmlab.ORANGE, mfc="none", label=f"start {name}")
    handles.append((exact_line, chain_dots))
ax_tv.axhline(0.01, color=bmlab.GRAY, ls=":", lw=1)
ax_tv.set(xlabel="sweeps", ylabel="TV distance to Boltzmann", ylim=(1e-4, 1.5),
          title="exact (navy lines), 20 000 chains (orange)")
ax_tv.legend(handles, [f"start {name}" for name in starts])
X = ensemble["+++"].states
ens_pair = (X[..., 0] * X[..., 1]).mean(axis=1)  # average over chains at each sweep
laws = [np.eye(8)[7]]
for _ in range(40):
    laws.append(laws[-1] @ T_sweep)
laws = np.array(laws)
ax_avg.semilogx(run.sweeps, running, color=bmlab.ORANGE, lw=1.2,
                label="one chain, time average")
shown = [0, 1, 2, 3, 5, 8, 11]  # sweeps 1, 2, 3, 4, 6, 9, 12: markers apart on the log axis
ax_avg.semilogx(ensemble["+++"].sweeps[shown], ens_pair[shown], "s", ms=4, color=bmlab.ORANGE,
                label="20 000 chains, average at sweep t")
ax_avg.semilogx(np.arange(1, 41), laws[1:] @ pair, color=bmlab.NAVY, lw=1,
                label=r"exact mean of $s_1 s_2$ at sweep t")
ax_avg.axhline(exact_pair, color=bmlab.GRAY, ls="--", lw=1.2)
ax_avg.set(xlabel="sweeps", ylabel=r"estimate of $\langle s_1 s_2\rangle$", ylim=(-0.7, 1.05),
           title="time average vs ensemble average")
ax_avg.legend()
bmlab.save_figure(fig, "fig01_tv_convergence")
plt.show()

# %% [markdown]
# **What to look for:** straight navy lines on the log scale (geometric convergence) for the
# $+++$ and $+{-}+$ starts, with the orange markers of the chains on them down to the dotted
# noise floor (the uniform start is so close after one sweep that its line drops out of view
# and its markers sit at the floor); on the
# right, the orange squares of the ensemble on the navy exact curve within a few sweeps, while
# the orange time average of one chain lags.

# %%
for name in starts:
    reached = np.argmax(tv_exact[name] < 1e-3)  # threshold: a first passage (sweep 0 included)
    print(f"start {name:>6}: exact TV after 1 sweep {tv_exact[name][1]:.3f}, first below 1e-3 "
          f"at sweep {reached};  20 000 chains after {n_sw}: {tv_chains[name][-1]:.3f}")
exact_t = laws[1 : n_sw + 1] @ pair  # exact mean of s1 s2 at sweeps 1..12 from +++
z_t = (ens_pair - exact_t) / np.sqrt((1 - exact_t**2) / 20000)  # s1 s2 = ±1: Var = 1 - mean²
near = np.argmax(np.abs(exact_t - exact_pair) < 0.02)  # threshold: a first passage
lag = np.abs(running - exact_pair) > 0.05  # threshold: the time average still off by 0.05
print(f"exact mean within 0.02 of <s1 s2> from sweep {near + 1}; the 20 000 chains' average "
      f"off it by at most {np.abs(z_t).max():.1f} standard errors over the {n_sw} sweeps")
print(f"one chain's time average last off by more than 0.05 at sweep "
      f"{run.sweeps[np.nonzero(lag)[0][-1]]:.0f}")


# %% [markdown]
# Every start is forgotten geometrically fast. The six ground states are equivalent by
# symmetry, so $+++$ stands for all of them; from the high-energy state $+{-}+$ every flip
# goes downhill and one sweep brings the chain to a TV distance of 0.085 (from $+++$: 0.328).
# The ensemble's markers follow the exact lines until they hit the noise floor of 20 000
# samples, about 0.01 (dotted); from the uniform ("random") start the exact law is within
# 1e-3 after a single sweep.
#
# Right: the *ensemble* average at sweep $t$ follows the exact curve and sits on the answer
# after a handful of sweeps, while the *time* average of one chain still carries its start
# and its correlations and wanders for hundreds of sweeps before settling. Both are
# consistent estimators; they differ in what you pay for.
#
# **How fast, in one number.** The eigenvalues of $T$ are real (detailed balance) and, for the
# heat bath, non-negative. The distance to 1 of the second-largest one is the spectral gap
# $\gamma$; the relaxation time $t_\text{rel}=1/\gamma$ is in single updates, so we divide by
# $N=3$ for sweeps. Theorem 12.4 of Levin, Peres & Wilmer (*Markov Chains and Mixing Times*)
# turns it into a guarantee, $t_\text{mix}(\varepsilon)\le t_\text{rel}\log\frac{1}{\varepsilon
# \,\pi_\text{min}}$, and their Theorem 12.5 gives the lower bound
# $(t_\text{rel}-1)\log\frac{1}{2\varepsilon}$. We compare both with the exact mixing time
# (worst start, from matrix powers). As a check of the
# spectral code, free spins ($J=0$) have a closed-form spectrum: a redrawn spin forgets its
# value at once, so the eigenvalues are $1-j/N$ for $j=0,\dots,N$.

# %%
def spectrum(T, p):
    """Eigenvalues of T, reversible w.r.t. p, largest first: those of symmetric D^1/2 T D^-1/2."""
    r = np.sqrt(p)
    return np.linalg.eigvalsh(r[:, None] * T / r[None, :])[::-1]


def mixing_time(T, p, eps):
    """Exact t_mix(eps) in updates: the first t with max over starts of TV(T^t(s, .), p) <= eps."""
    P, t = np.eye(len(p)), 0
    while tv(P, p).max() > eps:
        P, t = P @ T, t + 1
    return t


lam = spectrum(T, p)
t_rel = 1 / (1 - lam[1])  # in updates
upper = t_rel * np.log(1 / (0.25 * p.min())) / 3  # LPW Thm. 12.4, in sweeps
lower = (t_rel - 1) * np.log(1 / (2 * 0.25)) / 3  # LPW Thm. 12.5, in sweeps
t_mix = mixing_time(T, p, 0.25)
print(f"second eigenvalue of T: {lam[1]:.4f};  spectral gap: {1 - lam[1]:.4f} per update")
print("all eigenvalues in [0, 1] (to 1e-12):", lam.min() > -1e-12 and lam.max() < 1 + 1e-12)
print(f"relaxation time: {t_rel / 3:.3f} sweeps")
print(f"t_mix(1/4): exact {t_mix} updates = {t_mix / 3:.2f} sweeps;  "
      f"LPW bounds [{lower:.2f}, {upper:.2f}] sweeps")
print("exact t_mix inside the bounds:", lower <= t_mix / 3 <= upper)
# closed form: free spins (J = 0, theta = 0) have eigenvalues 1 - j/N, j = 0..N, C(N, j) times
flips = np.array([bin(c).count("1") for c in range(8)])
lam_free = spectrum(bmlab.glauber_transition_matrix(np.zeros((3, 3))), np.full(8, 1 / 8))
print("free spins: spectrum is 1 - j/N (to 1e-12):",
      np.allclose(lam_free, 1 - np.sort(flips) / 3, rtol=0, atol=1e-12))

# %% [markdown]
# ## 6. $\beta$ is not a separate knob
#
# Eq. 5.3 only ever sees the product $\beta E$, and $E$ is linear in $(J,\theta)$. So
# $(\beta=2, J, \theta)$ and $(\beta=1, 2J, 2\theta)$ are the same machine: the same
# Boltzmann law and the same Glauber matrix. Learning $J$ and $\theta$ therefore learns the
# temperature too, and we can set $\beta=1$ from here on without losing anything.

# %%
theta = np.array([0.3, -0.2, 0.1])
same_p = np.abs(bmlab.boltzmann_probs(J, theta, 2.0) - bmlab.boltzmann_probs(2 * J, 2 * theta, 1.0))
same_T = np.abs(bmlab.glauber_transition_matrix(J, theta, 2.0)
                - bmlab.glauber_transition_matrix(2 * J, 2 * theta, 1.0))
print("same Boltzmann law to 1e-14:", same_p.max() < 1e-14)
print("same Glauber matrix to 1e-14:", same_T.max() < 1e-14)

# %% [markdown]
# ## 7. Mixing, the second obstruction
#
# The triangle mixes in a couple of sweeps because its landscape is flat. A landscape with
# deep basins is different: to move from one basin to another a chain must climb over a
# barrier, one uphill flip at a time, each costing about $e^{-\beta\Delta E}$. The waiting time
# grows exponentially with $\beta$ and with the barrier height -- and the chain's estimates are
# wrong until it has crossed many times.
#
# ### 7a. A ferromagnet: two basins, exact answer zero
#
# All-to-all couplings $J_{ij}=1/N$ with $N=16$ and $\theta=0$. Flipping every spin leaves the
# energy unchanged, so exactly $\langle s_i\rangle = 0$ at every temperature. The law of the
# magnetisation $m=\frac1N\sum_i s_i$, by enumeration of the $2^{16}$ states: at small $\beta$
# (high temperature) it has one peak, at $m=0$; at large $\beta$ (low temperature) it splits
# into two bumps, mostly $+1$ and mostly $-1$. The cell finds where: between $\beta=0.90$ and
# $0.95$, both for $N=16$ and for the $N=12$ of the live panel (for large $N$ the threshold
# tends to $\beta=1$).

# %%
N_FM = 16
J_fm = np.full((N_FM, N_FM), 1 / N_FM)
np.fill_diagonal(J_fm, 0.0)
m_exact, _ = bmlab.exact_moments(J_fm, beta=2.0)
print("exact <s_i> = 0 for every spin (beta = 2), to 1e-12:", np.abs(m_exact).max() < 1e-12)
n_up = (bmlab.all_states(N_FM) > 0).sum(axis=1)  # number of +1 spins of every state
levels = 2 * np.arange(N_FM + 1) / N_FM - 1  # the values of m
p_m = {b: np.bincount(n_up, weights=bmlab.boltzmann_probs(J_fm, beta=b), minlength=N_FM + 1)
       for b in (0.6, 0.8, 0.9, 1.0, 1.2, 1.5, 2.0)}
print(" beta   |m| at the peak of p(m)")
for b, pm in p_m.items():
    print(f" {b:.1f}    {abs(levels[np.argmax(pm)]):.3f}")
grid = np.round(np.arange(0.5, 1.51, 0.05), 2)
for n in (12, N_FM):  # 12: the live panel of Section 8
    Jn = np.full((n, n), 1 / n)
    np.fill_diagonal(Jn, 0.0)
    nu = (bmlab.all_states(n) > 0).sum(axis=1)
    by_beta = [np.bincount(nu, weights=bmlab.boltzmann_probs(Jn, beta=b)) for b in grid]
    dip = [p[n // 2 + 1] - p[n // 2] > 0  # p(m) rises from m = 0 to the next level: a dip
           for p in by_beta]
    first = grid[np.argmax(dip)]
    print(f"N = {n}: one peak at m = 0 up to beta = {first - 0.05:.2f}; "
          f"two peaks from beta = {first:.2f} on"
          f" (steps of 0.05; a single switch: {not all(dip) and all(dip[np.argmax(dip):])})")


# %% [markdown]
# We run 8 chains of 1500 sweeps from random starts at several $\beta$ and count how often $m$
# changes sign. These chains use *sequential* sweeps (sites $1,\dots,N$ in turn): every
# single-site update leaves the Boltzmann law stationary, so a sweep does too, but a sweep in a
# fixed order is not reversible (run backwards, it visits the sites in the other order;
# Section 4b checks both facts exactly), so the spectral bounds of Section 5 do not apply to it
# as they stand.

# %%
def basin_switches(m):
    """Sign changes of m along each chain (column of m), skipping m = 0 (possible at even N)."""
    return np.array([np.count_nonzero(np.diff(np.sign(c[c != 0]))) for c in m.T])


betas_fm = np.array([0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0])
n_sweeps_fm = 1500
traces, residence, m_avg = {}, [], []
for b in betas_fm:
    r = bmlab.glauber_run(J_fm, beta=b, n_chains=8, n_sweeps=n_sweeps_fm, order="sequential",
                          record_unit="sweep", init="random", rng=rng)
    m = r.states.mean(axis=2, dtype=float)  # (sweeps, chains)
    traces[b] = m
    residence.append(m.size / (basin_switches(m).sum() + m.shape[1]))  # sweeps per basin visit
    m_avg.append(m.mean(axis=0))  # each chain's estimate of <m>
residence = np.array(residence)
m_avg = np.array(m_avg)

# %%
fig, axes = plt.subplots(1, 3, figsize=(11.0, 4.0), layout="constrained")
below = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.22)}  # legends under the axes
for b, color in zip((0.6, 1.0, 1.5), tints(bmlab.NAVY, 3), strict=True):
    axes[0].plot(levels, p_m[b], "o-", ms=3, color=color, label=rf"$\beta={b}$")
axes[0].set(xlabel="magnetisation $m$", ylabel="exact $p(m)$", title=f"exact law, N={N_FM}")
axes[0].legend(ncol=3, **below)
for b, color in zip((0.6, 1.8), tints(bmlab.ORANGE, 2), strict=True):
    axes[1].plot(np.arange(1, 301), traces[b][:300, 0], color=color, lw=1,
                 label=rf"chain, $\beta={b}$")
axes[1].set(xlabel="sweeps", ylabel="magnetisation $m$", ylim=(-1.05, 1.05),
            title="one chain, first 300 sweeps")
axes[1].legend(ncol=2, **below)
for c in range(m_avg.shape[1]):
    axes[2].plot(betas_fm, m_avg[:, c], "o", ms=3, color=bmlab.ORANGE, alpha=0.7)
axes[2].axhline(0.0, color=bmlab.NAVY, ls="--", lw=1.2, label=r"exact $\langle m\rangle=0$")
axes[2].set(xlabel=r"$\beta$", ylabel=r"chain estimate of $\langle m\rangle$",
            ylim=(-1.05, 1.05), title=f"8 chains \u00d7 {n_sweeps_fm} sweeps")
axes[2].legend(**below)
bmlab.save_figure(fig, "fig01_ferromagnet_trapping")
plt.show()

# %% [markdown]
# **What to look for:** left, one bump at $\beta=0.6$ (lightest) and two at $\beta=1.5$
# (darkest); middle, the cold chain (dark orange) stays on one side; right, the chain
# estimates fan out away from the exact 0 as $\beta$ grows.

# %%
print(" beta   mean sweeps per basin   spread of chain estimates of <m>")
for b, res, ma in zip(betas_fm, residence, m_avg, strict=True):
    print(f" {b:.1f}    {res:8.3g}               {ma.std():.2f}")
growth = np.log(residence[-2] / residence[2]) / (betas_fm[-2] - betas_fm[2])
print(f"residence time grows by a factor e^({growth:.1f} * dbeta) between beta = 1.0 and 1.8")

# %% [markdown]
# Once $p(m)$ has two bumps, a chain must climb over the barrier at $m=0$ to switch basin.
# Between $\beta=1$ and $\beta=1.8$ the time between switches grows about thirtyfold (on
# average by $e^{4.2\,\Delta\beta}$);
# at $\beta=2$ a chain switches only a few times in its 1500 sweeps, so each chain's estimate
# of $\langle m\rangle$ reports mostly the basin it happened to fall into, while the exact
# answer is 0.
#
# The exact counterpart needs a reversible chain: for random-site dynamics the relaxation time
# $t_\text{rel}$ of Section 5 can be computed for small copies ($N=4,6,8$). It is a different
# quantity from the residence time above (a property of the whole matrix, not a waiting time
# along one run), but it too grows fast with $\beta$, faster for larger $N$ because the
# barrier between the basins grows with $N$.

# %%
betas_grid = np.linspace(0.5, 2.0, 13)
fig, ax = plt.subplots(figsize=(5.0, 3.4))
for n_small, color in zip((4, 6, 8), tints(bmlab.NAVY, 3), strict=True):
    Jn = np.full((n_small, n_small), 1 / n_small)
    np.fill_diagonal(Jn, 0.0)
    t_rel_n = [1 / (1 - spectrum(bmlab.glauber_transition_matrix(Jn, beta=b),
                                 bmlab.boltzmann_probs(Jn, beta=b))[1]) / n_small
               for b in betas_grid]
    ax.semilogy(betas_grid, t_rel_n, color=color, lw=1.5, label=f"N={n_small}")
    rate = np.log(t_rel_n[-1] / t_rel_n[-5]) / (betas_grid[-1] - betas_grid[-5])
    print(f"N = {n_small}: t_rel grows like e^({rate:.1f} beta) between beta = "
          f"{betas_grid[-5]:.1f} and {betas_grid[-1]:.1f}")
ax.set(xlabel=r"$\beta$", ylabel=r"exact $t_\mathrm{rel}$ [sweeps]",
       title="random-site dynamics, exact")
ax.set_yticks([2, 5, 10, 20, 50], ["2", "5", "10", "20", "50"])  # plain numbers on the log axis
ax.yaxis.set_minor_formatter(plt.NullFormatter())
ax.legend()
fig.tight_layout()
plt.show()


# %% [markdown]
# **What to look for:** curves that keep bending upwards on the log scale, steeper for larger
# $N$; the rates printed above are averages over $\beta = 1.5$ to 2.

# %% [markdown]
# ### 7b. A random spin glass: many basins, exact answers by enumeration
#
# Sherrington–Kirkpatrick couplings $J_{ij}\sim\mathcal N(0,1/N)$ with $N=16$ and weak random
# biases, so that no symmetry hands us the answer. With $2^{16}$ states, exact
# moments $\langle s_i\rangle$ and $\langle s_i s_j\rangle$ -- the negative phase of Eq. 5.5 --
# still take a fraction of a second. We track the overlap $q=\frac1N\sum_i s_i s^*_i$ with the
# ground state $s^*$, its integrated autocorrelation time, and the error of the moments that
# *one* chain of 1500 sweeps estimates (rms over all spins or pairs and over 8 such chains).
#
# The autocorrelation $\rho(t)$ of a trace is the covariance of values $t$ sweeps apart over
# the variance; a trace of $n$ records has $n-t$ such pairs, and we average over exactly
# those. The integrated autocorrelation time $\tau_\text{int}=1+2\sum_{t\ge1}\rho(t)$ is the
# number of sweeps per effectively independent sample; the sum is cut at Sokal's window, the
# smallest $M$ with $M\ge5\,\tau(M)$. Mean and variance are pooled over the chains, so chains
# stuck in different basins show up as correlations that never decay.

# %%
def autocorrelation(x, max_lag):
    """rho(t) for t = 0..max_lag of traces x (time on axis 0, one column per chain)."""
    y = x - x.mean()
    return np.array([np.mean(y[: len(y) - t] * y[t:]) for t in range(max_lag + 1)]) / np.mean(y**2)


def tau_int(x, c=5.0):
    """1 + 2 sum_{t=1..M} rho(t) at the smallest M >= c tau(M), and True; if no window M fits
    in the trace, the value at the longest M (a lower bound), and False."""
    taus = 1 + 2 * np.cumsum(autocorrelation(x, len(x) - 1)[1:])
    fits = np.nonzero(np.arange(1, len(x)) >= c * taus)[0]
    return (taus[fits[0]], True) if fits.size else (taus[-1], False)


# %%
N_SG = 16
G = rng.normal(0.0, 1 / np.sqrt(N_SG), size=(N_SG, N_SG))
J_sg = np.triu(G, 1) + np.triu(G, 1).T  # symmetric, zero diagonal
theta_sg = rng.normal(0.0, 0.1, size=N_SG)
ground = bmlab.codes_to_states([np.argmax(bmlab.boltzmann_probs(J_sg, theta_sg))], N_SG)[0]
betas_sg = np.array([0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0])
n_sweeps_sg = 1500
iu = np.triu_indices(N_SG, 1)
tau_q, window, err_m, err_C, q_traces = [], [], [], [], {}
for b in betas_sg:
    m_ex, C_ex = bmlab.exact_moments(J_sg, theta_sg, beta=b)
    r = bmlab.glauber_run(J_sg, theta_sg, beta=b, n_chains=8, n_sweeps=n_sweeps_sg,
                          order="sequential", record_unit="sweep", init="random", rng=rng)
    X = r.states.astype(float)  # (sweeps, chains, N)
    q_traces[b] = X @ ground / N_SG  # overlap with the ground state, (sweeps, chains)
    tau, closed = tau_int(q_traces[b])
    tau_q.append(tau)
    window.append(closed)
    m_ch = X.mean(axis=0)  # each chain's <s_i>
    C_ch = np.einsum("tci,tcj->cij", X, X)[:, iu[0], iu[1]] / n_sweeps_sg
    err_m.append(np.sqrt(np.mean((m_ch - m_ex) ** 2)))
    err_C.append(np.sqrt(np.mean((C_ch - C_ex[iu]) ** 2)))
tau_q, window = np.array(tau_q), np.array(window)
x = q_traces[0.6][:40, 0]  # a short trace: every lag checked against numpy's correlate
y = x - x.mean()
by_hand = np.correlate(y, y, "full")[39:] / np.arange(40, 0, -1) / np.mean(y**2)
print("autocorrelation averages over the n - t pairs at every lag of a 40-sweep trace (1e-12):",
      np.allclose(autocorrelation(x, 39), by_hand, rtol=0, atol=1e-12))

# %%
samples = n_sweeps_sg / tau_q  # effectively independent samples per trace
reliable = window & (samples >= 20)  # enough of them to trust tau itself
rough = window & ~reliable
fig, (ax_tau, ax_err) = plt.subplots(1, 2, figsize=(9.0, 4.0), layout="constrained")
ax_tau.semilogy(betas_sg[reliable], tau_q[reliable], "o-", color=bmlab.ORANGE,
                label=r"$\tau_\mathrm{int}$ of overlap $q$")
ax_tau.semilogy(betas_sg[rough], tau_q[rough], "o", mfc="none", color=bmlab.ORANGE,
                label=r"fewer than 20 $\tau$ in the trace")
ax_tau.semilogy(betas_sg[~window], tau_q[~window], "^", mfc="none", color=bmlab.ORANGE,
                label="no window: lower bound")
ax_tau.axhline(n_sweeps_sg, color=bmlab.GRAY, ls=":", lw=1, label="length of the trace")
ax_tau.set(xlabel=r"$\beta$", ylabel="sweeps", title="autocorrelation time", ylim=(1, 1e4))
fig.legend(*ax_tau.get_legend_handles_labels(), loc="outside lower left", ncol=2)
ax_err.plot(betas_sg, err_m, "o-", color=bmlab.ORANGE, label=r"$\langle s_i\rangle$")
ax_err.plot(betas_sg, err_C, "s--", color=bmlab.ORANGE, label=r"$\langle s_i s_j\rangle$")
ax_err.set(xlabel=r"$\beta$", ylabel="rms error vs exact",
           title=f"one chain, {n_sweeps_sg} sweeps")
ax_err.legend(loc="upper left")
bmlab.save_figure(fig, "fig01_spin_glass_mixing")
plt.show()

# %% [markdown]
# **What to look for:** $\tau_\mathrm{int}$ climbing towards the dotted 1500-sweep length of
# the trace (hollow markers: estimates the trace cannot back), and the error of
# $\langle s_i\rangle$ growing with it.

# %%
print(" beta   tau_int(q) [sweeps]   sweeps / tau   rms error <s_i>   rms error <s_i s_j>")
for b, t, n_t, closed, em, ec in zip(betas_sg, tau_q, samples, window, err_m, err_C, strict=True):
    flag = "" if closed else "  no window"
    print(f" {b:.2f}   {t:8.3g}{flag:11s}  {n_t:9.3g}       {em:.2f}              {ec:.2f}")
print(f"tau_int grows {tau_q[5] / tau_q[0]:.1f}-fold between beta = 0.4 and 1.5")
print("Sokal's window closes, with at least 20 tau per trace, up to beta = "
      f"{betas_sg[reliable].max():.2f}; window closes at beta = 2: {window[6]}, "
      f"with {samples[6]:.0f} tau per trace")
print(f"rms error of <s_i>: {min(err_m):.2f} to {max(err_m):.2f}")


# %% [markdown]
# Between $\beta=0.4$ and $\beta=1.5$ the autocorrelation time of the overlap grows more
# than tenfold. At $\beta=2$ Sokal's window still closes, but the trace holds only about 11
# autocorrelation times, fewer than the 20 we ask for before trusting $\tau_\mathrm{int}$
# itself: it is a rough value. At $\beta=3$ no window fits in the trace: the time is longer
# than a 1500-sweep trace can measure, and the printed value is only a lower bound. At the
# same budget the errors of $\langle s_i\rangle$ grow from 0.03 to 0.71, errors of order
# one, and the pair correlations degrade too. A
# Boltzmann machine whose learned couplings looked like this would receive a negative phase
# (Eq. 5.5) that is not just noisy but *biased*, however exactly we had computed the positive
# phase and however carefully we had avoided $Z$.
# That is the sampling obstruction of Section 5.5.

# %% [markdown]
# ### 7c. A way out: parallel tempering
#
# Hot chains cross barriers easily; cold chains are the ones we want. Parallel tempering runs
# $K$ copies (replicas) of the chain at once, at $\beta_1<\dots<\beta_K$, each with the
# heat-bath sweep of Section 2. After every sweep it proposes to exchange the states of two
# neighbouring replicas. The joint target is the product of the Boltzmann laws (Eq. 5.3),
# $\prod_k e^{-\beta_k E(x_k)}/Z(\beta_k)$, and the exchange changes it by the factor
# $e^{(\beta_{k+1}-\beta_k)(E(x_{k+1})-E(x_k))}$: accepting with the smaller of 1 and that
# factor (Metropolis) keeps the product law stationary, so the coldest replica still samples
# $p$ at $\beta_K$ exactly, while the states it receives have crossed barriers at the hot end.
# Nothing needs $Z$. The loop below is the whole algorithm for one chain: a sweep, then swap
# proposals for the pairs $(1,2),(3,4),\dots$ and then $(2,3),(4,5),\dots$; fed the same
# random stream, `bmlab.parallel_tempering` must give the very same states.

# %%
def swap_step(x, E, betas, u, first):
    """Exchange replicas k, k+1 (columns of x) for k = first, first + 2, ... with probability
    min(1, exp((beta_{k+1} - beta_k)(E_{k+1} - E_k))); one uniform u[i] per proposed pair."""
    for i, k in enumerate(range(first, len(betas) - 1, 2)):
        if u[i] < np.exp(min(0.0, (betas[k + 1] - betas[k]) * (E[k + 1] - E[k]))):
            x[:, [k, k + 1]] = x[:, [k + 1, k]]


def tempering_chain(J, theta, betas, n_sweeps, rng):
    """One chain of K replicas (columns of x) from random starts; the coldest after each sweep."""
    n, K = len(theta), len(betas)
    x = rng.choice([-1.0, 1.0], size=(n, K))
    coldest = np.empty((n_sweeps, n))
    for t in range(n_sweeps):
        u = rng.random((n, K))  # one heat-bath sweep of every replica, sites in order
        for k in range(n):
            x[k] = np.where(u[k] < sigma(2 * betas * (J[k] @ x + theta[k])), 1.0, -1.0)
        for first in (0, 1):  # even pairs, then odd pairs
            E = -0.5 * np.einsum("ir,ij,jr->r", x, J, x) - theta @ x  # Eq. 5.1, per replica
            swap_step(x, E, betas, rng.random(len(range(first, K - 1, 2))), first)
        coldest[t] = x[:, -1]
    return coldest


betas_pt = np.geomspace(0.4, 3.0, 6)
chain_pt = tempering_chain(J_sg, theta_sg, betas_pt, 300, np.random.default_rng(SEED))
run_pt = bmlab.parallel_tempering(J_sg, theta_sg, betas=betas_pt, n_sweeps=300,
                                  rng=np.random.default_rng(SEED))
print("reference agrees with bmlab (same random draws, identical coldest replica after each of "
      f"300 sweeps): {np.array_equal(chain_pt, run_pt.states[:, 0])}")


# %% [markdown]
# **Graded exactly.** Back to the ferromagnet of Section 7a, now with $N=14$ and at
# $\beta=3$, deep in the two-basin regime. Eight plain Glauber chains and eight parallel
# tempering chains (12 temperatures from $\beta=0.4$ to 3, spaced geometrically) each run
# 3000 sweeps from random starts; we compare every chain's histogram of $m$ (counted as the
# number of $+1$ spins, which fixes $m$) with the exact law from enumerating the $2^{14}$
# states. Then the spin glass of Section 7b at $\beta=3$, where the exact law of its overlap
# $q$ with the ground state (counted as the number of spins that agree with it) plays the
# role of $p(m)$.

# %%
def chain_tvs(values, p_exact):
    """TV distance between each chain's histogram of integer values (sweeps, chains) and p_exact."""
    hist = np.array([np.bincount(v, minlength=len(p_exact)) / len(v) for v in values.T])
    return tv(hist, p_exact)


N_PT, BETA_PT = 14, 3.0
J_pt = np.full((N_PT, N_PT), 1 / N_PT)
np.fill_diagonal(J_pt, 0.0)
ladder = np.geomspace(0.4, BETA_PT, 12)
up = (bmlab.all_states(N_PT) > 0).sum(axis=1)  # number of +1 spins, m = 2 up / N - 1
agree = ((bmlab.all_states(N_SG) @ ground + N_SG) // 2).astype(int)  # spins agreeing with s*
systems = {  # name: (J, theta, observable of a ±1 state array as integers 0..N, its exact law)
    "ferromagnet": (J_pt, np.zeros(N_PT), lambda X: (X > 0).sum(axis=-1),
                    np.bincount(up, weights=bmlab.boltzmann_probs(J_pt, beta=BETA_PT))),
    "spin glass": (J_sg, theta_sg, lambda X: ((X.astype(float) @ ground + N_SG) // 2).astype(int),
                   np.bincount(agree, weights=bmlab.boltzmann_probs(J_sg, theta_sg, BETA_PT),
                               minlength=N_SG + 1)),
}
observed = {"ferromagnet": "number of +1 spins (fixes m)",
            "spin glass": "spins agreeing with the ground state (fixes q)"}
graded = {}
for name, (Jx, thx, obs, p_obs) in systems.items():
    plain = bmlab.glauber_run(Jx, thx, beta=BETA_PT, n_chains=8, n_sweeps=3000, order="sequential",
                              record_unit="sweep", init="random", rng=rng)
    tempered = bmlab.parallel_tempering(Jx, thx, betas=ladder, n_sweeps=3000, n_chains=8, rng=rng)
    graded[name] = p_obs, obs(plain.states), obs(tempered.states)
    tv_plain, tv_pt = chain_tvs(graded[name][1], p_obs), chain_tvs(graded[name][2], p_obs)
    print(f"{name}, law of the {observed[name]}: mean TV of one chain to the exact law, "
          f"plain Glauber {tv_plain.mean():.2f} (per chain {tv_plain.min():.2f} to "
          f"{tv_plain.max():.2f}), parallel tempering {tv_pt.mean():.3f}")
    print(f"  standard error of the tempering mean over the 8 chains: "
          f"{tv_pt.std(ddof=1) / np.sqrt(8):.3f}   (swap rates {tempered.swap_rates.min():.2f}"
          f" to {tempered.swap_rates.max():.2f})")
mirror = graded["spin glass"][1] < N_SG / 2  # q < 0: fewer than half the spins agree with s*
print("spin glass, share of each plain chain's time with q < 0:",
      " ".join(f"{share:.2f}" for share in mirror.mean(axis=0)),
      f"(exact {graded['spin glass'][0][: N_SG // 2].sum():.2f})")

# %%
TEMPERING = bmlab.plotting.EXTRA[0]  # parallel tempering, a different algorithm: its own colour
fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.8), layout="constrained")
for ax, (name, (p_obs, v_plain, v_pt)) in zip(axes, graded.items(), strict=True):
    x = np.arange(len(p_obs))
    shown = [np.bincount(v[:, 0], minlength=len(x)) / len(v) for v in (v_plain, v_pt)]
    ax.bar(x - 0.28, p_obs, 0.28, color=bmlab.NAVY, label="exact")
    ax.bar(x, shown[0], 0.28, color=bmlab.ORANGE, label="one plain Glauber chain")
    ax.bar(x + 0.28, shown[1], 0.28, color=TEMPERING, label="one parallel tempering chain")
    ax.set(xlabel=observed[name].split(" (")[0], ylabel="probability",
           title=rf"{name}, $\beta=3$, 3000 sweeps")
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    print(f"{name}: TV to the exact law of the chains shown, plain Glauber "
          f"{tv(shown[0], p_obs):.2f}, parallel tempering {tv(shown[1], p_obs):.2f}")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside upper center", ncol=3)
bmlab.save_figure(fig, "fig01_parallel_tempering")
plt.show()

# %% [markdown]
# **What to look for:** on the left, orange bars (plain Glauber) on one side only, green bars
# (tempering) on both sides matching the navy exact ones; on the right, orange bars off the
# navy ones at both ends, green bars on them.
#
# Each plain chain reports only the basin it fell into (mean TV 0.50 on the ferromagnet:
# half of the exact law is missing), while the coldest replicas of the tempering chains visit
# both basins in nearly the right proportions (mean TV 0.020, standard error 0.005). On the
# spin glass the plain chains split their time between the ground state ($q$ near 1) and its
# mirror image ($q$ near $-1$) each in proportions of its own, from none to half of it on
# the mirror side where the exact law has 0.23 (TV 0.10 to 0.28 per chain);
# tempering recovers the exact law of $q$ to a mean TV of 0.028 (standard error 0.005). The
# price is $K=12$ replicas per chain. Below, a slider for the number of temperatures on a
# 12-spin ferromagnet: start from one temperature (plain Glauber), add more, and watch
# whether the coldest replica crosses between the basins.

# %% tags=["nbval-ignore-output"]
from bmlab.widgets.glauber import tempering_panel

tempering = tempering_panel()
tempering

# %% [markdown]
# ## 8. Live panels
#
# Move the sliders: couplings, a common bias, $\beta$, the length of the chain and its seed.
# The chain is one random-site Glauber chain drawn from the exact update matrix, so what you
# see is the dynamics of Sections 3-5 redrawn on every move. Try $J_{13}=+0.5$ (no
# frustration), a large $\beta$, or a short chain.

# %% tags=["nbval-ignore-output"]
panel = fig53_panel()
panel

# %% [markdown]
# The same freezing as in Section 7a, live, on $N=12$ spins with 4 chains of 300 sequential
# sweeps. At small $\beta$ the chains cross $m=0$ all the time and their histogram matches the
# exact law. From $\beta=0.95$ on (computed in Section 7a) the exact law has two bumps and the
# crossings become rarer
# as $\beta$ grows (count them in the status line); at large $\beta$ most chains stay on
# their side for the whole run, and the pooled histogram depends on where they started.

# %% tags=["nbval-ignore-output"]
basins = two_basin_panel()
basins

# %% [markdown]
# ## Exercises
#
# Each exercise has a check cell: replace `None` by your answer (a number, to the precision
# asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a hint; it never
# shows the answer. Each exercise links to a worked solution in a notebook of its own: open it
# once you have an answer, or are stuck.

# %% [markdown]
# **1 · Remove the frustration, then cool.** Set $J_{13}=+0.5$ (the others unchanged). Before
# computing: which states now have the lowest energy, and how much of the probability will
# they hold as the temperature drops? Then compute $p(+{+}{+})$ at $\beta=2$ (Section 6 says
# two ways to do it) and compare with the live panel. *Your answer:* $p(+{+}{+})$ at
# $\beta=2$, to 3 decimals.
# [worked solution](solutions/01_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # p(+++) for J13 = +0.5 at beta = 2, to 3 decimals
bmlab.check("01.1", my_answer)

# %% [markdown]
# **2 · How cold is cold?** For the frustrated triangle of Section 1, $\langle s_1 s_2\rangle$
# rises with $\beta$ towards a limit. First find the limit without computing anything at large
# $\beta$: which states keep weight as $\beta\to\infty$, and what is $s_1s_2$ on them? Then
# find the smallest $\beta$ at which $\langle s_1 s_2\rangle$ is within 0.001 of that limit.
# *Your answer:* that $\beta$, to 2 decimals.
# [worked solution](solutions/01_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # smallest beta with <s1 s2> within 0.001 of its cold limit, to 2 decimals
bmlab.check("01.2", my_answer)

# %% [markdown]
# **3 · A budget from the gap.** For the triangle at $\beta=2$, use the spectral bound of
# Section 5 to guarantee a total-variation distance of at most 0.01 from any start. How many
# sweeps does it promise, and how many are actually needed? Which ingredient of the bound
# makes it loose here? *Your answer:* the promised number of sweeps, to 1 decimal.
# [worked solution](solutions/01_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # sweeps guaranteed by the spectral bound at beta = 2, eps = 0.01, to 1 decimal
bmlab.check("01.3", my_answer)

# %% [markdown]
# ## Summary
#
# - The heat-bath coin redraws one spin from its two-state Boltzmann law in the field of the
#   others, $p(s_k=+1\mid\text{rest})=\sigma(2\beta h_k)$; as a move it is the flip
#   probability of Eq. 5.2, and $\beta\to\infty$ gives back the greedy network (Section 2).
# - One chain of 4000 sweeps reproduces Figure 5.3: visit frequencies on the exact
#   probabilities, the running average of $s_1s_2$ near the exact 0.276 (Section 3).
# - Every single-site update satisfies detailed balance, so the Boltzmann law is stationary;
#   a fixed-order sweep keeps it stationary without detailed balance, and synchronous updates
#   lose both (Section 4).
# - Stationarity needs company: random-site Glauber dynamics at finite $\beta$ is irreducible
#   and aperiodic ($T^3$ has no zero entry), while at $\beta=\infty$ the synchronous rule
#   cycles with period 2 and the greedy rule gets stuck (Section 4c).
# - The distance to the Boltzmann law falls geometrically, at a rate set by the spectral gap;
#   the gap gives upper and lower bounds on the mixing time (Section 5). $\beta$ can be
#   absorbed into $J$ and $\theta$ (Section 6).
# - On landscapes with deep basins the time between basin switches grows exponentially with
#   $\beta$, and a chain's estimates stay biased for as long; parallel tempering restores
#   the exact law at the price of many replicas (Section 7).
#
# ## References
#
# - Lecture, Chapter 5: Section 5.3 (Eqs. 5.1-5.3, detailed balance, the remarks on
#   irreducibility, aperiodicity and $\beta$; Figure 5.3) and Section 5.5 (mixing, the second
#   obstruction); the chapter is `shared/lecture/ch05-boltzmann-machine.txt`.
# - R. J. Glauber, *Time-dependent statistics of the Ising model*, J. Math. Phys. (1963):
#   the single-spin dynamics.
# - D. A. Levin and Y. Peres, with E. L. Wilmer, *Markov Chains and Mixing Times*, 2nd ed.,
#   AMS (2017): irreducibility, aperiodicity and convergence (Chapter 4), the spectral bounds
#   of Theorems 12.4 and 12.5.
# - A. D. Sokal, *Monte Carlo methods in statistical mechanics: foundations and new
#   algorithms* (1997 lecture notes): the integrated autocorrelation time and its window.
# - K. Hukushima and K. Nemoto, *Exchange Monte Carlo method and application to spin glass
#   simulations*, J. Phys. Soc. Jpn. (1996): parallel tempering.
