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
# # 04 · Hidden units: worked solutions
#
# Worked solutions to the exercises of [notebook 04](../04_hidden_units.ipynb). Try each
# exercise there first; every section below recomputes what it needs, so it runs on its own.

# %%
import numpy as np

import bmlab
from bmlab.data import parity
from bmlab.hidden import HiddenGradient, HiddenMachine

rng = np.random.default_rng(4)


def train_exactly(m, data, n_steps=500):
    """One run of exact gradient ascent from a random start (rate 0.3, momentum 0.9, as in
    the notebook); returns the trained parameters."""
    start = m.init_params(rng=rng)
    gradient = HiddenGradient(m, data)
    return bmlab.train(start, gradient, n_steps=n_steps, lr=0.3, momentum=0.9).params


# %% [markdown]
# ## Exercise 1
#
# *Can a fully visible machine fit the even-parity pair $\{(+,+), (-,-)\}$, and what is its
# KL at $J_{12} = 2$ without biases?*
#
# Yes. Unlike 3-bit parity, this data set has a second moment: the two spins always agree,
# $\langle s_1 s_2\rangle = +1$. One positive coupling is enough to put the mass on the two
# aligned strings, and training finds it.

# %%
two_bit = HiddenMachine(2, 0)
kl_2bit = two_bit.metrics(parity(2))["kl"]
trained = train_exactly(two_bit, parity(2))
print("2-bit parity, fully visible, trained: KL < 0.01:", kl_2bit(trained) < 0.01)

# At J12 = 2 each aligned string has weight e^2 and each misaligned one e^-2, so
# p(++) = p(--) = 1 / (2 (1 + e^-4)), and KL = log(1/2 / p(++)) = log(1 + e^-4).
answer = kl_2bit({"J": np.array([[0.0, 2.0], [2.0, 0.0]]), "theta": np.zeros(2)})
print(f"KL at J12 = 2: {answer:.3f} nats; closed form agrees (1e-12):",
      abs(answer - np.log1p(np.exp(-4))) < 1e-12)
assert bmlab.check("04.1", answer)

# %% [markdown]
# ## Exercise 2
#
# *What probability does the best general machine with 2 hidden units and no biases at all
# give to the data string $(-,-,-)$ of 3-bit parity?*
#
# Without biases, flipping every unit leaves the energy unchanged, so $p(v) = p(-v)$. Flipping
# all three spins of an even-parity string gives an odd one, which is never in the data. So
# exactly half of the model's mass sits on odd strings, whatever the parameters. The best the
# machine can do with the other half is to share it equally among the four data strings,
# $1/8$ each; then the odd strings get $1/8$ each too, the model is uniform, and the KL is
# $\log 2$: no better than the fully visible machine.

# %%
no_bias = HiddenMachine(3, 2, restricted=False, visible_bias=False, hidden_bias=False)
D3 = parity(3)
odd = np.ones(8, dtype=bool)
odd[bmlab.state_codes(D3)] = False
best = min((train_exactly(no_bias, D3) for _ in range(3)), key=no_bias.metrics(D3)["kl"])
p = no_bias.prob_visible(best)
print("mass on odd strings at a random start is 1/2 (1e-12):",
      abs(no_bias.prob_visible(no_bias.init_params(rng=rng))[odd].sum() - 0.5) < 1e-12)
kl_best = no_bias.metrics(D3)["kl"](best)
print(f"best of 3 starts: KL = {kl_best:.4f} nats (log 2 = {np.log(2):.4f})")
answer = p[0]  # row 0 of bmlab.all_states(3) is (-, -, -)
print(f"p(---) = {answer:.3f}")
assert bmlab.check("04.2", answer)

# %% [markdown]
# ## Exercise 3
#
# *How many hidden units of the midpoint between a trained restricted machine (three hidden
# units) and its copy with $h_1$ sign-flipped are connected to anything?*
#
# Flipping $h_1$ changes the sign of its couplings $W_{i1}$ and of its bias $b_1$, and leaves
# everything else alone. Halfway between $x$ and $-x$ lies 0, so at $t = 1/2$ unit $h_1$ has
# no coupling and no bias left: it is cut off, and the midpoint is a machine with only two
# working hidden units, which fits parity worse (the dip of Section 6). This holds for any
# parameters, trained or not.

# %%
rbm_3 = HiddenMachine(3, 3, restricted=True)
start = train_exactly(rbm_3, D3)
sign = np.array([1, 1, 1, -1, 1, 1])  # units v1 v2 v3 h1 h2 h3: flip h1
flipped = {"J": start["J"] * np.outer(sign, sign), "theta": start["theta"] * sign}
mid = {k: 0.5 * (start[k] + flipped[k]) for k in start}
connected = [bool(np.any(mid["J"][j] != 0) or mid["theta"][j] != 0) for j in (3, 4, 5)]
print("connected at the midpoint (h1, h2, h3):", connected)
answer = sum(connected)
assert bmlab.check("04.3", answer)
