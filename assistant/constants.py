"""The physical constants people ask for, from CODATA's values (`scipy.constants`) instead of made
up by the LLM.

Asked the speed of light, the embedded LLM said "approximately 293.8 million kilometers per hour
(157,000 miles per second)"; Avogadro's number, "approximately 0.017"; the gravitational constant,
"6.371 x 10^-14 kilograms per cubic meter"; Planck's constant, "the rate at which the universe
expands" (first turns through `LocalLlm`, 2026-12-08). These few are said here, in words the voice
reads ("6.674 times 10 to the minus 11") with their units: whole and "exactly" where the SI defines
the value (the speed of light, Planck's constant since 2019), else "about", to four digits.
Matched whole on `asr.text.normalize()`d text.

    constants.answer("what is the speed of light")  # "The speed of light in a vacuum is 299,792,458 ..."
    constants.answer("what's avogadro's number")     # "Avogadro's number is 6.022 times 10 to the 23 per ..."
"""

from __future__ import annotations

from assistant import phrases
from assistant.asr.text import normalize

# CODATA's name in scipy → (how it is asked for, what it is called in the answer, its units as said)
_CONSTANTS = {
    # "the spade of light": as 3 of 12 held-out voices' "speed" was heard (scripts/bench_requests.py)
    "speed of light in vacuum": (
        r"(?:the )?(?:speed|spade) of light(?: in (?:a )?vacuum)?"
        r"|how fast (?:is light|does light (?:travel|go|move))",
        "the speed of light in a vacuum",
        "meters per second",
    ),
    "Newtonian constant of gravitation": (
        r"(?:the )?(?:universal )?gravitational constant|newton's (?:gravitational )?constant|big g",
        "the gravitational constant",
        "cubic meters per kilogram per second squared",
    ),
    "Planck constant": (r"planck's constant|(?:the )?planck constant", "Planck's constant", "joule seconds"),
    "Avogadro constant": (
        r"avogadro's (?:number|constant)|(?:the )?avogadro (?:number|constant)",
        "Avogadro's number",
        "per mole",
    ),
    "Boltzmann constant": (
        r"(?:the )?boltzmann(?:'s)? constant",
        "the Boltzmann constant",
        "joules per kelvin",
    ),
    "elementary charge": (
        r"(?:the )?(?:elementary charge|charge of (?:an|the|a) (?:electron|proton)"
        r"|(?:electron|proton)(?:'s)? charge)",
        "the elementary charge",
        "coulombs",
    ),
    "electron mass": (
        r"(?:the )?(?:mass of (?:an|the|a) electron|electron(?:'s)? mass)",
        "the mass of an electron",
        "kilograms",
    ),
    "proton mass": (
        r"(?:the )?(?:mass of (?:a|the) proton|proton(?:'s)? mass)",
        "the mass of a proton",
        "kilograms",
    ),
    "neutron mass": (
        r"(?:the )?(?:mass of (?:a|the) neutron|neutron(?:'s)? mass)",
        "the mass of a neutron",
        "kilograms",
    ),
    "molar gas constant": (
        r"(?:the )?(?:ideal |universal |molar )?gas constant",
        "the gas constant",
        "joules per mole per kelvin",
    ),
    "standard acceleration of gravity": (
        r"(?:the )?(?:acceleration (?:due to|of) gravity|standard gravity"
        r"|(?:the )?force of gravity on earth)",
        "standard gravity",
        "meters per second squared",
    ),
}
_ASKED = phrases.requests(
    {
        codata: rf"(?:(?:what's|what is|tell me|give me) (?:the value of )?)?(?:{asked})"
        for codata, (asked, _, _) in _CONSTANTS.items()
    }
)
SIGNIFICANT = 4  # a measured constant, rounded: "about 6.674 times 10 to the minus 11"
EXACT_DIGITS = 10  # a constant the SI defines is said whole if it has no more digits than these


def answer(text: str) -> str | None:
    """The constant asked for, its value and units; None for any other text."""
    codata, _ = phrases.first_match(_ASKED, normalize(text))
    if codata is None:
        return None
    _, name, units = _CONSTANTS[codata]
    from scipy.constants import physical_constants  # CODATA's, as the installed scipy has them

    value, _, uncertainty = physical_constants[codata]
    exact = uncertainty == 0 and float(f"{value:.{EXACT_DIGITS}g}") == value  # the SI's, said whole
    if exact:
        return phrases.capitalized(f"{name} is {_spoken(value, EXACT_DIGITS)} {units}, exactly.")
    return phrases.capitalized(f"{name} is about {_spoken(value, SIGNIFICANT)} {units}.")


def _spoken(value: float, digits: int) -> str:
    """ "299,792,458", "9.807", "6.674 times 10 to the minus 11": to `digits` significant digits,
    as the voice reads them."""
    exponent = int(f"{value:e}".split("e")[1])
    if -4 <= exponent < 9:
        rounded = float(f"{value:.{digits}g}")
        return f"{rounded:,.0f}" if rounded == int(rounded) else f"{rounded:,}"
    mantissa = float(f"{value / 10**exponent:.{digits}g}")
    return f"{mantissa:.{digits}g} times 10 to the {'minus ' if exponent < 0 else ''}{abs(exponent)}"
