"""Memory on real SQLite files: verbs, durability under SIGKILL, speed at 10,000 turns, the window."""

import errno
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlite_utils import Database

from assistant import memory as memory_module
from assistant.config import LlmConfig, MemoryConfig
from assistant.llm import LocalLlm
from assistant.memory import Memory, MemoryStoreError
from assistant.prompt import ELLIPSIS, build_messages, window

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def cfg(tmp_path) -> MemoryConfig:
    return MemoryConfig(path=str(tmp_path / "state" / "memory.db"))


@pytest.fixture
def mem(cfg):
    memory = Memory(cfg).build()
    yield memory
    memory.close()


@pytest.fixture(scope="module")
def count_tokens():
    llm = LocalLlm(LlmConfig()).build()
    yield llm.count_tokens
    llm.close()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def fill(path: Path, n: int) -> None:
    """Bulk-load `n` alternating turns straight through sqlite-utils (one transaction, fast)."""
    rows = (
        {
            "session": "bulk",
            "role": ("user", "assistant")[i % 2],
            "text": f"turn {i} " + "words " * 20,
            "created_at": "2025-01-01T00:00:00.000+00:00",
            "interrupted": False,
        }
        for i in range(n)
    )
    db = Database(path)
    with db.atomic():
        db["turns"].insert_all(rows, batch_size=1000)
    db.close()


# -- verbs ---------------------------------------------------------------------------------


def test_build_creates_a_private_file_and_directory(mem, cfg):
    mem.add("user", "hello")
    assert mode(cfg.db_path) == 0o600
    assert mode(cfg.db_path.parent) == 0o700
    wal = cfg.db_path.with_name(cfg.db_path.name + "-wal")
    assert wal.exists() and mode(wal) == 0o600


def test_build_tightens_an_existing_loose_file(cfg):
    cfg.db_path.parent.mkdir(parents=True)
    cfg.db_path.touch(mode=0o644)
    Memory(cfg).build().close()
    assert mode(cfg.db_path) == 0o600


def test_add_and_recent_newest_in_chronological_order(mem):
    ids = [mem.add(("user", "assistant")[i % 2], f"t{i}") for i in range(5)]
    assert ids == sorted(ids)
    recent = mem.recent(3)
    assert [t.text for t in recent] == ["t2", "t3", "t4"]
    assert [t.id for t in recent] == ids[2:]
    assert recent[0].role == "user" and recent[0].session == mem.session
    assert recent[0].created_at.endswith("+00:00")
    assert mem.recent(0) == [] and len(mem.recent(100)) == 5


def test_interrupted_flag_round_trips(mem):
    mem.add("assistant", "Paris is", interrupted=True)
    assert mem.recent(1)[0].interrupted is True


def test_add_rejects_an_unknown_role(mem):
    with pytest.raises(ValueError, match="role"):
        mem.add("system", "nope")
    assert mem.count() == 0


def test_count_and_clear(mem):
    for i in range(4):
        mem.add("user", f"t{i}")
    assert mem.count() == 4
    assert mem.clear() == 4
    assert mem.count() == 0 and mem.recent(8) == []
    mem.add("user", "again")
    assert mem.count() == 1


def test_export_is_every_turn_in_order_as_json_ready_dicts(mem, cfg):
    mem.add("user", "first")
    mem.close()
    fill(cfg.db_path, 1_200)  # more than one export page
    memory = Memory(cfg).build()
    rows = list(memory.export())
    memory.close()
    assert len(rows) == 1_201 and rows[0]["text"] == "first"
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    assert set(rows[0]) == {"id", "session", "role", "text", "created_at", "interrupted"}
    json.dumps(rows[0])


def test_migrations_are_recorded_once(cfg):
    Memory(cfg).build().close()
    Memory(cfg).build().close()
    db = Database(cfg.db_path)
    applied = [r["name"] for r in db["_sqlite_migrations"].rows]
    assert applied == [
        "m001_turns", "m002_timers", "m003_timer_names", "m004_timer_days_and_pauses", "m005_lists",
        "m006_timer_steps", "m007_facts", "m008_timer_skips", "m009_timer_months",
    ]  # fmt: skip


def test_a_file_of_an_older_version_gains_the_timers_and_keeps_its_turns(cfg):
    memory = Memory(cfg).build()
    memory.add("user", "before timers were kept")
    memory.close()
    db = Database(cfg.db_path)  # as the version before m002 left it
    for later in ("timers", "list_items", "facts"):
        db[later].drop()
    db.execute("DELETE FROM _sqlite_migrations WHERE name != 'm001_turns'")
    db.conn.commit()
    db.close()
    memory = Memory(cfg).build()
    memory.keep_timer(_ROW)
    assert [t.text for t in memory.recent(5)] == ["before timers were kept"]
    assert memory.kept_timers() == [_ROW]
    memory.close()


_ROW = {"key": "k1", "kind": "reminder", "seconds": 600, "due_at": "2026-12-07T10:10:00+00:00",
        "at": None, "task": "call your mom", "link": "to", "name": None, "days": "",
        "paused_left": None, "every_s": 0, "skips": "", "months": 0, "month_day": 0}  # fmt: skip


def test_a_kept_timer_of_the_version_before_days_and_pauses_is_kept(cfg):
    memory = Memory(cfg).build()
    memory.close()
    db = Database(cfg.db_path)  # as m003 left it, with a reminder kept
    later = ("days", "paused_left", "every_s", "skips", "months", "month_day")
    db["timers"].transform(drop=set(later))
    db.execute(
        "DELETE FROM _sqlite_migrations WHERE name IN"
        " ('m004_timer_days_and_pauses', 'm006_timer_steps', 'm008_timer_skips', 'm009_timer_months')"
    )
    old = {k: v for k, v in _ROW.items() if k not in later}
    db["timers"].insert(old)
    db.conn.commit()
    db.close()
    memory = Memory(cfg).build()
    assert memory.kept_timers() == [old | dict.fromkeys(later)]
    memory.keep_timer(_ROW | {"key": "k2", "days": "01234"})
    assert memory.kept_timers()[1]["days"] == "01234"
    memory.close()


def test_timers_are_kept_until_dropped_and_not_forgotten_with_the_conversation(mem, cfg):
    later = _ROW | {"key": "k2", "kind": "alarm", "due_at": "2026-12-08T07:00:00+00:00",
                    "at": "2026-12-08T07:00:00", "task": None}  # fmt: skip
    mem.keep_timer(later)
    mem.keep_timer(_ROW)
    mem.add("user", "remind me to call my mom in ten minutes")
    assert mem.clear() == 1  # "forget our conversation": the turns, not what is still to ring
    mem.close()
    memory = Memory(cfg).build()  # a restart
    assert memory.kept_timers() == [_ROW, later]  # soonest first
    memory.drop_timer("k1")
    assert memory.kept_timers() == [later]
    memory.close()


def test_verbs_work_from_a_worker_thread(mem):
    result = {}

    def work():
        result["id"] = mem.add("user", "from a thread")
        result["recent"] = mem.recent(1)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(timeout=10)
    assert result["recent"][0].text == "from a thread"


def test_using_memory_before_build_is_a_clear_error(cfg):
    with pytest.raises(RuntimeError, match="build"):
        Memory(cfg).recent(1)


def test_a_file_that_is_not_a_database_is_one_line_and_left_as_it_is(cfg):
    cfg.db_path.parent.mkdir(parents=True)
    junk = os.urandom(8192)
    cfg.db_path.write_bytes(junk)
    with pytest.raises(MemoryStoreError) as err:
        Memory(cfg).build()
    assert str(err.value) == (
        f"memory database {cfg.db_path}: file is not a database; "
        "fix: move the file aside (a new memory starts in its place), or set [memory] path"
    )
    assert cfg.db_path.read_bytes() == junk
    assert not cfg.db_path.with_name(cfg.db_path.name + "-wal").exists()


def test_a_file_another_process_holds_is_one_line_that_does_not_say_move_it(cfg, monkeypatch):
    cfg.db_path.parent.mkdir(parents=True)
    holder = sqlite3.connect(cfg.db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # as a process in the middle of a long write
    monkeypatch.setattr(memory_module, "LOCK_WAIT_S", 0.1)
    try:
        with pytest.raises(MemoryStoreError) as err:
            Memory(cfg).build()
    finally:
        holder.rollback()
        holder.close()
    assert str(err.value) == (
        f"memory database {cfg.db_path}: database is locked; fix: check that the file and its folder are "
        "writable and that no other process holds it, or set [memory] path"
    )


def test_a_folder_that_cannot_be_made_is_one_line(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    cfg = MemoryConfig(path=str(blocker / "memory.db"))
    with pytest.raises(MemoryStoreError, match=r"memory database .*memory.db: cannot create or open it \("):
        Memory(cfg).build()


# -- durability ----------------------------------------------------------------------------

CHILD = """
import sys
from assistant.config import MemoryConfig
from assistant.memory import Memory
mem = Memory(MemoryConfig(path=sys.argv[1])).build()
i = 0
while True:
    role = ("user", "assistant")[i % 2]
    turn_id = mem.add(role, f"turn {i} " + "x" * 4000)
    print(turn_id, flush=True)  # printed only after add() returned: a completed turn
    i += 1
"""


def test_sigkill_mid_turn_loses_no_completed_turn(cfg):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for kill_after in (5, 40):  # two different moments, the second well into the loop
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(cfg.db_path)], stdout=subprocess.PIPE, text=True, env=env
        )
        completed = [int(child.stdout.readline()) for _ in range(kill_after)]
        os.kill(child.pid, signal.SIGKILL)  # the child is inside its next add()
        completed += [int(line) for line in child.stdout.read().split()]
        child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL
        conn = sqlite3.connect(cfg.db_path)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {row[0] for row in conn.execute("SELECT id FROM turns")}
        conn.close()
        assert set(completed) <= stored
    memory = Memory(cfg).build()  # and it still opens and takes writes
    memory.add("user", "after the crash")
    assert memory.recent(1)[0].text == "after the crash"
    memory.close()


CLAIMER = """
import sys, time
from assistant.config import MemoryConfig
from assistant.memory import Memory
mem = Memory(MemoryConfig(path=sys.argv[1])).build().claim()
mem.add("user", "the first assistant's turn")
print("claimed", flush=True)
time.sleep(60)
"""


def test_one_assistant_at_a_time_holds_the_conversation_until_it_ends_even_by_sigkill(cfg):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(cfg.db_path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout.readline().strip() == "claimed"
        second = Memory(cfg).build()
        with pytest.raises(
            MemoryStoreError, match=rf"another assistant \(pid {child.pid}\) holds this conversation"
        ):
            second.claim()
        assert [t.text for t in second.recent(5)] == ["the first assistant's turn"]  # reading needs no claim
        assert second.holder() == str(child.pid)  # what `doctor` says
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    assert second.holder() is None
    second.claim().add("user", "the second one's turn")  # the kernel let go with the dead process
    second.close()  # and close() lets go too
    third = Memory(cfg).build().claim()
    assert third.count() == 2
    third.close()


def test_a_file_system_without_locks_goes_on_unguarded_with_a_warning(cfg, monkeypatch, caplog):
    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(memory_module.fcntl, "flock", no_locks)
    memory = Memory(cfg).build().claim()  # as before claims existed, not a failed start
    memory.add("user", "still remembered")
    memory.close()
    assert "cannot lock" in caplog.text and "two assistants could share it" in caplog.text


# -- speed and the window with the real tokenizer -------------------------------------------


def test_prompt_from_a_10000_turn_database_takes_milliseconds(cfg, count_tokens):
    Memory(cfg).build().close()
    fill(cfg.db_path, 10_000)
    memory = Memory(cfg).build()
    plan = " ".join(
        str(row)
        for row in memory._db.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM turns ORDER BY id DESC LIMIT 8"
        ).fetchall()
    )
    assert "TEMP B-TREE" not in plan  # walks the primary key; no sort of the table
    start = time.perf_counter()
    history = memory.recent(cfg.window_turns)
    messages = build_messages("system", window(history, cfg, count_tokens), "hello")
    elapsed = time.perf_counter() - start
    memory.close()
    assert len(messages) == 2 + cfg.window_turns
    assert elapsed < 0.05, f"prompt took {elapsed * 1000:.1f} ms"


def test_window_bounds_with_the_real_tokenizer(mem, count_tokens):
    for i in range(10):
        mem.add("user", f"Question {i}: " + "tell me about the weather in Lisbon " * 3)
        mem.add("assistant", f"Answer {i}: " + "it is sunny and warm by the sea " * 40)
    cfg = MemoryConfig(window_turns=8, max_tokens=200, max_item_chars=400)
    kept = window(mem.recent(cfg.window_turns), cfg, count_tokens)
    assert 0 < len(kept) <= 8
    assert sum(count_tokens(t.text) for t in kept) <= 200
    assert all(len(t.text) <= 400 for t in kept)
    assert any(t.text.endswith(ELLIPSIS) for t in kept if t.role == "assistant")
    assert kept[0].role == "user"
    assert kept[-1].text.startswith("Answer 9")
