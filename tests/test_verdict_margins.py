"""The verdict-margin check catches verdicts that hold by less than a factor of 100 and
leaves everything else a cell computes alone; every verdict of the notebooks goes through it.

- in a cell: :func:`run` compiles code through the kernel's transformer, as IPython does;
- in a kernel: the startup file written for nbval installs it (with the figure audit);
- in the notebooks: :func:`verdict_margins.unchecked` finds no verdict the check cannot see;
"""

from __future__ import annotations

import ast
import itertools
import math

import figure_audit as fa
import notebook_sources as sources
import numpy as np
import pytest
import verdict_margins as vm
from notebook_sources import NOTEBOOKS
from test_figure_audit import _stderr_of_cells


def run(source: str, **namespace) -> tuple[dict, list[str]]:
    """Execute ``source`` as one cell with the margin check on: (its namespace, its reports)."""
    reports = []
    margins = vm.Margins(reports.append)
    transformer = vm.MarginTransformer()
    lines = source.splitlines()
    transformer.threshold_lines = {
        i for i, line in enumerate(lines, 1) if vm.THRESHOLD_COMMENT.search(line)
    }
    tree = ast.fix_missing_locations(transformer.visit(ast.parse(source)))
    ns = {vm.NAME: margins, "np": np, "math": math, **namespace}
    exec(compile(tree, "<cell>", "exec"), ns)
    return ns, reports


# -- verdicts without margin are caught --------------------------------------------------------


def test_the_known_case_a_gap_near_its_tolerance_is_caught():
    """notebook 03, Section 7: |gap - KL| < 1e-10 printed True, False on other machines."""
    ns, reports = run("same = abs(gap - kl) < 1e-10", gap=0.2070000000312, kl=0.207)
    assert ns["same"] is True  # the cell's own result is untouched
    assert len(reports) == 1, reports
    assert reports[0].startswith("verdict margin: line 1: abs(gap - kl) < 1e-10 — True for 3.")
    assert "but False with the tolerance ÷ 100" in reports[0]


@pytest.mark.parametrize(
    ("deviation", "flagged"),
    [(1e-13, False), (1.1e-12, True), (3e-11, True), (5e-10, True), (0.99e-8, True), (2e-8, False)],
)
def test_a_verdict_needs_a_factor_100_either_way(deviation, flagged):
    _, reports = run("ok = abs(a - b) < 1e-10", a=0.5 + deviation, b=0.5)
    assert bool(reports) is flagged, reports


def test_an_elementwise_comparison_needs_the_margin_in_every_element():
    E = np.array([-3.0, -3.0 + 1e-15, -3.0 + 2e-10, -1.0])  # a near-tie at 2e-10
    _, reports = run("n = int(np.sum(np.abs(E - E.min()) < 1e-9))", E=E)
    assert len(reports) == 1 and "1 of 4 elements change" in reports[0], reports
    _, reports = run("n = int(np.sum(np.abs(E - E.min()) < 1e-9))", E=E[[0, 1, 3]])
    assert reports == []


@pytest.mark.parametrize(
    "source",
    [
        "ok = np.allclose(a, b, rtol=0, atol=1e-12)",
        "ok = np.isclose(a, b, rtol=0, atol=1e-12)",
        "ok = math.isclose(a, b, rel_tol=0, abs_tol=1e-12)",
        "ok = np.allclose(np.array([a, 1.0]), np.array([b, 1.0]), atol=1e-12, rtol=0)",
        "np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)",
    ],
)
def test_closeness_calls_need_the_margin(source):
    _, reports = run(source, a=1.0 + 3e-13, b=1.0)
    assert len(reports) == 1 and "with the tolerances ÷ 100" in reports[0], reports
    _, reports = run(source, a=1.0 + 2e-16, b=1.0)
    assert reports == []


def test_default_tolerances_count():
    _, reports = run("ok = np.allclose(a, b)", a=1.0 + 1e-6, b=1.0)  # rtol 1e-5 by default
    assert len(reports) == 1 and "|a - b| reaches 0.09" in reports[0], reports
    _, reports = run("ok = math.isclose(a, b)", a=1.0 + 3e-10, b=1.0)  # rel_tol 1e-9
    assert len(reports) == 1


def test_a_false_closeness_needs_the_margin_too():
    _, reports = run("ok = np.isclose(a, b, rtol=0, atol=1e-12)", a=1.0 + 5e-12, b=1.0)
    assert len(reports) == 1 and "False here" in reports[0], reports


@pytest.mark.parametrize(
    "source",
    [
        "tol = 1e-8\nok = d < tol",
        "atol_kl = 1e-8\nok = d <= atol_kl",
        "tol = 1e-8\nok = d < 0.0 + tol",
        "ok = 1e-8 > d",
        "ok = d < 1e-8 * n",
        "ok = d < 1e-8 * abs(n)",
        "ok = d < 1e-8 * np.abs(v).max()",
        "def f(x):\n    return x < 1e-8\nok = f(d)",
    ],
)
def test_named_mirrored_and_derived_tolerances_are_checked(source):
    _, reports = run(source, d=3e-9, n=1, v=np.array([1.0, -0.5]))
    assert len(reports) == 1, reports


def test_a_verdict_inside_a_function_says_so():
    _, reports = run("def small(x):\n    return x < 1e-8\n\nok = small(3e-9)")
    assert reports[0].startswith("verdict margin: in small(), line 2: x < 1e-08 — ")


def test_an_assert_is_a_verdict_too():
    ns, reports = run("assert abs(d) < 1e-8\nreached = True", d=3e-9)
    assert ns["reached"] and len(reports) == 1


def test_a_verdict_in_a_loop_is_reported_once_per_cell():
    _, reports = run("for d in (1e-9, 2e-9, 3e-9):\n    ok = d < 1e-8")
    assert len(reports) == 1


# -- thresholds, and what is no verdict --------------------------------------------------------


def test_a_while_loop_threshold_needs_only_to_stay_off_round_off():
    source = "t, x = 0, 1.0\nwhile x > 0.01:\n    x, t = x / 2, t + 1"
    ns, reports = run(source)
    assert ns["t"] == 7 and reports == []
    _, reports = run("x = 0.01 * (1 + 1e-12)\nwhile x > 0.01:\n    x = 0.0")
    assert len(reports) == 1 and "round-off can change the result" in reports[0], reports


def test_a_line_marked_threshold_needs_only_to_stay_off_round_off():
    values = np.array([0.3, 0.08, 0.051, 0.049, 0.01])
    source = "first = int(np.argmax(values < 0.05))  # threshold: the first passage"
    ns, reports = run(source, values=values)
    assert ns["first"] == 3 and reports == []
    _, reports = run("first = int(np.argmax(values < 0.05))", values=values)
    assert len(reports) == 1  # unmarked, it is a verdict without margin


@pytest.mark.parametrize(
    "source",
    [
        "ok = max(z) < 4",  # a statistical verdict in standard errors
        "ok = cosine > 0.9",  # a threshold that defines a category
        "flip = rng.random(1000) < 0.05",  # sampling
        "ok = np.all(np.diff(x) > 0)",  # a sign
        "ok = 0.0 < d < 1.0",  # no tolerance
        "ok = d == 3e-9",
    ],
)
def test_what_is_no_verdict_is_left_alone(source):
    namespace = {"z": [3.9], "cosine": 0.91, "rng": np.random.default_rng(0), "d": 3e-9}
    _, reports = run(source, x=np.array([0.0, 1e-17, 1.0]), **namespace)
    assert reports == []


# -- the cell computes what it computed --------------------------------------------------------

EXPRESSIONS = [
    "a < 1e-3",
    "1e-3 >= a",
    "b <= tol",
    "np.abs(v - w) < 1e-3",
    "np.allclose(v, w, atol=1e-3)",
    "np.isclose(v, w)",
    "math.isclose(a, 1e-4)",
    "(v < 1e-3) & (w > 1e-3)",
    "a < b - tol",
    "[x < 1e-3 for x in v]",
    "sum(x > 1e-3 for x in w)",
    "'yes' if a < 1e-3 else 'no'",
    "f'below 1e-3: {a < 1e-3}, close: {np.allclose(v, v + 1e-9)}'",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_results_are_those_of_the_untransformed_code(expression):
    namespace = {
        "a": 4e-4,
        "b": 0.5,
        "tol": 1e-3,
        "v": np.array([1e-4, 2e-3, 0.5]),
        "w": np.array([1e-4, 2e-2, 0.5]),
    }
    plain = eval(expression, {"np": np, "math": math, **namespace})
    ns, _ = run(f"result = {expression}", **namespace)
    assert type(ns["result"]) is type(plain)
    assert np.array_equal(np.asarray(ns["result"]), np.asarray(plain))


def test_keywords_of_a_closeness_function_pass_through():
    source = (
        "def isclose(a, b, where=None, func=None, threshold=None):\n"
        "    return where\n"
        "r = isclose(1, 2, where=3, func=4, threshold=5)"
    )
    ns, reports = run(source)
    assert ns["r"] == 3 and reports == []


def test_each_operand_is_evaluated_once():
    calls = itertools.count()
    _, _ = run("ok = step() < 1e-8 and np.allclose(step(), 0.0)", step=lambda: next(calls) * 0.0)
    assert next(calls) == 2


# -- verdicts the check cannot see -------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("ok = abs(a - b) < 1e-10 * scale(b)", "expression with a call"),
        ("ok = 0 < d < 1e-3", "chained comparison"),
        ("ok = abs(a - b) < 2e-3 * 1e-2", "two tolerances on one side"),
        ("ok = abs(a - 1e-3) < 2e-3 * b", "tolerances on both sides"),
        ("np.testing.assert_array_almost_equal(a, b)", "decimal places"),
        ("ok = round(a, 3) == round(b, 3)", "rounded values"),
        ("threshold = 1e-6\nok = d < threshold", "'threshold' holds a tolerance"),
    ],
)
def test_verdicts_the_check_cannot_see_are_found(source, reason):
    found = vm.unchecked(source, vm.tolerance_names([source]))
    assert len(found) == 1 and reason in found[0][1], found


def test_checked_verdicts_are_not_unchecked():
    source = "tol = 1e-9\nok = abs(a - b) < 1e-10 and np.allclose(a, b) and x < e - tol\n"
    assert vm.unchecked(source, vm.tolerance_names([source])) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_verdict_of_a_notebook_goes_through_the_check(path):
    found = sources.unchecked_lines(path)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_outputs_were_made_without_the_check(path):
    """``python -m tools execute`` runs no check: a committed output with a check's line was
    made by hand with the checks on (re-execute)."""
    text = path.read_text(encoding="utf-8")
    assert vm.PREFIX not in text and fa.PREFIX not in text


# -- in a kernel -------------------------------------------------------------------------------

KERNEL_CELLS = [
    "import numpy as np\nd = 3e-11",
    "print(abs(d) < 1e-10)",
    "print(abs(d) < 1e-6, np.allclose(1.0, 1.0 + d, rtol=0, atol=1e-6))",
    "first = 0\nwhile d * 10**first < 1e-3:  # a first passage\n    first += 1\nprint(first)",
    "print([x < 1e-10 for x in (1e-20, d)])  # threshold: not a tolerance",
]


def test_the_startup_file_checks_what_a_kernel_computes(tmp_path):
    fa.write_startup(tmp_path / "ipython")
    stderr = _stderr_of_cells(KERNEL_CELLS, tmp_path / "ipython")
    assert stderr[1].startswith("verdict margin: line 1: abs(d) < 1e-10 — True for 3e-11"), stderr
    assert stderr[0] == stderr[2] == stderr[3] == stderr[4] == "", stderr
