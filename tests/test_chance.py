"""A coin, dice and numbers by chance: what is asked, and draws that follow the request."""

import random

import pytest

from assistant import chance


@pytest.mark.parametrize(
    ("asked", "draws"),
    [
        # the LLM: "The coin is flipped.", "Flipping a coin results in an even number."
        ("Flip a coin.", {"Heads.", "Tails."}),
        ("toss a coin please", {"Heads.", "Tails."}),
        ("heads or tails", {"Heads.", "Tails."}),
        ("roll a die", {f"You rolled {n}." for n in range(1, 7)}),
        ("roll a twenty sided die", {f"You rolled {n}." for n in range(1, 21)}),
        ("roll a d20", {f"You rolled {n}." for n in range(1, 21)}),
        # the LLM: "One and ten"
        ("pick a number between one and ten", {f"{n}." for n in range(1, 11)}),
        ("pick a number between ten and one", {f"{n}." for n in range(1, 11)}),
        ("give me a random number from 5 to 7", {"5.", "6.", "7."}),
    ],
)
def test_every_outcome_comes_up_and_no_other(asked, draws):
    rng = random.Random(7)  # fixed: the same draws each run
    assert {chance.answer(asked, rng) for _ in range(400)} == draws


def test_dice_are_summed():
    rng = random.Random(7)
    said = chance.answer("roll two dice", rng)
    rolls = [int(n) for n in said.removeprefix("You rolled ").split(": ")[0].split(" and ")]
    assert len(rolls) == 2 and all(1 <= n <= 6 for n in rolls)
    assert said.endswith(f": {sum(rolls)}.")
    assert chance.answer("roll 3 dice", rng).count(",") == 1  # "You rolled 2, 5 and 1: 8."
    assert chance.answer("roll fifty dice", rng) == "I can roll 1 to 10 dice of 2 to 1000 sides."


@pytest.mark.parametrize("said", ["roll with it", "what is a coin", "I found a coin", "pick a card"])
def test_other_requests_are_the_llms(said):
    assert chance.answer(said) is None
