"""Conversions worked out with pint, not guessed: what is asked (as the recognizer spells it) and said."""

import calendar
from datetime import date

import pytest

from assistant import units


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # the LLM's: "five miles * 5 kilometers = five miles", "... 1 cuccalar = 283.56 liters"
        ("how many kilometers in five miles", "5 miles is about 8.047 kilometers."),
        ("How many cups in a gallon?", "A gallon is 16 cups."),
        ("how many feet in a mile", "A mile is 5280 feet."),
        ("many feet in a mile", "A mile is 5280 feet."),  # "how" lost by the recognizer
        ("what is 6 feet in meters", "6 feet is about 1.829 meters."),
        ("How many meters is five feet?", "5 feet is 1.524 meters."),
        ("what is one hundred kilograms in pounds", "100 kilograms is about 220.5 pounds."),
        ("convert 1 fluid ounce to milliliters", "1 fluid ounce is about 29.57 milliliters."),
        ("what is 60 miles per hour in kilometers per hour",
         "60 miles per hour is about 96.56 kilometers per hour."),
        ("how many square feet in an acre", "An acre is about 43560 square feet."),
        ("how many years in a decade", "A decade is 10 years."),  # pint's "decade" is a ratio
        ("how many bits in a byte", "A byte is 8 bits."),
        # temperatures: offset scales, named in full; "degrees" alone is the other scale
        ("convert three hundred and fifty fahrenheit to celsius",
         "350 degrees fahrenheit is about 176.7 degrees celsius."),
        ("What is 20 degrees in fahrenheit?", "20 degrees celsius is 68 degrees fahrenheit."),
        ("what's 300 kelvin in celsius", "300 kelvin is 26.85 degrees celsius."),
        ("convert 5 miles to kilograms",
         "I can't turn 5 miles into kilograms: they measure different things."),
        ("how many hours in a mile", "I can't turn a mile into hours: they measure different things."),
        # two units of one measure, as heights and weights are said (the LLM's before)
        ("what is five foot ten in centimeters", "5 feet 10 inches is 177.8 centimeters."),
        ("how many centimeters in 6 feet 2 inches", "6 feet 2 inches is about 188 centimeters."),
        ("what is 6 pounds 4 ounces in kilograms", "6 pounds 4 ounces is about 2.835 kilograms."),
        ("what is eleven stone four in kilograms", "11 stone 4 pounds is about 71.67 kilograms."),
        ("what is 5 feet 10 ounces in grams", None),
        # ounces of a volume are fluid ounces (was "I can't turn a cup into ounces")
        ("how many ounces in a cup", "A cup is 8 fluid ounces."),
        ("how many ounces in a pound", "A pound is 16 ounces."),
        ("how many ounces in a meter", "I can't turn a meter into ounces: they measure different things."),
        # the LLM's: not units pint knows, or not a conversion
        ("how many people are in a family", None),
        ("how many calories in an apple", None),
        ("what is 5 apples in oranges", None),
        ("how many miles to london", None),
        ("what is the capital of france", None),
    ],
)  # fmt: skip
def test_conversions_are_worked_out(asked, says):
    assert units.answer(asked) == says


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # pint's year and month are the mean ones: "A year is about 365.2 days.", "about 30.44 days"
        ("How many days are in a year?", "A year is 365 days; a leap year, 366."),
        ("how many weeks in a year", "A year is 52 weeks and 1 day; a leap year, 52 weeks and 2 days."),
        ("how many hours in a year", "A year is 8760 hours; a leap year, 8784."),
        ("how many days in a leap year", "A leap year is 366 days."),
        ("how many months in a year", "A year is 12 months."),
        ("how many days in two years", "2 years is 730.5 days."),  # an amount: the mean, as pint has it
    ],
)
def test_a_year_is_the_calendars(asked, says):
    assert units.answer(asked) == says


def test_a_month_is_the_calendars_and_this_one_is_said():
    today = date.today()
    days = calendar.monthrange(today.year, today.month)[1]
    assert units.answer("how many days in a month") == (
        f"A month is 28 to 31 days; this one, {today:%B}, has {days}."
    )
    weeks = "4 weeks" + (f" and {days - 28} days" if days > 29 else " and 1 day" if days == 29 else "")
    assert units.answer("how many weeks are in a month") == (
        f"A month is 4 weeks and 0 to 3 days; this one, {today:%B}, has {weeks}."
    )
