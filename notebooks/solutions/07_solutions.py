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
# # 07 · The RBM's phase diagram: worked solutions
#
# Worked solutions to the exercises of
# [notebook 07](../07_rbm_phase_diagram.ipynb#cell-id=Exercises). Try each exercise there
# first; every section below recomputes what it needs, so it runs on its own.

# %%
import numpy as np
from scipy.special import gammaln

import bmlab
from bmlab.phases import mode_law, rbm_ensemble, replica_symmetric

# %% [markdown]
# ## Exercise 1
#
# *The edge of the noise's singular values for $\sigma = 1$ and $N_h = 9N_v$.*
#
# The squared singular values of $r$ follow the Marchenko–Pastur law of Section 1 with
# $c = N_v/N_h = 1/9$; its upper end is $\lambda_+ = \sigma^2(c^{-1/4} + c^{1/4})^2$, so the
# singular values end at $\sigma(c^{-1/4} + c^{1/4}) = \sqrt3 + 1/\sqrt3$. A drawn machine
# with $N_v = 200$, $N_h = 1800$ comes close: at a finite size the largest singular value
# scatters near the edge (this draw's lies a little inside it), by an amount that shrinks as
# the machine grows.

# %%
c = 1 / 9
answer = c**-0.25 + c**0.25
W, _, _ = rbm_ensemble(200, 1800, sigma=1.0, rng=np.random.default_rng(0))
largest = np.linalg.svd(W, compute_uv=False)[0]
print(f"edge {answer:.3f}; largest singular value of a drawn W: {largest:.3f}")
assert bmlab.check("07.1", answer)

# %% [markdown]
# ## Exercise 2
#
# *The exact $\langle|m|\rangle$ of the rank-one $\pm1$ machine, $N_v = N_h = 10$, $w = 1$,
# at $T = 0.8$.*
#
# `mode_law` enumerates the $2^{10}$ visible states with the hidden layer summed out; the
# closed form of Section 3 says the same: $P(m) \propto \binom{10}{k}\cosh(m/T)^{10}$ at
# $m = (10 - 2k)/10$. Below the transition the law has two peaks, so $\langle m\rangle = 0$
# while $\langle|m|\rangle$ is well away from zero.

# %%
W, U, _ = rbm_ensemble(10, 10, [1.0], rng=np.random.default_rng(1))
answer = mode_law(W, U, beta=1 / 0.8).mean_abs[0]
k = np.arange(11)
m = (10 - 2 * k) / 10
log_p = gammaln(11) - gammaln(k + 1) - gammaln(11 - k) + 10 * np.log(np.cosh(m / 0.8))
p = np.exp(log_p - log_p.max())
closed = p @ np.abs(m) / p.sum()
print(f"<|m|> = {answer:.3f}; closed form agrees to 1e-10: {abs(answer - closed) < 1e-10}")
assert bmlab.check("07.2", answer)

# %% [markdown]
# ## Exercise 3
#
# *The replica-symmetric overlap $q$ for noise alone at $T = \sigma/2$.*
#
# With $w = 0$ the magnetisation vanishes and only $q = \mathbb E_z\tanh^2(\beta\sigma\sqrt
# q\,z)$ remains. At $\beta\sigma = 2$, $q = 0$ is a solution but not the one that grows from a
# small $q$: iterate from $q = 1$. Half-way down to zero temperature, two replicas already
# agree on about three quarters of their units ($(1 + q)/2$).

# %%
m, q = replica_symmetric(2.0, 0.0, 1.0)
answer = float(q)
print(f"q = {answer:.3f} (m = {abs(float(m)):.1f}); replicas agree on a share "
      f"{(1 + answer) / 2:.2f} of their units")
assert bmlab.check("07.3", answer)
