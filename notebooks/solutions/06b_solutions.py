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
# # 06b · The spherical machine learned as a Bayesian: worked solutions
#
# Worked solutions to the exercises of
# [notebook 06b](../06b_spherical_posterior.ipynb#cell-id=Exercises). Try each exercise there
# first; every section below recomputes what it needs, so it runs on its own.

# %%
import numpy as np
from scipy.special import i0, i1

import bmlab

# %% [markdown]
# ## Exercise 1
#
# *The posterior standard deviation of $\mathrm{tr}(W)$ at $N = 50$, $\eta = 0.3$, $\gamma =
# 30$.*
#
# Write $W = W_0 + t\,I/\sqrt N$ with $W_0$ traceless, so $t = \mathrm{tr}(W)/\sqrt N$. The
# two parts are orthogonal in the Frobenius inner product ($\mathrm{tr}(W_0 I) = 0$), so
# $\|W\|_F^2 = \|W_0\|_F^2 + t^2$. The log-likelihood does not depend on $t$ (adding a
# multiple of $I$ changes $x^\top W x/2$ and $\log Z$ by the same amount), so the posterior
# factorises, and along $t$ only $e^{-\eta\gamma t^2/2}$ is left: $t \sim \mathcal N(0,
# 1/(\eta\gamma))$ whatever the data. Then $\mathrm{tr}(W) = \sqrt N\,t$ has standard
# deviation $\sqrt{N/(\eta\gamma)}$. A sampled check: 400 draws of `bmlab.spherical_posterior`
# on some data at these settings (their traces are independent: the sampler draws $t$ afresh
# for every draw).

# %%
N, eta, gamma = 50, 0.3, 30.0
answer = np.sqrt(N / (eta * gamma))
u = np.eye(N)[-1]
X = bmlab.SphericalBM(3.0 * np.outer(u, u)).sample(N, rng=np.random.default_rng(0))
draws = bmlab.spherical_posterior(
    X, gamma=gamma, eta=eta, n_samples=400, thin=5, burn_in=200, rng=np.random.default_rng(1)
)
traces = np.trace(draws, axis1=1, axis2=2)
spread = answer / np.sqrt(2 * len(traces))  # standard error of a standard deviation, normal draws
print(f"sqrt(N / (eta gamma)) = {answer:.3f}; 400 draws: standard deviation {traces.std():.2f} "
      f"± {spread:.2f}")
assert bmlab.check("06b.1", answer)

# %% [markdown]
# ## Exercise 2
#
# *The reverse KL of the model $W = \mathrm{diag}(0, 1)$ from the teacher $W^* =
# \mathrm{diag}(0, 3)$ at $N = 2$.*
#
# On the circle $x = \sqrt2(\cos\varphi, \sin\varphi)$ the machine $\mathrm{diag}(0, c)$ has
# $x^\top W x/2 = c\sin^2\varphi = \frac c2(1 - \cos 2\varphi)$, so $\log Z_c = \frac c2 +
# \log I_0(\frac c2)$, and under it $\langle x_2^2\rangle = 1 + I_1(\frac c2)/I_0(\frac c2)$.
# The reverse KL averages $\log p_W - \log p^* = \frac{1 - 3}{2}x_2^2 - \log Z_1 + \log Z_3$
# over the model's law:
#
# $$ \mathrm{KL}(p_W\,\|\,p^*) = -\big(1 + I_1(\tfrac12)/I_0(\tfrac12)\big) - \tfrac12 -
# \log I_0(\tfrac12) + \tfrac32 + \log I_0(\tfrac32). $$

# %%
answer = -(1 + i1(0.5) / i0(0.5)) - 0.5 - np.log(i0(0.5)) + 1.5 + np.log(i0(1.5))
model, teacher = bmlab.SphericalBM(np.diag([0.0, 1.0])), bmlab.SphericalBM(np.diag([0.0, 3.0]))
print(f"reverse KL {answer:.3f} nats; bmlab.spherical_kl agrees to 1e-12: "
      f"{abs(answer - bmlab.spherical_kl(model, teacher)) < 1e-12}")
print(f"the forward KL is another number: {bmlab.spherical_kl(teacher, model):.3f} nats")
assert bmlab.check("06b.2", answer)

# %% [markdown]
# ## Exercise 3
#
# *The reverse KL of the MAP machine at $\gamma = 200$ from the strong teacher of notebook
# 06b.*
#
# As $\eta \to \infty$ the posterior concentrates on the maximum of $\sum_k\log p_W(x_k) -
# \frac\gamma2\|W\|_F^2 = K\,[L(W) - \frac{\gamma/K}{2}\|W\|_F^2]$: weight decay $\gamma/K =
# 4$ in `bmlab.train`. The maximum is unique (the log-likelihood is concave in $W$, the
# penalty strictly so) and commutes with the data's second moment, so we train the $N$
# eigenvalues of $W$ in its eigenbasis, as notebook 06 does, until the penalised gradient
# vanishes, and take the exact reverse KL with the model first.

# %%
N, K, SEED = 50, 50, 62
u = np.eye(N)[-1]
teacher = bmlab.SphericalBM(3.0 * np.outer(u, u))
X = teacher.sample(K, rng=np.random.default_rng(SEED))  # the notebook's data
basis = np.linalg.eigh(X.T @ X / K)[1]
gradient = bmlab.ExactSphericalGradient(X @ basis)
decay = 200.0 / K
w = bmlab.train({"W": np.zeros(N)}, gradient, n_steps=600, lr=0.03, momentum=0.9,
                weight_decay=decay).params["W"]
residual = np.abs(gradient({"W": w})["W"] - decay * w).max()
print(f"largest |penalised gradient| < 1e-6: {residual < 1e-6}")
print(f"weight decay gamma / K = {decay:g}")
answer = bmlab.spherical_kl(bmlab.SphericalBM((basis * w) @ basis.T), teacher)
print(f"reverse KL of the MAP machine at gamma = 200: {answer:.2f} nats")
assert bmlab.check("06b.3", answer)
