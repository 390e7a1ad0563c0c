"""Days other than today, from the local calendar: "how many days until christmas", "what day is
december twenty fifth", "what's the date in three days", "what day was yesterday".

The embedded LLM said "How many days until Christmas?" back, and "it's december 25th" for the
weekday of December 25. `clock.py` answers for today; this answers for another day, named by a
date ("december twenty fifth", "the fourth of july twenty twenty seven"), a day near today
("tomorrow", "in three days", "next friday", "two weeks from now": dateparser reads these, the
numbers put back in digits first) or a holiday (HOLIDAYS, which dateparser does not know: fixed
ones, Easter, and the US days on an nth weekday, as Thanksgiving). "When is easter" is asked of a
holiday only ("when is my alarm" is `timers.py`'s), and "how many weeks until ..." in weeks and
days. The calendar itself too ("how many days are left in the year", "what week is it", "is 2028 a
leap year", "how many days are in february": `calendar_answer`), spans of years ("how many years
ago was 1969", "how old is someone born in 1990": `years_answer`; the LLM said "1969 was 20 years
ago."), days between two dates, "how long until five pm" (`_until_time`), and "my birthday" once
the user told it (`about_you.py`). A question about a day with no date in it ("what day is the
party") goes to the LLM.

    dates.answer("how many days until christmas", now)   # "19 days: it's Friday, December 25, 2026."
    dates.answer("what day is tomorrow", now)             # "It's Monday, December 7, 2026."
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from dateutil.easter import easter
from dateutil.relativedelta import MO, SU, TH, relativedelta

from assistant import about_you, phrases
from assistant.arithmetic import in_digits
from assistant.asr.text import normalize
from assistant.clock import DAYS, MONTH_WORDS, MONTHS, date_of, time_of_day
from assistant.phrases import LEAD_IN
from assistant.timer_requests import next_clock_time, parse_duration, spoken_duration

# name (without apostrophes) → its date in a year; dateparser knows none of them
_FIXED = {
    "christmas": (12, 25), "christmas day": (12, 25), "christmas eve": (12, 24), "boxing day": (12, 26),
    "new year": (1, 1), "new years": (1, 1), "new years day": (1, 1), "new years eve": (12, 31),
    "valentines day": (2, 14), "halloween": (10, 31), "independence day": (7, 4),
    "st patricks day": (3, 17), "saint patricks day": (3, 17), "april fools day": (4, 1),
}  # fmt: skip
HOLIDAYS: dict[str, Callable[[int], date]] = {
    **{name: (lambda year, md=md: date(year, *md)) for name, md in _FIXED.items()},
    "easter": easter, "easter sunday": easter,
    # the US days, as Independence Day is
    "thanksgiving": lambda year: date(year, 11, 1) + relativedelta(weekday=TH(+4)),
    "mothers day": lambda year: date(year, 5, 1) + relativedelta(weekday=SU(+2)),
    "fathers day": lambda year: date(year, 6, 1) + relativedelta(weekday=SU(+3)),
    "memorial day": lambda year: date(year, 5, 31) + relativedelta(weekday=MO(-1)),
    "labor day": lambda year: date(year, 9, 1) + relativedelta(weekday=MO(+1)),
}  # fmt: skip
# A day is named only with one of these: dateparser alone reads "may" as May 1 and "5" as the 5th.
_NAMES_A_DAY = re.compile(
    rf"\d|\b(?:tomorrow|yesterday|today|next|last|ago|from now|{'|'.join(d.lower() for d in DAYS)})\b"
)
_WHEN = r"(?P<when>.+?)"
_UNTIL = re.compile(
    # "how" may be lost, as the recognizer may lose the first word of an utterance (timer_requests.py)
    rf"{LEAD_IN}(?:how )?many (?P<unit>days|sleeps|weeks) (?:are )?(?:there )?(?:are )?(?:left )?(?:is it )?"
    rf"(?P<how>until|till|til|to|before|since|after) {_WHEN}(?: please)?"
)
_WHICH_DAY = re.compile(
    rf"{LEAD_IN}(?:what|which) (?:day|date)(?: of the week)? (?P<verb>is|was|will be|will it be)"
    rf"(?: it)? {_WHEN}(?: on| going to be)?(?: please)?"
)
_WHEN_IS = re.compile(rf"{LEAD_IN}when (?P<verb>is|was|will be|will it be) {_WHEN}(?: please)?")
_DATE_OF = re.compile(
    rf"{LEAD_IN}(?:what's|what is|what was|what will be|what'll be) the (?:date|day)"
    rf"(?: of the week)? {_WHEN}(?: please)?"
)


_YEAR = r"(?P<year>\d\d ?\d\d)"  # "20 28", as in_digits writes "twenty twenty eight"
_MONTH = rf"(?P<month>{MONTH_WORDS}|this month)(?: this year| {_YEAR})?"
# the calendar itself: "how many days are left in the year", "what week is it", "is 2028 a leap year",
# "how many days are in february"
_CALENDAR = phrases.requests(
    {
        "left": r"(?:how )?many (?:more )?days (?:are )?(?:there )?(?:left|remaining|to go)"
        r" (?:in|of) (?:the|this) year",
        "week": r"(?:what|which) week (?:of the year |number )?is (?:it|this)(?: today| now)?"
        r"|(?:what's|what is) the week number",
        "day": r"what day of the year is (?:it|today|this)",
        "leap": rf"is (?:{_YEAR}|it|this year|next year) (?:a )?leap year",
        "month": rf"(?:how )?many days (?:are )?(?:there )?in {_MONTH}",
        "month has": rf"how many days does {_MONTH} have",
    }
)


_YEARS = phrases.requests(  # years away: "how many years ago was 1969", "how old is someone born in 1990"
    {
        "ago": rf"(?:how )?(?:many years|long) ago (?:was|is) {_YEAR}",
        "until": rf"(?:how )?many years (?:is it |are there )?(?:until|till|to|before) {_YEAR}",
        "born": rf"how old (?:is|will be|would be) (?:someone|somebody|a person|a child|(?:he|she) if"
        rf" (?:he|she) was) born in {_YEAR}(?: this year| now)?",
        "born me": rf"how old (?:am i|will i be|would i be)(?: this year| now)? if i was born in"
        rf" {_YEAR}",
        "in": r"what year (?:will it be|is it going to be|will be) in (?P<n>\d+) years(?: from now| time)?",
        "was": r"what year was it (?P<n>\d+) years ago",
    }
)
_BETWEEN = re.compile(
    rf"{LEAD_IN}(?:how )?many (?P<unit>days|weeks) (?:are )?(?:there )?(?:between|from) (?P<first>.+?)"
    rf" (?:and|to|until|till) (?P<second>.+?)(?: please)?"
)
# "what time will it be in three hours", "what time was it two hours ago" (`_time_after`)
_TIME_AFTER = re.compile(
    rf"{LEAD_IN}(?:what time (?:will it be|is it|would it be)|what will the time be) in (?P<later>.+?)"
    rf"(?: from now)?|{LEAD_IN}what time was it (?P<earlier>.+?) ago(?: please)?"
)
# "how long until christmas", "how many hours until five pm" (`_until_time`): "how long until my
# alarm" is timers.py's, which comes after: no day or time of day is named there
_HOW_LONG = re.compile(
    rf"{LEAD_IN}(?:how long|how much time|how many (?P<unit>hours|minutes)) (?:is it |is there |is left |do i"
    rf" have |do we have )?(?:left )?(?:until|till|til|before) (?P<when>.+?)(?: please)?"
)


def years_answer(said: str, today: date) -> str | None:
    """The answer to a question of years away (`_YEARS`), or None."""
    kind, m = phrases.first_match(_YEARS, said)
    if m is None:
        return None
    if kind in ("in", "was"):
        n = int(m["n"])
        return f"It will be {today.year + n}." if kind == "in" else f"It was {today.year - n}."
    year = int(m["year"].replace(" ", ""))
    if kind in ("born", "born me"):
        if year >= today.year:
            return None
        if kind == "born me":
            return f"You turn {today.year - year} in {today.year}, on your birthday."
        return f"Someone born in {year} turns {today.year - year} in {today.year}, on their birthday."
    years = abs(today.year - year)
    if kind == "ago" and year <= today.year:
        return f"{year} was {counted(years, 'year')} ago." if years else f"It's {year} now."
    if kind == "until" and year >= today.year:
        return f"{year} is {counted(years, 'year')} away." if years else f"It's {year} now."
    return None


def calendar_answer(said: str, today: date) -> str | None:
    """The answer to a question about the calendar itself (`_CALENDAR`), or None."""
    kind, m = phrases.first_match(_CALENDAR, said)
    if m is None:
        return None
    year = int(m["year"].replace(" ", "")) if m.groupdict().get("year") else today.year
    if kind == "left":
        left = (date(today.year, 12, 31) - today).days
        if not left:
            return f"Today is the last day of {today.year}."
        return (
            f"{counted(left, 'day')} after today: {today.year} ends on {date_of(date(today.year, 12, 31))}."
        )
    if kind == "week":
        iso = today.isocalendar()
        return f"It's week {iso.week} of {iso.year}."
    if kind == "day":
        return f"It's day {today.timetuple().tm_yday} of {today.year}."
    if kind == "leap":
        year += said.startswith("is next year") or " next year " in f" {said} "
        if calendar.isleap(year):
            return f"Yes, {year} is a leap year: February has 29 days."
        following = next(y for y in range(year + 1, year + 9) if calendar.isleap(y))
        return f"No, {year} is not a leap year; the next is {following}."
    month = today.month if m["month"] == "this month" else MONTHS.index(m["month"].title()) + 1
    if not m["year"] and month < today.month:  # "february", said in december: the coming one
        year += 1
    days = calendar.monthrange(year, month)[1]
    return f"{MONTHS[month - 1]} {year} has {days} days."


def answer(text: str, now: datetime | None = None, birthday: str | None = None) -> str | None:
    """The answer to a question about a day other than today, or None for any other text.
    `birthday`: the user's, as `about_you.py` keeps it ("03-03"), for "my birthday" in a question."""
    said = in_digits(text)
    now = now or datetime.now()
    today = now.date()
    if re.search(r"\bmy (?:next )?birthday\b", said):  # "how many days until my birthday"
        if birthday is None:
            asks = (_UNTIL, _HOW_LONG, _WHICH_DAY, _DATE_OF)
            return about_you.UNKNOWN_BIRTHDAY if any(p.fullmatch(said) for p in asks) else None
        month, day = map(int, birthday.split("-"))
        said = re.sub(r"\bmy (?:next )?birthday\b", f"{MONTHS[month - 1].lower()} {day}", said)
        text = said  # "how long until march 3": `_until_time` reads the text too
    if (known := calendar_answer(said, today) or years_answer(said, today)) is not None:
        return known
    if between := _BETWEEN.fullmatch(said):
        first, second = (
            today if named in ("now", "today") else _day(named, now, False)
            for named in (between["first"], between["second"])
        )
        if first is None or second is None:
            return None
        if second < first and not re.search(r"\d{4}", between["second"]):  # "december 1 to january 5"
            second = second.replace(year=second.year + 1)
        days = abs((second - first).days)
        count = in_weeks(days) if between["unit"] == "weeks" else counted(days, "day")
        return f"{count}, from {date_of(min(first, second))} to {date_of(max(first, second))}."
    if (later := _time_after(text, now)) is not None:
        return later
    if how_long := _HOW_LONG.fullmatch(said):
        return _until_time(text, now) or _until_day(how_long["when"], now, today)
    if until := _UNTIL.fullmatch(said):
        past = until["how"] in ("since", "after")
        day = _day(until["when"], now, past)
        if day is None:
            return None
        days = abs((day - today).days)
        if days == 0:
            return f"That's today: {date_of(day)}."
        count = in_weeks(days) if until["unit"] == "weeks" else counted(days, "day")
        return f"{count} ago: it was {date_of(day)}." if day < today else f"{count}: it's {date_of(day)}."
    asked = _WHICH_DAY.fullmatch(said) or _DATE_OF.fullmatch(said) or _WHEN_IS.fullmatch(said)
    if asked is None:
        return None
    past = asked.groupdict().get("verb") == "was" or said.startswith(("what was", "which was"))
    # "when is easter" asks of a holiday only ("when is my alarm" is timers.py's)
    day = (_holiday if asked.re is _WHEN_IS else _day)(asked["when"], now, past)
    if day is None:
        return None
    return f"It was {date_of(day)}." if day < today else f"It's {date_of(day)}."


def _time_after(text: str, now: datetime) -> str | None:
    """ "It will be 3:05 PM." for "what time will it be in three hours" (the day too, when it is not
    today); "It was ..." for "what time was it two hours ago"; None for any other text."""
    m = _TIME_AFTER.fullmatch(normalize(text))
    if m is None or (seconds := parse_duration(m["later"] or m["earlier"])) is None:
        return None
    at = now + timedelta(seconds=seconds if m["later"] else -seconds)
    day = "" if at.date() == now.date() else f" on {DAYS[at.weekday()]}"
    return f"It {'will be' if m['later'] else 'was'} {time_of_day(at)}{day}."


def _until_time(text: str, now: datetime) -> str | None:
    """ "5 hours and 8 minutes, until 5:00 PM." for "how long until five pm" (the LLM: "Five minutes
    until five pm."); None when no time of day is named."""
    m = _HOW_LONG.fullmatch(normalize(text))
    if m is None:
        return None
    when = re.sub(r" (?:today|tonight|this (?:morning|afternoon|evening))$", "", m["when"])
    if (at := next_clock_time(when, now.replace(second=0, microsecond=0))) is None:
        return None
    minutes = round((at - now).total_seconds() / 60)
    said = spoken_duration(minutes * 60) if minutes else "Less than a minute"
    day = " tomorrow" if at.date() != now.date() else ""
    return f"{said[0].upper()}{said[1:]}, until {time_of_day(at)}{day}."


def _until_day(when: str, now: datetime, today: date) -> str | None:
    """ "19 days: it's Friday, December 25, 2026." for "how long until christmas"; None when no day
    is named ("how long until my alarm": timers.py's)."""
    day = _day(when, now, past=False)
    if day is None or day < today:
        return None
    days = (day - today).days
    return f"That's today: {date_of(day)}." if not days else f"{counted(days, 'day')}: it's {date_of(day)}."


def _holiday(when: str, now: datetime, past: bool) -> date | None:
    """The day of the holiday `when` names ("christmas", "easter this year", "thanksgiving next
    year"): the next one, or the last when `past`, unless the year is said; else None."""
    m = re.fullmatch(r"(?:the )?(?P<name>.+?)(?: (?P<year>this|next|last) year)?", when.replace("'", ""))
    if (day_in := HOLIDAYS.get(m["name"])) is None:
        return None
    if m["year"]:
        return day_in(now.year + {"this": 0, "next": 1, "last": -1}[m["year"]])
    this_year = day_in(now.year)
    if past:
        return this_year if this_year <= now.date() else day_in(now.year - 1)
    return this_year if this_year >= now.date() else day_in(now.year + 1)


def counted(n: int, unit: str) -> str:
    return f"{n} {unit}{'s' * (n != 1)}"


def in_weeks(days: int) -> str:
    """19 → "2 weeks and 5 days"."""
    weeks, rest = divmod(days, 7)
    if not weeks:
        return counted(rest, "day")
    return counted(weeks, "week") + (f" and {counted(rest, 'day')}" if rest else "")


def load() -> None:
    """Import dateparser and read a day once (0.25 s here, 1 ms after): the pipeline does it at
    its open, not at the first "what's the date in three days"."""
    _day("in 3 days", datetime.now(), past=False)


def _day(when: str, now: datetime, past: bool) -> date | None:
    """The day `when` names (the next one of that name, or the last one when `past`), else None."""
    when = re.sub(r"^(?:it |the day |the date )", "", when.strip())
    if (holiday := _holiday(when, now, past)) is not None:
        return holiday
    if not _NAMES_A_DAY.search(when):
        return None
    import dateparser  # here, not with the module: the commands that never ask need not pay for it

    when = re.sub(r"\b(\d\d) (\d\d)\b", r"\1\2", when)  # a year said "twenty twenty seven": 20 27
    when = when.replace("from today", "from now")  # dateparser took "a week from today" for a week ago
    settings = {"PREFER_DATES_FROM": "past" if past else "future", "RELATIVE_BASE": now}
    parsed = dateparser.parse(when, languages=["en"], settings=settings)
    return parsed.date() if parsed is not None else None
