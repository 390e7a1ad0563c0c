"""The user's name and birthday by voice: requests, and what they do to a real memory file."""

from datetime import date

import pytest

from assistant import about_you
from assistant.about_you import AboutRequest
from assistant.config import MemoryConfig
from assistant.memory import Memory


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("My name is Sam.", AboutRequest("set", "Sam")),
        ("my name is mary ann please", AboutRequest("set", "Mary Ann")),
        ("hey, my name is o'brien", AboutRequest("set", "O'Brien")),
        ("call me Alex", AboutRequest("set", "Alex")),
        ("you can call me jo", AboutRequest("set", "Jo")),
        ("I'm called Kim", AboutRequest("set", "Kim")),
        ("What's my name?", AboutRequest("ask")),
        ("do you remember my name", AboutRequest("ask")),
        ("what is my name again", AboutRequest("ask")),
        ("who am I", AboutRequest("ask")),
        ("forget my name", AboutRequest("forget")),
        ("that's not my name", AboutRequest("wrong")),
        ("my name isn't sam", AboutRequest("wrong")),
        ("don't call me that", AboutRequest("wrong")),
        ("my name is", AboutRequest("unsaid")),  # the name not heard: asked for
        # not about the name: the LLM's, or another answerer's (limits.py: "I can't make calls")
        ("call me back", None),
        ("call me a taxi", None),
        ("please call me tomorrow at five", None),
        ("my name is not important", AboutRequest("wrong")),
        ("my name is a secret", None),
        ("what's your name", None),
        ("my name is sam and i live in a small town by the sea", None),
        ("sam", None),  # a name alone, not asked for
    ],
)
def test_requests(said, parsed):
    assert about_you.parse(said) == parsed


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("Sam.", AboutRequest("set", "Sam")),
        ("mary ann", AboutRequest("set", "Mary Ann")),
        ("never mind", None),
        ("no", None),
        ("what time is it", None),
        ("set a timer for ten minutes", None),
    ],
)
def test_the_name_alone_answers_only_when_asked_for(said, parsed):
    assert about_you.parse(said, asked=True) == parsed


@pytest.fixture
def memory(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()
    yield memory
    memory.close()


def _say(memory, text: str, asked: bool = False, today: date | None = None) -> str:
    return about_you.answer(about_you.parse(text, asked), memory, today)


def test_a_name_is_kept_said_changed_and_forgotten(memory):
    """Told "my name is Sam", the LLM said "I'm Sam, a helpful voice assistant running on the user's
    laptop", and the same when asked "what's my name?"."""
    assert _say(memory, "what's my name") == f"I don't know your name yet. {about_you.ASK}"
    assert _say(memory, "my name is sam") == "Nice to meet you, Sam. I'll remember your name."
    assert _say(memory, "what's my name") == "Your name is Sam."
    assert _say(memory, "my name is sam") == "I know: your name is Sam."
    assert _say(memory, "call me alex") == "Okay, I'll call you Alex from now on."
    assert _say(memory, "who am i") == "Your name is Alex."
    assert _say(memory, "that's not my name") == f"Sorry about that. {about_you.ASK}"
    assert memory.fact(about_you.NAME) is None
    assert _say(memory, "jordan", asked=True) == "Nice to meet you, Jordan. I'll remember your name."
    assert _say(memory, "forget my name") == "Okay, I've forgotten your name."
    assert _say(memory, "forget my name") == "I don't know your name, so there is nothing to forget."
    assert _say(memory, "my name is") == about_you.ASK


def test_a_name_outlives_a_restart_and_forgetting_the_conversation(tmp_path):
    cfg = MemoryConfig(path=str(tmp_path / "memory.db"))
    memory = Memory(cfg).build()
    memory.add("user", "my name is sam")
    _say(memory, "my name is sam")
    assert memory.clear() == 1  # "forget our conversation": the turns, not the name
    memory.close()
    memory = Memory(cfg).build()  # a restart
    assert _say(memory, "what's my name") == "Your name is Sam."
    memory.close()


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("My birthday is March third.", AboutRequest("set birthday", "03-03")),
        ("my birthday is on the 3rd of march", AboutRequest("set birthday", "03-03")),
        ("my birthday's march third", AboutRequest("set birthday", "03-03")),
        ("my birthdays march third", AboutRequest("set birthday", "03-03")),  # as one voice was heard
        ("I was born on march third nineteen ninety", AboutRequest("set birthday", "03-03")),
        ("my birthday is february twenty ninth", AboutRequest("set birthday", "02-29")),
        ("When is my birthday?", AboutRequest("ask birthday")),
        ("forget my birthday", AboutRequest("forget birthday")),
        ("my birthday is february thirtieth", None),  # no such day: the LLM's
        ("my birthday is a secret", None),
    ],
)
def test_birthday_requests(said, parsed):
    assert about_you.parse(said) == parsed


def test_a_birthday_is_kept_counted_to_and_forgotten(memory):
    """Asked "when is my birthday?", the LLM said "I'm sorry for your loss, but as a helpful voice
    assistant ... I am not equipped to assist with birthdays"."""
    today = date(2026, 12, 7)
    assert _say(memory, "when is my birthday", today=today) == about_you.UNKNOWN_BIRTHDAY
    assert _say(memory, "my birthday is march third", today=today) == (
        "Okay, your birthday is March 3. I'll remember it."
    )
    assert _say(memory, "when is my birthday", today=today) == "Your birthday is March 3: that's in 86 days."
    assert _say(memory, "when is my birthday", today=date(2027, 3, 3)) == (
        "Your birthday is today, March 3. Happy birthday!"
    )
    assert _say(memory, "forget my birthday", today=today) == "Okay, I've forgotten your birthday."
    assert memory.fact(about_you.BIRTHDAY) is None


def test_forget_everything_about_me_forgets_the_name_and_the_birthday(memory):
    assert _say(memory, "forget everything about me") == "I don't know anything about you."
    _say(memory, "my name is sam")
    assert _say(memory, "forget what you know about me") == "Okay, I've forgotten your name."
    _say(memory, "my name is sam")
    _say(memory, "my birthday is march third")
    assert _say(memory, "forget everything you know about me") == (
        "Okay, I've forgotten your name and your birthday."
    )
    assert memory.facts() == {}
    assert about_you.parse("forget everything") is None  # the conversation: forget.py's


def test_a_birthday_on_february_29_comes_on_march_1_in_other_years():
    assert about_you.birthday_on("02-29", date(2027, 1, 1)) == date(2027, 3, 1)
    assert about_you.birthday_on("02-29", date(2028, 1, 1)) == date(2028, 2, 29)


def test_a_birthday_edited_by_hand_into_no_day_is_not_used(memory):
    memory.set_fact(about_you.BIRTHDAY, "13-40")
    memory.set_fact(about_you.NAME, "Sam")
    assert about_you.readable(memory.facts()) == ({"name": "Sam"}, {"birthday": "13-40"})
    assert _say(memory, "when is my birthday", today=date(2026, 12, 7)) == about_you.UNKNOWN_BIRTHDAY
    assert about_you.described(memory.facts()) == [("birthday", "'13-40' (unreadable)"), ("name", "Sam")]
