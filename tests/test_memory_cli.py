"""`assistant memory show|export|clear` on a real SQLite file, through the CLI as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assistant.config import MemoryConfig
from assistant.memory import Memory


@pytest.fixture
def setup(tmp_path):
    """(config file, database path) with three turns remembered, the last one interrupted."""
    db = tmp_path / "memory.db"
    config = tmp_path / "config.toml"
    config.write_text(f"[memory]\npath = '{db}'\n")
    memory = Memory(MemoryConfig(path=str(db))).build()
    memory.add("user", "what time is it")
    memory.add("assistant", "It is ten past three.")
    memory.add("user", "and tomorrow's weather", interrupted=True)
    memory.close()
    return config, db


def _memory(config, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(config), "memory", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, input=stdin)


def test_show_prints_the_newest_turns_oldest_first(setup):
    config, _ = setup
    result = _memory(config, "show", "--last", "2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == [
        "assistant: It is ten past three.",
        "     user: and tomorrow's weather [interrupted]",
    ]


def test_export_is_every_turn_as_json_lines(setup):
    config, _ = setup
    result = _memory(config, "export")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["role"], r["text"], r["interrupted"]) for r in rows] == [
        ("user", "what time is it", False),
        ("assistant", "It is ten past three.", False),
        ("user", "and tomorrow's weather", True),
    ]


def test_clear_asks_first_and_deletes_only_on_yes(setup):
    config, db = setup
    refused = _memory(config, "clear", stdin="n\n")
    assert refused.returncode == 1 and refused.stdout.endswith("nothing deleted\n")
    assert f"Delete all 3 turns in {db}?" in refused.stdout
    assert len(_memory(config, "export").stdout.splitlines()) == 3

    cleared = _memory(config, "clear", "--yes")
    assert cleared.returncode == 0 and cleared.stdout == f"deleted 3 turns from {db}\n"
    assert _memory(config, "export").stdout == ""
    assert _memory(config, "show").stdout == f"no turns remembered in {db}\n"
    # Forgotten means gone from the disk too, not only from the table (secure_delete, WAL truncated).
    for path in (db, db.with_name(db.name + "-wal")):
        assert not path.exists() or b"ten past three" not in path.read_bytes()
