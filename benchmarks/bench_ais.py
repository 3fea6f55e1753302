"""AIS for the log Z of an RBM: wall time per estimate at the settings of notebook 05b.

64 visible units (the digits), 100 and 500 hidden units, weights N(0, 0.1^2) and random
biases; 3000 temperatures, 100 chains, forward and reverse (reverse from given states, so no
enumeration is timed). Target on 2 cores: <= 20 s per estimate.

    .venv/bin/python benchmarks/bench_ais.py
"""

from __future__ import annotations

import time

import numpy as np

from bmlab import RBM, ais_log_partition

N_BETAS, N_CHAINS, TARGET_S = 3000, 100, 20.0


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'hidden':>6} {'direction':>9} {'s/estimate':>11}  target")
    for nh in (100, 500):
        rbm = RBM(rng.normal(0, 0.1, (64, nh)), rng.normal(0, 1, 64), rng.normal(0, 1, nh))
        v = rbm.sample(N_CHAINS, n_steps=100, rng=rng)
        for reverse in (False, True):
            start = time.perf_counter()
            ais_log_partition(
                rbm,
                n_betas=N_BETAS,
                n_chains=N_CHAINS,
                rng=rng,
                reverse=reverse,
                v=v if reverse else None,
            )
            seconds = time.perf_counter() - start
            verdict = "met" if seconds <= TARGET_S else "MISSED"
            print(
                f"{nh:6d} {'reverse' if reverse else 'forward':>9} {seconds:11.2f}  "
                f"<= {TARGET_S:.0f} s: {verdict}"
            )


if __name__ == "__main__":
    main()
