"""Saying the last answer again, or going on with it after a cut: what is asked, and what is said."""

import pytest

from assistant import replay
from assistant.frames import Turn

ANSWER = "The moon orbits the Earth. It has craters. Its light is the sun's."


def _turn(answer: str, played: list[str], cut: bool) -> Turn:
    turn = Turn(1, "tell me about the moon", answer_text=answer, played_clauses=played)
    if cut:
        turn.cancel.set()
    return turn


@pytest.mark.parametrize(
    "asked",
    ["Say that again.", "Play that again.", "Could you repeat that, please?", "What did you say?",
     "Sorry, what?", "Pardon?", "I didn't catch that.", "Repeat.", "come again", "one more time please"],
)  # fmt: skip
def test_asked_again_it_says_the_whole_answer(asked):
    assert replay.answer(asked, _turn(ANSWER, ["The moon orbits the Earth."], cut=True)) == ANSWER
    assert replay.answer(asked, None) == replay.NOTHING_YET


@pytest.mark.parametrize(
    "asked", ["Go on.", "Please continue.", "Keep going", "You were saying?", "ok go on"]
)
def test_go_on_after_a_cut_says_the_rest_from_the_clause_it_was_cut_in(asked):
    cut = _turn(ANSWER, ["The moon orbits the Earth."], cut=True)
    assert replay.answer(asked, cut) == "It has craters. Its light is the sun's."
    # heard whole, or nothing said yet: the LLM goes on ("go on" after a story: more of it)
    heard_whole = _turn(ANSWER, ["The moon orbits the Earth.", "It has craters."], cut=False)
    assert replay.answer(asked, heard_whole) is None
    assert replay.answer(asked, None) is None


def test_an_answer_cut_while_it_was_written_is_said_to_its_last_whole_sentence():
    cut_writing = _turn("It was dark. The dragon slept. And then the", ["It was dark."], cut=True)
    assert replay.answer("go on", cut_writing) == "The dragon slept."
    assert replay.answer("say that again", cut_writing) == "It was dark. The dragon slept."
    assert replay.answer("say that again", _turn("Yes", [], cut=False)) == "Yes"  # no sentence end: whole
    # cut in its last clause: nothing left to say, so the LLM is asked
    assert replay.answer("go on", _turn(ANSWER, [ANSWER], cut=True)) is None


@pytest.mark.parametrize(
    "asked",
    # "what?" alone too: a word the recognizer may make of a cough would say the whole answer again
    ["What did you say about the moon?", "Repeat after me: hello", "Go on a trip", "What is that?", "What?"],
)
def test_other_questions_are_not_replays(asked):
    assert replay.answer(asked, _turn(ANSWER, ["The moon orbits the Earth."], cut=True)) is None


@pytest.mark.parametrize(
    "asked", ["What did I say?", "What did you hear?", "what did I just say", "What was my question?"]
)
def test_what_did_i_say_gives_the_users_last_words_as_heard(asked):
    heard = "what is the capital of spain"
    assert replay.answer(asked, None, heard) == 'You said: "what is the capital of spain".'
    assert replay.answer(asked, None) == "You haven't said anything yet."
