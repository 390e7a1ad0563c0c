"""Sunrise, sunset and the moon's phase, worked out here (astral) instead of made up by the LLM.

Asked when the sun sets, the embedded LLM said "The sun sets at 12:30pm today, but it will continue
to set for another 9 hours later tomorrow night."; asked the moon's phase, on a waning crescent,
"The moon is currently in the gibbous phase, which means it's about to be full." (`assistant chat
--mute`, 2026-12-07). The assistant does not know where the computer is, only its time zone
(`clock.local_zone`), so the sun's times are those of the zone's own city, from the tz database's
zone.tab ("Europe/Paris": Paris), and the answer names it: "In Paris, the sun sets at 4:53 PM today." A
computer whose zone has no city (UTC) is told so. A place named ("... in tokyo") is GeoNames' city
(`places.py`), its times said in its own time. The moon's phase is the same everywhere. Matched
whole on `asr.text.normalize()`d text, as `clock.py` does.

    sky.answer("when does the sun set")        # "In Paris, the sun sets at 4:53 PM today."
    sky.answer("when does the sun set in tokyo")  # "In Tokyo, the sun set at 4:27 PM local time today."
    sky.answer("what's the moon phase tonight") # "The moon is a waning crescent tonight: ..."
"""

from __future__ import annotations

import functools
import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from assistant import phrases, places
from assistant.asr.text import normalize
from assistant.clock import date_of, local_zone, time_of_day, zone_city_name, zone_table

_DAY = r"(?: (?P<day>today|tonight|tomorrow|this evening|this morning|tomorrow morning|tomorrow evening))?"
_SUNSET = (
    r"(?:when|what time) (?:does|will|is) (?:the )?(?:sun ?set|sun (?:set|go down))(?: be)?"
    r"|(?:when|what time) is (?:the )?sunset|(?:what time is )?sunset"
    r"|(?:when|what time) (?:does|will) it get dark"
)
_SUNRISE = (
    r"(?:when|what time) (?:does|will|is) (?:the )?(?:sun ?rise|sun (?:rise|come up))(?: be)?"
    r"|(?:when|what time) is (?:the )?sunrise|(?:what time is )?sunrise"
    r"|(?:when|what time) (?:does|will) it get light"
)
_IN = r"(?: in (?P<place>[a-z][a-z' ]*?))?"  # "when does the sun set in tokyo": a place GeoNames knows
_PATTERNS = phrases.requests(
    {
        "sunset": rf"(?:{_SUNSET}){_IN}{_DAY}",
        "sunrise": rf"(?:{_SUNRISE}){_IN}{_DAY}",
        # "phase" is heard "face" (12 of 12 held-out voices, scripts/bench_requests.py): no one asks
        # for the moon's face
        "moon": r"(?:what's|what is) the (?:moon(?:'s)? (?:phase|face)|phase of the moon)"
        r"(?: tonight| today| now)?|what phase is the moon(?: in)?(?: tonight| today| now)?",
        "full tonight": r"is (?:it|there) a full moon(?: tonight| today)?"
        r"|is the moon full(?: tonight| today)?",
        "full moon": r"when is the next full moon|when is the full moon|when's the next full moon",
    }
)
# astral's phase: days since the new moon, 0 to 27.99 (new 0, first quarter 7, full 14, last quarter 21)
_PHASES = (
    (1, "a new moon"), (6, "a waxing crescent"), (8, "at its first quarter"), (13, "a waxing gibbous"),
    (15, "full"), (20, "a waning gibbous"), (22, "at its last quarter"), (27, "a waning crescent"),
    (28, "a new moon"),
)  # fmt: skip
_NO_PLACE = (
    "I don't know where you are: your computer's time zone ({zone}) has no city to go by. Set it to"
    " your own, for example Europe/Paris, and I'll tell you."
)


def answer(text: str, now: datetime | None = None) -> str | None:
    """The reply to a question about the sun's times or the moon's phase; None for any other text."""
    kind, m = phrases.first_match(_PATTERNS, normalize(text))
    if kind is None:
        return None
    now = now or datetime.now()
    if kind in ("moon", "full tonight"):
        said = _moon(now.date())
        if kind == "full tonight":  # "is it a full moon tonight?"
            return f"{'Yes' if said.startswith('The moon is full') else 'No'}: {said[0].lower()}{said[1:]}"
        return said
    if kind == "full moon":
        day = _next_full_moon(now.date())
        return f"The next full moon is {'tonight' if day == now.date() else 'on ' + date_of(day)}."
    if m["place"]:
        return _sun_in(kind, m["day"] or "", now, m["place"])
    return _sun(kind, m["day"] or "", now)


def _sun(kind: str, day_said: str, now: datetime) -> str:
    """ "In Paris, the sun sets at 4:53 PM today." for the local zone's city."""
    zone = local_zone()
    place = zone_coordinates(zone) if zone else None
    if place is None:
        return _NO_PLACE.format(zone=zone or "unknown")
    return _sun_at(kind, day_said, now, zone_city_name(zone), place, zone)


def _sun_in(kind: str, day_said: str, now: datetime, words: str) -> str | None:
    """ "In Tokyo, the sun sets at 4:28 PM local time today." at a city GeoNames knows (or a
    country's capital), in its own time and on its own day; None for a place it does not know."""
    city, country = places.atlas().place(words)
    if city is None:
        return None
    name = city.name if country is None else f"{city.name}, the capital of {country.said}"
    return _sun_at(kind, day_said, now, name, (city.latitude, city.longitude), city.zone, " local time")


def _sun_at(
    kind: str, day_said: str, now: datetime, name: str, where: tuple[float, float], zone: str, clock: str = ""
) -> str:
    """The sun's rise or set at `where` (latitude, longitude), on the day said there ("today" in that
    zone, or "tomorrow"), at its time of day there, after `clock` (" local time" for a place named)."""
    from astral import Observer
    from astral.sun import sunrise, sunset

    there = now.astimezone(ZoneInfo(zone))  # a naive `now` is this computer's time
    day = there.date() + timedelta(days=day_said.startswith("tomorrow"))
    when = "tomorrow" if day != there.date() else "today"
    event, verb, did = (sunset, "set", "set") if kind == "sunset" else (sunrise, "rise", "rose")
    try:
        at = event(Observer(*where), day, tzinfo=ZoneInfo(zone))
    except ValueError:  # the polar day or night: astral finds no crossing of the horizon
        return f"In {name}, the sun does not {verb} {when}."
    said = did if at < there else f"{verb}s"  # "the sun set at 4:53 PM today"
    return f"In {name}, the sun {said} at {time_of_day(at)}{clock} {when}."


def _moon(day: date) -> str:
    from astral import moon

    phase = _phase(moon.phase(day))
    if phase == "full":
        return "The moon is full tonight."
    said = "It's a new moon tonight" if phase == "a new moon" else f"The moon is {phase} tonight"
    return f"{said}; the next full moon is on {date_of(_next_full_moon(day))}."


def _phase(age: float) -> str:
    """The phase's name for astral's age of the moon in days: "a waning crescent", "full"."""
    return next(name for limit, name in _PHASES if age < limit)


def _next_full_moon(day: date) -> date:
    """The first day from `day` on that is full: `day` itself if its phase is, else the day nearest
    the next 14 (astral's age of a full moon), within the 30 days ahead."""
    from astral import moon

    days = [day + timedelta(days=n) for n in range(31)]
    ages = [moon.phase(d) for d in days]
    if _phase(ages[0]) == "full":  # tonight, as `_moon` says it
        return day
    for n in range(30):
        if ages[n] <= 14 < ages[n + 1]:  # full between these two days
            return days[n] if 14 - ages[n] <= ages[n + 1] - 14 else days[n + 1]
    return days[0]  # unreachable: a lunar month is 29.5 days


def zone_city(zone: str) -> str | None:
    """ "America/New_York" → "New York": the city whose sunrise and sunset are said; None for a zone
    zone.tab does not list (UTC)."""
    return zone_city_name(zone) if zone in _places() else None


def zone_coordinates(zone: str) -> tuple[float, float] | None:
    """(latitude, longitude) of the zone's city; None for a zone zone.tab does not list (UTC)."""
    return _places().get(zone)


@functools.cache
def _places() -> dict[str, tuple[float, float]]:
    """Zone → (latitude, longitude) of its city, from zone.tab's ISO 6709 "+4852+00220", read once."""
    places = {}
    for _, coords, zone in zone_table():
        parts = re.fullmatch(r"([+-]\d+)([+-]\d+)", coords)
        places[zone] = _degrees(parts[1], 2), _degrees(parts[2], 3)
    return places


def _degrees(iso: str, width: int) -> float:
    """ "+4852" (2 digits of degrees) → 48.8667; "-0740023" (3, with seconds) → -74.0064."""
    sign = -1 if iso[0] == "-" else 1
    digits = iso[1:]
    degrees, minutes, seconds = (
        int(digits[:width]),
        int(digits[width : width + 2]),
        int(digits[width + 2 :] or 0),
    )
    return sign * (degrees + minutes / 60 + seconds / 3600)
