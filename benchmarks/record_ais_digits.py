"""The mean log-likelihood of digit RBMs bracketed by AIS and reverse AIS (notebook 05b, Section 3).

RBMs with 64 visible and 20, 100 or 500 hidden units are trained on 1500 binarized digits
(a random split of its own, seed 5; the rest held out) with PCD-1, batch 10, rate 0.05, 3000
updates (20 epochs), visible biases started at the data's log-odds. Each model's log Z is
estimated by forward AIS (base: independent pixels at the data's log-odds, exact samples) and
by reverse AIS started from
long Gibbs chains (1000 block-Gibbs steps from random training images: approximate samples of
the model, so the reverse side of the bracket holds only as far as these chains have mixed).
The 20-hidden model is also scored exactly (2**20 hidden states) to grade the bracket.

    OPENBLAS_NUM_THREADS=1 nice python benchmarks/record_ais_digits.py   # a few minutes
"""

from __future__ import annotations

import numpy as np
from recording import save_results

from bmlab.ais import ais_log_partition
from bmlab.data import binarized_digits
from bmlab.learning import train
from bmlab.rbm import RBM, PCDGradient

SEED = 5
HIDDEN = (20, 100, 500)
N_BETAS, N_CHAINS, GIBBS_STEPS = 3000, 100, 1000


def main() -> None:
    rng = np.random.default_rng(SEED)
    digits = binarized_digits()
    order = rng.permutation(digits.shape[0])
    train_D, test_D = digits[order[:1500]], digits[order[1500:]]
    rows = {}
    for nh in HIDDEN:
        init = RBM.random(64, nh, rng=rng, data=train_D)
        model = RBM.from_params(
            train(
                init.params, PCDGradient(train_D, 1, batch_size=10), n_steps=3000, lr=0.05, rng=rng
            ).params
        )
        fwd = ais_log_partition(model, n_betas=N_BETAS, n_chains=N_CHAINS, rng=rng, a_base=init.a)
        v = model.gibbs(train_D[rng.integers(0, len(train_D), N_CHAINS)], GIBBS_STEPS, rng=rng)
        rev = ais_log_partition(
            model, n_betas=N_BETAS, n_chains=N_CHAINS, rng=rng, reverse=True, v=v, a_base=init.a
        )
        row = {
            "log_z_ais": fwd.log_Z,
            "stderr_ais": fwd.stderr,
            "log_z_reverse": rev.log_Z,
            "stderr_reverse": rev.stderr,
            "log_z_exact": model.log_partition() if nh <= 20 else None,
        }
        for name, D in (("train", train_D), ("test", test_D)):
            row[f"mean_neg_free_energy_{name}"] = float(-np.mean(model.free_energy(D)))
        rows[str(nh)] = row
        print(nh, {k: None if v is None else round(v, 3) for k, v in row.items()}, flush=True)
    save_results(
        "ais_digits",
        {"hidden": rows},
        params={
            "seed": SEED,
            "hidden": list(HIDDEN),
            "n_betas": N_BETAS,
            "n_chains": N_CHAINS,
            "gibbs_steps_reverse": GIBBS_STEPS,
            "train": "PCD-1, batch 10, lr 0.05, 3000 updates",
        },
        sources=[
            "bmlab/ais.py",
            "bmlab/rbm.py",
            "bmlab/learning.py",
            "bmlab/data.py",
            "bmlab/exact.py",
            "bmlab/_kernels.py",
            "bmlab/_parallel.py",
            "bmlab/_checks.py",
            "benchmarks/record_ais_digits.py",
        ],
    )


if __name__ == "__main__":
    main()
