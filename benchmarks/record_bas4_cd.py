"""Record the 4x4 bars-and-stripes runs of notebook 05 (item 2), judged by the exact likelihood.

RBM with 16 visible and 16 hidden units, full batch (all 32 patterns), plain gradient ascent
(no momentum), the same learning rate and number of updates for every estimator. Every
``RECORD_EVERY`` updates we store the exact mean log-likelihood (log Z by enumerating the
16 hidden units), the reconstruction error and the largest singular value of W.

    nice python benchmarks/record_bas4_cd.py     # CD-1, CD-10, PCD-1, damped CD-1 (~2 min)
    nice python benchmarks/record_bas4_exact.py  # the exact-gradient reference (~12 min)

writes ``bmlab/recorded/bas4_cd.json`` or ``bas4_exact.json``.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from recording import save_results

from bmlab.data import bars_and_stripes, max_log_likelihood
from bmlab.learning import train
from bmlab.rbm import RBM, CDGradient, ExactRBMGradient, PCDGradient

N_STEPS = 30_000
RECORD_EVERY = 250
LR = 0.1
N_HIDDEN = 16
SEED = 2010

#: name -> (algorithm, k, learning rate, weight decay); PCD runs one chain per row (32)
RUNS = {
    "CD-1": ("cd", 1, LR, 0.0),
    "CD-10": ("cd", 10, LR, 0.0),
    "PCD-1": ("pcd", 1, LR, 0.0),
    "CD-1, weight decay 1e-3": ("cd", 1, LR, 1e-3),
    "CD-1, rate 0.02": ("cd", 1, 0.02, 0.0),
}
EXACT = {"exact gradient": ("exact", 1, LR, 0.0)}


def run(name, algorithm, k, lr, weight_decay, V):
    rng = np.random.default_rng(SEED)
    rbm = RBM.random(V.shape[1], N_HIDDEN, rng=rng, data=V)
    gradient = {
        "cd": lambda: CDGradient(V, k),
        "pcd": lambda: PCDGradient(V, k),
        "exact": lambda: ExactRBMGradient(V),
    }[algorithm]()
    metrics = {
        "log_likelihood": lambda p: RBM.from_params(p).mean_log_likelihood(V),
        "reconstruction_error": lambda p: RBM.from_params(p).reconstruction_error(V),
        "top_singular_value": lambda p: float(np.linalg.svd(p["W"], compute_uv=False)[0]),
    }
    start = time.perf_counter()
    res = train(
        rbm.params,
        gradient,
        n_steps=N_STEPS,
        lr=lr,
        weight_decay=weight_decay,
        metrics=metrics,
        record_every=RECORD_EVERY,
        rng=rng,
        progress=name,
    )
    h = res.history
    ll = h["log_likelihood"]
    print(
        f"{name:26s} peak {ll.max():.3f} at {h['step'][ll.argmax()]:6d}, "
        f"final {ll[-1]:.3f}  ({time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    return {
        "algorithm": algorithm,
        "k": k,
        "lr": lr,
        "weight_decay": weight_decay,
        "step": h["step"].tolist(),
        "log_likelihood": np.round(ll, 5).tolist(),
        "reconstruction_error": np.round(h["reconstruction_error"], 6).tolist(),
        "top_singular_value": np.round(h["top_singular_value"], 5).tolist(),
    }


def main(which: str = "cd") -> None:
    V = bars_and_stripes(4)
    runs = EXACT if which == "exact" else RUNS
    data = {
        "optimum": round(max_log_likelihood(V), 5),
        "runs": {name: run(name, *spec, V) for name, spec in runs.items()},
    }
    params = {
        "n": 4,
        "n_visible": 16,
        "n_hidden": N_HIDDEN,
        "n_steps": N_STEPS,
        "record_every": RECORD_EVERY,
        "batch": "full (32 rows)",
        "momentum": 0.0,
        "seed": SEED,
        "init": "W ~ N(0, 0.01^2), a = data log-odds, b = 0",
        "pcd_chains": 32,
    }
    name = "bas4_exact" if which == "exact" else "bas4_cd"
    sources = [
        "bmlab/rbm.py",
        "bmlab/learning.py",
        "bmlab/data.py",
        "bmlab/exact.py",
        "bmlab/_kernels.py",
        "bmlab/_parallel.py",
        "bmlab/_checks.py",
        "benchmarks/record_bas4_cd.py",
    ]
    if which == "exact":
        sources.append("benchmarks/record_bas4_exact.py")
    path = save_results(name, data, params=params, sources=sources)
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cd")
