"""Verdict margins: every True/False a notebook computes against a tolerance holds by a factor
of 100, so that no machine prints the other one.

A round-off verdict such as ``abs(gap - kl) < 1e-10`` printed ``True`` here prints ``False``
on a machine whose BLAS kernel or SIMD path sums in another order when the deviation is a
fair fraction of the tolerance. So inside every nbval kernel (the startup file of
``tests/figure_audit.py``, written by the root ``conftest.py``) an IPython AST transformer
(:class:`MarginTransformer`) rewrites each verdict of a cell so that it is also computed with
its tolerance divided by ``FACTOR`` and multiplied by it. The cell's own result is unchanged;
if either of the other two differs from it, the cell prints to stderr ::

    verdict margin: line 4: abs(gap - kl(p, q)) < 1e-10 — True for 3.1e-11 against 1e-10, but
    False with the tolerance ÷ 100 ...

and strict nbval fails on that cell.

What is a verdict:

- a comparison ``A < t`` (``<=``, ``>``, ``>=``, either way round) whose tolerance side ``t``
  is a positive float literal of at most ``LARGEST_TOLERANCE`` (``1e-12``, ``0.05``), a name
  that says it is a tolerance (``tol``, ``atol``, ``rtol``, ``eps``, ``tolerance``,
  ``tol_kl``, ...), or an arithmetic expression of one such leaf with names, attributes,
  subscripts, constants and calls of ``PURE_CALLS`` (``e - tol``, ``1e-6 * abs(slope)``),
  evaluated again with the leaf scaled;
- a call of ``allclose``, ``isclose`` (numpy's or ``math.isclose``) or
  ``numpy.testing.assert_allclose``: its relative and absolute tolerances, given or default,
  are scaled together.

An elementwise comparison must hold by that margin in every element (a count, ``all`` or
``argmax`` of it is printed). A larger literal (``cosine > 0.9``) is a threshold that defines
a category, an integer (``n >= 20``, ``x > 0``, ``max(z) < 4``) a count, a sign or a
statistical verdict in standard errors; none of them is scaled (CONTRIBUTING has the rule for
statistical verdicts), and neither is a uniform draw compared with a probability
(``rng.random(n) < 0.05`` samples, it judges nothing).

A threshold that *defines* a number rather than judges one (the test of a ``while`` loop, a
first passage such as "the first sweep with TV below 1e-3", a category such as "a good fit has
KL < 0.01") cannot have a factor 100 of margin;
the test of a ``while`` loop, and a comparison on a line whose comment starts with
``# threshold``, only have to stay off their threshold by more than round-off (relative
``ROUNDOFF``).

:func:`unchecked` finds the verdicts in a notebook's source that the transformer cannot see
(a tolerance inside an expression with a call, chained comparisons, a tolerance under a name
that does not say so, decimal-place asserts, rounded values compared with ``==``);
``tests/test_verdict_margins.py`` runs it over every notebook.
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import operator
import re
import sys

import numpy as np

FACTOR = 100.0  #: a verdict must not change with its tolerance divided or multiplied by this
ROUNDOFF = 1e-9  #: relative distance a threshold (``while``, ``# threshold``) must keep
LARGEST_TOLERANCE = 0.1  #: float literals up to this are tolerances; larger ones are thresholds
PREFIX = "verdict margin: "
NAME = "__bmlab_margin__"  #: the checker in the kernel's namespace (hidden from %who)
TOLERANCE_NAME = re.compile(r"(?i)^(?:\w*_)?(?:tol|atol|rtol|eps|epsilon|tolerance)(?:_\w*)?$")
THRESHOLD_COMMENT = re.compile(r"#\s*threshold\b")
CLOSENESS = ("allclose", "isclose", "assert_allclose")
DECIMAL_ASSERTS = ("assert_almost_equal", "assert_array_almost_equal", "assert_approx_equal")
ROUNDING = ("round", "around", "rint")
DRAWS = ("random", "uniform", "rand", "random_sample")  #: a draw compared with p is sampling
_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_APPLY = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_PURE = (
    ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple,
    ast.Slice, ast.expr_context, ast.operator, ast.unaryop,
)  # fmt: skip
#: Functions a tolerance side may call, evaluated again with the tolerance scaled (a scale:
#: ``1e-6 * abs(slope)``, ``1e-12 * np.abs(x).max()``).
PURE_CALLS = ("abs", "fabs", "max", "min", "amax", "amin", "sum", "mean", "norm", "sqrt", "len")


# -- what is a verdict (shared by the transformer and the static check) ------------------------


def is_tolerance(node: ast.AST) -> bool:
    """A tolerance leaf: a positive float literal up to ``LARGEST_TOLERANCE``, or a name
    that says it is one."""
    if isinstance(node, ast.Constant):
        value = node.value
        return isinstance(value, float) and 0 < value <= LARGEST_TOLERANCE
    return isinstance(node, ast.Name) and bool(TOLERANCE_NAME.match(node.id))


def _leaves(node: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(node) if is_tolerance(n)]


def _callee(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return None


def tolerance_side(node: ast.Compare) -> tuple[int, ast.AST] | str | None:
    """For a comparison: ``(index of its tolerance side, 0 or 1; the tolerance leaf)`` when
    it is a verdict the transformer checks, a sentence saying why it cannot when it is a
    verdict it cannot check, and None when it is no verdict."""
    sides = [node.left, *node.comparators]
    with_leaf = [i for i, side in enumerate(sides) if _leaves(side)]
    if not with_leaf or not all(type(op) in _OPS for op in node.ops):
        return None
    if len(node.ops) > 1:
        return "a chained comparison against a tolerance: split it into two"
    if len(with_leaf) == 2:
        bare = [i for i in with_leaf if is_tolerance(sides[i])]
        if len(bare) != 1:
            return "tolerances on both sides: compare a deviation with one tolerance"
        with_leaf = bare
    i = with_leaf[0]
    side, other = sides[i], sides[1 - i]
    if _callee(other) in DRAWS:
        return None
    leaves = _leaves(side)
    if len(leaves) > 1:
        return "two tolerances on one side: write one tolerance"
    if all(_pure(n) for n in ast.walk(side)):
        return i, leaves[0]
    return (
        "the tolerance sits in an expression with a call: compute the scale first "
        "(scale = ...; deviation < 1e-10 * scale)"
    )


def _pure(node: ast.AST) -> bool:
    """Part of an expression that can be evaluated again without side effects."""
    if isinstance(node, ast.Call):
        return _callee(node) in PURE_CALLS
    return isinstance(node, (*_PURE, ast.keyword))


def unchecked(source: str, tolerance_names: set[str] = frozenset()) -> list[tuple[int, str]]:
    """Verdicts in ``source`` (one cell) that the margin check cannot see, as
    ``(line, what to change)``; ``tolerance_names`` are names the notebook binds to a
    tolerance-sized float literal (see :func:`tolerance_names`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        text = _short(ast.unparse(node)) if isinstance(node, (ast.Compare, ast.Call)) else ""
        if isinstance(node, ast.Compare):
            side = tolerance_side(node)
            if isinstance(side, str):
                found.append((node.lineno, f"{text}: {side}"))
            elif side is None and all(type(op) in _OPS for op in node.ops):
                named = [
                    s.id
                    for s in (node.left, *node.comparators)
                    if isinstance(s, ast.Name) and s.id in tolerance_names
                ]
                if named:
                    found.append(
                        (node.lineno, f"{text}: {named[0]!r} holds a tolerance; name it tol, "
                         "atol, eps, tolerance, ... so that its margin is checked")
                    )  # fmt: skip
            if any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops) and any(
                _callee(s) in ROUNDING for s in (node.left, *node.comparators)
            ):
                found.append(
                    (node.lineno, f"{text}: rounded values compared with ==: a value near a "
                     "rounding boundary flips it; compare with a tolerance")
                )  # fmt: skip
        elif _callee(node) in DECIMAL_ASSERTS:
            found.append(
                (node.lineno, f"{text}: decimal places are not a checked tolerance; use "
                 "numpy.testing.assert_allclose(actual, desired, rtol=..., atol=...)")
            )  # fmt: skip
    return sorted(set(found))


def tolerance_names(sources: list[str]) -> set[str]:
    """Names a notebook binds to a float literal that looks like a tolerance but whose name
    does not say so (``threshold = 1e-6``)."""
    names = set()
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                pairs = [(target, node.value)]
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs = list(zip(target.elts, node.value.elts, strict=False))
                for name, value in pairs:
                    if isinstance(name, ast.Name) and is_tolerance(value):
                        if not TOLERANCE_NAME.match(name.id):
                            names.add(name.id)
    return names


def _short(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


# -- the transformer ---------------------------------------------------------------------------


class _Scale(ast.NodeTransformer):
    """Replace the tolerance leaf of an expression by ``(leaf * __k)``."""

    def __init__(self, leaf: ast.AST):
        self.leaf = ast.dump(leaf)

    def visit(self, node):
        if is_tolerance(node) and ast.dump(node) == self.leaf:
            return ast.BinOp(node, ast.Mult(), ast.Name("__k", ast.Load()))
        return self.generic_visit(node)


def _lambda(body: ast.AST) -> ast.Lambda:
    args = ast.arguments(
        posonlyargs=[], args=[ast.arg("__k")], kwonlyargs=[], kw_defaults=[], defaults=[]
    )
    return ast.Lambda(args, body)


def _method(name: str) -> ast.Attribute:
    return ast.Attribute(ast.Name(NAME, ast.Load()), name, ast.Load())


class MarginTransformer(ast.NodeTransformer):
    """Rewrite each verdict of a cell into a call of the kernel's :class:`Margins`."""

    def __init__(self):
        self.threshold_lines: set[int] = set()  # lines of the cell marked ``# threshold``
        self._threshold = False
        self._function: list[str] = []

    def _where(self, node: ast.AST, text: str) -> str:
        inside = f"in {self._function[-1]}(), " if self._function else ""
        return f"{inside}line {node.lineno}: {_short(text)}"

    def _is_threshold(self, node: ast.AST) -> bool:
        return self._threshold or node.lineno in self.threshold_lines

    def visit_While(self, node: ast.While) -> ast.While:
        saved, self._threshold = self._threshold, True
        node.test = self.visit(node.test)
        self._threshold = saved
        node.body = [self.visit(s) for s in node.body]
        node.orelse = [self.visit(s) for s in node.orelse]
        return node

    def visit_FunctionDef(self, node):
        self._function.append(node.name)
        try:
            return self.generic_visit(node)
        finally:
            self._function.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        text, found = ast.unparse(node), tolerance_side(node)
        node = self.generic_visit(node)
        if not isinstance(found, tuple):
            return node
        side, leaf = found
        operands = [node.left, node.comparators[0]]
        scaled = _Scale(leaf).visit(copy.deepcopy(operands[side]))
        call = ast.Call(
            _method("compare"),
            [
                ast.Constant(self._where(node, text)),
                ast.Constant(_OPS[type(node.ops[0])]),
                *operands,
                ast.Constant(side),
                copy.deepcopy(leaf),
                _lambda(scaled),
                ast.Constant(self._is_threshold(node)),
            ],
            [],
        )
        return ast.copy_location(call, node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        text = ast.unparse(node)
        node = self.generic_visit(node)
        if _callee(node) not in CLOSENESS:
            return node
        head = [ast.Constant(self._where(node, text)), ast.Constant(self._is_threshold(node))]
        call = ast.Call(_method("close"), [*head, node.func, *node.args], node.keywords)
        return ast.copy_location(call, node)


# -- the runtime check -------------------------------------------------------------------------


def _bools(value) -> np.ndarray | None:
    try:
        array = np.asarray(value)
    except Exception:
        return None
    return array if array.dtype == bool else None


def _positive(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and 0 < value < math.inf


def _at(value, shape, index: int) -> float:
    return float(np.broadcast_to(np.asarray(value, dtype=float), shape).flat[index])


def _changes(verdict: np.ndarray, others) -> tuple[np.ndarray, np.ndarray]:
    """Where the verdict changes with the tolerance scaled down or up, and where it changes
    with it scaled down (all False when a scaled verdict is no boolean of the same shape)."""
    changes = []
    for other in others:
        other = _bools(other)
        if other is None or other.shape != verdict.shape:
            return np.zeros(verdict.shape, bool), np.zeros(verdict.shape, bool)
        changes.append(other != verdict)
    return changes[0] | changes[1], changes[0]


def _count(changed: np.ndarray) -> str:
    return f"{int(changed.sum())} of {changed.size} elements change; "


def _tolerances() -> dict:
    """Closeness functions and the names of their (relative, absolute) tolerances."""
    return {
        np.allclose: ("rtol", "atol"),
        np.isclose: ("rtol", "atol"),
        np.testing.assert_allclose: ("rtol", "atol"),
        math.isclose: ("rel_tol", "abs_tol"),
    }


class Margins:
    """The kernel's checker: :class:`MarginTransformer` routes every verdict through it.

    Parameters
    ----------
    report : callable
        Called with each problem line (``verdict margin: ...``); each verdict is reported at
        most once per cell run.
    """

    def __init__(self, report=None):
        self.report = report or (lambda line: print(line, file=sys.stderr, flush=True))
        self.reported: set[str] = set()
        self.known = _tolerances()

    def _say(self, where: str, what: str) -> None:
        if where not in self.reported:
            self.reported.add(where)
            self.report(f"{PREFIX}{where} — {what}")

    @staticmethod
    def _factors(threshold: bool) -> tuple[float, float]:
        return (1 - ROUNDOFF, 1 + ROUNDOFF) if threshold else (1 / FACTOR, FACTOR)

    def compare(self, where, op, left, right, side, leaf, scaled, threshold):
        """``left op right``, checked: it must not change with the tolerance scaled."""
        result = _APPLY[op](left, right)
        try:
            self._check_compare(where, op, left, right, side, leaf, scaled, threshold, result)
        except Exception:  # a check that cannot run never changes what the cell does
            pass
        return result

    def _check_compare(self, where, op, left, right, side, leaf, scaled, threshold, result):
        verdict = _bools(result)
        if verdict is None or not _positive(leaf):
            return
        others = (
            _APPLY[op](left, scaled(k)) if side == 1 else _APPLY[op](scaled(k), right)
            for k in self._factors(threshold)
        )
        changed, smaller = _changes(verdict, others)
        if not changed.any():
            return
        j = int(np.argmax(changed.ravel()))
        value = _at(left if side == 1 else right, verdict.shape, j)
        bound = _at(scaled(1.0), verdict.shape, j)
        was = bool(verdict.ravel()[j])
        if threshold:
            self._say(
                where,
                f"the threshold {bound:.6g} decides {value:.10g} within {ROUNDOFF:g} of it "
                "(relative): round-off can change the result",
            )
            return
        how = "÷" if smaller.ravel()[j] else "×"
        count = _count(changed) + "the first is " if changed.size > 1 else ""
        self._say(
            where,
            f"{count}{was} for {value:.3g} against {bound:.3g}, but {not was} with the "
            f"tolerance {how} {FACTOR:g}: a verdict needs a factor {FACTOR:g} of margin "
            "(tolerance sized to the computation, or print the value)",
        )

    def close(self, where, threshold, func, /, *args, **kwargs):
        """``func(*args, **kwargs)`` for allclose/isclose/assert_allclose, checked."""
        result = func(*args, **kwargs)
        try:
            self._check_close(where, threshold, func, args, kwargs, result)
        except Exception:
            pass
        return result

    def _check_close(self, where, threshold, func, args, kwargs, result):
        names = self.known.get(func)
        if names is None:
            return
        signature = inspect.signature(func)
        asserting = func is np.testing.assert_allclose
        verdict = np.asarray(True) if asserting else _bools(result)
        if verdict is None:
            return

        def scaled(k):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name in names:
                bound.arguments[name] = bound.arguments[name] * k
            if not asserting:
                return func(*bound.args, **bound.kwargs)
            try:
                func(*bound.args, **bound.kwargs)
            except AssertionError:
                return False
            return True

        changed, smaller = _changes(verdict, (scaled(k) for k in self._factors(threshold)))
        if not changed.any():
            return
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        a, b = (np.asarray(v, dtype=float) for v in list(bound.arguments.values())[:2])
        rel, absolute = (bound.arguments[name] for name in names)
        if func is math.isclose:
            allowed = max(rel * max(abs(a), abs(b)), absolute)
        else:
            allowed = absolute + rel * np.abs(b)
        with np.errstate(divide="ignore", invalid="ignore"):
            used = np.abs(a - b) / allowed
        used = np.where(np.broadcast_to(changed, np.shape(used)), used, np.nan)
        worst = float(np.nanmax(used)) if np.isfinite(used).any() else float("nan")
        how = "÷" if smaller.any() else "×"
        count = _count(changed) if changed.size > 1 else ""
        share = (
            f"|a - b| is {worst:.3g} times its tolerance"
            if threshold
            else f"|a - b| reaches {worst:.3g} of its tolerance (a verdict needs at most "
            f"{1 / FACTOR:g}, or above {FACTOR:g})"
        )
        self._say(
            where,
            f"{count}{bool(verdict.ravel()[int(np.argmax(changed.ravel()))])} here, but not "
            f"with the tolerances {how} {FACTOR:g}: {share}",
        )


# -- wiring ------------------------------------------------------------------------------------


def install() -> Margins:
    """Check the margin of every verdict the current IPython shell runs (a startup file)."""
    from IPython import get_ipython

    shell = get_ipython()
    existing = shell.user_ns.get(NAME)
    if isinstance(existing, Margins):
        return existing
    margins, transformer = Margins(), MarginTransformer()

    def remember_thresholds(lines: list[str]) -> list[str]:
        transformer.threshold_lines = {
            i for i, line in enumerate(lines, 1) if THRESHOLD_COMMENT.search(line)
        }
        return lines

    shell.input_transformers_post.append(remember_thresholds)
    shell.ast_transformers.append(transformer)
    shell.push({NAME: margins}, interactive=False)
    shell.events.register("pre_run_cell", lambda info: margins.reported.clear())
    return margins
