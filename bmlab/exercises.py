"""Self-checks for the exercises: an answer is kept only as the SHA-256 of ``"<id>:<answer rounded
to the exercise's decimals>"`` in ``exercises.json`` (make one: ``python -m tools answer-hash``)."""

import hashlib
import json
from pathlib import Path

EXERCISES = json.loads(Path(__file__).with_name("exercises.json").read_text())


class _Verdict(str):  # shows as correct / not yet: <hint> (no quotes); true when correct
    __repr__ = str.__str__

    def __bool__(self) -> bool:
        return self == "correct"


def answer_hash(exercise_id: str, answer: float, decimals: int) -> str:
    """SHA-256 (hex) of ``answer`` rounded to ``decimals``, salted with the exercise id."""
    text = f"{round(float(answer), decimals) + 0.0:.{decimals}f}"  # + 0.0: no "-0.000"
    return hashlib.sha256(f"{exercise_id}:{text}".encode()).hexdigest()


def check(exercise_id: str, answer: float | None) -> _Verdict:
    """``correct`` or ``not yet: <hint>`` for ``answer`` to exercise ``exercise_id`` ("01.2")."""
    if exercise_id not in EXERCISES:
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}")
    if answer is None:
        return _Verdict("not yet: write your answer in my_answer")
    entry = EXERCISES[exercise_id]
    ok = answer_hash(exercise_id, answer, entry["decimals"]) == entry["sha256"]
    return _Verdict("correct" if ok else f"not yet: {entry['hint']}")
