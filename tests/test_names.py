"""The user's name by voice: requests, and what they do to a real memory file."""

import pytest

from assistant import names
from assistant.config import MemoryConfig
from assistant.memory import Memory
from assistant.names import NameRequest


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("My name is Sam.", NameRequest("set", "Sam")),
        ("my name is mary ann please", NameRequest("set", "Mary Ann")),
        ("hey, my name is o'brien", NameRequest("set", "O'Brien")),
        ("call me Alex", NameRequest("set", "Alex")),
        ("you can call me jo", NameRequest("set", "Jo")),
        ("I'm called Kim", NameRequest("set", "Kim")),
        ("What's my name?", NameRequest("ask")),
        ("do you remember my name", NameRequest("ask")),
        ("what is my name again", NameRequest("ask")),
        ("who am I", NameRequest("ask")),
        ("forget my name", NameRequest("forget")),
        ("that's not my name", NameRequest("wrong")),
        ("my name isn't sam", NameRequest("wrong")),
        ("don't call me that", NameRequest("wrong")),
        ("my name is", NameRequest("unsaid")),  # the name not heard: asked for
        # not about the name: the LLM's, or another answerer's (limits.py: "I can't make calls")
        ("call me back", None),
        ("call me a taxi", None),
        ("please call me tomorrow at five", None),
        ("my name is not important", NameRequest("wrong")),
        ("my name is a secret", None),
        ("what's your name", None),
        ("my name is sam and i live in a small town by the sea", None),
        ("sam", None),  # a name alone, not asked for
    ],
)
def test_requests(said, parsed):
    assert names.parse(said) == parsed


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("Sam.", NameRequest("set", "Sam")),
        ("mary ann", NameRequest("set", "Mary Ann")),
        ("never mind", None),
        ("no", None),
        ("what time is it", None),
        ("set a timer for ten minutes", None),
    ],
)
def test_the_name_alone_answers_only_when_asked_for(said, parsed):
    assert names.parse(said, asked=True) == parsed


@pytest.fixture
def memory(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()
    yield memory
    memory.close()


def _say(memory, text: str, asked: bool = False) -> str:
    return names.answer(names.parse(text, asked), memory)


def test_a_name_is_kept_said_changed_and_forgotten(memory):
    """Told "my name is Sam", the LLM said "I'm Sam, a helpful voice assistant running on the user's
    laptop", and the same when asked "what's my name?"."""
    assert _say(memory, "what's my name") == f"I don't know your name yet. {names.ASK}"
    assert _say(memory, "my name is sam") == "Nice to meet you, Sam. I'll remember your name."
    assert _say(memory, "what's my name") == "Your name is Sam."
    assert _say(memory, "my name is sam") == "I know: your name is Sam."
    assert _say(memory, "call me alex") == "Okay, I'll call you Alex from now on."
    assert _say(memory, "who am i") == "Your name is Alex."
    assert _say(memory, "that's not my name") == f"Sorry about that. {names.ASK}"
    assert memory.fact(names.KEY) is None
    assert _say(memory, "jordan", asked=True) == "Nice to meet you, Jordan. I'll remember your name."
    assert _say(memory, "forget my name") == "Okay, I've forgotten your name."
    assert _say(memory, "forget my name") == "I don't know your name, so there is nothing to forget."
    assert _say(memory, "my name is") == names.ASK


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
