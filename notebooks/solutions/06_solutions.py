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
# # 06 · The spherical machine: worked solutions
#
# Worked solutions to the exercises of
# [notebook 06](../06_spherical_machine.ipynb#cell-id=Exercises). Try each exercise there
# first; every section below recomputes what it needs, so it runs on its own.

# %%
import numpy as np
from scipy.special import i0

import bmlab

# %% [markdown]
# ## Exercise 1
#
# *$\log Z$ at $N = 2$ for $W = \mathrm{diag}(1, -1)$ and $\beta = 1$.*
#
# On the circle $x = \sqrt2(\cos\varphi, \sin\varphi)$ the energy term is $x^\top W x =
# 2(\cos^2\varphi - \sin^2\varphi) = 2\cos 2\varphi$. The uniform law on the circle is a
# uniform angle, so $Z = \frac{1}{2\pi}\int_0^{2\pi} e^{\beta\cos 2\varphi}\,d\varphi =
# I_0(\beta)$, the modified Bessel function of order zero (the substitution $2\varphi \to
# \varphi$ runs twice over the same circle and leaves the average unchanged).

# %%
answer = np.log(i0(1.0))
exact = bmlab.SphericalBM(np.diag([1.0, -1.0])).log_partition(1.0)
print(f"log I0(1) = {answer:.3f}; bmlab agrees to 1e-12: {abs(answer - exact) < 1e-12}")
assert bmlab.check("06.1", answer)

# %% [markdown]
# ## Exercise 2
#
# *The exact share along $u$ for $W = 4\,uu^\top$ at $\beta = 1$ and $N = 100$.*
#
# $W$ has one eigenvalue 4 (eigenvector $u$) and $N - 1$ zeros. The share is $\langle
# y^2\rangle$ of the eigenvalue 4 divided by $N$; `bmlab.spherical_moments` returns it in the
# order of the eigenvalues given. The large-$N$ value $1 - 1/4$ is a little lower: at
# $N = 100$ the finite-size correction is visible in the third decimal.

# %%
N = 100
lam = np.zeros(N)
lam[-1] = 4.0
answer = bmlab.spherical_moments(lam, 1.0)[1][-1] / N
print(f"exact share at N = {N}: {answer:.3f}; large-N limit: {1 - 1 / 4:.3f}")
assert bmlab.check("06.2", answer)


# %% [markdown]
# ## Exercise 3
#
# *$\mathrm{KL}(p^*\,\|\,\text{uniform})$ for the teacher $W^* = 3\,uu^\top$ at $N = 1000$.*
#
# Probabilities are measured relative to the uniform law, so the uniform law has density 1
# and the KL is the teacher's mean log-density, $\langle \log p^*\rangle_* =
# \tfrac{1}{2}\langle x^\top W^* x\rangle_* - \log Z^* = \tfrac{c^*}{2}\langle y^2\rangle -
# \log Z^*$, with $\langle y^2\rangle$ the moment of the spike eigenvalue. Both come from one
# call. It grows in proportion to $N$: the condensed teacher puts a finite share of $|x|^2$
# along $u$, a fraction of the sphere that shrinks exponentially with $N$ under the uniform
# law.

# %%
def kl_from_uniform(n, c=3.0):
    """KL(teacher || uniform) in nats for the teacher W* = c u u^T at size n, beta = 1."""
    lam = np.zeros(n)
    lam[-1] = c
    log_Z, y2 = bmlab.spherical_moments(lam, 1.0)
    return c / 2 * y2[-1] - log_Z


for n in (200, 1000, 5000):
    print(f"N = {n:5d}: KL = {kl_from_uniform(n):7.1f} nats, KL / N = {kl_from_uniform(n) / n:.3f}")
answer = kl_from_uniform(1000)
assert bmlab.check("06.3", answer)
