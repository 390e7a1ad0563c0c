"""Days other than today, from the calendar: what is asked, and what is said (at a fixed moment)."""

from datetime import datetime

import pytest

from assistant import about_you, dates

NOW = datetime(2026, 12, 6, 19, 0)  # a Sunday


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # the LLM said "How many days until Christmas?" back, and "it's december 25th" for its weekday
        ("How many days until Christmas?", "19 days: it's Friday, December 25, 2026."),
        ("many days until christmas", "19 days: it's Friday, December 25, 2026."),  # "how" lost
        ("how many days till new year's day", "26 days: it's Friday, January 1, 2027."),
        ("how many days since halloween", "36 days ago: it was Saturday, October 31, 2026."),
        ("how many days until friday", "5 days: it's Friday, December 11, 2026."),
        ("What day is December 25th?", "It's Friday, December 25, 2026."),
        ("what day is december twenty fifth", "It's Friday, December 25, 2026."),
        ("What day of the week is the fourth of july twenty twenty seven?", "It's Sunday, July 4, 2027."),
        (
            "which day was the twenty fifth of december twenty twenty five",
            "It was Thursday, December 25, 2025.",
        ),
        ("what day is it tomorrow", "It's Monday, December 7, 2026."),
        ("what day was yesterday", "It was Saturday, December 5, 2026."),
        ("what's the date in three days", "It's Wednesday, December 9, 2026."),
        ("what is the date next friday", "It's Friday, December 11, 2026."),
        ("what day is a week from today", "It's Sunday, December 13, 2026."),  # dateparser: a week ago
        ("what day is christmas on", "It's Friday, December 25, 2026."),
        ("what day is it today", "It's Sunday, December 6, 2026."),  # (the clock answers it first)
        # holidays that move, "when is", weeks, a year said
        ("when is thanksgiving", "It's Thursday, November 25, 2027."),  # this year's was November 26
        ("when was thanksgiving this year", "It was Thursday, November 26, 2026."),
        ("When is Easter?", "It's Sunday, March 28, 2027."),
        ("when was easter", "It was Sunday, April 5, 2026."),
        ("when is mother's day", "It's Sunday, May 9, 2027."),
        ("what day is labor day next year", "It's Monday, September 6, 2027."),
        ("when is memorial day", "It's Monday, May 31, 2027."),
        ("when is new year's eve", "It's Thursday, December 31, 2026."),
        ("how many weeks until christmas", "2 weeks and 5 days: it's Friday, December 25, 2026."),
        ("how many weeks until easter", "16 weeks: it's Sunday, March 28, 2027."),
        ("when is my alarm", None),  # timers.py's
        ("when is the party", None),
        # the birthday not told yet: asked for (about_you.py keeps it; the LLM said "I am not equipped")
        ("what day is my birthday", about_you.UNKNOWN_BIRTHDAY),
        ("how many days until my birthday", about_you.UNKNOWN_BIRTHDAY),
        # no day named: the LLM's
        ("what day is may", None),
        ("how many days are there in a year", None),
    ],
)
def test_days_are_read_from_the_calendar(asked, says):
    assert dates.answer(asked, NOW) == says


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # the LLM: "The year is 2024, so it's 13 days.", "... so it's 13 weeks of the year."
        (
            "How many days are left in the year?",
            "25 days after today: 2026 ends on Thursday, December 31, 2026.",
        ),
        ("what week of the year is it", "It's week 49 of 2026."),  # ISO weeks: Monday to Sunday
        ("what week is it", "It's week 49 of 2026."),
        ("what day of the year is it", "It's day 340 of 2026."),
        # the LLM: "February has 29 days in total.", "February is the 28th day of a year."
        ("is it a leap year", "No, 2026 is not a leap year; the next is 2028."),
        ("is it leap year", "No, 2026 is not a leap year; the next is 2028."),
        ("Is 2028 a leap year?", "Yes, 2028 is a leap year: February has 29 days."),
        ("is next year a leap year", "No, 2027 is not a leap year; the next is 2028."),
        ("how many days are in february", "February 2027 has 28 days."),  # the coming one
        ("how many days in february twenty twenty eight", "February 2028 has 29 days."),
        ("how many days does april have", "April 2027 has 30 days."),
        ("how many days are in this month", "December 2026 has 31 days."),
        ("how many days are in a week", None),  # the LLM's
    ],
)
def test_the_calendar_itself(asked, says):
    assert dates.answer(asked, NOW) == says


def test_the_last_day_of_the_year_has_none_left():
    assert dates.answer("how many days are left in the year", datetime(2026, 12, 31, 9)) == (
        "Today is the last day of 2026."
    )


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # the LLM: "1969 was 20 years ago.", "1990 is 3 years and 2 months old.", "2108"
        ("How many years ago was nineteen sixty nine?", "1969 was 57 years ago."),
        ("how old is someone born in 1990", "Someone born in 1990 turns 36 in 2026, on their birthday."),
        ("how old am I if I was born in nineteen eighty five", "You turn 41 in 2026, on your birthday."),
        ("what year will it be in ten years", "It will be 2036."),
        ("what year was it twenty years ago", "It was 2006."),
        ("how many years until twenty thirty", "2030 is 4 years away."),
        # the LLM: "There are 12 months and 30 days in a leap year, ..."
        (
            "how many days between march first and april fifteenth",
            "45 days, from Monday, March 1, 2027 to Thursday, April 15, 2027.",
        ),
        (
            "how many days between now and christmas",
            "19 days, from Sunday, December 6, 2026 to Friday, December 25, 2026.",
        ),
        # the LLM: "Five minutes until five pm."
        ("how long until five pm", "22 hours, until 5:00 PM tomorrow."),
        ("how many minutes until nine thirty tonight", "2 hours and 30 minutes, until 9:30 PM."),
        ("how long until midnight", "5 hours, until 12:00 AM tomorrow."),
        ("how long until christmas", "19 days: it's Friday, December 25, 2026."),
        ("how much time until friday", "5 days: it's Friday, December 11, 2026."),
        ("what time will it be in three hours", "It will be 10:00 PM."),
        ("what time is it in six hours", "It will be 1:00 AM on Monday."),
        ("what time was it forty five minutes ago", "It was 6:15 PM."),
        ("what time will it be in london", None),  # clock.py's
        # the timers' or the LLM's
        ("how long until my alarm", None),
        ("how long until the pasta is done", None),
        ("how old is someone born in 2030", None),
        ("how many years ago was the moon landing", None),
    ],
)
def test_years_spans_and_how_long_until(asked, says):
    assert dates.answer(asked, NOW) == says


def test_a_birthday_the_user_told_is_a_day_to_count_to():
    assert dates.answer("how many days until my birthday", NOW, birthday="03-03") == (
        "87 days: it's Wednesday, March 3, 2027."
    )
    assert dates.answer("what day is my birthday", NOW, birthday="12-25") == "It's Friday, December 25, 2026."
