"""The user's name, kept by voice: "my name is Sam", "call me Alex", "what's my name?", "forget my
name", "that's not my name".

Told "my name is Sam", the embedded LLM said "I'm Sam, a helpful voice assistant running on the
user's laptop", and asked "what's my name?", the same. Given the name in its system prompt, it
greeted "hello, Sam" but called itself Sam too ("I'm Sam, the AI assistant") in 2 of 6 replies, so
the name is not put in the prompt: it is kept in the memory file (`Memory.set_fact`), said back when
asked and in greetings (`courtesy.py`), and outlives a restart and "forget our conversation", as the
lists do; "forget my name" removes it. "My name is" with no name, or "that's not my name", asks for
it, and the name alone ("Sam") is the answer, as the next request (`Pipeline.naming`). Matched on
`asr.text.normalize()`d text, as `lists.py` is.

    request = names.parse("my name is mary ann")   # NameRequest("set", "Mary Ann")
    names.answer(request, memory)                   # "Nice to meet you, Mary Ann. I'll remember your name."
"""

from __future__ import annotations

import re
from typing import NamedTuple

from assistant.asr.text import normalize
from assistant.phrases import LEAD_IN

KEY = "name"  # its key among `Memory.set_fact`'s facts
ASK = "What's your name? Say: my name is, and then your name."  # no example name: the LLM took one up
MAX_WORDS = 3  # "mary ann smith"; more is a sentence, not a name
# Words a name is not made of: "call me back", "call me a taxi", "my name is not important".
_NOT_NAMES = {
    "a", "an", "the", "back", "later", "now", "soon", "tomorrow", "today", "tonight", "when", "if", "at",
    "in", "on", "by", "after", "before", "please", "maybe", "not", "what", "whatever", "anything",
    "something", "nothing", "it", "that", "this", "you", "me", "your", "my", "and", "or", "but", "so",
    "is", "was", "too", "again", "every", "sometime", "anytime", "crazy", "old", "fashioned", "lazy",
    "no", "yes", "yeah", "nope", "okay", "ok", "never", "mind", "stop", "cancel", "wait", "hello", "hi",
    "hey", "thanks", "thank", "sorry", "um", "uh",
}  # fmt: skip
_NAME = r"(?P<name>[a-z][a-z'\-]*(?: [a-z][a-z'\-]*)*?)"  # lazy: "sam please" leaves "please" to _TAIL
_TAIL = r"(?: please| thanks| thank you)*"
_PATTERNS = {  # kind → pattern, tried in order
    "wrong": r"(?:no )?(?:that's|that is|it's|it is) not my name|my name (?:isn't|is not|ain't) [a-z' ]+"
    r"|(?:don't|do not) call me that|stop calling me that",
    "forget": r"(?:forget|delete|erase|remove) my name",
    "ask": r"(?:what's|what is|do you know|do you remember|tell me|say) my name|who am i"
    r"|what (?:do|did) you call me|what did i (?:say|tell you) my name (?:is|was)"
    r"|(?:what's|what is) my name again",
    "set": rf"(?:my name is|my name's|my names|i'm called|i am called|(?:you can |please )?call me) {_NAME}",
    "unsaid": r"my name is|my name's|call me",  # the name itself not heard: asked back
}
_REQUESTS = {kind: re.compile(rf"{LEAD_IN}(?:{asked}){_TAIL}") for kind, asked in _PATTERNS.items()}


class NameRequest(NamedTuple):
    what: str  # "set", "ask" (what it is), "forget", "wrong" (forget it and ask), "unsaid" (ask for it)
    name: str = ""  # "set": as said back ("Mary Ann")


def parse(text: str, asked: bool = False) -> NameRequest | None:
    """What `text` asks about the user's name; None when it is not about it. `asked`: the user was
    just asked for their name (ASK), so a name alone ("Sam.") sets it."""
    said = normalize(text)
    for kind, pattern in _REQUESTS.items():
        if (m := pattern.fullmatch(said)) is None:
            continue
        return _named(m["name"]) if kind == "set" else NameRequest(kind)
    if asked and re.fullmatch(_NAME, said):
        return _named(said)
    return None


def _named(words: str) -> NameRequest | None:
    """ "set" with `words` as a name is said back; None if they cannot be a name ("call me back")."""
    parts = words.split()
    if len(parts) > MAX_WORDS or any(part in _NOT_NAMES for part in parts):
        return None
    return NameRequest("set", " ".join(part.title() for part in parts))  # "o'brien": O'Brien


def answer(request: NameRequest, memory) -> str:
    """Do what `request` asks of `memory` (an open `Memory`; call it on its thread) and say so."""
    known = memory.fact(KEY)
    if request.what == "set":
        memory.set_fact(KEY, request.name)
        if known == request.name:
            return f"I know: your name is {known}."
        if known is not None:
            return f"Okay, I'll call you {request.name} from now on."
        return f"Nice to meet you, {request.name}. I'll remember your name."
    if request.what == "ask":
        if known is None:
            return f"I don't know your name yet. {ASK}"
        return f"Your name is {known}."
    if request.what == "forget":
        if not memory.forget_fact(KEY):
            return "I don't know your name, so there is nothing to forget."
        return "Okay, I've forgotten your name."
    if request.what == "wrong":
        memory.forget_fact(KEY)
        return f"Sorry about that. {ASK}"
    return ASK
