"""Words spelled letter by letter from the request, not by the LLM (which defined or repeated them)."""

import pytest

from assistant import spelling


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        ("How do you spell necessary?", "Necessary is spelled N, E, C, E, S, S, A, R, Y."),
        ("spell the word rhythm", "Rhythm is spelled R, H, Y, T, H, M."),
        ("how is Mississippi spelled", "Mississippi is spelled M, I, S, S, I, S, S, I, P, P, I."),
        ("Can you spell don't?", "Don't is spelled D, O, N, apostrophe, T."),
        ("what is the spelling of beautiful", "Beautiful is spelled B, E, A, U, T, I, F, U, L."),
        ("spell new york", "New york is spelled N, E, W ... Y, O, R, K."),
        ("do you spell rhythm", "Rhythm is spelled R, H, Y, T, H, M."),  # "how" lost by the recognizer
        ("do you spell it with an h", None),
        # the LLM's
        ("spell it out", None),
        ("spell check this", None),
        ("how do you spell a word that is very long indeed", None),
        ("I like to spell", None),
    ],
)
def test_words_are_spelled_from_the_request(asked, says):
    assert spelling.answer(asked) == says
