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
    timers.answer("pause the timer")                        # "Timer paused with 24 minutes left."
    timers.answer("add five minutes to the timer")          # "5 minutes added: 29 minutes left."
    timers.answer("wake me up at seven on weekdays")        # "Alarm set for 7:00 AM on weekdays, starting ...
    timers.answer("remind me every other day at nine to feed the fish")  # "... every 2 days, the next at ..."
    timers.answer("cancel my alarm for friday")             # a later day of a repeating one: skipped
    timers.answer("remind me on the first of every month at nine to pay the rent")  # "... 1st of every month"

What a request asks is read by `timer_requests.parse_request`; here it is done. Those not yet due
outlive a restart when `Timers.keep`/`drop` store them (the pipeline's memory file:
`Memory.keep_timer`), and `restore` runs them again. They count the time the computer sleeps
(`awake_or_asleep_s`): one due while it slept (or while no assistant ran) is said within CHECK_S of
waking (or at the start), and says how late it is.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from assistant.clock import date_of, time_of_day
from assistant.phrases import listed, yours
from assistant.timer_requests import (
    DAY_S,
    EVERY_DAY,
    SNOOZE_S,
    WEEKDAYS,
    Request,
    by_the_month,
    fill,
    names_time_of,
    next_in_months,
    next_on,
    next_step,
    on_days,
    parse_duration,
    parse_request,
    seconds_until,
    spoken_duration,
    when_said,
)

SNOOZE_WITHIN_S = 30 * 60  # "snooze" this long after an alarm rang snoozes it
ASK_S = 30.0  # "For how long?" is answered by a time alone this long after it was asked

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
    days: str = ""  # an alarm's or a reminder's weekdays ("01234"), set again for the next when it goes off
    paused_left: int | None = None  # a paused timer's seconds left (it waits on nothing)
    every_s: int = 0  # a reminder's or an alarm's step ("every hour": 3600), set again when it goes off
    months: int = 0  # a reminder's or an alarm's months from one to the next ("every year": 12)
    month_day: int = 0  # with months: the day of the month it was set for (31: a shorter month's last)
    skips: frozenset[date] = frozenset()  # a repeating one's days skipped, later than its next ("friday")
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
            "name": self.name, "days": self.days, "paused_left": self.paused_left, "every_s": self.every_s,
            "skips": ",".join(sorted(day.isoformat() for day in self.skips)), "months": self.months,
            "month_day": self.month_day,
        }  # fmt: skip

    @property
    def steps_by_day(self) -> bool:
        """Set again a whole number of days on at its time of day ("every two days at nine"), on the
        wall clock, rather than a step of seconds from when it went off ("every hour")."""
        return bool(self.every_s) and self.every_s % DAY_S == 0 and self.at is not None

    def next_after(self, after: datetime) -> datetime | None:
        """When one that repeats on the wall clock ("every day", "on the first of every month", "every
        two days") goes off next, later than `after` and than its own time; None for any other."""
        if self.at is None:
            return None
        after = max(after, self.at)
        if self.days:
            return next_on(self.at, self.days, after, self.skips)
        if self.months:
            return next_in_months(self.at, self.months, self.month_day, after, self.skips)
        if self.steps_by_day:
            return next_step(self.at, self.every_s, after)
        return None

    @property
    def kind(self) -> str:
        return "reminder" if self.task is not None else "alarm" if self.at is not None else "timer"

    def left(self, now: float) -> int:
        return self.paused_left if self.paused_left is not None else max(1, round(self.due - now))


@dataclass
class Timers:
    """The running timers, alarms and reminders. `announce(text)` is called on the event loop when
    one is due."""

    announce: Callable[[str], object]
    running: list[Timer] = field(default_factory=list)
    clock: Callable[[], float] = awake_or_asleep_s  # seconds; a test's own clock can sleep
    check_s: float = CHECK_S
    rang: float | None = None  # when an alarm last rang, on `clock`: "snooze" snoozes it
    asked: tuple[Request, float] | None = None  # one asked back for its time, and when (on `clock`)
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
        if request is None and self.asking:  # "For how long?" "Ten minutes."
            request = fill(self.asked[0], text, now)
        self.asked = None  # answered, or something else was asked: the question is dropped
        if request is None:
            return None
        if request.what == "cancel":
            if request.when and request.kind != "timer":
                return self._skip(request.kind, request.which, request.name, request.when, now)
            return self._cancel(request.kind, request.which, request.name)
        if request.what == "left":
            return self._left(request.name, request.which)
        if request.what == "when":
            return self._when(request.kind, now, request.when)
        if request.what in ("pause", "resume", "restart"):
            return self._pause(request.what, request.name, request.which)
        if request.what == "change":
            return self._change(request.seconds, request.name, request.which)
        if request.what == "move":
            return self._move(request.when, request.which, now)
        if request.what == "cannot":
            return (
                "I can't pause an alarm or a reminder, or add time to it: cancel it and set a new one, or"
                " move an alarm: say, for example, move my alarm to 7:30 AM."
            )
        if request.what == "cannot repeat":
            return (
                "I can repeat an alarm or a reminder every day, on days of the week, every few days, weeks"
                " or months, every year, or every so many hours or minutes, but not every few years. Say,"
                " for example: remind me every year on march third to renew the passport."
            )
        if request.what == "snooze":
            return self._snooze(request.seconds or SNOOZE_S, now)
        if request.seconds is None:  # "set a timer for the pasta": for how long? (not the LLM's guess)
            self.asked = (request, self.clock())  # the answer alone is enough: "ten minutes"
            if request.months:  # "remind me on the first of every month to pay the rent"
                each = by_the_month(request.months, request.month_day, month=request.month)
                return f"At what time {each}? Say, for example: at 9 AM."
            said = request.when.removeprefix("on ").split()  # "For what time tomorrow?", "... Friday?"
            day = "".join(f" {w.capitalize() if w in WEEKDAYS else w}" for w in said)
            if request.what == "alarm":
                return f"For what time{day}? Say, for example: 7:30 AM."
            if request.what == "remind":
                if day:
                    return f"At what time{day}? Say, for example: at 5 PM."
                return "When? Say, for example: in ten minutes, or at 5 PM."
            return "For how long? Say, for example: five minutes."
        task = request.task if request.what == "remind" else None
        return self._set(
            request.seconds, request.at, now, task, request.link, request.name, request.days, request.every,
            (request.months, request.month_day),
        )  # fmt: skip

    @property
    def asking(self) -> bool:
        """A timer, an alarm or a reminder was asked back for its time within ASK_S: the next request
        may be the answer alone ("ten minutes")."""
        return self.asked is not None and self.clock() - self.asked[1] < ASK_S

    def _set(
        self,
        seconds: int,
        at: datetime | None,
        now: datetime,
        task: str | None = None,
        link: str = "to",
        name: str = "",
        days: str = "",
        every: int = 0,
        by_month: tuple[int, int] = (0, 0),
    ) -> str:
        """Set one; `by_month`: (months from one to the next, the day of the month), or (0, 0)."""
        due_at = datetime.now(UTC) + timedelta(seconds=seconds)
        months, month_day = by_month
        timer = Timer(
            seconds, self.clock() + seconds, at=at, task=task, link=link, due_at=due_at, name=name or None,
            days=days, every_s=every, months=months, month_day=month_day,
        )  # fmt: skip
        self._wait(timer)
        self.running.append(timer)
        self._kept(timer)
        if days or months:  # "Alarm set for 7:00 AM on weekdays, starting Monday."
            first = "today" if at.date() == now.date() else _day_name(at, now).removeprefix("on ")
            repeats = on_days(days) if days else by_the_month(months, month_day, at)
            when = f"{time_of_day(at)} {repeats}, starting {first}"
            return (
                f"Okay, I'll remind you{_of(timer)} at {when}."
                if task is not None
                else f"Alarm set for {when}."
            )
        if task is not None:
            return f"Okay, I'll remind you{_of(timer)} {_reminder_time(timer, now)}."
        if every:
            return f"Alarm set for {_alarm_time(at, now)}, and {_every(every)} after that."
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
        ringing, missed = timer.at, timer.missed  # this one's, before a repeating one is set again
        if (again := timer.next_after(datetime.now())) is not None:  # "every day": set for its next
            self._move_to(timer, again)  # day before it is said (the same time of day)
        elif timer.every_s:  # "every hour": the next step after now (those missed asleep are not said)
            ahead = timer.every_s - late % timer.every_s
            if timer.at is not None:
                timer.at = datetime.now() + timedelta(seconds=ahead)
            self._run_for(timer, ahead)
        else:
            self._remove(timer)
        timer.missed = ASLEEP  # one kept from an earlier run and set again: the next is not
        # asleep (or not running) at the due time: say how late, not that it is on time
        ago = spoken_duration(round(late / 60) * 60) if late >= LATE_S else ""
        if timer.task is not None:
            late_by = f", {ago} late" if ago else ""
            self.announce(
                f"Reminder{late_by}: {timer.task}." if timer.task else f"This is your reminder{late_by}."
            )
        elif ago:
            if timer.at is not None:
                self.announce(f"Your alarm for {time_of_day(ringing)} is {ago} late: {missed}.")
            else:
                self.announce(f"Your {timer.title} ended {ago} ago, while {missed}.")
        elif timer.at is not None:
            self.rang = self.clock()
            self.announce(f"It's {time_of_day(ringing)}. This is your alarm.")
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

    def _chosen(self, kind: str, which: str = "", name: str = "") -> list[Timer]:
        """Those of `kind` that `which` ("for ten minutes") and `name` say: a timer's ("the pasta
        timer"), an alarm's days ("my weekday alarm", "the monday alarm"); "the morning alarm" is any."""
        return [t for t in self.of_kind(kind) if (not which or _is_the_one(t, which)) and _named(t, name)]

    def _cancel(self, kind: str, which: str = "", name: str = "") -> str:
        chosen = self._chosen(kind, which, name)
        if not chosen:
            return f"There is no {_said(kind, name, which)} to cancel."
        for timer in chosen:
            if timer.handle is not None:
                timer.handle.cancel()
            self._remove(timer)
        return f"{kind.capitalize()} cancelled." if len(chosen) == 1 else f"{len(chosen)} {kind}s cancelled."

    def _skip(self, kind: str, which: str, name: str, day: str, now: datetime) -> str:
        """Cancel the alarm or reminder due on `day` ("tomorrow", "friday"; "next": the soonest), or,
        for one that repeats, skip that day: it is set for its next day after."""
        named = sorted(self._chosen(kind, which, name), key=lambda t: t.due)
        chosen = named[:1] if day == "next" else [t for t in named if _is_on(t, day, now)]
        if not chosen:
            if later := [t for t in named if day != "next" and _repeats_on(t, day, now)]:
                # "skip friday's alarm" on a Monday: that Friday is skipped when it comes
                on = _date_of(day, now)
                for timer in later:
                    timer.skips |= {on}
                    self._kept(timer)
                each = listed([time_of_day(t.at) for t in later])
                return f"Skipped your {kind} for {each} on {date_of(on)}: the other days as ever."
            return f"There is no {_said(kind, name, which)} {'set' if day == 'next' else f'for {day}'}."
        said = []
        for timer in chosen:
            timer.handle.cancel()
            if (again := timer.next_after(timer.at)) is not None:
                skipped = timer.at
                self._move_to(timer, again)
                said.append(
                    f"Skipped your {kind} for {_time_and_day(skipped, now)}: the next is"
                    f" {_day_name(timer.at, now, today=True)}."
                )
            else:
                self._remove(timer)
                said.append(f"Cancelled your {kind} for {_alarm_time(timer.at, now)}.")
        return " ".join(said)

    def _left(self, name: str = "", which: str = "") -> str:
        timers = self._chosen("timer", which, name)
        if not timers:
            return f"There is no {_said('timer', name, which)} running."
        now = self.clock()
        if len(timers) == 1:
            left = spoken_duration(timers[0].left(now))
            return f"Paused with {left} left." if timers[0].paused_left is not None else f"{left} left."
        each = listed(
            [
                f"the {t.title} {'is paused with' if t.paused_left is not None else 'has'} "
                f"{spoken_duration(t.left(now))} left"
                for t in timers
            ]
        )
        return each[0].upper() + each[1:] + "."

    def _pause(self, what: str, name: str = "", which: str = "") -> str:
        """Pause, resume or restart (from its full length) the timers named, or all of them."""
        chosen = self._chosen("timer", which, name)
        said = _said("timer", name, which)
        if not chosen:
            return f"There is no {said} to {what}."
        if what == "pause":
            asked, chosen = len(chosen), [t for t in chosen if t.paused_left is None]
            if not chosen:
                return f"The {said} is already paused." if asked == 1 else "They are already paused."
            now = self.clock()
            for timer in chosen:
                timer.paused_left = timer.left(now)
                timer.handle.cancel()
                timer.handle = None
                self._kept(timer)
            if len(chosen) > 1:
                return f"{len(chosen)} timers paused."
            return f"{said.capitalize()} paused with {spoken_duration(chosen[0].paused_left)} left."
        if what == "resume":
            asked, chosen = len(chosen), [t for t in chosen if t.paused_left is not None]
            if not chosen:
                return f"The {said} is not paused." if asked == 1 else "None of them is paused."
        for timer in chosen:
            self._run_for(timer, timer.seconds if what == "restart" else timer.paused_left)
        done = "resumed" if what == "resume" else "restarted"
        if len(chosen) > 1:
            return f"{len(chosen)} timers {done}."
        return f"{said.capitalize()} {done}: {spoken_duration(chosen[0].left(self.clock()))} left."

    def _change(self, seconds: int, name: str = "", which: str = "") -> str:
        """Add `seconds` to the timer named (or the only one), or take them off (below 0)."""
        chosen = self._chosen("timer", which, name)
        if not chosen:
            return f"There is no {_said('timer', name, which)} running."
        if len(chosen) > 1:
            each = listed([f"the {t.title}" for t in chosen])
            return f"Which one? You have {each}: say, for example, add a minute to the {chosen[0].title}."
        timer = chosen[0]
        left = timer.left(self.clock()) + seconds
        if left <= 0:
            return f"Your {timer.title} has only {spoken_duration(left - seconds)} left."
        if timer.paused_left is not None:
            timer.paused_left = left
            self._kept(timer)
        else:
            timer.handle.cancel()
            self._run_for(timer, left)
        done = "added" if seconds > 0 else "taken off"
        return f"{spoken_duration(abs(seconds))} {done}: {spoken_duration(left)} left."

    def _move(self, when: str, which: str, now: datetime) -> str:
        """The alarm `which` says (or the only one) to the time of day `when` says, keeping its days.
        Without a.m. or p.m., in the half of the day it was in: 7 AM "moved to seven thirty" is 7:30 AM."""
        chosen = self._chosen("alarm", which)
        if not chosen:
            return f"There is no {_said('alarm', '', which)} to move."
        if len(chosen) > 1:
            each = listed([_alarm_when(t, now) for t in sorted(chosen, key=lambda t: t.due)])
            return (
                f"Which one? You have alarms for {each}: say, for example, move my alarm for seven to eight."
            )
        timer = chosen[0]
        half_day = "morning" if timer.at.hour < 12 else "evening"  # "move it to seven": in its half day
        at, _ = when_said(when, now, half_day, bare=True) or (None, None)
        if at is None:
            return "To what time? Say, for example: move my alarm to 7:30 AM."
        timer.handle.cancel()
        if timer.days:  # the same days, at the new time
            at = next_on(at - timedelta(days=1), timer.days, now, timer.skips)
        elif timer.months:  # the same day of the month
            at = next_in_months(
                timer.at.replace(hour=at.hour, minute=at.minute), timer.months, timer.month_day, now
            )
        self._move_to(timer, at)
        return f"Alarm moved to {_alarm_when(timer, now)}."

    def _move_to(self, timer: Timer, at: datetime) -> None:
        """An alarm or a reminder set again, for `at` (its next day, or a new time); the skipped days
        it has passed are forgotten."""
        timer.at = at
        timer.skips = frozenset(day for day in timer.skips if day > at.date())
        self._run_for(timer, seconds_until(at, datetime.now()))

    def _run_for(self, timer: Timer, seconds: float) -> None:
        """`timer` due in `seconds` from now (not paused), and kept so; the wait it had is dropped."""
        if timer.handle is not None:
            timer.handle.cancel()
        timer.paused_left = None
        timer.due = self.clock() + seconds
        timer.due_at = datetime.now(UTC) + timedelta(seconds=seconds)
        self._wait(timer)
        self._kept(timer)

    def _kept(self, timer: Timer) -> None:
        if self.keep is not None:
            self.keep(timer.row())

    def _when(self, kind: str, now: datetime, which: str = "") -> str:
        """When those of `kind` go off; `which`: "next" (the soonest), "until" (how long to the soonest)."""
        soonest_first = sorted(self.of_kind(kind), key=lambda t: t.due)
        if which and soonest_first:
            t = soonest_first[0]
            if which == "until":  # "Your alarm goes off in 8 hours and 3 minutes, at 7:00 AM tomorrow."
                at = f", at {_time_and_day(t.at, now)}" if t.at else ""
                return f"Your {kind}{_of(t)} goes off in {spoken_duration(t.left(self.clock()))}{at}."
            what = f"at {_time_and_day(t.at, now)}" if t.at else _reminder_time(t, now, self.clock())
            return f"Your next {kind} is{_of(t)} {what}."
        if kind == "reminder":
            if not soonest_first:
                return "There is no reminder set."
            each = listed([f"{_of(t)} {_reminder_time(t, now, self.clock())}".strip() for t in soonest_first])
            return f"I'll remind you {each}."
        alarms = soonest_first
        if not alarms:
            return "There is no alarm set."
        times = listed([_alarm_when(t, now) for t in alarms])
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
                    days=row.get("days") or "", paused_left=row.get("paused_left"),
                    every_s=int(row.get("every_s") or 0),
                    skips=frozenset(date.fromisoformat(d) for d in (row.get("skips") or "").split(",") if d),
                    months=int(row.get("months") or 0), month_day=int(row.get("month_day") or 0),
                )  # fmt: skip
                if timer.paused_left is not None:
                    timer.paused_left = int(timer.paused_left)
                if timer.days and (timer.at is None or not set(timer.days) <= set(EVERY_DAY)):
                    raise ValueError(f"days {timer.days!r} without a time of day, or not weekdays")
                if timer.every_s < 0 or (timer.every_s and timer.days):
                    raise ValueError(f"a step of {timer.every_s} s")
                if timer.months and not (timer.at and timer.months <= 12 and 1 <= timer.month_day <= 31):
                    raise ValueError(f"every {timer.months} months on day {timer.month_day}")
            except (KeyError, TypeError, ValueError):
                unreadable.append(row)
                if self.drop is not None and "key" in row:
                    self.drop(row["key"])
                continue
            if timer.paused_left is None:
                self._wait(timer)
            self.running.append(timer)
        return unreadable

    def close(self) -> int:
        """Stop every timer and alarm (the assistant is stopping; those `keep` kept stay kept); how
        many were running."""
        count = len(self.running)
        for timer in self.running:
            if timer.handle is not None:  # None: paused
                timer.handle.cancel()
        self.running = []
        return count


_DAYS_NAMED = {"weekday": "01234", "weekdays": "01234", "weekend": "56", "weekends": "56",
               "daily": EVERY_DAY, "everyday": EVERY_DAY}  # fmt: skip


def _named(timer: Timer, name: str) -> bool:
    """Whether `timer` is one `name` may name: a timer by its name, an alarm or a reminder by its days
    ("weekday", "monday": one that goes off on Mondays, or next Monday); any other word names any."""
    if timer.kind == "timer":
        return not name or timer.name == name
    if name in _DAYS_NAMED:
        return timer.days == _DAYS_NAMED[name]
    if name.removesuffix("s") in WEEKDAYS:
        day = str(WEEKDAYS.index(name.removesuffix("s")))
        return day in timer.days or (not timer.days and str(timer.at.weekday()) == day)
    return True


def _is_on(timer: Timer, day: str, now: datetime) -> bool:
    """Whether an alarm or a reminder goes off next on `day` ("today", "tomorrow", "friday")."""
    if day in ("today", "tomorrow"):
        return timer.at.date() == _date_of(day, now)
    return WEEKDAYS[timer.at.weekday()] == day


def _date_of(day: str, now: datetime) -> date:
    """The date `day` names from `now`: "today", "tomorrow", or the coming "friday" (a week on, said
    on a Friday)."""
    if day in ("today", "tomorrow"):
        return now.date() + timedelta(days=day == "tomorrow")
    return now.date() + timedelta(days=(WEEKDAYS.index(day) - now.weekday()) % 7 or 7)


def _repeats_on(timer: Timer, day: str, now: datetime) -> bool:
    """Whether one that repeats goes off on `day`'s weekday, next or later."""
    return str(_date_of(day, now).weekday()) in timer.days


def _is_the_one(timer: Timer, which: str) -> bool:
    """Whether `timer` is the one `which` names: a timer by its length ("for ten minutes"), an alarm by
    its time of day ("for seven", "at six thirty a m"), a reminder by its task ("to call my mom")."""
    which = which.split(" ", 1)[1]  # "for", "at", "to" ... off
    if timer.kind == "timer":
        return parse_duration(which) == timer.seconds
    if timer.kind == "alarm":
        return names_time_of(which, timer.at)
    task = yours(which)
    return task == timer.task or f" {task} " in f" {timer.task} "


def _of(timer: Timer) -> str:
    """ " to call your mom", " that the oven is on": what a reminder is of, as asked ("" for none)."""
    return f" {timer.link} {timer.task}" if timer.task else ""


def _reminder_time(timer: Timer, now: datetime, clock_now: float | None = None) -> str:
    """ "at 5:00 PM" for one set at a time of day (and its days), else "in 10 minutes" (from
    `clock_now`, on the timers' clock; as set when None)."""
    left = timer.seconds if clock_now is None else timer.left(clock_now)
    if timer.steps_by_day:  # "every 2 days, the next at 9:00 AM tomorrow"
        return f"{_every(timer.every_s)}, the next at {_time_and_day(timer.at, now)}"
    if timer.every_s:  # "every hour, the next in 59 minutes"
        return f"{_every(timer.every_s)}, the next in {spoken_duration(left)}"
    if timer.months:  # "at 9:00 AM on the 1st of every month, the next on January 1"
        each = by_the_month(timer.months, timer.month_day, timer.at)
        return f"at {time_of_day(timer.at)} {each}, the next {_day_name(timer.at, now, today=True)}"
    if timer.at is not None:
        return f"at {_alarm_when(timer, now)}"
    return f"in {spoken_duration(left)}"


def _every(seconds: int) -> str:
    """ "every hour", "every 30 minutes", "every 1 hour and 30 minutes", "every 2 days", "every week"."""
    if seconds % (7 * DAY_S) == 0:
        weeks = seconds // (7 * DAY_S)
        return "every week" if weeks == 1 else f"every {weeks} weeks"
    each = spoken_duration(seconds)
    return f"every {each[2:]}" if each.startswith("1 ") and " and " not in each else f"every {each}"


def _alarm_when(timer: Timer, now: datetime) -> str:
    """When an alarm (or a reminder at a time of day) goes off: its time and its days ("7:00 AM on
    weekdays", "7:00 AM on the 1st of every month"), or its next day ("7:00 AM tomorrow")."""
    if timer.months:
        return f"{time_of_day(timer.at)} {by_the_month(timer.months, timer.month_day, timer.at)}"
    return _alarm_time(timer.at, now, timer.days)


def _alarm_time(at: datetime, now: datetime, days: str = "") -> str:
    """The alarm's time of day, and its day when that is not `now`'s ("tomorrow", "on Friday"), or
    the days it goes off on ("on weekdays")."""
    if days:
        return f"{time_of_day(at)} {on_days(days)}"
    return time_of_day(at) + ("" if at.date() == now.date() else f" {_day_name(at, now)}")


def _time_and_day(at: datetime, now: datetime) -> str:
    """ "7:00 AM today", "7:00 AM tomorrow", "7:00 AM on Wednesday"."""
    return f"{time_of_day(at)} {_day_name(at, now, today=True)}"


def _day_name(at: datetime, now: datetime, today: bool = False) -> str:
    """ "tomorrow", "on Friday" (within the week), "on December 24", "on March 3, 2028" (most of a
    year on); "today" when `today`."""
    ahead = (at.date() - now.date()).days
    if ahead == 0 and today:
        return "today"
    if ahead == 1:
        return "tomorrow"
    if ahead > 300:  # "every year on March 3", set on March 3 after its time: the next is a year on
        return f"on {at:%B} {at.day}, {at.year}"
    return f"on {at:%A}" if 1 < ahead < 7 else f"on {at:%B} {at.day}"


def _said(kind: str, name: str, which: str) -> str:
    """ "pasta timer", "timer for ten minutes", "weekday alarm": the one asked about, as `_named` reads it."""
    shown = kind == "timer" or name in _DAYS_NAMED or name.removesuffix("s") in WEEKDAYS
    return f"{f'{name} ' * bool(name and shown)}{kind}{f' {which}' * bool(which)}"
