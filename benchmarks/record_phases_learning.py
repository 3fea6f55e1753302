"""Record learning beyond enumeration, notebook 07, Section 6: PCD at N_v = 400.

The teacher of Section 6 at N_v = N_V: two orthogonal ±1 modes of strengths STRENGTHS
(``rbm_ensemble(..., orthogonal=True)``: u_2 = u_1 on one half of the units, -u_1 on the
other), 4 N_v hidden units, no noise, T = 1. Summing out its hidden layer, p(s) depends on s
only through the mode magnetisations, and these are fixed by the numbers k_A, k_B of units
that disagree with u_1 in the two halves: P(k_A, k_B) is C(n/2, k_A) C(n/2, k_B) times the
hidden layer's prod_j 2 cosh(...), a table of (n/2 + 1)^2 numbers. A state drawn from it with
the k_A and k_B disagreeing units placed at random is an exact draw from the teacher
(:func:`teacher_draws`; its law is checked against ``mode_law`` at N_v = 16).

The student: a ±1 RBM without biases and N_v / 2 hidden units, W0 with i.i.d. entries
N(0, (0.04 / sqrt(N_v))^2), trained by PCD-1 (``bmlab.rbm.PCDGradient`` on the {0,1} data,
full batch, one persistent chain per data row) through the change of variables of the
notebook (W01 = 4 W, a01 = -2 W 1, b01 = -2 W^T 1) at rate 0.16 / N_v for UPDATES updates:
the settings of the notebook's N_v = 16 run (0.01 and 0.01 there), scaled with N_v.

Recorded every 10 updates: the top singular values of W, its squared Frobenius norm and the top
singular value of the linear-regime prediction (W0 grown by (1 + rate (lambda - 1))^t along each
eigenvector of the data's second moment C), while it is below 10. Also the teacher's weight on
the states nearer its second mode, P(|m_2| > |m_1|). At the updates SNAPSHOTS: the law of the
learned top mode's magnetisation m = u . s / N_v (u the top left singular vector, |u|^2 = N_v)
at T = 1 from two independent tempering ladders (``rbm_tempering``, BETAS), each ladder's
histogram, <|m|>, share of m > 0 (1/2 exactly in the model's law, which is even in s) and
number of sign changes of m between records (most come from swaps with a neighbouring
temperature, so they do not say how fast the ladder as a whole balances the two states); the
data's histogram and <|m|> on the same edges; the naive mean-field fixed points at T = 1 from
STARTS random starts.

    nice python benchmarks/record_phases_learning.py   # about 11 minutes on 2 busy cores

writes ``bmlab/recorded/phases_learning.json``.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
from recording import save_results
from scipy.special import gammaln, logsumexp

import bmlab
from bmlab.phases import mean_field, mode_law, rbm_ensemble, rbm_tempering
from bmlab.rbm import PCDGradient

N_V = 400
STRENGTHS = (1.3, 1.15)
SAMPLES = 2000
UPDATES = 800
SNAPSHOTS = (20, 40, 100, 800)
BETAS = np.linspace(0.3, 1.0, 32)
BURN_IN, MEASURE = 1000, 30000
STARTS = 40
EDGES = np.linspace(-1.025, 1.025, 42)  # bins centred on multiples of 0.05
SEED = 27


def teacher_table(U, V, strengths, n_hidden):
    """The teacher's exact P(k_A, k_B), (n/2 + 1, n/2 + 1), and the halves A, B."""
    n = U.shape[0]
    A, B = np.flatnonzero(U[:, 1] == U[:, 0]), np.flatnonzero(U[:, 1] != U[:, 0])
    k = np.arange(len(A) + 1)
    log_count = gammaln(len(A) + 1) - gammaln(k + 1) - gammaln(len(A) - k + 1)
    m1 = (2 * len(A) - 2 * k[:, None] - 2 * k[None, :]) / n  # u_1 . s / n
    m2 = (-2 * k[:, None] + 2 * k[None, :]) / n  # u_2 . s / n
    same = np.sum(V[:, 1] == V[:, 0])  # hidden units where v_2 = v_1
    x = n / np.sqrt(n * n_hidden) * strengths[0] * m1
    y = n / np.sqrt(n * n_hidden) * strengths[1] * m2
    log_p = log_count[:, None] + log_count[None, :]
    log_p = (
        log_p + same * np.logaddexp(x + y, -x - y) + (n_hidden - same) * np.logaddexp(x - y, y - x)
    )
    return np.exp(log_p - logsumexp(log_p)), m1, m2, A, B


def teacher_draws(U, V, strengths, n_hidden, size, rng):
    """``size`` exact draws (size, n) of ±1 spins from the teacher at T = 1."""
    p, _, _, A, B = teacher_table(U, V, strengths, n_hidden)
    k_A, k_B = np.divmod(rng.choice(p.size, size, p=p.ravel()), p.shape[1])
    S = np.tile(U[:, 0], (size, 1))
    for row in range(size):
        S[row, rng.choice(A, k_A[row], replace=False)] *= -1
        S[row, rng.choice(B, k_B[row], replace=False)] *= -1
    return S


def teacher_check() -> float:
    """Largest difference between the table's law of (m_1, m_2) and ``mode_law``, N_v = 16."""
    W, U, V = rbm_ensemble(16, 64, STRENGTHS, orthogonal=True, rng=np.random.default_rng(0))
    p, m1, m2, _, _ = teacher_table(U, V, STRENGTHS, 64)
    edges = np.linspace(-1 - 1 / 16, 1 + 1 / 16, 18)
    table = np.histogram2d(m1.ravel(), m2.ravel(), bins=[edges, edges], weights=p.ravel())[0]
    return float(np.abs(table - mode_law(W, U, edges=edges).hist).max())


def second_mode_share(U, V) -> float:
    """The teacher's probability of the states nearer its second mode, P(|m_2| > |m_1|)."""
    p, m1, m2, _, _ = teacher_table(U, V, STRENGTHS, V.shape[0])
    return float(p[np.abs(m2) > np.abs(m1)].sum())


def pm1_gradient(gradient01):
    """The gradient of a ±1 RBM without biases from one of bmlab's {0,1} RBM (s = 2v - 1)."""

    def gradient(params, rng=None):
        W = params["W"]
        g = gradient01({"W": 4 * W, "a": -2 * W.sum(axis=1), "b": -2 * W.sum(axis=0)}, rng)
        return {"W": 4 * g["W"] - 2 * g["a"][:, None] - 2 * g["b"][None, :]}

    return gradient


def snapshot(W, data, rng) -> dict:
    """The learned machine W at T = 1: its top mode's law (two ladders), the data's, mean field."""
    n = W.shape[0]
    U, s, _ = np.linalg.svd(W)
    u = np.sqrt(n) * U[:, :1]
    run = rbm_tempering(
        W, betas=BETAS, n_sweeps=BURN_IN + MEASURE, modes=u, record_every=2, rng=rng
    )
    m = run.projections[BURN_IN // 2 :, -1, :, 0]  # (records, 2 ladders) at beta = 1
    m_data = data @ u[:, 0] / n
    fp = mean_field(W, beta=1.0, starts=rng.uniform(-1, 1, (STARTS, n)))
    return {
        "singular_values": np.round(s[:3], 4).tolist(),
        "swap_rate_min": round(float(run.swap_rates.min()), 4),
        "ladders": [
            {
                "hist": np.round(np.histogram(m[:, c], EDGES)[0] / len(m), 5).tolist(),
                "mean_abs": round(float(np.abs(m[:, c]).mean()), 4),
                "positive_share": round(float(np.mean(m[:, c] > 0)), 4),
                "sign_changes": int(np.sum(np.sign(m[1:, c]) != np.sign(m[:-1, c]))),
            }
            for c in range(2)
        ],
        "data_hist": np.round(np.histogram(m_data, EDGES)[0] / len(data), 5).tolist(),
        "data_mean_abs": round(float(np.abs(m_data).mean()), 4),
        "data_mean_abs_err": round(float(np.abs(m_data).std() / np.sqrt(len(data))), 4),
        "mean_field": {
            "points": len(fp.hits),
            "converged": bool(fp.converged.all()),
            "m": np.round(fp.m_v @ u[:, 0] / n, 4).tolist(),
        },
    }


def main() -> None:
    rng = np.random.default_rng(SEED)
    start = time.perf_counter()
    _, U, V = rbm_ensemble(N_V, 4 * N_V, STRENGTHS, orthogonal=True, rng=rng)
    data = teacher_draws(U, V, STRENGTHS, 4 * N_V, SAMPLES, rng)
    lam, vec = np.linalg.eigh(data.T @ data / SAMPLES)
    W0 = rng.normal(0.0, 0.04 / np.sqrt(N_V), (N_V, N_V // 2))
    rate = 0.16 / N_V
    snapshots = {}
    run = bmlab.train(
        {"W": W0},
        pm1_gradient(PCDGradient((data + 1) / 2, 1, n_chains=SAMPLES)),
        n_steps=UPDATES,
        lr=rate,
        rng=rng,
        record_every=10,
        metrics={
            "sv": lambda p: np.linalg.svd(p["W"], compute_uv=False)[:3],
            "frobenius_sq": lambda p: float(np.sum(p["W"] ** 2)),
        },
        callback=lambda t, p: snapshots.update({t: p["W"].copy()}) if t in SNAPSHOTS else None,
    )
    steps = run.history["step"]
    print(f"trained in {time.perf_counter() - start:.0f} s", flush=True)
    linear = [  # the top singular value of the linear regime's W
        np.linalg.norm(vec @ ((1 + rate * (lam[:, None] - 1)) ** t * (vec.T @ W0)), 2)
        for t in steps
    ]
    data_out = {
        "teacher_check_16": teacher_check(),
        "C_top": np.round(lam[::-1][:4], 3).tolist(),
        "steps": steps.tolist(),
        "singular_values": np.round(run.history["sv"], 4).tolist(),
        "linear": [float(f"{x:.4g}") for x in itertools.takewhile(lambda x: x < 10, linear)],
        "second_mode_share": second_mode_share(U, V),
        "frobenius_sq": np.round(run.history["frobenius_sq"], 4).tolist(),
        "edges": EDGES.tolist(),
        "snapshots": {},
    }
    for t in SNAPSHOTS:
        data_out["snapshots"][str(t)] = snapshot(snapshots[t], data, rng)
        print(f"update {t}: {time.perf_counter() - start:.0f} s", flush=True)
    params = {
        "n_visible": N_V,
        "teacher_hidden": 4 * N_V,
        "student_hidden": N_V // 2,
        "strengths": list(STRENGTHS),
        "samples": SAMPLES,
        "updates": UPDATES,
        "rate": rate,
        "init_std": 0.04 / np.sqrt(N_V),
        "pcd": "PCD-1, full batch, one persistent chain per data row",
        "snapshots": list(SNAPSHOTS),
        "betas": f"{len(BETAS)} from {BETAS[0]} to {BETAS[-1]}, equally spaced",
        "burn_in": BURN_IN,
        "measure": MEASURE,
        "record_every": 2,
        "mean_field_starts": STARTS,
        "seed": SEED,
    }
    sources = [
        "bmlab/phases.py",
        "bmlab/rbm.py",
        "bmlab/learning.py",
        "bmlab/glauber.py",
        "bmlab/exact.py",
        "bmlab/_kernels.py",
        "bmlab/_parallel.py",
        "bmlab/_checks.py",
        "benchmarks/record_phases_learning.py",
    ]
    path = save_results("phases_learning", data_out, params=params, sources=sources)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
