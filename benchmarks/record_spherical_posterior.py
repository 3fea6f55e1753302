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
posterior predictive; a row of round(4 x), space-separated, per sample). Per chain, the
posterior-predictive ensemble of its 100 draws, p(x) = mean_m p_{W_m}(x): its reverse and
forward KL from the teacher by Monte Carlo, with exact draws and exact log-densities
(:func:`ensemble_kl`, checked first against quadrature at N = 2), each with its standard error;
these draw from a generator of their own, so every other number is as the chains alone make it.

    nice .venv/bin/python benchmarks/record_spherical_posterior.py   # about 12 min on one core

writes ``bmlab/recorded/spherical_posterior.json``.
"""

from __future__ import annotations

import time

import numpy as np
from recording import save_results
from scipy.special import logsumexp

from bmlab.posterior import spherical_kl, spherical_order_parameters, spherical_posterior
from bmlab.spherical import SphericalBM

N, K, SEED = 50, 50, 62
TEACHERS = (1.5, 3.0)
ETAS = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
GAMMAS = (3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0)
BETAS = tuple(float(b) for b in np.round(np.geomspace(0.25, 4.0, 9), 3))  # 1 among them
BURN_IN, DRAWS, THIN, BATCHES = 1000, 100, 20, 10
STRIP = 6
ENSEMBLE_DRAWS = (
    10  # exact samples of each machine of an ensemble (and 10 per machine of the teacher)
)
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


def ensemble_kl(models, teacher, rng, per_model: int = ENSEMBLE_DRAWS) -> dict:
    """KL between the ensemble's law p(x) = mean_m p_m(x) of spherical machines ``models`` and the
    teacher's, both directions, by Monte Carlo: exact draws (``per_model`` of each machine, so the
    mixture is sampled stratified; as many of the teacher) and exact log-densities. Returns the
    two means and their standard errors."""
    log_Z = np.array([m.log_partition() for m in models])

    def log_density(model, x, log_z):
        return 0.5 * np.einsum("ij,ij->i", x @ model.W, x) - log_z

    def log_mixture(x):
        each = np.column_stack([log_density(m, x, z) for m, z in zip(models, log_Z, strict=True)])
        return logsumexp(each, axis=1) - np.log(len(models))

    x = np.concatenate([m.sample(per_model, rng=rng) for m in models])
    y = teacher.sample(per_model * len(models), rng=rng)
    log_star = teacher.log_partition()
    reverse = log_mixture(x) - log_density(teacher, x, log_star)
    forward = log_density(teacher, y, log_star) - log_mixture(y)
    out = {}
    for name, v in (("reverse", reverse), ("forward", forward)):
        out[f"ensemble_{name}_kl"] = round(float(v.mean()), 5)
        out[f"ensemble_{name}_kl_se"] = float(f"{v.std(ddof=1) / np.sqrt(len(v)):.3g}")
    return out


def check_ensemble_kl() -> None:
    """:func:`ensemble_kl` against quadrature on the circle (N = 2): three machines, a teacher;
    raises unless both directions agree within 4 standard errors."""
    rng = np.random.default_rng(7)
    models = [
        SphericalBM(np.array([[a, b], [b, -a]])) for a, b in ((1.0, 0.5), (-2.0, 1.0), (0.3, -3.0))
    ]
    teacher = SphericalBM(np.diag([0.0, 3.0]))
    phi = np.linspace(0.0, 2 * np.pi, 200_001)[:-1]
    x = np.sqrt(2.0) * np.column_stack([np.cos(phi), np.sin(phi)])

    def density(m):  # relative to the uniform law on the circle
        return np.exp(0.5 * np.einsum("ij,ij->i", x @ m.W, x) - m.log_partition())

    mixture, star = np.mean([density(m) for m in models], axis=0), density(teacher)
    exact = {
        "reverse": np.mean(mixture * np.log(mixture / star)),
        "forward": np.mean(star * np.log(star / mixture)),
    }
    got = ensemble_kl(models, teacher, rng, per_model=20_000)
    for name, value in exact.items():
        z = (got[f"ensemble_{name}_kl"] - value) / got[f"ensemble_{name}_kl_se"]
        if not abs(z) < 4:
            raise RuntimeError(
                f"ensemble_kl ({name}) disagrees with quadrature at N = 2: z = {z:.1f}"
            )
        print(f"ensemble_kl at N = 2 ({name}): {value:.4f} by quadrature, z = {z:+.2f}", flush=True)


def grid_point(c_star, eta, gamma, u, teacher, X, seed):
    rng = np.random.default_rng(seed)
    wide = rng.normal(size=(N, N))
    starts = (None, 2.0 * (wide + wide.T) / np.sqrt(2 * N))  # semicircle on [-4, 4]
    chains, draws, ensemble_rng = [], None, np.random.default_rng([seed, 1])
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
        chains[-1] |= ensemble_kl([SphericalBM(W) for W in S], teacher, ensemble_rng)
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
    check_ensemble_kl()
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
        "ensemble_draws": ENSEMBLE_DRAWS,
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
