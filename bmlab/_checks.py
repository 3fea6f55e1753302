"""Argument validation shared by every bmlab module.

Every public function validates its inputs here, *before* allocating anything, so that a
student who passes a wrong shape or an impossible size reads one clear sentence naming the
parameter and what is allowed -- never a broadcast error from deep inside numpy or a
MemoryError.
"""

from __future__ import annotations

import numbers

import numpy as np


def _as_float_array(x, name: str) -> np.ndarray:
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be an array of numbers, got {type(x).__name__}")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an array of real numbers ({err})") from None
    return arr


def check_finite(x, name: str) -> np.ndarray:
    """Return ``x`` as a float array, raising if any entry is NaN or infinite."""
    arr = _as_float_array(x, name)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (found NaN or inf)")
    return arr


def check_couplings(J, *, n_max: int | None = None, why: str = "") -> np.ndarray:
    """Validate a coupling matrix of the fully visible machine (Eq. 5.1): finite, square,
    symmetric, N >= 1 (at most ``n_max``), zero diagonal."""
    J = check_square_symmetric(J, "J", n_min=1)
    if n_max is not None and len(J) > n_max:
        raise ValueError(f"N = {len(J)} spins is too many here: N <= {n_max} is allowed{why}")
    if np.any(np.diag(J) != 0):
        raise ValueError("J must have a zero diagonal (J_ii = 0: no self-coupling)")
    return J


def check_square_symmetric(W, name: str = "W", n_min: int = 2) -> np.ndarray:
    """Validate a finite, square matrix (N, N), N >= ``n_min``, symmetric up to round-off:
    |W - W^T| at most 1e-12 times its largest entry (or 1e-12 when all are below 1)."""
    W = check_finite(W, name)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < n_min:
        raise ValueError(f"{name} must be a square (N, N) matrix with N >= {n_min}, got {W.shape}")
    scale = max(1.0, float(W.max()), -float(W.min()))
    asymmetry = W - W.T  # one temporary: at N = 1000 a third of np.allclose's time
    if max(float(asymmetry.max()), -float(asymmetry.min())) > 1e-12 * scale:
        raise ValueError(f"{name} must be symmetric ({name}_ij = {name}_ji)")
    return W


def check_sphere(X, name: str, n: int | None = None) -> np.ndarray:
    """Validate rows on the sphere: shape (m, N), m >= 1, N >= 2 (``n`` if given), and
    |x|^2 = N to a relative 1e-6."""
    X = check_finite(X, name)
    if X.ndim != 2 or len(X) == 0 or X.shape[1] < 2 or X.shape[1] != (n or X.shape[1]):
        want = f"(m, {n or 'N'}) with m >= 1 and N >= 2"
        raise ValueError(f"{name} must have shape {want}, got {X.shape}")
    if not np.allclose(np.einsum("ij,ij->i", X, X), X.shape[1], rtol=1e-6, atol=0.0):
        raise ValueError(f"the rows of {name} must lie on the sphere |x|^2 = N = {X.shape[1]}")
    return X


def check_theta(theta, n: int, name: str = "theta") -> np.ndarray:
    """Validate a bias vector of length ``n``; ``None`` means all zeros."""
    if theta is None:
        return np.zeros(n)
    theta = check_finite(theta, name)
    if theta.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) to match the couplings, got {theta.shape}")
    return theta


def check_beta(beta, *, positive: bool = False) -> float:
    """Validate an inverse temperature: a finite real number >= 0 (> 0 if ``positive``)."""
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"beta must be a real number, got {type(beta).__name__}")
    beta = float(beta)
    if not np.isfinite(beta) or beta < 0 or (positive and beta == 0):
        raise ValueError(f"beta must be a finite number {'>' if positive else '>='} 0, got {beta}")
    return beta


def check_betas(betas) -> np.ndarray:
    """Validate a temperature ladder: at least 2 finite betas, positive and increasing."""
    b = check_finite(betas, "betas")
    if b.ndim != 1 or b.size < 2 or b[0] <= 0 or np.any(np.diff(b) <= 0):
        raise ValueError(f"betas must be at least 2 positive, increasing numbers, got {b}")
    return b


def check_positive_int(value, name: str, *, maximum: int | None = None) -> int:
    """Validate a strictly positive integer (numpy integers accepted)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {type(value).__name__}")
    value = int(value)
    if value < 1 or (maximum is not None and value > maximum):
        allowed = "a positive integer" + ("" if maximum is None else f" <= {maximum}")
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return value


def check_n_states(n: int, n_max: int, name: str = "n", why: str = "") -> int:
    """Validate a number of units for a function that enumerates ``2**n`` states."""
    n = check_positive_int(n, name)
    if n > n_max:
        raise ValueError(f"{name} = {n} is too large: {name} <= {n_max} is allowed{why}")
    return n


def check_spins(S, n: int, name: str = "S") -> np.ndarray:
    """Validate ±1 states: shape (n,) or (m, n), every entry -1 or +1."""
    S = _as_float_array(S, name)
    if S.ndim not in (1, 2) or S.shape[-1] != n or S.size == 0:
        raise ValueError(f"{name} must have shape ({n},) or (m, {n}) with m >= 1, got {S.shape}")
    if not np.all(np.abs(S) == 1):
        raise ValueError(f"{name} must contain only -1 and +1 (the ±1 spin convention)")
    return S


def check_binary(V, n: int, name: str = "V") -> np.ndarray:
    """Validate {0,1} states: shape (n,) or (m, n), every entry 0 or 1."""
    V = _as_float_array(V, name)
    if V.ndim not in (1, 2) or V.shape[-1] != n or V.size == 0:
        raise ValueError(f"{name} must have shape ({n},) or (m, {n}) with m >= 1, got {V.shape}")
    if not np.all((V == 0) | (V == 1)):
        raise ValueError(f"{name} must contain only 0 and 1 (binary {{0,1}} units)")
    return V


def check_data(X, name: str = "data", n: int | None = None, *, binary: bool = False):
    """Validate a data set: shape (D, N) (N = ``n`` if given) with D >= 1 rows, every entry
    ±1, or 0 and 1 if ``binary``. A set of no rows raises: its mean would be NaN."""
    X = _as_float_array(X, name)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a (D, N) array of states, D >= 1, got shape {X.shape}")
    return (check_binary if binary else check_spins)(X, X.shape[1] if n is None else n, name)


def check_rng(rng, who: str = "this function") -> np.random.Generator:
    """The ``rng`` of a function that draws random numbers: a ``numpy.random.Generator``.

    ``None`` raises a TypeError too (no unseeded default): ``who`` names the function in it.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        raise TypeError(
            f"{who} draws random numbers: pass rng=np.random.default_rng(seed) "
            "(to bmlab.train too, which passes it on)"
        )
    raise TypeError(
        "rng must be a numpy.random.Generator (e.g. rng=np.random.default_rng(0)), "
        f"got {type(rng).__name__}"
    )


def check_bool(value, name: str) -> bool:
    """Validate a flag: True or False (numpy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}")
    return bool(value)


def check_choice(value, name: str, allowed: tuple[str, ...]) -> str:
    """Validate a string option against its allowed values."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def check_in_range(value, name: str, lo: float, hi: float, *, integer: bool = False):
    """Validate a number (an integer if ``integer``) in ``[lo, hi]``; returns int or float."""
    kinds = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(
            f"{name} must be {'an integer' if integer else 'a number'}, got {type(value).__name__}"
        )
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be between {lo} and {hi}, got {value}")
    return int(value) if integer else float(value)
