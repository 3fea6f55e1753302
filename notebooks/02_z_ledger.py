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
# # 02 · The Z ledger: the negative phase by hand, then the 2^N wall
#
# Companion to Section 5.7 of the lecture (Figure 5.5). The learning rule Eq. 5.4 needs the
# model correlation $\langle s_i s_j\rangle_\text{model}$, and Eq. 5.5 says that it is a sum
# over every configuration of the network, divided by $Z$.
#
# **What this notebook teaches**
#
# 1. the negative phase as a finite sum: the *ledger* of the lecture's three-spin machine,
#    row by row, giving $Z = 10.34$ and $\langle s_1 s_2\rangle_\text{model} = 0.276$
#    (Section 1);
# 2. the learning step it feeds, $+0.224$ for $J_{12}$, repeated until model and data agree --
#    and why the value of $Z$ alone cannot tell learning which way to go (Section 2);
# 3. how many rows the ledger has for $N$ spins, against cosmic counts: Figure 5.5, the $Z$ wall
#    (Section 3);
# 4. what exact enumeration costs in seconds, recorded and live, with two algorithms
#    (Section 4);
# 5. one way past the wall: estimating $\log Z$ by annealed importance sampling, graded against
#    the exact value (Section 5).
#
# **What it assumes**
#
# - the energy of Eq. 5.1 and the Boltzmann distribution of Eq. 5.3 (notebook 01);
# - the learning rule Eq. 5.4: data correlation minus model correlation (Section 5.4);
# - for Section 5 only: the restricted Boltzmann machine of Section 5.6 (Figure 5.4, right),
#   whose hidden units can be summed out one at a time;
# - numpy arrays and broadcasting.

# %% [markdown]
# > **Notation.** Sections 1-4 use the fully visible machine of the lecture: spins
# > $s_i=\pm1$, couplings $J_{ij}=J_{ji}$ ($J_{ii}=0$), biases $\theta_i$, the energy $E(s)$ of
# > Eq. 5.1 and $Z=\sum_s e^{-E(s)}$ at $\beta=1$; no hidden units. States are listed in the
# > order of `bmlab.all_states` (row $c$: $s_i=+1$ exactly when bit $i$ of $c$ is 1), as in
# > every notebook. Section 5 alone switches to an RBM with $\{0,1\}$ units, as notebook 05
# > does: visible units $v_i$, hidden units $h_j$, weights $W_{ij}$, visible biases $a_i$ and
# > hidden biases $b_j$; there $\beta \in [0, 1]$ marks a machine on the annealing path from
# > independent units ($\beta=0$) to the RBM ($\beta=1$).

# %%
# On Colab or a fresh kernel without bmlab, install it first (does nothing where it is installed).
import importlib.util

BMLAB_REPO = "git+https://github.com/OWNER/bmlab"  # placeholder: the project's public repository
if importlib.util.find_spec("bmlab") is None:
    from IPython import get_ipython
    get_ipython().run_line_magic("pip", f"install -q {BMLAB_REPO}")

# %%
import itertools
import math
import time

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import logsumexp
from threadpoolctl import threadpool_limits

import bmlab
from bmlab.widgets.ledger import ledger_panel, wall_panel

bmlab.use_style()
SEED = 5
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1. The ledger of a frustrated triangle
#
# Three ±1 spins, $J_{12}=J_{23}=0.5$, $J_{13}=-0.5$, no biases -- the machine that the
# Glauber chain of Figure 5.3 samples. With only $2^3 = 8$ configurations we can list them all:
# the energy $E(s)$ of Eq. 5.1, its Boltzmann factor $e^{-E}$, and the same factor weighted by
# $s_1 s_2$. The sum of the $e^{-E}$ column is $Z$; the sum of the last column divided by $Z$
# is the negative phase $\langle s_1 s_2\rangle_\text{model}$ of Eq. 5.5.
#
# The rows come in the order of `bmlab.all_states` (the same as in notebook 01): row $c$ has
# $s_i = +1$ exactly when bit $i$ of $c$ is 1, so the list starts at $-\,-\,-$ and $s_1$
# flips fastest. The lecture prints the same eight rows starting from $+\,+\,+$.

# %%
S = bmlab.all_states(3)                 # (8, 3), row 0 is - - -
s1, s2, s3 = S.T.astype(float)          # one column per spin
J12, J23, J13 = 0.5, 0.5, -0.5
E = -(J12 * s1 * s2 + J23 * s2 * s3 + J13 * s1 * s3)    # Eq. 5.1 with theta = 0
w = np.exp(-E)                          # Boltzmann factors
Z = w.sum()
print(" s1 s2 s3    E(s)   e^-E   s1 s2 e^-E")
for s, e, x in zip(S, E, w, strict=True):
    spins = "  ".join("+" if v > 0 else "-" for v in s)
    print(f"  {spins}   {e:+.1f}   {x:.3f}    {s[0] * s[1] * x:+.3f}")
print(f"  sum            Z = {Z:.2f}    {(s1 * s2 * w).sum():+.3f}")
print(f"<s1 s2>_model = {(s1 * s2 * w).sum():.3f} / {Z:.2f} = {(s1 * s2 * w).sum() / Z:.3f}")


# %% [markdown]
# The same $Z$ in closed form (six rows at $E = -0.5$, two at $E = +1.5$), and from bmlab's
# enumeration (which works with $\log Z$):

# %%
def triangle(J12, J23, J13):
    """Coupling matrix of the three-spin triangle (symmetric, zero diagonal)."""
    return np.array([[0.0, J12, J13], [J12, 0.0, J23], [J13, J23, 0.0]])


J = triangle(0.5, 0.5, -0.5)
print(f"6 e^0.5 + 2 e^-1.5 = {6 * np.exp(0.5) + 2 * np.exp(-1.5):.2f}")
print("ledger Z agrees with bmlab.log_partition (difference < 1e-12):",
      abs(np.log(Z) - bmlab.log_partition(J)) < 1e-12)

# %% [markdown]
# **Why six rows tie for the lowest energy.** Going round the loop
# 1 → 2 → 3 → 1, the couplings multiply to a negative number. A positive bond wants its two
# spins equal, a negative bond wants them opposite; around a loop with an odd number of
# negative bonds those wishes contradict each other, so at least one bond is always broken.
# That is *frustration*. Count it on the ledger: a bond is satisfied when $J_{ij} s_i s_j > 0$.

# %%
bonds = np.stack([J12 * s1 * s2, J23 * s2 * s3, J13 * s1 * s3], axis=1)  # (8 states, 3 bonds)
print(f"J12 * J23 * J13 = {J12 * J23 * J13:+.3f}  (negative: frustrated)")
print(f"states that satisfy all three bonds: {np.all(bonds > 0, axis=1).sum()}")
print(f"energy if every bond were satisfied: {-(abs(J12) + abs(J23) + abs(J13)):+.2f}")
ground = np.isclose(E, E.min())
print(f"actual ground energy: {E.min():+.2f}, reached by {ground.sum()} of 8 states")
print("every ground state breaks exactly one bond:",
      bool(np.all((bonds[ground] < 0).sum(axis=1) == 1)))

# %% [markdown]
# Each broken bond raises the energy by $2 \times 0.5 = 1$ above the ideal $-1.5$: the ground
# states break one bond, and the two states at $E = +1.5$ break all three. Flip the sign of
# one coupling in the panel of Section 6 and watch the flag and the degeneracy change.
#
# ## 2. One gradient step, then many
#
# Suppose the data say $\langle s_1 s_2\rangle_\text{data} = 0.50$. Eq. 5.4 gives the slope of
# the log-likelihood $L$ of the data along $J_{12}$, the direction to climb: data minus model,
# the model term from the two column sums of the ledger.

# %%
data_moment = 0.50
model_at_start = (s1 * s2 * w).sum() / Z  # the ledger of Section 1
print(f"dL/dJ12 = <s1 s2>_data - <s1 s2>_model = {data_moment:.2f} - {model_at_start:.3f} "
      f"= {data_moment - model_at_start:+.3f}")

# %% [markdown]
# The gradient $0.50 - 0.276 = +0.224$ is positive, so $J_{12}$ should grow.
# But once $J_{12}$ moves, every row of the ledger changes, and the model correlation must be
# enumerated again. So we loop: step $J_{12}$ by $\eta\,(\langle s_1 s_2\rangle_\text{data} -
# \langle s_1 s_2\rangle_\text{model})$, re-enumerate all 8 states, repeat -- with $J_{23}$,
# $J_{13}$ held fixed. Written out, then checked against bmlab's training loop `bmlab.train`
# driven by an exact gradient from `bmlab.exact_moments` (bmlab's vectorised enumeration of
# all $2^N$ states):

# %%
eta, n_steps = 0.5, 30


def model_moment(J12, J23=0.5, J13=-0.5):
    """<s1 s2>_model of the zero-bias triangle: re-enumerate all 8 states (Eq. 5.5)."""
    E = -(J12 * s1 * s2 + J23 * s2 * s3 + J13 * s1 * s3)   # Eq. 5.1, one entry per state
    w = np.exp(-E)                                          # the e^{-E} column
    return (s1 * s2 * w).sum() / w.sum()                    # column sum / Z


J12_path = [0.5]
for _ in range(n_steps):
    gradient = data_moment - model_moment(J12_path[-1])    # Eq. 5.4 for J12 only
    J12_path.append(J12_path[-1] + eta * gradient)         # strengthen (or weaken), repeat


def exact_gradient(params, rng=None):
    """Eq. 5.4 for J12 with the model term from bmlab's enumeration (exact: no rng used)."""
    _, C = bmlab.exact_moments(triangle(params["J12"], 0.5, -0.5))
    return {"J12": data_moment - C[0, 1]}


fit = bmlab.train({"J12": 0.5}, exact_gradient, n_steps=n_steps, lr=eta,
                  metrics={"J12": lambda p: float(p["J12"]),
                           "moment": lambda p: data_moment - exact_gradient(p)["J12"]})
difference = np.max(np.abs(np.array(J12_path) - fit.history["J12"]))
print(f"reference agrees with bmlab (max difference < 1e-10): {difference < 1e-10}")


# %% [markdown]
# For the zero-bias triangle the sum over states can also be done by hand (Exercise 2):
# with $x = s_1 s_2$ and $y = s_2 s_3$,
# $\langle s_1 s_2\rangle = \tanh\!\big(J_{12} + \tfrac12 \ln\frac{\cosh(J_{23}+J_{13})}
# {\cosh(J_{23}-J_{13})}\big)$. We check it against enumeration on random triangles and
# solve it for the $J_{12}$ at which the model matches the data.

# %%
def triangle_moment(J12, J23, J13):
    """Closed form of <s1 s2>_model for the zero-bias triangle."""
    return np.tanh(J12 + 0.5 * np.log(np.cosh(J23 + J13) / np.cosh(J23 - J13)))


random_triangles = rng.uniform(-2, 2, size=(20, 3))
worst = max(abs(triangle_moment(*Js) - bmlab.exact_moments(triangle(*Js))[1][0, 1])
            for Js in random_triangles)
print(f"closed form vs enumeration on 20 random triangles (max difference < 1e-10): "
      f"{worst < 1e-10}")
J12_star = np.arctanh(data_moment) - 0.5 * np.log(np.cosh(0.5 - 0.5) / np.cosh(0.5 + 0.5))
print(f"after {fit.n_updates} steps: J12 = {fit.params['J12']:.4f}, model <s1 s2> = "
      f"{fit.history.last('moment'):.4f}; closed form: J12 = {J12_star:.4f}")
print("the loop reached the closed-form J12 (difference < 1e-4):",
      abs(fit.params["J12"] - J12_star) < 1e-4)
tolerance = 0.001
gap = np.abs(np.array(fit.history["moment"]) - data_moment)
within = np.argmax(gap < tolerance)  # threshold: a first passage
print(f"first step with the model moment within {tolerance} of the data: "
      f"{fit.history['step'][within]}")

# %%
steps = fit.history["step"]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8.5, 3.0))
ax1.plot(steps, fit.history["J12"], "o-", color=bmlab.NAVY, ms=4)
ax1.axhline(J12_star, color=bmlab.GRAY, ls="--", lw=1, label="closed form")
ax1.set(xlabel="step", ylabel="$J_{12}$", title="the coupling")
ax1.legend()
ax2.plot(steps, fit.history["moment"], "o-", color=bmlab.NAVY, ms=4, label="model (exact)")
ax2.axhline(data_moment, color=bmlab.GRAY, ls="--", lw=1.5, label="data")
ax2.set(xlabel="step", ylabel=r"$\langle s_1 s_2\rangle$", title="the moment")
ax2.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# **What to look for:** both curves level off on their dashed targets, with the big moves in the
# first few steps.

# %% [markdown]
# The coupling climbs to the closed-form value, and the model correlation comes within 0.001 of
# the data after 11 steps (printed above the figure). Each step is cheap: a Boltzmann factor
# per row, two column sums and a ratio. The only trouble is the number of rows.

# %% [markdown]
# **The value of $Z$ is not enough.** Why not just compute $Z$? Because learning needs the
# *slope* of $\log Z$: $\partial\log Z/\partial J_{12}=\langle s_1s_2\rangle_\text{model}$, the
# negative phase. One number $Z$ cannot tell which way to move. Swap the couplings of the
# lecture's triangle round the loop, $(J_{12},J_{23},J_{13})=(0.5,0.5,-0.5)\to(-0.5,0.5,0.5)$:
# $Z$ is unchanged (it depends only on the three couplings as a set), but $\langle s_1s_2\rangle$
# flips sign, so for data with $\langle s_1s_2\rangle_\text{data}=0$ Eq. 5.4 asks for opposite
# updates of $J_{12}$. The slope, by finite differences of $\log Z$, is the model moment --
# and each of those values of $\log Z$ is a full ledger again.

# %%
h = 1e-5
for Js in [(0.5, 0.5, -0.5), (-0.5, 0.5, 0.5)]:
    J_a, J_b = triangle(Js[0] + h, *Js[1:]), triangle(Js[0] - h, *Js[1:])
    slope = (bmlab.log_partition(J_a) - bmlab.log_partition(J_b)) / (2 * h)
    moment = bmlab.exact_moments(triangle(*Js))[1][0, 1]
    Z_J = np.exp(bmlab.log_partition(triangle(*Js)))
    print(f"J = {Js}: Z = {Z_J:.4f}, <s1 s2>_model = {moment:+.3f}, "
          f"dJ12 for <s1 s2>_data = 0: {0 - moment:+.3f}; "
          f"d log Z/dJ12 = <s1 s2> (1e-8): {abs(slope - moment) < 1e-8}")
print("same Z for both (1e-12):", abs(bmlab.log_partition(triangle(0.5, 0.5, -0.5))
                                      - bmlab.log_partition(triangle(-0.5, 0.5, 0.5))) < 1e-12)

# %% [markdown]
# ## 3. How many rows does the ledger have? Figure 5.5, the Z wall
#
# A machine of $N$ spins has $2^N$ configurations, and the negative phase needs all of them
# at every gradient step. Below, the count is compared with the number of seconds since the
# Big Bang (13.8 billion years, converted) and with the atoms in the observable universe,
# a count known only to its order of magnitude, $\sim 10^{80}$.

# %%
AGE_OF_UNIVERSE_S = 13.8e9 * 365.25 * 86400     # seconds since the Big Bang
ATOMS_IN_UNIVERSE = 10**80                      # an order of magnitude, not a count


def sci(x, tex=False):
    """1,024 below a million, else 1.07 × 10^9 (Python ints of any size are exact)."""
    if isinstance(x, int) and x < 10**6:
        return f"{x:,}"
    e = math.floor(math.log10(x))
    return f"${x / 10**e:.2f}\\times 10^{{{e}}}$" if tex else f"{x / 10**e:.2f} × 10^{e}"


print(f"seconds since the Big Bang: {sci(AGE_OF_UNIVERSE_S)}; atoms: ~10^80")
print(f"{'N':>4}  {'2^N terms in Z':>16}  {'/ s since Big Bang':>18}  {'/ 10^80 atoms':>16}")
for N in (3, 10, 20, 30, 100, 500):
    print(f"{N:>4}  {sci(2**N):>16}  {sci(2**N / AGE_OF_UNIVERSE_S):>18}  "
          f"{sci(2**N / ATOMS_IN_UNIVERSE):>16}")
n_seconds = next(N for N in itertools.count(1) if 2**N > AGE_OF_UNIVERSE_S)
n_atoms = next(N for N in itertools.count(1) if 2**N > ATOMS_IN_UNIVERSE)
print(f"2^N first exceeds the seconds since the Big Bang at N = {n_seconds} "
      f"(log2 of the seconds: {math.log2(AGE_OF_UNIVERSE_S):.1f})")
print(f"2^N first exceeds 10^80 at N = {n_atoms} (log2: {math.log2(ATOMS_IN_UNIVERSE):.1f}); "
      f"each factor of 10 in the atom count moves this by {math.log2(10):.1f} spins")

# %% [markdown]
# The count passes the seconds since the Big Bang at $N = 59$ and the atoms at $N = 266$
# (give or take 3.3 spins per factor of ten in that inventory). The lecture's rows lie well
# past these crossings: $N = 100$ has $2.91 \times 10^{12}$ times as many terms as seconds
# have passed, and $N = 500$ about $3 \times 10^{70}$ times as many as the $\sim 10^{80}$
# atoms. Figure 5.5 draws the whole curve.

# %%
N = np.arange(1, 601)
fig, ax = plt.subplots(figsize=(8.6, 4.6))
ax.semilogy(N, 2.0**N, color=bmlab.NAVY, lw=2.5)
ax.axvspan(0, 30, color=bmlab.NAVY, alpha=0.08)
ax.text(36, 1e115, r"$\leftarrow$ enumerable ($N \lesssim 30$)", color=bmlab.NAVY)
references = [
    (AGE_OF_UNIVERSE_S, n_seconds,
     f"seconds since the Big Bang ≈ ${AGE_OF_UNIVERSE_S / 1e17:.1f}\\times 10^{{17}}$"),
    (ATOMS_IN_UNIVERSE, n_atoms, r"atoms in the observable universe ~ $10^{80}$"),
]
for value, crossing, name in references:
    ax.axhline(value, color=bmlab.GRAY, ls="--", lw=1)
    ax.text(600, value * 1e3, name, color=bmlab.GRAY, ha="right", va="bottom", fontsize=9)
    ax.plot([crossing], [2.0**crossing], "o", color=bmlab.GRAY, ms=5)
    ax.text(crossing - 7, value * 1e3, f"N = {crossing}", color=bmlab.GRAY, ha="right",
            fontsize=9)
for n, xytext in [(3, (45, 1e2)), (100, (60, 1e52)), (500, (325, 1e162))]:
    note = f"N = {n}:" + ("\n" if n == 100 else " ") + f"{sci(2**n, tex=True)} terms"
    ax.plot([n], [2.0**n], "o", color=bmlab.ORANGE, ms=7, clip_on=False)  # N = 3 on the floor
    ax.annotate(note + (", by hand" if n == 3 else ""), xy=(n, 2.0**n), xytext=xytext,
                color=bmlab.ORANGE, fontsize=9.5, ha="center" if n == 100 else "left",
                arrowprops={"arrowstyle": "->", "color": bmlab.ORANGE, "lw": 1})
ax.set(xlabel="number of units N", ylabel="terms in Z (= $2^N$) per gradient step",
       xlim=(-10, 610), ylim=(1, 1e190), yticks=[1e0, 1e50, 1e100, 1e150],
       title="Figure 5.5: the Z wall")
fig.tight_layout()
bmlab.save_figure(fig, "fig5.5_z_wall")
plt.show()

# %% [markdown]
# **What to look for:** the straight navy line crosses the dashed seconds line at the gray dot
# $N = 59$ and the atoms line at $N = 266$; the lecture's orange point at $N = 100$ sits above
# the seconds line (still below the atoms line), the one at $N = 500$ far above the atoms
# line; the shaded strip, $N \le 30$, is all that exact
# enumeration can reach.
#
# ## 4. What does enumeration cost? Recorded, then live
#
# Counting terms is one thing; timing them is another. Two exact computations of $\log Z$ on
# dense random machines ($J_{ij} \sim \mathcal N(0, 1/N)$):
#
# * **bmlab** -- `bmlab.log_partition`, which uses two algorithms (`bmlab/exact.py`): up to
#   $N = 14$ it sums over all $2^N$ states directly, one energy per state; from $N = 15$ on it
#   splits the spins into two halves and gets the cross terms of every pair of half-states
#   from one matrix product per block, about $N/2$ multiply-adds per term instead of the
#   $N^2$ of an energy computed as $s^\top J s$. That switch is why the recorded times
#   below fall from $N = 14$ to $N = 15$;
# * **naive** -- every state and every energy in one big array, then one log-sum-exp (only up
#   to $N = 20$: the cell below prints the memory it needs there).
#
# The recorded points were measured by `benchmarks/record_log_partition_timings.py`, once, on
# the machine and date the record names (printed below), not on the computer running this
# notebook.

# %%
DIRECT_MAX = 14  # bmlab.log_partition sums all states directly up to here (bmlab/exact.py)


def random_machine(N, rng):
    """Dense random couplings J_ij ~ N(0, 1/N) and small biases theta_i ~ N(0, 0.1^2)."""
    J = np.triu(rng.normal(scale=N**-0.5, size=(N, N)), 1)
    return J + J.T, rng.normal(scale=0.1, size=N)


def naive_log_partition(J, theta):
    """log Z with all 2^N states and their energies held at once."""
    S = bmlab.all_states(len(theta))
    return logsumexp(-bmlab.energy(S, J, theta))


rec = bmlab.load_results("log_partition_timings")
bm, nv = rec["data"]["bmlab"], rec["data"]["naive"]
N_bm, t_bm = np.array(bm["N"]), np.array(bm["seconds"])
N_nv, t_nv = np.array(nv["N"]), np.array(nv["seconds"])
print(f"recorded {rec['recorded']} on {rec['machine']} by {rec['name']} "
      f"({rec['params']['timing']})")
print(f"recorded run ({len(N_bm)} + {len(N_nv)} machines, N up to {N_bm.max()}) agreed:",
      rec["data"]["max_abs_log_z_difference"] < 1e-9)
t14, t15 = t_bm[N_bm == DIRECT_MAX][0], t_bm[N_bm == DIRECT_MAX + 1][0]
print(f"recorded bmlab time falls from N = {DIRECT_MAX} (direct sum) to N = {DIRECT_MAX + 1} "
      f"(half-split): {t15 < t14}")
jump_bm = t_bm[N_bm == 13][0] / t_bm[N_bm == 12][0]
jump_nv = t_nv[N_nv == 13][0] / t_nv[N_nv == 12][0]
print(f"recorded time from N = 12 to 13: direct sum {jump_bm:.1f} times as long, naive "
      f"{jump_nv:.1f} times (the work doubles)")
n_big = N_nv.max()
gigabytes = 2**n_big * n_big * (1 + 8 + 8) / 1e9  # states as int8 and float64, and S @ J
print(f"naive at N = {n_big}: 2^{n_big} states x {n_big} spins held three times, "
      f"{gigabytes:.2f} GB")

# %% [markdown]
# The recorded points, with a straight line $\log_2 t = a + bN$ fitted to those with $N \ge 20$
# (below that, fixed overheads dominate): $2^b$ is the growth per added spin *that was
# measured* on the recording machine, overheads and timing noise included. The work itself,
# $2^N$ terms, doubles with every spin, so beyond the last measured point we extrapolate with
# $2^N$ from there (dotted), not with the fitted line.

# %%
direct = N_bm <= DIRECT_MAX
big = N_bm >= 20
b, a = np.polyfit(N_bm[big], np.log2(t_bm[big]), 1)
N_top, t_top = N_bm[-1], t_bm[-1]
N_ext = np.arange(N_top, 41)
fig, ax = plt.subplots(figsize=(8.0, 5.0), layout="constrained")
ax.semilogy(N_bm[direct], t_bm[direct], "o", color=bmlab.NAVY, mfc="none", mew=1.5, ms=7,
            label=f"bmlab, direct sum over all $2^N$ states ($N \\leq {DIRECT_MAX}$)")
ax.semilogy(N_bm[~direct], t_bm[~direct], "o", color=bmlab.NAVY,
            label=f"bmlab, half-split enumeration ($N \\geq {DIRECT_MAX + 1}$)")
ax.semilogy(N_nv, t_nv, "-", color=bmlab.GRAY, lw=2, zorder=1,
            label="naive: all states and energies at once")
ax.semilogy(N_bm[big], 2.0 ** (a + b * N_bm[big]), "--", color=bmlab.NAVY, lw=1,
            label=f"fit to N = 20-{N_top}: ×{2**b:.2f} per spin")
ax.semilogy(N_ext, t_top * 2.0 ** (N_ext - N_top), ":", color=bmlab.NAVY, lw=1.5,
            label=f"extrapolation: ×2 per spin from N = {N_top}")
ax.axvline(DIRECT_MAX + 0.5, color=bmlab.GRAY, lw=1, ls="-.")
ax.text(DIRECT_MAX + 0.9, 3e1, "bmlab switches\nalgorithm here", color=bmlab.GRAY, fontsize=9,
        va="center")
for seconds, text in [(1, "1 s"), (60, "1 minute"), (3600, "1 hour")]:
    ax.axhline(seconds, color=bmlab.GRAY, lw=0.6, ls=":")
    ax.text(9.2, seconds * 1.3, text, color=bmlab.GRAY, fontsize=8, va="bottom")
ax.set(xlabel="number of units N", ylabel="time for exact log Z [s]", xlim=(9, 41.5),
       title=f"recorded cost of exact enumeration ({rec['recorded']})")
fig.legend(loc="outside lower center", ncol=2, fontsize=8)
bmlab.save_figure(fig, "fig02_log_partition_cost")
plt.show()

# %% [markdown]
# **What to look for:** at the dash-dotted line `log_partition` switches to the half-split
# algorithm, and its time drops: the open circles just left of the line (direct sum) sit
# higher than the filled circles just right of it; left of the line the gray line of the
# naive sum runs through the open circles (both compute every energy); the filled circles
# bend onto a straight line (exponential cost) above $N \approx 20$, far below the gray line,
# which stops at $N = 20$.
#
# **From $N = 12$ to 13** both recorded times about double, as the work does: this record
# was made on an idle machine. On a busy one the direct sum can jump far more there, although
# neither algorithm changes. Both compute every energy through one matrix product of the
# states with $J$, and OpenBLAS, the matrix library under numpy, splits a product of that
# size over two threads (where exactly it starts doing so depends on the CPU); a thread that
# has to wait for a busy core costs more than these small sums take. The half-split holds
# BLAS to one thread while it sums its blocks. The live cell at the end of this section
# times the direct sum both ways on your machine.

# %% [markdown]
# The lecture's feasibility column next to the recorded times, and the extrapolation
# $t(N) = t(30)\, 2^{N - 30}$ in human units:

# %%
UNITS = [(AGE_OF_UNIVERSE_S, "ages of the universe"), (365.25 * 86400, "years"),
         (86400, "days"), (3600, "hours"), (60, "minutes"), (1, "s"), (1e-3, "ms")]


def in_words(seconds):
    """Seconds in the largest unit that fits, e.g. '3.2 ms', '58 years'."""
    size, unit = next(((size, unit) for size, unit in UNITS if seconds >= size), (1e-6, "µs"))
    value = seconds / size
    return f"{value:.3g} {unit}" if value < 1000 else f"{sci(round(value))} {unit}"


t20_bm, t20_nv = t_bm[N_bm == 20][0], t_nv[N_nv == 20][0]
print(f"N =  20  lecture: 'a laptop, seconds'        recorded: naive {in_words(t20_nv)}, "
      f"bmlab {in_words(t20_bm)}")
print(f"N =  30  lecture: 'a compute-bound minute'   recorded: bmlab {in_words(t_top)}")
for N in (40, 50, 60, 100):
    print(f"N = {N:3d}  extrapolated from the record: bmlab {in_words(t_top * 2.0 ** (N - N_top))}")


# %% [markdown]
# A cleverer algorithm buys a constant factor -- a few more spins -- but not a different
# curve: every added spin doubles the work. Somewhere in the thirties the wall arrives, and
# a hundred spins are out of reach by any factor a computer could buy.
#
# **Your turn: time it on this computer.** The cell below times both methods now, on the
# machine running this notebook, for a few $N$ on both sides of the switch (live timings stop
# at $N = 22$ to keep the notebook fast), and the direct sum once more with BLAS held to one
# thread (the threads discussed above). Its numbers are this run's: they differ from the
# record and from run to run, which is why the tests do not compare them.

# %%
def best_time(f, *args, repeat=3):
    """Value of f(*args) and its best wall time in seconds over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = f(*args)
        times.append(time.perf_counter() - start)
    return value, min(times)


N_LIVE, N_NAIVE_LIVE = [10, 12, 13, 14, 15, 16, 18, 20, 22], [10, 12, 14, 16]
machines = {N: random_machine(N, np.random.default_rng(N)) for N in N_LIVE}

# %% tags=["nbval-ignore-output"]
live = {N: best_time(bmlab.log_partition, *machines[N]) for N in N_LIVE}
live_naive = {N: best_time(naive_log_partition, *machines[N]) for N in N_NAIVE_LIVE}
with threadpool_limits(limits=1, user_api="blas"):
    one_thread = {N: best_time(bmlab.log_partition, *machines[N]) for N in N_LIVE
                  if N <= DIRECT_MAX}
recorded = dict(zip(bm["N"], bm["seconds"], strict=True))
print("measured now, on this machine (best of 3)")
print(f"{'N':>4}  {'bmlab algorithm':<16} {'bmlab':>10} {'1 BLAS thread':>14} {'recorded':>10} "
      f"{'naive':>10}")
for N in N_LIVE:
    naive = in_words(live_naive[N][1]) if N in live_naive else ""
    single = in_words(one_thread[N][1]) if N in one_thread else ""
    kind = "direct sum" if N <= DIRECT_MAX else "half-split"
    print(f"{N:>4}  {kind:<16} {in_words(live[N][1]):>10} {single:>14} "
          f"{in_words(recorded[N]):>10} {naive:>10}")

# %%
print("bmlab and naive log Z agree on every live machine (difference < 1e-9):",
      all(abs(live[N][0] - live_naive[N][0]) < 1e-9 for N in N_NAIVE_LIVE))


# %% [markdown]
# ## 5. Beyond the wall: annealed importance sampling
#
# Past the wall nobody computes $Z$; they *estimate* it. Annealed importance sampling (AIS;
# Neal 2001, used for RBMs by Salakhutdinov & Murray 2008) walks from a machine whose $Z$ is
# known in closed form to the one we want, through $K$ intermediate machines. For the RBM of
# Section 5.6 (units in $\{0,1\}$, weights $W$, biases $a$, $b$), machine $\beta$ keeps the
# visible biases and scales everything else by $\beta$; summing out the hidden units gives the
# unnormalised marginal
#
# $$\log p^*_\beta(v) = a^\top v + \sum_j \log\bigl(1 + e^{\beta (b_j + (v W)_j)}\bigr).$$
#
# At $\beta = 0$ the units are independent: $\log Z_0 = \sum_i \log(1 + e^{a_i}) + N_h \log 2$,
# with $N_h$ the number of hidden units.
# Each chain starts with an exact sample of that base, and at every step
# $\beta_{k-1} \to \beta_k$ it adds $\log p^*_{\beta_k}(v) - \log p^*_{\beta_{k-1}}(v)$ to
# its log weight, then takes one block-Gibbs step ($h$ given $v$, then $v$ given $h$) of
# machine $\beta_k$. The mean weight is an unbiased estimate of $Z_1 / Z_0$. Here is the whole
# loop, on a ten-unit RBM (6 visible, 4 hidden units) small enough to enumerate:

# %%
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def ais_reference(W, a, b, K, n_chains, rng):
    """log Z by AIS with K equally spaced temperatures; also the chains' log weights."""
    betas = np.linspace(0.0, 1.0, K + 1)
    v = (rng.random((n_chains, len(a))) < sigmoid(a)).astype(float)  # exact draws of beta = 0
    log_w = np.zeros(n_chains)
    for k in range(1, K + 1):
        x = v @ W + b  # the field on the hidden units
        log_w += (np.logaddexp(0, betas[k] * x) - np.logaddexp(0, betas[k - 1] * x)).sum(axis=1)
        if k < K:  # one block-Gibbs step of machine beta_k
            h = rng.random((n_chains, len(b))) < sigmoid(betas[k] * x)
            v = (rng.random(v.shape) < sigmoid(a + betas[k] * (h @ W.T))).astype(float)
    log_z0 = np.logaddexp(0, a).sum() + len(b) * np.log(2)
    return log_z0 + logsumexp(log_w) - np.log(n_chains), log_w


tiny = bmlab.RBM(rng.normal(0, 1, (6, 4)), rng.normal(0, 1, 6), rng.normal(0, 1, 4))
ref_log_Z, ref_log_w = ais_reference(tiny.W, tiny.a, tiny.b, 100, 500, np.random.default_rng(1))
fast = bmlab.ais_log_partition(tiny, n_betas=100, n_chains=500, rng=np.random.default_rng(1))
same_draws = np.allclose(ref_log_w, fast.log_w, rtol=0, atol=1e-9)
print(f"reference agrees with bmlab (1e-9 nats, same draws): "
      f"{abs(ref_log_Z - fast.log_Z) < 1e-9 and same_draws}")
z_fast = (fast.log_Z - tiny.log_partition()) / fast.stderr
print(f"exact log Z = {tiny.log_partition():.3f}, AIS = {fast.log_Z:.3f} ± {fast.stderr:.3f}; "
      f"z = {z_fast:+.1f}, within 4 standard errors: {abs(z_fast) < 4}")

# %% [markdown]
# The logarithm of an unbiased estimate of $Z$ is, on average, *too small* (Jensen's
# inequality: $\mathbb{E}\log \hat Z \le \log \mathbb{E}\hat Z$). Running the same path
# backwards -- from exact samples of the RBM to the base, `reverse=True` -- estimates
# $Z_0/Z_1$ instead, and its log Z errs on the *high* side (Burda, Grosse & Salakhutdinov 2015).
# Together they bracket the truth. Below, a 16 × 10 RBM with weights of scale 1: its exact
# $\log Z$ is enumerable, so we can watch both estimates close in on it as the number of
# temperatures grows (error bars: ±2 standard errors from the spread of the weights).

# %%
rbm16 = bmlab.RBM(rng.normal(0, 1, (16, 10)), rng.normal(0, 1, 16), rng.normal(0, 1, 10))
exact16 = rbm16.log_partition()
log_z0_16 = np.logaddexp(0, rbm16.a).sum() + 10 * np.log(2)
n_betas_grid = [3, 10, 30, 100, 300, 1000, 3000]
runs = {rev: [bmlab.ais_log_partition(rbm16, n_betas=K, n_chains=200, rng=rng, reverse=rev)
              for K in n_betas_grid] for rev in (False, True)}
# the bias: 100 independent estimates of 10 chains each (one run of 1000 chains, in groups)
bias_grid, bias = [1, 3, 10, 30, 100], {}
for rev in (False, True):
    errors = []
    for K in bias_grid:
        log_w = bmlab.ais_log_partition(rbm16, n_betas=K, n_chains=1000, rng=rng,
                                        reverse=rev).log_w.reshape(100, 10)
        log_ratio = logsumexp(log_w, axis=1) - np.log(10)
        errors.append((log_z0_16 - log_ratio if rev else log_z0_16 + log_ratio) - exact16)
    bias[rev] = np.array([(e.mean(), e.std(ddof=1) / np.sqrt(len(e))) for e in errors])

fig, (ax, ax_b) = plt.subplots(1, 2, figsize=(11, 4.2))
ax.axhline(exact16, color=bmlab.NAVY, lw=2, label="exact log Z (enumeration)")
ax_b.axhline(0, color=bmlab.NAVY, lw=2)
for rev, shift, marker, name in ((False, 0.94, "o", "AIS"), (True, 1.06, "s", "reverse AIS")):
    est = np.array([r.log_Z for r in runs[rev]])
    err = np.array([2 * r.stderr for r in runs[rev]])
    style = {"fmt": marker, "color": bmlab.ORANGE, "capsize": 3, "label": name,
             "mfc": "white" if rev else bmlab.ORANGE}
    ax.errorbar(np.array(n_betas_grid) * shift, est, yerr=err, **style)
    ax_b.errorbar(np.array(bias_grid) * shift, bias[rev][:, 0], yerr=2 * bias[rev][:, 1],
                  **style)
ax.set(xscale="log", xlabel="number of temperatures K", ylabel="log Z",
       title="one estimate of 200 chains (±2 s.e.)")
ax_b.set(xscale="log", xlabel="number of temperatures K", ylabel="estimate − exact log Z",
         title="mean of 100 estimates of 10 chains (±2 s.e.)")
ax.legend()
fig.tight_layout()
bmlab.save_figure(fig, "fig02_ais_convergence")
plt.show()
low, high = runs[False][-1], runs[True][-1]
print(f"K = 3000: AIS {low.log_Z:.3f} ± {low.stderr:.3f}, reverse {high.log_Z:.3f} ± "
      f"{high.stderr:.3f}, exact {exact16:.3f}")
print(f"exact log Z inside the AIS bracket (±2 standard errors): "
      f"{low.log_Z - 2 * low.stderr <= exact16 <= high.log_Z + 2 * high.stderr}")
below = bias[False][:2, 0] + 2 * bias[False][:2, 1] < 0
above = bias[True][:2, 0] - 2 * bias[True][:2, 1] > 0
print(f"K = 1 and 3, on average: AIS below, reverse AIS above (by > 2 s.e.): "
      f"{bool(below.all() and above.all())}")

# %% [markdown]
# Left: at every $K$ both estimates cover the exact value within their error bars; what more
# temperatures buy is precision, the bars shrinking from about half a nat at $K = 3$ to a
# hundredth at $K = 3000$. Right: averaged over many runs, the systematic error shows: with
# few temperatures AIS comes out low and reverse AIS high, and the gap closes as $K$ grows.
# Nothing in the loop enumerates anything: its cost grows with $K \times$ chains $\times$
# units, not with $2^N$. Notebook 05b uses it on RBMs with hundreds of hidden units, where
# the bracket is all there is.

# %% [markdown]
# ## 6. Try it
#
# **The ledger, live.** Move the couplings, the biases and the data correlation. The table,
# $Z$, the model correlation and the gradient of Eq. 5.4 follow; the flag turns green when the
# loop product becomes positive.

# %% tags=["nbval-ignore-output"]
ledger_panel()

# %% [markdown]
# **The wall, live.** Drag $N$: the number of terms, the largest familiar count it exceeds, and
# the time of exact $\log Z$ from the record of Section 4 (recorded on the benchmark machine,
# not on yours; beyond the recorded range, the last recorded time doubled once per added spin).

# %% tags=["nbval-ignore-output"]
wall_panel()

# %% [markdown]
# ## Exercises
#
# Each exercise has a check cell: replace `None` by your answer (a number, to the precision
# asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a hint; it never
# shows the answer. Each exercise links to a worked solution in a notebook of its own: open it
# once you have an answer, or are stuck.

# %% [markdown]
# **1 · Unfrustrate the loop.** Set $J_{13} = +0.5$ (others unchanged) and build the ledger of
# Section 1 again. What are $Z$, $\langle s_1 s_2\rangle_\text{model}$ and the degeneracy of the
# lowest energy? Why exactly that degeneracy? *Your answer:* $Z$, to 2 decimals.
# [worked solution](solutions/02_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # Z of the machine with J13 = +0.5, to 2 decimals
bmlab.check("02.1", my_answer)

# %% [markdown]
# **2 · A closed form, and a bond that cancels a path.** For the zero-bias triangle,
# substitute $x = s_1 s_2$ and $y = s_2 s_3$ (so $s_1 s_3 = xy$) and derive the formula for
# $\langle s_1 s_2\rangle$ used in Section 2. With $J_{23} = 0.5$ and $J_{13} = -0.5$, spins 1
# and 2 are correlated through spin 3 even without a direct bond. Which direct coupling
# $J_{12}$ makes them exactly uncorrelated, $\langle s_1 s_2\rangle_\text{model} = 0$?
# *Your answer:* $J_{12}$, to 3 decimals.
# [worked solution](solutions/02_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # J12 with <s1 s2>_model = 0 (J23 = 0.5, J13 = -0.5), to 3 decimals
bmlab.check("02.2", my_answer)

# %% [markdown]
# **3 · Buying spins.** Exact enumeration costs $\propto 2^N$. How many extra spins could you
# enumerate in the same time on a computer 10,000 times faster? *Your answer:* to 2
# decimals. [worked solution](solutions/02_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # extra spins for 10,000x the speed, to 2 decimals
bmlab.check("02.3", my_answer)

# %% [markdown]
# ## Summary
#
# - The negative phase of the three-spin triangle is an eight-row ledger: $Z = 10.34$ and
#   $\langle s_1 s_2\rangle_\text{model} = 0.276$; the loop is frustrated, so six states share
#   the lowest energy (Section 1).
# - Eq. 5.4 turns the ledger into a learning step, $+0.224$ for data at $0.50$; repeating it,
#   each step a full re-enumeration, reaches the closed-form coupling. Learning needs the slope
#   of $\log Z$, not its value: two triangles with the same $Z$ ask for opposite steps
#   (Section 2).
# - The ledger has $2^N$ rows: more than the seconds since the Big Bang from $N = 59$, more
#   than $\sim 10^{80}$ atoms from $N = 266$ (Figure 5.5, Section 3).
# - The work of exact $\log Z$ doubles with every spin (measured: its time grows about ×1.9
#   per spin from $N = 20$ to 30); a better algorithm (bmlab's
#   half-split above $N = 14$) buys a constant factor, not a different curve (Section 4).
# - Annealed importance sampling estimates $\log Z$ without enumerating; forward AIS errs low
#   and reverse AIS high on average, and together they bracket the exact value (Section 5).
#
# ## References
#
# - Lecture, Chapter 5: Section 5.4 (the learning rule, Eq. 5.4), Section 5.5 (the negative
#   phase, Eq. 5.5), Section 5.6 (hidden units and the RBM, Figure 5.4) and Section 5.7 (the
#   $Z$ ledger, Figure 5.5); Figure 5.3 for the Glauber chain on the same triangle.
# - Notes on the partition function and contrastive divergence (in Chinese),
#   `shared/lecture/notes-partition-function-cd-zh.md`: why $\nabla_\theta \log Z$ is a model
#   expectation.
# - R. M. Neal, *Annealed importance sampling*, Statistics and Computing 11 (2001).
# - R. Salakhutdinov and I. Murray, *On the quantitative analysis of deep belief networks*,
#   ICML 2008.
# - Y. Burda, R. Grosse and R. Salakhutdinov, *Accurate and conservative estimates of MRF
#   log-likelihood using reverse annealing*, AISTATS 2015.
