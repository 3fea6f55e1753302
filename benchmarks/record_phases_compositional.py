"""Record the compositional phase beyond enumeration, notebook 07, Section 5.

Two orthogonal modes of strength w = 1 (``rbm_ensemble(..., orthogonal=True)``), no noise,
N_v = N_h = N for N = 200 and 1000, components Rademacher, Gaussian and Laplace (kurtosis 1,
3, 6). At beta w = BETA (T below the ferromagnetic line T = w):

- two independent block-Gibbs ladders with parallel tempering (``rbm_tempering``, K betas
  from 1/1.4 to BETA), BURN_IN sweeps discarded, then the mode magnetisations (m_1, m_2) at
  the coldest beta every other sweep: their histogram per ladder (40 x 40 bins on [-1, 1]^2),
  the composition <4 m_1^2 m_2^2> / <(m_1^2 + m_2^2)^2>, the weight of each quadrant, and the
  swap rates;
- the naive mean-field fixed points of the same machine from STARTS random starts
  (``mean_field``): (m_1, m_2), free energy, hits, converged.

    nice python benchmarks/record_phases_compositional.py   # about 20 minutes of CPU

writes ``bmlab/recorded/phases_compositional.json``.
"""

from __future__ import annotations

import time

import numpy as np
from recording import save_results

from bmlab.phases import mean_field, rbm_ensemble, rbm_tempering

SIZES = (200, 1000)
LAWS = ("rademacher", "gaussian", "laplace")
BETA = 1.3
K = 24
BURN_IN, MEASURE = 4000, 16000
STARTS = 16
EDGES = np.linspace(-1.0, 1.0, 41)
SEED = 8


def composition(m: np.ndarray) -> float:
    r2 = (m**2).sum(axis=-1)
    return float(np.mean(4 * m[..., 0] ** 2 * m[..., 1] ** 2) / np.mean(r2**2))


def machine(law: str, n: int, rng) -> dict:
    start = time.perf_counter()
    W, U, _ = rbm_ensemble(n, n, [1.0, 1.0], components=law, orthogonal=True, rng=rng)
    betas = np.linspace(1 / 1.4, BETA, K)
    run = rbm_tempering(
        W, betas=betas, n_sweeps=BURN_IN + MEASURE, modes=U, record_every=2, rng=rng
    )
    m = run.projections[BURN_IN // 2 :, -1]  # (records, 2 ladders, 2 modes) at the coldest beta
    ladders = []
    for c in range(2):
        hist = np.histogram2d(m[:, c, 0], m[:, c, 1], bins=[EDGES, EDGES])[0] / len(m)
        quadrants = [
            np.mean(((m[:, c, 0] > 0) == x0) & ((m[:, c, 1] > 0) == x1))
            for x0 in (True, False)
            for x1 in (True, False)
        ]
        ladders.append(
            {
                "hist": np.round(hist, 6).tolist(),
                "composition": round(composition(m[:, c]), 4),
                "mean_abs": np.round(np.abs(m[:, c]).mean(axis=0), 4).tolist(),
                "quadrants": np.round(quadrants, 4).tolist(),
            }
        )
    fp = mean_field(W, beta=BETA, starts=rng.uniform(-1, 1, (STARTS, n)))
    modes = fp.m_v @ U / n
    order = np.argsort(fp.free_energy, kind="stable")
    print(
        f"{law:10s} N = {n}: {time.perf_counter() - start:.0f} s; swaps "
        f"{run.swap_rates.min():.2f}..{run.swap_rates.max():.2f}; composition "
        f"{[x['composition'] for x in ladders]}",
        flush=True,
    )
    return {
        "ladders": ladders,
        "composition": round(composition(m.reshape(-1, 2)), 4),
        "swap_rates": np.round(run.swap_rates, 4).tolist(),
        "mean_field": {
            "m": np.round(modes[order], 5).tolist(),
            "free_energy_per_unit": np.round(fp.free_energy[order] / (2 * n), 6).tolist(),
            "hits": fp.hits[order].tolist(),
            "converged": fp.converged[order].tolist(),
        },
    }


def main() -> None:
    rng = np.random.default_rng(SEED)
    data = {
        "edges": EDGES.tolist(),
        "machines": {f"{law} {n}": machine(law, n, rng) for n in SIZES for law in LAWS},
    }
    params = {
        "strengths": [1.0, 1.0],
        "sigma": 0.0,
        "beta": BETA,
        "betas": f"{K} from 1/1.4 to {BETA}, equally spaced",
        "burn_in": BURN_IN,
        "measure": MEASURE,
        "record_every": 2,
        "mean_field_starts": STARTS,
        "seed": SEED,
    }
    sources = [
        "bmlab/phases.py",
        "bmlab/glauber.py",
        "bmlab/exact.py",
        "bmlab/_kernels.py",
        "bmlab/_parallel.py",
        "bmlab/_checks.py",
        "benchmarks/record_phases_compositional.py",
    ]
    path = save_results("phases_compositional", data, params=params, sources=sources)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
