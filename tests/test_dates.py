"""Days other than today, from the calendar: what is asked, and what is said (at a fixed moment)."""

from datetime import datetime

import pytest

from assistant import dates

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
        # no day named: the LLM's
        ("what day is my birthday", None),
        ("how many days until my birthday", None),
        ("what day is may", None),
        ("how many days are there in a year", None),
    ],
)
def test_days_are_read_from_the_calendar(asked, says):
    assert dates.answer(asked, NOW) == says
