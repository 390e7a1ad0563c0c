"""Courtesies: answered by the assistant ("Okay.", "You're welcome.", a greeting), never by the LLM."""

from datetime import date

import pytest

from assistant import courtesy


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
        ("oh wait", "Okay."),  # as one is said over an answer (phrases.STOP_WORDS_BEFORE)
        ("no, no, stop it", "Okay."),
        ("now stop", "Okay."),
        ("hold on a second", "Okay."),
        ("I'm good", "Okay."),
        ("Thank you!", "You're welcome."),
        ("thanks a lot", "You're welcome."),
        # the LLM: "hello.", "good night.", 'A: "How are you?"'
        ("Hello!", "Hello. What can I do for you?"),
        ("hi there", "Hello. What can I do for you?"),
        ("Good morning.", "Good morning. What can I do for you?"),
        ("good night", "Good night."),
        ("How are you?", "I'm fine, thank you. What can I do for you?"),
        ("bye for now", "Goodbye."),
        # asks for something: another answerer's, or the LLM's
        ("pause", None),  # with a timer running, "Okay." would say it was paused
        ("stop the timer", None),
        ("wait for me", None),
        ("cancel my alarm", None),
        ("never mind the weather, what time is it", None),
        ("thank you for the recipe, what else can i cook", None),
        ("stop listening", None),  # wake.py's
        ("forget our conversation", None),  # forget.py's
        ("nothing is wrong with my car", None),
        ("hello, can you tell me a joke", None),
        ("how are you feeling about the election", None),
        ("good morning to you too, what's the weather", None),
    ],
)
def test_courtesies_are_answered(said, reply):
    assert courtesy.answer(said) == reply


def test_a_greeting_says_the_name_the_user_gave():
    assert courtesy.answer("good morning", name="Sam") == "Good morning, Sam. What can I do for you?"
    assert courtesy.answer("thanks", name="Sam") == "You're welcome, Sam."
    assert courtesy.answer("never mind", name="Sam") == "Okay."
    on_the_day = courtesy.answer("good morning", "Sam", birthday="12-07", today=date(2026, 12, 7))
    assert on_the_day == "Good morning, Sam. Happy birthday! What can I do for you?"
    assert (
        courtesy.answer("hello", birthday="12-08", today=date(2026, 12, 7)) == "Hello. What can I do for you?"
    )
