"""scripts/bench_requests.py: its requests are the assistant's own to answer, and its outcomes."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import bench_requests as bench  # noqa: E402

NOW = datetime(2026, 12, 7, 10, 0)


@pytest.mark.parametrize(("kind", "text"), bench.REQUESTS)
def test_each_request_typed_is_answered_without_the_llm(kind, text):
    source, _ = bench.answered(text, NOW)
    assert source != "llm", f"{kind}: {text!r}"


def test_outcomes():
    expected = bench.answered("set a timer for fifteen minutes", NOW)
    assert bench.outcome(bench.answered("set a timer for fifteen minutes", NOW), expected) == "right"
    assert bench.outcome(bench.answered("set a timer for fifty minutes", NOW), expected) == "wrong answer"
    assert bench.outcome(bench.answered("set a timer for the pasta", NOW), expected) == "asked back"
    assert bench.outcome(bench.answered("set a time of fifteen minutes", NOW), expected) == "to the LLM"
