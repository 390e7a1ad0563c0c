"""Every turn of every conversation, in one SQLite file, through sqlite-utils.

A small verb API: `add`, `recent`, `count`, `clear`, `export`, `close`; `keep_timer`, `drop_timer`,
`kept_timers` for the timers, alarms and reminders not yet due, which outlive a restart
(`timers.py`); `add_to_list`, `list_items`, `remove_from_list`, `list_names` for the lists and notes
kept by voice (`lists.py`); `set_fact`, `fact`, `facts`, `forget_fact` for what the user asked it to
remember about them (`about_you.py`). `clear` forgets the conversation, not those. Each write is one
transaction (`with db.atomic():`); the schema comes from registered migrations
(`sqlite_utils.Migrations`, recorded in `_sqlite_migrations`), so a later column is a new function
below, never an edit of an old one.

Durability: WAL journal with `synchronous=FULL`. `add()` returns only after its COMMIT has been
fsynced to the WAL, so a turn whose id was returned survives SIGKILL and power loss alike; a
write killed half-way is rolled back on the next open. The cost is one fsync per turn (a few
milliseconds, once every few seconds), which a voice assistant never notices.

Privacy: the file and its -wal/-shm companions are created 0600 (SQLite gives the companions
the database's mode) in a 0700 directory; `secure_delete` overwrites what `clear()` deletes and
the WAL is truncated afterwards, so forgotten text does not linger on disk.

One conversation, one assistant: `run` and `chat` `claim()` the memory (an exclusive `flock` on
`<file>.lock`, released by the kernel when the process ends, however it ends), so a second one on
the same file stops with one line naming the first, instead of each one's window filling with the
other's turns. Reading (`memory show`, `doctor`) and `memory clear` need no claim.

Threads: the connection is opened with `check_same_thread=False` so `build()` may run on one
thread and the memory worker use it from another. The intended shape is one owner (the
pipeline's memory task); a lock around every verb makes a stray call from elsewhere safe
rather than corrupting.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from assistant.config import MemoryConfig

log = logging.getLogger(__name__)

ROLES = ("user", "assistant")
_EXPORT_PAGE = 500  # rows fetched per lock hold while exporting
LOCK_WAIT_S = 5.0  # how long a write waits for another process's lock on the file

migrations = Migrations("assistant.memory")


@migrations()
def m001_turns(db: Database) -> None:
    db["turns"].create(
        {
            "id": int,
            "session": str,
            "role": str,
            "text": str,
            "created_at": str,
            "interrupted": bool,
        },
        pk="id",
        not_null={"session", "role", "text", "created_at", "interrupted"},
        defaults={"interrupted": 0},
    )
    # `recent()` walks the INTEGER PRIMARY KEY (the rowid b-tree) backwards; this index serves
    # per-session queries (`assistant memory export` of one run, a future "forget this session").
    db["turns"].create_index(["session", "id"])


@migrations()
def m002_timers(db: Database) -> None:
    """Timers, alarms and reminders not yet due (`timers.Timer.row`): kept across restarts."""
    db["timers"].create(
        {"key": str, "kind": str, "seconds": int, "due_at": str, "at": str, "task": str, "link": str},
        pk="key",
        not_null={"kind", "seconds", "due_at", "link"},
    )


@migrations()
def m003_timer_names(db: Database) -> None:
    """A timer's name ("pasta": "Your pasta timer is done.")."""
    db["timers"].add_column("name", str)


@migrations()
def m004_timer_days_and_pauses(db: Database) -> None:
    """An alarm's or a reminder's weekdays ("01234": on weekdays), a paused timer's seconds left."""
    db["timers"].add_column("days", str)
    db["timers"].add_column("paused_left", int)


@migrations()
def m005_lists(db: Database) -> None:
    """Lists and notes kept by voice (`lists.py`: "add milk to my shopping list"), an item a row."""
    db["list_items"].create(
        {"id": int, "list": str, "item": str, "added_at": str}, pk="id", not_null={"list", "item", "added_at"}
    )
    db["list_items"].create_index(["list", "item"], unique=True)


@migrations()
def m006_timer_steps(db: Database) -> None:
    """A reminder's or an alarm's step, in seconds ("every hour": 3600)."""
    db["timers"].add_column("every_s", int)


@migrations()
def m007_facts(db: Database) -> None:
    """What the user told the assistant to remember about them (`about_you.py`: "my name is Sam")."""
    db["facts"].create({"key": str, "value": str, "set_at": str}, pk="key", not_null={"value", "set_at"})


@migrations()
def m008_timer_skips(db: Database) -> None:
    """A repeating alarm's or reminder's days skipped ahead of its next ("2026-12-11,2026-12-18")."""
    db["timers"].add_column("skips", str)


@migrations()
def m009_timer_months(db: Database) -> None:
    """A reminder's or an alarm's months from one to the next ("every year": 12) and its day of the
    month (`timers.Timer.months`, `month_day`)."""
    db["timers"].add_column("months", int)
    db["timers"].add_column("month_day", int)


@dataclass(frozen=True, slots=True)
class Turn:
    """One remembered message. `interrupted`: the user barged in; `text` is what was played."""

    role: str
    text: str
    interrupted: bool = False
    id: int = 0
    session: str = ""
    created_at: str = ""  # wall clock, ISO 8601 UTC: for people reading the export


class MemoryStoreError(RuntimeError):
    """The memory file cannot be opened or is not a SQLite database; one line naming it and the fix."""


class Memory:
    """The conversation store. `build()` opens (and creates) the file; see the module docstring."""

    def __init__(self, cfg: MemoryConfig):
        self.cfg = cfg
        self.path: Path = cfg.db_path
        self.session = uuid.uuid4().hex[:12]  # one per process run
        self._db: Database | None = None
        self._lock = threading.Lock()
        self._claim_fd: int | None = None  # the lock file, open while this process holds the conversation

    def build(self) -> Memory:
        """Open the file, creating it (and its folder) if need be. A file that cannot be opened or
        is not a SQLite database is a `MemoryStoreError` and is left as it is: it may be the only
        copy of the user's conversations."""
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _create_private(self.path)
        except OSError as err:
            raise MemoryStoreError(
                f"memory database {self.path}: cannot create or open it ({err.strerror}); "
                "fix: check the folder's permissions, or set [memory] path"
            ) from None
        conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=LOCK_WAIT_S)
        try:
            db = Database(conn, execute_plugins=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")  # see the module docstring: no completed turn is lost
            db.execute("PRAGMA secure_delete=ON")
            migrations.apply(db)
        except sqlite3.DatabaseError as err:
            conn.close()
            # OperationalError: locked, read-only, disk full: the file is fine, so never "move it aside".
            fix = (
                "check that the file and its folder are writable and that no other process holds it"
                if isinstance(err, sqlite3.OperationalError)
                else "move the file aside (a new memory starts in its place)"
            )
            raise MemoryStoreError(
                f"memory database {self.path}: {err}; fix: {fix}, or set [memory] path"
            ) from None
        self._db = db
        return self

    def claim(self) -> Memory:
        """Claim the conversation for this process (see the module docstring); a `MemoryStoreError`
        naming the holder's pid when another assistant has it."""
        lock_path = self._lock_path()
        fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder_pid(fd)
            os.close(fd)
            raise MemoryStoreError(
                f"memory database {self.path}: another assistant (pid {holder}) holds this "
                "conversation; fix: stop that one, or give this one its own [memory] path"
            ) from None
        except OSError as err:  # a file system without locks (ENOLCK): go on unguarded, as before
            os.close(fd)
            log.warning(
                "memory %s: cannot lock %s (%s); two assistants could share it", self.path, lock_path, err
            )
            return self
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._claim_fd = fd
        return self

    def holder(self) -> str | None:
        """The pid of the assistant holding the conversation now (for `doctor`), or None. Asked by
        taking a shared lock for a moment: a flock cannot be asked about otherwise."""
        try:
            fd = os.open(self._lock_path(), os.O_RDONLY)
        except FileNotFoundError:
            return None  # never claimed
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder_pid(fd)
        except OSError:
            return None  # no locks on this file system: nothing to ask
        finally:
            os.close(fd)  # and with it the shared lock, if taken
        return None

    def _lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    # -- verbs -------------------------------------------------------------------------------

    def add(self, role: str, text: str, interrupted: bool = False) -> int:
        """Store one message in its own transaction; returns its id once it is durable."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, got {role!r}")
        row = {
            "session": self.session,
            "role": role,
            "text": text,
            "created_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "interrupted": bool(interrupted),
        }
        with self._lock, self._open().atomic() as db:
            return db["turns"].insert(row).last_pk

    def recent(self, n: int) -> list[Turn]:
        """The newest `n` turns, oldest first. Walks the primary key backwards: O(n), not O(table)."""
        if n <= 0:
            return []
        sql = "SELECT * FROM turns ORDER BY id DESC LIMIT ?"
        with self._lock:
            rows = list(self._open().query(sql, [n]))
        return [_turn(row) for row in reversed(rows)]

    def count(self) -> int:
        with self._lock:
            return self._open()["turns"].count

    def clear(self) -> int:
        """Forget every turn; returns how many were deleted."""
        with self._lock:
            db = self._open()
            with db.atomic():
                deleted = db.execute("DELETE FROM turns").rowcount
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # old pages out of the -wal file too
        return deleted

    def export(self) -> Iterator[dict]:
        """Every turn as a dict, oldest first (one JSON line each for `assistant memory export`)."""
        last = 0
        sql = "SELECT * FROM turns WHERE id > ? ORDER BY id LIMIT ?"
        while True:
            with self._lock:  # paged, so a long export never holds the lock while the caller writes
                rows = list(self._open().query(sql, [last, _EXPORT_PAGE]))
            if not rows:
                return
            for row in rows:
                yield asdict(_turn(row))
            last = rows[-1]["id"]

    def keep_timer(self, row: dict) -> None:
        """Keep a timer, an alarm or a reminder not yet due (`timers.Timer.row`), durably."""
        with self._lock, self._open().atomic() as db:
            db["timers"].insert(row, replace=True)

    def drop_timer(self, key: str) -> None:
        """Forget a kept one: it went off, or was cancelled."""
        with self._lock, self._open().atomic() as db:
            db.execute("DELETE FROM timers WHERE key = ?", [key])

    def kept_timers(self) -> list[dict]:
        """Those kept and not yet dropped, soonest first."""
        with self._lock:
            return list(self._open().query("SELECT * FROM timers ORDER BY due_at"))

    def add_to_list(self, name: str, items: list[str]) -> list[str]:
        """Add `items` to the list `name` (made by its first item); returns those not on it before."""
        added_at = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, self._open().atomic() as db:
            on_it = {row["item"] for row in db.query("SELECT item FROM list_items WHERE list = ?", [name])}
            new = [item for item in dict.fromkeys(items) if item not in on_it]
            db["list_items"].insert_all({"list": name, "item": item, "added_at": added_at} for item in new)
        return new

    def list_items(self, name: str) -> list[str]:
        """The items on the list `name`, oldest first ([] for a list never made)."""
        with self._lock:
            rows = self._open().query("SELECT item FROM list_items WHERE list = ? ORDER BY id", [name])
            return [row["item"] for row in rows]

    def remove_from_list(self, name: str, items: list[str]) -> list[str]:
        """Take `items` off the list `name` (it ends with its last item); returns those that were on it."""
        removed = []
        with self._lock, self._open().atomic() as db:
            for item in dict.fromkeys(items):
                if db.execute("DELETE FROM list_items WHERE list = ? AND item = ?", [name, item]).rowcount:
                    removed.append(item)
        return removed

    def list_names(self) -> list[str]:
        """The lists that have items, in the order they were made."""
        with self._lock:
            rows = self._open().query("SELECT list FROM list_items GROUP BY list ORDER BY min(id)")
            return [row["list"] for row in rows]

    def set_fact(self, key: str, value: str) -> None:
        """Keep `value` as the fact `key` ("name"), in place of what it was."""
        set_at = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, self._open().atomic() as db:
            db["facts"].insert({"key": key, "value": value, "set_at": set_at}, replace=True)

    def fact(self, key: str) -> str | None:
        """The fact `key` as last set; None if it never was, or was forgotten."""
        with self._lock:
            rows = list(self._open().query("SELECT value FROM facts WHERE key = ?", [key]))
            return rows[0]["value"] if rows else None

    def facts(self) -> dict[str, str]:
        """Every fact kept, by key."""
        with self._lock:
            return {row["key"]: row["value"] for row in self._open().query("SELECT key, value FROM facts")}

    def forget_fact(self, key: str) -> bool:
        """Forget the fact `key` (its row is overwritten on disk: `secure_delete`); whether there was one."""
        with self._lock, self._open().atomic() as db:
            return db.execute("DELETE FROM facts WHERE key = ?", [key]).rowcount > 0

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            if self._claim_fd is not None:
                os.close(self._claim_fd)  # releases the flock; the file stays (no one locks an unlinked copy)
                self._claim_fd = None

    def _open(self) -> Database:
        if self._db is None:
            raise RuntimeError("Memory is not open: call build() first")
        return self._db


def _holder_pid(fd: int) -> str:
    """What the holder wrote into the lock file: its pid (empty for a moment as it writes)."""
    return os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"


def _turn(row: dict) -> Turn:
    return Turn(
        role=row["role"],
        text=row["text"],
        interrupted=bool(row["interrupted"]),
        id=row["id"],
        session=row["session"],
        created_at=row["created_at"],
    )


def _create_private(path: Path) -> None:
    """Create the file 0600 before SQLite does (SQLite would honour the umask, usually 0644)."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)  # also tightens a file created by an older version or by hand
