"""bmlab.check: says correct or not yet (with a hint), never the answer, which is stored hashed."""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, special
from scipy.optimize import brentq

import bmlab
from bmlab import exercises
from bmlab.exercises import answer_hash, check

#: A made-up exercise (real answers are written nowhere in the tests: some are computed below).
FAKE = {"99.1": {"decimals": 3, "sha256": answer_hash("99.1", 0.4567, 3), "hint": "try harder"}}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(exercises, "EXERCISES", FAKE)


def test_a_correct_answer_passes(fake):
    verdict = check("99.1", 0.4567)
    assert verdict and repr(verdict) == "correct"


@pytest.mark.parametrize("answer", [0.45671, 0.4574, np.float64(0.45650001), 0.457])
def test_answers_equal_after_rounding_pass(fake, answer):
    assert check("99.1", answer)


@pytest.mark.parametrize("answer", [0.4564, 0.458, -0.457, 457, 0.0])
def test_wrong_answers_fail_with_the_hint(fake, answer):
    verdict = check("99.1", answer)
    assert not verdict and repr(verdict) == "not yet: try harder"


def test_no_answer_yet(fake):
    verdict = check("99.1", None)
    assert not verdict and repr(verdict) == "not yet: write your answer in my_answer"


def test_unknown_exercise_lists_the_ids(fake):
    with pytest.raises(ValueError, match=r"unknown exercise '01\.9'.*99\.1"):
        check("01.9", 1.0)


def test_not_a_number_is_a_type_error(fake):
    with pytest.raises(TypeError):
        check("99.1", [0.457])


def test_hash_is_salted_and_signed_zero_is_zero():
    assert answer_hash("01.1", 0.5, 3) != answer_hash("01.2", 0.5, 3)
    assert answer_hash("01.1", -0.0001, 3) == answer_hash("01.1", 0.0, 3)


def test_check_is_exported():
    assert bmlab.check is check


def test_every_exercise_is_well_formed():
    ids = list(exercises.EXERCISES)
    assert all(re.fullmatch(r"0[1-7]b?\.\d", i) for i in ids), ids
    for entry in exercises.EXERCISES.values():
        assert set(entry) == {"decimals", "sha256", "hint"}
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]) and entry["hint"]
    for nb in ("01", "02", "03", "04", "05", "05b", "06", "06b", "07"):
        assert sum(i.startswith(f"{nb}.") for i in ids) >= 3


def test_no_plain_answer_in_the_package():
    """No number written in bmlab's exercise files (module, hints) is an answer that checks.

    Whole-number answers (decimals 0: counts) are left out: small integers are everywhere.
    """
    package = Path(exercises.__file__).parent
    text = (package / "exercises.py").read_text()
    text += " ".join(e["hint"] for e in exercises.EXERCISES.values())
    numbers = {float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text)}
    numbers |= {-x for x in numbers}
    ids = [i for i, entry in exercises.EXERCISES.items() if entry["decimals"] > 0]
    leaks = [(i, x) for i in ids for x in numbers if check(i, x)]
    assert not leaks, f"answers written in plain text: {leaks}"


def _triangle_weights(J12: float, J23: float, J13: float) -> dict:
    """exp(-E(s)) of the 8 states of a zero-bias triangle, by a plain loop (no bmlab)."""
    weights = {}
    for s in itertools.product((-1, 1), repeat=3):
        minus_energy = J12 * s[0] * s[1] + J23 * s[1] * s[2] + J13 * s[0] * s[2]
        weights[s] = math.exp(minus_energy)
    return weights


def _spectral_guarantee(beta: float, eps: float) -> float:
    """Sweeps promised by t_rel log(1 / (eps pi_min)) for random-site Glauber dynamics on the
    frustrated triangle, from a transition matrix built by a plain loop (no bmlab)."""
    states = list(itertools.product((-1, 1), repeat=3))
    J = np.array([[0.0, 0.5, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.5, 0.0]])
    weights = np.array([math.exp(0.5 * beta * (s @ J @ s)) for s in map(np.array, states)])
    pi = weights / weights.sum()
    T = np.zeros((8, 8))
    for a, s in enumerate(states):
        for k in range(3):
            field = J[k] @ np.array(s)
            flip = 1.0 / (1.0 + math.exp(beta * 2 * s[k] * field))  # Eq. 5.2
            t = list(s)
            t[k] = -t[k]
            T[a, states.index(tuple(t))] += flip / 3
            T[a, a] += (1 - flip) / 3
    eigenvalues = np.sort(np.linalg.eigvals(T).real)[::-1]
    t_rel = 1 / (1 - eigenvalues[1])
    return t_rel * math.log(1 / (eps * pi.min())) / 3


def test_stored_hashes_match_answers_computed_independently():
    """Real answers, recomputed here without bmlab, pass ``bmlab.check``: the stored hashes
    and the hashing agree (a change of the hash format fails here, not only in a notebook)."""
    w = _triangle_weights(0.5, 0.5, 0.5)  # the triangle of exercises 01.1 and 02.1: J13 = +0.5
    Z = sum(w.values())
    assert check("02.1", Z)  # Z, 2 decimals
    w2 = _triangle_weights(1.0, 1.0, 1.0)  # the same triangle at beta = 2: couplings times beta
    assert check("01.1", w2[(1, 1, 1)] / sum(w2.values()))  # p(+++) at beta = 2, 3 decimals

    def pair(beta):  # <s1 s2> of the frustrated triangle at inverse temperature beta
        w = _triangle_weights(0.5 * beta, 0.5 * beta, -0.5 * beta)
        return sum(s[0] * s[1] * x for s, x in w.items()) / sum(w.values())

    # the cold limit: s1 s2 averaged over the states of lowest energy (all but +-+ and -+-)
    ground = [s for s in itertools.product((-1, 1), repeat=3) if s not in ((1, -1, 1), (-1, 1, -1))]
    limit = sum(s[0] * s[1] for s in ground) / len(ground)
    assert check("01.2", brentq(lambda b: limit - pair(b) - 0.001, 1.0, 10.0))  # beta, 2 decimals
    assert check("01.3", _spectral_guarantee(beta=2.0, eps=0.01))  # sweeps, 1 decimal

    def moment(J12):  # <s1 s2> of the lecture's loop, J23 = 0.5, J13 = -0.5, with direct bond J12
        w = _triangle_weights(J12, 0.5, -0.5)
        return sum(s[0] * s[1] * x for s, x in w.items()) / sum(w.values())

    assert check("02.2", brentq(moment, 0.0, 1.0))  # the J12 that uncorrelates s1, s2; 3 decimals
    assert check("02.3", math.log2(10_000))  # extra spins for a 10,000x faster machine, 2 decimals
    assert not check("02.3", math.log2(10_000) + 0.01)

    # 03.1: two spins have as many parameters as free probabilities, so the fit is the empirical
    # law and the Hessian is minus the data covariance of phi = (s1 s2, s1, s2)
    rows = [(1, 1)] * 6 + [(-1, -1)] * 2 + [(1, -1), (-1, 1)]
    phi = np.array([(a * b, a, b) for a, b in rows], dtype=float)
    lambda_min = -np.linalg.eigvalsh(np.cov(phi.T, bias=True)).max()
    assert check("03.1", 2 / abs(lambda_min))  # largest stable learning rate, 3 decimals
    rows = [(1, 1, 1)] * 4 + [(-1, -1, -1)] * 2 + [(1, -1, 1)] * 2
    rows += [(-1, 1, -1), (1, 1, -1), (-1, -1, 1)] + [(1, -1, -1)] * 2 + [(-1, 1, 1)]
    assert check("03.2", sum(s[0] * s[2] for s in rows) / len(rows))  # Eq. 5.6, 3 decimals
    # 03.3: symmetric data (theta = 0, <s1 s2>_model = tanh J), <s1 s2>_data = 0.5, w = 0.05:
    # the penalised optimum solves 0.5 - tanh J = w J, and the mismatch is w J
    J12 = brentq(lambda J: 0.5 - math.tanh(J) - 0.05 * J, 0.0, 10.0)
    assert check("03.3", 0.05 * J12)  # 3 decimals

    aligned = {s: math.exp(2.0 * s[0] * s[1]) for s in itertools.product((-1, 1), repeat=2)}
    p_aligned = aligned[(1, 1)] / sum(aligned.values())  # p(++) = p(--) at J12 = 2, no biases
    assert check("04.1", 0.5 * math.log(0.5 / p_aligned) * 2)  # KL of 2-bit parity, 3 decimals
    # without biases p(v) = p(-v): half the mass on odd strings, the rest shared by the 4 even
    assert check("04.2", 0.5 / 4)  # p(---) of the best bias-free machine, 3 decimals
    assert check("04.3", 2)  # hidden units still connected at the midpoint of Section 6

    assert check("06.1", math.log(special.i0(1.0)))  # the circle: Z = I0(beta), 3 decimals
    log_Z, share = _rank_one_sphere(100, 4.0)
    assert check("06.2", share)  # exact share along the spike, 3 decimals
    log_Z, share = _rank_one_sphere(1000, 3.0)
    assert check("06.3", 1.5 * 1000 * share - log_Z)  # KL(teacher || uniform), 1 decimal

    assert check("07.1", 3**0.5 + 3**-0.5)  # bulk edge sigma (c^-1/4 + c^1/4), c = 1/9
    k = np.arange(11)  # 07.2: rank-one +-1 machine, N_v = N_h = 10, w = 1, T = 0.8
    m = (10 - 2 * k) / 10
    weights = special.comb(10, k) * np.cosh(m / 0.8) ** 10
    assert check("07.2", weights @ np.abs(m) / weights.sum())  # <|m|>, 3 decimals

    def tanh2(q):  # E tanh^2(2 sqrt(q) z), z ~ N(0, 1), by adaptive quadrature
        return integrate.quad(
            lambda z: math.tanh(2 * math.sqrt(q) * z) ** 2 * math.exp(-z * z / 2), -12, 12
        )[0] / math.sqrt(2 * math.pi)

    assert check("07.3", brentq(lambda q: tanh2(q) - q, 0.1, 1.0))  # RS overlap at T = sigma/2


def _rank_one_sphere(n: int, c: float) -> tuple[float, float]:
    """log Z and the share <t> along u of W = c u u^T on |x|^2 = n at beta = 1, without bmlab:
    under the uniform law t = (u.x)^2 / n follows Beta(1/2, (n - 1)/2), tilted by exp(c n t / 2)."""

    def log_density(t):
        log_beta = special.betaln(0.5, (n - 1) / 2)
        return -0.5 * np.log(t) + (n - 3) / 2 * np.log1p(-t) + c * n * t / 2 - log_beta

    peak = 1 - 1 / c
    top = log_density(peak)

    def weight(t):
        return np.exp(log_density(t) - top)

    kw = {"points": [peak], "limit": 200, "epsabs": 0.0, "epsrel": 1e-12}
    mass = integrate.quad(weight, 0.0, 1.0, **kw)[0]
    first = integrate.quad(lambda t: t * weight(t), 0.0, 1.0, **kw)[0]
    return top + math.log(mass), first / mass


def _expit(x):
    return 1.0 / (1.0 + np.exp(-x))


def _bars_and_stripes_3x3() -> np.ndarray:
    """The 16 rows of 3x3 bars and stripes in bmlab's order: every subset of rows switched on
    (subset code c, bit r = row r), then every subset of columns; pixel (r, c) is r*3 + c."""
    subsets = ((np.arange(8)[:, None] >> np.arange(3)) & 1).astype(float)
    return np.concatenate([np.repeat(subsets, 3, axis=1), np.tile(subsets, (1, 3))])


def _all_states(n: int) -> np.ndarray:
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)


def _log_p_visible(W, a, b) -> np.ndarray:
    """Exact log p(v) of all 2**n_visible visible states (hidden units summed out)."""
    minus_F = _all_states(len(a)) @ a + np.logaddexp(0, _all_states(len(a)) @ W + b).sum(axis=1)
    top = minus_F.max()
    return minus_F - top - math.log(np.exp(minus_F - top).sum())


def _cd1_by_hand():
    """CD-1 on 3x3 bars and stripes as in notebook 05 (9 hidden units, rate 0.3, 4000
    full-batch updates, seed 5), in plain numpy with the draws in bmlab's order; returns the
    final (W, a, b)."""
    V = _bars_and_stripes_3x3()
    rng = np.random.default_rng(5)
    p = np.clip(V.mean(axis=0), 1e-3, 1 - 1e-3)
    W, a, b = rng.normal(0.0, 0.01, (9, 9)), np.log(p) - np.log1p(-p), np.zeros(9)
    for _ in range(4000):
        ph0 = _expit(V @ W + b)
        h = rng.random(ph0.shape) < ph0
        vk = (rng.random(V.shape) < _expit(h @ W.T + a)).astype(float)
        phk = _expit(vk @ W + b)
        W = W + 0.3 * (V.T @ ph0 - vk.T @ phk) / len(V)
        a = a + 0.3 * (V - vk).mean(axis=0)
        b = b + 0.3 * (ph0 - phk).mean(axis=0)
    return W, a, b


def _exact_gradient_by_hand(weight_decay: float) -> float:
    """The exact gradient on 3x3 bars and stripes from the start of notebook 05 (seed 5), rate
    0.3, 4000 updates, weight decay on W, in plain numpy (model phase by enumerating all 512
    visible states); returns the largest singular value of the final W."""
    V, S = _bars_and_stripes_3x3(), _all_states(9)
    rng = np.random.default_rng(5)
    p = np.clip(V.mean(axis=0), 1e-3, 1 - 1e-3)
    W, a, b = rng.normal(0.0, 0.01, (9, 9)), np.log(p) - np.log1p(-p), np.zeros(9)
    for _ in range(4000):
        pv = np.exp(_log_p_visible(W, a, b))
        ph_data, ph_all = _expit(V @ W + b), _expit(S @ W + b)
        W = W + 0.3 * (V.T @ ph_data / len(V) - (S * pv[:, None]).T @ ph_all - weight_decay * W)
        a = a + 0.3 * (V.mean(axis=0) - pv @ S)
        b = b + 0.3 * (ph_data.mean(axis=0) - pv @ ph_all)
    return float(np.linalg.svd(W, compute_uv=False)[0])


def test_stored_hashes_of_notebooks_05_and_05b_match_answers_computed_independently():
    """The answers of 05 and 05b, recomputed in plain numpy (and scikit-learn's bundled digits),
    without bmlab: the same random numbers, drawn in the same order as the notebooks."""
    r = np.random.default_rng(5)  # the machine `small` of notebook 05, Section 1
    W, a = r.normal(0, 1, (4, 3)), r.normal(0, 1, 4)
    assert check("05.1", _expit(a[0] + W[0] @ np.array([1.0, 0.0, 1.0])))  # p(v1=1|h=101)

    W, a, b = _cd1_by_hand()
    H, V = _all_states(9), _all_states(9)
    ph, pv = _expit(V @ W + b), _expit(H @ W.T + a)  # p(h_j=1|v), p(v_i=1|h)
    p_h_v = np.prod(np.where(H[None] == 1, ph[:, None], 1 - ph[:, None]), axis=2)
    p_v_h = np.prod(np.where(V[None] == 1, pv[:, None], 1 - pv[:, None]), axis=2)
    moduli = np.sort(np.abs(np.linalg.eigvals(p_h_v @ p_v_h)))[::-1]
    assert abs(moduli[0] - 1) < 1e-9
    assert check("05.2", -1 / math.log(moduli[1]))  # relaxation time of T in steps, 1 decimal
    p_cold = np.exp(_log_p_visible(2 * W, 2 * a, 2 * b))  # the CD-1 fit at beta = 2
    assert check("05b.3", np.sum(p_cold**2))  # chance that two samples coincide, 3 decimals

    top = _exact_gradient_by_hand(weight_decay=1e-2)
    assert check("05.3", top)  # largest singular value of W where it comes to rest, 1 decimal

    from sklearn.datasets import load_digits

    digits = (load_digits().data > 8).astype(float)
    train = digits[np.random.default_rng(5).permutation(len(digits))[:1500]]
    C = np.cov(train.T, bias=True)
    lam_1 = np.linalg.eigvalsh(C - np.diag(np.diag(C)))[-1]
    assert check("05b.1", math.log(10) / math.log(1 + 0.05 * lam_1 / 4))  # tenfold, 1 decimal
    u = np.linalg.eigh(C)[1][:, -1]
    assert check("05b.2", (u @ C @ u) / (u @ (np.diag(C) * u)))  # variance ratio, 2 decimals


def test_the_hash_format_is_fixed():
    """SHA-256 of "<id>:<answer with the exercise's decimals>", hex: a literal, so that a changed
    format (salt, rounding, digest) fails even where expected and stored hashes are made alike."""
    expected = "91c685e21126efa76115450cc537a0f0e95065c207d207be63af263a87b7d41e"
    assert answer_hash("99.1", 0.4567, 3) == expected
    assert hashlib.sha256(b"99.1:0.457").hexdigest() == expected


@pytest.mark.parametrize("answer", [None, 0.0, 1.0])
def test_an_unknown_exercise_raises_whatever_the_answer(answer):
    """A typo in the id is never 'not yet': the student would wait for an answer that cannot
    come."""
    with pytest.raises(ValueError, match=r"unknown exercise '01\.9'"):
        check("01.9", answer)
