"""Lists and notes by voice: requests, and what they do to a real memory file."""

import pytest
from sqlite_utils import Database

from assistant import lists
from assistant.config import MemoryConfig
from assistant.lists import ListRequest
from assistant.memory import Memory


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("Add milk to my shopping list.", ListRequest("add", "shopping", ("milk",))),
        ("add eggs, bread and milk to the list", ListRequest("add", "shopping", ("eggs", "bread", "milk"))),
        ("put sunscreen on my packing list", ListRequest("add", "packing", ("sunscreen",))),
        ("add call the bank to my to-do list", ListRequest("add", "to do", ("call the bank",))),
        ("add apples to the grocery list please", ListRequest("add", "shopping", ("apples",))),
        ("don't forget to add oat milk to the list", ListRequest("add", "shopping", ("oat milk",))),
        ("What's on my shopping list?", ListRequest("read")),
        ("read me my todo list", ListRequest("read", "to do")),
        ("is bread on the list", ListRequest("has", "shopping", ("bread",))),
        ("is there anything on my to do list", ListRequest("read", "to do")),
        ("do I have eggs on my shopping list", ListRequest("has", "shopping", ("eggs",))),
        ("remove milk from the list", ListRequest("remove", "shopping", ("milk",))),
        ("take the eggs off my list", ListRequest("remove", "shopping", ("eggs",))),
        ("add some apples and the milk to my list", ListRequest("add", "shopping", ("apples", "milk"))),
        ("clear my to do list", ListRequest("clear", "to do")),
        (
            "make a note that my car is on level three",
            ListRequest("add", "notes", ("your car is on level three",)),
        ),
        ("note that anna called", ListRequest("add", "notes", ("anna called",))),
        ("read my notes", ListRequest("read", "notes")),
        ("delete my notes", ListRequest("clear", "notes")),
        ("what lists do I have", ListRequest("lists", "")),
        ("add it to the list", ListRequest("ask", "shopping", ("add",))),  # what is it? asked back
        ("add something to my to do list", ListRequest("ask", "to do", ("add",))),
        ("add to my shopping list", ListRequest("ask", "shopping", ("add",))),
        ("remove it from the list", ListRequest("ask", "shopping", ("remove",))),
        # no list named: the shopping list (the LLM said "I'll be happy to add milk!", "We're out of eggs!")
        ("add milk", ListRequest("add", "shopping", ("milk",))),
        ("add eggs, bread and butter", ListRequest("add", "shopping", ("eggs", "bread", "butter"))),
        ("we're out of eggs", ListRequest("add", "shopping", ("eggs",))),
        ("we are all out of milk and coffee", ListRequest("add", "shopping", ("milk", "coffee"))),
        ("I need to buy toothpaste", ListRequest("add", "shopping", ("toothpaste",))),
        ("we need to get some apples", ListRequest("add", "shopping", ("apples",))),
        ("add five and six", None),  # a sum
        ("add 5 minutes", None),  # to a timer
        ("add two apples", None),  # a number: not guessed at
        ("add a reminder", None),
        ("add salt to the soup", None),
        ("add it", None),
        ("we're out of time", None),
        # not about a list: the LLM's, or another answerer's
        ("add five minutes to the timer", None),
        ("what is a shopping list", None),
        ("make a list of fruits", None),
        ("who is on the guest list at the oscars", None),
    ],
)
def test_requests(said, parsed):
    assert lists.parse(said) == parsed


@pytest.fixture
def memory(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()
    yield memory
    memory.close()


def _say(memory, text: str) -> str:
    return lists.answer(lists.parse(text), memory)


def test_a_shopping_list_is_kept_read_and_changed(memory):
    """Asked to add milk to the shopping list, the LLM said "I'm sorry for your loss, but I don't have
    the ability to add milk to your shopping list.\""""
    assert _say(memory, "what's on my shopping list") == "Your shopping list is empty."
    assert _say(memory, "add milk to my shopping list") == "Added milk to your shopping list."
    assert _say(memory, "add eggs, bread and milk to the list") == (
        "Added eggs and bread to your shopping list. Milk is already on your shopping list."
    )
    assert (
        _say(memory, "what's on my grocery list") == "Your shopping list has 3 items: milk, eggs and bread."
    )
    assert _say(memory, "is bread on the list") == "Yes, bread is on your shopping list."
    assert _say(memory, "are eggs and butter on my list") == (
        "Eggs is on your shopping list, but butter is not."
    )
    assert _say(memory, "remove milk and butter from the list") == (
        "Removed milk from your shopping list. Butter is not on your shopping list."
    )
    assert _say(memory, "add oat milk and soy milk to the list") == (
        "Added oat milk and soy milk to your shopping list."
    )
    assert _say(memory, "take milk off the list") == "Milk is not on your shopping list."  # which one?
    assert _say(memory, "take soy milk off the list") == "Removed soy milk from your shopping list."
    assert _say(memory, "remove milk from the list") == "Removed oat milk from your shopping list."  # the one
    assert memory.list_items("shopping") == ["eggs", "bread"]
    assert _say(memory, "clear my shopping list") == "Cleared your shopping list: eggs and bread."
    assert _say(memory, "clear my shopping list") == "Your shopping list is empty."
    assert _say(memory, "add it to my list") == "What should I add to your shopping list?"
    assert (
        _say(memory, "take it off the list")
        == "Which? Say, for example: remove milk from your shopping list."
    )


def test_lists_of_other_names_notes_and_which_lists_there_are(memory):
    assert _say(memory, "what lists do I have") == (
        "You have no lists yet. Say, for example: add milk to my shopping list."
    )
    assert _say(memory, "add call the bank to my to do list") == "Added call the bank to your to do list."
    assert _say(memory, "make a note that my car is on level three") == "Noted: your car is on level three."
    assert _say(memory, "note that anna called") == "Noted: anna called."
    assert _say(memory, "put sunscreen on my packing list") == "Added sunscreen to your packing list."
    assert _say(memory, "read my notes") == "You have 2 notes: your car is on level three and anna called."
    assert _say(memory, "what lists do I have") == (
        "You have a to do list with 1 item, 2 notes and a packing list with 1 item."
    )
    assert (
        _say(memory, "delete my notes") == "Cleared your notes: your car is on level three and anna called."
    )
    assert _say(memory, "read my notes") == "You have no notes."
    assert memory.list_items("to do") == ["call the bank"] and memory.list_items("packing") == ["sunscreen"]


def test_a_long_list_is_read_in_part_and_counted(memory):
    memory.add_to_list("shopping", [f"thing {n}" for n in range(25)])
    said = _say(memory, "what's on my shopping list")
    assert said.startswith("Your shopping list has 25 items: thing 0, thing 1,")
    assert said.endswith("thing 19 and 5 more.")


def test_lists_outlive_a_restart_and_forgetting_the_conversation(tmp_path):
    cfg = MemoryConfig(path=str(tmp_path / "memory.db"))
    memory = Memory(cfg).build()
    memory.add("user", "add milk to my shopping list")
    _say(memory, "add milk to my shopping list")
    assert memory.clear() == 1  # "forget our conversation": the turns, not the lists
    memory.close()
    memory = Memory(cfg).build()  # a restart
    assert _say(memory, "what's on the list") == "Your shopping list has 1 item: milk."
    memory.close()


def test_a_memory_file_of_the_version_before_lists_gains_them_and_keeps_its_turns(tmp_path):
    cfg = MemoryConfig(path=str(tmp_path / "memory.db"))
    memory = Memory(cfg).build()
    memory.add("user", "before lists were kept")
    memory.close()
    db = Database(cfg.db_path)  # as the version before m005 left it
    db["list_items"].drop()
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_lists'")
    db.conn.commit()
    db.close()
    memory = Memory(cfg).build()
    assert _say(memory, "add milk to my shopping list") == "Added milk to your shopping list."
    assert [t.text for t in memory.recent(5)] == ["before lists were kept"]
    memory.close()


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("Milk.", ListRequest("add", "shopping", ("milk",))),
        ("oat milk, bread and eggs", ListRequest("add", "shopping", ("oat milk", "bread", "eggs"))),
        ("call the bank", ListRequest("add", "to do", ("call the bank",))),  # asked of the to do list
        # not items: a request of its own, or nothing
        ("what time is it", None),
        ("never mind", None),
        ("set a timer for five minutes", None),
        ("it", None),
        ("please remember to pick up the kids from school at three thirty today", None),  # too long
    ],
)
def test_the_items_alone_answer_what_should_i_add(said, parsed):
    asked = "to do" if said == "call the bank" else "shopping"
    assert lists.parse(said, adding_to=asked) == parsed
    assert lists.parse(said) is None  # not asked: the LLM's, or another answerer's
