"""Timers: spoken durations, requests, and real timers on an event loop."""

import asyncio
import time

import pytest

from assistant.timers import Timers, parse_duration, parse_request, spoken_duration


@pytest.mark.parametrize(
    ("words", "seconds"),
    [
        ("five minutes", 300),
        ("twenty five minutes", 1500),  # as the normalizer spells 25
        ("a minute", 60),
        ("ninety seconds", 90),
        ("an hour and a half", 5400),
        ("one hour and thirty minutes", 5400),
        ("one minute thirty seconds", 90),
        ("half an hour", 1800),
        ("a minute and a half", 90),
        ("five minute", 300),  # "a five minute timer"
        ("the pasta", None),
        ("ten", None),
        ("", None),
    ],
)
def test_spoken_durations(words, seconds):
    assert parse_duration(words) == seconds


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("Set a timer for 5 minutes.", ("set", 300)),
        ("set a five minute timer", ("set", 300)),
        ("Timer for 10 minutes", ("set", 600)),
        ("Hey, can you start a timer for an hour and a half, please?", ("set", 5400)),
        ("set a timer for the pasta", ("set", None)),  # a timer, but how long: asked back
        ("Cancel the timer.", ("cancel", None)),
        ("stop all timers", ("cancel", None)),
        ("How much time is left?", ("left", None)),
        ("how long is left on the timer", ("left", None)),
        # not (only) about a timer: the LLM's
        ("I hate this pasta timer", None),
        ("Set an alarm for seven.", None),
        ("How long is a minute?", None),
        ("What is a timer?", None),
    ],
)
def test_requests(said, parsed):
    assert parse_request(said) == parsed


def test_spoken_duration_in_digits_and_words():
    assert spoken_duration(1) == "1 second"
    assert spoken_duration(90) == "1 minute and 30 seconds"
    assert spoken_duration(3725) == "1 hour, 2 minutes and 5 seconds"


def test_a_timer_goes_off_when_due_and_can_be_asked_about_and_cancelled():
    async def main():
        said: list[tuple[float, str]] = []
        timers = Timers(lambda text: said.append((time.monotonic(), text)))
        assert timers.answer("how much time is left") == "There is no timer running."
        start = time.monotonic()
        assert timers.answer("set a timer for one second") == "Timer set for 1 second."
        assert timers.answer("set a timer for two minutes") == "Timer set for 2 minutes. You have 2 timers."
        assert timers.answer("how much time is left") == (
            "The timer for 1 second has 1 second left and the timer for 2 minutes has 2 minutes left."
        )
        await asyncio.sleep(1.3)
        assert [text for _, text in said] == ["Your timer for 1 second is done."]
        assert 1.0 <= said[0][0] - start < 1.2
        assert timers.answer("how much time is left") in {
            "1 minute and 59 seconds left.",
            "1 minute and 58 seconds left.",
        }
        assert timers.answer("cancel the timer") == "Timer cancelled."
        assert timers.answer("cancel the timer") == "There is no timer to cancel."
        assert timers.answer("set a timer for one second") == "Timer set for 1 second."
        assert timers.close() == 1
        await asyncio.sleep(1.3)
        assert len(said) == 1  # cancelled and closed timers say nothing
        assert timers.answer("what is the capital of france") is None

    asyncio.run(main())
