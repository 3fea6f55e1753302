"""Record the tempered posterior of the spherical machine over a grid (notebook 06b, Sections
2-5, and its panel).

Teacher W* = c* u u^T with u the last coordinate axis, c* = 1.5 (weak) or 3 (strong); K = 50
exact draws of it in N = 50 dimensions (seeded, as the notebook draws them). For each teacher,
eta in ETAS and gamma in GAMMAS, two independent chains of ``bmlab.spherical_posterior``
(one from W = 0, one from a random symmetric W with a wide spectrum; 1000 burn-in steps,
then 100 draws 20 steps apart). For every draw, exactly: the order parameters against u
(alignment, condensation, overlap), the reverse KL(model || teacher) and the forward
KL(teacher || model), and the top eigenvalue of W minus the mean eigenvalue. Stored per chain:
the means and their batch-means standard errors (10 batches), and the integrated
autocorrelation time of the reverse KL in steps. For 25 draws of the first chain, the reverse
KL and the overlap at sampling temperatures BETAS; for 6 draws, one exact sample x each (the
posterior predictive; a row of round(4 x), space-separated, per sample).

    nice .venv/bin/python benchmarks/record_spherical_posterior.py   # about 15 min idle

writes ``bmlab/recorded/spherical_posterior.json``.
"""

from __future__ import annotations

import time

import numpy as np
from recording import save_results

from bmlab.posterior import spherical_kl, spherical_order_parameters, spherical_posterior
from bmlab.spherical import SphericalBM

N, K, SEED = 50, 50, 62
TEACHERS = (1.5, 3.0)
ETAS = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
GAMMAS = (3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0)
BETAS = tuple(float(b) for b in np.round(np.geomspace(0.25, 4.0, 9), 3))  # 1 among them
BURN_IN, DRAWS, THIN, BATCHES = 1000, 100, 20, 10
STRIP = 6
MEASURES = ("alignment", "condensation", "overlap", "reverse_kl", "forward_kl", "top")


def teacher_and_data(c_star: float):
    """The teacher along the last axis and its K draws (the notebook draws the same)."""
    u = np.eye(N)[-1]
    teacher = SphericalBM(c_star * np.outer(u, u))
    return u, teacher, teacher.sample(K, rng=np.random.default_rng(SEED))


def measures(W, u, teacher) -> list[float]:
    model = SphericalBM(W)
    return [
        *spherical_order_parameters(model, u),
        spherical_kl(model, teacher),
        spherical_kl(teacher, model),
        float(model.lam[-1] - model.lam.mean()),
    ]


def tau_steps(x: np.ndarray) -> float:
    """Integrated autocorrelation time of a series of draws THIN steps apart, in steps
    (Sokal's window: sum the autocorrelation up to the first lag M >= 5 tau)."""
    x = x - x.mean()
    n = len(x)
    rho = np.correlate(x, x, "full")[n - 1 :] / (np.arange(n, 0, -1) * x.var())
    tau = 1.0
    for m in range(1, n // 2):
        tau = 1.0 + 2.0 * rho[1 : m + 1].sum()
        if m >= 5 * tau:
            break
    return float(max(tau, 1.0) * THIN)


def chain_summary(values: np.ndarray) -> dict:
    batches = values.reshape(BATCHES, -1, values.shape[1]).mean(axis=1)
    se = batches.std(axis=0, ddof=1) / np.sqrt(BATCHES)
    out = {f"{m}": round(float(v), 5) for m, v in zip(MEASURES, values.mean(axis=0), strict=True)}
    out |= {f"{m}_se": float(f"{s:.3g}") for m, s in zip(MEASURES, se, strict=True)}
    out["tau_steps"] = round(tau_steps(values[:, 3]), 1)
    return out


def grid_point(c_star, eta, gamma, u, teacher, X, seed):
    rng = np.random.default_rng(seed)
    wide = rng.normal(size=(N, N))
    starts = (None, 2.0 * (wide + wide.T) / np.sqrt(2 * N))  # semicircle on [-4, 4]
    chains, draws = [], None
    for start in starts:
        S = spherical_posterior(
            X,
            gamma=gamma,
            eta=eta,
            n_samples=DRAWS,
            thin=THIN,
            burn_in=BURN_IN,
            rng=rng,
            start=start,
        )
        chains.append(chain_summary(np.array([measures(W, u, teacher) for W in S])))
        draws = S if draws is None else draws
    scan = {"reverse_kl": [], "overlap": []}
    for beta in BETAS:
        picked = draws[:: DRAWS // 25]
        kls = [spherical_kl(SphericalBM(beta * W), teacher) for W in picked]
        shares = [spherical_order_parameters(SphericalBM(W), u, beta=beta)[2] for W in picked]
        scan["reverse_kl"].append(round(float(np.mean(kls)), 3))
        scan["overlap"].append(round(float(np.mean(shares)), 4))
    strip = [
        " ".join(str(int(v)) for v in np.round(4 * SphericalBM(W).sample(1, rng=rng)[0]))
        for W in draws[:: DRAWS // STRIP][:STRIP]
    ]
    return {
        "c_star": c_star,
        "eta": eta,
        "gamma": gamma,
        "chains": chains,
        "beta_scan": scan,
        "strip": strip,
    }


def main() -> None:
    points, data = [], {}
    for i, c_star in enumerate(TEACHERS):
        u, teacher, X = teacher_and_data(c_star)
        data[str(c_star)] = {
            "data_share": round(float(np.mean((X @ u) ** 2) / N), 6),
            "teacher_share": round(float(u @ teacher.second_moment() @ u / N), 6),
            "uniform_reverse_kl": round(float(teacher.log_partition() - c_star / 2), 6),
        }
        for j, eta in enumerate(ETAS):
            for k, gamma in enumerate(GAMMAS):
                start = time.perf_counter()
                seed = 1000 * i + 100 * j + k
                points.append(grid_point(c_star, eta, gamma, u, teacher, X, seed))
                a, b = points[-1]["chains"]
                print(
                    f"c* {c_star} eta {eta:5} gamma {gamma:7}: reverse KL {a['reverse_kl']:.2f} / "
                    f"{b['reverse_kl']:.2f}, condensation {a['condensation']:.2f}, alignment "
                    f"{a['alignment']:.2f}, tau {a['tau_steps']:.0f} steps "
                    f"({time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
    params = {
        "N": N,
        "K": K,
        "seed": SEED,
        "teachers": TEACHERS,
        "etas": ETAS,
        "gammas": GAMMAS,
        "betas": BETAS,
        "burn_in": BURN_IN,
        "draws": DRAWS,
        "thin": THIN,
        "batches": BATCHES,
        "strip": STRIP,
        "teacher_direction": "last coordinate axis",
    }
    sources = [
        "bmlab/posterior.py",
        "bmlab/spherical.py",
        "bmlab/_checks.py",
        "benchmarks/record_spherical_posterior.py",
    ]
    path = save_results(
        "spherical_posterior", {"teachers": data, "points": points}, params=params, sources=sources
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
