"""Requests to forget the conversation, and the answers to the question they get back."""

import pytest

from assistant import forget


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("Please forget our conversation.", "forget"),
        ("Forget everything.", "forget"),
        ("clear the history", "forget"),
        ("Delete my memory.", "forget"),
        ("Yes.", "yes"),
        ("Yes, forget it.", "yes"),
        ("okay", "yes"),
        ("No.", "no"),
        ("Never mind.", "no"),
        # not about forgetting
        ("Forget it.", None),  # as "never mind": not a request to erase anything
        ("I forget the name of that song.", None),
        ("What is the capital of France?", None),
    ],
)
def test_what_asks_to_forget_and_what_answers(said, kind):
    assert forget.kind_of(said) == kind


def test_the_count_is_said():
    assert forget.done(1) == "Done: I've forgotten our conversation, 1 message."
    assert forget.done(12) == "Done: I've forgotten our conversation, 12 messages."
