"""Record noisy training of the spherical machine with too few sampling steps (notebook 06b,
Section 6).

Teacher W* = 3 u u^T (u the last coordinate axis), K = N exact draws, N in SIZES. Langevin
training (``bmlab.posterior.LangevinSphericalGradient`` through ``bmlab.train``) from W = 0
at eta = 1, gamma = 0.3 K and learning rate 1 / N^2, for UPDATES updates: once with the exact
negative phase, and once per nu in NUS with K persistent chains (started at data rows) moved
by nu heat-bath steps per update. Every RECORD updates: the top eigenvalue of W minus its mean
eigenvalue, the order parameters of the machine W against u (alignment, condensation, and the
overlap <(u.x)^2>/N of its exact law) and the chains' share along u. Stored: their means over
the second half with batch-means standard errors (10 batches).

    nice .venv/bin/python benchmarks/record_spherical_pcd.py   # about 7 min on one core

writes ``bmlab/recorded/spherical_pcd.json``.
"""

from __future__ import annotations

import time

import numpy as np
from recording import save_results

from bmlab.learning import train
from bmlab.posterior import LangevinSphericalGradient, spherical_order_parameters
from bmlab.spherical import SphericalBM

SIZES = (50, 100, 200)
NUS = (1, 2, 4, 8, 16, 32)
C_STAR, ETA, GAMMA_PER_K, SEED = 3.0, 1.0, 0.3, 66
UPDATES, RECORD, BATCHES = 3000, 20, 10
SERIES = ("top", "alignment", "condensation", "overlap", "chains")


def run(n: int, nu, X, u) -> dict:
    gradient = LangevinSphericalGradient(
        X, gamma=GAMMA_PER_K * len(X), eta=ETA, lr=1.0 / n**2, k=nu
    )

    def machine(p):
        model = SphericalBM(p["W"])
        return [float(model.lam[-1] - model.lam.mean()), *spherical_order_parameters(model, u)]

    def chains(p):
        return np.nan if gradient.X is None else float(np.mean((gradient.X @ u) ** 2) / n)

    res = train(
        {"W": np.zeros((n, n))},
        gradient,
        n_steps=UPDATES,
        lr=gradient.lr,
        rng=np.random.default_rng(SEED + n + (nu or 0)),
        record_every=RECORD,
        metrics={"machine": machine, "chains": chains},
    )
    h = res.history
    values = np.column_stack([np.array(h["machine"]), h["chains"]])
    late = values[h["step"] > UPDATES // 2]
    late = late[: len(late) // BATCHES * BATCHES]
    batches = late.reshape(BATCHES, -1, len(SERIES)).mean(axis=1)
    se = batches.std(axis=0, ddof=1) / np.sqrt(BATCHES)
    out = {}
    for i, name in enumerate(SERIES):
        out[f"{name}_mean"] = round(float(late[:, i].mean()), 5)
        out[f"{name}_se"] = float(f"{se[i]:.3g}")
    return out


def main() -> None:
    data = {}
    for n in SIZES:
        u = np.eye(n)[-1]
        teacher = SphericalBM(C_STAR * np.outer(u, u))
        X = teacher.sample(n, rng=np.random.default_rng(SEED))
        runs = {}
        for nu in (None, *NUS):
            start = time.perf_counter()
            runs["exact" if nu is None else str(nu)] = r = run(n, nu, X, u)
            print(
                f"N = {n}, nu = {nu}: top {r['top_mean']:.2f} ± {r['top_se']:.2f}, overlap "
                f"{r['overlap_mean']:.3f}, chains {r['chains_mean']:.3f} "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
        data[str(n)] = {
            "data_share": round(float(np.mean((X @ u) ** 2) / n), 4),
            "teacher_share": round(float(u @ teacher.second_moment() @ u / n), 4),
            "runs": runs,
        }
    params = {
        "sizes": SIZES,
        "nus": NUS,
        "c_star": C_STAR,
        "eta": ETA,
        "gamma_per_K": GAMMA_PER_K,
        "lr": "1 / N^2",
        "K": "N",
        "n_chains": "K",
        "updates": UPDATES,
        "record_every": RECORD,
        "batches": BATCHES,
        "seed": SEED,
        "chains_start": "random data rows",
    }
    sources = [
        "bmlab/posterior.py",
        "bmlab/spherical.py",
        "bmlab/learning.py",
        "bmlab/_checks.py",
        "benchmarks/record_spherical_pcd.py",
    ]
    path = save_results("spherical_pcd", data, params=params, sources=sources)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
