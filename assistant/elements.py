"""The chemical elements: symbols, atomic numbers and weights, from the periodic table's own data
(`periodictable`: NIST's atomic weights) instead of made up by the LLM.

Asked what element number 79 is, the embedded LLM said "a chemical compound called sodium"; the
atomic weight of oxygen, "32"; how many elements there are, "There are 10 in total." (first turns
through `LocalLlm`, 2026-12-07). Matched whole on the recognizer's words with the numbers in digits
(`arithmetic.in_digits`), as the sums are. A symbol is said letter by letter ("Au" alone the voice
reads "oh"), and may be heard so: "what element is f e".

    elements.answer("what's the symbol for gold")  # "The chemical symbol for gold is Au, spelled A, U."
    elements.answer("what element is fe")         # "Fe is iron, element number 26."
    elements.answer("what is element number 79")  # "Element number 79 is gold, symbol Au, spelled A, U."
"""

from __future__ import annotations

import functools
import re

from assistant import phrases
from assistant.arithmetic import in_digits

# the British spellings, which periodictable (American) does not know
_ALSO_CALLED = {"aluminium": "aluminum", "caesium": "cesium", "sulphur": "sulfur"}
_ELEMENT = r"(?:the element |an? )?(?P<name>[a-z]+)(?: atom)?"
# "fe", or heard letter by letter: "f e"; or a name ("what element is gold")
_SYMBOL = r"(?P<symbol>[a-z](?: [a-z]){0,2}|[a-z]+)"
# "seventy nine" heard "seventeen nine" by 6 of 12 held-out voices (scripts/bench_requests.py,
# 2026-12-08): a teen then a digit is read as the tens it sounds like (`_number`)
_NUMBER = r"(?P<number>\d+)(?: (?P<ones>\d))?"
# "symbol" heard "simple" ("what's the chemical simple for gold", an espeak-ng voice through
# `scripts/bench_e2e.py`, 2026-12-08): after "chemical", nothing else is asked so
_SYMBOL_WORD = r"(?:(?:chemical |atomic |element )?symbol|chemical simple)"
_TABLE = r"(?: (?:on|in) the periodic table)?"
# kind → pattern; "kind/way": another way to ask it (`phrases.requests`)
_PATTERNS = phrases.requests(
    {
        "symbol": rf"(?:what's|what is|tell me) (?:the )?{_SYMBOL_WORD} (?:for|of)"
        rf" {_ELEMENT}",
        "symbol/its": rf"(?:what's|what is) {_ELEMENT}'s {_SYMBOL_WORD}",
        "number": rf"(?:what's|what is|tell me) (?:the )?atomic number (?:for|of) {_ELEMENT}",
        "number/its": rf"(?:what's|what is) {_ELEMENT}'s atomic number",
        "number/table": rf"what number is {_ELEMENT}{_TABLE}",
        "weight": rf"(?:what's|what is|tell me) (?:the )?(?:standard )?atomic (?:weight|mass) (?:for|of)"
        rf" {_ELEMENT}",
        "weight/its": rf"(?:what's|what is) {_ELEMENT}'s atomic (?:weight|mass)",
        "by number": rf"(?:what|which) element (?:is|has) (?:the )?(?:atomic )?number {_NUMBER}{_TABLE}",
        "by number/element": rf"(?:what's|what is) element (?:number )?{_NUMBER}",
        "by number/is": rf"(?:what|which) element is {_NUMBER}{_TABLE}",
        "by symbol": rf"(?:what|which) element (?:is|has the (?:chemical )?symbol|has the letters?) {_SYMBOL}"
        rf"{_TABLE}",
        "by symbol/its": rf"(?:what|which) element's symbol is {_SYMBOL}",
        "by symbol/table": rf"(?:what's|what is) {_SYMBOL} (?:on|in) the periodic table",  # not "what is he"
        "count": r"how many (?:chemical )?elements (?:are there|are in the periodic table|are on the periodic"
        r" table|does the periodic table have|are known|are there in the periodic table)",
    }
)


def answer(text: str) -> str | None:
    """The answer to a question about a chemical element; None for any other text (or an element
    there is not: "what's the symbol for love")."""
    kind, m = phrases.first_match(_PATTERNS, in_digits(text))
    if kind is None:
        return None
    table = periodic_table()
    if kind == "count":
        return f"There are {len(table)} known elements, from {table[1].name} to {table[len(table)].name}."
    if kind == "by number":
        number = _number(m)
        if number is None:
            return None
        if number not in table:
            return f"There is no element number {number}: they run from 1, {table[1].name}, to {len(table)}."
        element = table[number]
        return f"Element number {number} is {element.name}, symbol {_spelled(element.symbol)}."
    if kind == "by symbol":
        said = m["symbol"].replace(" ", "")
        if (element := _by_symbol().get(said)) is not None:
            return f"{element.symbol} is {element.name}, element number {element.number}."
        if (element := _by_name().get(said)) is not None:
            return (
                f"{said.capitalize()} is element number {element.number}, symbol {_spelled(element.symbol)}."
            )
        return None
    element = _by_name().get(m["name"])
    if element is None:
        return None
    if kind == "symbol":
        return f"The chemical symbol for {m['name']} is {_spelled(element.symbol)}."
    if kind == "number":
        return f"The atomic number of {m['name']} is {element.number}."
    if element.mass == round(element.mass):  # periodictable's mass of an element with no stable isotope
        return (
            f"{m['name'].capitalize()} has no stable isotope: its longest-lived one has a mass of about"
            f" {round(element.mass)}."
        )
    return f"The atomic weight of {m['name']} is {round(element.mass, 3):g}."  # 132.905, not 132.90545196


def _number(m: re.Match) -> int | None:
    """ "79"; "17 9" (heard for "seventy nine") → 79; None for two numbers said otherwise ("20 5")."""
    number = int(m["number"])
    if m["ones"] is None:
        return number
    return (number - 10) * 10 + int(m["ones"]) if 13 <= number <= 19 else None


def _spelled(symbol: str) -> str:
    """ "Au, spelled A, U": the voice reads "Au" as "oh", "Fe" as "fee"; one letter needs no spelling."""
    return symbol if len(symbol) == 1 else f"{symbol}, spelled {', '.join(symbol.upper())}"


@functools.cache
def periodic_table() -> dict:
    """Atomic number → periodictable's element, 1 (hydrogen) to 118 (oganesson); its free neutron,
    number 0, is not an element."""
    import periodictable

    return {element.number: element for element in periodictable.elements if element.number}


@functools.cache
def _by_name() -> dict:
    names = {element.name: element for element in periodic_table().values()}
    return names | {british: names[american] for british, american in _ALSO_CALLED.items()}


@functools.cache
def _by_symbol() -> dict:
    return {element.symbol.lower(): element for element in periodic_table().values()}
