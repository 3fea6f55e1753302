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
# # 03 · The maximum-likelihood gradient: worked solutions
#
# Worked solutions to the exercises of [notebook 03](../03_ml_gradient.ipynb). Try each
# exercise there first; every section below recomputes what it needs, so it runs on its own.

# %%
import numpy as np

import bmlab
from bmlab.visible import VisibleGradient, visible_log_likelihood, visible_newton_fit

rng = np.random.default_rng(2024)


def hessian(params):
    """Minus the model covariance of phi(s) = (s_i s_j (i < j), s_i), as in Section 4."""
    n = len(params["theta"])
    states = bmlab.all_states(n).astype(float)
    pairs = np.triu_indices(n, 1)
    phi = np.concatenate([states[:, pairs[0]] * states[:, pairs[1]], states], axis=1)
    p = bmlab.boltzmann_probs(params["J"], params["theta"])
    X = phi - p @ phi
    return -(X.T @ (X * p[:, None]))


# %% [markdown]
# ## Exercise 1
#
# *The largest stable learning rate $2/|\lambda_\text{min}|$ at the optimum for two spins.*
#
# Near the optimum one ascent step multiplies the deviation $u - u^*$ by $1 + \eta H$. Along
# the eigenvector of $\lambda_\text{min}$ that factor is $1 - \eta|\lambda_\text{min}|$, which
# has modulus below 1 only for $\eta < 2/|\lambda_\text{min}|$. Just below, ascent converges
# (slowly, with the deviation flipping sign at every step); just above, the deviation along
# that direction grows instead of shrinking, and ascent never settles at the optimum.
#
# With two spins the machine has three parameters, $J_{12}, \theta_1, \theta_2$, and the four
# probabilities have three free numbers, so the optimum reproduces the empirical distribution
# exactly: the Hessian is minus the *data* covariance of $(s_1s_2, s_1, s_2)$.

# %%
S2 = np.array([[1, 1]] * 6 + [[-1, -1]] * 2 + [[1, -1], [-1, 1]], dtype=float)
fit2 = visible_newton_fit(S2)
p2 = bmlab.boltzmann_probs(fit2["J"], fit2["theta"])
p_emp = np.bincount(bmlab.state_codes(S2), minlength=4) / len(S2)
print("the fitted model is the empirical distribution (to 1e-8):", np.abs(p2 - p_emp).max() < 1e-8)
answer = 2 / abs(np.linalg.eigvalsh(hessian(fit2)).min())
zero2 = {"J": np.zeros((2, 2)), "theta": np.zeros(2)}
for factor in (0.9, 1.1):
    r = bmlab.train(
        zero2,
        VisibleGradient(S2),
        n_steps=300,
        lr=factor * answer,
        on_diverge="stop",
        max_abs=100.0,
    )
    gap = visible_log_likelihood(fit2, S2) - visible_log_likelihood(r.params, S2)
    print(f"lr = {factor} x 2/|lambda_min|: L_opt - L after 300 steps below 1e-6: {gap < 1e-6}")
assert bmlab.check("03.1", answer)

# %% [markdown]
# ## Exercise 2
#
# *The model's $\langle s_1 s_3\rangle$ at the optimum for three spins.*
#
# At the maximum the gradient Eq. 5.4 vanishes, so every model pair moment equals the data's
# (Eq. 5.6): the answer is an average over the fourteen rows, no fit needed. Only the means
# and pair correlations are matched; the three-spin moment $\langle s_1s_2s_3\rangle$, which
# no parameter controls, generally differs.

# %%
S3 = np.array(
    [[1, 1, 1]] * 4
    + [[-1, -1, -1]] * 2
    + [[1, -1, 1]] * 2
    + [[-1, 1, -1], [1, 1, -1], [-1, -1, 1]]
    + [[1, -1, -1]] * 2
    + [[-1, 1, 1]],
    dtype=float,
)
answer = np.mean(S3[:, 0] * S3[:, 2])
fit3 = visible_newton_fit(S3)
_, C3 = bmlab.exact_moments(fit3["J"], fit3["theta"])
print("the fitted model's <s1 s3> equals the data's (to 1e-8):", abs(C3[0, 2] - answer) < 1e-8)
states3 = bmlab.all_states(3).astype(float)
triple_model = bmlab.boltzmann_probs(fit3["J"], fit3["theta"]) @ states3.prod(axis=1)
print(f"<s1 s2 s3>: data {S3.prod(axis=1).mean():.3f}, model {triple_model:.3f}")
assert bmlab.check("03.2", answer)

# %% [markdown]
# ## Exercise 3
#
# *The mismatch $\langle s_1s_2\rangle_\text{data} - \langle s_1s_2\rangle_\text{model}$ under
# weight decay $w = 0.05$.*
#
# The derivative of $L - \tfrac w2\sum_{i<j}J_{ij}^2$ with respect to $J_{ij}$ is
# $\langle s_is_j\rangle_\text{data} - \langle s_is_j\rangle_\text{model} - wJ_{ij}$, so at the
# optimum $\langle s_is_j\rangle_\text{data} - \langle s_is_j\rangle_\text{model} = wJ_{ij}$:
# the correlations stop short of the data's, by an amount proportional to the coupling. The
# biases are not penalised, so the means still match. Here the data are symmetric under
# $s \to -s$, so $\theta = 0$ and $\langle s_1 s_2\rangle_\text{model} = \tanh J_{12}$.

# %%
S_wd = np.array([[1, 1]] * 3 + [[-1, -1]] * 3 + [[1, -1], [-1, 1]], dtype=float)
w = 0.05
wd = visible_newton_fit(S_wd, weight_decay=w)
m_w, C_w = bmlab.exact_moments(wd["J"], wd["theta"])
C_data = S_wd.T @ S_wd / len(S_wd)
answer = C_data[0, 1] - C_w[0, 1]
print("mismatch = w J12 (to 1e-8):", abs(answer - w * wd["J"][0, 1]) < 1e-8)
print(
    "model <s1 s2> = tanh(J12), biases zero (to 1e-8):",
    abs(C_w[0, 1] - np.tanh(wd["J"][0, 1])) < 1e-8 and np.abs(wd["theta"]).max() < 1e-8,
)
assert bmlab.check("03.3", answer)

# %% [markdown]
# ## Open question
#
# *Exercise 4: how does the coupling error scale with the number of samples $D$?*
#
# Roughly like $1/\sqrt D$: the data moments scatter around the teacher's by that much, and
# near the optimum the couplings follow the moments linearly (through the inverse Hessian).
# The largest error over all couplings is itself noisy; the root-mean-square error shows the
# trend more clearly.
# With few samples, a pair may be aligned in every sample, $\langle s_is_j\rangle_\text{data}
# = 1$; no finite coupling reaches that moment, so the likelihood keeps rising as $J_{ij}$
# grows: the optimum sits at infinity, on the boundary of the moment space.

# %%
G = np.triu(rng.standard_normal((10, 10)), 1)
J_teacher = 2.5 / 10 + 0.5 * (G + G.T) / np.sqrt(10)  # a teacher like notebook 03's
np.fill_diagonal(J_teacher, 0.0)
theta_teacher = 0.1 * rng.standard_normal(10)
errors = {}
for D in (1000, 10_000):
    S_D = bmlab.sample_exact(J_teacher, theta_teacher, n_samples=D, rng=rng)
    error = (visible_newton_fit(S_D)["J"] - J_teacher)[np.triu_indices(10, 1)]
    errors[D] = np.sqrt(np.mean(error**2))
    print(f"D = {D:>6}: largest coupling error {np.abs(error).max():.2f}, rms {errors[D]:.3f}")
print(f"ratio of the rms errors {errors[1000] / errors[10_000]:.1f}; sqrt(10) = {np.sqrt(10):.1f}")
