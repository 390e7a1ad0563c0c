"""Clock questions are answered from the clock; anything more about time goes to the LLM."""

import time
from datetime import UTC, datetime

import pytest

from assistant import clock

DECEMBER = datetime(2026, 12, 7, 20, 56, tzinfo=UTC)  # winter in the north
JULY = datetime(2026, 7, 7, 20, 56, tzinfo=UTC)

SUNDAY = datetime(2026, 12, 6, 15, 56)


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("What time is it?", "time"),
        ("what's the time", "time"),  # the recognizer's spelling: lowercase, no punctuation
        ("Hey, can you tell me what time it is right now, please?", "time"),
        ("Do you know what time it is?", "time"),
        ("tell me the time", "time"),
        ("What is the date today?", "date"),
        ("What's today's date?", "date"),
        ("what day is it today", "day"),
        ("What day of the week is it?", "day"),
        ("What month is it?", "month"),
        ("what year is it", "year"),
        # More than the clock knows, or not about it: the LLM's
        ("What time is it in Narnia?", None),  # a place with no time zone known (Tokyo's: below)
        ("What's the date of the moon landing?", None),
        ("What time does the game start?", None),
        ("What is time?", None),
        ("time", None),
        ("Tell me a joke.", None),
        ("", None),
    ],
)
def test_only_a_question_wholly_about_the_clock_is_one(said, kind):
    assert clock.kind_of(said) == kind
    assert (clock.answer(said, SUNDAY) is None) == (kind is None)


@pytest.mark.parametrize(
    ("now", "said"),
    [
        (SUNDAY, "It's 3:56 PM."),
        (datetime(2026, 12, 7, 0, 5), "It's 12:05 AM."),
        (datetime(2026, 12, 7, 12, 0), "It's 12:00 PM."),
        (datetime(2026, 12, 7, 9, 0), "It's 9:00 AM."),
        (datetime(2026, 12, 7, 23, 59), "It's 11:59 PM."),
    ],
)
def test_the_time_on_a_twelve_hour_clock(now, said):
    assert clock.answer("what time is it", now) == said


def test_the_date_day_month_and_year_in_words():
    assert clock.answer("what's the date", SUNDAY) == "It's Sunday, December 6, 2026."
    assert clock.answer("what day is it", SUNDAY) == "It's Sunday, December 6."
    assert clock.answer("what month is it", datetime(2027, 1, 1)) == "It's January."
    assert clock.answer("what year is it", datetime(2027, 1, 1)) == "It's 2027."


def test_the_local_clock_by_default():
    before = datetime.now()
    said = clock.answer("what year is it")
    assert said in {f"It's {before.year}.", f"It's {datetime.now().year}."}


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        # 20:56 UTC on Monday, December 7, 2026: winter time in the north, summer time in Sydney
        ("What time is it in Tokyo?", "It's 5:56 AM on Tuesday in Tokyo."),
        ("what's the time in new york", "It's 3:56 PM in New York."),
        ("could you tell me what time it is in paris please", "It's 9:56 PM in Paris."),
        ("what time is it in san francisco", "It's 12:56 PM in San Francisco."),  # no zone of its name
        ("what time is it in india", "It's 2:26 AM on Tuesday in India."),
        ("what time is it in sydney", "It's 7:56 AM on Tuesday in Sydney."),
        ("what time is it in london", "It's 8:56 PM in London."),
        # countries (the tz database's own tables), US states, a country of several time zones
        ("what time is it in kenya", "It's 11:56 PM in Kenya."),
        ("what time is it in the netherlands", "It's 9:56 PM in the Netherlands."),
        ("what time is it in the uk", "It's 8:56 PM in the UK."),
        ("what time is it in south korea", "It's 5:56 AM on Tuesday in South Korea."),
        ("what time is it in saint lucia", "It's 4:56 PM in Saint Lucia."),
        ("what time is it in texas", "It's 2:56 PM in Texas."),
        ("what time is it in arizona", "It's 1:56 PM in Arizona."),  # no summer time there
        ("what time is it in western australia", "It's 4:56 AM on Tuesday in Western Australia."),
        ("what time is it in queensland", "It's 6:56 AM on Tuesday in Queensland."),  # the tz's own name
        ("what time is it in british columbia", "It's 12:56 PM in British Columbia."),
        ("what time is it in australia", "It's 7:56 AM on Tuesday in Sydney; Australia has 6 time zones."),
        (
            "what time is it in the united states",
            "It's 3:56 PM in New York; the United States has 6 time zones.",
        ),
        ("what time is it in russia", "It's 11:56 PM in Moscow; Russia has 11 time zones."),
        ("what time is it in the us", "It's 3:56 PM in New York; the US has 6 time zones."),
        ("what time is it in the uae", "It's 12:56 AM on Tuesday in the UAE."),
        ("what's the date in tokyo", "It's Tuesday, December 8, 2026 in Tokyo."),
        ("what day is it in london", "It's Monday, December 7, 2026 in London."),
        # a city the tz database does not name, by its zone in GeoNames (places.py)
        ("what time is it in kyoto", "It's 5:56 AM on Tuesday in Kyoto."),
        ("what time is it in timbuktu", "It's 8:56 PM in Timbuktu."),
        ("what time is it in paris texas", "It's 2:56 PM in Paris Texas."),  # not France's
        ("what time is it in bombay", "It's 2:26 AM on Tuesday in Bombay."),  # another of Mumbai's names
        # the LLM's
        ("what time is it in the morning", None),
        ("what time is it in narnia", None),
        ("what time is it in bed", None),
        ("what time is it in my house", None),
    ],
)
def test_the_time_elsewhere_from_the_time_zone_database(said, answer):
    """Asked the time in Tokyo at 05:47 UTC, the LLM said "It's currently 9:30 AM in Tokyo."."""
    assert clock.answer(said, datetime(2026, 12, 7, 20, 56, tzinfo=UTC)) == answer


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        # Monday, December 7, 2026: winter time in the north, summer time in Sydney
        ("What's the time difference between London and Tokyo?", "Tokyo is 9 hours ahead of London."),
        ("what is the time difference between new york and london", "London is 5 hours ahead of New York."),
        ("time difference between tokyo and new york", "New York is 14 hours behind Tokyo."),
        ("what's the time difference between paris and berlin", "Berlin keeps the same time as Paris."),
        (
            "what's the time difference between london and india",
            "India is 5 hours and 30 minutes ahead of London.",
        ),
        (
            "what's the time difference between the uk and the us",
            "New York is 5 hours behind the UK; the US has 6 time zones.",
        ),
        # against this computer's zone (the test's: Denver, UTC-7 in December)
        ("what's the time difference with tokyo", "Tokyo is 16 hours ahead of you."),
        ("how many hours ahead is london", "London is 7 hours ahead of you."),
        ("what's the time difference between here and hawaii", "Hawaii is 3 hours behind you."),
        ("time difference between chicago and here", "Chicago is 1 hour ahead of you."),
        ("what time is it in utc", "It's 8:56 PM in UTC."),
        # the LLM's
        ("what's the time difference between kyoto and lyon", "Lyon is 8 hours behind Kyoto."),  # GeoNames'
        ("what's the time difference between narnia and tokyo", None),
        ("what's the time difference between here and here", None),
    ],
)
def test_the_time_difference_between_places(said, answer, monkeypatch):
    """Asked the time difference between London and Tokyo, the LLM said "approximately 2 hours, 30
    minutes"."""
    monkeypatch.setenv("TZ", "America/Denver")
    time.tzset()
    try:
        assert clock.answer(said, datetime(2026, 12, 7, 20, 56, tzinfo=UTC)) == answer
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(
    ("said", "at", "answer"),
    [
        # this computer's zone: the test's, Denver (UTC-7 in December, UTC-6 in July)
        ("What time zone is Tokyo in?", DECEMBER, "Tokyo is on Japan Time, UTC plus 9, 16 hours ahead of"
         " you."),
        ("what time zone is texas in", DECEMBER, "Texas is on Central Time, UTC minus 6, 1 hour ahead of you;"
         " parts of Texas are on Mountain Time."),  # the us package's zones
        ("what's the time zone in new york", DECEMBER, "New York is on Eastern Time, UTC minus 5, 2 hours"
         " ahead of you."),
        ("what time zone does india use", DECEMBER, "India is on India Time, UTC plus 5:30, 12 hours and 30"
         " minutes ahead of you."),
        ("which time zone is london in", DECEMBER, "London is on Greenwich Mean Time, UTC, 7 hours ahead of"
         " you."),
        ("what time zone is paris in", JULY, "Paris is on Central European Time, UTC plus 2, 8 hours ahead of"
         " you."),  # CLDR's "Central European Summer Time", less its season
        ("what time zone is australia in", JULY, "Sydney is on Australian Eastern Time, UTC plus 10, 16 hours"
         " ahead of you; Australia has 5 time zones."),  # no summer time in July
        ("what time zone is buenos aires in", DECEMBER, "Buenos Aires is on UTC minus 3, 4 hours ahead of"
         " you."),  # CLDR has no name of its own for it
        ("what time zone is denver in", DECEMBER, "Denver is on Mountain Time, UTC minus 7, as you are."),
        ("what's my time zone", DECEMBER, "You're on Mountain Time, UTC minus 7: this computer keeps Denver's"
         " time."),
        ("what time zone am i in", JULY, "You're on Mountain Time, UTC minus 6: this computer keeps Denver's"
         " time."),
        ("what time zone is it in tokyo", DECEMBER, "Tokyo is on Japan Time, UTC plus 9, 16 hours ahead of"
         " you."),
        ("what time zone do they use in japan", DECEMBER, "Japan is on Japan Time, UTC plus 9, 16 hours"
         " ahead of you."),
        ("what time zone is this", DECEMBER, "You're on Mountain Time, UTC minus 7: this computer keeps"
         " Denver's time."),
        ("what time zone is narnia in", DECEMBER, None),  # the LLM's
        ("what time zone is my phone in", DECEMBER, None),
    ],
)  # fmt: skip
def test_what_time_zone_a_place_is_in(said, at, answer, monkeypatch):
    """The zone's name from the Unicode CLDR (Babel's), its offset, and against this computer's."""
    monkeypatch.setenv("TZ", "America/Denver")
    time.tzset()
    try:
        assert clock.answer(said, at) == answer
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_computer_whose_zone_names_no_place_is_told_so(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        assert clock.answer("what is my time zone", DECEMBER) == (
            "You're on UTC: this computer's time zone names no place."
        )
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(
    ("said", "at", "answer"),
    [
        ("How many time zones does Russia have?", DECEMBER, "Russia has 11 time zones."),
        ("how many time zones are there in the us", DECEMBER, "The US has 6 time zones."),
        ("how many time zones does texas have", DECEMBER, "Texas has 2 time zones."),  # the us package's
        ("how many time zones in australia", DECEMBER, "Australia has 6 time zones."),
        ("how many time zones in australia", JULY, "Australia has 5 time zones."),  # no summer time then
        ("how many time zones does japan have", DECEMBER, "Japan has one time zone: Japan Time, UTC plus 9."),
        ("how many time zones does china have", DECEMBER, "China has one time zone: China Time, UTC plus 8."),
        ("how many time zones does narnia have", DECEMBER, None),
    ],
)
def test_how_many_time_zones_a_country_has(said, at, answer):
    """Counted as the offsets its zones keep at `at`: Arizona's Mountain Time without summer time
    is not one more."""
    assert clock.answer(said, at) == answer
