"""Sunrise, sunset and the moon's phase, from astral at this computer's time zone's city, or a place named."""

import time
from datetime import datetime

import pytest

from assistant import clock, sky


@pytest.fixture
def zone(monkeypatch):
    """This process's time zone set to the one given (the test's, not the machine's)."""

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


NOON = datetime(2026, 12, 7, 12, 0)  # local time, in the zone set


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # Paris on December 7, 2026: sunrise 8:30, sunset 16:53 (CET)
        ("When does the sun set?", "In Paris, the sun sets at 4:53 PM today."),
        ("what time is sunset tomorrow", "In Paris, the sun sets at 4:53 PM tomorrow."),
        ("when is sunrise", "In Paris, the sun rose at 8:30 AM today."),  # before noon: said as past
        ("what time does the sun come up tomorrow", "In Paris, the sun rises at 8:31 AM tomorrow."),
        ("when does it get dark", "In Paris, the sun sets at 4:53 PM today."),
        # the LLM's
        ("what is sunset boulevard", None),
        ("why is the sunset red", None),
    ],
)
def test_the_sun_for_the_time_zones_city(zone, asked, says):
    """Asked when the sun sets, the LLM said "The sun sets at 12:30pm today, ..."."""
    zone("Europe/Paris")
    assert clock.local_zone() == "Europe/Paris"
    assert sky.answer(asked, NOON) == says


def test_a_zone_of_no_city_is_told_so_and_the_polar_night_said(zone):
    zone("Etc/UTC")
    assert sky.answer("when does the sun set", NOON).startswith(
        "I don't know where you are: your computer's time zone (Etc/UTC) has no city to go by."
    )
    zone("America/New_York")  # ISO 6709 with seconds in zone.tab: +404251-0740023
    assert sky.answer("when does the sun rise", NOON) == "In New York, the sun rose at 7:06 AM today."
    zone("Arctic/Longyearbyen")
    assert sky.answer("when does the sun rise", NOON) == "In Longyearbyen, the sun does not rise today."


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # asked at noon in Paris on December 7, 2026: 8 PM in Tokyo, 10 PM in Sydney, 6 AM in New York
        ("when does the sun set in tokyo", "In Tokyo, the sun set at 4:27 PM local time today."),
        ("when is sunset in sydney", "In Sydney, the sun set at 7:55 PM local time today."),
        (
            "what time is sunrise in new york tomorrow",
            "In New York City, the sun rises at 7:07 AM local time tomorrow.",
        ),
        ("when does the sun rise in reykjavik", "In Reykjavík, the sun rises at 11:01 AM local time today."),
        (
            "when does the sun set in france",  # a country: its capital
            "In Paris, the capital of France, the sun sets at 4:53 PM local time today.",
        ),
        ("when does the sun rise in murmansk", "In Murmansk, the sun does not rise today."),  # polar night
        # no place GeoNames knows: the LLM's
        ("when does the sun set in narnia", None),
        ("when does the sun set in the evening", None),
    ],
)
def test_the_sun_at_a_place_named(zone, asked, says):
    zone("Europe/Paris")
    assert sky.answer(asked, NOON) == says


@pytest.mark.parametrize(
    ("day", "asked", "says"),
    [
        # full moons of 2025-01-13, 2025-02-12 and 2026-12-24; a new moon of 2025-01-29
        (
            datetime(2026, 12, 7),
            "what's the moon phase tonight",
            "The moon is a waning crescent tonight; the next full moon is on Thursday, December 24, 2026.",
        ),
        (datetime(2025, 1, 13), "what phase is the moon", "The moon is full tonight."),
        (datetime(2025, 1, 13), "what's the moon face tonight", "The moon is full tonight."),  # as heard
        (
            datetime(2025, 1, 29),
            "is it a full moon tonight",
            "No: it's a new moon tonight; the next full moon is on Wednesday, February 12, 2025.",
        ),
        (datetime(2025, 1, 13), "is it a full moon tonight", "Yes: the moon is full tonight."),
        (datetime(2025, 1, 13), "when is the next full moon", "The next full moon is tonight."),
        (
            datetime(2026, 12, 1),
            "when is the next full moon",
            "The next full moon is on Thursday, December 24, 2026.",
        ),
    ],
)
def test_the_moons_phase(day, asked, says):
    """Asked the moon's phase on a waning crescent, the LLM said "The moon is currently in the gibbous
    phase, which means it's about to be full."."""
    assert sky.answer(asked, day) == says
