"""bmlab.check: says correct or not yet (with a hint), never the answer, which is stored hashed."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import bmlab
from bmlab import exercises
from bmlab.exercises import answer_hash, check

#: A made-up exercise (the real answers appear nowhere in the tests either).
FAKE = {"99.1": {"decimals": 3, "sha256": answer_hash("99.1", 0.4567, 3), "hint": "try harder"}}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(exercises, "EXERCISES", FAKE)


def test_a_correct_answer_passes(fake):
    verdict = check("99.1", 0.4567)
    assert verdict and repr(verdict) == "correct"


@pytest.mark.parametrize("answer", [0.45671, 0.4574, np.float64(0.45650001), 0.457])
def test_answers_equal_after_rounding_pass(fake, answer):
    assert check("99.1", answer)


@pytest.mark.parametrize("answer", [0.4564, 0.458, -0.457, 457, 0.0])
def test_wrong_answers_fail_with_the_hint(fake, answer):
    verdict = check("99.1", answer)
    assert not verdict and repr(verdict) == "not yet: try harder"


def test_no_answer_yet(fake):
    verdict = check("99.1", None)
    assert not verdict and repr(verdict) == "not yet: write your answer in my_answer"


def test_unknown_exercise_lists_the_ids(fake):
    with pytest.raises(ValueError, match=r"unknown exercise '01\.9'.*99\.1"):
        check("01.9", 1.0)


def test_not_a_number_is_a_type_error(fake):
    with pytest.raises(TypeError):
        check("99.1", [0.457])


def test_hash_is_salted_and_signed_zero_is_zero():
    assert answer_hash("01.1", 0.5, 3) != answer_hash("01.2", 0.5, 3)
    assert answer_hash("01.1", -0.0001, 3) == answer_hash("01.1", 0.0, 3)


def test_check_is_exported():
    assert bmlab.check is check


def test_every_exercise_is_well_formed():
    ids = list(exercises.EXERCISES)
    assert all(re.fullmatch(r"0[1-5]\.\d", i) for i in ids), ids
    for entry in exercises.EXERCISES.values():
        assert set(entry) == {"decimals", "sha256", "hint"}
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]) and entry["hint"]
    for nb in "12345":
        assert sum(i.startswith(f"0{nb}.") for i in ids) >= 3


def test_no_plain_answer_in_the_package():
    """No number written in bmlab's exercise files (module, hints) is an answer that checks.

    Whole-number answers (decimals 0: counts) are left out: small integers are everywhere.
    """
    package = Path(exercises.__file__).parent
    text = (package / "exercises.py").read_text()
    text += " ".join(e["hint"] for e in exercises.EXERCISES.values())
    numbers = {float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text)}
    numbers |= {-x for x in numbers}
    ids = [i for i, entry in exercises.EXERCISES.items() if entry["decimals"] > 0]
    leaks = [(i, x) for i in ids for x in numbers if check(i, x)]
    assert not leaks, f"answers written in plain text: {leaks}"
