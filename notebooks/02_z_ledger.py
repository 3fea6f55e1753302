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
# # 02 · The Z ledger: the negative phase by hand, then the 2^N wall
#
# Companion to Section 5.7 of the lecture. The learning rule Eq. 5.4 needs the model
# correlation $\langle s_i s_j\rangle_\text{model}$, and Eq. 5.5 says that this is a sum over
# every configuration of the network, divided by $Z$. Here we
#
# 1. write that sum out row by row for the lecture's three-spin machine (the *ledger*),
# 2. use it for one learning step -- and then keep stepping until the model matches the data,
# 3. count how many rows the ledger has for bigger machines, and
# 4. time the enumeration on this computer until it becomes hopeless (Figure 5.5), and
# 5. go beyond the wall: estimate $\log Z$ by annealed importance sampling, graded exactly.

# %% [markdown]
# > **Notation.** Spins are $s_i=\pm1$ (not $\{0,1\}$ units; those come in notebook 05, with
# > biases $a, b$). $J_{ij}$ are the couplings, $\theta_i$ the biases, $E(s)$ the energy of
# > Eq. 5.1 and $Z=\sum_s e^{-E(s)}$ at $\beta=1$. No hidden units here. States are listed in
# > the order of `bmlab.all_states` (row $c$: $s_i=+1$ exactly when bit $i$ of $c$ is 1), as in
# > every notebook.

# %%
# On Colab or a fresh kernel without bmlab, install it first (does nothing where it is installed).
import importlib.util

BMLAB_REPO = "git+https://github.com/OWNER/bmlab"  # placeholder: the project's public repository
if importlib.util.find_spec("bmlab") is None:
    from IPython import get_ipython
    get_ipython().run_line_magic("pip", f"install -q {BMLAB_REPO}")

# %%
import math
import time

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import logsumexp

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
# The same $Z$ in closed form, and from bmlab's enumeration (which works with $\log Z$):

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
# Each ground state breaks exactly one bond (cost $2 \times 0.5$ above the ideal $-1.5$);
# the two states at $E = +1.5$ break all three. Flip the sign of one coupling in the panel of
# Section 6 and watch the flag and the degeneracy change.
#
# ## 2. One gradient step, then many
#
# Suppose the data say $\langle s_1 s_2\rangle_\text{data} = 0.50$. Eq. 5.4 gives the ascent
# direction for $J_{12}$: data minus model, $0.50 - 0.276 = +0.224$, so $J_{12}$ should grow.
# But once $J_{12}$ moves, every row of the ledger changes, and the model correlation must be
# enumerated again. So we loop: step $J_{12}$ by $\eta\,(\langle s_1 s_2\rangle_\text{data} -
# \langle s_1 s_2\rangle_\text{model})$, re-enumerate all 8 states, repeat -- with $J_{23}$,
# $J_{13}$ held fixed. Written out, then checked against bmlab's training loop `bmlab.train`
# driven by an exact gradient from `bmlab.exact_moments` (bmlab's vectorised enumeration of
# all $2^N$ states):

# %%
data_moment, eta, n_steps = 0.50, 0.5, 30


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
print("the loop reached the closed-form J12 (difference < 1e-5):",
      abs(fit.params["J12"] - J12_star) < 1e-5)

# %%
steps = fit.history["step"]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8.5, 3.0))
ax1.plot(steps, fit.history["J12"], "o-", color=bmlab.NAVY, ms=4)
ax1.axhline(J12_star, color=bmlab.GRAY, ls="--", lw=1, label="closed form")
ax1.set(xlabel="step", ylabel="$J_{12}$", title="the coupling")
ax1.legend()
ax2.plot(steps, fit.history["moment"], "o-", color=bmlab.NAVY, ms=4, label="model (exact)")
ax2.axhline(data_moment, color=bmlab.ORANGE, ls="--", lw=1.5, label="data")
ax2.set(xlabel="step", ylabel=r"$\langle s_1 s_2\rangle$", title="the moment")
ax2.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# **What to look for:** both curves level off on their dashed targets, the big moves in the first
# few steps.

# %% [markdown]
# The coupling climbs to the closed-form value and the model correlation meets the data
# within about fifteen steps. Nothing here is hard: eight energies, eight exponentials, one
# division,
# per step. The only trouble is the *eight*.

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
# ## 3. How many rows does the ledger have?
#
# A machine of $N$ spins has $2^N$ configurations, and the negative phase needs all of them
# at every gradient step. Below, the count is compared with the number of seconds since the
# Big Bang (13.8 billion years, converted) and with the roughly $10^{80}$ atoms in the
# observable universe.

# %%
AGE_OF_UNIVERSE_S = 13.8e9 * 365.25 * 86400     # seconds since the Big Bang
ATOMS_IN_UNIVERSE = 1e80


def sci(x, tex=False):
    """1,024 below a million, else 1.07 × 10^9 (Python ints of any size are exact)."""
    if isinstance(x, int) and x < 10**6:
        return f"{x:,}"
    e = math.floor(math.log10(x))
    return f"${x / 10**e:.2f}\\times 10^{{{e}}}$" if tex else f"{x / 10**e:.2f} × 10^{e}"


print(f"seconds since the Big Bang: {sci(AGE_OF_UNIVERSE_S)}")
print(f"{'N':>4}  {'2^N terms in Z':>16}  {'/ s since Big Bang':>18}  {'/ atoms':>14}")
for N in (3, 10, 20, 30, 100, 500):
    print(f"{N:>4}  {sci(2**N):>16}  {sci(2**N / AGE_OF_UNIVERSE_S):>18}  "
          f"{sci(2**N / ATOMS_IN_UNIVERSE):>14}")

# %% [markdown]
# At $N = 100$ the ratio to the seconds since the Big Bang passes one; at $N = 500$ the ratio
# to the atoms does.
#
# ## 4. What does it cost on this machine?
#
# Counting terms is one thing; timing them is another. We time two exact computations of
# $\log Z$ on dense random machines ($J_{ij} \sim \mathcal N(0, 1/N)$):
#
# * **bmlab** -- `bmlab.log_partition`, which splits the spins in two halves and turns the
#   cross terms into one matrix product per block;
# * **naive** -- every state and every energy in one big array, then one log-sum-exp (only up
#   to $N = 20$: it needs about 0.35 GB there).
#
# Live timings stop at $N = 24$ to keep this notebook fast; the points up to $N = 30$ were
# recorded by `benchmarks/record_log_partition_timings.py`. Your numbers will differ from
# the recorded ones -- that is the point of measuring.

# %%
def random_machine(N, rng):
    """Dense random couplings J_ij ~ N(0, 1/N) and small biases theta_i ~ N(0, 0.1^2)."""
    J = np.triu(rng.normal(scale=N**-0.5, size=(N, N)), 1)
    return J + J.T, rng.normal(scale=0.1, size=N)


def naive_log_partition(J, theta):
    """log Z with all 2^N states and their energies held at once."""
    S = bmlab.all_states(len(theta))
    return logsumexp(-bmlab.energy(S, J, theta))


def best_time(f, *args, repeat=3):
    """Value of f(*args) and its best wall time in seconds over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = f(*args)
        times.append(time.perf_counter() - start)
    return value, min(times)


# %% tags=["nbval-ignore-output"]
ns_live, ns_naive = np.arange(10, 25, 2), np.arange(10, 19, 2)
machines = {N: random_machine(N, rng) for N in ns_live}
z_live, t_live = zip(*(best_time(bmlab.log_partition, *machines[N]) for N in ns_live),
                     strict=True)
z_naive, t_naive = zip(*(best_time(naive_log_partition, *machines[N]) for N in ns_naive),
                       strict=True)
for N, t in zip(ns_live, t_live, strict=True):
    print(f"N = {N:2d}: bmlab {t * 1e3:9.3f} ms")
for N, t in zip(ns_naive, t_naive, strict=True):
    print(f"N = {N:2d}: naive {t * 1e3:9.3f} ms")

# %% [markdown]
# Both methods see the same random machines, so they must agree:

# %%
print("bmlab and naive log Z agree on every live machine (difference < 1e-9):",
      bool(np.allclose(z_live[: len(ns_naive)], z_naive, rtol=0, atol=1e-9)))
rec = bmlab.load_results("log_partition_timings")
bm, nv = rec["data"]["bmlab"], rec["data"]["naive"]
print(f"recorded run ({len(bm['N'])} + {len(nv['N'])} machines, N up to {max(bm['N'])}) agreed:",
      rec["data"]["max_abs_log_z_difference"] < 1e-9)

# %% [markdown]
# The recorded points, with a straight line $\log_2 t = a + bN$ fitted to those with $N \ge 20$
# (below that, fixed overheads dominate): $2^b$ is the growth per added spin *that was
# measured* on the recording machine, overheads and timing noise included. The work itself,
# $2^N$ terms, doubles with every spin, so beyond the last measured point we extrapolate with
# $2^N$ from there (dotted), not with the fitted line.

# %%
N_bm, t_bm = np.array(bm["N"]), np.array(bm["seconds"])
N_nv, t_nv = np.array(nv["N"]), np.array(nv["seconds"])
big = N_bm >= 20
b, a = np.polyfit(N_bm[big], np.log2(t_bm[big]), 1)
N_top, t_top = N_bm[-1], t_bm[-1]
label = f"recorded {rec['recorded']} ({rec['machine']})"
fig, ax = plt.subplots(figsize=(8.0, 4.0))
ax.semilogy(N_bm, t_bm, "o", color=bmlab.NAVY, label=f"bmlab, {label}")
ax.semilogy(N_nv, t_nv, "s", color=bmlab.ORANGE, label="naive, recorded")
ax.semilogy(N_bm[big], 2.0 ** (a + b * N_bm[big]), "--", color=bmlab.NAVY, lw=1,
            label=f"measured growth: x{2**b:.2f} per spin (fit, N = 20-30)")
N_ext = np.arange(N_top, 41)
ax.semilogy(N_ext, t_top * 2.0 ** (N_ext - N_top), ":", color=bmlab.NAVY, lw=1.5,
            label=f"extrapolation: x2 per spin from N = {N_top}")
for seconds, text in [(1, "1 s"), (60, "1 minute"), (3600, "1 hour")]:
    ax.axhline(seconds, color=bmlab.GRAY, lw=0.6, ls=":")
    ax.text(9.2, seconds * 1.3, text, color=bmlab.GRAY, fontsize=8, va="bottom")
ax.set(xlabel="number of units N", ylabel="time for exact log Z [s]", xlim=(9, 42),
       title="measured cost of exact enumeration")
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
bmlab.save_figure(fig, "fig02_log_partition_cost")  # recorded points only: reproducible
ax.semilogy(ns_live, t_live, "x", color="k", ms=7, label="bmlab, live (this run)")
ax.semilogy(ns_naive, t_naive, "+", color="k", ms=8, label="naive, live (this run)")
ax.legend(fontsize=8, loc="lower right")
plt.show()

# %% [markdown]
# **What to look for:** the points bend onto a straight line (exponential cost) above $N\approx20$;
# the naive
# squares climb faster and stop at $N=20$; the dotted line crosses an hour near $N=40$.

# %% [markdown]
# The lecture's feasibility column next to the measurements, and the extrapolation
# $t(N) = t(30)\, 2^{N - 30}$ in human units:

# %% tags=["nbval-ignore-output"]
UNITS = [(AGE_OF_UNIVERSE_S, "ages of the universe"), (365.25 * 86400, "years"),
         (86400, "days"), (3600, "hours"), (60, "minutes"), (1, "s"), (1e-3, "ms")]


def in_words(seconds):
    """Seconds in the largest unit that fits, e.g. '3.2 ms', '58 years'."""
    size, unit = next(((size, unit) for size, unit in UNITS if seconds >= size), (1e-6, "µs"))
    value = seconds / size
    return f"{value:.3g} {unit}" if value < 1000 else f"{sci(round(value))} {unit}"


t20_bm, t20_nv = t_bm[N_bm == 20][0], t_nv[N_nv == 20][0]
print(f"N =  20  lecture: 'a laptop, seconds'        measured: naive {in_words(t20_nv)}, "
      f"bmlab {in_words(t20_bm)}")
print(f"N =  30  lecture: 'a compute-bound minute'   measured: bmlab {in_words(t_top)}")
for N in (40, 50, 60, 100):
    print(f"N = {N:3d}  extrapolated: bmlab {in_words(t_top * 2.0 ** (N - N_top))}")

# %% [markdown]
# A cleverer algorithm buys a constant factor -- a few more spins -- but not a different
# curve: every added spin doubles the work. Somewhere in the thirties the wall arrives, and
# a hundred spins are out of reach by any factor a computer could buy.
#
# ## 5. Figure 5.5: the Z wall

# %%
N = np.arange(1, 601)
fig, ax = plt.subplots(figsize=(8.6, 4.6))
ax.semilogy(N, 2.0**N, color=bmlab.NAVY, lw=2.5)
ax.axvspan(0, 30, color=bmlab.NAVY, alpha=0.08)
ax.text(36, 1e115, r"$\leftarrow$ enumerable ($N \lesssim 30$)", color=bmlab.NAVY)
references = [(AGE_OF_UNIVERSE_S, "seconds since the Big Bang"),
              (ATOMS_IN_UNIVERSE, "atoms in the observable universe")]
for value, name in references:
    ax.axhline(value, color=bmlab.GRAY, ls="--", lw=1)
    ax.text(600, value * 3, f"{name} ~ {sci(value, tex=True)}", color=bmlab.GRAY,
            ha="right", va="bottom", fontsize=9)
for n, xytext in [(3, (12, 1e58)), (100, (130, 1e24)), (500, (380, 3e160))]:
    note = f"N={n}: {sci(2**n, tex=True)} terms" + (", by hand" if n == 3 else "")
    ax.plot([n], [2.0**n], "o", color=bmlab.ORANGE, ms=7)
    ax.annotate(note, xy=(n, 2.0**n), xytext=xytext, color=bmlab.ORANGE, fontsize=9.5,
                arrowprops={"arrowstyle": "->", "color": bmlab.ORANGE, "lw": 1})
ax.set(xlabel="number of units N", ylabel="terms in Z (= $2^N$) per gradient step",
       xlim=(0, 600), ylim=(1, 1e185), title="Figure 5.5: the Z wall")
fig.tight_layout()
bmlab.save_figure(fig, "fig5.5_z_wall")
plt.show()

# %% [markdown]
# **What to look for:** the straight navy line crosses the seconds since the Big Bang near $N=60$
# and the atoms
# of the universe near $N=270$; the shaded strip is all that exact enumeration can reach.

# %% [markdown]
# ## 6. Beyond the wall: annealed importance sampling
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
# At $\beta = 0$ the units are independent: $\log Z_0 = \sum_i \log(1 + e^{a_i}) + n_h \log 2$.
# Each chain starts with an exact sample of that base, and at every step
# $\beta_{k-1} \to \beta_k$ it adds $\log p^*_{\beta_k}(v) - \log p^*_{\beta_{k-1}}(v)$ to
# its log weight, then takes one block-Gibbs step ($h$ given $v$, then $v$ given $h$) of
# machine $\beta_k$. The mean weight is an unbiased estimate of $Z_1 / Z_0$. Here is the whole
# loop, on a ten-unit RBM small enough to enumerate:

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
ref_log_z, ref_log_w = ais_reference(tiny.W, tiny.a, tiny.b, 100, 500, np.random.default_rng(1))
fast = bmlab.ais_log_partition(tiny, n_betas=100, n_chains=500, rng=np.random.default_rng(1))
print(f"reference agrees with bmlab (1e-9 nats, same draws): "
      f"{abs(ref_log_z - fast.log_z) < 1e-9 and np.allclose(ref_log_w, fast.log_w, atol=1e-9)}")
print(f"exact log Z = {tiny.log_partition():.2f}, AIS = {fast.log_z:.2f} ± {fast.stderr:.2f}; "
      f"within 4 standard errors: {abs(fast.log_z - tiny.log_partition()) < 4 * fast.stderr}")

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
    est = np.array([r.log_z for r in runs[rev]])
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
print(f"K = 3000: AIS {low.log_z:.2f} ± {low.stderr:.2f}, reverse {high.log_z:.2f} ± "
      f"{high.stderr:.2f}, exact {exact16:.2f}")
print(f"exact log Z inside the AIS bracket (±2 standard errors): "
      f"{low.log_z - 2 * low.stderr <= exact16 <= high.log_z + 2 * high.stderr}")
below = bias[False][:2, 0] + 2 * bias[False][:2, 1] < 0
above = bias[True][:2, 0] - 2 * bias[True][:2, 1] > 0
print(f"K = 1 and 3, on average: AIS below, reverse AIS above (by > 2 s.e.): "
      f"{bool(below.all() and above.all())}")

# %% [markdown]
# Left: one estimate is noisy at few temperatures, and by a few thousand temperatures both
# sit on the exact value within their error bars. Right: averaged over many runs, the
# systematic error shows: with few temperatures AIS comes out low and reverse AIS high, and the
# gap closes as $K$ grows. Nothing
# in the loop enumerates anything: its cost grows with $K \times$ chains $\times$ units, not
# with $2^N$. Notebook 05 uses it on RBMs with hundreds of hidden units, where the bracket is
# all there is.

# %% [markdown]
# ## 7. Try it
#
# **The ledger, live.** Move the couplings, the biases and the data correlation. The table,
# $Z$, the model correlation and the gradient of Eq. 5.4 follow; the flag turns green when the
# loop product becomes positive.

# %% tags=["nbval-ignore-output"]
ledger_panel()

# %% [markdown]
# **The wall, live.** Drag $N$: the number of terms, the exact-$\log Z$ time on this machine
# (measured where recorded; beyond $N = 30$, the time at $N = 30$ doubled once per added
# spin) and the largest familiar count it exceeds.

# %% tags=["nbval-ignore-output"]
wall_panel()

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. A worked solution follows each check cell, collapsed:
# click the `…` (or the bar at the cell's left) to show it, then run it.

# %% [markdown]
# **1 · Unfrustrate the loop.** Set $J_{13} = +0.5$ (others unchanged). Build the ledger.
# What are $Z$, $\langle s_1 s_2\rangle_\text{model}$ and the ground-level degeneracy? Why
# exactly that degeneracy? *Your answer:* $Z$, to 3 decimals.

# %%
my_answer = None  # Z of the machine with J13 = +0.5, to 3 decimals
bmlab.check("02.1", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 1: the same ledger with J13 = +0.5.
E_unf = -(0.5 * s1 * s2 + 0.5 * s2 * s3 + 0.5 * s1 * s3)
w_unf = np.exp(-E_unf)
answer = w_unf.sum()
print(f"Z = {answer:.3f}, <s1 s2>_model = {(s1 * s2 * w_unf).sum() / w_unf.sum():.3f}, "
      f"ground degeneracy = {np.isclose(E_unf, E_unf.min()).sum()}")
# All bonds positive: only +++ and --- satisfy all three (E = -1.5), a two-fold level set
# by the global spin-flip symmetry s -> -s. No bond has to break.
assert bmlab.check("02.1", answer)

# %% [markdown]
# **2 · A closed form.** For the zero-bias triangle, substitute $x = s_1 s_2$ and
# $y = s_2 s_3$ (so $s_1 s_3 = xy$) and derive the formula for $\langle s_1 s_2\rangle$ used
# in Section 2; with it, predict the final $J_{12}$ of Section 2 by hand. *Your answer:*
# $\langle s_1 s_2\rangle$ of the machine with $J_{12}=0$, $J_{23}=0.5$, $J_{13}=-0.5$ (no
# direct bond between spins 1 and 2), to 3 decimals.

# %%
my_answer = None  # <s1 s2> at J12 = 0, J23 = 0.5, J13 = -0.5, to 3 decimals
bmlab.check("02.2", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 2: two states per (x, y), so Z/2 = e^{J12}*2cosh(J23+J13) + e^{-J12}*2cosh(J23-J13)
# and <x> = tanh(J12 + 0.5*log(cosh(J23+J13)/cosh(J23-J13))). Set <x> = 0.5 and solve:
J12_pred = np.arctanh(0.5) + 0.5 * np.log(np.cosh(1.0) / np.cosh(0.0))
print(f"predicted J12 = {J12_pred:.3f}; closed form at the lecture machine: "
      f"<s1 s2> = {triangle_moment(0.5, 0.5, -0.5):.3f}")
# Without a direct bond, spins 1 and 2 still correlate through spin 3: the path 1-3-2 has
# couplings -0.5 and +0.5, so it anti-aligns them.
answer = triangle_moment(0.0, 0.5, -0.5)
print(f"<s1 s2> at J12 = 0: closed form {answer:.3f}, enumeration {model_moment(0.0):.3f}")
assert bmlab.check("02.2", answer)

# %% [markdown]
# **3 · Buying spins.** Exact enumeration costs $\propto 2^N$. How many extra spins could you
# enumerate in the same time on a computer 1000 times faster? *Your answer:* to 1 decimal.

# %%
my_answer = None  # extra spins for 1000x the speed, to 1 decimal
bmlab.check("02.3", my_answer)

# %% tags=["solution", "nbval-ignore-output"] jupyter={"source_hidden": true}
# Solution 3: the time doubles per spin, so 1000x the speed buys log2(1000) spins.
answer = np.log2(1000)
print(f"about {answer:.1f} extra spins for 1000x the speed")
assert bmlab.check("02.3", answer)
