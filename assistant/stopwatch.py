"""A stopwatch by voice: "start the stopwatch", "how long has the stopwatch been running", "lap",
"stop the stopwatch", "read my laps", "reset the stopwatch".

Asked to start a stopwatch, the embedded LLM said "1. 1:02 2. 3:47 3. 5:18"; asked how long it had
been running, "The stopwatch has been running for 12 years now". A timer counts down to a
moment (`timers.py`); a stopwatch counts up from one, and is read out when asked. It runs on the
timers' clock (`timers.awake_or_asleep_s`: on through a suspend, never stepped by the wall clock)
and lives as long as the assistant runs, not across a restart.

    watch = Stopwatch()
    watch.answer("start the stopwatch")      # "Stopwatch started."
    watch.answer("what's on the stopwatch")  # "1 minute and 5 seconds."
    watch.answer("lap")                      # "Lap 1 at 1 minute and 8 seconds."
    watch.answer("stop the stopwatch")       # "Stopwatch stopped at 1 minute and 12 seconds."
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from assistant import phrases
from assistant.asr.text import normalize
from assistant.timer_requests import spoken_duration
from assistant.timers import awake_or_asleep_s

_WATCH = r"(?:the |a |my )?stop ?watch"
_PATTERNS = {
    "start": rf"(?:start|begin|run|set|turn on) {_WATCH}|{_WATCH} (?:start|go)|start timing(?: me)?",
    "resume": rf"(?:resume|continue|unpause) {_WATCH}|start {_WATCH} again",
    "restart": rf"(?:restart|start over) {_WATCH}|start {_WATCH} over",
    "stop": rf"(?:stop|pause|halt|turn off|end|finish) {_WATCH}|{_WATCH} stop|stop timing(?: me)?",
    "reset": rf"(?:reset|clear|cancel|zero|delete) {_WATCH}",
    "read": rf"(?:what's|what is|check|read) (?:on )?{_WATCH}(?: at| say| reading)?"
    rf"|how long (?:has|is) {_WATCH}(?: been)?(?: running| going| on)?"
    rf"|how much time (?:is |has passed )?on {_WATCH}|(?:the )?stop ?watch",
    # a runner's lap: the reading kept, and the time since the last
    "lap": r"lap|split|(?:mark|take|record|new|next) (?:a )?(?:lap|split)|lap (?:it|time)",
    "laps": r"(?:read|tell me|what are|what were|list) (?:my |the )?(?:laps|lap times|splits)",
    "lap count": r"how many laps(?: have i done| did i do| is that)?",
}
_REQUESTS = phrases.requests(_PATTERNS, tail=r"(?: please)?(?: now)?")


@dataclass
class Stopwatch:
    """Time counted while running (`counted`) and since it was last started (`started`, on `clock`)."""

    clock: Callable[[], float] = awake_or_asleep_s
    counted: float = 0.0  # seconds, up to the last stop
    started: float | None = None  # when it last started, while it runs
    laps: list[float] = field(default_factory=list)  # the reading at each "lap", in seconds

    def answer(self, text: str) -> str | None:
        """The reply to a request about the stopwatch, having done it; None for any other text."""
        kind, _ = phrases.first_match(_REQUESTS, normalize(text))
        if kind is None:
            return None
        if kind in ("start", "resume"):
            if self.started is not None:
                return f"The stopwatch is already running: {self._reading()}."
            self.started = self.clock()  # from where it stopped: "reset the stopwatch" starts at 0
            return (
                f"Stopwatch started again from {self._reading()}." if self.counted else "Stopwatch started."
            )
        if kind == "stop":
            if self.started is None:
                return (
                    f"It's stopped at {self._reading()}." if self.counted else "The stopwatch isn't running."
                )
            self.counted, self.started = self.elapsed(), None
            return f"Stopwatch stopped at {self._reading()}."
        if kind in ("reset", "restart"):  # "restart": from 0, as a stopwatch's reset and start
            self.counted, self.started = 0.0, self.clock() if kind == "restart" else None
            self.laps = []
            return "Stopwatch restarted." if kind == "restart" else "Stopwatch reset."
        if kind == "lap":
            return self._lap()
        if kind == "laps":
            return self._laps()
        if kind == "lap count":
            return f"{len(self.laps)} lap{'s' * (len(self.laps) != 1)}."
        if self.started is None and not self.counted:
            return "The stopwatch isn't running. Say start the stopwatch."
        reading = self._reading()
        return f"{reading[0].upper()}{reading[1:]}{'' if self.started is not None else ', stopped'}."

    def elapsed(self) -> float:
        """Seconds counted, up to now while it runs."""
        return self.counted + (self.clock() - self.started if self.started is not None else 0.0)

    def _lap(self) -> str:
        """ "Lap 2 at 2 minutes and 10 seconds: 1 minute and 5 seconds for that lap." """
        if self.started is None:
            return "The stopwatch isn't running. Say start the stopwatch."
        self.laps.append(self.elapsed())
        at = f"Lap {len(self.laps)} at {self._reading()}"
        if len(self.laps) == 1:
            return f"{at}."
        return f"{at}: {spoken_duration(int(self.laps[-1]) - int(self.laps[-2]))} for that lap."

    def _laps(self) -> str:
        """ "Lap 1: 1 minute and 5 seconds; lap 2: 58 seconds." (each lap's own time)"""
        if not self.laps:
            return "No laps yet. Say lap while the stopwatch runs."
        starts = [0.0, *self.laps[:-1]]
        each = [spoken_duration(int(end) - int(start)) for start, end in zip(starts, self.laps, strict=True)]
        return "; ".join(f"{'L' if i == 0 else 'l'}ap {i + 1}: {time}" for i, time in enumerate(each)) + "."

    def _reading(self) -> str:
        """ "1 minute and 5 seconds"; "0 seconds" just started."""
        return spoken_duration(int(self.elapsed()))
