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
# # 01 · Glauber dynamics: worked solutions
#
# The worked solutions to the exercises of
# [notebook 01](../01_glauber_convergence.ipynb#cell-id=Exercises). Try each exercise there
# first: its check cell tells you whether your answer is right without showing it. Each
# section below is self-contained.

# %%
import numpy as np

import bmlab

S = bmlab.all_states(3).astype(float)  # the eight states of the triangle, - - - first
pair = S[:, 0] * S[:, 1]  # s1 s2 on every state
J = np.array([[0.0, 0.5, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.5, 0.0]])  # the frustrated triangle

# %% [markdown]
# ## Exercise 1
#
# The triangle with $J_{13}=+0.5$: $p(+{+}{+})$ at $\beta=2$.
#
# With every bond positive nothing is frustrated: $+++$ and $---$ satisfy all three bonds,
# $E=-1.5$, and each of the six other states breaks two of them, $E=+0.5$. At inverse
# temperature $\beta$ each ground state gets $e^{1.5\beta}/(2e^{1.5\beta}+6e^{-0.5\beta})$.
# Section 6 of the notebook gives a second route: $\beta=2$ with $J$ is $\beta=1$ with $2J$.

# %%
J_un = np.abs(J)
E_un = bmlab.energy(S, J_un)
print("energies:", E_un)
answer = bmlab.boltzmann_probs(J_un, beta=2.0)[7]  # S[7] is +++
closed = np.exp(3.0) / (2 * np.exp(3.0) + 6 * np.exp(-1.0))
same_machine = bmlab.boltzmann_probs(2 * J_un, beta=1.0)[7]
print(f"p(+++) at beta = 2: {answer:.3f}; closed form {closed:.3f}; "
      f"beta = 1 with 2J: {same_machine:.3f}")
print(f"both ground states together: {2 * answer:.3f} of the probability")
assert bmlab.check("01.1", answer)

# %% [markdown]
# Cooling concentrates the law on the two ground states: together they hold 0.948 of it at
# $\beta=2$, and each tends to $\tfrac12$ as $\beta\to\infty$.

# %% [markdown]
# ## Exercise 2
#
# The frustrated triangle: the cold limit of $\langle s_1 s_2\rangle$ and the smallest $\beta$
# at which $\langle s_1 s_2\rangle$ is within 0.001 of it.
#
# As $\beta\to\infty$ only the six states at the lowest energy keep weight, all equally. On four
# of them $s_1s_2=+1$ and on two $s_1s_2=-1$, so the limit is $(4-2)/6=\tfrac13$. The
# correlation rises towards it monotonically: with the closed form of notebook 02,
# $\langle s_1 s_2\rangle=\tanh\bigl(\tfrac\beta2-\tfrac12\ln\cosh\beta\bigr)$, whose argument
# grows with $\beta$. So we bracket the crossing and bisect.

# %%
E = bmlab.energy(S, J)
ground = np.isclose(E, E.min())
limit = pair[ground].mean()
print(f"{ground.sum()} ground states: s1 s2 = +1 on {(pair[ground] > 0).sum()}, -1 on "
      f"{(pair[ground] < 0).sum()}; the limit is {limit:.4f}")
print(f"<s1 s2> at beta = 1: {bmlab.boltzmann_probs(J) @ pair:.3f}")


def gap(beta):
    """Distance of <s1 s2> at beta from the cold limit, minus the tolerance 0.001."""
    return limit - bmlab.boltzmann_probs(J, beta=beta) @ pair - 0.001


low, high = 1.0, 10.0  # gap(low) > 0 > gap(high)
for _ in range(60):
    mid = (low + high) / 2
    low, high = (mid, high) if gap(mid) > 0 else (low, mid)
answer = high
closed_form = np.tanh(answer / 2 - 0.5 * np.log(np.cosh(answer)))
print(f"<s1 s2> within 0.001 of the limit from beta = {answer:.2f} on "
      f"(closed form there: {closed_form:.4f})")
assert bmlab.check("01.2", answer)

# %% [markdown]
# At $\beta=1$ the correlation is 0.276, well short of $\tfrac13$; it takes $\beta$ near 3
# (by Section 6: couplings three times as strong at $\beta=1$) before the two frustrated
# states are frozen out to this precision.

# %% [markdown]
# ## Exercise 3
#
# The spectral guarantee for the triangle at $\beta=2$: sweeps to a total-variation distance
# of at most 0.01 from any start.
#
# The upper bound of Section 5 is $t_\text{rel}\log\frac{1}{\varepsilon\,\pi_\text{min}}$ single
# updates, where $t_\text{rel}=1/(1-\lambda_2)$ and $\pi_\text{min}$ is the smallest Boltzmann
# probability; a sweep is 3 updates. The exact mixing time, for comparison, comes from powers
# of $T$.

# %%
beta, eps = 2.0, 0.01
T = bmlab.glauber_transition_matrix(J, beta=beta)
p = bmlab.boltzmann_probs(J, beta=beta)
r = np.sqrt(p)  # T is reversible: r T / r is symmetric, with the same eigenvalues
lam = np.linalg.eigvalsh(r[:, None] * T / r[None, :])[::-1]
t_rel = 1 / (1 - lam[1])  # in updates
answer = t_rel * np.log(1 / (eps * p.min())) / 3
P, t_mix = np.eye(8), 0
while 0.5 * np.abs(P - p).sum(axis=1).max() > eps:
    P, t_mix = P @ T, t_mix + 1
print(f"t_rel = {t_rel / 3:.2f} sweeps, pi_min = {p.min():.4f}")
print(f"guaranteed: {answer:.1f} sweeps; exact: {t_mix} updates = {t_mix / 3:.1f} sweeps")
print(f"log(1/pi_min) = {np.log(1 / p.min()):.1f} of the {np.log(1 / (eps * p.min())):.1f} "
      f"in the bound's logarithm")
assert bmlab.check("01.3", answer)

# %% [markdown]
# The bound is loose mainly through $\pi_\text{min}$: the two frustrated states are rare at
# $\beta=2$, and $\log(1/\pi_\text{min})$ is more than half of the logarithm, although no start
# needs to wait for them. The exact mixing time is a few times shorter than the guarantee.
#
# [Back to notebook 01](../01_glauber_convergence.ipynb)
