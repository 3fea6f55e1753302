"""The planted mistakes of ``make mutation``: plausible one-line slips in bmlab's core.

Each mutant names the module, a snippet that occurs there exactly once, its mutated form, and
the fast unit tests that cover the module. Keep the list in step with the code: a snippet
that no longer occurs makes ``run.py`` stop with the mutant's name, and
``tests/test_mutants_fresh.py`` fails ``make test`` the same way. Equivalent mutants (same
behaviour, e.g. a reordering of an exact sum) do not belong here.
"""

from __future__ import annotations

from typing import NamedTuple

#: Share of mutants the unit tests alone must kill (issue 16).
TARGET_SCORE = 0.95


class Mutant(NamedTuple):
    name: str
    module: str
    original: str
    mutated: str
    tests: tuple[str, ...]


EXACT = ("tests/test_exact.py",)
PARALLEL = ("tests/test_exact.py", "tests/test_rbm.py")
GLAUBER = ("tests/test_glauber.py",)
RBM = ("tests/test_rbm.py",)
LEARNING = ("tests/test_learning.py",)
HIDDEN = ("tests/test_hidden.py",)
VISIBLE = ("tests/test_visible.py",)
DATA = ("tests/test_data.py", "tests/test_data_parity.py")
AIS = ("tests/test_ais.py",)
TEMPERING = ("tests/test_tempering.py",)
EXERCISES = ("tests/test_exercises.py",)
PHASES = ("tests/test_phases.py",)
POSTERIOR = ("tests/test_posterior.py",)
SPHERICAL = ("tests/test_spherical.py",)


def _mutants(module, tests, *rows):
    return [
        Mutant(name, f"bmlab/{module}.py", original, mutated, tests)
        for name, original, mutated in rows
    ]


MUTANTS = [
    *_mutants(
        "_kernels",
        EXACT,
        ("exact: energy without the 1/2", "-0.5 * np.einsum", "-1.0 * np.einsum"),
        (
            "exact: energy with the bias sign flipped",
            "S @ J, S) - S @ theta",
            "S @ J, S) + S @ theta",
        ),
        (
            "exact: state order reversed (bit 1 -> spin -1)",
            "else 2.0 * bits - 1.0",
            "else 1.0 - 2.0 * bits",
        ),
        (
            "exact: Boltzmann weight exp(+beta E)",
            "-beta * _energy(codes_to_states",
            "beta * _energy(codes_to_states",
        ),
        ("exact: probabilities not normalised", "logw -= logsumexp(logw)", "logw -= logw.max()"),
    ),
    *_mutants(
        "_kernels",
        GLAUBER,
        (
            "glauber: transition matrix with sigma(beta h) for sigma(2 beta h)",
            "dE = 2.0 * S * (S @ J + theta)",
            "dE = S * (S @ J + theta)",
        ),
        (
            "glauber: transition matrix without the 1/N site choice",
            "w = expit(-beta * dE) / n",
            "w = expit(-beta * dE)",
        ),
        (
            "glauber: transition matrix stay probability",
            "T[codes, codes] = 1.0 - w.sum(axis=1)",
            "T[codes, codes] = w.sum(axis=1)",
        ),
        (
            "glauber: transition matrix flips the mirrored bit",
            "codes[:, None] ^ (1 << np.arange(n))",
            "codes[:, None] ^ (1 << np.arange(n)[::-1])",
        ),
    ),
    *_mutants(
        "_kernels",
        RBM,
        (
            "rbm: softplus block off by one at 512 columns",
            "X[:, start : start + 512]",
            "X[:, start : start + 511]",
        ),
        (
            "rbm: softplus without the absolute value",
            "np.exp(-np.abs(X[:, start",
            "np.exp(-(X[:, start",
        ),
    ),
    *_mutants(
        "exact",
        EXACT,
        (
            "exact: state codes count the -1 spins",
            "(S > 0).astype(np.int64)",
            "(S < 0).astype(np.int64)",
        ),
        (
            "exact: split log Z with half the cross term",
            "F = beta * (A @ J[:na, na:])",
            "F = 0.5 * beta * (A @ J[:na, na:])",
        ),
        (
            "exact: split log Z drops the row maximum",
            "return gA[start:stop] + peak + np.log",
            "return gA[start:stop] + np.log",
        ),
        ("exact: split log Z subtracts the B energies", "M += gB", "M -= gB"),
        ("exact: moments keep only the last chunk", "m += w @ S", "m = w @ S"),
        ("exact: <s_i s_i> set to 0", "np.fill_diagonal(C, 1.0)", "np.fill_diagonal(C, 0.0)"),
        (
            "exact: empirical distribution divided by the number of states",
            "return counts / counts.sum()",
            "return counts / len(counts)",
        ),
        ("exact: sample_exact draws uniform states", "size=n_samples, p=p)", "size=n_samples)"),
    ),
    *_mutants(
        "_parallel",
        PARALLEL,
        (
            "parallel: chunks stop one state early",
            "min(total, start + size))",
            "min(total, start + size - 1))",
        ),
        (
            "parallel: first state skipped",
            "for start in range(0, total, size)",
            "for start in range(1, total, size)",
        ),
    ),
    *_mutants(
        "glauber",
        GLAUBER,
        (
            "glauber: sampler uses sigma(beta h) for sigma(2 beta h)",
            "scale = -2.0 if per_chain else -2.0 * beta",
            "scale = -1.0 if per_chain else -1.0 * beta",
        ),
        (
            "glauber: sampler with the bias sign flipped",
            "tb = scale * theta",
            "tb = -scale * theta",
        ),
        (
            "glauber: sequential update compares the wrong way",
            "S[k] = np.where(e < threshold[t], 1.0, -1.0)",
            "S[k] = np.where(e > threshold[t], 1.0, -1.0)",
        ),
        ("glauber: threshold 1/u instead of 1/u - 1", "threshold -= 1.0", "threshold -= 0.0"),
        (
            "glauber: sequential sweep skips the last site",
            "sites = np.arange(steps) % n",
            "sites = np.arange(steps) % (n - 1)",
        ),
        (
            "glauber: random sites never pick the last site",
            "rng.integers(n, size=(steps, n_chains))",
            "rng.integers(n - 1, size=(steps, n_chains))",
        ),
        ("glauber: sequential bias subtracted", "e += tb[k]", "e -= tb[k]"),
        (
            "glauber: random-order update with the bias sign flipped",
            "Jb[k], S) + tb[k]",
            "Jb[k], S) - tb[k]",
        ),
        ("glauber: record time off by one", "record(done * n + t + 1)", "record(done * n + t)"),
        ("glauber: block boundary skips a sweep", "done += steps // n", "done += steps // n + 1"),
        (
            "glauber: one record too few",
            "n_records = c.n_sweeps * n // every",
            "n_records = c.n_sweeps * n // every - 1",
        ),
        (
            "glauber: record times start at 0",
            "sweeps=np.arange(1, n_records + 1) * every / n",
            "sweeps=np.arange(n_records) * every / n",
        ),
        (
            "glauber: record units swapped",
            '(1 if record_unit == "update" else n)',
            '(n if record_unit == "update" else 1)',
        ),
        (
            "glauber: default start all -1",
            "return np.ones((n, n_chains))",
            "return -np.ones((n, n_chains))",
        ),
    ),
    *_mutants(
        "rbm",
        RBM,
        (
            "rbm: log Z field with the bias sign flipped",
            "_softplus_sum(S @ M + d))",
            "_softplus_sum(S @ M - d))",
        ),
        (
            "rbm: log Z takes the largest chunk instead of summing chunks",
            "return float(logsumexp(map_chunks(part",
            "return float(max(map_chunks(part",
        ),
        (
            "rbm: moments' chunk weights not normalised",
            "- logsumexp([p[0] for p in parts]))",
            "- max(p[0] for p in parts))",
        ),
        (
            "rbm: moments with p(h=0|v) for p(h=1|v)",
            "P = expit(X)  # the summed-out",
            "P = expit(-X)  # the summed-out",
        ),
        (
            "rbm: enumerated hidden layer's moments not transposed",
            "return EP, ES, ESP.T",
            "return EP, ES, ESP",
        ),
        (
            "rbm: enumerated hidden layer with the biases swapped",
            "return W.shape[1], W.T, b, a",
            "return W.shape[1], W.T, a, b",
        ),
        (
            "rbm: exact gradient's clamped phase without the hidden bias",
            "Ph = expit(V @ W + b)",
            "Ph = expit(V @ W)",
        ),
        (
            "rbm: exact gradient of a with the phases swapped",
            '"a": V.mean(axis=0) - Ev',
            '"a": Ev - V.mean(axis=0)',
        ),
        (
            "rbm: free energy with the visible bias sign flipped",
            "F = -(V2 @ self.a) -",
            "F = (V2 @ self.a) -",
        ),
        (
            "rbm: log p(v) adds log Z",
            "return -self.free_energy(V) - _log_partition",
            "return -self.free_energy(V) + _log_partition",
        ),
        (
            "rbm: hidden_probs with the bias subtracted",
            '"V")) @ self.W + self.b)',
            '"V")) @ self.W - self.b)',
        ),
        (
            "rbm: visible_probs with the bias subtracted",
            '"H")) @ self.W.T + self.a)',
            '"H")) @ self.W.T - self.a)',
        ),
        (
            "rbm: Gibbs draws h = 1 with probability 1 - p(h|v)",
            "H = rng.random((len(V2), self.W.shape[1])) < expit",
            "H = rng.random((len(V2), self.W.shape[1])) > expit",
        ),
        (
            "rbm: Gibbs v step without the visible bias",
            "V2 = (rng.random(V2.shape) < expit(H @ self.W.T + self.a))",
            "V2 = (rng.random(V2.shape) < expit(H @ self.W.T))",
        ),
        (
            "rbm: CD negative phase taken from the data",
            "return _two_phases(v0, vk, W, b)[0]",
            "return _two_phases(v0, v0, W, b)[0]",
        ),
        (
            "rbm: CD restarts every Gibbs step from the data",
            "h = rng.random((len(vk), W.shape[1])) < expit(vk @ W + b)",
            "h = rng.random((len(vk), W.shape[1])) < expit(v0 @ W + b)",
        ),
        (
            "rbm: CD v step with the bias subtracted",
            "vk = rng.random(vk.shape) < expit(h @ W.T + a)",
            "vk = rng.random(vk.shape) < expit(h @ W.T - a)",
        ),
        ("rbm: PCD chains re-seeded every call", "if self.v is None:", "if True:"),
        (
            "rbm: PCD's first chains never start at the last data row",
            "self.data[rng.integers(0, len(self.data), self.n_chains)]",
            "self.data[rng.integers(0, len(self.data) - 1, self.n_chains)]",
        ),
        (
            "rbm: PCD hidden states never updated",
            "self.h = rng.random(Ph.shape) < Ph",
            "self.h = h",
        ),
        (
            "rbm: CD accepts rng=None (fails later, without saying why)",
            'rng = check_rng(rng, "CDGradient")',
            "rng = rng",
        ),
        ("rbm: PCD-k one h step too few", "if step < self.k - 1:", "if step < self.k - 2:"),
        (
            "rbm: chain rows weighted by 1/batch size",
            "np.full(c, -1.0 / c)",
            "np.full(c, -1.0 / m)",
        ),
        (
            "rbm: PCD keeps p(h|v) of the data rows",
            '"b": Pw.sum(axis=0)}, P[m:]',
            '"b": Pw.sum(axis=0)}, P[:m]',
        ),
        (
            "rbm: minibatch epoch ends one batch early",
            "if self._pos + size > m:",
            "if self._pos + size >= m:",
        ),
        (
            "rbm: minibatches never shuffled",
            "self._epoch = self.data[rng.permutation(m)]",
            "self._epoch = self.data",
        ),
        (
            "rbm: Hinton's visible bias is log p, not the log-odds",
            "a = np.log(p) - np.log1p(-p)",
            "a = np.log(p)",
        ),
    ),
    *_mutants(
        "learning",
        LEARNING,
        (
            "learning: momentum velocity without lr",
            "momentum * velocity[k] + lr * g[k]",
            "momentum * velocity[k] + g[k]",
        ),
        (
            "learning: descent instead of ascent",
            "return {k: p + lr * g[k]",
            "return {k: p - lr * g[k]",
        ),
        (
            "learning: momentum steps downhill",
            "return {k: p + velocity[k]",
            "return {k: p - velocity[k]",
        ),
        (
            "learning: a parameter exactly at max_abs counts as a divergence",
            "for x in params.values()) <= max_abs",
            "for x in params.values()) < max_abs",
        ),
        (
            "learning: weight decay with the wrong sign",
            "g[k] - weight_decay * params[k]",
            "g[k] + weight_decay * params[k]",
        ),
        (
            "learning: weight decay shrinks the biases too",
            '_DECAY_KEYS = ("J", "W")',
            '_DECAY_KEYS = ("J", "W", "theta", "a", "b")',
        ),
        (
            "learning: record_every off by one",
            "if step % record_every == 0:",
            "if (step + 1) % record_every == 0:",
        ),
        (
            "learning: final record one update early",
            "record(n_updates, g if g is not None",
            "record(n_updates - 1, g if g is not None",
        ),
        (
            "learning: NaN parameters pass the finite check",
            "for x in params.values())):\n        return False",
            "for x in params.values())):\n        return True",
        ),
        (
            "learning: squared gradient norm recorded",
            "norm = math.sqrt(sum(float(np.vdot(x, x)) for x in g.values()))",
            "norm = sum(float(np.vdot(x, x)) for x in g.values())",
        ),
    ),
    *_mutants(
        "hidden",
        HIDDEN,
        (
            "hidden: disabled biases still get a gradient",
            '"theta": m * machine.bias_mask}',
            '"theta": m}',
        ),
        (
            "hidden: coupling gradient twice too large",
            '"J": 0.5 * (C + C.T) * machine.mask',
            '"J": (C + C.T) * machine.mask',
        ),
        (
            "hidden: phases swapped (model minus clamped)",
            "(clamped - joint).T.ravel()",
            "(joint - clamped).T.ravel()",
        ),
        (
            "hidden: joint table in the wrong state order",
            "p.reshape(2**self.n_hidden, 2**self.n_visible).T",
            "p.reshape(2**self.n_visible, 2**self.n_hidden)",
        ),
        (
            "hidden: first hidden unit counted as visible",
            "is_hidden = np.arange(n) >= n_visible",
            "is_hidden = np.arange(n) > n_visible",
        ),
        (
            "hidden: clamped phase not weighted by p_data",
            "np.divide(joint * p_data, p_v,",
            "np.divide(joint, p_v,",
        ),
        (
            "hidden: KL with the entropy's sign flipped",
            "max(0.0, -entropy - log_likelihood",
            "max(0.0, entropy - log_likelihood",
        ),
        (
            "hidden: visible and hidden bias switches swapped",
            "np.where(is_hidden, hidden_bias, visible_bias)",
            "np.where(is_hidden, visible_bias, hidden_bias)",
        ),
        (
            "hidden: init_params ignores the bias mask",
            "rng.normal(scale=bias_scale, size=n) * self.bias_mask",
            "rng.normal(scale=bias_scale, size=n)",
        ),
    ),
    *_mutants(
        "visible",
        VISIBLE,
        (
            "visible: persistent chains not carried over",
            'init = chains if method == "persistent"',
            'init = "random" if method == "persistent"',
        ),
        ("visible: phases swapped for J", "G = self.C_data - C", "G = C - self.C_data"),
        (
            "visible: phases swapped for theta",
            '"theta": self.m_data - m}',
            '"theta": m - self.m_data}',
        ),
        (
            "visible: diagonal of the J gradient not zeroed",
            "np.fill_diagonal(G, 0.0)",
            "np.fill_diagonal(G, 1.0)",
        ),
        (
            "visible: sampled negative phase taken from the data",
            "return self._ascent(*_moments(self.chains))",
            "return self._ascent(self.m_data, self.C_data)",
        ),
        (
            "visible: log-likelihood without the 1/2",
            "theta @ m + 0.5 * np.sum(J * C)",
            "theta @ m + np.sum(J * C)",
        ),
        (
            "visible: second moment divided by N instead of D",
            "S.T @ S / S.shape[0]",
            "S.T @ S / S.shape[1]",
        ),
        (
            "visible: Newton Hessian with the weight decay's sign flipped",
            "- np.diag(decay)",
            "+ np.diag(decay)",
        ),
        (
            "visible: Newton steps not capped at 1 per coordinate",
            "t = min(1.0, 1.0 / np.abs(du).max())",
            "t = 1.0",
        ),
    ),
    *_mutants(
        "data",
        DATA,
        (
            "data: bars and stripes miss the last pattern",
            "codes_to_states(np.arange(2**n), n, binary=True)",
            "codes_to_states(np.arange(2**n - 1), n, binary=True)",
        ),
        (
            "data: bars and stripes in the wrong order",
            "[np.repeat(subsets, n, axis=1), np.tile(subsets, (1, n))]",
            "[np.tile(subsets, (1, n)), np.repeat(subsets, n, axis=1)]",
        ),
        ("data: parity keeps the odd strings", "% 2 == 0]", "% 2 == 1]"),
        (
            "data: one-hot in {0,1} instead of ±1",
            "return 2.0 * np.eye(n) - 1.0",
            "return np.eye(n)",
        ),
        (
            "data: best log-likelihood divided by the number of distinct rows",
            "counts[inverse.ravel()] / V.shape[0]",
            "counts[inverse.ravel()] / len(counts)",
        ),
        ("data: digits threshold >= 8", "load_digits().data > 8", "load_digits().data >= 8"),
        (
            "data: letters' background 0 instead of -1",
            '1.0 if ch == "#" else -1.0',
            '1.0 if ch == "#" else 0.0',
        ),
        (
            "data: noisy copies flip twice as often",
            "rng.random(S.shape) < flip_prob",
            "rng.random(S.shape) < 2 * flip_prob",
        ),
        (
            "data: noisy copies interleaved instead of grouped",
            "np.repeat(xi, n_copies, axis=0)",
            "np.tile(xi, (n_copies, 1))",
        ),
    ),
    *_mutants(
        "ais",
        AIS,
        (
            "ais: reverse estimate on the wrong side",
            "log_Z0 - log_r if reverse",
            "log_Z0 + log_r if reverse",
        ),
        ("ais: base forgets the hidden units' log 2", "nh * np.log(2.0)", "nh * np.log(1.0)"),
        ("ais: hidden step at beta = 1 throughout", "expit(beta_new * X)", "expit(X)"),
        (
            "ais: bias path uses a instead of a - a_base",
            "(beta_new - beta_old) * (V @ da)",
            "(beta_new - beta_old) * (V @ rbm.a)",
        ),
        (
            "ais: standard error without the square root of n",
            "np.std(w) / (np.sqrt(n) * np.mean(w))",
            "np.std(w) / np.mean(w)",
        ),
        (
            "ais: base samples ignore a_base",
            "rng.random((n, nv)) < expit(a0)",
            "rng.random((n, nv)) < expit(rbm.a)",
        ),
    ),
    *_mutants(
        "glauber",
        TEMPERING,
        (
            "tempering: per-chain beta ignored in the sweep",
            "e *= beta",
            "e *= 1.0",
        ),
        (
            "tempering: betas assigned across chains instead of per replica",
            "beta_cols = np.repeat(betas, C)",
            "beta_cols = np.tile(betas, C)",
        ),
        (
            "tempering: odd pairs never proposed",
            "(np.arange(0, K - 1, 2), np.arange(1, K - 1, 2))",
            "(np.arange(0, K - 1, 2),)",
        ),
        (
            "tempering: accepted swaps exchange nothing",
            "np.roll(both, both.size // 2)",
            "np.roll(both, 0)",
        ),
        (
            "tempering: the hottest replica recorded",
            "states[t] = S[:, cols[-1]].T",
            "states[t] = S[:, cols[0]].T",
        ),
        (
            "tempering: swap acceptance with the energy difference reversed",
            "(b_hi - b_lo) * (E_hi - E_lo)",
            "(b_hi - b_lo) * (E_lo - E_hi)",
        ),
        (
            "tempering: swap accepted when the uniform exceeds the probability",
            "rng.random((k.size, C)) < _swap_probability(",
            "rng.random((k.size, C)) > _swap_probability(",
        ),
        (
            "tempering: swap rates not divided by the number of chains",
            "accepted / (n_sweeps * C)",
            "accepted / n_sweeps",
        ),
        (
            "tempering: energies of the swap from the hottest beta's view only",
            "E = _energy(S.T, J, theta)[cols]",
            "E = _energy(S.T, J, 0 * theta)[cols]",
        ),
    ),
    *_mutants(
        "exercises",
        EXERCISES,
        (
            "exercises: an unknown id with no answer yet says 'not yet'",
            "if exercise_id not in EXERCISES:",
            "if answer is not None and exercise_id not in EXERCISES:",
        ),
        ("exercises: answers not salted with the id", 'f"{exercise_id}:{text}"', 'f"{text}"'),
        (
            "exercises: -0.000 hashed apart from 0.000",
            "round(float(answer), decimals) + 0.0:",
            "round(float(answer), decimals):",
        ),
        (
            "exercises: every answer checked to 3 decimals",
            'answer_hash(exercise_id, answer, entry["decimals"])',
            "answer_hash(exercise_id, answer, 3)",
        ),
        (
            "exercises: another hash function",
            "return hashlib.sha256(f",
            "return hashlib.md5(f",
        ),
        (
            "exercises: the verdict is always true",
            'return self == "correct"',
            'return self != ""',
        ),
        ("exercises: no answer counts as one", "if answer is None:", "if False:"),
    ),
    *_mutants(
        "phases",
        PHASES,
        ("phases: log 2cosh without |x|", "out = A.sum(axis=1)", "out = 0.0 * A.sum(axis=1)"),
        (
            "phases: visible bias with the wrong sign",
            "A.append(beta * (S @ a[lo:hi]))",
            "A.append(-beta * (S @ a[lo:hi]))",
        ),
        (
            "phases: the field of the units fixed at +1 forgotten",
            "F[1] += beta * (W[n_bits:].sum(axis=0) + b)",
            "F[1] += beta * b",
        ),
        (
            "phases: hidden field without beta",
            "F.append(beta * (S @ W[lo:hi]))",
            "F.append(S @ W[lo:hi])",
        ),
        (
            "phases: half enumeration forgets the mirror images in log Z",
            "log_Z += symmetric * math.log(2.0)",
            "log_Z += 0.0",
        ),
        (
            "phases: mirror image at the same m",
            "np.concatenate([M[:, :k], -M[:, :k]])",
            "np.concatenate([M[:, :k], M[:, :k]])",
        ),
        ("phases: m not divided by N_v", "M.append(S @ U[lo:hi] / n)", "M.append(S @ U[lo:hi])"),
        (
            "phases: TAP reaction term added",
            "x - beta**2 * H * ((1 - M * M) @ W2)",
            "x + beta**2 * H * ((1 - M * M) @ W2)",
        ),
        (
            "phases: TAP visible term with the visible means",
            "x - beta**2 * M * ((1 - H * H) @ W2.T)",
            "x - beta**2 * M * ((1 - M * M) @ W2)",
        ),
        (
            "phases: mean-field entropy with the wrong sign",
            "- (_entropy(M) + _entropy(H)) / beta",
            "+ (_entropy(M) + _entropy(H)) / beta",
        ),
        (
            "phases: Onsager free energy without the 1/2",
            "F -= 0.5 * beta * np.einsum",
            "F -= beta * np.einsum",
        ),
        (
            "phases: every fixed point called converged",
            "_merged(M, H, error <= tol,",
            "_merged(M, H, error == error,",
        ),
        (
            "phases: unconverged points merged",
            "if ok[k]] if ok[r] else []",
            "if True] if True else []",
        ),
        (
            "phases: heat bath at half the field",
            "np.exp(-2.0 * field)",
            "np.exp(-1.0 * field)",
        ),
        (
            "phases: states swapped, energies not",
            "H[hi], H[lo], E[hi], E[lo]",
            "H[hi], H[lo], E[lo], E[hi]",
        ),
        (
            "phases: every replica at the coldest beta",
            "H = _spins(rng, beta_rows * (S @ W + b))",
            "H = _spins(rng, betas[-1] * (S @ W + b))",
        ),
        (
            "phases: overlap of a chain with itself",
            "R[:, 0 : 2 * (C // 2) : 2], R[:, 1::2]",
            "R[:, 1::2], R[:, 1::2]",
        ),
        (
            "phases: swap rates per ladder, not per proposal",
            "run.swap_rates[:] /= n_sweeps * C",
            "run.swap_rates[:] /= n_sweeps",
        ),
        ("phases: modes not divided by N", "W = (U * w) @ V.T / n +", "W = (U * w) @ V.T +"),
        (
            "phases: noise of variance sigma^2",
            "rng.normal(0.0, sigma / math.sqrt(n),",
            "rng.normal(0.0, sigma,",
        ),
        (
            "phases: sparse vectors one component too many",
            "size = round(SPARSITY * n)",
            "size = round(SPARSITY * n) + 1",
        ),
        (
            "phases: replica overlap from tanh, not tanh^2",
            "m_new, q_new = t @ _PHI, (t * t) @ _PHI",
            "m_new, q_new = t @ _PHI, np.abs(t) @ _PHI",
        ),
    ),
    *_mutants(
        "posterior",
        POSTERIOR,
        (
            "posterior: MALA proposal without the half step of the drift",
            "proposal = W + 0.5 * h * grad + math.sqrt(h) * xi",
            "proposal = W + h * grad + math.sqrt(h) * xi",
        ),
        (
            "posterior: Metropolis-Hastings ratio without the proposal's asymmetry",
            "log_ratio = log_p_new - log_p - np.vdot(xi, u) - 0.5 * np.vdot(u, u)",
            "log_ratio = log_p_new - log_p",
        ),
        (
            "posterior: reverse move measured from the wrong drift",
            "u = 0.5 * math.sqrt(h) * (grad + grad_new)",
            "u = math.sqrt(h) * grad",
        ),
        (
            "posterior: log posterior without the prior",
            "- self.K * log_Z - 0.5 * self.gamma * np.vdot(W, W)",
            "- self.K * log_Z",
        ),
        (
            "posterior: the trace drawn with the prior's variance 1 / gamma",
            "t = rng.standard_normal(n_samples) / math.sqrt(eta * gamma)",
            "t = rng.standard_normal(n_samples) / math.sqrt(gamma)",
        ),
        (
            "posterior: noise not symmetric (A + A^T) / sqrt 2",
            "A *= 0.5",
            "A /= math.sqrt(2)",
        ),
        (
            "posterior: thinning keeps the first step of each block",
            "elif (i - burn_in + 1) % thin == 0:",
            "elif (i - burn_in) % thin == 0:",
        ),
        (
            "posterior: Langevin noise without the factor 2",
            "math.sqrt(2.0 / (self.lr * self.eta))",
            "math.sqrt(1.0 / (self.lr * self.eta))",
        ),
        (
            "posterior: Langevin drift from the mean gradient, not the sum",
            "drift = 0.5 * K * (g + g.T) - self.gamma * W",
            "drift = 0.5 * (g + g.T) - self.gamma * W",
        ),
        (
            "posterior: KL with the cross term of p_B's own moment",
            "cross = 0.5 * beta_b * (W_B_in_A @ y2) - B.log_partition(beta_b)",
            "cross = 0.5 * beta_b * np.sum(B.lam * B.second_moment(beta_b).trace() / B.lam.size)"
            " - B.log_partition(beta_b)",
        ),
        (
            "posterior: KL with log Z_B at beta_a",
            "- B.log_partition(beta_b)",
            "- B.log_partition(beta_a)",
        ),
        (
            "posterior: alignment with the bottom eigenvector",
            "return float(along[-1]), float(y2[-1] / N)",
            "return float(along[0]), float(y2[-1] / N)",
        ),
    ),
    *_mutants(
        "spherical",
        SPHERICAL,
        (
            "spherical: nodes at once with the wrong sign of the arctangent",
            "+ 1j * np.sum(np.arctan2(b, 1.0 + a), axis=1)",
            "- 1j * np.sum(np.arctan2(b, 1.0 + a), axis=1)",
        ),
    ),
    *_mutants(
        "_checks",
        ("tests/test_exact.py", "tests/test_spherical.py"),
        (
            "checks: symmetry tolerance not scaled by the largest entry",
            "> 1e-12 * scale:",
            "> 1e-12:",
        ),
    ),
    *_mutants(
        "_checks",
        ("tests/test_exact.py", "tests/test_visible.py"),
        (
            "checks: ±1 states with no rows accepted",
            "S.shape[-1] != n or S.size == 0",
            "S.shape[-1] != n",
        ),
    ),
    *_mutants(
        "_checks",
        RBM,
        (
            "checks: {0,1} states with no rows accepted",
            "V.shape[-1] != n or V.size == 0",
            "V.shape[-1] != n",
        ),
    ),
]
