"""Requests that ask for nothing: answered "Okay." (or "You're welcome."), never by the LLM."""

import pytest

from assistant import dismiss


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("Never mind.", "Okay."),
        ("oh nevermind", "Okay."),
        ("Stop.", "Okay."),
        ("cancel that", "Okay."),
        ("forget about it", "Okay."),
        ("that's all, thanks", "Okay."),
        ("no thank you", "Okay."),
        ("shut up", "Okay."),
        ("be quiet please", "Okay."),
        ("wait", "Okay."),
        ("I'm good", "Okay."),
        ("Thank you!", "You're welcome."),
        ("thanks a lot", "You're welcome."),
        # asks for something: another answerer's, or the LLM's
        ("pause", None),  # with a timer running, "Okay." would say it was paused
        ("stop the timer", None),
        ("cancel my alarm", None),
        ("never mind the weather, what time is it", None),
        ("thank you for the recipe, what else can i cook", None),
        ("stop listening", None),  # wake.py's
        ("forget our conversation", None),  # forget.py's
        ("nothing is wrong with my car", None),
    ],
)
def test_requests_that_ask_for_nothing(said, reply):
    assert dismiss.answer(said) == reply
