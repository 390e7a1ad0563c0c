"""Units converted, not guessed by the LLM: "how many kilometers in five miles", "convert three
hundred and fifty fahrenheit to celsius".

The embedded model's conversions were made up (README, "Answers without the LLM"). So a question
that is only a conversion is worked out with pint's unit registry, which knows the units by their
names and plurals ("miles", "fluid ounces", "miles per hour", "square feet"). Numbers arrive as the
recognizer spells them and are read back by `arithmetic.in_digits`. Temperatures are said by their
scale's name ("fahrenheit", "degrees celsius", "kelvin"); "degrees" alone beside one of them is the
other scale ("twenty degrees in fahrenheit": from celsius). Ounces beside a volume are fluid ounces
("how many ounces in a cup": 8); "5 foot 10" and "6 pounds 4 ounces" are one amount (`_COMPOUND`).

    units.answer("how many kilometers in five miles")   # "5 miles is about 8.047 kilometers."
    units.answer("how many feet in a mile")            # "A mile is 5280 feet."
"""

from __future__ import annotations

import calendar
import functools
import re
from datetime import date

from assistant.arithmetic import in_digits, spoken_number
from assistant.phrases import LEAD_IN

SIGNIFICANT = 4  # a conversion is said to four digits: "about 8.047 kilometers"
# By name, not through pint: "centigrade" is a hundredth of a grade (an angle) there, and the
# temperature scales are offset units that must not be multiplied.
_SCALES = {"celsius": "degC", "centigrade": "degC", "fahrenheit": "degF", "kelvin": "kelvin"}
_SCALE_NAMES = {"degC": "degrees celsius", "degF": "degrees fahrenheit", "kelvin": "kelvin"}
_NUMBER = r"(?:\d+(?:\.\d+)?|a|an|one)"
_UNIT = r"[a-z][a-z ]*?"
_CONVERT = re.compile(
    rf"{LEAD_IN}(?:"
    rf"(?:convert|change|turn) (?P<n1>{_NUMBER}) (?P<from1>{_UNIT}) (?:to|into|in) (?P<to1>{_UNIT})"
    # "how" may be lost, as the recognizer may lose the first word of an utterance (timer_requests.py)
    rf"|(?:how )?many (?P<to2>{_UNIT}) (?:are |is )?(?:there )?(?:in|to) (?P<n2>{_NUMBER}) (?P<from2>{_UNIT})"
    rf"|(?:how )?many (?P<to3>{_UNIT}) (?:is|are|make) (?P<n3>{_NUMBER}) (?P<from3>{_UNIT})"
    rf"|(?:what is |what's |how much is |how tall is |how heavy is )?(?P<n4>{_NUMBER}) (?P<from4>{_UNIT})"
    rf" (?:in|to|into|as) (?P<to4>{_UNIT})"
    r")(?: please)?"
)


# "5 foot 10", "6 pounds 4 ounces", "11 stone 4": two units of one measure, the smaller one's name
# often left out; read as the smaller unit alone ("70 inches"), said back as asked
_SMALLER = {"feet": "inches", "foot": "inches", "pounds": "ounces", "pound": "ounces", "stone": "pounds"}
_PER = {"inches": 12, "ounces": 16, "pounds": 14}
_COMPOUND = re.compile(
    rf"\b(?P<a>\d+) (?P<big>{'|'.join(_SMALLER)})(?: and)? (?P<b>\d+(?:\.\d+)?)"
    r"(?: (?P<small>inches|inch|ounces|ounce|pounds|pound))?\b"
)


@functools.cache
def registry():
    """pint's unit registry, built once (0.3 s here): the pipeline builds it at its open. pint is
    imported here and where its errors are caught, not with this module: the commands that never
    convert (`transcribe`, `say`) do not pay for it."""
    import pint

    ureg = pint.UnitRegistry()
    ureg.define("ten_years = 10 * year")  # pint's "decade" is a ratio (a factor of ten): "decade" says this
    return ureg


def answer(text: str) -> str | None:
    """ "<amount> is <amount in the other unit>." for a question that is only a conversion; None for
    any other text, and for units pint does not know (that question is the LLM's)."""
    said = in_digits(text)
    shown = None  # "5 feet 10 inches", for "5 foot 10" read as "70 inches"
    if compound := _COMPOUND.search(said):
        small = _SMALLER[compound["big"]]
        if (compound["small"] or small).rstrip("s") != small.rstrip("s"):
            return None  # "5 feet 10 ounces": not one measure
        big = "feet" if small == "inches" else compound["big"]
        total = int(compound["a"]) * _PER[small] + float(compound["b"])
        shown = f"{compound['a']} {big} {compound['b']} {small}"
        said = said.replace(compound[0], f"{spoken_number(total)} {small}")
    match = _CONVERT.fullmatch(said)
    if match is None:
        return None
    n, source, target = (
        next(match[f"{key}{i}"] for i in range(1, 5) if match[f"{key}{i}"]) for key in ("n", "from", "to")
    )
    source_unit, target_unit = _units(source, target)
    if source_unit is None or target_unit is None:
        return None
    if n in ("a", "an", "one") and (by_calendar := _calendar(source_unit, target_unit, target)):
        return by_calendar
    import pint

    amount = 1.0 if n in ("a", "an", "one") else float(n)
    try:
        value = registry().Quantity(amount, source_unit).to(target_unit).magnitude
    except pint.DimensionalityError:
        # "how many ounces in a cup": fluid ounces, as a volume is measured in the kitchen
        fluid = [u.replace("ounce", "fluid_ounce") for u in (source_unit, target_unit)]
        try:
            value = registry().Quantity(amount, fluid[0]).to(fluid[1]).magnitude
        except pint.DimensionalityError:
            return f"I can't turn {n} {source} into {target}: they measure different things."
        source_unit, target_unit = fluid
        source, target = (re.sub(r"\bounces?\b", r"fluid \g<0>", w) for w in (source, target))
    # a temperature by its scale's full name: "20 degrees" was celsius, and is said so
    source, target = _SCALE_NAMES.get(source_unit, source), _SCALE_NAMES.get(target_unit, target)
    asked = shown or f"{n} {source}"
    return f"{asked[0].upper()}{asked[1:]} is {spoken_number(value, SIGNIFICANT)} {target}."


def _calendar(source_unit: str, target_unit: str, target: str) -> str | None:
    """ "A year is 365 days; a leap year, 366." for a calendar's year or month in days or less (pint's
    are the mean ones: "A year is about 365.2 days.", "A month is about 30.44 days."); None for any
    other pair of units."""
    if source_unit not in ("year", "month") or target_unit not in ("second", "minute", "hour", "day", "week"):
        return None
    per_day = registry().Quantity(1, "day").to(target_unit).magnitude

    def said(days: int, unit: bool = True) -> str:
        if target_unit == "week":  # "52 weeks and 1 day"
            weeks, rest = divmod(days, 7)
            return f"{weeks} weeks" + (f" and {rest} day{'s' * (rest != 1)}" if rest else "")
        return spoken_number(days * per_day) + f" {target}" * unit

    if source_unit == "year":
        return f"A year is {said(365)}; a leap year, {said(366, unit=False)}."
    today = date.today()
    days = calendar.monthrange(today.year, today.month)[1]
    shortest = "4 weeks and 0" if target_unit == "week" else said(28, unit=False)  # "4 weeks and 0 to 3 days"
    longest = "3 days" if target_unit == "week" else said(31)
    return f"A month is {shortest} to {longest}; this one, {today:%B}, has {said(days, unit=False)}."


def _units(source: str, target: str) -> tuple[str | None, str | None]:
    """pint's names for the two units said, None for one it does not know."""
    scales = [_scale(source), _scale(target)]
    if scales[0] and not scales[1] and re.fullmatch(r"degrees?", target):  # "... fahrenheit in degrees"
        scales[1] = "degC" if scales[0] == "degF" else "degF"
    if scales[1] and not scales[0] and re.fullmatch(r"degrees?", source):  # "20 degrees in fahrenheit"
        scales[0] = "degC" if scales[1] == "degF" else "degF"
    return scales[0] or _unit(source), scales[1] or _unit(target)


def _scale(words: str) -> str | None:
    return _SCALES.get(re.sub(r"^degrees? ", "", words))


def _unit(words: str) -> str | None:
    """pint's unit for words such as "miles", "fluid ounces", "miles per hour", "square feet"."""
    import pint

    ureg = registry()
    if words in ("a", "an", "per"):  # pint reads "a" as a year (annum)
        return None
    if words in ("decade", "decades"):
        return "ten_years"
    try:
        return str(ureg.parse_units(words.replace(" per ", "/").replace(" ", "_")))
    except (pint.UndefinedUnitError, ValueError, AttributeError, TypeError):
        pass
    try:
        quantity = ureg.parse_expression(words.replace(" per ", "/"))
    except (
        pint.UndefinedUnitError,
        pint.DimensionalityError,
        ValueError,
        AttributeError,
        TypeError,
        SyntaxError,
    ):
        return None
    if not isinstance(quantity, ureg.Quantity) or quantity.magnitude != 1 or quantity.dimensionless:
        return None
    return str(quantity.units)
