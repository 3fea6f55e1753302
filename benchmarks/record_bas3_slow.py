"""Record the slow 3x3 bars-and-stripes runs of notebook 05b (Sections 2 and 5).

RBM with 9 visible and 9 hidden units on 3x3 bars and stripes (16 rows, full batch), plain
gradient ascent, the settings of notebook 05: the exact gradient at rate 0.3 for 4000
updates (its final parameters too: Section 5 re-tunes their temperature), PCD-100 at rate
0.3 for 4000 updates, and PCD-1 at rate 0.03 for 40 000 updates with 16 or 256 fantasy
particles. Notebook 05b trains the cheap runs (CD-1, CD-10, PCD-1 at rate 0.3) live and
loads these. At every recorded update we store the exact mean log-likelihood (log Z by
enumeration) and the largest singular value of W.

    nice python benchmarks/record_bas3_slow.py   # about a minute

writes ``bmlab/recorded/bas3_slow.json``.
"""

from __future__ import annotations

import time

import numpy as np
from recording import save_results

from bmlab.data import bars_and_stripes
from bmlab.learning import train
from bmlab.rbm import RBM, ExactRBMGradient, PCDGradient

N_HIDDEN = 9
N_STEPS = 4000
SEED = 5

#: name -> (k, learning rate, updates, fantasy particles or None for one per row, record_every);
#: k = 0 is the exact gradient
RUNS = {
    "exact gradient": (0, 0.3, N_STEPS, None, 100),
    "PCD-100": (100, 0.3, N_STEPS, None, 100),
    "PCD-1, rate 0.03, 10x updates": (1, 0.03, 10 * N_STEPS, None, 100),
    "PCD-1, 256 fantasy particles, rate 0.03, 10x updates": (1, 0.03, 10 * N_STEPS, 256, 1000),
}


def run(name, k, lr, n_steps, n_chains, record_every, V):
    rng = np.random.default_rng(SEED)
    rbm = RBM.random(V.shape[1], N_HIDDEN, rng=rng, data=V)
    metrics = {
        "log_likelihood": lambda p: RBM.from_params(p).mean_log_likelihood(V),
        "top_singular_value": lambda p: float(np.linalg.svd(p["W"], compute_uv=False)[0]),
    }
    start = time.perf_counter()
    gradient = ExactRBMGradient(V) if k == 0 else PCDGradient(V, k, n_chains=n_chains)
    res = train(
        rbm.params,
        gradient,
        n_steps=n_steps,
        lr=lr,
        metrics=metrics,
        record_every=record_every,
        rng=rng,
    )
    h = res.history
    print(
        f"{name:55s} final {h['log_likelihood'][-1]:.3f}, top singular value "
        f"{h['top_singular_value'][-1]:.2f}  ({time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    return {
        "k": k,
        "lr": lr,
        "n_chains": None if k == 0 else len(V) if n_chains is None else n_chains,
        "step": h["step"].tolist(),
        "log_likelihood": np.round(h["log_likelihood"], 5).tolist(),
        "top_singular_value": np.round(h["top_singular_value"], 5).tolist(),
        "params": {key: x.tolist() for key, x in res.params.items()},  # exact, for Section 5
    }


def main() -> None:
    V = bars_and_stripes(3)
    data = {"runs": {name: run(name, *spec, V) for name, spec in RUNS.items()}}
    params = {
        "n": 3,
        "n_visible": 9,
        "n_hidden": N_HIDDEN,
        "batch": "full (16 rows)",
        "momentum": 0.0,
        "seed": SEED,
        "init": "W ~ N(0, 0.01^2), a = data log-odds, b = 0",
    }
    sources = [
        "bmlab/rbm.py",
        "bmlab/learning.py",
        "bmlab/data.py",
        "bmlab/exact.py",
        "bmlab/_parallel.py",
        "bmlab/_checks.py",
        "benchmarks/record_bas3_slow.py",
    ]
    path = save_results("bas3_slow", data, params=params, sources=sources)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
