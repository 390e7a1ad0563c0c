"""Kitchen timers, alarms and reminders, set and asked about by voice: "set a timer for five
minutes", "wake me up at seven", "remind me to call my mom in an hour".

Asked to set one, the LLM said "Set a timer for five minutes and have the user take a picture of
themselves" and set nothing (an instruction in its system prompt not to promise what it cannot do
changed nothing). So a request that is only about a timer is answered here, and the timer is real:
when it is due the assistant says so aloud (`Pipeline.announce`), after the answer it is giving.

    timers = Timers(announce)            # announce(text): say it, as the assistant's own turn
    timers.answer("set a timer for twenty five minutes")   # "Timer set for 25 minutes."
    timers.answer("how much time is left")                  # "24 minutes and 59 seconds left."
    timers.answer("cancel the timer")                       # "Timer cancelled."
    timers.answer("set an alarm for six forty five a m")    # "Alarm set for 6:45 AM tomorrow."
    timers.answer("when is my alarm")                       # "Your alarm is set for 6:45 AM tomorrow."
    timers.answer("remind me to call my mom in ten minutes")  # "Okay, I'll remind you to call your mom ..."
    timers.answer("snooze")                                 # after an alarm rang: "Snoozed until 7:09 AM."

Matched on `asr.text.normalize()`d text, as `clock.py` does: numbers arrive as words ("twenty
five"), so they are read back through the same num2words that spelled them. A time of day without
a.m. or p.m. is the sooner of the two ("set an alarm for seven" at 5 PM: 7 PM), but a wake-up is in
the morning ("wake me up at seven" at 5 PM: 7 AM), and tomorrow's is by day unless the part of the
day is said ("nine tomorrow": 9 AM, "one tomorrow": 1 PM, "ten tomorrow night": 10 PM). Those not
yet due outlive a restart when `Timers.keep`/`drop` store them (the pipeline's memory file:
`Memory.keep_timer`), and `restore` runs them again. They count the time the computer sleeps
(`awake_or_asleep_s`): one due while it slept (or while no assistant ran) is said within CHECK_S of
waking (or at the start), and says how late it is.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from assistant.asr.text import normalize
from assistant.clock import time_of_day
from assistant.phrases import LEAD_IN

MAX_NUMBER = 999
# "twenty five" → 25, as the normalizer spells them (num2words, hyphens as spaces); "a"/"an" are one.
_NUMBERS = {normalize(str(n)): n for n in range(1, MAX_NUMBER + 1)} | {"a": 1, "an": 1}
_UNIT_S = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600}
_NUMBER = "|".join(sorted(map(re.escape, _NUMBERS), key=len, reverse=True))  # longest first
_PART = re.compile(
    rf"(?:({_NUMBER}) (second|sec|minute|min|hour)s?( and a half)?|half an hour|half a minute)"
)
_DURATION = re.compile(rf"{_PART.pattern}(?:(?: and | )(?:{_PART.pattern}))*")

_TIMER = r"(?:a |an |the |my |me a |me an |another |one more )?timer"
# "set a timer for ten minutes", "a ten minute timer", and with a name: "the pasta timer for ten
# minutes", "a ten minute egg timer", "a timer called pasta for ...", "... for ten minutes for the pasta"
_SET = re.compile(
    rf"{LEAD_IN}(?:(?P<verb>set|start|make|create|put on|give me)\s+)?"
    rf"(?:{_TIMER}(?: (?:called|named) (?P<called>[a-z']+))?(?: (?:for|of) (?P<for>.+?)| (?P<bare>.+?))?"
    rf"|(?:a |an |the |my |another )?(?P<named>.+?) timer(?: (?:for|of) (?P<named_for>.+?))?)(?: please)?"
)
_FOR_NAME = re.compile(r"(?P<duration>.+?) (?:for|called|named) (?:the |my )?(?P<name>[a-z']+(?: [a-z']+)?)")
MAX_NAME_WORDS = 2  # "pasta", "boiled egg": a timer's name, not a sentence
# "cancel my alarm for seven", "... the timer for ten minutes", "... the reminder to call my mom": that one
_CANCEL = re.compile(
    rf"{LEAD_IN}(?:cancel|stop|delete|remove|clear|turn off|end)(?: the| my| all| all the| all my)?"
    r"(?: (?P<name>[a-z']+))? (?P<kind>timer|alarm|reminder)s?(?: (?P<which>(?:for|at|to|about|that) .+?))?"
    r"(?: please)?"
)
# asked of a timer or an alarm what it cannot do: an honest answer, not the LLM's "Done!"
_CANNOT = re.compile(
    rf"{LEAD_IN}(?:(?:pause|resume|restart|unpause|stop and restart) (?:the |my |all )?(?:timer|alarm)s?"
    r"|add .+ to (?:the |my )?(?:timer|alarm)s?|(?:extend|lengthen|shorten) (?:the |my )?timers?.*)"
    r"(?: please)?"
)
# "snooze", "snooze for five minutes", after an alarm rang
_SNOOZE = re.compile(rf"{LEAD_IN}snooze(?: (?:it|the alarm|my alarm))?(?: for (?P<for>.+?))?(?: please)?")
SNOOZE_S = 9 * 60  # as a bedside clock snoozes
SNOOZE_WITHIN_S = 30 * 60  # "snooze" this long after an alarm rang snoozes it
# "every day", "on weekdays": an alarm or a reminder is set once, and says so
_EVERY = re.compile(
    r" (?:every (?:day|morning|evening|night|weekday)|each (?:day|morning)|daily|on weekdays)\b"
)
_LEFT = re.compile(
    # "how" may be lost: without a pre-roll, the recognizer heard "much time is left" from 4 of 12 voices
    rf"{LEAD_IN}(?:(?:how (?:much time|much longer|long)|much (?:time|longer)) (?:is |is there )?"
    r"(?:left|remaining|to go)"
    r"(?: on (?:the|my) timers?)?|how long until (?:the|my) timer(?: goes off| is done| ends)?"
    r"|(?:do i have|are there|is there) (?:any|a) timers?(?: running| on)?"
    r"|(?:what|which) timers (?:do i have|are running)"
    r"|(?:what's|what is) (?:left )?on (?:the|my) timers?|check (?:the|my) timers?)(?: please)?"
)
_ALARM = re.compile(
    rf"{LEAD_IN}(?:(?:set|make|create|give me) (?:an |the |my |a |me an )?alarm"
    r"(?: for| at|(?= tomorrow| in ))|alarm (?:for|at)|(?P<wake>wake me(?: up)?)) (?P<when>.+?)(?: please)?"
)
_WHEN = re.compile(
    rf"{LEAD_IN}(?:(?:when|what time) is (?:my|the) (?P<kind>alarm|reminder)s?(?: set for)?"
    r"|(?:what are|what's|what is|list|tell me|read me) (?:my|the) (?P<kinds>alarm|reminder)s"
    r"|(?:what|which) (?P<which>alarm|reminder)s (?:do i have|are set|are there|have i set)"
    r"|(?:do i have|have i set|are there|is there) (?:any|an|a) (?P<any>alarm|reminder)s?(?: set)?)"
    r"(?: please)?"
)
# "remind me to call my mom in ten minutes", "... at five p m", "... tomorrow at nine", "remind me
# at nine tomorrow to ...", "in an hour remind me to ...": the when is read as a duration or a time
# of day (`_when`) where it stands; a request without one is asked back.
_REMIND = re.compile(
    rf"{LEAD_IN}(?:(?P<first>.+?) )??(?:remind me|set a reminder)(?: (?P<rest>.+?))?(?: please)?"
)
_LINK = re.compile(r"(?P<before>.*?)(?:^|\b)(?P<link>to|that|about) (?P<task>.+)")
# "at nine tomorrow", "tomorrow evening at eight", "tomorrow at nine"
_DAY = r"tomorrow(?: (?:morning|afternoon|evening|night))?"
_AT = re.compile(rf"(?:(?P<day>{_DAY}) )?(?P<at>at |for )?(?P<time>.+?)(?: (?P<day_after>{_DAY}))?")
# the reminder's words for the user's: "remind me to call my mom" → "Reminder: call your mom."
_YOURS = {"my": "your", "me": "you", "i": "you", "i'm": "you're", "mine": "yours", "myself": "yourself",
          "i've": "you've", "i'll": "you'll", "am": "are"}  # fmt: skip
# "seven", "seven thirty", "seven oh five", "seven o'clock", each maybe with "a m"/"am"/"p m"/"pm" or
# "in the morning" ... (how the normalizer spells "7", "7:30", "7:05 pm", "7:00")
_HALF_DAY = {"a m": 0, "am": 0, "in the morning": 0, "p m": 12, "pm": 12, "in the afternoon": 12,
             "this afternoon": 12, "in the evening": 12, "this evening": 12, "at night": 12,
             "tonight": 12}  # fmt: skip
_NAMED_TIMES = {"noon": (12, 0, "p m"), "midday": (12, 0, "p m"), "midnight": (12, 0, "a m")}
_CLOCK_TIME = re.compile(
    rf"(?P<hour>{_NUMBER})(?: (?:oh (?P<oh>{_NUMBER})|(?P<minute>{_NUMBER})|o'clock))?"
    rf"(?: (?P<half>{'|'.join(_HALF_DAY)}))?"
)


class Request(NamedTuple):
    what: str  # "set" (a timer), "alarm", "remind", "cancel", "left" (on the timers), "when", "snooze",
    # "cannot" (pause a timer, add time to it)
    seconds: int | None = None  # set, alarm, remind: from now until due; None: no time said (asked back)
    kind: str = "timer"  # cancel, when: "timer", "alarm" or "reminder"
    at: datetime | None = None  # alarm, remind: when, if said as a time of day
    task: str = ""  # remind: what to remind of, as the reminder says it ("call your mom")
    link: str = "to"  # remind: "to", "that" or "about", as asked ("remind me that the oven is on")
    repeat: bool = False  # alarm, remind: asked for every day, which is not done (set once, said so)
    name: str = ""  # set, cancel: a timer's name ("pasta"), if said
    which: str = ""  # cancel: which one, as said ("for ten minutes", "for seven", "to call my mom"); "": all


def parse_duration(words: str) -> int | None:
    """Seconds in a spoken duration ("an hour and a half", "one minute thirty seconds",
    "twenty five minutes"), or None if `words` are not one."""
    if not _DURATION.fullmatch(words):
        return None
    total = 0
    for part in _PART.finditer(words):
        number, unit, half = part.groups()
        if number is None:  # "half an hour", "half a minute"
            total += 1800 if part[0] == "half an hour" else 30
        else:
            total += _NUMBERS[number] * _UNIT_S[unit] + (_UNIT_S[unit] // 2 if half else 0)
    return total or None


def parse_request(text: str, now: datetime | None = None) -> Request | None:
    """What `text` asks of the timers and alarms; None when it is not only about them."""
    said = normalize(text)
    now = now or datetime.now()
    if m := _CANCEL.fullmatch(said):
        return Request("cancel", kind=m["kind"], which=m["which"] or "", name=m["name"] or "")
    if _LEFT.fullmatch(said):
        return Request("left")
    if m := _WHEN.fullmatch(said):
        return Request("when", kind=m["kind"] or m["kinds"] or m["which"] or m["any"])
    if _CANNOT.fullmatch(said):
        return Request("cannot")
    if m := _SNOOZE.fullmatch(said):
        seconds = parse_duration(m["for"]) if m["for"] else SNOOZE_S
        return Request("snooze", seconds)
    once = _EVERY.sub("", said)  # "every day": set once, and said so
    if m := _REMIND.fullmatch(once):
        request = _reminder(m, now)
        return request and request._replace(repeat=once != said)
    if m := _ALARM.fullmatch(once):
        wake = bool(m["wake"])
        if wake and not m["when"].startswith(("at ", "in ", "tomorrow")):  # "wake me up when it's over"
            return None
        at, seconds = _when(m["when"], now, morning=wake, bare=True) or (None, None)  # "for the morning"
        if at is None and seconds is not None:  # "wake me up in an hour": at the time it will be then
            at = now + timedelta(seconds=seconds)
        return Request("alarm", seconds, at=at, repeat=once != said)
    if m := _SET.fullmatch(said):
        return _timer(m)
    return None


def _timer(m: re.Match) -> Request | None:
    """A request to set a timer (maybe named), or None: "I hate this pasta timer" is none, but "set a
    timer", "... for the pasta" and "set the pasta timer" are, asked back for how long."""
    if m["bare"] and not m["verb"]:  # "the timer is beeping"
        return None
    name, words = m["called"] or "", m["for"] or m["bare"] or ""
    if m["named"] is not None:  # "a ten minute timer", "the pasta timer for ...", "a ten minute egg timer"
        seconds, named = _duration_then_name(m["named"])
        if named is None:  # "I hate this big pot of pasta timer"
            return None
        if seconds is not None:  # "a ten minute timer (for the stew)": named by what follows, if short
            after = re.sub(r"^(?:the|my) ", "", m["named_for"] or "")
            return Request(
                "set", seconds, name=named or (after if len(after.split()) <= MAX_NAME_WORDS else "")
            )
        if m["named_for"] is None:  # "set the pasta timer": for how long? "this pasta timer": no request
            return Request("set", None, name=named) if m["verb"] else None
        name, words = named, m["named_for"]
    seconds = parse_duration(words) if words else None
    if seconds is None and (split := _FOR_NAME.fullmatch(words)):  # "for ten minutes for the pasta"
        if (seconds := parse_duration(split["duration"])) is not None:
            name = split["name"]
    asked = m["for"] or m["named_for"] or (m["verb"] and not m["bare"] and m["named"] is None)
    return Request("set", seconds, name=name) if seconds is not None or asked else None


def _duration_then_name(words: str) -> tuple[int | None, str | None]:
    """ "ten minute egg" → (600, "egg"), "ten minute" → (600, ""), "pasta" → (None, "pasta"); a name
    longer than MAX_NAME_WORDS is None."""
    split = words.split()
    for i in range(len(split), 0, -1):
        if (seconds := parse_duration(" ".join(split[:i]))) is not None:
            rest = split[i:]
            return seconds, " ".join(rest) if len(rest) <= MAX_NAME_WORDS else None
    return None, words if len(split) <= MAX_NAME_WORDS else None


def _reminder(m: re.Match, now: datetime) -> Request | None:
    """A reminder request: its task in the reminder's words ("my mom" → "your mom"), and its time,
    said before "remind me", after it ("remind me at nine to ...") or after the task. An "in ..." or
    "at ..." that is no time is part of the task ("put the cake in the oven")."""
    at, seconds, task, link = None, None, m["rest"] or "", "to"
    if m["first"]:  # "in an hour remind me to ...", "tomorrow at nine remind me to ..."
        if (said := _when(m["first"], now)) is None:
            return None
        at, seconds = said
    if linked := _LINK.fullmatch(task):
        before = linked["before"].strip()
        # "remind me at nine tomorrow to call mom", "set a reminder for nine to ...", or a link of
        # the task ("remind me to go to the store") when nothing, or no when, stands before it
        said = _when(before, now, bare=True) if before and seconds is None else None
        if said or not before:
            link, task = linked["link"], linked["task"]
            at, seconds = said or (at, seconds)
    if seconds is None:  # "remind me to call mom tomorrow at nine": the longest end that is a when
        words = task.split()
        for i in range(len(words)):
            if words[i] in ("in", "at", "tomorrow") and (said := _when(" ".join(words[i:]), now)):
                at, seconds = said
                task = " ".join(words[:i])
                break
    task = " ".join(_YOURS.get(word, word) for word in task.split())
    return Request("remind", seconds, at=at, task=task, link=link)


def _when(
    words: str, now: datetime, morning: bool = False, bare: bool = False
) -> tuple[datetime | None, int] | None:
    """(the moment, seconds from `now` to it) that `words` name, or None: "in ten minutes" (no
    moment: None, 600), "at nine", "at nine tomorrow", "tomorrow evening at eight", and without "at"
    when `bare` ("nine tomorrow", after "set an alarm for"). `morning`: a wake-up, so a.m. unless
    said otherwise."""
    if words.startswith("in "):
        seconds = parse_duration(words[3:])
        return None if seconds is None else (None, seconds)
    m = _AT.fullmatch(words)
    if m is None or (m["day"] and m["day_after"]) or not (bare or m["at"]):
        return None
    if day := m["day"] or m["day_after"]:  # what "tomorrow" came with says a.m. or p.m.
        part = day.removeprefix("tomorrow").strip() or ("morning" if morning else "")
        at = clock_time_tomorrow(m["time"], now, part)
    else:
        at = next_clock_time(m["time"], now, morning)
    return None if at is None else (at, math.ceil((at - now).total_seconds()))


def next_clock_time(words: str, now: datetime, morning: bool = False) -> datetime | None:
    """The next moment after `now` that the spoken time of day names ("seven", "six forty five p m",
    "seven o'clock in the morning"), or None. Without a.m. or p.m., the sooner of the two, or the
    morning's when `morning` ("wake me up at seven" at 5 PM)."""
    said = _clock_reading(words)
    if said is None:
        return None
    hour, minute, half = said
    if half:
        hours = [hour % 12 + _HALF_DAY[half]]
    else:
        hours = [hour] if hour > 12 else [hour % 12] if morning else [hour % 12, hour % 12 + 12]
    times = []
    for h in hours:
        at = now.replace(hour=h, minute=minute, second=0, microsecond=0)
        times.append(at if at > now else at + timedelta(days=1))
    return min(times)


def clock_time_tomorrow(words: str, now: datetime, part: str = "") -> datetime | None:
    """The moment on the day after `now`'s that "seven ... tomorrow [morning|afternoon|evening|night]"
    names, or None. Without a.m., p.m. or a part of the day, the daytime reading, 7:00 to 6:59 PM:
    asked at 10 AM, "nine tomorrow" is not the sooner 9 PM but 9 AM, and "one tomorrow" is 1 PM."""
    said = _clock_reading(words)
    if said is None:
        return None
    hour, minute, half = said
    if half:
        h = hour % 12 + _HALF_DAY[half]
    elif hour > 12 or hour == 0:  # "seventeen thirty tomorrow" says which
        h = hour
    elif part:
        h = hour % 12 + (0 if part == "morning" else 12)
    else:
        h = hour + 12 if hour < 7 else hour  # twelve: noon
    return (now + timedelta(days=1)).replace(hour=h, minute=minute, second=0, microsecond=0)


def _clock_reading(words: str) -> tuple[int, int, str | None] | None:
    """(hour, minute, "p m" or another of _HALF_DAY or None) of a spoken time of day, or None."""
    if words in _NAMED_TIMES:  # "noon", "midnight"
        return _NAMED_TIMES[words]
    m = _CLOCK_TIME.fullmatch(words)
    if m is None:
        return None
    hour, minute = _NUMBERS[m["hour"]], _NUMBERS.get(m["oh"] or m["minute"] or "", 0)
    if m["hour"] in ("a", "an"):  # "a minute" is one, "a eight" no time (a misheard "at eight")
        return None
    if hour > 23 or minute > 59 or (m["half"] and not 1 <= hour <= 12):
        return None
    return hour, minute, m["half"]


def spoken_duration(seconds: int) -> str:
    """3725 → "1 hour, 2 minutes and 5 seconds" (digits: the voice reads them, the terminal shows them)."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'s' * (n != 1)}"
        for n, unit in ((hours, "hour"), (minutes, "minute"), (secs, "second"))
        if n
    ]
    return _listed(parts)


def _listed(items: list[str]) -> str:
    """Items as a sentence lists them: a; a and b; a, b and c."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


CHECK_S = 10.0  # a timer looks at the clock at least this often: it is said this soon after a sleep
LATE_S = 60.0  # said this late or later, a timer says it was late, and why


def awake_or_asleep_s() -> float:
    """Seconds on a clock that runs on while the computer sleeps and does not jump when the wall
    clock is set. The event loop's clock (time.monotonic) stops in a suspend, so a timer set on it
    before the lid closed goes off as much later as the lid stayed closed."""
    if hasattr(time, "CLOCK_BOOTTIME"):  # Linux: CLOCK_MONOTONIC, and the time asleep
        return time.clock_gettime(time.CLOCK_BOOTTIME)
    return time.monotonic()  # elsewhere: a sleep delays the timers, but the clock never steps


ASLEEP = "this computer was asleep"  # why one was late: said after it
NOT_RUNNING = "the assistant was not running"


@dataclass
class Timer:
    seconds: int  # as set
    due: float  # when it goes off, on `Timers.clock`
    handle: asyncio.TimerHandle | None = None
    at: datetime | None = None  # an alarm's time of day (a timer has none)
    task: str | None = None  # a reminder's ("call your mom"); timers and alarms have none
    link: str = "to"  # a reminder's word before its task: "to", "that", "about"
    name: str | None = None  # a timer's, if given ("pasta": "Your pasta timer is done.")
    due_at: datetime | None = None  # when it goes off on the wall clock (UTC): kept across restarts
    missed: str = ASLEEP  # why it would be late: a suspend, or, kept from an earlier run, no assistant
    key: str = field(default_factory=lambda: uuid.uuid4().hex[:12])  # its row in the store

    @property
    def title(self) -> str:
        """ "pasta timer", or "timer for 10 minutes" without a name."""
        return f"{self.name} timer" if self.name else f"timer for {spoken_duration(self.seconds)}"

    def row(self) -> dict:
        """As kept in the memory file (`Memory.keep_timer`) until it goes off or is cancelled."""
        return {
            "key": self.key, "kind": self.kind, "seconds": self.seconds, "due_at": self.due_at.isoformat(),
            "at": self.at.isoformat() if self.at else None, "task": self.task, "link": self.link,
            "name": self.name,
        }  # fmt: skip

    @property
    def kind(self) -> str:
        return "reminder" if self.task is not None else "alarm" if self.at is not None else "timer"

    def left(self, now: float) -> int:
        return max(1, round(self.due - now))


@dataclass
class Timers:
    """The running timers, alarms and reminders. `announce(text)` is called on the event loop when
    one is due."""

    announce: Callable[[str], object]
    running: list[Timer] = field(default_factory=list)
    clock: Callable[[], float] = awake_or_asleep_s  # seconds; a test's own clock can sleep
    check_s: float = CHECK_S
    rang: float | None = None  # when an alarm last rang, on `clock`: "snooze" snoozes it
    # Where those not yet due are kept across restarts (the pipeline's memory file), or None:
    # keep(Timer.row()) when one is set, drop(key) when it has gone off or is cancelled.
    keep: Callable[[dict], object] | None = None
    drop: Callable[[str], object] | None = None

    @property
    def timers(self) -> list[Timer]:
        return self.of_kind("timer")

    @property
    def alarms(self) -> list[Timer]:
        return self.of_kind("alarm")

    def of_kind(self, kind: str) -> list[Timer]:
        return [t for t in self.running if t.kind == kind]

    def answer(self, text: str, now: datetime | None = None) -> str | None:
        """The reply to a request about timers or alarms (and the one set or cancelled), or None for
        any other text. Call it on the event loop: they are its call_later handles."""
        now = now or datetime.now()
        request = parse_request(text, now)
        if request is None:
            return None
        if request.what == "cancel":
            return self._cancel(request.kind, request.which, request.name)
        if request.what == "left":
            return self._left()
        if request.what == "when":
            return self._when(request.kind, now)
        if request.what == "cannot":
            return "I can't pause a timer or change its time yet: cancel it and set a new one."
        if request.what == "snooze":
            return self._snooze(request.seconds or SNOOZE_S, now)
        if request.seconds is None:  # "set a timer for the pasta": for how long? (not the LLM's guess)
            if request.what == "alarm":
                return "For what time? Say, for example: set an alarm for 7:30 AM."
            if request.what == "remind":
                return "When? Say, for example: remind me to call mom in ten minutes, or at 5 PM."
            return "For how long? Say, for example: set a timer for five minutes."
        task = request.task if request.what == "remind" else None
        done = self._set(request.seconds, request.at, now, task, request.link, request.name)
        kind = "reminders" if task is not None else "alarms"
        return done + (f" Once only: I can't repeat {kind} yet." if request.repeat else "")

    def _set(
        self,
        seconds: int,
        at: datetime | None,
        now: datetime,
        task: str | None = None,
        link: str = "to",
        name: str = "",
    ) -> str:
        due_at = datetime.now(UTC) + timedelta(seconds=seconds)
        timer = Timer(
            seconds, self.clock() + seconds, at=at, task=task, link=link, due_at=due_at, name=name or None
        )
        self._wait(timer)
        self.running.append(timer)
        if self.keep is not None:
            self.keep(timer.row())
        if task is not None:
            return f"Okay, I'll remind you{_of(timer)} {_reminder_time(timer, now)}."
        if at is not None:
            return f"Alarm set for {_alarm_time(at, now)}."
        more = f" You have {len(self.timers)} timers." if len(self.timers) > 1 else ""
        what = f"{name.capitalize()} timer" if name else "Timer"
        return f"{what} set for {spoken_duration(seconds)}.{more}"

    def _wait(self, timer: Timer) -> None:
        """Wait on the event loop in steps of check_s at most, each ending with a look at `clock`:
        a computer that slept through the due time says so within check_s of waking."""
        step = min(max(0.0, timer.due - self.clock()), self.check_s)
        timer.handle = asyncio.get_running_loop().call_later(step, self._check, timer)

    def _check(self, timer: Timer) -> None:
        late = self.clock() - timer.due
        if late < -0.001:
            self._wait(timer)
            return
        self._remove(timer)
        # asleep (or not running) at the due time: say how late, not that it is on time
        ago = spoken_duration(round(late / 60) * 60) if late >= LATE_S else ""
        if timer.task is not None:
            late_by = f", {ago} late" if ago else ""
            self.announce(
                f"Reminder{late_by}: {timer.task}." if timer.task else f"This is your reminder{late_by}."
            )
        elif ago:
            if timer.at is not None:
                self.announce(f"Your alarm for {time_of_day(timer.at)} is {ago} late: {timer.missed}.")
            else:
                self.announce(f"Your {timer.title} ended {ago} ago, while {timer.missed}.")
        elif timer.at is not None:
            self.rang = self.clock()
            self.announce(f"It's {time_of_day(timer.at)}. This is your alarm.")
        else:
            self.announce(f"Your {timer.title} is done.")

    def _snooze(self, seconds: int, now: datetime) -> str:
        """The alarm that rang within SNOOZE_WITHIN_S, again in `seconds`."""
        if self.rang is None or self.clock() - self.rang > SNOOZE_WITHIN_S:
            return "There is no alarm to snooze."
        self.rang = None
        at = now + timedelta(seconds=seconds)
        self._set(seconds, at, now)
        return f"Snoozed until {time_of_day(at)}."

    def _cancel(self, kind: str, which: str = "", name: str = "") -> str:
        named = name if kind == "timer" else ""  # "the pasta timer"; "the morning alarm" is any alarm
        chosen = [
            t
            for t in self.of_kind(kind)
            if (not which or _is_the_one(t, which)) and (not named or t.name == named)
        ]
        if not chosen:
            return f"There is no {f'{named} ' * bool(named)}{kind}{f' {which}' * bool(which)} to cancel."
        for timer in chosen:
            timer.handle.cancel()
            self._remove(timer)
        return f"{kind.capitalize()} cancelled." if len(chosen) == 1 else f"{len(chosen)} {kind}s cancelled."

    def _left(self) -> str:
        timers = self.timers
        if not timers:
            return "There is no timer running."
        now = self.clock()
        if len(timers) == 1:
            return f"{spoken_duration(timers[0].left(now))} left."
        each = _listed([f"the {t.title} has {spoken_duration(t.left(now))} left" for t in timers])
        return each[0].upper() + each[1:] + "."

    def _when(self, kind: str, now: datetime) -> str:
        if kind == "reminder":
            reminders = sorted(self.of_kind("reminder"), key=lambda t: t.due)
            if not reminders:
                return "There is no reminder set."
            each = _listed([f"{_of(t)} {_reminder_time(t, now, self.clock())}".strip() for t in reminders])
            return f"I'll remind you {each}."
        alarms = sorted(self.alarms, key=lambda t: t.due)
        if not alarms:
            return "There is no alarm set."
        times = _listed([_alarm_time(t.at, now) for t in alarms])
        return f"Your alarm is set for {times}." if len(alarms) == 1 else f"Your alarms are set for {times}."

    def _remove(self, timer: Timer) -> None:
        """Gone off or cancelled: no longer running, nor kept for the next start."""
        self.running.remove(timer)
        if self.drop is not None:
            self.drop(timer.key)

    def restore(self, rows: list[dict]) -> list[dict]:
        """Run again those kept from an earlier run (`Timer.row`): one that fell due meanwhile goes
        off at once, and says how late it is and why. Returns the rows that could not be read (a
        file edited by hand), which are dropped."""
        now, unreadable = datetime.now(UTC), []
        for row in rows:
            try:
                due_at = datetime.fromisoformat(row["due_at"])
                timer = Timer(
                    int(row["seconds"]), self.clock() + (due_at - now).total_seconds(), task=row["task"],
                    at=datetime.fromisoformat(row["at"]) if row["at"] else None, link=row["link"],
                    due_at=due_at, missed=NOT_RUNNING, key=row["key"], name=row.get("name"),
                )  # fmt: skip
            except (KeyError, TypeError, ValueError):
                unreadable.append(row)
                if self.drop is not None and "key" in row:
                    self.drop(row["key"])
                continue
            self._wait(timer)
            self.running.append(timer)
        return unreadable

    def close(self) -> int:
        """Stop every timer and alarm (the assistant is stopping; those `keep` kept stay kept); how
        many were running."""
        count = len(self.running)
        for timer in self.running:
            timer.handle.cancel()
        self.running = []
        return count


def _is_the_one(timer: Timer, which: str) -> bool:
    """Whether `timer` is the one `which` names: a timer by its length ("for ten minutes"), an alarm by
    its time of day ("for seven", "at six thirty a m"), a reminder by its task ("to call my mom")."""
    which = which.split(" ", 1)[1]  # "for", "at", "to" ... off
    if timer.kind == "timer":
        return parse_duration(which) == timer.seconds
    if timer.kind == "alarm":
        said = _clock_reading(which)
        if said is None:
            return False
        hour, minute, half = said
        hours = (
            [hour % 12 + _HALF_DAY[half]] if half else [hour] if hour > 12 else [hour % 12, hour % 12 + 12]
        )
        return timer.at.hour in hours and timer.at.minute == minute
    task = " ".join(_YOURS.get(word, word) for word in which.split())
    return task == timer.task or f" {task} " in f" {timer.task} "


def _of(timer: Timer) -> str:
    """ " to call your mom", " that the oven is on": what a reminder is of, as asked ("" for none)."""
    return f" {timer.link} {timer.task}" if timer.task else ""


def _reminder_time(timer: Timer, now: datetime, clock_now: float | None = None) -> str:
    """ "at 5:00 PM" for one set at a time of day, else "in 10 minutes" (from `clock_now`, on the
    timers' clock; as set when None)."""
    if timer.at is not None:
        return f"at {_alarm_time(timer.at, now)}"
    left = timer.seconds if clock_now is None else timer.left(clock_now)
    return f"in {spoken_duration(left)}"


def _alarm_time(at: datetime, now: datetime) -> str:
    """The alarm's time of day, and "tomorrow" after it when that is another day than `now`'s."""
    return time_of_day(at) + (" tomorrow" if at.date() != now.date() else "")
