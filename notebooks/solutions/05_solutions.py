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
# # 05 · Restricted Boltzmann machines and contrastive divergence: worked solutions
#
# Worked solutions to the exercises of [notebook 05](../05_contrastive_divergence.ipynb). Try
# each exercise there first; every section below recomputes what it needs, so it runs on its
# own.

# %%
import numpy as np
from scipy.special import expit

import bmlab
from bmlab.data import bars_and_stripes, max_log_likelihood
from bmlab.rbm import RBM, CDGradient, ExactRBMGradient

SEED = 5
V3 = bars_and_stripes(3)


def bits(n):
    """All 2**n states of n {0,1} units, row c = the binary digits of c (unit i = bit i)."""
    return bmlab.codes_to_states(np.arange(2**n), n, binary=True)


def train_cd1(weight_decay=0.0, seed=SEED):
    """CD-1 on 3x3 bars and stripes as in Section 2 of the notebook (9 hidden units, rate 0.3,
    4000 full-batch updates), with the exact mean log-likelihood every 100 updates."""
    run_rng = np.random.default_rng(seed)
    init = RBM.random(9, 9, rng=run_rng, data=V3)
    metrics = {"ll": lambda p: RBM.from_params(p).mean_log_likelihood(V3)}
    return bmlab.train(init.params, CDGradient(V3, 1), n_steps=4000, lr=0.3,
                       weight_decay=weight_decay, metrics=metrics, record_every=100,
                       rng=run_rng)


# %% [markdown]
# ## Exercise 1
#
# *Show that $p(v_i = 1\mid h) = \sigma(a_i + (Wh)_i)$ and check `visible_probs` against
# brute force.*
#
# With $h$ fixed, the energy $E(v,h) = -\sum_i v_i\,(a_i + (Wh)_i) - b^\top h$ is a sum of
# terms with one visible unit each. The Boltzmann factor is then a product over $i$, each unit
# is an independent two-state system in the field $a_i + (Wh)_i$, and
# $p(v_i=1\mid h) = e^{x}/(1+e^{x}) = \sigma(x)$ with $x = a_i + (Wh)_i$. Below: the same 4x3
# machine `small` as in the notebook (the first numbers drawn from the generator of seed 5),
# its joint law by brute force, and the conditional of $v$ given each $h$.

# %%
rng = np.random.default_rng(SEED)
small = RBM(rng.normal(0, 1, (4, 3)), rng.normal(0, 1, 4), rng.normal(0, 1, 3))
V4, H3 = bits(4), bits(3)
E = -(V4 @ small.W @ H3.T) - (V4 @ small.a)[:, None] - (H3 @ small.b)[None, :]
P = np.exp(-E) / np.exp(-E).sum()  # p(v, h), rows v, columns h
cond_v = P / P.sum(axis=0, keepdims=True)  # p(v | h): each column normalised
print("p(v_i=1|h) by brute force = visible_probs for all 8 h (1e-12):",
      np.allclose(cond_v.T @ V4, small.visible_probs(H3), rtol=0, atol=1e-12))
answer = expit(small.a + small.W @ np.array([1.0, 0.0, 1.0]))[0]
assert bmlab.check("05.1", answer)

# %% [markdown]
# ## Exercise 2
#
# *How many Gibbs steps until the expected CD-k update has cosine > 0.9 with the true
# gradient, and what is the relaxation time $-1/\log|\lambda_2|$ of $T$?*
#
# $T$ is a stochastic matrix: one eigenvalue is 1 (its left eigenvector is the model's
# $p(v)$), and every other eigen-direction of the chain's law shrinks by $|\lambda|$ per step.
# The slowest is $|\lambda_2|$: after $k$ steps what is left of the start decays like
# $|\lambda_2|^k$, i.e. with a relaxation time $-1/\log|\lambda_2|$ steps. We rebuild the
# CD-1 model of Section 2 and scan $k$.

# %%
model = RBM.from_params(train_cd1().params)
V9, H9 = bits(9), bits(9)


def conditional(Q, S):
    """p(s | x) for every row x of Q (independent unit probabilities) and every state s in S."""
    return np.prod(np.where(S[None] == 1, Q[:, None], 1 - Q[:, None]), axis=2)


T = conditional(model.hidden_probs(V9), H9) @ conditional(model.visible_probs(H9), V9)
q0 = np.bincount((V3 @ 2 ** np.arange(9)).astype(int), minlength=512) / len(V3)
Q, Ph = model.hidden_probs(V9), model.hidden_probs(V3)
g_exact = np.concatenate([x.ravel() for x in model.exact_gradient(V3).values()])


def cosine_cd(k):
    q = q0 @ np.linalg.matrix_power(T, k)  # the law of the chains after k steps
    g = np.concatenate([(V3.T @ Ph / len(V3) - (V9 * q[:, None]).T @ Q).ravel(),
                        V3.mean(axis=0) - q @ V9, Ph.mean(axis=0) - q @ Q])
    return g @ g_exact / np.linalg.norm(g) / np.linalg.norm(g_exact)


first = next(k for k in range(1, 200) if cosine_cd(k) > 0.9)
moduli = np.sort(np.abs(np.linalg.eigvals(T)))[::-1]
answer = -1 / np.log(moduli[1])
print(f"cosine > 0.9 first at k = {first}")
print(f"largest modulus 1 (to 1e-9): {abs(moduli[0] - 1) < 1e-9}; |lambda_2| = {moduli[1]:.4f}, "
      f"relaxation time about {answer:.0f} steps")
assert bmlab.check("05.2", answer)

# %% [markdown]
# The two numbers differ by more than an order of magnitude: the *direction* of the expected
# update settles within about ten steps, but what is left of the start decays only like
# $|\lambda_2|^k$, over hundreds of steps, which is why the notebook's relative error needs
# that long to vanish.

# %% [markdown]
# ## Exercise 3
#
# *CD-1 with a weight decay of $10^{-2}$: does the divergence disappear, and what happens to
# the best log-likelihood? The number to check: the largest singular value of $W$ where the
# exact gradient with the same decay comes to rest.*
#
# A decay of $10^{-2}$ pulls every weight back by one per cent of itself per unit of rate,
# which caps the weights early. The fall disappears (the curve ends at its peak or close to
# it), but so does much of the rise: the machine cannot grow the weights it needs.

# %%
for seed in (SEED, SEED + 1, SEED + 2):
    ll = train_cd1(weight_decay=1e-2, seed=seed).history["ll"]
    print(f"CD-1 with decay, seed {seed}: peak {ll.max():.2f}, final minus peak "
          f"{ll[-1] - ll.max():+.2f} nats")

# %% [markdown]
# The peak itself depends on CD-1's random draws at the second decimal (the three seeds
# above give three values), so it cannot be checked to three decimals. The exact gradient draws
# nothing: with the same start, rate and decay it is a deterministic run. The decay adds
# $-\lambda W$ to the gradient of $W$, so the weights stop where the likelihood's pull
# outwards equals $\lambda W$; the largest singular value of $W$ there is the answer. We
# train until it no longer moves at the first decimal.

# %%
start = RBM.random(9, 9, rng=np.random.default_rng(SEED), data=V3)
metrics = {"ll": lambda p: RBM.from_params(p).mean_log_likelihood(V3),
           "sv": lambda p: np.linalg.svd(p["W"], compute_uv=False)[0]}
exact = bmlab.train(start.params, ExactRBMGradient(V3), n_steps=4000, lr=0.3,
                    weight_decay=1e-2, metrics=metrics, record_every=1000).history
answer = exact["sv"][-1]
print(f"exact gradient with decay: largest singular value {np.round(exact['sv'], 3)} "
      f"after {exact['step']} updates; final log-likelihood {exact['ll'][-1]:.2f} "
      f"(optimum {max_log_likelihood(V3):.2f})")
assert bmlab.check("05.3", answer)

# %% [markdown]
# The weights are at rest after a few thousand updates, at about half the largest singular
# value of the exact-gradient fit without decay (printed in notebook 05b, Section 5). The
# likelihood is capped with them: even the exact gradient ends far below the optimum, and
# CD-1 with the same decay peaks lower still. The decay cures the divergence by forbidding
# the large weights that bars and stripes need.
