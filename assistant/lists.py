"""Lists and notes kept by voice: "add milk and eggs to my shopping list", "what's on my shopping
list?", "is bread on the list?", "remove milk from the list", "clear my to do list", "make a note
that the car is on level three", "read my notes".

Asked to add milk to the shopping list, the embedded LLM said "I'm sorry for your loss, but I don't
have the ability to add milk to your shopping list." So a request about a list is answered here, and
the list is real: a `list_items` table in the memory file (`Memory.add_to_list` ...), so it outlives
a restart, and forgetting the conversation leaves it. "The list" without a name is the shopping
list; "grocery" is the shopping list too, "todo" the to do list; any other name is a list of its own
("add sunscreen to my packing list"); with no list named, "add milk" and "we're out of eggs" are
the shopping list's, unless a number or another kind of thing is in it (_NOT_SHOPPING). Items are
the words as heard, one for each part between "and"s (and commas, when typed): "salt and pepper" is
two, as a bought-by-the-item list wants. "Add it to the list" asks what to add, and the items alone
are the answer (`parse`'s `adding_to`, `Pipeline.listing`).
Matched on `asr.text.normalize()`d text, as `timer_requests.py` is.

    request = lists.parse("add milk to my shopping list")   # ListRequest("add", "shopping", ("milk",))
    lists.answer(request, memory)                            # "Added milk to your shopping list."
"""

from __future__ import annotations

import re
from typing import NamedTuple

from assistant.asr.text import normalize
from assistant.phrases import LEAD_IN, listed, yours

NOTES = "notes"  # the list "make a note that ..." adds to
DEFAULT = "shopping"  # "the list", "my list"
_SAME = {"grocery": "shopping", "groceries": "shopping", "shopping": "shopping", "todo": "to do"}
_UNSAID = {"it", "that", "this", "them", "those", "these", "something", "some", "one"}  # asked back
# What "add ..." with no list adds that is not shopping: a number ("add five and six" is a sum), a
# duration (to a timer), another assistant's things; "we're out of time".
_NOT_SHOPPING = {
    "reminder", "alarm", "timer", "event", "appointment", "meeting", "contact", "note", "comment", "song",
    "friend", "minute", "minutes", "hour", "hours", "second", "seconds", "day", "days", "time", "up",
    "luck", "ideas", "here", "options", "plus", "times", "to", "point",
}  # fmt: skip
_NUMBER_WORDS = {normalize(str(n)).split()[-1] for n in range(1, 100)} | {
    "hundred",
    "thousand",
    "half",
    "a",
    "an",
}
# The items alone, after "What should I add ...?": a few words, not a question nor a request of the
# assistant's own ("call the bank" is a to do list's item)
MAX_ANSWER_WORDS = 6
_NOT_AN_ANSWER = {
    "what", "what's", "how", "when", "where", "who", "why", "is", "are", "do", "does", "can", "could",
    "would", "will", "set", "tell", "remind", "wake", "cancel", "stop", "never", "no", "nope", "nothing",
    "yes", "thanks", "thank", "forget", "clear", "remove", "delete", "i", "i'm", "it's", "that's", "okay",
    "ok", "hello", "hi", "hey",
}  # fmt: skip
MAX_READ = 20  # items read out at most; the rest are counted
_LIST = r"(?:the |my |our |a )?(?:(?P<name>[a-z']+(?: [a-z']+)?) )?list"
_TAIL = r"(?: too| as well| please)*"
_PATTERNS = [  # (kind, pattern), tried in order
    ("ask", rf"(?:add|put) (?:something |an item |things )?(?:to|on|onto) {_LIST}"),  # add what?
    ("add", rf"(?:add|put) (?P<items>.+?) (?:to|on|onto) {_LIST}"),
    ("remove", rf"(?:remove|delete|take|cross|scratch) (?P<items>.+?) (?:from|off|off of) {_LIST}"),
    (
        "read",
        rf"(?:what's|what is|what else is|what do i have|what have i got|(?:is there |do i have )?anything)"
        rf" on {_LIST}",
    ),
    ("read", rf"(?:read|read me|read out|tell me|show me|what's in|what is in) {_LIST}"),
    ("has", rf"(?:is|are|do i have|have i got) (?P<items>.+?) on {_LIST}"),
    ("clear", rf"(?:clear|empty|delete|erase|wipe|clear out) {_LIST}"),
    # no list named: the shopping list, as "the list" is ("add milk", "we're out of eggs")
    (
        "shop",
        r"add (?P<items>.+?)|(?:we're|we are|i'm|i am|we've run|i've run|we ran) (?:all )?out of"
        r" (?P<out>.+?)|(?:we|i) need to (?:buy|get) (?P<buy>.+?)",
    ),
    ("note", r"(?:make|take|write) a note(?: that| to)? (?P<items>.+?)|note that (?P<noted>.+?)"),
    ("notes", r"(?:read|read me|what are|tell me|show me) my notes|what notes do i have|do i have any notes"),
    ("clear notes", r"(?:clear|delete|erase) (?:all )?(?:my|the) notes"),
    ("lists", r"what lists do i have|(?:what are|read|tell me) my lists|do i have any lists"),
]
_REQUESTS = [(kind, re.compile(rf"{LEAD_IN}(?:{asked}){_TAIL}")) for kind, asked in _PATTERNS]


class ListRequest(NamedTuple):
    what: str  # "add", "remove", "has", "read", "clear" (a list), "lists" (which there are), "ask" (what
    # to add or remove: "add it to the list")
    name: str = DEFAULT  # the list: "shopping", "to do", "notes", "packing"
    items: tuple[str, ...] = ()  # add, remove, has: as said back ("your car is on level three"); ask:
    # what was asked ("add")


def parse(text: str, adding_to: str | None = None) -> ListRequest | None:
    """What `text` asks of the lists; None when it is not about one. `adding_to`: the list the user
    was just asked what to add to ("What should I add to your shopping list?"), so the items alone
    ("milk and eggs") are added."""
    said = normalize(text)
    split = normalize(re.sub(r",\s+", " and ", text))  # typed commas part items, as "and"s do
    for kind, pattern in _REQUESTS:
        if (m := pattern.fullmatch(split if kind in ("add", "remove", "has", "shop") else said)) is None:
            continue
        if kind in ("note", "notes", "clear notes"):
            what = {"note": "add", "notes": "read", "clear notes": "clear"}[kind]
            noted = m.groupdict().get("items") or m.groupdict().get("noted")
            return ListRequest(what, NOTES, (yours(noted),) if noted else ())
        if kind == "lists":
            return ListRequest("lists", "")
        if kind == "shop":
            if not _shopping(items := _items(m["items"] or m["out"] or m["buy"])):
                continue
            return ListRequest("add", DEFAULT, items)
        name = _SAME.get(m["name"] or DEFAULT, m["name"] or DEFAULT)  # "grocery": shopping
        if kind == "ask":
            return ListRequest("ask", name, ("add",))
        items = _items(m.groupdict().get("items") or "")
        if any(item in _UNSAID for item in items):  # "add it to the list": what is it?
            return ListRequest("ask", name, (kind,))
        return ListRequest(kind, name, items)
    words = split.split()
    if adding_to is not None and 0 < len(words) <= MAX_ANSWER_WORDS and words[0] not in _NOT_AN_ANSWER:
        items = _items(split)
        return ListRequest("add", adding_to, items) if not set(items) & _UNSAID else None
    return None


def _items(words: str) -> tuple[str, ...]:
    """ "some apples and the milk" → ("apples", "milk"): each part between "and"s, as said back."""
    parts = (re.sub(r"^(?:the|some|my|our) ", "", item) for item in re.split(r" and |, ", words))
    return tuple(dict.fromkeys(yours(item) for item in parts if item))  # "the eggs": eggs


def _shopping(items: tuple[str, ...]) -> bool:
    """Whether "add `items`" with no list named is shopping: no number, nothing of _NOT_SHOPPING,
    nothing to ask back ("add it")."""
    said = {word for item in items for word in item.split()}
    return not (
        said & (_NOT_SHOPPING | _NUMBER_WORDS) or set(items) & _UNSAID or re.search(r"\d", " ".join(items))
    )


def answer(request: ListRequest, memory) -> str:
    """Do what `request` asks of `memory` (an open `Memory`; call it on its thread) and say so."""
    name, items = request.name, list(request.items)
    if request.what == "ask":
        if items == ["add"]:
            return f"What should I add to {_yours(name)}?"
        example = "remove milk from" if items == ["remove"] else "is milk on"
        return f"Which? Say, for example: {example} {_yours(name)}."
    if request.what == "lists":
        counts = [(n, len(memory.list_items(n))) for n in memory.list_names()]
        if not counts:
            return "You have no lists yet. Say, for example: add milk to my shopping list."
        each = [counted(k, n) if n == NOTES else f"a {n} list with {counted(k, n)}" for n, k in counts]
        return f"You have {listed(each)}."
    if request.what == "add":
        added = memory.add_to_list(name, items)
        if name == NOTES:
            return f"Noted: {items[0]}."
        there = [item for item in items if item not in added]
        said = [f"Added {listed(added)} to {_yours(name)}."] if added else []
        return " ".join(said + ([_sentence(f"{_are(there)} already on {_yours(name)}")] if there else []))
    on_it = memory.list_items(name)
    if not on_it and request.what in ("read", "clear"):
        return "You have no notes." if name == NOTES else f"Your {name} list is empty."
    if request.what == "read":
        shown = on_it[:MAX_READ] + ([f"{len(on_it) - MAX_READ} more"] if len(on_it) > MAX_READ else [])
        whose = "You have" if name == NOTES else f"Your {name} list has"
        return f"{whose} {counted(len(on_it), name)}: {listed(shown)}."
    if request.what == "clear":
        memory.remove_from_list(name, on_it)
        return f"Cleared {_yours(name)}" + (f": {listed(on_it)}." if len(on_it) <= MAX_READ else ".")
    found = {item: _find(item, on_it) for item in items}  # remove, has: the one on it each names, or None
    missing = [item for item, found_as in found.items() if found_as is None]
    present = [found_as for found_as in found.values() if found_as is not None]
    if request.what == "has":
        said = [f"{_are(present)} on {_yours(name)}"] if present else []
        said += [f"{_are(missing)} not" + (f" on {_yours(name)}" if not present else "")] if missing else []
        text = ", but ".join(said) + "."
        return f"Yes, {text}" if not missing else f"No, {text}" if not present else _sentence(text)
    removed = memory.remove_from_list(name, present)
    said = [f"Removed {listed(removed)} from {_yours(name)}."] if removed else []
    return " ".join(said + ([_sentence(f"{_are(missing)} not on {_yours(name)}")] if missing else []))


def _find(item: str, on_it: list[str]) -> str | None:
    """The item on the list that `item` names: the same words, or the only one holding them ("milk"
    for "oat milk"); None if none does, or several do."""
    if item in on_it:
        return item
    holding = [had for had in on_it if re.search(rf"\b{re.escape(item)}\b", had)]
    return holding[0] if len(holding) == 1 else None


def _yours(name: str) -> str:
    return "your notes" if name == NOTES else f"your {name} list"


def title(name: str) -> str:
    """ "shopping list", "notes": a list as named in `assistant memory lists`."""
    return NOTES if name == NOTES else f"{name} list"


def counted(n: int, name: str) -> str:
    """ "3 items", "1 note": what is on the list `name`."""
    noun = "note" if name == NOTES else "item"
    return f"{n} {noun}{'s' * (n != 1)}"


def _are(items: list[str]) -> str:
    """ "milk is", "milk and eggs are"."""
    return f"{listed(items)} {'is' if len(items) == 1 else 'are'}"


def _sentence(words: str) -> str:
    return words[0].upper() + words[1:] + ("" if words.endswith(".") else ".")
