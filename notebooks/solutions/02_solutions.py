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
# # 02 · The Z ledger: worked solutions
#
# The worked solutions to the exercises of
# [notebook 02](../02_z_ledger.ipynb#cell-id=Exercises). Try each exercise there first: its check
# cell tells you whether your answer is right without showing it. Each section below is
# self-contained.

# %%
import numpy as np

import bmlab

S = bmlab.all_states(3).astype(float)  # the eight states of the triangle, - - - first
s1, s2, s3 = S.T

# %% [markdown]
# ## Exercise 1
#
# The triangle with every coupling positive, $J_{12} = J_{23} = J_{13} = +0.5$: its $Z$,
# $\langle s_1 s_2\rangle_\text{model}$ and the degeneracy of its lowest energy.

# %%
E = -(0.5 * s1 * s2 + 0.5 * s2 * s3 + 0.5 * s1 * s3)  # Eq. 5.1, theta = 0
w = np.exp(-E)
answer = w.sum()
ground = np.isclose(E, E.min())
print(f"Z = {answer:.2f}, <s1 s2>_model = {(s1 * s2 * w).sum() / answer:.3f}, "
      f"lowest energy {E.min():+.1f}, reached by {ground.sum()} states")
assert bmlab.check("02.1", answer)

# %% [markdown]
# With all bonds positive the loop is no longer frustrated: the two aligned states, all up and
# all down, satisfy every bond at once. No other state can, so the lowest level is two-fold;
# the two states are mirror images under flipping every spin, $s \to -s$, which leaves the
# energy unchanged when there are no biases. Every other state breaks two of the three bonds.

# %% [markdown]
# ## Exercise 2
#
# The closed form of $\langle s_1 s_2\rangle$ for the zero-bias triangle, and the direct
# coupling $J_{12}$ that makes $s_1$ and $s_2$ uncorrelated when $J_{23} = 0.5$ and
# $J_{13} = -0.5$.
#
# With $x = s_1 s_2$ and $y = s_2 s_3$ the energy is $-(J_{12}x + J_{23}y + J_{13}xy)$, and
# each pair $(x, y)$ comes from exactly two states, $s$ and $-s$. Summing over $y = \pm1$
# first (the two states per pair and the two cosh terms make the 4),
#
# $$Z = 4\,\bigl[e^{J_{12}} \cosh(J_{23} + J_{13}) + e^{-J_{12}} \cosh(J_{23} - J_{13})\bigr],$$
#
# and $\langle s_1 s_2\rangle = \partial \log Z / \partial J_{12}$ is a tanh:
# $\langle s_1 s_2\rangle = \tanh(J_{12} + B)$, where $B$ is
# half of $\ln\frac{\cosh(J_{23}+J_{13})}{\cosh(J_{23}-J_{13})}$. The path through spin 3
# acts like an extra direct bond of strength $B$, and the correlation vanishes where
# $J_{12} = -B$ cancels it.

# %%
J23, J13 = 0.5, -0.5


def ledger(J12):
    """Z and <s1 s2>_model by enumerating the eight states (the ledger of Section 1)."""
    w = np.exp(J12 * s1 * s2 + J23 * s2 * s3 + J13 * s1 * s3)
    return w.sum(), (s1 * s2 * w).sum() / w.sum()


def Z_closed(J12):
    """The closed form of Z above."""
    return 4 * (np.exp(J12) * np.cosh(J23 + J13) + np.exp(-J12) * np.cosh(J23 - J13))


B = 0.5 * np.log(np.cosh(J23 + J13) / np.cosh(J23 - J13))  # negative: the path anti-aligns
print("closed-form Z agrees with the ledger at J12 = -1, 0, 1 (1e-12):",
      all(abs(Z_closed(J12) - ledger(J12)[0]) < 1e-12 for J12 in (-1, 0, 1)))
answer = -B
print(f"bond through spin 3: B = {B:+.3f}; the J12 that cancels it: {answer:.3f}")
print(f"enumeration gives <s1 s2>_model = 0 there (1e-12): {abs(ledger(answer)[1]) < 1e-12}")
assert bmlab.check("02.2", answer)

# %% [markdown]
# ## Exercise 3
#
# How many extra spins a computer 10,000 times faster can enumerate in the same time.
#
# Each added spin doubles the number of terms, so $k$ extra spins cost $2^k$ times as much;
# a speed-up of 10,000 pays for the $k$ with $2^k = 10\,000$.

# %%
speed_up = 10_000
answer = np.log2(speed_up)
print(f"{answer:.2f} extra spins for {speed_up:,}x the speed")
assert bmlab.check("02.3", answer)

# %% [markdown]
# Ten thousand times the speed buys about thirteen spins: from the thirty of Section 4 to
# about forty-three, nowhere near the hundred of Figure 5.5.
#
# [Back to notebook 02](../02_z_ledger.ipynb)
