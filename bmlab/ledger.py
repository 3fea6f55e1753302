"""The Z ledger of Section 5.7: the negative phase written out term by term, and its cost.

Four small groups of helpers for notebook 02:

* the ledger itself -- every configuration with E(s), e^{-E} and s_i s_j e^{-E}, column sums,
  Z and <s_i s_j>_model (Eq. 5.3, 5.5), rendered as an HTML table;
* frustration diagnostics -- sign of the coupling product around a loop, whether any state
  satisfies every bond, degeneracy of the ground level;
* the "strengthen, re-enumerate, repeat" loop on one coupling (Eq. 5.4), run by the project's
  one training loop :func:`bmlab.learning.train` with an exact-enumeration estimator;
* the cost of enumeration -- the 2^N scaling table with computed comparisons, a naive
  full-matrix log Z, timers, an exponential fit and extrapolation in human units.

Spins are ±1 throughout. The ledger lists states in the lecture's order (``+ + +`` first,
spin 1 varying slowest), which is *not* the :func:`bmlab.all_states` order.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ._checks import (
    check_couplings,
    check_finite,
    check_n_states,
    check_positive_int,
    check_rng,
    check_theta,
)
from .exact import N_MAX_LOGZ, _energy, codes_to_states, exact_moments, log_partition
from .learning import train

#: The lecture's 3-spin machine of Section 5.7 (and Figure 5.3): J12 = J23 = 0.5, J13 = -0.5.
LECTURE_J = np.array([[0.0, 0.5, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.5, 0.0]])
#: The data correlation <s1 s2>_data of the lecture's gradient example.
LECTURE_DATA_MOMENT = 0.50

SECONDS_PER_YEAR = 365.25 * 24 * 3600
#: Age of the universe, 13.8 billion years (Planck 2018), in seconds (about 4.4e17).
AGE_OF_UNIVERSE_S = 13.8e9 * SECONDS_PER_YEAR
#: Order of magnitude of the number of atoms in the observable universe.
ATOMS_IN_UNIVERSE = 1e80

#: Largest N for which a ledger (one row per state, meant to be read) is built.
N_MAX_LEDGER = 10
#: Largest N for :func:`naive_log_partition` (all 2**N states and energies held at once).
N_MAX_NAIVE = 20
_EXP_LIMIT = 700.0  # e^{700} ~ 1e304: beyond this a literal e^{-E} column overflows


# --------------------------------------------------------------------------- the ledger


def triangle_couplings(J12, J23, J13) -> np.ndarray:
    """Coupling matrix of a 3-spin triangle.

    Parameters
    ----------
    J12, J23, J13 : float

    Returns
    -------
    J : ndarray, shape (3, 3)
        Symmetric with zero diagonal.
    """
    vals = check_finite([J12, J23, J13], "J12, J23, J13")
    if vals.shape != (3,):
        raise ValueError("J12, J23, J13 must be three scalars")
    J = np.zeros((3, 3))
    J[0, 1] = J[1, 0] = vals[0]
    J[1, 2] = J[2, 1] = vals[1]
    J[0, 2] = J[2, 0] = vals[2]
    return J


def ledger_states(n: int) -> np.ndarray:
    """All 2**n ±1 states in the lecture's ledger order.

    Parameters
    ----------
    n : int, 1 <= n <= 10

    Returns
    -------
    S : ndarray of float64, shape (2**n, n)
        Row 0 is all +1; spin 1 (column 0) varies slowest, + before -.
    """
    n = check_n_states(n, N_MAX_LEDGER, why=" (a ledger is a table meant to be read)")
    return codes_to_states(np.arange(2**n)[::-1], n)[:, ::-1]


def _check_pair(pair, n: int) -> tuple[int, int]:
    try:
        i, j = (int(k) for k in pair)
    except (TypeError, ValueError):
        raise TypeError(f"pair must be two spin indices (i, j), got {pair!r}") from None
    if not (0 <= i < n and 0 <= j < n) or i == j:
        raise ValueError(f"pair must be two different indices in 0..{n - 1}, got {pair!r}")
    return i, j


@dataclass(frozen=True)
class Ledger:
    """The ledger of Eq. 5.5: one row per configuration.

    Attributes
    ----------
    states : ndarray, shape (2**N, N)
        ±1 states in ledger order (see :func:`ledger_states`).
    E : ndarray, shape (2**N,)
        Energies, Eq. 5.1.
    weights : ndarray, shape (2**N,)
        Boltzmann factors e^{-E}.
    pair_weights : ndarray, shape (2**N,)
        s_i s_j e^{-E} for the chosen ``pair``.
    pair : tuple of int
        The (0-based) pair (i, j).
    """

    states: np.ndarray
    E: np.ndarray
    weights: np.ndarray
    pair_weights: np.ndarray
    pair: tuple

    @property
    def Z(self) -> float:
        """Partition function, the sum of the e^{-E} column."""
        return float(self.weights.sum())

    @property
    def pair_sum(self) -> float:
        """Sum of the s_i s_j e^{-E} column."""
        return float(self.pair_weights.sum())

    @property
    def moment(self) -> float:
        """<s_i s_j>_model = pair_sum / Z (Eq. 5.5)."""
        return self.pair_sum / self.Z

    @property
    def probs(self) -> np.ndarray:
        """Boltzmann probabilities e^{-E}/Z, shape (2**N,), ledger order."""
        return self.weights / self.Z

    def to_html(self, digits: int = 3) -> str:
        """The table as an HTML string (see :func:`ledger_html`)."""
        return ledger_html(self, digits=digits)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        n = self.states.shape[1]
        return (
            f"Ledger(N={n}, {len(self.E)} rows, Z={self.Z:.4g}, "
            f"<s{self.pair[0] + 1}s{self.pair[1] + 1}>={self.moment:.4g})"
        )


def ledger(J, theta=None, *, pair=(0, 1)) -> Ledger:
    """Build the Z ledger of a small fully visible machine (beta = 1).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 10
    theta : array_like, shape (N,), optional
    pair : tuple of two ints
        0-based indices (i, j) of the correlation <s_i s_j> to tabulate; default (0, 1),
        the lecture's <s1 s2>.

    Returns
    -------
    Ledger

    Raises
    ------
    ValueError
        If some |E(s)| exceeds 700, where a literal e^{-E} column would overflow.
    """
    J = check_couplings(J, n_max=N_MAX_LEDGER, why=" (a ledger is a table meant to be read)")
    n = J.shape[0]
    theta = check_theta(theta, n)
    if n < 2:
        raise ValueError("J must describe at least 2 spins for a pair correlation")
    i, j = _check_pair(pair, n)
    S = ledger_states(n)
    E = _energy(S, J, theta)
    if np.abs(E).max() > _EXP_LIMIT:
        raise ValueError(
            "J and theta are too large for a literal ledger: some |E| exceeds "
            f"{_EXP_LIMIT:.0f}, so e^(-E) would overflow; use bmlab.log_partition"
        )
    w = np.exp(-E)
    return Ledger(states=S, E=E, weights=w, pair_weights=S[:, i] * S[:, j] * w, pair=(i, j))


def _fmt(x: float, digits: int) -> str:
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:.{digits}f}"
    return f"{x:.{digits}e}"


def ledger_html(led: Ledger, digits: int = 3) -> str:
    """Render a :class:`Ledger` as a small self-contained HTML table with column sums.

    Parameters
    ----------
    led : Ledger
    digits : int
        Decimals shown.

    Returns
    -------
    str
        ``<table>`` markup; ground-level rows are shaded, negative entries are orange.
    """
    if not isinstance(led, Ledger):
        raise TypeError(f"led must be a Ledger (bmlab.ledger.ledger), got {type(led).__name__}")
    i, j = led.pair
    n = led.states.shape[1]
    spins = " ".join(f"s<sub>{k + 1}</sub>" for k in range(n))
    pw = f"s<sub>{i + 1}</sub>s<sub>{j + 1}</sub>&thinsp;e<sup>&minus;E</sup>"
    cell = 'style="padding:1px 10px;text-align:right;font-family:monospace"'
    head = (
        f'<tr style="border-bottom:1px solid #999"><th {cell}>{spins}</th><th {cell}>E(s)</th>'
        f"<th {cell}>e<sup>&minus;E</sup></th><th {cell}>{pw}</th></tr>"
    )
    ground = led.E <= led.E.min() + 1e-9 * max(1.0, float(np.abs(led.E).max()))
    rows = []
    for s, e, w, v, g in zip(led.states, led.E, led.weights, led.pair_weights, ground,
                             strict=True):
        label = " ".join("+" if x > 0 else "&minus;" for x in s)
        bg = ' style="background:#e8edf6"' if g else ""
        color = "color:#e8862a;" if v < 0 else ""
        rows.append(
            f"<tr{bg}><td {cell}>{label}</td><td {cell}>{_fmt(e, digits)}</td>"
            f"<td {cell}>{_fmt(w, digits)}</td>"
            f'<td style="padding:1px 10px;text-align:right;font-family:monospace;{color}">'
            f"{'+' if v >= 0 else ''}{_fmt(v, digits)}</td></tr>"
        )
    foot = (
        f'<tr style="border-top:1px solid #999;font-weight:bold"><td {cell}>sum</td>'
        f"<td {cell}></td><td {cell}>Z = {_fmt(led.Z, digits)}</td>"
        f"<td {cell}>{_fmt(led.pair_sum, digits)}</td></tr>"
    )
    caption = (
        f'<caption style="caption-side:bottom;text-align:left">'
        f"&lang;s<sub>{i + 1}</sub>s<sub>{j + 1}</sub>&rang;<sub>model</sub> = "
        f"{_fmt(led.pair_sum, digits)} / {_fmt(led.Z, digits)} = {led.moment:.{digits}f}; "
        f"shaded rows: ground level</caption>"
    )
    return (
        f'<table style="border-collapse:collapse">{caption}{head}{"".join(rows)}{foot}</table>'
    )


# --------------------------------------------------------------------------- frustration


@dataclass(frozen=True)
class Frustration:
    """Frustration diagnostics of a small machine (see :func:`frustration`).

    Attributes
    ----------
    loop_product : float
        Product of the couplings around the loop.
    frustrated : bool
        True iff ``loop_product < 0`` (no assignment can satisfy every bond on the loop).
    n_satisfying : int
        Number of states with s_i s_j J_ij >= 0 for every bond (zero bonds count as satisfied).
    ideal_energy : float
        -sum_{i<j} |J_ij| - sum_i |theta_i|: the energy if every bond and field were satisfied.
    ground_energy : float
        The true minimum of E(s).
    degeneracy : int
        Number of states at the ground energy (to a relative tolerance of 1e-9).
    """

    loop_product: float
    frustrated: bool
    n_satisfying: int
    ideal_energy: float
    ground_energy: float
    degeneracy: int


def loop_product(J, loop=None) -> float:
    """Product of the couplings around a closed loop of spins.

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal
    loop : sequence of int, optional
        Distinct spin indices visited in order and closed back to the first; default
        ``range(N)`` (the triangle for N = 3).

    Returns
    -------
    float
        J[l0, l1] * J[l1, l2] * ... * J[l_{k-1}, l0]. Negative means frustrated.
    """
    J = check_couplings(J)
    n = J.shape[0]
    loop = list(range(n)) if loop is None else [int(k) for k in loop]
    if len(loop) < 3 or len(set(loop)) != len(loop) or not all(0 <= k < n for k in loop):
        raise ValueError(f"loop must list >= 3 distinct spin indices in 0..{n - 1}, got {loop}")
    idx = np.asarray(loop)
    return float(np.prod(J[idx, np.roll(idx, -1)]))


def frustration(J, theta=None, loop=None) -> Frustration:
    """Frustration diagnostics by exact enumeration (N <= 10).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, 3 <= N <= 10
    theta : array_like, shape (N,), optional
    loop : sequence of int, optional
        Loop for the sign product (default all spins in order).

    Returns
    -------
    Frustration
    """
    J = check_couplings(J, n_max=N_MAX_LEDGER, why=" (diagnostics enumerate all states)")
    n = J.shape[0]
    theta = check_theta(theta, n)
    prod = loop_product(J, loop)
    S = ledger_states(n)
    E = _energy(S, J, theta)
    iu = np.triu_indices(n, 1)
    bonds = (S[:, iu[0]] * S[:, iu[1]]) * J[iu]  # (2**N, n_bonds): >= 0 when satisfied
    n_sat = int(np.count_nonzero(np.all(bonds >= 0, axis=1)))
    emin = float(E.min())
    tol = 1e-9 * max(1.0, float(np.abs(E).max()))
    return Frustration(
        loop_product=prod,
        frustrated=bool(prod < 0),
        n_satisfying=n_sat,
        ideal_energy=float(-np.abs(J[iu]).sum() - np.abs(theta).sum()),
        ground_energy=emin,
        degeneracy=int(np.count_nonzero(E <= emin + tol)),
    )


# --------------------------------------------------------------------------- gradient, loop


def pair_gradient(J, theta=None, *, data_moment, pair=(0, 1)) -> float:
    """dL/dJ_ij = <s_i s_j>_data - <s_i s_j>_model (Eq. 5.4), the model term exact.

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 24
    theta : array_like, shape (N,), optional
    data_moment : float in [-1, 1]
    pair : tuple of two ints

    Returns
    -------
    float
    """
    J = check_couplings(J)
    i, j = _check_pair(pair, J.shape[0])
    data_moment = _check_moment(data_moment)
    _, C = exact_moments(J, theta)
    return data_moment - float(C[i, j])


def _check_moment(value, name: str = "data_moment") -> float:
    value = float(check_finite(value, name))
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [-1, 1] (a ±1 correlation), got {value}")
    return value


@dataclass(frozen=True)
class CouplingFit:
    """Result of :func:`fit_coupling`.

    Attributes
    ----------
    steps : ndarray of int, shape (T,)
        Update counts at which the trajectory was recorded (0 = start).
    coupling : ndarray, shape (T,)
        J_ij along the way.
    moment : ndarray, shape (T,)
        Exact <s_i s_j>_model along the way.
    gradient : ndarray, shape (T,)
        data_moment - moment.
    J : ndarray, shape (N, N)
        Final couplings.
    converged : bool
        True when |gradient| fell below ``tol``.
    """

    steps: np.ndarray
    coupling: np.ndarray
    moment: np.ndarray
    gradient: np.ndarray
    J: np.ndarray
    converged: bool

    @property
    def final_coupling(self) -> float:
        return float(self.coupling[-1])


def fit_coupling(
    J,
    theta=None,
    *,
    data_moment,
    pair=(0, 1),
    lr: float = 1.0,
    n_steps: int = 200,
    tol: float = 1e-6,
) -> CouplingFit:
    """Strengthen, re-enumerate, repeat: ascend the likelihood in one coupling only.

    Only J_ij = J_ji moves; every other parameter stays fixed. Each step re-enumerates all
    2**N states to get the exact <s_i s_j>_model and applies
    Delta J_ij = lr * (<s_i s_j>_data - <s_i s_j>_model) (Eq. 5.4), through the project's one
    training loop :func:`bmlab.learning.train`. Since the likelihood is concave and its
    curvature in J_ij is -Var(s_i s_j) >= -1, any ``lr`` <= 1 converges monotonically.

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 24
        Starting couplings.
    theta : array_like, shape (N,), optional
    data_moment : float in (-1, 1)
        The target <s_i s_j>_data.
    pair : tuple of two ints
    lr : float in (0, 2)
    n_steps : int
        Maximum number of updates.
    tol : float > 0
        Stop once |gradient| < tol.

    Returns
    -------
    CouplingFit
    """
    J = check_couplings(J, n_max=24, why=" (each step enumerates all 2**N states)")
    n = J.shape[0]
    theta = check_theta(theta, n)
    i, j = _check_pair(pair, n)
    data_moment = _check_moment(data_moment)
    if abs(data_moment) >= 1.0:
        raise ValueError("data_moment must lie strictly inside (-1, 1): ±1 needs J_ij = ±inf")
    lr = float(check_finite(lr, "lr"))
    if not 0.0 < lr < 2.0:
        raise ValueError(f"lr must lie in (0, 2) for this concave 1-D ascent, got {lr}")
    n_steps = check_positive_int(n_steps, "n_steps", maximum=100_000)
    tol = float(check_finite(tol, "tol"))
    if tol <= 0:
        raise ValueError(f"tol must be > 0, got {tol}")

    def full(params) -> np.ndarray:
        Jc = J.copy()
        Jc[i, j] = Jc[j, i] = float(params["J_ij"])
        return Jc

    def model_moment(params) -> float:
        _, C = exact_moments(full(params), theta)
        return float(C[i, j])

    def estimator(params, rng):
        return {"J_ij": np.asarray(data_moment - model_moment(params))}

    result = train(
        {"J_ij": np.asarray(J[i, j])},
        estimator,
        n_steps=n_steps,
        lr=lr,
        metrics={"coupling": lambda p: float(p["J_ij"]), "moment": model_moment},
        stop_grad_norm=tol,
        rng=np.random.default_rng(0),  # unused: the estimator is exact
    )
    h = result.history
    moment = h["moment"]
    gradient = data_moment - moment
    return CouplingFit(
        steps=h["step"],
        coupling=h["coupling"],
        moment=moment,
        gradient=gradient,
        J=full(result.params),
        converged=bool(abs(gradient[-1]) < tol),
    )


def triangle_pair_moment(J12, J23, J13) -> float:
    """Closed form of <s1 s2>_model for the zero-bias triangle.

    With x = s1 s2 and y = s2 s3 (so s1 s3 = x y), the sum over states gives
    <s1 s2> = tanh(J12 + 1/2 log(cosh(J23 + J13) / cosh(J23 - J13))).

    Parameters
    ----------
    J12, J23, J13 : float

    Returns
    -------
    float
    """
    a, b, c = check_finite([J12, J23, J13], "J12, J23, J13")
    return float(np.tanh(a + _half_log_cosh_ratio(b, c)))


def triangle_coupling_for(target, J23, J13) -> float:
    """The J12 at which the zero-bias triangle has <s1 s2>_model = ``target`` (closed form).

    Parameters
    ----------
    target : float in (-1, 1)
    J23, J13 : float

    Returns
    -------
    float
        arctanh(target) - 1/2 log(cosh(J23 + J13) / cosh(J23 - J13)).
    """
    target = _check_moment(target, "target")
    if abs(target) >= 1.0:
        raise ValueError("target must lie strictly inside (-1, 1)")
    b, c = check_finite([J23, J13], "J23, J13")
    return float(np.arctanh(target) - _half_log_cosh_ratio(b, c))


def _half_log_cosh_ratio(b: float, c: float) -> float:
    def log_cosh(x):
        x = abs(x)
        return x + np.log1p(np.exp(-2 * x)) - np.log(2.0)

    return 0.5 * (log_cosh(b + c) - log_cosh(b - c))


# --------------------------------------------------------------------------- scaling


def human_count(x, *, tex: bool = False) -> str:
    """A count as ``"1,024"`` (below 1e6) or ``"1.07 × 10^9"`` (mantissa to 3 digits).

    Parameters
    ----------
    x : int or float >= 0
        Python ints of any size are handled exactly (no float overflow).
    tex : bool
        Return matplotlib mathtext (``"$1.07\\times 10^{9}$"``) instead of plain text.

    Returns
    -------
    str
    """
    if isinstance(x, int) and x < 10**6:
        return f"{x:,}"
    if x == 0:
        return "0"
    exp = math.floor(math.log10(x))
    mant = x / 10**exp if isinstance(x, int) else float(x) / 10.0**exp
    mant = round(float(mant), 2)
    if mant >= 10:
        mant, exp = mant / 10, exp + 1
    if tex:
        return f"${mant:.2f}\\times 10^{{{exp}}}$"
    return f"{mant:.2f} × 10^{exp}"


@dataclass(frozen=True)
class ScalingRow:
    """One row of the scaling table (see :func:`scaling_table`).

    Attributes
    ----------
    n : int
    terms : int
        2**n, exact.
    log10_terms : float
    vs_seconds : float
        log10(terms / seconds since the Big Bang).
    vs_atoms : float
        log10(terms / atoms in the observable universe).
    verdict : str
    """

    n: int
    terms: int
    log10_terms: float
    vs_seconds: float
    vs_atoms: float
    verdict: str


def comparison(terms) -> str:
    """The largest reference count that ``terms`` exceeds, as a sentence.

    Parameters
    ----------
    terms : int or float >= 1

    Returns
    -------
    str
    """
    log_t = math.log10(terms)
    refs = [
        (math.log10(ATOMS_IN_UNIVERSE), "more terms than atoms in the observable universe"),
        (math.log10(AGE_OF_UNIVERSE_S), "more terms than seconds since the Big Bang"),
        (math.log10(80 * SECONDS_PER_YEAR), "more terms than seconds in a human life"),
        (math.log10(SECONDS_PER_YEAR), "more terms than seconds in a year"),
        (math.log10(24 * 3600), "more terms than seconds in a day"),
    ]
    for level, text in refs:
        if log_t > level:
            return text
    return "fewer terms than seconds in a day"


def scaling_table(ns=(3, 10, 20, 30, 100, 500)) -> list[ScalingRow]:
    """Number of terms in Z for each N, compared with cosmic counts (all computed).

    Parameters
    ----------
    ns : sequence of int, each 1 <= N <= 1000

    Returns
    -------
    list of ScalingRow
    """
    rows = []
    for n in ns:
        n = check_n_states(n, 1000, name="N")
        terms = 2**n
        lt = n * math.log10(2)
        rows.append(
            ScalingRow(
                n=n,
                terms=terms,
                log10_terms=lt,
                vs_seconds=lt - math.log10(AGE_OF_UNIVERSE_S),
                vs_atoms=lt - math.log10(ATOMS_IN_UNIVERSE),
                verdict=comparison(terms),
            )
        )
    return rows


def scaling_text(rows) -> str:
    """Plain-text rendering of :func:`scaling_table` rows (stable for nbval)."""
    lines = [f"{'N':>4}  {'2^N terms in Z':>16}  {'/ s since Big Bang':>18}  "
             f"{'/ atoms':>12}  comparison"]
    for r in rows:
        lines.append(
            f"{r.n:>4}  {human_count(r.terms):>16}  {human_count(10.0**r.vs_seconds):>18}  "
            f"{human_count(10.0**r.vs_atoms):>12}  {r.verdict}"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- timing


def random_dense_machine(n: int, *, rng) -> tuple[np.ndarray, np.ndarray]:
    """A dense random machine for timing: J_ij ~ N(0, 1/N), theta_i ~ N(0, 0.1^2).

    Parameters
    ----------
    n : int, 1 <= n <= 62
    rng : numpy.random.Generator

    Returns
    -------
    J : ndarray, shape (n, n), symmetric, zero diagonal
    theta : ndarray, shape (n,)
    """
    n = check_n_states(n, 62)
    rng = check_rng(rng)
    A = rng.normal(scale=1.0 / np.sqrt(n), size=(n, n))
    J = np.triu(A, 1)
    J = J + J.T
    return J, rng.normal(scale=0.1, size=n)


def naive_log_partition(J, theta=None) -> float:
    """NAIVE log Z for comparison only: all 2**N states and energies in one full matrix.

    Builds the (2**N, N) state matrix, the (2**N, N) product S J and every energy at once,
    then one log-sum-exp. Same answer as :func:`bmlab.log_partition`, much more memory and
    time. N <= 20 (about 0.35 GB at N = 20).

    Parameters
    ----------
    J : array_like, shape (N, N), symmetric, zero diagonal, N <= 20
    theta : array_like, shape (N,), optional

    Returns
    -------
    float
    """
    J = check_couplings(J, n_max=N_MAX_NAIVE, why=" (the naive version holds all 2**N states)")
    n = J.shape[0]
    theta = check_theta(theta, n)
    S = codes_to_states(np.arange(2**n), n)
    return float(logsumexp(-_energy(S, J, theta)))


_METHODS = {"bmlab": (log_partition, N_MAX_LOGZ), "naive": (naive_log_partition, N_MAX_NAIVE)}


def time_log_partition(ns, *, method: str = "bmlab", rng, repeat: int = 3, max_n=None):
    """Best-of-``repeat`` wall time of exact log Z on dense random machines.

    Parameters
    ----------
    ns : sequence of int
        Sizes N to time.
    method : {"bmlab", "naive"}
        :func:`bmlab.log_partition` (half split) or :func:`naive_log_partition`.
    rng : numpy.random.Generator
        Draws one random machine per N.
    repeat : int
        Timings per N; the minimum is reported.
    max_n : int, optional
        Refuse any N above this (checked before anything is allocated); default the method's
        own limit (32 for bmlab, 20 for naive).

    Returns
    -------
    seconds : ndarray, shape (len(ns),)
    log_z : ndarray, shape (len(ns),)
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {sorted(_METHODS)}, got {method!r}")
    fn, limit = _METHODS[method]
    limit = limit if max_n is None else min(limit, check_positive_int(max_n, "max_n"))
    ns = [check_n_states(n, limit, name="N", why=f" for method={method!r}") for n in ns]
    repeat = check_positive_int(repeat, "repeat", maximum=100)
    rng = check_rng(rng)
    secs, logz = np.empty(len(ns)), np.empty(len(ns))
    for k, n in enumerate(ns):
        J, theta = random_dense_machine(n, rng=rng)
        best = np.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            value = fn(J, theta)
            best = min(best, time.perf_counter() - t0)
        secs[k], logz[k] = best, value
    return secs, logz


@dataclass(frozen=True)
class ExpFit:
    """Least-squares fit log2 t = intercept + slope * N (see :func:`fit_exponential`).

    Attributes
    ----------
    slope : float
        log2 of the growth factor per added spin (1.0 = doubling).
    intercept : float
    """

    slope: float
    intercept: float

    @property
    def factor(self) -> float:
        """Growth of the time per added spin."""
        return float(2.0**self.slope)

    def log10_predict(self, n):
        """log10 of the predicted seconds at N (array_like); never overflows."""
        return (self.intercept + self.slope * np.asarray(n, dtype=float)) * math.log10(2)

    def predict(self, n):
        """Predicted seconds at N (array_like); ``inf`` beyond the float range."""
        with np.errstate(over="ignore"):
            return 10.0 ** self.log10_predict(n)

    def predict_human(self, n: int) -> str:
        """Predicted time at N in human units (see :func:`human_time`), any N."""
        lt = float(self.log10_predict(n))
        if lt < 300:
            return human_time(10.0**lt)
        k = lt - math.log10(AGE_OF_UNIVERSE_S)
        return f"10^{k:.0f} ages of the universe"


def fit_exponential(ns, seconds, *, n_min: int = 0) -> ExpFit:
    """Fit t(N) = 2^(a + b N) to timings (log-linear least squares).

    Parameters
    ----------
    ns : array_like, shape (m,)
    seconds : array_like, shape (m,), > 0
    n_min : int
        Use only points with N >= n_min (small N are dominated by fixed overheads).

    Returns
    -------
    ExpFit
    """
    ns = check_finite(ns, "ns").ravel()
    seconds = check_finite(seconds, "seconds").ravel()
    if ns.shape != seconds.shape:
        raise ValueError(f"ns and seconds must have the same length, got {ns.size}, {seconds.size}")
    if np.any(seconds <= 0):
        raise ValueError("seconds must all be > 0")
    keep = ns >= n_min
    if np.count_nonzero(keep) < 2:
        raise ValueError(f"need at least 2 points with N >= n_min={n_min} to fit")
    slope, intercept = np.polyfit(ns[keep], np.log2(seconds[keep]), 1)
    return ExpFit(slope=float(slope), intercept=float(intercept))


_UNITS = [
    (AGE_OF_UNIVERSE_S, "ages of the universe"),
    (SECONDS_PER_YEAR, "years"),
    (86400.0, "days"),
    (3600.0, "hours"),
    (60.0, "minutes"),
    (1.0, "s"),
    (1e-3, "ms"),
    (1e-6, "µs"),
]


def human_time(seconds) -> str:
    """Seconds in the largest sensible unit, from µs up to ages of the universe.

    Parameters
    ----------
    seconds : float >= 0 (may be inf)

    Returns
    -------
    str
        e.g. ``"3.2 ms"``, ``"1.4 minutes"``, ``"2.5 × 10^12 ages of the universe"``.
    """
    s = float(seconds)
    if math.isnan(s) or s < 0:
        raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")
    if math.isinf(s):
        return "forever"
    for size, name in _UNITS:
        if s >= size:
            v = s / size
            text = f"{v:.3g}" if v < 1e3 else f"{v:,.0f}" if v < 1e6 else human_count(v)
            return f"{text} {name}"
    return f"{s * 1e6:.2g} µs"


def html_table(header, rows) -> str:
    """Minimal HTML table (escaped) for the notebook's small result tables.

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequences of str

    Returns
    -------
    str
    """
    cell = 'style="padding:1px 10px;text-align:right"'
    head = "".join(f"<th {cell}>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td {cell}>{html.escape(str(c))}</td>" for c in r) + "</tr>"
        for r in rows
    )
    return f'<table style="border-collapse:collapse"><tr>{head}</tr>{body}</table>'
