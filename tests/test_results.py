"""Recorded results: the stamp changes exactly when the listed sources change."""

from __future__ import annotations

import json

import pytest

from bmlab import results


def test_save_load_and_staleness(tmp_path, monkeypatch):
    monkeypatch.setenv("BMLAB_RESULTS", str(tmp_path))
    source = tmp_path / "experiment.py"
    source.write_text("x = 1\n")
    path = results.save_results("demo", {"y": [1, 2]}, params={"n": 3}, sources=[source])
    record = results.load_results("demo")
    assert record["data"] == {"y": [1, 2]} and record["params"] == {"n": 3}
    assert json.loads(path.read_text())["code_hash"] == record["code_hash"]
    assert not results.is_stale(record)
    source.write_text("x = 2\n")
    assert results.is_stale(record)


def test_hash_ignores_line_endings(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_bytes(b"x = 1\ny = 2\n")
    b.write_bytes(b"x = 1\r\ny = 2\r\n")
    assert results.code_hash([a]) != results.code_hash([b])  # names differ
    b.write_bytes(b"x = 1\ny = 2\n")
    ha = results.code_hash([a])
    a.write_bytes(b"x = 1\r\ny = 2\r\n")
    assert results.code_hash([a]) == ha


def test_missing_result_says_how_to_make_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BMLAB_RESULTS", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="make figures"):
        results.load_results("nothing")
