"""Every message that flows between stages, in one place.

Two kinds, split by what survives a barge-in:
- `SystemFrame`: control that must get through an interruption (the interruption itself, the end of
  input). Never dropped.
- `DataFrame`: the work of one turn (answer text, audio to play). Dropped from every queue when the
  turn is interrupted.

A `Turn` travels inside the data frames: the identity of one user→assistant exchange, its stage
marks on the monotonic clock, and the event that cancels its blocking work in worker threads.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field

import numpy as np


def now_ns() -> int:
    """The one clock for stage marks: monotonic, so durations never go negative."""
    return time.perf_counter_ns()


def _set_event() -> asyncio.Event:
    event = asyncio.Event()
    event.set()
    return event


@dataclass
class Turn:
    """One exchange. Marks are stage names → perf_counter_ns; durations are derived in metrics.py."""

    id: int
    user_text: str
    marks: dict[str, int] = field(default_factory=dict)
    counters: dict[str, float] = field(default_factory=dict)
    cancel: threading.Event = field(default_factory=threading.Event)
    played_clauses: list[str] = field(default_factory=list)
    # (ns its first sample went out, text) per clause each time it starts to sound (again after a
    # hold): which of the answer's words could be echoing at a given moment (`bargein._says`)
    sounded: list[tuple[int, str]] = field(default_factory=list)
    answer_text: str = ""
    # What wrote the answer: "llm", or what answered without it ("clock", "timers", "units", ...,
    # `AnswerStage`; "respeak" for the rest of a falsely cut answer). Logged: such turns have no LLM marks.
    answered_by: str = ""
    # Why the rest of the answer was not spoken: the speaker failed mid-turn. The answer goes on in
    # text and is remembered whole (it was shown); the speaker is tried again at the next answer.
    speaker_error: str = ""
    # The error that ended the turn (a stage crashed); its work is cancelled as for an interruption,
    # but it was not one: the user did not cut it.
    failed: str = ""
    # Set once the first clause's audio exists (or it never will): the LLM waits for it, see AnswerStage.
    first_audio: threading.Event = field(default_factory=threading.Event)
    # Set once the turn may be heard, shown and remembered. A turn started ahead of the endpoint
    # (`Pipeline.start_ahead`) is answered but held back until `Pipeline.confirm`; others start set.
    confirmed: asyncio.Event = field(default_factory=_set_event)

    def mark(self, name: str, t_ns: int | None = None) -> None:
        """Record the first time a stage boundary is reached (later calls keep the first)."""
        self.marks.setdefault(name, now_ns() if t_ns is None else t_ns)

    @property
    def interrupted(self) -> bool:
        """The user cut the answer (barge-in, Ctrl-C)."""
        return self.cancel.is_set() and not self.failed


class Frame:
    """Base of every message between stages."""


class SystemFrame(Frame):
    """Survives an interruption."""


class DataFrame(Frame):
    """Belongs to one turn; flushed when that turn is interrupted."""

    turn: Turn


@dataclass
class Interrupt(SystemFrame):
    """Barge-in (or Ctrl-C): every stage cancels in-flight work and drops queued data frames."""

    turn_id: int


@dataclass
class EndOfInput(SystemFrame):
    """No more input will come: stages finish what they hold and stop."""


@dataclass
class UserText(DataFrame):
    """The final transcript (or typed line) that starts a turn."""

    turn: Turn
    # The memory window read when a turn starts ahead of the endpoint (its user text is remembered
    # only at confirm); None: remember the user text now and read the window after it.
    history: list | None = None


@dataclass
class AnswerText(DataFrame):
    """A piece of the answer as the LLM streams it (a token or a few)."""

    turn: Turn
    text: str


@dataclass
class AnswerEnd(DataFrame):
    """The LLM has finished (or was cut at max tokens)."""

    turn: Turn


@dataclass
class ClauseAudio(DataFrame):
    """One synthesized clause, ready to play."""

    turn: Turn
    index: int
    text: str
    samples: np.ndarray  # (N,) float32 in [-1, 1]
    sample_rate: int


@dataclass
class SpeechDone(DataFrame):
    """The TTS has synthesized every clause of the turn; playback finishes the turn after it."""

    turn: Turn
