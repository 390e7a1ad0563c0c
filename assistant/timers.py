"""Kitchen timers, set and asked about by voice: "set a timer for five minutes".

Asked to set one, the LLM said "Set a timer for five minutes and have the user take a picture of
themselves" and set nothing (an instruction in its system prompt not to promise what it cannot do
changed nothing). So a request that is only about a timer is answered here, and the timer is real:
when it is due the assistant says so aloud (`Pipeline.announce`), after the answer it is giving.

    timers = Timers(announce)            # announce(text): say it, as the assistant's own turn
    timers.answer("set a timer for twenty five minutes")   # "Timer set for 25 minutes."
    timers.answer("how much time is left")                  # "24 minutes and 59 seconds left."
    timers.answer("cancel the timer")                       # "Timer cancelled."

Matched on `asr.text.normalize()`d text, as `clock.py` does: numbers arrive as words ("twenty
five"), so they are read back through the same num2words that spelled them. Timers live as long as
the assistant runs (a restart forgets them).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from assistant.asr.text import normalize

MAX_NUMBER = 999
# "twenty five" → 25, as the normalizer spells them (num2words, hyphens as spaces); "a"/"an" are one.
_NUMBERS = {normalize(str(n)): n for n in range(1, MAX_NUMBER + 1)} | {"a": 1, "an": 1}
_UNIT_S = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600}
_NUMBER = "|".join(sorted(map(re.escape, _NUMBERS), key=len, reverse=True))  # longest first
_PART = re.compile(
    rf"(?:({_NUMBER}) (second|sec|minute|min|hour)s?( and a half)?|half an hour|half a minute)"
)
_DURATION = re.compile(rf"{_PART.pattern}(?:(?: and | )(?:{_PART.pattern}))*")

_BEFORE = r"(?:(?:hey|ok|okay|so|um|uh|and|please|assistant|can you|could you|would you|will you)\s+)*"
_TIMER = r"(?:a |an |the |my |me a |me an )?timer"
_SET = re.compile(
    rf"{_BEFORE}(?:(?:set|start|make|create|put on|give me)\s+)?(?:{_TIMER} (?:for|of) (?P<for>.+?)"
    rf"|(?:a |an )?(?P<named>.+?) timer)(?: please)?"
)
_CANCEL = re.compile(
    rf"{_BEFORE}(?:cancel|stop|delete|remove|clear|turn off|end)(?: the| my| all| all the| all my)? timers?"
    r"(?: please)?"
)
_LEFT = re.compile(
    rf"{_BEFORE}(?:how (?:much time|much longer|long) (?:is |is there )?(?:left|remaining|to go)"
    r"(?: on (?:the|my) timers?)?|how long until (?:the|my) timer(?: goes off| is done| ends)?"
    r"|(?:what's|what is) (?:left )?on (?:the|my) timers?|check (?:the|my) timers?)(?: please)?"
)


def parse_duration(words: str) -> int | None:
    """Seconds in a spoken duration ("an hour and a half", "one minute thirty seconds",
    "twenty five minutes"), or None if `words` are not one."""
    if not _DURATION.fullmatch(words):
        return None
    total = 0
    for number, unit, half in _PART.findall(words):
        if not number:  # "half an hour", "half a minute"
            continue
        total += _NUMBERS[number] * _UNIT_S[unit] + (_UNIT_S[unit] // 2 if half else 0)
    total += 1800 * len(re.findall(r"\bhalf an hour\b", words)) + 30 * len(
        re.findall(r"\bhalf a minute\b", words)
    )
    return total or None


def parse_request(text: str) -> tuple[str, int | None] | None:
    """("set", seconds or None when the duration is not one), ("cancel", None) or ("left", None);
    None when `text` is not only about a timer."""
    said = normalize(text)
    if _CANCEL.fullmatch(said):
        return "cancel", None
    if _LEFT.fullmatch(said):
        return "left", None
    if m := _SET.fullmatch(said):
        seconds = parse_duration(m["for"] or m["named"])
        if seconds is not None or m["for"]:  # "... the pasta timer" is no request; "... for the pasta" is
            return "set", seconds
    return None


def spoken_duration(seconds: int) -> str:
    """3725 → "1 hour, 2 minutes and 5 seconds" (digits: the voice reads them, the terminal shows them)."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'s' * (n != 1)}"
        for n, unit in ((hours, "hour"), (minutes, "minute"), (secs, "second"))
        if n
    ]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass
class Timer:
    seconds: int  # as set
    due: float  # time.monotonic() when it goes off
    handle: asyncio.TimerHandle | None = None

    def left(self) -> int:
        return max(1, round(self.due - time.monotonic()))


@dataclass
class Timers:
    """The running timers. `announce(text)` is called on the event loop when one is due."""

    announce: Callable[[str], object]
    running: list[Timer] = field(default_factory=list)

    def answer(self, text: str) -> str | None:
        """The reply to a request about timers (and the timer set or cancelled), or None for any other
        text. Call it on the event loop: the timers are its call_later handles."""
        request = parse_request(text)
        if request is None:
            return None
        what, seconds = request
        if what == "cancel":
            return self._cancel()
        if what == "left":
            return self._left()
        if seconds is None:  # "set a timer for the pasta": a timer, but for how long? (not the LLM's guess)
            return "For how long? Say, for example: set a timer for five minutes."
        return self._set(seconds)

    def _set(self, seconds: int) -> str:
        timer = Timer(seconds, time.monotonic() + seconds)
        timer.handle = asyncio.get_running_loop().call_later(seconds, self._due, timer)
        self.running.append(timer)
        more = f" You have {len(self.running)} timers." if len(self.running) > 1 else ""
        return f"Timer set for {spoken_duration(seconds)}.{more}"

    def _due(self, timer: Timer) -> None:
        self.running.remove(timer)
        self.announce(f"Your timer for {spoken_duration(timer.seconds)} is done.")

    def _cancel(self) -> str:
        if not self.running:
            return "There is no timer to cancel."
        for timer in self.running:
            timer.handle.cancel()
        count, self.running = len(self.running), []
        return "Timer cancelled." if count == 1 else f"{count} timers cancelled."

    def _left(self) -> str:
        if not self.running:
            return "There is no timer running."
        if len(self.running) == 1:
            return f"{spoken_duration(self.running[0].left())} left."
        each = [
            f"the timer for {spoken_duration(t.seconds)} has {spoken_duration(t.left())} left"
            for t in self.running
        ]
        return "T" + (", ".join(each[:-1]) + " and " + each[-1])[1:] + "."

    def close(self) -> int:
        """Stop every timer (the assistant is stopping); how many were running."""
        count = len(self.running)
        for timer in self.running:
            timer.handle.cancel()
        self.running = []
        return count
