"""Chance by voice: "flip a coin", "roll a die", "roll two dice", "pick a number between one and ten".

Asked to flip a coin, the embedded LLM said "The coin is flipped." and, asked again, "Flipping a
coin results in an even number."; asked for a number between one and ten, "One and ten". So these
are drawn here, from Python's `random` (seeded by the operating system), and said plainly. Matched
whole on the recognizer's words with the numbers in digits (`arithmetic.in_digits`), as the sums
are.

    chance.answer("flip a coin")                          # "Heads."
    chance.answer("roll two dice")                        # "You rolled 3 and 5: 8."
    chance.answer("pick a number between one and ten")   # "7."
"""

from __future__ import annotations

import random

from assistant import phrases
from assistant.arithmetic import in_digits
from assistant.phrases import listed

MAX_DICE = 10  # "roll 50 dice" is not a roll to read out
MAX_SIDES = 1000
_COUNT = {"a": 1, "one": 1, "the": 1, "two": 2, "a pair of": 2, "three": 3}  # as said before digits came
_PATTERNS = {
    "coin": r"(?:flip|toss) (?:a |the )?coin|heads or tails|coin (?:flip|toss)",
    "dice": r"roll (?P<count>a pair of|a|the|one|two|three|\d+)(?: (?P<sides>\d+) sided)? (?:die|dice)"
    r"|roll (?:a |the )?d ?(?P<d>\d+)|roll the dice|roll dice",
    "number": r"(?:pick|choose|give me|tell me|say) (?:me )?(?:a )?(?:random )?number"
    r"(?: (?:between|from) (?P<low>-?\d+) (?:and|to) (?P<high>-?\d+))?",
}
_REQUESTS = phrases.requests(_PATTERNS, tail=r"(?: for me)?(?: please)?")
NUMBER_RANGE = (1, 100)  # "pick a number", with no range said


def answer(text: str, rng: random.Random | None = None) -> str | None:
    """A coin flipped, dice rolled or a number picked, as asked; None for any other text."""
    said = in_digits(text)
    kind, m = phrases.first_match(_REQUESTS, said)
    if kind is None:
        return None
    rng = rng or random.Random()
    if kind == "coin":
        return rng.choice(("Heads.", "Tails."))
    if kind == "dice":
        count = _COUNT.get(m["count"] or "a") or int(m["count"])
        sides = int(m["sides"] or m["d"] or 6)
        if not (1 <= count <= MAX_DICE and 2 <= sides <= MAX_SIDES):
            return f"I can roll 1 to {MAX_DICE} dice of 2 to {MAX_SIDES} sides."
        rolls = [rng.randint(1, sides) for _ in range(count)]
        return (
            f"You rolled {rolls[0]}."
            if count == 1
            else f"You rolled {listed([str(roll) for roll in rolls])}: {sum(rolls)}."
        )
    low, high = (int(m["low"]), int(m["high"])) if m["low"] else NUMBER_RANGE
    low, high = min(low, high), max(low, high)
    return f"{rng.randint(low, high)}."
