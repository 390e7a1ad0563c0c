"""Physical constants from CODATA's values (scipy.constants), said in words the voice reads."""

import pytest

from assistant import constants


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # the LLM: "approximately 293.8 million kilometers per hour (157,000 miles per second)"
        (
            "What is the speed of light?",
            "The speed of light in a vacuum is 299,792,458 meters per second, exactly.",
        ),
        (
            "how fast does light travel",
            "The speed of light in a vacuum is 299,792,458 meters per second, exactly.",
        ),
        (
            "what is the spade of light",  # as held-out voices' "speed" was heard
            "The speed of light in a vacuum is 299,792,458 meters per second, exactly.",
        ),
        # the LLM: "approximately 0.017"
        (
            "What's Avogadro's number?",
            "Avogadro's number is 6.02214076 times 10 to the 23 per mole, exactly.",
        ),
        # the LLM: "6.371 x 10^-14 kilograms per cubic meter"; measured, so rounded
        (
            "What is the gravitational constant?",
            "The gravitational constant is about 6.674 times 10 to the minus 11 cubic meters per kilogram per"
            " second squared.",
        ),
        (
            "what's planck's constant",
            "Planck's constant is 6.62607015 times 10 to the minus 34 joule seconds, exactly.",
        ),
        (
            "what is the charge of an electron",
            "The elementary charge is 1.602176634 times 10 to the minus 19 coulombs, exactly.",
        ),
        (
            "what is the mass of an electron",
            "The mass of an electron is about 9.109 times 10 to the minus 31 kilograms.",
        ),
        (
            "what's the acceleration due to gravity",
            "Standard gravity is 9.80665 meters per second squared, exactly.",
        ),
        (
            "what is the gas constant",  # 8.31446261815324
            "The gas constant is about 8.314 joules per mole per kelvin.",
        ),
        # not one of these: the LLM's
        ("what is the speed of sound", None),
        ("what is the speed of light in miles per hour", None),
        ("why is the speed of light constant", None),
    ],
)
def test_a_constant_is_codatas(asked, says):
    assert constants.answer(asked) == says
