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
# 4. time the enumeration on this computer until it becomes hopeless (Figure 5.5).

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display

import bmlab
from bmlab import ledger as L
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
# $s_1 s_2$. The sum of the third column is $Z$; the sum of the fourth divided by $Z$ is the
# negative phase $\langle s_1 s_2\rangle_\text{model}$ of Eq. 5.5.

# %%
J = L.LECTURE_J
led = L.ledger(J)
display(HTML(led.to_html()))

# %%
closed = 6 * np.exp(0.5) + 2 * np.exp(-1.5)
print(f"Z = {led.Z:.2f}   (6 e^0.5 + 2 e^-1.5 = {closed:.2f})")
print(f"sum of s1 s2 e^-E = {led.pair_sum:.3f}")
print(f"<s1 s2>_model = {led.pair_sum:.3f} / {led.Z:.2f} = {led.moment:.3f}")
print("ledger Z agrees with bmlab.log_partition to 1e-12:",
      abs(np.log(led.Z) - bmlab.log_partition(J)) < 1e-12)

# %% [markdown]
# **Why six rows tie for the lowest energy.** Going round the loop
# 1 → 2 → 3 → 1, the couplings multiply to a negative number. A positive bond wants its two
# spins equal, a negative bond wants them opposite; around a loop with an odd number of
# negative bonds those wishes contradict each other, so at least one bond is always broken.
# That is *frustration*.

# %%
fr = L.frustration(J)
print(f"J12 * J23 * J13 = {fr.loop_product:+.3f}  ->  frustrated: {fr.frustrated}")
print(f"states that satisfy all three bonds: {fr.n_satisfying}")
print(f"energy if every bond were satisfied: {fr.ideal_energy:+.2f}")
print(f"actual ground energy: {fr.ground_energy:+.2f}, reached by {fr.degeneracy} of 8 states")

# %% [markdown]
# Each ground state breaks exactly one bond (cost $2 \times 0.5$ above the ideal $-1.5$);
# the two states at $E = +1.5$ break all three. Flip the sign of one coupling in the panel of
# Section 6 and watch the flag and the degeneracy change.
#
# ## 2. One gradient step, then many
#
# Suppose the data say $\langle s_1 s_2\rangle_\text{data} = 0.50$. Eq. 5.4 gives the ascent
# direction for $J_{12}$: data minus model.

# %%
data_moment = L.LECTURE_DATA_MOMENT
grad = L.pair_gradient(J, data_moment=data_moment)
print(f"dL/dJ12 = {data_moment:.2f} - {led.moment:.3f} = {grad:+.3f}  -> strengthen J12")

# %% [markdown]
# The model under-predicts the correlation, so $J_{12}$ should grow. But once $J_{12}$ moves,
# every row of the ledger changes, and the model correlation must be enumerated again. So we
# loop: step $J_{12}$ by $\eta\,(\langle s_1 s_2\rangle_\text{data} -
# \langle s_1 s_2\rangle_\text{model})$, re-enumerate all 8 states, repeat -- with $J_{23}$,
# $J_{13}$ held fixed. `fit_coupling` runs exactly this through bmlab's one training loop
# (`bmlab.learning.train`), with an exact-enumeration gradient.

# %% tags=["nbval-ignore-output"]
fit = L.fit_coupling(J, data_moment=data_moment, lr=0.5, tol=1e-6)

# %%
J12_exact = L.triangle_coupling_for(data_moment, 0.5, -0.5)
print(f"steps taken: {fit.steps[-1]}, converged: {fit.converged}")
print(f"final J12 = {fit.final_coupling:.3f}, model <s1 s2> = {fit.moment[-1]:.3f}")
print("matches the closed form arctanh(0.5) + (1/2) log cosh(1) to 1e-5:",
      abs(fit.final_coupling - J12_exact) < 1e-5)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8.5, 3.0))
ax1.plot(fit.steps, fit.coupling, "o-", color=bmlab.NAVY, ms=4)
ax1.axhline(J12_exact, color=bmlab.GRAY, ls="--", lw=1, label="closed form")
ax1.set(xlabel="step", ylabel="$J_{12}$", title="the coupling")
ax1.legend()
ax2.plot(fit.steps, fit.moment, "o-", color=bmlab.NAVY, ms=4, label="model (exact)")
ax2.axhline(data_moment, color=bmlab.ORANGE, ls="--", lw=1.5, label="data")
ax2.set(xlabel="step", ylabel=r"$\langle s_1 s_2\rangle$", title="the moment")
ax2.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# Nothing here is hard: eight energies, eight exponentials, one division, per step. The
# only trouble is the *eight*.
#
# ## 3. How many rows does the ledger have?
#
# A machine of $N$ spins has $2^N$ configurations, and the negative phase needs all of them
# at every gradient step. Below, the count is compared with the number of seconds since the
# Big Bang (13.8 billion years, converted) and with the roughly $10^{80}$ atoms in the
# observable universe.

# %%
print(f"seconds since the Big Bang: {L.human_count(L.AGE_OF_UNIVERSE_S)}")
print(L.scaling_text(L.scaling_table([3, 10, 20, 30, 100, 500])))

# %% [markdown]
# ## 4. What does it cost on this machine?
#
# Counting terms is one thing; timing them is another. We time two exact computations of
# $\log Z$ on dense random machines ($J_{ij} \sim \mathcal N(0, 1/N)$):
#
# * **bmlab** -- `bmlab.log_partition`, which splits the spins in two halves and turns the
#   cross terms into one matrix product per block;
# * **naive** -- `L.naive_log_partition`, which builds all $2^N$ states and energies as one
#   big array (only up to $N = 20$: it needs about 0.35 GB there).
#
# Live timings stop at $N = 24$ to keep this notebook fast; the points up to $N = 30$ were
# recorded by `benchmarks/record_log_partition_timings.py`. Your numbers will differ from
# the recorded ones -- that is the point of measuring.

# %% tags=["nbval-ignore-output"]
ns_live = np.arange(10, 25, 2)
t_live, z_live = L.time_log_partition(ns_live, method="bmlab", rng=np.random.default_rng(SEED))
ns_naive = np.arange(10, 19, 2)
t_naive, z_naive = L.time_log_partition(ns_naive, method="naive", rng=np.random.default_rng(SEED))
for n, t in zip(ns_live, t_live, strict=True):
    print(f"N = {n:2d}: bmlab {L.human_time(t):>12}")
for n, t in zip(ns_naive, t_naive, strict=True):
    print(f"N = {n:2d}: naive {L.human_time(t):>12}")

# %% [markdown]
# Both methods see the same random machines (same seed), so they must agree:

# %%
print("bmlab and naive log Z agree to 1e-9 on every live machine:",
      bool(np.allclose(z_live[: len(ns_naive)], z_naive, rtol=0, atol=1e-9)))
rec = bmlab.load_results("log_partition_timings")
bm, nv = rec["data"]["bmlab"], rec["data"]["naive"]
print(f"recorded run ({len(bm['N'])} + {len(nv['N'])} machines, N up to {max(bm['N'])}) agreed:",
      rec["data"]["max_abs_log_z_difference"] < 1e-9)

# %% [markdown]
# An exponential law $t(N) = 2^{a + bN}$ fitted to the recorded points with $N \ge 20$
# (below that, fixed overheads dominate) tells us how the cost grows per added spin -- and
# lets us extrapolate far beyond what we can run.

# %%
fit_bm = L.fit_exponential(bm["N"], bm["seconds"], n_min=20)
fit_nv = L.fit_exponential(nv["N"], nv["seconds"], n_min=15)
label = f"recorded {rec['recorded']} ({rec['machine']})"
fig, ax = plt.subplots(figsize=(8.0, 4.0))
ax.semilogy(bm["N"], bm["seconds"], "o", color=bmlab.NAVY, label=f"bmlab, {label}")
ax.semilogy(nv["N"], nv["seconds"], "s", color=bmlab.ORANGE, label="naive, recorded")
n_grid = np.arange(20, 41)
ax.semilogy(n_grid, fit_bm.predict(n_grid), "--", color=bmlab.NAVY, lw=1,
            label=f"fit: x{fit_bm.factor:.2f} per spin")
n_grid_nv = np.arange(15, 26)
ax.semilogy(n_grid_nv, fit_nv.predict(n_grid_nv), "--", color=bmlab.ORANGE, lw=1,
            label=f"naive fit: x{fit_nv.factor:.2f} per spin")
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
# The lecture's feasibility column next to the measurements, and the extrapolation:

# %% tags=["nbval-ignore-output"]
t20_bm = bm["seconds"][bm["N"].index(20)]
t20_nv = nv["seconds"][nv["N"].index(20)]
t30_bm = bm["seconds"][bm["N"].index(30)]
print(f"N =  20  lecture: 'a laptop, seconds'        measured: naive {L.human_time(t20_nv)}, "
      f"bmlab {L.human_time(t20_bm)}")
print(f"N =  30  lecture: 'a compute-bound minute'   measured: bmlab {L.human_time(t30_bm)}")
print(f"growth per added spin: bmlab x{fit_bm.factor:.2f}, naive x{fit_nv.factor:.2f}")
for n in (40, 50, 100):
    print(f"N = {n:3d}  extrapolated: bmlab {fit_bm.predict_human(n):>34}, "
          f"naive {fit_nv.predict_human(n):>34}")

# %% [markdown]
# A cleverer algorithm buys a constant factor -- a few more spins -- but not a different
# curve: every added spin still (roughly) doubles the work. Somewhere in the thirties the
# wall arrives, and a hundred spins are out of reach by any factor a computer could buy.
#
# ## 5. Figure 5.5: the Z wall

# %%
N = np.arange(1, 601)
fig, ax = plt.subplots(figsize=(8.6, 4.6))
ax.semilogy(N, 2.0**N, color=bmlab.NAVY, lw=2.5)
ax.axvspan(0, 30, color=bmlab.NAVY, alpha=0.08)
ax.text(36, 1e115, r"$\leftarrow$ enumerable ($N \lesssim 30$)", color=bmlab.NAVY)
references = [(L.AGE_OF_UNIVERSE_S, "seconds since the Big Bang"),
              (L.ATOMS_IN_UNIVERSE, "atoms in the observable universe")]
for value, name in references:
    ax.axhline(value, color=bmlab.GRAY, ls="--", lw=1)
    ax.text(600, value * 3, f"{name} ~ {L.human_count(value, tex=True)}", color=bmlab.GRAY,
            ha="right", va="bottom", fontsize=9)
for n, xytext in [(3, (12, 1e58)), (100, (130, 1e24)), (500, (380, 3e160))]:
    note = f"N={n}: {L.human_count(2**n, tex=True)} terms" + (", by hand" if n == 3 else "")
    ax.plot([n], [2.0**n], "o", color=bmlab.ORANGE, ms=7)
    ax.annotate(note, xy=(n, 2.0**n), xytext=xytext, color=bmlab.ORANGE, fontsize=9.5,
                arrowprops={"arrowstyle": "->", "color": bmlab.ORANGE, "lw": 1})
ax.set(xlabel="number of units N", ylabel="terms in Z (= $2^N$) per gradient step",
       xlim=(0, 600), ylim=(1, 1e185), title="Figure 5.5: the Z wall")
fig.tight_layout()
bmlab.save_figure(fig, "fig5.5_z_wall")
plt.show()

# %% [markdown]
# ## 6. Try it
#
# **The ledger, live.** Move the couplings, the biases and the data correlation. The table,
# $Z$, the model correlation and the gradient of Eq. 5.4 follow; the flag turns green when the
# loop product becomes positive.

# %% tags=["nbval-ignore-output"]
ledger_panel()

# %% [markdown]
# **The wall, live.** Drag $N$: the number of terms, the exact-$\log Z$ time on this machine
# (measured where recorded, extrapolated beyond) and the largest familiar count it exceeds.

# %% tags=["nbval-ignore-output"]
wall_panel()

# %% [markdown]
# ## Exercises
#
# 1. **Unfrustrate the loop.** Set $J_{13} = +0.5$ (others unchanged). Build the ledger.
#    What are $Z$, $\langle s_1 s_2\rangle_\text{model}$ and the ground-level degeneracy?
#    Why exactly that degeneracy?
# 2. **A closed form.** For the zero-bias triangle, substitute $x = s_1 s_2$ and
#    $y = s_2 s_3$ (so $s_1 s_3 = xy$) and show that
#    $\langle s_1 s_2\rangle = \tanh\!\big(J_{12} + \tfrac12 \ln\frac{\cosh(J_{23}+J_{13})}
#    {\cosh(J_{23}-J_{13})}\big)$. Use it to predict the final $J_{12}$ of Section 2.
# 3. **Buying spins.** Using the fitted growth factor, how many extra spins could you
#    enumerate in the same time on a computer 1000 times faster?

# %% jupyter={"source_hidden": true}
# Solution 1
J_unf = L.triangle_couplings(0.5, 0.5, 0.5)
led_unf, fr_unf = L.ledger(J_unf), L.frustration(J_unf)
print(f"Z = {led_unf.Z:.3f}, <s1 s2>_model = {led_unf.moment:.3f}, "
      f"ground degeneracy = {fr_unf.degeneracy}, states satisfying all bonds = "
      f"{fr_unf.n_satisfying}")
# All bonds positive: only +++ and --- satisfy all three (E = -1.5), a two-fold level set
# by the global spin-flip symmetry s -> -s. No bond has to break.

# %% jupyter={"source_hidden": true}
# Solution 2: two states per (x, y), so Z/2 = e^{J12}*2cosh(J23+J13) + e^{-J12}*2cosh(J23-J13)
# and <x> = tanh(J12 + 0.5*log(cosh(J23+J13)/cosh(J23-J13))). Set <x> = 0.5 and solve:
J12_pred = np.arctanh(0.5) + 0.5 * np.log(np.cosh(1.0) / np.cosh(0.0))
print(f"predicted J12 = {J12_pred:.3f}; closed form at the lecture machine: "
      f"{L.triangle_pair_moment(0.5, 0.5, -0.5):.3f}")

# %% jupyter={"source_hidden": true} tags=["nbval-ignore-output"]
# Solution 3: time grows by a factor g per spin, so 1000x speed buys log(1000)/log(g) spins.
print(f"growth factor g = {fit_bm.factor:.2f}: "
      f"about {np.log(1000) / np.log(fit_bm.factor):.1f} extra spins for 1000x the speed")
