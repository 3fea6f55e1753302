"""bmlab's RBM next to scikit-learn's BernoulliRBM on binarized 8x8 digits (notebook 05b, §4).

(a) Identical settings: PCD-1, batch 10, learning rate 0.1, 16 hidden units, W ~ N(0, 0.01^2),
    zero biases, no momentum or weight decay, the same number of epochs. Wall time per epoch
    is measured in the same run, alternating the two libraries (best of ``REPEATS``, one seed
    each), and the fitted models are scored by bmlab's *exact* log-likelihood (sklearn's
    weights read as W = components_.T, a = intercept_visible_, b = intercept_hidden_),
    averaged over the seeds: one seed's score varies by about a nat.
(b) Equal wall-clock: each side with its recommended settings gets the time sklearn needs for
    ``EPOCHS`` epochs -- sklearn its defaults (PCD-1, batch 10, rate 0.1); bmlab Hinton's
    guide (visible biases at the data log-odds, PCD-1, batch 10, rate 0.05, momentum 0.5);
    scores averaged over the same seeds.

    nice python benchmarks/record_sklearn_rbm.py   # ~1 min; writes bmlab/recorded/sklearn_rbm.json
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
from recording import save_results
from sklearn.neural_network import BernoulliRBM

from bmlab.data import binarized_digits
from bmlab.learning import train
from bmlab.rbm import RBM, PCDGradient

SEED = 7
N_HIDDEN = 16
EPOCHS = 20
BATCH = 10
LR = 0.1
REPEATS = 5
N_TRAIN = 1500


def split():
    V = binarized_digits()
    order = np.random.default_rng(SEED).permutation(V.shape[0])
    return V[order[:N_TRAIN]], V[order[N_TRAIN:]]


def fit_sklearn(V, epochs, seed):
    model = BernoulliRBM(
        n_components=N_HIDDEN, learning_rate=LR, batch_size=BATCH, n_iter=epochs, random_state=seed
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(V)
    elapsed = time.perf_counter() - start
    return RBM(model.components_.T, model.intercept_visible_, model.intercept_hidden_), elapsed


def fit_bmlab(V, epochs, seed, *, lr=LR, momentum=0.0, log_odds=False):
    rng = np.random.default_rng(seed)
    rbm = RBM.random(V.shape[1], N_HIDDEN, rng=rng, data=V if log_odds else None)
    gradient = PCDGradient(V, 1, batch_size=BATCH)
    n_steps = epochs * (V.shape[0] // BATCH)
    start = time.perf_counter()
    # no progress bar: sklearn (verbose=0) draws none either, so both sides time the same work
    res = train(
        rbm.params,
        gradient,
        n_steps=n_steps,
        lr=lr,
        momentum=momentum,
        rng=rng,
        record_every=n_steps,
    )
    elapsed = time.perf_counter() - start
    return RBM.from_params(res.params), elapsed


def scores(models, train_V, test_V):
    """Exact mean log-likelihoods averaged over ``models`` (one per seed), with the spread."""
    tr = [m.mean_log_likelihood(train_V) for m in models]
    te = [m.mean_log_likelihood(test_V) for m in models]
    return {
        "train_ll": round(float(np.mean(tr)), 2),
        "test_ll": round(float(np.mean(te)), 2),
        "test_ll_sd": round(float(np.std(te, ddof=1)), 2),
        "test_ll_per_seed": [round(float(x), 2) for x in te],
    }


def main():
    train_V, test_V = split()
    seeds = [SEED + rep for rep in range(REPEATS)]
    # (a) identical settings, alternating; time = best of REPEATS, scores = mean over the seeds
    t_sk, t_bm, sk_models, bm_models = [], [], [], []
    for seed in seeds:
        sk_model, ts = fit_sklearn(train_V, EPOCHS, seed)
        bm_model, tb = fit_bmlab(train_V, EPOCHS, seed)
        t_sk.append(ts / EPOCHS)
        t_bm.append(tb / EPOCHS)
        sk_models.append(sk_model)
        bm_models.append(bm_model)
        print(
            f"seed {seed}: sklearn {1e3 * ts / EPOCHS:.1f} ms/epoch, "
            f"bmlab {1e3 * tb / EPOCHS:.1f} ms/epoch",
            flush=True,
        )
    a = {
        "sklearn": {
            "ms_per_epoch": round(1e3 * min(t_sk), 2),
            **scores(sk_models, train_V, test_V),
        },
        "bmlab": {"ms_per_epoch": round(1e3 * min(t_bm), 2), **scores(bm_models, train_V, test_V)},
    }
    a["speedup_bmlab_over_sklearn"] = round(min(t_sk) / min(t_bm), 2)
    a["load_average"] = [round(x, 2) for x in os.getloadavg()]  # 1, 5, 15 min, after timing
    # (b) equal wall-clock with recommended settings, same seeds
    budget = min(t_sk) * EPOCHS
    bm_epochs = max(1, int(budget / min(t_bm)))
    sk_models = [fit_sklearn(train_V, EPOCHS, seed)[0] for seed in seeds]
    bm_models = [
        fit_bmlab(train_V, bm_epochs, seed, lr=0.05, momentum=0.5, log_odds=True)[0]
        for seed in seeds
    ]
    b = {
        "budget_s": round(budget, 2),
        "sklearn": {
            "epochs": EPOCHS,
            **scores(sk_models, train_V, test_V),
            "settings": "defaults: PCD-1, batch 10, rate 0.1, zero biases",
        },
        "bmlab": {
            "epochs": bm_epochs,
            **scores(bm_models, train_V, test_V),
            "settings": "PCD-1, batch 10, rate 0.05, momentum 0.5, a = data log-odds",
        },
    }

    def row(part, label, lib, size):
        r = part[lib]
        return (
            f"| {label} | {lib} | {size} | {r['train_ll']} | {r['test_ll']} ± {r['test_ll_sd']} |"
        )

    table = [
        f"| comparison | library | ms/epoch or epochs | train LL | held-out LL (± sd over "
        f"{REPEATS} seeds) |",
        "| --- | --- | --- | --- | --- |",
        row(a, "(a) identical", "sklearn", f"{a['sklearn']['ms_per_epoch']} ms"),
        row(a, "(a) identical", "bmlab", f"{a['bmlab']['ms_per_epoch']} ms"),
        row(b, f"(b) equal time {b['budget_s']} s", "sklearn", f"{EPOCHS} epochs"),
        row(b, f"(b) equal time {b['budget_s']} s", "bmlab", f"{bm_epochs} epochs"),
    ]
    print("\n".join(table))
    print(
        f"bmlab speed-up per epoch (same run): {a['speedup_bmlab_over_sklearn']}x "
        f"(load average {a['load_average']})"
    )
    params = {
        "n_hidden": N_HIDDEN,
        "epochs": EPOCHS,
        "batch": BATCH,
        "lr": LR,
        "seeds": seeds,
        "n_train": N_TRAIN,
        "n_test": int(test_V.shape[0]),
        "repeats": REPEATS,
        "threshold": "pixel > 8 of 16",
        "algorithm": "PCD-1",
    }
    sources = [
        "bmlab/rbm.py",
        "bmlab/learning.py",
        "bmlab/data.py",
        "bmlab/exact.py",
        "bmlab/_kernels.py",
        "bmlab/_parallel.py",
        "bmlab/_checks.py",
        "benchmarks/record_sklearn_rbm.py",
    ]
    path = save_results(
        "sklearn_rbm",
        {"identical": a, "equal_time": b, "table": table},
        params=params,
        sources=sources,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
