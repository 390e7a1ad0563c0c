"""What a request about timers, alarms and reminders asks, read from the recognizer's words ("set a
timer for five minutes", "wake me up at seven on weekdays", "remind me on the first of every month
at nine to pay the rent"), and the calendar arithmetic of the ones that repeat. `timers.py` runs
what is asked.

    parse_request("set a timer for twenty five minutes")  # Request("set", 1500)
    parse_request("cancel my alarm for friday")           # Request("cancel", kind="alarm", when="friday")
    parse_duration("an hour and a half")                  # 5400
    spoken_duration(3725)                                 # "1 hour, 2 minutes and 5 seconds"

Matched on `asr.text.normalize()`d text, as `clock.py` does: numbers arrive as words ("twenty
five"), so they are read back through the same num2words that spelled them. A time of day without
a.m. or p.m. is the sooner of the two ("set an alarm for seven" at 5 PM: 7 PM), but a wake-up is in
the morning ("wake me up at seven" at 5 PM: 7 AM), and tomorrow's is by day unless the part of the
day is said ("nine tomorrow": 9 AM, "one tomorrow": 1 PM, "ten tomorrow night": 10 PM).
"""

from __future__ import annotations

import calendar
import math
import re
from datetime import date, datetime, timedelta
from datetime import time as dt_time
from typing import NamedTuple

from assistant.asr.text import normalize
from assistant.clock import MONTH_WORDS, MONTHS
from assistant.phrases import LEAD_IN, listed, yours

MAX_NUMBER = 999
DAY_S = 86400
# "twenty five" → 25, as the normalizer spells them (num2words, hyphens as spaces); "a"/"an" are one.
_NUMBERS = {normalize(str(n)): n for n in range(1, MAX_NUMBER + 1)} | {"a": 1, "an": 1}
_UNIT_S = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "day": DAY_S, "week": 7 * DAY_S}
_NUMBER = "|".join(sorted(map(re.escape, _NUMBERS), key=len, reverse=True))  # longest first
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")  # date.weekday()
_DAYNAME = "|".join(WEEKDAYS)
_PART = re.compile(
    rf"(?:({_NUMBER}) (second|sec|minute|min|hour|day|week)s?( and a half)?|half an hour|half a minute)"
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
# "cancel tomorrow's alarm", "skip my alarm on friday", "skip my next alarm": that day's (one that
# repeats is skipped that day)
_CANCEL = re.compile(
    rf"{LEAD_IN}(?:cancel|stop|delete|remove|clear|turn off|end|skip)(?: the| my| all| all the| all my)?"
    rf"(?: (?P<day>today's|tomorrow's|next|(?:{_DAYNAME})'s))?"
    r"(?: (?P<name>[a-z']+))? (?P<kind>timer|alarm|reminder)s?(?: (?P<which>(?:for|at|to|about|that) .+?))?"
    rf"(?: (?:for |on )?(?P<on>today|tomorrow|{_DAYNAME}))?(?: please)?"
)
# a timer, by name ("the pasta timer"), by length ("the timer for ten minutes") or all of them
_TARGET = r"(?:the |my |all |all the |all my |both )?(?:(?P<name>[a-z']+) )?timers?(?: (?P<which>for .+?))?"
# "pause the timer", "resume the pasta timer", "start the timer again", "restart the timer" (from its
# full length)
_PAUSE = re.compile(
    rf"{LEAD_IN}(?:(?P<pause>pause|hold|freeze)|(?P<resume>resume|unpause|continue|start)|(?P<restart>restart))"
    rf" {_TARGET}(?P<again> again| back up)?(?: please)?"
)
# "add five minutes to the timer", "take two minutes off the pasta timer", "extend the timer by ..."
_CHANGE = [
    (re.compile(rf"{LEAD_IN}{asked}(?: please)?"), sign)
    for asked, sign in (
        (rf"(?:add|put) (?P<amount>.+?) (?:to|on|onto) {_TARGET}", 1),
        (rf"(?:extend|lengthen) {_TARGET} by (?P<amount>.+?)", 1),
        (rf"give {_TARGET} (?P<amount>.+?)", 1),
        (rf"(?:take|knock|shave) (?P<amount>.+?) off {_TARGET}", -1),
        (rf"(?:remove|subtract) (?P<amount>.+?) from {_TARGET}", -1),
        (rf"(?:shorten|reduce|cut) {_TARGET} by (?P<amount>.+?)", -1),
    )
]
# "move my alarm to seven thirty", "change the alarm for seven to eight": that one, to the new time
_MOVE = re.compile(
    rf"{LEAD_IN}(?:change|move|reschedule|reset|push back|bring forward) (?:the |my )?alarm"
    r"(?: (?P<which>for .+?))? (?:to|for|until) (?P<when>.+?)(?: please)?"
)
# asked of an alarm or a reminder what it cannot do: an honest answer, not the LLM's "Done!"
_CANNOT = re.compile(
    rf"{LEAD_IN}(?:(?:pause|hold|freeze|resume|unpause) (?:the |my |all )?(?:alarm|reminder)s?"
    r"|(?:add|put) .+ (?:to|on|onto) (?:the |my )?(?:alarm|reminder)s?"
    r"|(?:extend|lengthen|shorten|delay|push back) (?:the |my )?(?:alarm|reminder)s?.*)(?: please)?"
)
# a step `_EVERY` and `_MONTHLY` do not keep ("every other year"): an honest answer, not "When?"
# and a reminder whose task is "every other year to renew the passport"
_UNKNOWN_STEP = re.compile(
    rf"{LEAD_IN}(?:remind me|wake me(?: up)?|set (?:an|my|the|a) (?:alarm|reminder))\b.*\bevery"
    rf" (?:other year|(?:{_NUMBER}) years)(?: (?:to|at|on|that|about|in|from|starting)\b.*)?"
)
# "snooze", "snooze for five minutes", after an alarm rang
_SNOOZE = re.compile(rf"{LEAD_IN}snooze(?: (?:it|the alarm|my alarm))?(?: for (?P<for>.+?))?(?: please)?")
SNOOZE_S = 9 * 60  # as a bedside clock snoozes
# "every day", "on weekdays", "every monday and thursday": the days an alarm or a reminder at a time
# of day goes off on, each week ("on monday", one day, is a day for `when_said`)
_EVERY = re.compile(
    r" (?:(?:every|each) (?:day|(?P<part>morning|afternoon|evening|night))|everyday|daily"
    r"|(?P<weekdays>every weekday|every week day|on weekdays|on week days)"
    r"|(?P<weekends>every weekend|on weekends|at weekends)"
    rf"|(?:every|each) (?P<every>(?:{_DAYNAME})s?(?:(?: and |, | )(?:{_DAYNAME})s?)*)"
    rf"|on (?P<on>(?:{_DAYNAME})s(?:(?: and |, | )(?:{_DAYNAME})s)*)"
    # "every hour", "every thirty minutes", "every half hour", "every two days", "every other week":
    # from now on (or the time of day said), at that step
    rf"|every (?P<interval>(?:an )?hour and a half|half (?:an )?hour|(?:(?:{_NUMBER}) )?(?:minute|hour)s?"
    rf"|(?:{_NUMBER}) (?:day|week)s|other (?:day|week)|week|fortnight))\b"
)
EVERY_DAY = "0123456"  # `Request.days`, `Timer.days`: weekday numbers, Monday 0


def ordinal(n: int) -> str:
    """ "1st", "2nd", "3rd", "11th", "22nd": a day of the month, as piper reads it."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


_ORDINALS = {normalize(ordinal(n)): n for n in range(1, 32)}  # "first" ... "thirty first"
_ORDINAL = "|".join(sorted(_ORDINALS, key=len, reverse=True))  # longest first
# "on the first of every month", "every month on the fifteenth", "every other month", "every three
# months", "every year on march third", "on march third every year": a day of the month (or of the
# year) an alarm or a reminder goes off on, at its time of day; without a day said, today's. "In the
# first of every month": "on" as the recognizer heard it from 10 of 12 held-out voices.
_MONTHLY = re.compile(
    rf" (?:(?:on |in )?the (?P<day>{_ORDINAL}) (?:of )?(?:every|each)"
    rf" (?P<of>(?:other )?month|(?P<n_of>{_NUMBER}) months)"
    rf"|(?:every|each) (?P<every>(?:other )?month|(?P<n>{_NUMBER}) months)|(?P<monthly>monthly)"
    rf"|on (?P<month>{MONTH_WORDS}) (?P<month_day>{_ORDINAL}) (?:every|each) year"
    r"|(?:every|each) year|yearly|annually)"
    rf"(?: on the (?P<day_after>{_ORDINAL})"
    rf"| on (?P<month_after>{MONTH_WORDS}) (?P<month_day_after>{_ORDINAL}))?"
    r"(?=$| (?:at|to|that|about|in|from|starting)\b)"  # not "pay the monthly bill", "every month of ..."
)
_LEFT = re.compile(
    # "how" may be lost: without a pre-roll, the recognizer heard "much time is left" from 4 of 12 voices
    rf"{LEAD_IN}(?:(?:how (?:much time|much longer|long)|much (?:time|longer)) (?:is |is there )?"
    r"(?:left|remaining|to go)"
    r"(?: on (?:the |my )(?:(?P<name>[a-z']+) )?timers?(?: (?P<which>for .+?))?)?"
    r"|how long until (?:the |my )(?:(?P<until>[a-z']+) )?timer(?: goes off| is done| ends)?"
    r"|(?:do i have|are there|is there) (?:any|a) timers?(?: running| on)?"
    r"|(?:what|which) timers (?:do i have|are running)"
    r"|(?:what's|what is) (?:left )?on (?:the|my) timers?|check (?:the|my) timers?)(?: please)?"
)
_ALARM = re.compile(
    rf"{LEAD_IN}(?:(?:set|make|create|give me) (?:an |the |my |a |me an )?alarm"
    rf"(?: for| at|(?= tomorrow| in | on | (?:{_DAYNAME})\b|$| please$))|alarm (?:for|at)"
    r"|(?P<wake>wake me(?: up)?))(?: (?P<when>.+?))??(?: please)?"  # no when: "set an alarm" asks what time
)
# "how long until my alarm", "when does my alarm go off": how long, and when
_UNTIL = re.compile(
    rf"{LEAD_IN}(?:how (?:long|much time|many hours) (?:is it )?(?:until|till|before) (?:my|the) (?:next )?"
    r"(?P<kind>alarm|reminder)(?: goes off| rings| is)?|when (?:does|will) (?:my|the) (?:next )?"
    r"(?P<kind_does>alarm|reminder) (?:go off|ring))(?: please)?"
)
_WHEN = re.compile(
    rf"{LEAD_IN}(?:(?:when|what time) is (?:my|the) (?P<next>next )?(?P<kind>alarm|reminder)s?(?: set for)?"
    r"|(?:what's|what is) (?:my|the) (?P<next_one>next) (?P<kind_next>alarm|reminder)"
    r"|(?:what are|what's|what is|list|tell me|read me) (?:my|the) (?P<kinds>alarm|reminder)s"
    r"|(?:what|which) (?P<which>alarm|reminder)s (?:do i have|are set|are there|have i set)"
    r"|(?:do i have|have i set|are there|is there) (?:any|an|a) (?P<any>alarm|reminder)s?(?: set)?)"
    r"(?: please)?"
)
# "remind me to call my mom in ten minutes", "... at five p m", "... tomorrow at nine", "remind me
# at nine tomorrow to ...", "in an hour remind me to ...": the when is read as a duration or a time
# of day (`when_said`) where it stands; a request without one is asked back.
_REMIND = re.compile(
    rf"{LEAD_IN}(?:(?P<first>.+?) )??(?:remind me|set a reminder)(?: (?P<rest>.+?))?(?: please)?"
)
_LINK = re.compile(r"(?P<before>.*?)(?:^|\b)(?P<link>to|that|about) (?P<task>.+)")
# "at nine tomorrow", "tomorrow evening at eight", "tomorrow at nine", "on friday at nine"
_DAY = rf"(?:tomorrow|(?:on )?(?:{_DAYNAME}))(?: (?:morning|afternoon|evening|night))?"
_AT = re.compile(rf"(?:(?P<day>{_DAY}) )?(?P<at>at |for )?(?P<time>.+?)(?: (?P<day_after>{_DAY}))?")
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
    # "pause", "resume", "restart", "change" (a timer's time left), "move" (an alarm), "cannot repeat"
    # ("every other year"), "cannot" (pause an alarm, add time to it)
    seconds: int | None = None  # set, alarm, remind: from now until due; None: no time said (asked back);
    # change: how much to add (below 0: take off); snooze: for how long
    kind: str = "timer"  # cancel, when: "timer", "alarm" or "reminder"
    at: datetime | None = None  # alarm, remind: when, if said as a time of day
    task: str = ""  # remind: what to remind of, as the reminder says it ("call your mom")
    link: str = "to"  # remind: "to", "that" or "about", as asked ("remind me that the oven is on")
    days: str = ""  # alarm, remind: the weekdays it goes off on each week ("01234": on weekdays); "": once
    name: str = ""  # a timer's name ("pasta"), if said
    which: str = ""  # cancel, pause, change, move: which one, as said ("for ten minutes", "for seven", "to
    # call my mom"); "": all (cancel, pause), the only one (change, move)
    when: str = ""  # alarm, remind asked back: the day said without its time ("tomorrow", "on friday");
    # move: the new time of day as said ("seven thirty"), read in the moved alarm's half day;
    # cancel: the day of the one ("tomorrow", "friday", "next"): one that repeats skips that day; when:
    # "next" (the soonest only), "until" (how long to the soonest)
    every: int = 0  # alarm, remind: seconds between one and the next ("every hour": 3600); 0: not so
    months: int = 0  # alarm, remind: months between one and the next ("every year": 12); 0: not so
    month_day: int = 0  # with months: the day of the month (31: the last of a shorter month)
    month: int = 0  # with months, every year: its month (1-12, the one said, else this one)
    part: str = ""  # alarm, remind asked back: the part of the day a time without a.m. or p.m. is in
    # ("morning": a wake-up; "day": 7 AM to 6:59 PM, said with days), for the answer to "For what time?"


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
        day, which = (m["day"] or m["on"] or "").removesuffix("'s"), m["which"] or ""
        if which.split(" ", 1)[-1] in ("today", "tomorrow", *WEEKDAYS):  # "my alarm for friday": a day
            day, which = which.split(" ", 1)[-1], ""
        return Request("cancel", kind=m["kind"], which=which, name=m["name"] or "", when=day)
    if m := _LEFT.fullmatch(said):
        return Request("left", name=m["name"] or m["until"] or "", which=m["which"] or "")
    if m := _UNTIL.fullmatch(said):
        return Request("when", kind=m["kind"] or m["kind_does"], when="until")
    if m := _WHEN.fullmatch(said):
        kind = m["kind"] or m["kind_next"] or m["kinds"] or m["which"] or m["any"]
        return Request("when", kind=kind, when="next" if m["next"] or m["next_one"] else "")
    if (m := _PAUSE.fullmatch(said)) and not (m["resume"] == "start" and not m["again"]):
        what = "pause" if m["pause"] else "resume" if m["resume"] else "restart"
        return Request(what, name=m["name"] or "", which=m["which"] or "")
    for pattern, sign in _CHANGE:
        if m := pattern.fullmatch(said):
            # "another minute", "five more minutes", "an extra thirty seconds": the duration
            amount = re.sub(r"^(?:another|an extra|one more) (?=(?:second|minute|hour)\b)", "a ", m["amount"])
            seconds = parse_duration(re.sub(r"(?:^(?:another|an extra) | (?:more|extra)\b)", "", amount))
            return seconds and Request("change", sign * seconds, name=m["name"] or "", which=m["which"] or "")
    if m := _MOVE.fullmatch(said):
        return Request("move", kind="alarm", which=m["which"] or "", when=m["when"])
    if _CANNOT.fullmatch(said):
        return Request("cannot")
    if _UNKNOWN_STEP.fullmatch(said):
        return Request("cannot repeat")
    if m := _SNOOZE.fullmatch(said):
        seconds = parse_duration(m["for"]) if m["for"] else SNOOZE_S
        return Request("snooze", seconds)
    days, part, once, step = "", "", said, 0
    if monthly := _MONTHLY.search(said):  # read apart, as "every day" is; the rest says what and when
        part, once = "day", said[: monthly.start()] + said[monthly.end() :]
    elif every := _EVERY.search(said):  # "every day at seven": the first such moment, then each day
        # a time without a.m. or p.m. is of the part of the day said, else by day: "at nine" 9 AM
        days, part, once = _days(every), every["part"] or "day", said[: every.start()] + said[every.end() :]
        if every["interval"]:  # "remind me every hour to stretch": the first an hour from now
            words = every["interval"].replace("half hour", "half an hour").replace("fortnight", "two weeks")
            words = re.sub(
                r"^(minute|hour|week)s?$", r"one \1", re.sub(r"^other (day|week)$", r"two \1s", words)
            )
            step = parse_duration(re.sub(r"^hour and", "an hour and", words)) or 0
    if m := _REMIND.fullmatch(once):
        request = _reminder(m, now, part)
    elif m := _ALARM.fullmatch(once):
        wake = bool(m["wake"])
        when = m["when"] or ""
        if wake and when and not when.startswith(("at ", "in ", "tomorrow", "on ", *WEEKDAYS)):
            return None  # "wake me up when it's over"
        part = "morning" if wake and part in ("", "day") else part  # "wake me up at six every day"
        request = _alarm(when_said(when, now, part, bare=True) if when else None, now)
        if request.seconds is None:  # "wake me up tomorrow": at what time, tomorrow?
            request = request._replace(when=_day_only(when))
    elif m := _SET.fullmatch(said):
        return _timer(m)
    else:
        return None
    if request is None:
        return None
    if monthly:
        return _each_month(_by_month(request, monthly, now), now)
    if step:  # said with no time, the first is a step from now
        seconds = request.seconds or step
        by_day = request.what == "alarm" or step % DAY_S == 0  # a step of days keeps its time of day
        at = request.at or (now + timedelta(seconds=seconds) if by_day else None)
        return request._replace(seconds=seconds, at=at, every=step)
    return _each_week(request._replace(days=days, part=part if request.seconds is None else ""), now)


def _alarm(when: tuple[datetime | None, int] | None, now: datetime) -> Request:
    """An alarm for what `when_said` read (None: asked back for what time)."""
    at, seconds = when or (None, None)
    if at is None and seconds is not None:  # "wake me up in an hour": at the time it will be then
        at = now + timedelta(seconds=seconds)
    return Request("alarm", seconds, at=at)


def _by_month(request: Request, monthly: re.Match, now: datetime) -> Request:
    """`request` with what a `_MONTHLY` match says: the months from one to the next ("every other
    month": 2, "every year": 12) and the day ("on the first": 1; none said: today's)."""
    n = monthly["n"] or monthly["n_of"]
    by_month = monthly["every"] or monthly["of"] or monthly["monthly"]
    months = (2 if by_month.startswith("other") else _NUMBERS[n] if n else 1) if by_month else 12
    day = monthly["day"] or monthly["day_after"] or monthly["month_day"] or monthly["month_day_after"]
    month = monthly["month"] or monthly["month_after"]
    return request._replace(
        months=months,
        month_day=_ORDINALS[day] if day else now.day,
        month=(MONTHS.index(month.title()) + 1 if month else now.month) if months == 12 else 0,
    )


def _each_month(request: Request, now: datetime) -> Request:
    """An alarm or a reminder said with its months, for the first such day at its time: this month's
    (this year's) if still to come. Without a time of day, asked back."""
    if request.seconds is None:
        return request._replace(when="", part="day")
    at = request.at or now + timedelta(seconds=request.seconds)  # "every month in an hour": at that time
    start = datetime(now.year, request.month or now.month, 1, at.hour, at.minute)
    first = next_in_months(start, 12 if request.months == 12 else 1, request.month_day, now)
    return request._replace(at=first, seconds=seconds_until(first, now), part="")


def _each_week(request: Request, now: datetime) -> Request:
    """An alarm or a reminder said with its days ("every day"), for the first of them at its time."""
    if not request.days or request.seconds is None:
        return request
    at = request.at or now + timedelta(seconds=request.seconds)  # "every day in an hour": at that time
    at = next_on(at - timedelta(days=1), request.days, now)  # the first of its days, at that time
    return request._replace(at=at, seconds=seconds_until(at, now))


# the answer to "For how long?", "For what time?", "When?": "ten minutes", "for ten minutes", "at
# seven", "make it seven thirty", "in an hour"
_FILL = re.compile(rf"{LEAD_IN}(?:make it |set it for |for |it's |it is )?(?P<words>.+?)(?: please)?")


def fill(asked: Request, text: str, now: datetime | None = None) -> Request | None:
    """`asked` (a timer, an alarm or a reminder that was asked back for its time) with the time
    that `text`, the answer, says; None when it says none."""
    now = now or datetime.now()
    if (m := _FILL.fullmatch(normalize(text))) is None:  # nothing said ("?")
        return None
    words = m["words"]
    if asked.what == "set":
        seconds = parse_duration(words)
        return None if seconds is None else asked._replace(seconds=seconds)
    # the day asked with ("remind me tomorrow to ..."), then the answer's time; or the answer alone
    when = asked.when and when_said(f"{asked.when} {words}", now, asked.part, bare=True)
    when = when or when_said(words, now, asked.part, bare=True)
    if when is None:
        return None
    if asked.what == "alarm":
        filled = _alarm(when, now)._replace(
            days=asked.days, months=asked.months, month_day=asked.month_day, month=asked.month
        )
    else:
        filled = asked._replace(at=when[0], seconds=when[1], part="", when="")
    return _each_month(filled, now) if filled.months else _each_week(filled, now)


def _days(every: re.Match) -> str:
    """The weekdays (`EVERY_DAY`'s digits) that an `_EVERY` match names ("" for a step in hours)."""
    if every["interval"]:
        return ""
    if every["weekdays"]:
        return "01234"
    if every["weekends"]:
        return "56"
    if named := every["every"] or every["on"]:
        return "".join(str(i) for i, day in enumerate(WEEKDAYS) if re.search(rf"\b{day}", named))
    return EVERY_DAY


def seconds_until(at: datetime, now: datetime) -> int:
    """Seconds from `now` to `at`, both local wall-clock times: 7 AM on the morning summer time begins
    is an hour less away than the clocks' faces say (naive times would ring it at 8)."""
    return math.ceil((at.astimezone() - now.astimezone()).total_seconds())


def next_on(at: datetime, days: str, after: datetime, skips: frozenset[date] = frozenset()) -> datetime:
    """The first moment later than `after` at `at`'s time of day on one of `days` (weekday digits),
    not on a date of `skips`. Naive local times, a day on at a time: the same time of day across a
    change of summer time."""
    while at <= after or str(at.weekday()) not in days or at.date() in skips:
        at += timedelta(days=1)
    return at


def next_in_months(
    at: datetime, months: int, month_day: int, after: datetime, skips: frozenset[date] = frozenset()
) -> datetime:
    """The first moment later than `after`, not on a date of `skips`, on `month_day` of `at`'s month
    or of one a whole number of `months` on (a shorter month's last day for the 31st), at `at`'s time
    of day on the wall clock."""
    step = 0
    while True:
        year, month = divmod(at.year * 12 + at.month - 1 + step * months, 12)
        day = min(month_day, calendar.monthrange(year, month + 1)[1])
        moment = at.replace(year=year, month=month + 1, day=day)
        if moment > after and moment.date() not in skips:
            return moment
        step += 1


def by_the_month(months: int, month_day: int, at: datetime | None = None, month: int = 0) -> str:
    """ "on the 1st of every month", "on the 15th of every 3 months", "every year on March 3"."""
    if months == 12:
        named = month or (at.month if at is not None else 0)
        on = f"{MONTHS[named - 1]} {month_day}" if named else f"the {ordinal(month_day)}"
        return f"every year on {on}"
    every = {1: "every month", 2: "every other month"}.get(months, f"every {months} months")
    return f"on the {ordinal(month_day)} of {every}"


def next_step(at: datetime, step_s: int, after: datetime) -> datetime:
    """The first moment later than `after` a whole number of `step_s` (days) from `at`. Naive local
    times: "every two days at nine" stays at nine across a change of summer time."""
    at += timedelta(seconds=step_s)
    while at <= after:
        at += timedelta(seconds=step_s)
    return at


def on_days(days: str) -> str:
    """ "every day", "on weekdays", "on weekends", "on Mondays and Thursdays"."""
    if days == EVERY_DAY:
        return "every day"
    if days in ("01234", "56"):
        return "on weekdays" if days == "01234" else "on weekends"
    return "on " + listed([f"{WEEKDAYS[int(d)].capitalize()}s" for d in days])


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


def _reminder(m: re.Match, now: datetime, part: str = "") -> Request | None:
    """A reminder request: its task in the reminder's words ("my mom" → "your mom"), and its time,
    said before "remind me", after it ("remind me at nine to ...") or after the task. An "in ..." or
    "at ..." that is no time is part of the task ("put the cake in the oven"). `part`: of the day
    said with its days ("every morning"), for a time said without a.m. or p.m."""
    at, seconds, task, link, day = None, None, m["rest"] or "", "to", ""
    if m["first"]:  # "in an hour remind me to ...", "tomorrow at nine remind me to ..."
        if (said := when_said(m["first"], now, part)) is None and not (day := _day_only(m["first"])):
            return None
        at, seconds = said or (None, None)
    if linked := _LINK.fullmatch(task):
        before = linked["before"].strip()
        # "remind me at nine tomorrow to call mom", "set a reminder for nine to ...", or a link of
        # the task ("remind me to go to the store") when nothing, or no when, stands before it
        said = when_said(before, now, part, bare=True) if before and seconds is None else None
        if said or not before or (seconds is None and (day := _day_only(before) or day)):
            link, task = linked["link"], linked["task"]
            at, seconds = said or (at, seconds)
    if seconds is None:  # "remind me to call mom tomorrow at nine": the longest end that is a when
        words = task.split()
        for i in range(len(words)):
            if words[i] not in ("in", "at", "tomorrow", "on", *WEEKDAYS):
                continue
            if said := when_said(" ".join(words[i:]), now, part):
                at, seconds = said
            elif not (day := _day_only(" ".join(words[i:])) or day):
                continue
            task = " ".join(words[:i])
            break
    task = yours(task)  # the reminder's words for the user's: "Reminder: call your mom."
    return Request("remind", seconds, at=at, task=task, link=link, when="" if seconds else day)


def _day_only(words: str) -> str:
    """ "tomorrow", "on friday", "tomorrow morning": a day said without its time (asked back, and
    read with the answer, "at nine"); "" for any other words."""
    return words if re.fullmatch(_DAY, words) else ""


def when_said(
    words: str, now: datetime, part: str = "", bare: bool = False
) -> tuple[datetime | None, int] | None:
    """(the moment, seconds from `now` to it) that `words` name, or None: "in ten minutes" (no
    moment: None, 600), "at nine", "at nine tomorrow", "tomorrow evening at eight", "on friday at
    nine", and without "at" when `bare` ("nine tomorrow", after "set an alarm for"). `part`: of the
    day, said elsewhere (a wake-up is in the "morning"), for a time said without a.m. or p.m."""
    if words.startswith("in "):
        seconds = parse_duration(words[3:])
        return None if seconds is None else (None, seconds)
    m = _AT.fullmatch(words)
    if m is None or (m["day"] and m["day_after"]) or not (bare or m["at"]):
        return None
    if day := m["day"] or m["day_after"]:  # what the day came with says a.m. or p.m.
        name, _, day_part = day.removeprefix("on ").partition(" ")
        if name == "tomorrow":
            ahead = 1
        else:  # "on friday": the coming one; said on a Friday, a week on ("today" would say today)
            ahead = (WEEKDAYS.index(name) - now.weekday()) % 7 or 7
        at = clock_time_on(m["time"], now.date() + timedelta(days=ahead), day_part or part)
    else:
        at = next_clock_time(m["time"], now, part)
    return None if at is None else (at, seconds_until(at, now))


def next_clock_time(words: str, now: datetime, part: str = "") -> datetime | None:
    """The next moment after `now` that the spoken time of day names ("seven", "six forty five p m",
    "seven o'clock in the morning"), or None. Without a.m. or p.m., the sooner of the two, or the one
    of the `part` of the day said elsewhere ("wake me up at seven" at 5 PM: 7 AM)."""
    said = _clock_reading(words)
    if said is None:
        return None
    hour, minute, half = said
    times = []
    for h in _hours(hour, half, part):
        at = now.replace(hour=h, minute=minute, second=0, microsecond=0)
        times.append(at if at > now else at + timedelta(days=1))
    return min(times)


def _hours(hour: int, half: str | None, part: str = "") -> list[int]:
    """The hours of the day a time said may be (`_clock_reading`'s hour and a.m. or p.m.): both
    halves of the day when nothing says which."""
    if half:
        return [hour % 12 + _HALF_DAY[half]]
    if hour > 12:
        return [hour]
    return [_in_part(hour, part)] if part else [hour % 12, hour % 12 + 12]


def clock_time_on(words: str, day: date, part: str = "") -> datetime | None:
    """The moment on `day` that "seven ... [tomorrow|on friday] [morning|afternoon|evening|night]"
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
    else:
        h = _in_part(hour, part or "day")
    return datetime.combine(day, dt_time(h, minute))


def _in_part(hour: int, part: str) -> int:
    """The hour (1 to 12, said without a.m. or p.m.) in a part of the day: "morning" a.m.,
    "afternoon", "evening" or "night" p.m., "day" 7:00 to 6:59 PM (twelve is noon)."""
    if part == "day":
        return hour + 12 if hour < 7 else hour
    return hour % 12 + (0 if part == "morning" else 12)


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
    """3725 → "1 hour, 2 minutes and 5 seconds", 162000 → "1 day and 21 hours", 0 → "0 seconds" (digits:
    the voice reads them, the terminal shows them)."""
    days, rest = divmod(seconds, DAY_S)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'s' * (n != 1)}"
        for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute"), (secs, "second"))
        if n
    ]
    return listed(parts) if parts else "0 seconds"


def names_time_of(words: str, at: datetime) -> bool:
    """Whether a time of day said ("seven", "six thirty a m") may be `at`'s: in either half of the
    day when nothing says which."""
    said = _clock_reading(words)
    if said is None:
        return False
    hour, minute, half = said
    return at.hour in _hours(hour, half) and at.minute == minute
