"""A joke from pyjokes' one-liners, none twice until all have been told."""

import pyjokes
import pytest

from assistant import jokes


def test_every_chosen_joke_is_pyjokes_own():
    """The selection is of pyjokes' texts, word for word: one it no longer has would not be told."""
    theirs = set(pyjokes.get_jokes(language="en", category="neutral"))
    assert jokes.TOLD <= theirs, sorted(jokes.TOLD - theirs)
    assert len(jokes.told()) == len(jokes.TOLD)


def test_no_joke_comes_twice_until_all_are_told():
    """The LLM, asked five times: "Lemon Balm", "Why did the cat have a tail? Because it had one." ..."""
    jokes._deck.cache_clear()  # a new deck, as at the assistant's start
    n = len(jokes.TOLD)
    told = [jokes.answer("Tell me a joke.") for _ in range(n)]
    assert sorted(told) == sorted(jokes.TOLD)  # each once
    assert jokes.answer("tell me another joke") in jokes.TOLD  # then a new round


@pytest.mark.parametrize(
    ("asked", "joke"),
    [
        ("tell me a joke", True),
        ("Tell me another joke, please.", True),
        ("do you know any good jokes", True),
        ("make me laugh", True),
        ("tell me a programming joke", True),
        ("tell me a joke about cats", False),  # the LLM's
        ("what is a joke", False),
        ("tell me another one", False),  # another of what came before: the LLM's
    ],
)
def test_a_request_for_a_joke(asked, joke):
    assert (jokes.answer(asked) is not None) == joke
