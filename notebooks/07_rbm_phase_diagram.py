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
# # 07 · The RBM's phase diagram: paramagnet, ferromagnet, spin glass, compositional states
#
# Notebook 05b watched the singular values of $W$ grow during training. Here we ask what a
# machine with such a $W$ *does*: at which temperature its law stops being a featureless
# cloud and starts to sit in a few states, what those states look like, and where a trained
# machine lands. We follow the thermodynamic picture of Decelle, Fissore and Furtlehner
# (2018, abstract in `../shared/lecture/`): draw $W$ from an ensemble built on its singular
# value decomposition, derive the phase diagram by mean field, and then let exact
# computation on machines we can enumerate decide what holds at sizes a laptop reaches.
#
# **What this notebook teaches**
# - the ensemble: a few strong modes on top of a random bulk, and the law of the bulk's
#   singular values (Section 1);
# - the phase diagram by mean field: the paramagnet's linear stability, the replica-symmetric
#   equations and their three phases, and why naive mean field misplaces the spin-glass line
#   (Section 2);
# - the ferromagnetic transition exactly, with its finite-size shift (Section 3);
# - the spin-glass transition seen through the overlap of two replicas (Section 4);
# - when the ordered states mix several modes (the *compositional* phase): for independent
#   components of the singular vectors, their kurtosis decides (Section 5);
# - how learning walks a machine from the paramagnet into the ferromagnetic phase (Section 6).
#
# **What it assumes**
# - the RBM and its exact enumeration (notebooks 04, 05), the linear regime of learning and
#   the singular values of $W$ (notebook 05b), parallel tempering (notebook 01, Section 7c);
# - the idea of a phase transition (notebook 06, Section 2); numpy, `np.linalg.svd`.

# %% [markdown]
# > **Notation.** Units are $\pm1$ spins on both layers: visible $s \in \{-1,1\}^{N_v}$,
# > hidden $\tau \in \{-1,1\}^{N_h}$, energy $E(s,\tau) = -s^\top W\tau$ (no biases unless
# > said), $p \propto e^{-\beta E}$, temperature $T = 1/\beta$. bmlab's RBM uses $\{0,1\}$
# > units $v, h$; with $s = 2v-1$, $\tau = 2h-1$ the two are the same machine when
# > $W_{01} = 4W$, $a_{01} = -2W\mathbf 1$, $b_{01} = -2W^\top\mathbf 1$ (so going to $\pm1$
# > units divides $W$ by 4 and shifts the biases). The ensemble: $W = \sum_{\alpha\le K}
# > w_\alpha u_\alpha v_\alpha^\top / N + r$ with $N = \sqrt{N_vN_h}$, mode strengths
# > $w_\alpha$, vectors with $|u_\alpha|^2 = N_v$, $|v_\alpha|^2 = N_h$ whose components are
# > drawn i.i.d. with mean 0 and variance 1, and noise $r_{ij}$ i.i.d. $\mathcal N(0,
# > \sigma^2/N)$. Mode magnetisations $m_\alpha = u_\alpha\cdot s/N_v$. The overlap of two
# > independent copies (replicas) $s, s'$ is $q = s\cdot s'/N_v$; $\langle\cdot\rangle$ is
# > the average over $p$, $[\cdot]$ the average over draws of $W$. The kurtosis of a law
# > with variance 1 is $\kappa = \mathbb E[x^4]$ (3 for a Gaussian).

# %%
# On Colab or a fresh kernel without bmlab, install it first (does nothing where it is installed).
import importlib.util

BMLAB_REPO = "git+https://github.com/OWNER/bmlab"  # placeholder: the project's public repository
if importlib.util.find_spec("bmlab") is None:
    from IPython import get_ipython
    get_ipython().run_line_magic("pip", f"install -q {BMLAB_REPO}")

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap, ListedColormap
from scipy.optimize import brentq
from scipy.special import gammaln
from threadpoolctl import threadpool_limits

import bmlab
from bmlab.phases import mean_field, mode_law, rbm_ensemble, rbm_tempering, replica_symmetric
from bmlab.plotting import EXTRA
from bmlab.rbm import RBM, ExactRBMGradient, PCDGradient
from bmlab.widgets.phases import phase_panel

bmlab.use_style()
threadpool_limits(1, user_api="blas")  # small matrices: one BLAS thread is faster on busy cores
SEED = 7
rng = np.random.default_rng(SEED)
NAIVE, TAP, POPULATION = EXTRA[0], EXTRA[2], EXTRA[1]  # one colour per method, all figures


# %% [markdown]
# ## 1 · The ensemble
#
# Draw $W$ with three modes of strengths $w = 3, 2, 1.5$ on top of noise of strength
# $\sigma = 1$. The noise alone, an $N_v \times N_h$ matrix of i.i.d. entries, has singular
# values that fill a *bulk* whose shape is the Marchenko–Pastur law: with $c = N_v/N_h \le
# 1$, the squares $\lambda = s^2$ of the singular values of $r$ have density
#
# $$ \rho(\lambda) = \frac{\sqrt{(\lambda_+ - \lambda)(\lambda - \lambda_-)}}{2\pi\sigma^2
# \sqrt c\,\lambda}, \qquad \lambda_\pm = \sigma^2\big(c^{-1/4} \pm c^{1/4}\big)^2 , $$
#
# so the bulk ends at $s_+ = \sigma(c^{-1/4} + c^{1/4})$, which is $2\sigma$ for a square
# machine. A mode leaves the bulk only when it is strong enough: for the square machine its
# singular value moves from $w$ to $w + \sigma^2/w$ when $w > \sigma$ and merges with the bulk
# below (the spiked-matrix transition of Baik, Ben Arous and Péché). Reference: the law
# drawn from its formula, checked to be a normalised density, against the singular values of
# noise-only draws (their distribution functions compared).

# %%
def marchenko_pastur(s, c, sigma=1.0):
    """Density of the singular values s of the noise r (N_v / N_h = c <= 1)."""
    lo, hi = (sigma * (c**-0.25 - c**0.25)) ** 2, (sigma * (c**-0.25 + c**0.25)) ** 2
    lam = s**2
    inside = (lam > lo) & (lam < hi)
    rho = np.zeros_like(s)
    rho[inside] = np.sqrt((hi - lam[inside]) * (lam[inside] - lo)) / (
        2 * np.pi * sigma**2 * np.sqrt(c) * lam[inside])
    return 2 * s * rho  # d(lambda) = 2 s ds


STRENGTHS = [3.0, 2.0, 1.5]
spectra = {}
for nv, nh in ((500, 500), (250, 1000)):
    W, U, V = rbm_ensemble(nv, nh, STRENGTHS, sigma=1.0, rng=rng)
    noise_only = [rbm_ensemble(nv, nh, sigma=1.0, rng=rng)[0] for _ in range(1000 // nv)]
    bulk = np.concatenate([np.linalg.svd(r, compute_uv=False) for r in noise_only])
    spectra[nv, nh] = np.linalg.svd(W, compute_uv=False), bulk
    c = nv / nh
    s = np.linspace(0, 3, 3001)
    mass = np.sum(marchenko_pastur(s, c)) * (s[1] - s[0])
    edge = c**-0.25 + c**0.25
    print(f"N_v = {nv}, N_h = {nh}: bulk edge {edge:.3f}, largest noise singular value "
          f"{bulk.max():.3f}; top singular values of W {np.round(spectra[nv, nh][0][:4], 2)}")
    cdf = np.cumsum(marchenko_pastur(s, c)) * (s[1] - s[0])  # the law's distribution function
    ks = np.abs(np.searchsorted(np.sort(bulk), s) / bulk.size - cdf).max()
    print(f"  the density integrates to {mass:.4f}; largest gap between the law's and the "
          f"{bulk.size} noise singular values' distribution functions {ks:.3f}")
print(f"square machine: outliers {np.round(spectra[500, 500][0][:3], 2)}, w + 1/w = "
      f"{np.round(np.array(STRENGTHS) + 1 / np.array(STRENGTHS), 2)}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), layout="constrained")
for ax, (nv, nh) in zip(axes, spectra, strict=True):
    top, bulk = spectra[nv, nh]
    s = np.linspace(0, 3.6, 721)
    ax.hist(bulk, bins=40, density=True, color=bmlab.ORANGE, alpha=0.6,
            label="noise singular values")
    ax.plot(s, marchenko_pastur(s, nv / nh), color=bmlab.GRAY, label="Marchenko–Pastur")
    ax.plot(top[:3], np.full(3, 0.08), "v", color=bmlab.NAVY, ms=9, label="top three of W")
    ax.set(xlabel="singular value", ylabel="density", xlim=(0, 3.6), ylim=(0, None))
    ax.set_title(f"$N_v = {nv}$, $N_h = {nh}$, $\\sigma = 1$", fontsize=10)
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=3)
bmlab.save_figure(fig, "fig07_ensemble")
plt.show()

# %% [markdown]
# **What to look for:** the orange histogram follows the gray curve, a quarter circle for the
# square machine and a hump pushed away from zero for $N_h = 4N_v$; the navy triangles of the
# modes $w = 3$ and $w = 2$ sit well right of the bulk, the $w = 1.5$ one just beyond its edge.
#
# The bulk edge is $2$ for the square machine and $2.121$ for $N_h = 4N_v$, and the largest
# noise singular values (2.010 and 2.118) lie next to it. The outliers of the square machine
# sit near $w + \sigma^2/w$ (3.33, 2.5 and 2.17), not at $w$: the noise pushes a mode out. The
# limit holds up to the scatter of a single draw at $N = 500$; the weakest mode is the farthest
# off here (2.08 instead of 2.17). From here on the ensemble is square, $N_v = N_h$, unless
# said otherwise.

# %% [markdown]
# ## 2 · Mean field and the phase diagram
#
# **The paramagnet and where it stops.** At high temperature every unit is as often $+1$ as
# $-1$. Naive mean field replaces each unit by its mean, $\langle s_i\rangle =
# \tanh(\beta\sum_j W_{ij}\langle\tau_j\rangle)$ and $\langle\tau_j\rangle =
# \tanh(\beta\sum_i W_{ij}\langle s_i\rangle)$, which always has the solution $0$. For small
# means $\tanh x \approx x$, and inserting one equation into the other gives $\langle
# s\rangle = \beta^2 WW^\top\langle s\rangle$: the paramagnet loses its stability when
# $\beta s_{\max} = 1$, with $s_{\max}$ the largest singular value of $W$. For the ensemble
# that is $T = w + \sigma^2/w$ when a mode sticks out of the bulk and $T = 2\sigma$ when none
# does.
#
# **Replica symmetry.** Naive mean field treats the noise $r$ as if it were a pattern; the
# replica method averages over it. Look at one visible unit. The hidden layer acts on it
# through a field with two parts: $w u_i \mu$ from the mode ($\mu = v\cdot\langle\tau\rangle/
# N_h$, the hidden mode magnetisation) and a sum over many small random couplings,
# Gaussian with variance $\sigma^2 q$, where $q$ is the overlap of two replicas. Averaging
# $\tanh$ of that field gives $m$ and averaging $\tanh^2$ gives $q$. For $N_v = N_h$ and $\pm1$
# components the gauge $s_i \to u_i s_i$ removes $u$, and the equations become those of the
# Sherrington–Kirkpatrick model with mean coupling $w$ and spread $\sigma$:
#
# $$ m = \mathbb E_z \tanh\big(\beta(wm + \sigma\sqrt q\,z)\big), \qquad q = \mathbb E_z
# \tanh^2\big(\beta(wm + \sigma\sqrt q\,z)\big), \qquad z \sim \mathcal N(0, 1). $$
#
# Linearising around the paramagnet $m = q = 0$: $m = \beta w\,m$ gives the ferromagnetic
# line $T = w$, and $q = \beta^2\sigma^2 q$ the spin-glass line $T = \sigma$, whichever comes
# first on cooling; they meet at the multicritical point $w = \sigma = T$. Inside the spin
# glass ($q > 0$) the same linearisation gives $m = \beta w(1 - q)\,m$, so the ferromagnet
# returns where $\beta w(1 - q) = 1$; with $x = \beta\sigma$ that line is the curve
# $(\sigma/w, T/w) = \big((1 - q)x, 1 - q\big)$, $q$ the spin-glass overlap at $x$.
# `replica_symmetric(beta, w, sigma)` iterates the two equations; the reference below writes
# the iteration out at one point.

# %%
z = np.linspace(-10, 10, 2001)  # E f(z) by the trapezoid rule
phi = np.exp(-z**2 / 2) / np.exp(-z**2 / 2).sum()
beta, w, sigma = 1 / 0.7, 1.0, 0.5
m_ref, q_ref = 1.0, 1.0
for _ in range(2000):
    t = np.tanh(beta * (w * m_ref + sigma * np.sqrt(q_ref) * z))
    m_ref, q_ref = t @ phi, (t * t) @ phi
m_rs, q_rs = replica_symmetric(beta, w, sigma)
print(f"T = 0.7, sigma = 0.5: m = {m_rs:.4f}, q = {q_rs:.4f}")
print(f"reference agrees with bmlab (1e-8): {abs(m_ref - m_rs) + abs(q_ref - q_rs) < 1e-8}")


def sg_overlap(x):
    """The spin-glass overlap: the root q > 0 of q = E tanh^2(x sqrt(q) z), x = beta sigma > 1."""
    return brentq(lambda q: np.tanh(x * np.sqrt(q) * z) ** 2 @ phi - q, 1e-9, 1.0)


x_line = np.geomspace(1, 30, 60)[1:]
gap = 1 - np.array([sg_overlap(x) for x in x_line])
fsg = np.append(1.0, gap * x_line), np.append(1.0, gap)  # (sigma / w, T / w) along the F-SG line
print(f"ferromagnet-spin glass line from (1, 1) towards sqrt(2/pi) = {np.sqrt(2 / np.pi):.3f} "
      f"at T = 0: at T = {fsg[1][-1]:.3f} it is at sigma = {fsg[0][-1]:.3f}")

# %% [markdown]
# The phase diagram: solve the replica-symmetric equations on a grid of $(\sigma/w, T/w)$
# from the magnetised start $m = q = 1$ and call a point ferromagnetic when $m > 10^{-3}$, a
# spin glass when $m \le 10^{-3} < q$, and paramagnetic otherwise.

# %%
sig_grid = np.linspace(0.05, 1.45, 15)
T_grid = np.linspace(0.25, 1.45, 13)
S_, T_ = np.meshgrid(sig_grid, T_grid)
m_grid, q_grid = replica_symmetric(1 / T_, 1.0, S_, max_iter=400, tol=1e-9)
phase = np.where(m_grid > 1e-3, 1, np.where(q_grid > 1e-3, 2, 0))  # threshold: 0 P, 1 F, 2 SG
fsg_sigma = np.interp(T_, fsg[1][::-1], fsg[0][::-1])
lines = np.where(T_ > np.maximum(1, S_), 0, np.where(S_ < fsg_sigma, 1, 2))
near_lines = np.abs(T_ - np.maximum(1, S_)) < 0.08  # threshold: points next to a line
near = near_lines | ((T_ < 1) & (np.abs(S_ - fsg_sigma) < 0.08))  # threshold: the same
agree = np.sum((phase == lines) & ~near)
print(f"grid points away (0.08) from the lines: {np.sum(~near)}; phase as the lines say: {agree}")

# %%
fig, ax = plt.subplots(figsize=(5.6, 4.2), layout="constrained")
step_s, step_T = sig_grid[1] - sig_grid[0], T_grid[1] - T_grid[0]
ax.imshow(phase, origin="lower", aspect="auto", alpha=0.35,
          cmap=ListedColormap(["white", bmlab.NAVY, bmlab.GRAY]), vmin=0, vmax=2,
          extent=(sig_grid[0] - step_s / 2, sig_grid[-1] + step_s / 2,
                  T_grid[0] - step_T / 2, T_grid[-1] + step_T / 2))
ax.plot([0, 1], [1, 1], color=bmlab.GRAY, lw=2, label="linear stability: T = w, T = σ")
ax.plot([1, 1.5], [1, 1.5], color=bmlab.GRAY, lw=2)
ax.plot(*fsg, color=bmlab.GRAY, lw=2, ls="--", label="βw(1 − q) = 1")
ax.plot([1], [1], "o", color=bmlab.GRAY, ms=8)
for text, x, y in (("paramagnet", 0.45, 1.3), ("ferromagnet", 0.4, 0.5), ("spin glass", 1.2, 0.6)):
    ax.text(x, y, text, ha="center", fontsize="large", gid="on-image")  # labels the shading
ax.set(xlabel="noise σ / w", ylabel="temperature T / w", xlim=(0, 1.5), ylim=(0.19, 1.5))
ax.set_title("replica-symmetric phase diagram ($N_v = N_h$, ±1 components)", fontsize=10)
fig.legend(loc="outside lower center", ncol=2, fontsize="small")
bmlab.save_figure(fig, "fig07_phase_diagram")
plt.show()

# %% [markdown]
# **What to look for:** the shading (the grid solution) fills the regions that the gray
# lines cut out: the ferromagnet below $T = w$ on the left, the spin glass below $T =
# \sigma$ on the right, meeting the paramagnet at the multicritical point (dot). The dashed
# line between the ordered phases leans to the left as $T$ falls, so that at $\sigma/w$ just
# below 1 cooling goes from paramagnet to ferromagnet and then to spin glass. That
# re-entrance is an artefact of the replica-symmetric solution, which is unstable below the
# Almeida–Thouless line (not computed here); in the SK model the solution with broken
# replica symmetry has a vertical boundary there instead.
#
# **Naive mean field against TAP.** Naive mean field puts the spin-glass line at the edge of
# the bulk, $T = 2\sigma$, twice the replica answer. The Thouless–Anderson–Palmer (TAP)
# equations add the Onsager reaction term, the part of a unit's field that is its own
# influence on its neighbours reflected back: inside the $\tanh$ of $s_i$ it subtracts
# $\beta^2\langle s_i\rangle\sum_j W_{ij}^2(1 - \langle\tau_j\rangle^2)$, and likewise for
# $\tau_j$ (`mean_field(..., method="tap")`). Linearised around $0$ with $c_i = \sum_j
# W_{ij}^2 \approx \sigma^2$, it becomes $(1 + \beta^2\sigma^2)\langle s\rangle = \beta
# W\langle \tau\rangle$: the iteration's growth factor is $\beta^2 s_{\max}^2/(1 +
# \beta^2\sigma^2)^2 = 4\beta^2\sigma^2/(1 + \beta^2\sigma^2)^2 \le 1$, with equality exactly
# at $T = \sigma$. Below the computed factors for a drawn $W = r$ ($\sigma = 1$, $N_v = N_h =
# 200$), and the fixed points both methods reach from four random starts.

# %%
W_r, _, _ = rbm_ensemble(200, 200, sigma=1.0, rng=rng)
s_top = np.linalg.svd(W_r, compute_uv=False)[0]
temps = np.linspace(0.4, 2.6, 45)
c_v, c_h = (W_r**2).sum(axis=1), (W_r**2).sum(axis=0)
growth_naive = (s_top / temps) ** 2
growth_tap = np.array([np.linalg.svd(W_r / np.sqrt(np.outer(1 + c_v / T**2, 1 + c_h / T**2)),
                                     compute_uv=False)[0] ** 2 / T**2 for T in temps])
print(f"top singular value {s_top:.3f}: naive growth factor 1 at T = {s_top:.3f}; "
      f"largest TAP growth factor {growth_tap.max():.3f} at T = {temps[growth_tap.argmax()]:.2f}")
starts = rng.uniform(-1, 1, (4, 200))
for T in (1.5, 0.8):
    for method in ("naive", "tap"):
        fp = mean_field(W_r, beta=1 / T, starts=starts, method=method)
        q_fp = np.mean(fp.m_v**2, axis=1)
        print(f"T = {T}, {method:5s}: {len(fp.hits)} fixed point(s), all converged: "
              f"{fp.converged.all()}, largest q = mean <s_i>^2 {q_fp.max():.2f}")

# %%
fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
ax.plot(temps, growth_naive, color=NAIVE, label="naive mean field")
ax.plot(temps, growth_tap, color=TAP, label="TAP")
ax.axhline(1, color=bmlab.GRAY, ls="--", lw=1)
ax.axvline(1, color=bmlab.GRAY, ls=":", lw=1.5, label="T = σ (replica symmetry)")
ax.set(xlabel="temperature T (σ = 1, no mode)", ylabel="growth factor at m = 0",
       yscale="log", ylim=(0.1, 30))
ax.set_title("when does the paramagnet become unstable?", fontsize=10)
ax.legend(loc="upper right", fontsize="small")
plt.show()


# %% [markdown]
# **What to look for:** the green naive curve crosses the dashed line at the bulk edge, near
# $T = 2$; the purple TAP curve rises to just below it (0.939) at the dotted line $T = \sigma$
# and never crosses.
#
# So naive mean field finds magnetised fixed points at $T = 1.5$, where the replica
# solution has none: for a spin glass, naive mean field is wrong by a factor of two in
# temperature. TAP keeps the paramagnet stable down to $T = \sigma$, where it becomes
# marginal, which is the replica line. Below it, at $T = 0.8$, the TAP iteration still
# returns to $0$; that is no longer the right answer, since the expansion behind TAP (Plefka's)
# is valid only while $\beta^4 c_v c_h \le 1$, i.e. for $T \ge \sigma$. The spin glass has
# many TAP solutions that a damped iteration from random starts does not find.

# %% [markdown]
# ## 3 · The ferromagnetic line, exactly
#
# One mode, no noise: $W = w\,uv^\top/N$ with $\pm1$ components, and $w = 1$. Summing out the
# hidden layer, $p(s) \propto \prod_j 2\cosh(\beta\sum_i W_{ij}s_i)$, so every exact observable
# is a sum over the $2^{N_v}$ visible states, whatever $N_h$: `mode_law(W, U, beta=...)`
# returns the law of $m = u\cdot s/N_v$ (a histogram), $\langle|m|\rangle$ and its moments.
# Here $N_h = N_v$. For this machine there is also a closed form, the reference: $\cosh$ is
# even, so the hidden factor is $\cosh(\beta w m)^{N_h}$ (with $N_h = N_v$), and $N_v m$ is
# $N_v - 2k$ for the $\binom{N_v}{k}$ states that disagree with $u$ in $k$ places.

# %%
def law_closed_form(n, T, w=1.0):
    """P(m) of the rank-one +-1 machine with N_v = N_h = n, at m = (n - 2k) / n, k = 0..n."""
    k = np.arange(n + 1)
    log_p = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    log_p = log_p + n * np.log(np.cosh(w * (n - 2 * k) / n / T))
    return (n - 2 * k) / n, np.exp(log_p - np.logaddexp.reduce(log_p))


def binder_closed_form(n, T):
    m, p = law_closed_form(n, T)
    return 1 - (p @ m**4) / (3 * (p @ m**2) ** 2)


W16, U16, _ = rbm_ensemble(16, 16, [1.0], rng=rng)
law16 = mode_law(W16, U16, beta=1 / 0.8, edges=np.linspace(-1 - 1 / 16, 1 + 1 / 16, 18))
m16, p16 = law_closed_form(16, 0.8)
print("reference agrees with bmlab (P(m) and Binder cumulant, 1e-10):",
      np.abs(law16.hist - p16[::-1]).max() < 1e-10
      and abs(law16.binder[0] - binder_closed_form(16, 0.8)) < 1e-10)

# %% [markdown]
# The Binder cumulant $U = 1 - \langle m^4\rangle/(3\langle m^2\rangle^2)$ is $0$ for a
# Gaussian peak at $m = 0$ (paramagnet) and $2/3$ for two sharp peaks at $\pm m$ (ordered),
# whatever the size; in between it depends on $N$, and the curves of different sizes cross
# near the transition. Exact enumeration for $N_v = N_h = 8, 12, 16$ (and the law of $m$ at
# $N_v = 20$):

# %%
T_scan = np.linspace(0.5, 1.5, 21)
sizes = (8, 12, 16)
binders = {}
for n in sizes:
    W_n, U_n, _ = rbm_ensemble(n, n, [1.0], rng=rng)
    binders[n] = np.array([mode_law(W_n, U_n, beta=1 / T).binder[0] for T in T_scan])
W20, U20, _ = rbm_ensemble(20, 20, [1.0], rng=rng)
edges20 = np.linspace(-1.05, 1.05, 22)
laws20 = {T: mode_law(W20, U20, beta=1 / T, edges=edges20) for T in (1.3, 1.0, 0.7)}
print("enumeration agrees with the closed form at every size and T (1e-10):",
      all(np.allclose(binders[n], [binder_closed_form(n, T) for T in T_scan], rtol=0,
                      atol=1e-10)
          for n in sizes)
      and all(np.allclose(law.hist, law_closed_form(20, T)[1][::-1], rtol=0, atol=1e-10)
              for T, law in laws20.items()))
crossings = {}
for n in (8, 16, 50, 100, 1000, 10_000):
    crossings[n] = brentq(lambda T, n=n: binder_closed_form(n, T) - binder_closed_form(2 * n, T),
                          0.5, 1.2)
print("  n    T where U(n) = U(2n)   1 - T     U there")
for n, T in crossings.items():
    print(f"{n:5d}   {T:.4f}               {1 - T:.2e}   {binder_closed_form(n, T):.3f}")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
centres20 = (edges20[1:] + edges20[:-1]) / 2
for (T, law), style in zip(laws20.items(), ("-", "--", ":"), strict=True):
    ax1.plot(centres20, law.hist, color=bmlab.NAVY, ls=style, marker="o", ms=3, label=f"T = {T}")
top = max(law.hist.max() for law in laws20.values())
ax1.set(xlabel="mode magnetisation m", ylabel="P(m)", ylim=(-0.03 * top, 1.45 * top))
ax1.set_title("exact law of m, $N_v = N_h = 20$", fontsize=10)
ax1.legend(loc="upper center", fontsize="small", ncol=3)
for n, style in zip(sizes, ("-", "--", ":"), strict=True):
    ax2.plot(T_scan, binders[n], color=bmlab.NAVY, ls=style, label=f"$N_v$ = {n}")
n_big = 1000
ax2.plot(T_scan, [binder_closed_form(n_big, T) for T in T_scan], color=bmlab.GRAY,
         label=f"closed form, $N_v$ = {n_big}")
ax2.axvline(1, ymax=0.72, color=bmlab.GRAY, ls=":", lw=1.5)  # stops below the legend
ax2.set(xlabel="temperature T / w", ylabel="Binder cumulant U", ylim=(0, 1.0))
ax2.set_title("Binder cumulants cross near T = w", fontsize=10)
ax2.legend(loc="upper right", fontsize="small", ncol=2)
bmlab.save_figure(fig, "fig07_ferromagnetic_line")
plt.show()

# %% [markdown]
# **What to look for:** on the left, one peak at $m = 0$ at $T = 1.3$, a flat top at
# $T = 1$, two peaks at $T = 0.7$; on the right, the navy curves of the three sizes crossing
# a little left of the dotted line $T = w$, and the gray curve of a large machine (closed
# form), steep near it.
#
# The crossings of the exact curves are not at $T = w$ but below it: $1 - T = 0.105$ for
# $n = 8$. This finite-size shift shrinks roughly like $1/N$ ($0.047$ for $n = 16$, $0.0057$
# for $n = 100$, $4.4\times10^{-5}$ for $n = 10\,000$), and the cumulant at the crossing
# tends to the mean-field value 0.27. At the sizes enumeration reaches, a transition "at
# $T = w$" means "near $T = 0.9\,w$, moving to $w$ as $N$ grows".

# %% [markdown]
# ## 4 · The spin-glass line
#
# No mode, only noise: $W = r$ with $\sigma = 1$. Below $T = \sigma$ replica symmetry
# predicts frozen states with no magnetisation along any direction we know of, only an
# overlap $q = s\cdot s'/N_v$ between two independent copies (replicas) of the same machine
# that stays away from zero. Its moments, averaged over draws of $W$, give the spin-glass
# susceptibility $\chi_\text{SG} = N[\langle q^2\rangle]$ and the Binder cumulant $g =
# \tfrac12\big(3 - [\langle q^4\rangle]/[\langle q^2\rangle]^2\big)$, which, like $U$ in
# Section 3, is 0 in the paramagnet for large $N$ and crosses between sizes near the
# transition. Enumeration stops at $N_v \approx 20$, much too small for a spin glass, so we
# sample: two replicas per machine, each a ladder of temperatures updated by block Gibbs
# sampling (all hidden units given the visible ones, then all visible given the hidden) with
# swaps between neighbouring temperatures, `rbm_tempering` (the parallel tempering of notebook
# 01 for the RBM). First the sampler against exact enumeration at $N_v = N_h = 10$, where
# $[\langle q^2\rangle]$ of two independent replicas is $\sum_{ij}\langle s_is_j\rangle^2/N_v^2$
# (from `mode_law` with $U$ the identity times $N_v$, whose second moments are
# $\langle s_is_j\rangle$).

# %%
W10, _, _ = rbm_ensemble(10, 10, sigma=1.0, rng=rng)
betas10 = 1 / np.linspace(1.6, 0.4, 8)
exact_q2 = np.array([np.sum(mode_law(W10, 10 * np.eye(10), beta=b).second ** 2) / 100
                     for b in betas10])
run10 = rbm_tempering(W10, betas=betas10, n_sweeps=2000, n_chains=40, rng=rng)
q2 = run10.overlaps[200:] ** 2  # (sweeps, temperatures, 20 replica pairs)
per_pair = q2.mean(axis=0)
z_scores = (per_pair.mean(axis=1) - exact_q2) / (per_pair.std(axis=1) / np.sqrt(20))
print("T      exact <q^2>   sampled")
for b, e, s in zip(betas10, exact_q2, per_pair.mean(axis=1), strict=True):
    print(f"{1 / b:.2f}   {e:.4f}        {s:.4f}")
print(f"swap rates {run10.swap_rates.min():.2f} to {run10.swap_rates.max():.2f}; largest "
      f"deviation of a sampled <q^2> {np.abs(z_scores).max():.1f} standard errors; every one "
      "within 4:", np.abs(z_scores).max() < 4)

# %% [markdown]
# Now the sizes where a spin glass can show itself, $N_v = N_h = 100, 200, 400$, many draws
# of $W$ each, with a burn-in and a measurement of thousands of sweeps (numbers below). That
# takes tens of minutes, so it was recorded (`benchmarks/record_phases_spin_glass.py`). Two
# checks that the chains reached equilibrium come with the record: the smallest swap rate
# between neighbouring temperatures, and $\chi_\text{SG}$ measured over the first and the
# second half of the measurement.

# %%
sg = bmlab.load_results("phases_spin_glass")
T_sg = np.array(sg["data"]["temperatures"])
rec_sizes = sg["data"]["sizes"]
prm = sg["params"]
print(f"recorded: {prm['samples']} machines per size, {len(T_sg)} temperatures from "
      f"{T_sg[0]} to {T_sg[-1]}, {prm['burn_in']} + {prm['measure']} sweeps")
for n, rec in rec_sizes.items():
    first, second = np.array(rec["q2_first_half"]), np.array(rec["q2_second_half"])
    print(f"N = {n}: smallest swap rate {rec['swap_rates_min']:.2f}; chi_SG of the two halves "
          f"differ by at most {np.abs(first / second - 1).max():.1%}")
print("T      " + "      ".join(f"g (N = {n})" for n in rec_sizes))
for i in range(0, len(T_sg), 4):
    row = "   ".join(f"{rec['binder'][i]:.2f} ± {rec['binder_err'][i]:.3f}"
                     for rec in rec_sizes.values())
    print(f"{T_sg[i]:.2f}   {row}")


# %%
def crossing(y_small, y_large):
    """The temperature where two curves on T_sg cross (linear interpolation), or None."""
    d = np.asarray(y_large) - np.asarray(y_small)
    i = np.flatnonzero(np.sign(d[:-1]) != np.sign(d[1:]))
    if i.size == 0:
        return None
    k = i[0]
    return T_sg[k] - d[k] * (T_sg[1] - T_sg[0]) / (d[k + 1] - d[k])


def scaled_chi(n):
    """chi_SG / N^(1/3) and its standard error."""
    rec, scale = rec_sizes[n], int(n) ** (1 / 3)
    return np.array(rec["chi_sg"]) / scale, np.array(rec["chi_sg_err"]) / scale


def binder_of(n):
    return np.array(rec_sizes[n]["binder"]), np.array(rec_sizes[n]["binder_err"])


for small, large in (("100", "200"), ("200", "400")):
    (y_s, e_s), (y_l, e_l) = scaled_chi(small), scaled_chi(large)
    shifted = sorted(crossing(y_s, y_l + sign * np.hypot(e_s, e_l)) for sign in (1, -1))
    print(f"chi_SG / N^(1/3), N = {small} and {large}: cross at T = {crossing(y_s, y_l):.2f} "
          f"(from {shifted[0]:.2f} to {shifted[1]:.2f} with the difference moved by one "
          "combined standard error either way)")
for small, large in (("100", "200"), ("100", "400")):
    print(f"g, N = {small} and {large}: cross at T = "
          f"{crossing(binder_of(small)[0], binder_of(large)[0]):.2f}")
(g2, e2), (g4, e4) = binder_of("200"), binder_of("400")
z = np.abs(g4 - g2) / np.hypot(e2, e4)
print(f"g, N = 200 and 400: largest difference below sigma {z[T_sg < 1].max():.1f} combined "
      "standard errors")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
for n, marker, style in zip(rec_sizes, "os^", ("-", "--", ":"), strict=True):
    look = dict(color=bmlab.ORANGE, marker=marker, ms=6, ls=style, lw=1.5, capsize=2,
                label=f"N = {n}")  # sizes by line style, as in Section 3
    ax1.errorbar(T_sg, *binder_of(n), **look)
    ax2.errorbar(T_sg, *scaled_chi(n), **look)
for ax in (ax1, ax2):
    ax.axvline(1, color=bmlab.GRAY, ls=":", lw=1.5)
    ax.set_xlabel("temperature T / σ")
ax1.set(ylabel="Binder cumulant g of q")
ax1.set_title("two replicas, parallel tempering (recorded)", fontsize=10)
ax2.set(ylabel=r"$\chi_\mathrm{SG} / N^{1/3}$", yscale="log")
ax2.set_title(r"$\chi_\mathrm{SG} = N[\langle q^2\rangle]$, scaled", fontsize=10)
ax1.legend(loc="upper right", fontsize="small")
bmlab.save_figure(fig, "fig07_spin_glass_line")
plt.show()

# %% [markdown]
# **What to look for:** sizes by line style (solid $N = 100$, dashed 200, dotted 400). On the
# right, the three curves of $\chi_\text{SG}/N^{1/3}$ fan out
# below the dotted line, cross just left of it and lie closer together, in the opposite
# order, above it; on the left, the
# cumulants of all sizes rise together from about $T = 1.1$ on cooling, the $N = 100$ curve
# below the others at low $T$ and above them at high $T$.
#
# At the transition of the SK model $\chi_\text{SG}$ grows like $N^{1/3}$, so the scaled curves of
# different sizes cross there: here at $T = 0.99$ (from 0.94 to 1.03 within one standard error)
# and $0.94$ (from 0.89 to 0.98). Both lie within a few per cent of $T = \sigma$; whether they
# shift with $N$, and which way, these error bars do not resolve. The Binder
# cumulant is weaker evidence at these sizes: $N = 100$ crosses $N = 400$ at $T = 1.00$ and $N =
# 200$ at $T = 1.09$, but $N = 200$ and $N = 400$ cannot be told apart below $T = \sigma$
# (they differ by at most 1.3 combined standard errors). What
# these sizes show is a spin-glass susceptibility that grows with $N$ below $T \approx \sigma$ and
# not above, consistent with the replica line; they place the transition between the crossings,
# from about 0.89 to 1.09, no more finely. Below the transition $g$ rises from $N = 100$ to
# 200 (at $T = 0.7$: 0.58 to 0.72; at $T = 0.9$: 0.28 to 0.38) and is still well under 1 at
# $N = 400$. An overlap that does not settle at one value $\pm q$, so that $g$ stays below 1 as
# $N \to \infty$, is the broken replica symmetry that the replica-symmetric solution of
# Section 2 leaves out; these numbers are consistent with it, but with $N = 200$ and $400$ not
# told apart they do not show it.

# %% [markdown]
# ## 5 · Compositional or not
#
# Now two modes of equal strength $w$, no noise, below the ferromagnetic line. Does an ordered
# state follow one mode ($m_1 \ne 0 = m_2$, a *pure* state) or several at once ($|m_1| =
# |m_2| \ne 0$, a *mixture*: the compositional phase)?
#
# **The kurtosis argument.** Sum out the hidden layer and group the visible states by their
# mode magnetisations $m = (m_1, m_2)$. For large $N$, $\log P(m)/N_v$ is the hidden layer's
# $\frac{N_h}{N_v}\mathbb E_v\log\cosh(\beta w\sqrt{N_v/N_h}\,v\cdot m)$ minus the entropy cost
# $I(m)$ of the visible states with those magnetisations. Both are expansions in
# $\Lambda(\lambda) = \mathbb E\log\cosh(\lambda\cdot x)$ over the components $x$ of a vector
# pair; with $\log\cosh y = y^2/2 - y^4/12 + \dots$ and independent components of variance 1,
#
# $$ \Lambda(\lambda) = \tfrac12|\lambda|^2 - \tfrac1{12}\Big(3|\lambda|^4 + (\kappa - 3)
# \sum_\alpha\lambda_\alpha^4\Big) + \dots , $$
#
# and $I(m)$, its Legendre transform, is $\tfrac12|m|^2 + \tfrac1{12}(3|m|^4 + (\kappa_u -
# 3)\sum_\alpha m_\alpha^4)$. Altogether, with $\rho = N_v/N_h$,
#
# $$ \frac{\log P(m)}{N_v} = \frac{\beta^2w^2 - 1}{2}|m|^2 - \frac{1}{12}\Big[3(1 +
# \rho\beta^4w^4)|m|^4 + \big(\kappa_u - 3 + \rho\beta^4w^4(\kappa_v - 3)\big)\sum_\alpha
# m_\alpha^4\Big] + \dots $$
#
# The quadratic term gives the transition at $T = w$ again. The first quartic term depends
# only on $|m|$; the second decides the direction. At fixed $|m|$, $\sum_\alpha m_\alpha^4$ is
# largest on an axis and smallest on a diagonal, so with the same law on both layers: for
# $\kappa < 3$ (Rademacher, $\kappa = 1$) $P$ is largest on the axes, pure states; for
# $\kappa > 3$ (Laplace, $\kappa = 6$; sparse vectors, $\kappa = 1/0.25 = 4$) on the
# diagonals, mixtures; for Gaussian components, $\kappa = 3$, $\Lambda$ depends on
# $|\lambda|$ only and
# no direction is preferred: the border. For the components actually drawn, the quartic term
# on an axis exceeds the one on a diagonal by $a/4$ per layer, with the *anisotropy*
# $a = \langle x_1^4 - 6x_1^2x_2^2 + x_2^4\rangle$ averaged over the components $x = (u_{1i},
# u_{2i})$ (or $(v_{1j}, v_{2j})$); for a long vector of independent components $a \to 2(\kappa -
# 3)$. One number measures which way the states go: the *composition*
# $c = \langle 4m_1^2m_2^2\rangle/\langle(m_1^2 + m_2^2)^2\rangle = \langle|m|^4\sin^2
# 2\theta\rangle/\langle|m|^4\rangle$ for the angle $\theta$ of $m$, a ratio of averages:
# the average of $\sin^2 2\theta$ weighted by $|m|^4$. It is 0 on the axes, 1 on the
# diagonals and $1/2$ for a law that ignores the angle.
#
# **Exactly, at $N_v = 16$.** The modes are made exactly orthogonal (`orthogonal=True`:
# $\pm1$ vectors from a Hadamard matrix, sparse ones on disjoint supports, Gaussian and
# Laplace ones orthogonalised), so that overlapping modes do not fake a preference; $N_h =
# 64$, $T = 0.6\,w$.

# %%
LAWS = ("rademacher", "gaussian", "laplace", "sparse")
EDGES16 = np.linspace(-1 - 1 / 16, 1 + 1 / 16, 18)  # bins centred on m = k/8
exact16 = {}


def anisotropy(X):
    """<x_1^4 - 6 x_1^2 x_2^2 + x_2^4> over the rows x of X, shape (n, 2)."""
    return np.mean(X[:, 0] ** 4 - 6 * X[:, 0] ** 2 * X[:, 1] ** 2 + X[:, 1] ** 4)


def factorises(law):
    """Whether the exact P(m_1, m_2) is the product of its marginals (to 1e-12)."""
    P = law.hist
    return np.abs(P - np.outer(P.sum(axis=1), P.sum(axis=0))).max() < 1e-12


print("law        anisotropy u's, v's   composition   <|m_1|>   P(m_1, m_2) = P(m_1) P(m_2)")
for law in LAWS:
    W2, U2, V2 = rbm_ensemble(16, 64, [1.0, 1.0], components=law, orthogonal=True,
                              rng=np.random.default_rng(1))  # the machine of the panel, Section 7
    exact16[law] = mode_law(W2, U2, beta=1 / 0.6, edges=EDGES16)
    print(f"{law:10s} {anisotropy(U2):+6.2f}, {anisotropy(V2):+6.2f}        "
          f"{exact16[law].composition:.2f}          {exact16[law].mean_abs[0]:.2f}      "
          f"{factorises(exact16[law])}")

# %%
fig, axes = plt.subplots(1, 4, figsize=(12, 4.0), layout="constrained")
white_navy = LinearSegmentedColormap.from_list("exact", ["white", bmlab.NAVY])
for ax, law in zip(axes, LAWS, strict=True):
    ax.imshow(exact16[law].hist, origin="lower", cmap=white_navy,
              extent=(EDGES16[0], EDGES16[-1]) * 2)
    ax.set(xlabel="$m_2$", xticks=[-1, 0, 1], yticks=[-1, 0, 1])
    ax.set_title(f"{law}: c = {exact16[law].composition:.2f}", fontsize=10)
axes[0].set_ylabel("$m_1$")
fig.suptitle("exact P(m₁, m₂), two orthogonal modes, $N_v = 16$, $N_h = 64$, T = 0.6 w",
             fontsize=11)
bmlab.save_figure(fig, "fig07_compositional_exact")
plt.show()

# %% [markdown]
# **What to look for:** four dark spots on the axes for Rademacher components, four on the
# diagonals for sparse ones; for Gaussian and Laplace components a ring, darkest on an axis
# for the Gaussian draw and towards the diagonals for the Laplace one.
#
# Rademacher components give pure states (anisotropy $-4$, composition 0.02), sparse ones
# mixtures ($+8$, composition 0.96). The sparse case, though, does not test the kurtosis. Its
# two modes sit on disjoint supports in both layers, so $W$ splits into two independent blocks
# and $P(m_1, m_2) = P(m_1)P(m_2)$ (last column: only the sparse law factorises). Each block
# orders on its own, and below $T = w$ both $|m_\alpha|$ are large at once: the mixtures come
# from the vanishing cross-moment $\langle x_1^2x_2^2\rangle$, which makes the anisotropy
# $a = \langle x_1^4\rangle + \langle x_2^4\rangle$ positive whatever $\kappa$ is. Disjoint
# vectors whose components have $\kappa < 3$ mix just as well (next cell). The kurtosis rule
# for independent components is tested by the population solution below, not here. A Gaussian or
# Laplace vector of 16 components is a small sample of its law, and its anisotropy can have
# either sign: this Gaussian draw has $a = -8.27$ on the visible side (and about 1 on the
# hidden side), so its states lean to an axis (composition 0.28), not to the ring the ideal
# law predicts. At this size the drawn components decide, not the name of their law.

# %%
def disjoint_halves(n, rng):
    """Two vectors of n components, +-sqrt(2) on disjoint halves of the units, shape (n, 2)."""
    X = np.zeros((n, 2))
    for col, sites in enumerate(rng.permutation(n).reshape(2, -1)):
        X[sites, col] = rng.choice([-1.0, 1.0], n // 2) * np.sqrt(2)
    return X


halves_rng = np.random.default_rng(1)
U_half, V_half = disjoint_halves(16, halves_rng), disjoint_halves(64, halves_rng)
law_half = mode_law(U_half @ V_half.T / 32, U_half, beta=1 / 0.6, edges=EDGES16)
print(f"+-sqrt(2) on disjoint halves, N_v = 16, N_h = 64, T = 0.6 w: kurtosis "
      f"{np.mean(U_half[:, 0] ** 4):.2f}, anisotropy {anisotropy(U_half):+.2f}, composition "
      f"{law_half.composition:.2f}, P(m_1, m_2) = P(m_1) P(m_2): {factorises(law_half)}")

# %% [markdown]
# Kurtosis 2, below 3, and still mixtures: with disjoint supports the sign of the anisotropy,
# not $\kappa$, decides.
#
# Do these preferences grow or fade with size? The composition at $N_v = 12, 16, 20$
# ($N_h = 4N_v$) above
# the transition ($T = 1.2\,w$) and below it ($T = 0.6\,w$):

# %%
print("law          T/w   " + "   ".join(f"N_v = {n}" for n in (12, 16, 20)))
for law in ("rademacher", "sparse"):
    for T in (1.2, 0.6):
        row = []
        for n in (12, 16, 20):
            W2, U2, _ = rbm_ensemble(n, 4 * n, [1.0, 1.0], components=law, orthogonal=True,
                                     rng=np.random.default_rng(n))
            row.append(f"{mode_law(W2, U2, beta=1 / T).composition:7.3f}")
        print(f"{law:10s}   {T:.1f}   " + "   ".join(row))

# %% [markdown]
# Above the transition the composition moves towards $1/2$ as $N_v$ grows (0.350, 0.373,
# 0.388 for Rademacher; 0.728, 0.691, 0.667 for sparse): there the preference for axes or
# diagonals is a finite-size effect of the entropy, which vanishes for large machines.
# Below it the composition moves away from $1/2$, towards 0 (0.025, 0.017, 0.013) and 1
# (0.959, 0.964, 0.970): the preference of the ordered states grows with size, for the sparse
# machine because its two independent blocks order together.

# %% [markdown]
# **The population solution.** In the thermodynamic limit with $N_v = N_h$ and the same law on
# both layers, the mean-field equations for the two modes reduce to $m = \mathbb E_x[x
# \tanh(\beta w\,x\cdot m)]$ over component pairs $x = (x_1, x_2)$, with the free energy per
# unit $f(m) = w|m|^2/2 - T\,\mathbb E_x\log 2\cosh(\beta w\,x\cdot m)$ (its
# stationary points are the solutions). Replace the average by a *population*: 10 000 pairs
# drawn from the law, each with its 8 images under sign flips and the exchange $x_1
# \leftrightarrow x_2$, so that the axes and the diagonals stay exact symmetry lines of the
# equations. Iterate at $\beta w = 1.3$ from a start on an axis and from one on a diagonal,
# and compare the free energies of the two fixed points:

# %%
pop_rng = np.random.default_rng(SEED)
draws = {
    "rademacher": pop_rng.choice([-1.0, 1.0], (10_000, 2)),
    "gaussian": pop_rng.standard_normal((10_000, 2)),
    "laplace": pop_rng.laplace(0, 1 / np.sqrt(2), (10_000, 2)),
    "sparse": pop_rng.choice([-2.0, 0, 0, 0, 0, 0, 0, 2.0], (10_000, 2)),
}
BW = 1.3  # beta w, with w = 1
print("law          anisotropy a   |m| axis   |m| diagonal   f(diagonal) - f(axis)")
for law, x in draws.items():
    x = np.concatenate([x, x[:, ::-1]])
    x = np.concatenate([x * sign for sign in ([1, 1], [1, -1], [-1, 1], [-1, -1])])
    ends, f = [], []
    for m in (np.array([0.5, 0.0]), np.array([0.35, 0.35])):
        for _ in range(60):
            m = (x * np.tanh(BW * (x @ m))[:, None]).mean(axis=0)
        ends.append(np.hypot(*m))
        f.append(m @ m / 2 - np.mean(np.logaddexp(BW * (x @ m), -BW * (x @ m))) / BW)
    anisotropy = np.mean(x[:, 0] ** 4 - 6 * x[:, 0] ** 2 * x[:, 1] ** 2 + x[:, 1] ** 4)
    print(f"{law:10s}   {anisotropy:+7.3f}        {ends[0]:.3f}      {ends[1]:.3f}          "
          f"{f[1] - f[0]:+.5f}")

# %% [markdown]
# The sign of $f(\text{diagonal}) - f(\text{axis})$ is opposite to that of the population's
# anisotropy $a$ on every row: the axis (pure state) wins for Rademacher components, the
# diagonal (mixture) for Laplace and sparse ones. For Gaussian components both are nearly zero,
# an order of magnitude or more below the others: what is left is the population's sampling
# noise, and at the border pure and mixed states (and all angles between) have the same free
# energy.

# %% [markdown]
# **Beyond enumeration.** At $N_v = N_h = 200$ and $1000$, two orthogonal modes of strength
# $w = 1$ and $\beta w = 1.3$, for Rademacher, Gaussian and Laplace components: two
# independent tempering ladders per machine, and the naive mean-field fixed points of the same
# machine from random starts (`benchmarks/record_phases_compositional.py`, recorded; the
# settings are printed below). The exact law is symmetric under
# $s \to -s$, so a ladder that has mixed puts equal weight on opposite quadrants of the
# $(m_1, m_2)$ plane; the two ladders of a machine should agree.

# %%
comp = bmlab.load_results("phases_compositional")
prm = comp["params"]
print(f"recorded: {prm['betas']} betas, {prm['burn_in']} sweeps discarded, {prm['measure']} "
      f"measured, mean field from {prm['mean_field_starts']} random starts")
edges_c = np.array(comp["data"]["edges"])
machines = {f"{law} {n}": comp["data"]["machines"][f"{law} {n}"]
            for n in (200, 1000) for law in ("rademacher", "gaussian", "laplace")}
print("machine           composition   (ladder 1, 2)   smallest swap   opposite quadrants")
for name, rec in machines.items():
    ladders = rec["ladders"]
    quad = np.array([ladder["quadrants"] for ladder in ladders])  # ++, +-, -+, -- per ladder
    balance = np.abs(quad[:, [0, 1]] - quad[:, [3, 2]]).max()
    print(f"{name:16s}  {rec['composition']:.3f}         ({ladders[0]['composition']:.3f}, "
          f"{ladders[1]['composition']:.3f})     {min(rec['swap_rates']):.2f}            "
          f"differ by at most {balance:.3f}")
spread = max(abs(r["ladders"][0]["composition"] - r["ladders"][1]["composition"])
             for r in machines.values())
print(f"largest difference between the two ladders' compositions: {spread:.3f}")
print("\nnaive mean field: the fixed point of lowest free energy, its angle from the nearest axis")
for name, rec in machines.items():
    mf = rec["mean_field"]
    m, f = np.array(mf["m"]), np.array(mf["free_energy_per_unit"])
    angle = np.degrees(np.arctan2(np.abs(m[:, 1]), np.abs(m[:, 0])))
    folded = np.minimum(angle, 90 - angle)  # 0: on an axis, 45: on a diagonal
    print(f"{name:16s}  {len(f)} distinct points, all converged: {all(mf['converged'])}; "
          f"lowest at {folded[np.argmin(f)]:.0f} degrees; free energies per unit above the "
          f"lowest {np.unique(f - f.min()).round(4)}")

# %%
names = list(machines)
n_cols = len(names) // 2
fig, axes = plt.subplots(2, n_cols, figsize=(3.3 * n_cols, 6.4), layout="constrained")
white_orange = LinearSegmentedColormap.from_list("sampled", ["white", bmlab.ORANGE])
for ax, name in zip(axes.ravel(), names, strict=True):
    rec = machines[name]
    hist = np.mean([ladder["hist"] for ladder in rec["ladders"]], axis=0)
    ax.imshow(hist, origin="lower", cmap=white_orange, extent=(edges_c[0], edges_c[-1]) * 2)
    m = np.array(rec["mean_field"]["m"])
    ax.plot(m[:, 1], m[:, 0], "x", color=NAIVE, ms=7, mew=2)
    ax.set(xticks=[-1, 0, 1], yticks=[-1, 0, 1])
    ax.set_title(f"{name}: c = {rec['composition']:.2f}", fontsize=10)
for ax in axes[:, 0]:
    ax.set_ylabel("$m_1$")
for ax in axes[-1]:
    ax.set_xlabel("$m_2$")
fig.suptitle("tempering samples of (m₁, m₂) (orange) and naive mean-field fixed points (green ×), "
             "βw = 1.3", fontsize=11)
bmlab.save_figure(fig, "fig07_compositional_sampled")
plt.show()

# %% [markdown]
# **What to look for:** four tight spots on the axes for Rademacher components, tighter at
# $N = 1000$; rings for Gaussian components, darker in places that differ from draw to draw;
# spots on the diagonals for Laplace components, clearer at $N = 1000$; and the green crosses
# of mean field on the sampled spots. For Laplace components two of the crosses sit on the
# other diagonal, on fainter spots: a pair of mixtures with a higher mean-field free energy
# than the lowest pair, which the chains visit less often.
#
# What each size shows. Rademacher: pure states, composition 0.024 at $N = 200$ and 0.004 at
# $N = 1000$. Laplace: mixtures, 0.669 and 0.875, the lowest mean-field state at 39–40° from
# an axis (45° is the diagonal; the two modes' drawn components are not identical, so neither
# is the best mixture). Gaussian: no preferred direction, 0.600 at $N = 200$ and 0.392 at
# $N = 1000$, on either side of $1/2$, with the lowest mean-field state at 34° and 12° from
# an axis: no direction that holds from one draw to the next, as at the border.
# The samples are a chain's, not exact draws; their checks are above. The two ladders of a
# machine agree in composition to 0.015, and the weights of opposite quadrants agree to a few
# hundredths at $N = 200$ and for Laplace components at $N = 1000$. For Gaussian (0.073) and
# Rademacher (0.110) components at $N = 1000$, with swap rates down to 0.60 and 0.36, the
# ladders have not yet balanced the states against each other: the position of every state
# they visit is not in doubt, its weight is.

# %% [markdown]
# ## 6 · Learning walks into the phase diagram
#
# Where does training put a machine? A teacher with two orthogonal $\pm1$ modes of strengths
# 1.3 and 1.15 ($N_v = 16$, $N_h = 64$, no noise) produces 2000 exact samples at $T = 1$: its
# visible law is enumerated through bmlab's $\{0,1\}$ RBM with $W_{01} = 4W$ and the shifted
# biases of the notation box. A student, a $\pm1$ RBM without biases and with 8 hidden units,
# starts from $W$ of entries $\mathcal N(0, 0.01^2)$ and climbs the exact log-likelihood with
# `bmlab.train`. Its gradient comes from bmlab's exact $\{0,1\}$ gradient by the chain rule of
# the same change of variables: with $g$ the gradient in $(W_{01}, a_{01}, b_{01})$ at
# $W_{01} = 4W$, $a_{01} = -2W\mathbf 1$, $b_{01} = -2W^\top\mathbf 1$, the gradient in $W$ is
# $4g_W - 2g_a\mathbf 1^\top - 2\mathbf 1 g_b^\top$.
#
# **The linear regime.** While $W$ is small, $\langle s\,\tanh(\beta W^\top s)^\top\rangle
# \approx \beta\langle ss^\top\rangle W$; the data's second moment is $C$, the model's is the
# identity (its units are independent at $W = 0$). The gradient is $\beta$ times the difference of
# the two, so $\Delta W \approx \eta\beta^2(C - 1)W$:
# each eigenvector of $C$ with eigenvalue $\lambda > 1$ grows like $(1 + \eta(\lambda - 1))^t$
# at $\beta = 1$ (the $\pm1$ form of the linear regime of notebook 05b).

# %%
teacher_W, teacher_U, _ = rbm_ensemble(16, 64, [1.3, 1.15], orthogonal=True, rng=rng)
p_teacher = RBM(4 * teacher_W, -2 * teacher_W.sum(axis=1),
                -2 * teacher_W.sum(axis=0)).visible_distribution()
codes = rng.choice(p_teacher.size, size=2000, p=p_teacher)
data = 2.0 * ((codes[:, None] >> np.arange(16)) & 1) - 1  # bmlab's code order, as +-1 spins
C = data.T @ data / len(data)
lam_C, vec_C = np.linalg.eigh(C)
print(f"eigenvalues of C: {np.round(lam_C[::-1][:4], 2)}")


def pm1_gradient(gradient01):
    """The gradient of a +-1 RBM without biases from a gradient of bmlab's {0,1} RBM
    (s = 2v - 1), called as gradient(params, rng) like every gradient of bmlab.train."""

    def gradient(params, rng=None):
        W = params["W"]
        g = gradient01({"W": 4 * W, "a": -2 * W.sum(axis=1), "b": -2 * W.sum(axis=0)}, rng)
        return {"W": 4 * g["W"] - 2 * g["a"][:, None] - 2 * g["b"][None, :]}

    return gradient


gradient = pm1_gradient(ExactRBMGradient((data + 1) / 2))


W_try = rng.normal(0, 0.3, (16, 8))
E = rng.normal(size=W_try.shape)
log_lik = {}
for sign in (1, -1):  # exact mean log-likelihood of the data at W_try +- eps E
    Wpm = W_try + sign * 1e-5 * E
    rbm01 = RBM(4 * Wpm, -2 * Wpm.sum(axis=1), -2 * Wpm.sum(axis=0))
    log_lik[sign] = rbm01.mean_log_likelihood((data + 1) / 2)
slope = (log_lik[1] - log_lik[-1]) / 2e-5
print("finite difference agrees with the +-1 gradient (rel. 1e-6):",
      abs(slope - np.sum(gradient({"W": W_try})["W"] * E)) < 1e-6 * abs(slope))

LR, STEPS = 0.01, 800
W0 = rng.normal(0, 0.01, (16, 8))
snapshots = {}
run = bmlab.train({"W": W0}, gradient, n_steps=STEPS, lr=LR,
                  metrics={"sv": lambda p: np.linalg.svd(p["W"], compute_uv=False)},
                  record_every=10,
                  callback=lambda n, p: snapshots.update({n: p["W"].copy()})
                  if n in (30, 150, 400, 800) else None)
sv = run.history["sv"]
steps = run.history["step"]
cross_at = [int(steps[np.argmax(sv[:, k] > 1)]) for k in range(2)]
print(f"learned singular values after {STEPS} updates: {np.round(sv[-1, :3], 2)}; "
      f"the first two cross T = 1 at updates {cross_at[0]} and {cross_at[1]}")

# %%
linear = np.array([np.linalg.svd(vec_C @ ((1 + LR * (lam_C[:, None] - 1)) ** t * (vec_C.T @ W0)),
                                 compute_uv=False)[:2] for t in steps])
linear[linear > 2.5] = np.nan  # the linear regime explodes; draw it up to 2.5
fig, ax = plt.subplots(figsize=(8.6, 3.6), layout="constrained")
for k, style in enumerate(("-", "--")):
    ax.plot(steps, sv[:, k], color=bmlab.NAVY, ls=style, label=f"learned mode {k + 1}")
    ax.plot(steps, linear[:, k], color=bmlab.GRAY, ls=style, lw=1,
            label=f"linear regime, mode {k + 1}")
ax.plot(steps, sv[:, 2], color=bmlab.NAVY, ls=":", label="learned mode 3")
ax.axhline(1, color=bmlab.GRAY, ls=":", lw=1.5)
ax.set(xlabel="update", ylabel="singular value of W", yscale="log", ylim=(0.02, 3))
ax.set_title("modes grow, cross T = 1 and saturate", fontsize=10)
fig.legend(loc="outside right upper", fontsize="small")
bmlab.save_figure(fig, "fig07_learning")
plt.show()

# %% [markdown]
# **What to look for:** the first navy line follows its gray linear prediction until it nears
# the dotted line $T = 1$, then bends over and saturates; the second mode grows more slowly
# (its eigenvalue of $C$ is smaller), crosses later and saturates too; the third stays small.
#
# The second mode grows faster than its prediction made at $W = 0$: once the first mode has
# condensed, the model's own variance along the second direction falls below 1 (printed
# below for update 150), and the growth rate $\lambda - (\text{model variance})$ is larger.
# The learned strengths (1.72 and
# 1.54) are not the teacher's 1.3 and 1.15, and need not be: the student has 8 hidden units
# where the teacher has 64, so it is a different machine; what learning matches is the law
# of the visible units, below.
#
# **What the machine does at each stage.** At the snapshots, the exact law of the learned
# top mode's magnetisation $m = \hat u_1\cdot s/N_v$ ($\hat u_1$ the top left singular
# vector of $W$ scaled to $|\hat u_1|^2 = N_v$) against the data's projections onto the same
# direction, and the distinct fixed points that naive mean field reaches from 40 random
# starts at $T = 1$:

# %%
edges_m = np.linspace(-1 - 1 / 16, 1 + 1 / 16, 18)
centres_m = (edges_m[1:] + edges_m[:-1]) / 2
fig, axes = plt.subplots(1, 4, figsize=(13.5, 3.2), layout="constrained", sharey=True)
print("update   top singular values   <|m|> model  data   total variation   mean-field points")
for ax, (n, W_s) in zip(axes, snapshots.items(), strict=True):
    U_s, s_s, _ = np.linalg.svd(W_s)
    u_hat = 4 * U_s[:, :1]  # |u|^2 = 16
    law = mode_law(W_s, u_hat, edges=edges_m)
    data_hist = np.histogram(data @ u_hat[:, 0] / 16, bins=edges_m)[0] / len(data)
    fp = mean_field(W_s, beta=1.0, starts=rng.uniform(-1, 1, (40, 16)))
    tv = 0.5 * np.abs(law.hist - data_hist).sum()
    print(f"{n:5d}    {np.round(s_s[:2], 2)}          {law.mean_abs[0]:.3f}   "
          f"{np.abs(data @ u_hat[:, 0] / 16).mean():.3f}    {tv:.3f}             {len(fp.hits)}"
          f" (all converged: {fp.converged.all()})")
    ax.bar(centres_m, data_hist, width=0.1, color=bmlab.GRAY, label="data")
    ax.plot(centres_m, law.hist, "o-", color=bmlab.NAVY, ms=3, label="model (exact)")
    ax.set(xlabel="m along the top mode", xticks=[-1, 0, 1])
    ax.set_title(f"update {n}: $w_1$ = {s_s[0]:.2f}", fontsize=10)
cosines = np.abs(fp.m_v @ U_s[:, :2]) / np.linalg.norm(fp.m_v, axis=1)[:, None]
print(f"update {n}: |cosine| of each mean-field point with the top two singular vectors of W:",
      "; ".join(f"{c[0]:.2f}, {c[1]:.2f}" for c in cosines))
second = 4 * vec_C[:, -2:-1]  # C's second eigenvector, |u|^2 = 16
variance = 16 * mode_law(snapshots[150], second).second[0, 0]
print(f"update 150: the model's variance along C's second eigenvector {variance:.2f} (1 at W = 0, "
      f"the data's {lam_C[-2]:.2f})")
axes[0].set_ylabel("probability")
axes[0].set_ylim(-0.01, None)
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper", fontsize="small")
plt.show()

# %% [markdown]
# **What to look for:** at update 30 the model's law (navy) is a single bump where the data
# (gray) have two peaks; from update 150 on the bump has split and sits on the data's peaks.
#
# Stage by stage: at update 30 the top mode is still weak ($w_1 = 0.27$), the machine is a
# paramagnet, mean field finds one fixed point (the paramagnet), and the model's
# $\langle|m|\rangle = 0.207$ is far from the data's 0.666. By update 150 the top mode has
# crossed $T$: two fixed points ($\pm$ the condensed state), and $\langle|m|\rangle$ matches
# the data's (0.679 against 0.673). The second mode crosses later; by update 800 mean field
# finds four fixed points, one pair along each of the top two singular vectors of $W$
# (|cosine| 0.99 or more with one, 0.11 or less with the other), and the total variation
# between the model's and the data's histograms has fallen from 0.679 to 0.086. This is the
# matching of order parameters that Decelle et al. describe for the nonlinear regime: the
# exact law of each condensed mode's magnetisation is pulled onto its empirical counterpart.

# %% [markdown]
# **PCD where the exact gradient is known.** Beyond $N_v \approx 20$ the model's half of the
# gradient can no longer be enumerated. PCD-1 (`PCDGradient`, notebook 05) estimates it from
# persistent chains, and `pm1_gradient` turns that estimate into one for the $\pm1$ machine,
# as it did the exact gradient. First at $N_v = 16$, changing one thing: the same data, start
# $W_0$, rate and number of updates, with PCD-1 (full batch, one persistent chain per data
# row) in place of the exact gradient. Both students are then judged exactly: the law of their
# top mode's magnetisation and their mean log-likelihood are enumerated.

# %%
pcd = bmlab.train({"W": W0}, pm1_gradient(PCDGradient((data + 1) / 2, n_chains=len(data))),
                  n_steps=STEPS, lr=LR, rng=rng, record_every=10,
                  metrics={"sv": lambda p: np.linalg.svd(p["W"], compute_uv=False)})
sv_pcd = pcd.history["sv"]
print("largest difference between the two runs' top two singular values at any update: "
      f"{np.abs(sv_pcd[:, :2] - sv[:, :2]).max(axis=0).round(2)}")
print("gradient   w_1, w_2       cross T = 1 at   <|m|> model  data   total variation   "
      "mean log-likelihood")
for name, W_end, sv_run in (("exact", run.params["W"], sv), ("PCD-1", pcd.params["W"], sv_pcd)):
    u_hat = 4 * np.linalg.svd(W_end)[0][:, :1]
    law = mode_law(W_end, u_hat, edges=edges_m)
    m_data = data @ u_hat[:, 0] / 16
    tv = 0.5 * np.abs(law.hist - np.histogram(m_data, bins=edges_m)[0] / len(data)).sum()
    machine = RBM(4 * W_end, -2 * W_end.sum(axis=1), -2 * W_end.sum(axis=0))
    at = [int(steps[np.argmax(sv_run[:, k] > 1)]) for k in range(2)]
    print(f"{name:8s}   {np.round(sv_run[-1, :2], 2)}    {at[0]:3d} and {at[1]:3d}      "
          f"{law.mean_abs[0]:.3f}   {np.abs(m_data).mean():.3f}    {tv:.3f}             "
          f"{machine.mean_log_likelihood((data + 1) / 2):.3f}")
teacher01 = RBM(4 * teacher_W, -2 * teacher_W.sum(axis=1), -2 * teacher_W.sum(axis=0))
print(f"the teacher's own mean log-likelihood of the data: "
      f"{teacher01.mean_log_likelihood((data + 1) / 2):.3f}")

# %% [markdown]
# PCD-1 follows the exact gradient closely at this size: the two runs' top singular values
# never differ by more than 0.02, both modes cross $T = 1$ at the same updates (60 and 390),
# and judged exactly the two students are alike: $\langle|m|\rangle$ = 0.668 against 0.670
# (the data's 0.673), total variation to the data's histogram 0.092 against 0.086, and a mean
# log-likelihood of $-6.904$ nats against $-6.903$, both a little below the teacher's own
# $-6.881$. With one persistent chain per data row and small steps, the chains keep up with
# the slowly changing machine. The next comparison keeps PCD-1 and changes the size.

# %% [markdown]
# **Beyond enumeration: $N_v = 400$.** Now change the size, with everything else scaled
# along: the same teacher at $N_v = 400$ ($N_h = 1600$, strengths 1.3 and 1.15, $T = 1$), 2000
# exact draws, and a student with 200 hidden units trained by PCD-1 as above for 800 updates,
# at the rate $0.16/N_v$ from entries of standard deviation $0.04/\sqrt{N_v}$. Both are 0.01
# at $N_v = 16$; scaled so, $W_0$ starts with the same top singular value (both paths on the
# phase diagram below start at $T/w_1 = 15$), and a mode grows by the same
# factor per update wherever the data are equally magnetised along it, since the eigenvalue
# of $C$ along a mode is about $N_v\langle m^2\rangle$. Exact draws need no enumeration here:
# with Hadamard modes the teacher's law depends on a state only through the numbers of units
# that disagree with $u_1$ on the half where $u_2 = u_1$ and on the other half, a table with
# one entry per pair of counts. At each snapshot the model's law of $m$ comes from two
# independent tempering ladders (`rbm_tempering`, 32 values of $\beta$ from 0.3 to 1), with
# their checks beside it: the two ladders' histograms, their shares of $m > 0$ (exactly 1/2
# in the model's law, which is even in $s$) and the smallest swap rate. This takes minutes,
# so it was recorded (`benchmarks/record_phases_learning.py`).

# %%
learning = bmlab.load_results("phases_learning")
prm, rec = learning["params"], learning["data"]
print(f"recorded: N_v = {prm['n_visible']}, teacher N_h = {prm['teacher_hidden']}, student "
      f"N_h = {prm['student_hidden']}, {prm['samples']} data, {prm['updates']} updates of "
      f"{prm['pcd']}; tempering {prm['burn_in']} + {prm['measure']} sweeps, {prm['betas']} betas")
scale = np.sqrt(prm["n_visible"])
print(f"rate {prm['rate']:.4g} = {prm['rate'] * scale**2:.2f} / N_v, initial entries of "
      f"standard deviation {prm['init_std']:.4g} = {prm['init_std'] * scale:.2f} / sqrt(N_v)")
print("the table's law of (m_1, m_2) agrees with enumeration at N_v = 16 (1e-12):",
      rec["teacher_check_16"] < 1e-12)
m_all = bmlab.codes_to_states(np.arange(2**16), 16) @ teacher_U / 16  # (m_1, m_2) of every state
nearer_2 = np.abs(m_all[:, 1]) > np.abs(m_all[:, 0])
print(f"the teacher's weight on states nearer its second mode: {p_teacher[nearer_2].sum():.3f} "
      f"at N_v = 16, {rec['second_mode_share']:.0e} at N_v = {prm['n_visible']}")
print(f"top eigenvalues of C at N_v = {prm['n_visible']}: {np.round(rec['C_top'], 2)}")

# %%
steps400, sv400 = np.array(rec["steps"]), np.array(rec["singular_values"])
linear400 = np.array(rec["linear"])
linear400 = linear400[linear400 < 2.5]  # drawn up to 2.5, as above
for t in (10, 20, 30):
    i = int(np.flatnonzero(steps400 == t)[0])
    print(f"N_v = 400, update {t}: top singular value {sv400[i, 0]:.3f}, linear regime "
          f"{linear400[i]:.3f}")
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained", sharey=True)
for k, style in enumerate(("-", "--")):  # the exact runs wide, so that they show beneath
    ax1.plot(steps, sv[:, k], color=bmlab.NAVY, ls=style, lw=5, label=f"learned mode {k + 1}")
    ax1.plot(steps, sv_pcd[:, k], color=bmlab.ORANGE, ls=style, label=f"PCD-1, mode {k + 1}")
    ax2.plot(steps400, sv400[:, k], color=bmlab.ORANGE, ls=style)
ax2.plot(steps400[: len(linear400)], linear400, color=bmlab.GRAY, lw=1.5, ls=(0, (3, 2)),
         zorder=3, label="linear regime, mode 1")  # dashed on top of the orange line
zoom = ax2.inset_axes([0.4, 0.4, 0.55, 0.3])  # the first updates, where the two separate
early = steps400 <= 40
zoom.plot(steps400[early], sv400[early, 0], color=bmlab.ORANGE)
zoom.plot(steps400[: len(linear400)], linear400, color=bmlab.GRAY, lw=1.5, ls=(0, (3, 2)))
zoom.set(yscale="log", xlim=(0, 40), ylim=(0.05, 3), xticks=[0, 20, 40])
zoom.tick_params(labelsize="small")
zoom.set_xlabel("update (zoom)", fontsize="small")
for ax in (ax1, ax2):
    ax.axhline(1, color=bmlab.GRAY, ls=":", lw=1.5)
    ax.set(xlabel="update", yscale="log", ylim=(0.02, 3))
ax1.set(ylabel="singular value of W")
ax1.set_title("$N_v = 16$: exact gradient and PCD-1", fontsize=10)
ax2.set_title(f"$N_v = {prm['n_visible']}$: PCD-1 (recorded)", fontsize=10)
handles = ax1.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
fig.legend(handles=handles, loc="outside right upper", fontsize="small")
bmlab.save_figure(fig, "fig07_learning_pcd")
plt.show()

# %% [markdown]
# **What to look for:** on the left the orange PCD-1 lines run inside the wide navy lines of
# the exact gradient; on the right, at $N_v = 400$, the top mode follows its dashed gray
# linear prediction at first (the inset zooms on the first 40 updates), crosses $T = 1$
# within the first 50 updates and saturates near 2, while the second singular value stays
# where it started. The linear prediction holds up
# to about update 20 (0.275 recorded against 0.288 predicted) and no further: at update 30 it
# says 0.890, the machine has 0.698.
#
# Changing the size changed the data more than the learning. The teacher's states along its
# weaker mode carry 0.167 of its law at $N_v = 16$ but $2\times10^{-19}$ at $N_v = 400$: their
# free energy per unit is higher, and the difference is multiplied by $N_v$ in the weight. So
# $C$ has one eigenvalue far above 1 (301.49, about $N_v\langle m_1^2\rangle$) and the rest
# near 0.5, below 1, where the linear regime grows nothing; there is one mode to learn, and
# the student learns one.

# %%
edges400 = np.array(rec["edges"])  # symmetric about 0, so the law of |m| is one fold away
centres400 = (edges400[1:] + edges400[:-1]) / 2


def law_of_abs(hist):
    """The histogram of |m| from that of m on edges400 (bins centred on 0, ±0.05, ...)."""
    half = len(hist) // 2
    return hist[half:] + np.append(0.0, hist[:half][::-1])


def total_variation(p, q):
    return 0.5 * np.abs(p - q).sum()


fig, axes = plt.subplots(1, 4, figsize=(13.5, 3.2), layout="constrained", sharey=True)
print("update  w_1   <|m|> ladders  data           m > 0 ladders  smallest swap  "
      "TV of |m|: ladders  to data   mean field")
for ax, t in zip(axes, prm["snapshots"], strict=True):
    snap = rec["snapshots"][str(t)]
    one, two = snap["ladders"]
    h1, h2, data_hist = (np.array(x) for x in (one["hist"], two["hist"], snap["data_hist"]))
    model = (h1 + h2) / 2
    tv_ladders = total_variation(law_of_abs(h1), law_of_abs(h2))
    tv_data = total_variation(law_of_abs(model), law_of_abs(data_hist))
    mf = snap["mean_field"]
    print(f"{t:5d}   {snap['singular_values'][0]:.2f}  {one['mean_abs']:.3f}, "
          f"{two['mean_abs']:.3f}   {snap['data_mean_abs']:.3f} ± {snap['data_mean_abs_err']:.3f}"
          f"  {one['positive_share']:.2f}, {two['positive_share']:.2f}     "
          f"{snap['swap_rate_min']:.2f}           {tv_ladders:.3f}          {tv_data:.3f}     "
          f"{mf['points']} point(s), "
          f"|m| {np.abs(mf['m']).max():.3f}, converged: {mf['converged']}")
    ax.bar(centres400, data_hist, width=0.04, color=bmlab.GRAY, label="data")
    ax.plot(centres400, model, "o-", color=bmlab.ORANGE, ms=3, label="model (tempering samples)")
    ax.set(xlabel="m along the top mode", xticks=[-1, 0, 1])
    ax.set_title(f"update {t}: $w_1$ = {snap['singular_values'][0]:.2f}", fontsize=10)
axes[0].set_ylabel("probability")
axes[0].set_ylim(-0.01, None)
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper", fontsize="small")
plt.show()

# %% [markdown]
# **What to look for:** at update 20 the model's law (orange) is one narrow bump at 0 between
# the data's two sharp peaks; at update 40 it has split into two bumps inside the data's
# peaks; at update 800 it sits on them.
#
# Stage by stage, as at $N_v = 16$ but with one mode. At update 20 ($w_1 = 0.28$) mean field
# finds only the paramagnet and the model's $\langle|m|\rangle = 0.042$ is far from the
# data's 0.859. By update 40 the mode has crossed $T$ ($w_1 = 1.35$): mean field finds the
# pair of condensed states, at $|m| = 0.595$, and the model's $\langle|m|\rangle = 0.593$ is
# on its way. At update 800 the model's $\langle|m|\rangle$ is 0.868 in both ladders, the
# data's $0.868 \pm 0.001$, and the mean-field states sit at $|m| = 0.868$ as well: the
# order parameter matches its empirical value, and the total variation between the laws of
# $|m|$ of model and data has fallen from 1.000 to 0.049 (the data's own histogram of 2000
# draws is not exact either). The number of mean-field fixed points goes from one to two and
# stays there. The model's side is a chain's, so its checks are in the table: the two
# ladders' laws of $|m|$ agree to a total variation of 0.014 at most, each ladder's share of
# $m > 0$ is within 0.05 of the exact 1/2, and every swap rate is 0.45 or more. The shares
# are the slowest part: a ladder changes its number of states with $m > 0$ only through its
# hottest temperatures, so the weights of the two condensed states are known to a few
# hundredths, while the law of $|m|$, which decides the comparison, agrees between the ladders
# to 0.009 at update 800.

# %% [markdown]
# **On the phase diagram.** Read a learned $W$ as a draw from the ensemble: its top singular
# value is the mode strength $w_1$, and the rest, the sum of $s_k^2$ over the singular values
# beyond the learned modes (two at $N_v = 16$, one at $N_v = 400$), is $N\sigma^2$ for noise of
# strength $\sigma$ ($N = \sqrt{N_vN_h}$) and gives the noise. The machine is used at $T = 1$,
# so its point is $(\sigma/w_1, 1/w_1)$. (The diagram of Section 2 is for $N_v = N_h$ and one
# mode; these students have $N_v = 2N_h$, and two modes at $N_v = 16$, so the point is a
# guide, not a prediction.)

# %%
N400 = np.sqrt(prm["n_visible"] * prm["student_hidden"])
noise = {16: np.sqrt((sv[:, 2:] ** 2).sum(axis=1) / np.sqrt(16 * 8)),
         400: np.sqrt((np.array(rec["frobenius_sq"]) - sv400[:, 0] ** 2) / N400)}
paths = {16: (noise[16] / sv[:, 0], 1 / sv[:, 0]), 400: (noise[400] / sv400[:, 0], 1 / sv400[:, 0])}
for n, path in paths.items():
    print(f"N_v = {n}: start sigma / w_1 = {path[0][0]:.2f}, T / w_1 = {path[1][0]:.0f}; "
          f"end sigma / w_1 = {path[0][-1]:.3f}, "
          f"T / w_1 = {path[1][-1]:.3f}")
fig, ax = plt.subplots(figsize=(5.4, 4.6), layout="constrained")
ax.plot([1e-3, 1, 30], [1, 1, 30], color=bmlab.GRAY, lw=2, label="phase boundaries (Section 2)")
ax.plot(*fsg, color=bmlab.GRAY, lw=2, ls="--")
for (n, path), colour, how, mark in zip(paths.items(), (bmlab.NAVY, bmlab.ORANGE),
                                        ("exact gradient", "PCD-1"), "os", strict=True):
    ax.plot(path[0], path[1], "-", marker=mark, color=colour, ms=3,
            label=f"the student at $N_v = {n}$, {how}")
    ax.plot(path[0][0], path[1][0], marker=mark, color=colour, ms=9, mfc="white", mew=2)
ax.text(0.6, 16, "start", ha="right", va="center")
ax.set(xlabel="noise σ / $w_1$", ylabel="temperature T / $w_1$", xscale="log", yscale="log",
       xlim=(0.005, 3), ylim=(0.3, 30))
ax.set_title("training walks into the ferromagnetic phase", fontsize=10)
fig.legend(loc="outside lower center", ncol=1, fontsize="small")
plt.show()

# %% [markdown]
# **What to look for (both axes logarithmic):** each path starts at the open marker, high in
# the paramagnet, falls below the solid line $T = w_1$ and ends far to the left of the dashed
# line, deep in the ferromagnetic phase, where the noise is under two hundredths of the mode.

# %% [markdown]
# ## 7 · Try it: the phase diagram, live
#
# Two orthogonal modes of strength $w = 1$ at $N_v = 16$, $N_h = 64$, plus noise of strength
# $\sigma$ (one fixed draw, scaled). Move $T$ and $\sigma$ and pick the law of the
# components: left, the exact $P(m_1, m_2)$; right, where $(\sigma, T)$ lies on the
# replica-symmetric diagram of Section 2 (orange dot). The status line gives the phase,
# the exact composition and $\langle|m_1|\rangle$. That phase is read off the diagram of
# Section 2, drawn for a square machine with one mode, while the panel's machine is $N_v =
# 16$, $N_h = 64$ with two modes. Of its lines, the linear-stability ones, $T = w$ and $T =
# \sigma$ (the noise scaled with $N = \sqrt{N_vN_h}$), apply to it as well; the dashed
# ferromagnet–spin-glass line is the square machine's, so near it the named phase is a guide.

# %% tags=["nbval-ignore-output"]
panel = phase_panel()
panel

# %% [markdown]
# Things to try: lower $T$ at $\sigma = 0$ for Rademacher components (the central blob spreads
# and splits into four spots on the axes), then switch to sparse ones (the spots move to the
# diagonals); at $T = 0.5$, raise $\sigma$ past 1 into the spin glass: at 16 units the law
# keeps two smeared blobs along one direction picked by the noise, like a ferromagnet along
# a random direction. Telling that apart from a spin glass takes the hundreds of units of
# Section 4.

# %% [markdown]
# ## Exercises
#
# Each exercise ends in a check cell: replace `None` by your answer (a number, to the
# precision asked) and run the cell. `bmlab.check` replies `correct`, or `not yet` with a
# hint; it never shows the answer. The worked solutions are in a notebook of their own,
# [solutions/07_solutions.ipynb](solutions/07_solutions.ipynb):
# open it after you have tried.
#
# **1 · A thin machine.** For noise alone with $\sigma = 1$ and $N_h = 9N_v$, where does the
# bulk of singular values end in the limit of large machines? Check your formula against the
# largest singular value of a drawn $W$ with $N_v = 200$. *Your answer:* the bulk edge, to 3
# decimals.
# [worked solution](solutions/07_solutions.ipynb#cell-id=Exercise-1)

# %%
my_answer = None  # edge of the noise's singular values, sigma = 1, N_h = 9 N_v, to 3 decimals
bmlab.check("07.1", my_answer)

# %% [markdown]
# **2 · A small ferromagnet.** For the rank-one $\pm1$ machine of Section 3 with $N_v = N_h =
# 10$ and $w = 1$, what is the exact $\langle|m|\rangle$ at $T = 0.8$? Section 3 computes
# this law two ways. *Your answer:* $\langle|m|\rangle$, to 3 decimals.
# [worked solution](solutions/07_solutions.ipynb#cell-id=Exercise-2)

# %%
my_answer = None  # exact <|m|>, N_v = N_h = 10, w = 1, T = 0.8, to 3 decimals
bmlab.check("07.2", my_answer)

# %% [markdown]
# **3 · Deep in the spin glass.** By replica symmetry, what is the overlap $q$ of two replicas
# for noise alone ($w = 0$) at $T = \sigma/2$? *Your answer:* $q$, to 3 decimals.
# [worked solution](solutions/07_solutions.ipynb#cell-id=Exercise-3)

# %%
my_answer = None  # replica-symmetric overlap q at w = 0, T = sigma / 2, to 3 decimals
bmlab.check("07.3", my_answer)

# %% [markdown]
# ## Summary
#
# - An RBM's weights drawn as a few modes on a random bulk: the bulk follows the
#   Marchenko–Pastur law, and a mode of strength $w$ leaves it only for $w > \sigma$, pushed
#   out to $w + \sigma^2/w$ in the square machine, $N_v = N_h$ (Section 1).
# - Replica symmetry gives three phases: paramagnet above $T = \max(w, \sigma)$, a
#   ferromagnet below $T = w$ (for $w > \sigma$), a spin glass below $T = \sigma$; naive
#   mean field puts the spin-glass line at the bulk edge $2\sigma$, the TAP correction
#   moves it to $\sigma$ (Section 2).
# - Exact enumeration shows the ferromagnetic transition, shifted to lower $T$ by an amount
#   that shrinks like $1/N$ (Section 3). The spin-glass line shows in the susceptibility of
#   two tempering replicas at a few hundred units, within some per cent (Section 4).
# - Whether ordered states follow one mode or mix several: for independent components of
#   the singular vectors, by their kurtosis, below or above 3 (the population solution); in a
#   small machine, by the anisotropy of the components actually drawn; modes on disjoint
#   supports order independently and mix whatever the kurtosis (Section 5).
# - Training grows the modes out of the paramagnet one by one, as the data covariance
#   predicts until the first mode condenses (the second then grows faster than that
#   prediction); once the modes have crossed $T$, the machine matches the data's order
#   parameters and gains mean-field fixed points. PCD-1 follows the exact gradient where
#   enumeration checks it, and does the same at $N_v = 400$, where the teacher's weaker mode
#   has left the data (Section 6).
#
# ## References
#
# - The lecture, Chapter 5: the RBM (Figure 5.4) and the learning rule (Eq. 5.4).
# - A. Decelle, G. Fissore, C. Furtlehner, "Thermodynamics of restricted Boltzmann machines
#   and related learning dynamics", *Journal of Statistical Physics* (2018), arXiv:1803.01960
#   (abstract in `../shared/lecture/`): the ensemble, the phase diagram, the compositional
#   phase and the learning dynamics.
# - D. Sherrington, S. Kirkpatrick, "Solvable model of a spin-glass", *Physical Review
#   Letters* (1975): the replica-symmetric equations with a mean coupling.
# - D. J. Thouless, P. W. Anderson, R. G. Palmer, "Solution of 'Solvable model of a spin
#   glass'", *Philosophical Magazine* (1977); T. Plefka, "Convergence condition of the TAP
#   equation for the infinite-ranged Ising spin glass model", *Journal of Physics A* (1982).
# - J. R. L. de Almeida, D. J. Thouless, "Stability of the Sherrington–Kirkpatrick solution
#   of a spin glass model", *Journal of Physics A* (1978).
# - V. A. Marchenko, L. A. Pastur (1967): the law of the bulk; J. Baik, G. Ben Arous, S.
#   Péché (2005) and F. Benaych-Georges, R. R. Nadakuditi (2012): modes leaving the bulk.
# - K. Binder, "Finite size scaling analysis of Ising model block distribution functions",
#   *Zeitschrift für Physik B* (1981): the cumulant; H. G. Katzgraber, M. Körner, A. P.
#   Young (2006) for the spin-glass version and finite-size scaling.
