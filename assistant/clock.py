"""Questions about the clock, answered from the clock rather than by the LLM.

The model cannot know the time, and made it up ("It's currently 21:59 EST"). Told the date and time
in the prompt, the embedded 135M model still copied them wrong in about half of its answers (9 of
20 times right, 11 of 20 weekdays, 13 of 20 dates; `scripts/bench_answers.py --clock`, README,
"Clock questions"). So a question that is only about the time, the day, the date, the month or the
year is answered here, at once, with the local clock; "what time is it in Tokyo" from the tz
database (`zoneinfo`: a zone named by its city, a country of the database's own tables, or one of
`PLACES`, the US states among them; a country of several zones by its main one, `MAIN_ZONES`; else
a city GeoNames knows, by its zone: "in Kyoto"; a place it does not know goes to the LLM), and the
time difference between two places, or a place and this computer ("Tokyo is 9 hours ahead of
London.", `_difference`: the LLM said "approximately 2 hours, 30 minutes"), and the time zone a
place is in, or this computer ("Tokyo is on Japan Time, UTC plus 9, ...", `_zone_of`: the zones'
names are the Unicode CLDR's, as Babel ships them); anything more ("what's the date of the moon
landing") goes to the LLM as before. Matched on `asr.text.normalize()`d text,
the recognizer's own spelling, so typed and spoken questions alike.

    clock.answer("What time is it?", now)   # "It's 3:56 PM."
    clock.answer("what's the date today")   # "It's Sunday, December 6, 2026."
    clock.answer("what time is it in tokyo") # "It's 2:47 PM in Tokyo." (and the day, if not ours)
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import re
import zoneinfo
from datetime import datetime
from pathlib import Path

from assistant import phrases, places
from assistant.asr.text import normalize
from assistant.phrases import LEAD_IN

# Spelt out rather than strftime's %A/%B, which follow the process's locale: the voice speaks English.
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")  # fmt: skip
MONTH_WORDS = "|".join(month.lower() for month in MONTHS)  # a pattern: a month as the recognizer writes it

# ... and around a clock question ("can you tell me what time it is right now please").
_ASK = (
    r"(?:(?:can|could|would|will) you (?:please )?(?:tell me|say)|do you know|tell me"
    r"|i'd like to know|i want to know)\s+"
)
_AFTER = r"(?:\s+(?:now|right now|please|today|currently|at the moment|then))*"
_TODAY = r"(?:\s+(?:today|now))?"

_QUESTIONS = {  # kind → what the question is, after `_ASK` or alone
    "time": (
        r"what time is it|what time it is|what's the time|what is the time|the time"
        r"|what's the current time|what is the current time|the current time|what time do you have"
    ),
    "date": (
        r"what's the date|what is the date|what date is it|what date it is|the date"
        r"|what's today's date|what is today's date|today's date|what's the date today"
    ),
    "day": (
        r"what day is it|what day it is|what's the day|what is the day|what day of the week is it"
        r"|what day of the week it is|which day is it|what's today|what is today"
    ),
    "month": r"what month is it|what month it is|which month is it|what's the month|what is the month",
    "year": r"what year is it|what year it is|which year is it|what's the year|what is the year",
}
_PATTERNS = {
    kind: re.compile(rf"{LEAD_IN}(?:{_ASK})?(?:{words}){_TODAY}{_AFTER}")
    for kind, words in _QUESTIONS.items()
}


_PLACE = r"[a-z][a-z' ]*?"
_ELSEWHERE = re.compile(  # "what time is it in tokyo", "what's the date in sydney"
    rf"{LEAD_IN}(?:{_ASK})?(?:(?P<time>{_QUESTIONS['time']})|{_QUESTIONS['date']}|{_QUESTIONS['day']})"
    rf" (?:in|over in) (?P<place>{_PLACE}){_AFTER}"
)
_ZONE_OF = re.compile(  # "what time zone is tokyo in", "what's my time zone" (this computer's first)
    rf"{LEAD_IN}(?:{_ASK})?(?:(?P<here>(?:what|which) time ?zone (?:am i in|are we in|is this|is it"
    rf"|is it here|am i on|are we on)|(?:what's|what is) (?:my|our|this computer's|the local|your) time ?zone"
    rf"|(?:what's|what is) the time ?zone(?: here)?)"
    rf"|(?:what|which) time ?zone is it in (?P<it_in>{_PLACE})"
    rf"|(?:what|which) time ?zone (?:is|are) (?P<place>{_PLACE})(?: in| on)?"
    rf"|what time ?zone (?:does|do) (?P<uses>{_PLACE}) (?:use|have|keep)"
    rf"|what time ?zone (?:do|does) (?:they|people) (?:use|have|keep) in (?P<use_in>{_PLACE})"
    rf"|(?:(?:what's|what is) )?the time ?zone (?:of|in|for) (?P<of>{_PLACE}))"
    rf"{_AFTER}"
)
_ZONE_COUNT = re.compile(  # "how many time zones does russia have"
    rf"{LEAD_IN}(?:{_ASK})?how many time ?zones (?:does|do) (?P<place>{_PLACE}) have"
    rf"|{LEAD_IN}(?:{_ASK})?how many time ?zones (?:are there |are )?in (?P<in>{_PLACE})"
    rf"|{LEAD_IN}(?:{_ASK})?how many time ?zones (?:is|are) (?P<spans>{_PLACE})"
    rf" (?:in|split into|divided into)"
)
_HERE = {"here", "me", "my time", "my time zone", "where i am", "where i live"}  # "us" is the US
_DIFFERENCE = re.compile(  # "what's the time difference between london and tokyo", "... with tokyo"
    rf"{LEAD_IN}(?:{_ASK})?(?:what's |what is )?(?:the )?time difference (?:between (?P<first>{_PLACE})"
    rf" and (?P<second>{_PLACE})|(?:with|to|from|for) (?P<one>{_PLACE}))"
    rf"|{LEAD_IN}how many hours (?:ahead|behind) (?:is|are) (?P<ahead>{_PLACE})"
)
# Places people ask about that no zone is named after (the tz database names a zone by one city),
# the US states by the zone most of their people live in, and Australia's and Canada's
PLACES = {
    "san francisco": "America/Los_Angeles", "seattle": "America/Los_Angeles",
    "washington": "America/New_York", "boston": "America/New_York",
    "miami": "America/New_York", "atlanta": "America/New_York", "dallas": "America/Chicago",
    "houston": "America/Chicago", "beijing": "Asia/Shanghai",
    "china": "Asia/Shanghai", "delhi": "Asia/Kolkata", "new delhi": "Asia/Kolkata",
    "mumbai": "Asia/Kolkata", "bangalore": "Asia/Kolkata", "india": "Asia/Kolkata",
    "japan": "Asia/Tokyo", "korea": "Asia/Seoul", "south korea": "Asia/Seoul",
    "england": "Europe/London", "uk": "Europe/London", "britain": "Europe/London",
    "scotland": "Europe/London", "wales": "Europe/London",
    "france": "Europe/Paris", "germany": "Europe/Berlin", "italy": "Europe/Rome",
    "spain": "Europe/Madrid", "ireland": "Europe/Dublin", "new zealand": "Pacific/Auckland",
    "rio de janeiro": "America/Sao_Paulo", "rio": "America/Sao_Paulo", "utc": "UTC", "gmt": "UTC",
    **dict.fromkeys(("connecticut", "delaware", "florida", "georgia", "indiana", "kentucky", "maine",
                     "maryland", "massachusetts", "michigan", "new hampshire", "new jersey",
                     "north carolina", "ohio", "pennsylvania", "rhode island", "south carolina",
                     "vermont", "virginia", "west virginia", "washington d c"), "America/New_York"),
    **dict.fromkeys(("alabama", "arkansas", "illinois", "iowa", "kansas", "louisiana", "minnesota",
                     "mississippi", "missouri", "nebraska", "north dakota", "oklahoma", "south dakota",
                     "tennessee", "texas", "wisconsin"), "America/Chicago"),
    **dict.fromkeys(("colorado", "idaho", "montana", "new mexico", "utah", "wyoming"), "America/Denver"),
    **dict.fromkeys(("california", "nevada", "oregon", "washington state"), "America/Los_Angeles"),
    "arizona": "America/Phoenix", "alaska": "America/Anchorage", "hawaii": "Pacific/Honolulu",
    # the states and provinces of the other large countries of several zones
    "new south wales": "Australia/Sydney", "western australia": "Australia/Perth",
    "south australia": "Australia/Adelaide", "northern territory": "Australia/Darwin",
    "ontario": "America/Toronto", "quebec": "America/Toronto", "british columbia": "America/Vancouver",
    "alberta": "America/Edmonton", "manitoba": "America/Winnipeg", "nova scotia": "America/Halifax",
    "new brunswick": "America/Moncton", "bali": "Asia/Makassar",
}  # fmt: skip
# Countries of several time zones, by the one most of their people live in (said with its city)
MAIN_ZONES = {
    "australia": "Australia/Sydney", "brazil": "America/Sao_Paulo", "canada": "America/Toronto",
    "russia": "Europe/Moscow", "mexico": "America/Mexico_City", "united states": "America/New_York",
    "indonesia": "Asia/Jakarta", "chile": "America/Santiago", "portugal": "Europe/Lisbon",
    "ecuador": "America/Guayaquil", "mongolia": "Asia/Ulaanbaatar", "kazakhstan": "Asia/Almaty",
    "congo": "Africa/Kinshasa", "greenland": "America/Nuuk", "kiribati": "Pacific/Tarawa",
    "micronesia": "Pacific/Pohnpei", "french polynesia": "Pacific/Tahiti",
}  # fmt: skip
# Countries of one zone by law that zone.tab lists more for: Xinjiang keeps its own clock by custom
# (Asia/Urumqi, 2 hours behind Beijing), but China has one time zone
ONE_ZONE_BY_LAW = {"china": "Asia/Shanghai"}
_UPPER = {"uk", "us", "usa", "uae", "d", "c", "utc", "gmt"}  # said as letters: "the UK", "Washington D C"
_SAME = {"us": "united states", "usa": "united states", "america": "united states",
         "uae": "united arab emirates"}  # fmt: skip
_LOWER = {"the", "of", "and", "de", "da", "do", "del"}


@functools.cache
def _zones() -> dict[str, str]:
    """Spoken place → zone: every zone's city ("new york" → America/New_York), then PLACES."""
    zones = {}
    for key in sorted(zoneinfo.available_timezones()):
        if "/" in key and not key.startswith(("Etc/", "SystemV/", "US/")):
            zones.setdefault(zone_city_name(key).lower(), key)
    return zones | PLACES


def zone_city_name(zone: str) -> str:
    """ "America/New_York" → "New York": the city the tz database names a zone by."""
    return zone.rsplit("/", 1)[1].replace("_", " ")


@functools.cache
def zone_table() -> list[tuple[str, str, str]]:
    """The tz database's zone.tab (tzdata's): (country code, the zone city's place as ISO 6709
    "+4852+00220", zone) for every zone a country keeps."""
    tables = importlib.resources.files("tzdata") / "zoneinfo"
    lines = (tables / "zone.tab").read_text().splitlines()
    return [tuple(line.split("\t")[:3]) for line in lines if line and not line.startswith("#")]


def local_zone() -> str | None:
    """This computer's IANA zone ("Europe/Paris"): $TZ, else where /etc/localtime links to, else
    /etc/timezone; None when none names one."""
    if (tz := os.environ.get("TZ", "").lstrip(":")) and "/" in tz:
        return tz
    localtime = Path("/etc/localtime")
    if localtime.is_symlink() and "zoneinfo/" in (target := str(localtime.resolve())):
        return target.split("zoneinfo/", 1)[1]
    try:
        named = Path("/etc/timezone").read_text().strip()
    except OSError:
        return None
    return named or None


@functools.cache
def _countries() -> dict[str, list[str]]:
    """Spoken country → its zones, from the tz database's own tables (tzdata's iso3166.tab, names by
    code, and zone.tab, zones by code): "germany" → [Europe/Berlin, Europe/Busingen]."""
    tables = importlib.resources.files("tzdata") / "zoneinfo"
    by_code: dict[str, list[str]] = {}
    for code, _, zone in zone_table():
        by_code.setdefault(code, []).append(zone)
    countries = {}
    for line in (tables / "iso3166.tab").read_text().splitlines():
        if line and not line.startswith("#") and (code := line.split("\t")[0]) in by_code:
            # "Korea (South)": "korea", "south korea"; "Myanmar (Burma)": "myanmar", "burma"
            name, _, aside = line.split("\t")[1].replace("&", "and").partition(" (")
            names = [normalize(name)]
            if names[0].startswith("st "):  # "St Lucia": "saint lucia" too
                names.append("saint " + names[0][3:])
            if (aside := normalize(aside.rstrip(")"))) in ("north", "south"):
                names.append(f"{aside} {names[0]}")
            elif (
                aside.isalpha() and len(aside) > 3 and aside not in ("american", "french", "dutch", "western")
            ):
                names.append(aside)
            for said in names:
                countries.setdefault(said, by_code[code])
    return countries


def _time_in(said: str, now: datetime | None = None) -> str | None:
    """ "It's 5:56 AM on Monday in Tokyo." for "what time is it in tokyo" (the day said when it is
    not today's here), "in Kenya", "in Texas"; for a country of several time zones, its main one's
    ("It's 7:56 AM in Sydney; Australia has 5 time zones."). None for any other question, or a place
    it does not know. `said`: normalized."""
    m = _ELSEWHERE.fullmatch(said)
    here = (now or datetime.now()).astimezone()
    if m is None or (found := _place(m["place"], here)) is None:
        return None
    zone, name, more = found
    there = here.astimezone(zone)
    if not m["time"]:  # the date or the day there
        return f"It's {date_of(there)} in {name}{more}."
    day = f" on {DAYS[there.weekday()]}" if there.date() != here.date() else ""
    return f"It's {time_of_day(there)}{day} in {name}{more}."


def _difference(said: str, now: datetime | None = None) -> str | None:
    """ "Tokyo is 9 hours ahead of London." for "what's the time difference between london and
    tokyo" (the LLM: "approximately 2 hours, 30 minutes"); "... ahead of you." for one place
    ("what's the time difference with tokyo", "how many hours ahead is tokyo"), from this computer's
    zone. None for any other question, or a place it does not know. `said`: normalized."""
    m = _DIFFERENCE.fullmatch(said)
    if m is None:
        return None
    here = (now or datetime.now()).astimezone()
    base, other = m["first"] or "here", m["second"] or m["one"] or m["ahead"]
    if other in _HERE:  # "between tokyo and here": Tokyo against you
        base, other = other, base
    if other in _HERE:
        return None
    a = (here.tzinfo, "you", "") if base in _HERE else _place(base, here)
    b = _place(other, here)
    if a is None or b is None:
        return None
    (zone_a, name_a, _), (zone_b, name_b, more) = a, b
    minutes = (
        int((here.astimezone(zone_b).utcoffset() - here.astimezone(zone_a).utcoffset()).total_seconds()) // 60
    )
    if minutes == 0:
        return f"{phrases.capitalized(name_b)} keeps the same time as {name_a}{more}."
    ahead = "ahead of" if minutes > 0 else "behind"
    return f"{phrases.capitalized(name_b)} is {_hours_and_minutes(abs(minutes))} {ahead} {name_a}{more}."


def _zone_of(said: str, now: datetime | None = None) -> str | None:
    """ "Tokyo is on Japan Time, UTC plus 9, 8 hours ahead of you." for "what time zone is tokyo in"
    (`_place`'s places; a US state whose other zones have other names says so: "; parts of Texas
    are on Mountain Time"); "You're on Central European Time, UTC plus 1: this computer keeps
    Paris's time." for "what's my time zone". None for any other question, or a place it does not
    know. `said`: normalized."""
    m = _ZONE_OF.fullmatch(said)
    if m is None:
        return None
    here = (now or datetime.now()).astimezone()
    if m["here"]:
        key = local_zone()
        if key is None or "/" not in key or key.startswith("Etc/"):
            return f"You're on {_utc(here)}: this computer's time zone names no place."
        return f"You're on {_named_offset(key, here)}: this computer keeps {zone_city_name(key)}'s time."
    place = m["place"] or m["it_in"] or m["uses"] or m["use_in"] or m["of"]
    if place in _HERE or (found := _place(place, here)) is None:
        return None
    zone, name, more = found
    there = here.astimezone(zone)
    minutes = int((there.utcoffset() - here.utcoffset()).total_seconds()) // 60
    if minutes == 0:
        relative = "as you are"
    else:
        relative = f"{_hours_and_minutes(abs(minutes))} {'ahead of' if minutes > 0 else 'behind'} you"
    parts = _state_zones(place.removeprefix("the "), zone.key, there)
    return f"{phrases.capitalized(name)} is on {_named_offset(zone.key, here)}, {relative}{more}{parts}."


def _zone_count(said: str, now: datetime | None = None) -> str | None:
    """ "Russia has 11 time zones." for "how many time zones does russia have": the offsets its zones
    keep now (zone.tab's zones of a country; a US state's from the `us` package), so that the US's
    Arizona, on Mountain Time without summer time, is not one more in winter; "Japan has one time
    zone: Japan Time, UTC plus 9." None for any other question, or a place it does not know."""
    m = _ZONE_COUNT.fullmatch(said)
    if m is None:
        return None
    spoken = m["place"] or m["in"] or m["spans"]
    place = _SAME.get(spoken.removeprefix("the "), spoken.removeprefix("the "))
    atlas = places.atlas()
    code = atlas.state(place)
    zones = list(atlas.state_zones[code]) if code in atlas.state_zones else _countries().get(place)
    zones = [ONE_ZONE_BY_LAW[place]] if place in ONE_ZONE_BY_LAW else zones
    if not zones:
        return None
    here = (now or datetime.now()).astimezone()
    offsets = _offsets(zones, here)
    name = phrases.capitalized(atlas.states[code] if code else _said(spoken))
    if len(offsets) > 1:
        return f"{name} has {len(offsets)} time zones."
    return f"{name} has one time zone: {_named_offset(zones[0], here)}."


def zone_name(key: str, at: datetime) -> str | None:
    """The zone's English name, as the Unicode CLDR (Babel's) has it at `at`, less its season's word
    ("Central Time", "Central European Time", "Greenwich Mean Time": the name holds all year); else
    CLDR's generic one ("India Time"); None where CLDR has only an offset or no name of its own."""
    from babel.dates import get_timezone_name

    if key == "UTC":
        return "Coordinated Universal Time"
    specific = get_timezone_name(
        at.astimezone(zoneinfo.ZoneInfo(key)), "long", locale="en_US"
    )  # or "GMT+05:30"
    if not specific.startswith("GMT") and "(" not in specific:
        return re.sub(r" (?:Standard|Daylight|Summer) Time$", " Time", specific)
    generic = get_timezone_name(key, "long", locale="en_US")  # "Argentina (Buenos Aires) Time" for none
    return None if "Unknown" in generic or "(" in generic else generic


def _named_offset(key: str, at: datetime) -> str:
    """ "Japan Time, UTC plus 9"; "UTC minus 3" for a zone CLDR names not: zone `key` at `at`."""
    there = at.astimezone(zoneinfo.ZoneInfo(key))
    name = zone_name(key, there)
    return f"{name}, {_utc(there)}" if name else _utc(there)


def _utc(at: datetime) -> str:
    """ "UTC plus 9", "UTC minus 3:30", "UTC": `at`'s offset, as said."""
    minutes = int(at.utcoffset().total_seconds()) // 60
    if minutes == 0:
        return "UTC"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC {'plus' if minutes > 0 else 'minus'} {hours}" + (f":{rest:02d}" if rest else "")


def _state_zones(place: str, main: str, at: datetime) -> str:
    """ "; parts of Texas are on Mountain Time": a US state's other zones (the `us` package's), by
    the names that differ from its main zone's; "" for any other place."""
    atlas = places.atlas()
    code = atlas.state(place)
    if code not in atlas.state_zones:
        return ""
    main_name = zone_name(main, at)
    others = {zone_name(key, at) for key in atlas.state_zones[code]} - {main_name, None}
    if not others:
        return ""
    return f"; parts of {atlas.states[code]} are on {phrases.listed(sorted(others))}"


def _hours_and_minutes(minutes: int) -> str:
    """330 → "5 hours and 30 minutes", 60 → "1 hour"."""
    hours, rest = divmod(minutes, 60)
    parts = [f"{n} {unit}{'s' * (n != 1)}" for n, unit in ((hours, "hour"), (rest, "minute")) if n]
    return " and ".join(parts)


def _place(spoken: str, here: datetime) -> tuple[zoneinfo.ZoneInfo, str, str] | None:
    """(its zone, its name as said back, what more to say) for a place as spoken ("the uk" →
    Europe/London, "the UK", ""); a country of several zones by its main one's city ("australia" →
    Australia/Sydney, "Sydney", "; Australia has 5 time zones"). None for a place it does not know."""
    said = spoken.removeprefix("the ")
    the = spoken[: -len(said)]  # "the " or ""
    place = _SAME.get(said, said)  # "the us": the United States, of several zones
    more = ""
    if (zone := _zones().get(place)) is None:
        zones = _countries().get(place, [])
        offsets = _offsets(zones, here)
        if len(offsets) == 1:  # "germany": Berlin and Busingen keep the same time
            zone = zones[0]
        elif (zone := MAIN_ZONES.get(place)) is None:
            return _city(place)
        else:
            more = f"; {the}{_said(said)} has {len(offsets)} time zones"
            said, the = zone_city_name(zone).lower(), ""  # "in Sydney"
    return zoneinfo.ZoneInfo(zone), f"{the}{_said(said)}", more


def _offsets(zones: list[str], at: datetime) -> set:
    """The distinct UTC offsets (timedeltas) `zones` keep at `at`: a country's time zones that day."""
    return {at.astimezone(zoneinfo.ZoneInfo(z)).utcoffset() for z in zones}


def _city(place: str) -> tuple[zoneinfo.ZoneInfo, str, str] | None:
    """A city the tz database does not name, by its GeoNames zone ("kyoto": Asia/Tokyo, "Kyoto"; "paris
    texas": America/Chicago, "Paris Texas"); None for a place GeoNames does not know either."""
    found = places.atlas().cities_called(place)
    if not found or found[0].zone not in zoneinfo.available_timezones():
        return None
    city = found[0]  # the name as written ("São Paulo"), else as said ("Paris Texas", "Bombay")
    return zoneinfo.ZoneInfo(city.zone), city.name if normalize(city.name) == place else _said(place), ""


def _said(place: str) -> str:
    """ "new york" → "New York", "uk" → "UK", "bosnia and herzegovina" → "Bosnia and Herzegovina"."""
    words = place.split()
    return " ".join(
        w.upper() if w in _UPPER else w if w in _LOWER and i else w.capitalize() for i, w in enumerate(words)
    )


def kind_of(text: str) -> str | None:
    """Which clock question `text` is ("time", "date", "day", "month", "year"), or None."""
    return phrases.kind_of(_PATTERNS, text)


def answer(text: str, now: datetime | None = None) -> str | None:
    """The spoken answer to a clock question, from the local clock (`now`); None for any other text."""
    said = normalize(text)
    kind = next((kind for kind, pattern in _PATTERNS.items() if pattern.fullmatch(said)), None)
    if kind is None:
        return _time_in(said, now) or _difference(said, now) or _zone_of(said, now) or _zone_count(said, now)
    now = now or datetime.now()
    said = {
        "time": time_of_day(now),
        "date": date_of(now),
        "day": f"{DAYS[now.weekday()]}, {MONTHS[now.month - 1]} {now.day}",
        "month": MONTHS[now.month - 1],
        "year": str(now.year),
    }
    return f"It's {said[kind]}."


def time_of_day(now: datetime) -> str:
    """The time as the (US English) voice says it, on a twelve-hour clock: 3:56 PM."""
    return f"{now.hour % 12 or 12}:{now.minute:02d} {'AM' if now.hour < 12 else 'PM'}"


def date_of(now: datetime) -> str:
    """The weekday and the date in words: Sunday, December 6, 2026."""
    return f"{DAYS[now.weekday()]}, {MONTHS[now.month - 1]} {now.day}, {now.year}"
