"""What the user tells the assistant about themselves, kept by voice: their name ("my name is Sam",
"call me Alex", "what's my name?", "forget my name", "that's not my name") and their birthday ("my
birthday is march third", "when is my birthday?", "forget my birthday").

Told "my name is Sam", the embedded LLM said "I'm Sam, a helpful voice assistant running on the
user's laptop", and asked "what's my name?", the same. Given the name in its system prompt, it
greeted "hello, Sam" but called itself Sam too ("I'm Sam, the AI assistant") in 2 of 6 replies, so
the name is not put in the prompt: it is kept in the memory file (`Memory.set_fact`), said back when
asked and in greetings (`courtesy.py`), and outlives a restart and "forget our conversation", as the
lists do; "forget my name" removes it. "My name is" with no name, or "that's not my name", asks for
it, and the name alone ("Sam") is the answer, as the next request (`Pipeline.naming`). Asked "when
is my birthday?", the LLM said "I'm sorry for your loss, but as a helpful voice assistant ... I am
not equipped to assist with birthdays"; the birthday is kept the same way, and "how many days until
my birthday" is then `dates.py`'s. Matched on `asr.text.normalize()`d text, as `lists.py` is.

    request = about_you.parse("my name is mary ann")   # AboutRequest("set", "Mary Ann")
    about_you.answer(request, memory)                   # "Nice to meet you, Mary Ann. I'll remember ..."
"""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from assistant import phrases
from assistant.arithmetic import in_digits
from assistant.asr.text import normalize
from assistant.clock import MONTH_WORDS, MONTHS

NAME, BIRTHDAY = "name", "birthday"  # their keys among `Memory.set_fact`'s facts ("birthday": "03-03")
ASK = "What's your name? Say: my name is, and then your name."  # no example name: the LLM took one up
UNKNOWN_BIRTHDAY = "I don't know your birthday yet. Tell me: say, for example, my birthday is march third."
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
    # "my birthday's": "my birthdays" as the recognizer writes it (as "my names" above)
    "set birthday": r"my (?:birthday is|birthday's|birthdays)(?: on)? (?P<day>.+?)"
    r"|i was born on (?P<born>.+?)",
    "ask birthday": r"(?:when's|when is|what's|what is|do you know|do you remember) my birthday",
    "forget birthday": r"(?:forget|delete|erase|remove) my birthday",
    "forget all": r"forget (?:everything|all) (?:about me|you know about me)|forget what you know about me"
    r"|(?:forget|delete|erase) my name and (?:my )?birthday",
}
_DAY_OF = re.compile(  # "march 3rd", "the 3rd of march", "3 march" (in digits: `in_digits`)
    rf"(?:the )?(?P<d>\d\d?)(?:st|nd|rd|th)?(?: of)? (?P<m>{MONTH_WORDS})"
    rf"|(?P<m2>{MONTH_WORDS}) (?:the )?(?P<d2>\d\d?)(?:st|nd|rd|th)?"
)
_REQUESTS = phrases.requests(_PATTERNS, tail=_TAIL)


class AboutRequest(NamedTuple):
    what: str  # the name: "set", "ask" (what it is), "forget", "wrong" (forget it and ask), "unsaid"
    # (ask for it); the birthday: "set birthday", "ask birthday", "forget birthday"; both: "forget all"
    value: str = ""  # "set": the name as said back ("Mary Ann"); "set birthday": "03-03"


def parse(text: str, asked: bool = False) -> AboutRequest | None:
    """What `text` asks about the user's name or birthday; None when it is not about them. `asked`:
    the user was just asked for their name (ASK), so a name alone ("Sam.") sets it."""
    said = normalize(text)
    for kind, pattern in _REQUESTS.items():
        if (m := pattern.fullmatch(said)) is None:
            continue
        if kind == "set":
            return _named(m["name"])
        if kind == "set birthday":
            day = month_day(m["day"] or m["born"])
            return AboutRequest(kind, f"{day[0]:02d}-{day[1]:02d}") if day else None
        return AboutRequest(kind)
    if asked and re.fullmatch(_NAME, said):
        return _named(said)
    return None


def month_day(words: str) -> tuple[int, int] | None:
    """(month, day) of "march third", "the third of march", "march 3rd 1990" (the year is not
    kept); None for words that are not a day of the year."""
    said = in_digits(words)
    m = _DAY_OF.match(said)
    if m is None or not re.fullmatch(r",? ?(?:\d\d ?\d\d)?", said[m.end() :].strip()):  # a year: not kept
        return None
    month, day = MONTHS.index((m["m"] or m["m2"]).title()) + 1, int(m["d"] or m["d2"])
    try:
        date(2000, month, day)  # a leap year: February 29 is a birthday
    except ValueError:
        return None
    return month, day


def _named(words: str) -> AboutRequest | None:
    """ "set" with `words` as a name is said back; None if they cannot be a name ("call me back")."""
    parts = words.split()
    if len(parts) > MAX_WORDS or any(part in _NOT_NAMES for part in parts):
        return None
    return AboutRequest("set", " ".join(part.title() for part in parts))  # "o'brien": O'Brien


def birthday_on(value: str, today: date) -> date:
    """The next birthday from `today` on (today's, on the day) for a kept "03-03"; February 29 is
    kept on March 1 in a year without it."""
    month, day = map(int, value.split("-"))

    def in_year(year: int) -> date:
        try:
            return date(year, month, day)
        except ValueError:  # February 29
            return date(year, 3, 1)

    this_year = in_year(today.year)
    return this_year if this_year >= today else in_year(today.year + 1)


def answer(request: AboutRequest, memory, today: date | None = None) -> str:
    """Do what `request` asks of `memory` (an open `Memory`; call it on its thread) and say so."""
    if request.what == "forget all":
        forgotten = [f"your {key}" for key in (NAME, BIRTHDAY) if memory.forget_fact(key)]
        if not forgotten:
            return "I don't know anything about you."
        return f"Okay, I've forgotten {phrases.listed(forgotten)}."
    if request.what.endswith("birthday"):
        return _birthday(request, memory, today or date.today())
    known = memory.fact(NAME)
    if request.what == "set":
        memory.set_fact(NAME, request.value)
        if known == request.value:
            return f"I know: your name is {known}."
        if known is not None:
            return f"Okay, I'll call you {request.value} from now on."
        return f"Nice to meet you, {request.value}. I'll remember your name."
    if request.what == "ask":
        if known is None:
            return f"I don't know your name yet. {ASK}"
        return f"Your name is {known}."
    if request.what == "forget":
        if not memory.forget_fact(NAME):
            return "I don't know your name, so there is nothing to forget."
        return "Okay, I've forgotten your name."
    if request.what == "wrong":
        memory.forget_fact(NAME)
        return f"Sorry about that. {ASK}"
    return ASK


def _birthday(request: AboutRequest, memory, today: date) -> str:
    if request.what == "set birthday":
        memory.set_fact(BIRTHDAY, request.value)
        return f"Okay, your birthday is {_said(request.value)}. I'll remember it."
    if request.what == "forget birthday":
        if not memory.forget_fact(BIRTHDAY):
            return "I don't know your birthday, so there is nothing to forget."
        return "Okay, I've forgotten your birthday."
    stored = memory.fact(BIRTHDAY)
    known = readable({BIRTHDAY: stored})[0].get(BIRTHDAY) if stored is not None else None
    if known is None:  # never told, or a row edited by hand into no day
        return UNKNOWN_BIRTHDAY
    days = (birthday_on(known, today) - today).days
    if days == 0:
        return f"Your birthday is today, {_said(known)}. Happy birthday!"
    return f"Your birthday is {_said(known)}: that's in {days} day{'s' * (days != 1)}."


def readable(facts: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(the facts that can be used, those that cannot): a birthday that is no "MM-DD" of a real day
    (a file edited by hand) is not counted to nor greeted on, and is said at the start."""
    ok, bad = dict(facts), {}
    if (birthday := ok.get(BIRTHDAY)) is not None:
        try:
            date(2000, *map(int, re.fullmatch(r"(\d\d)-(\d\d)", birthday).groups()))  # 2000: February 29
        except (AttributeError, ValueError):  # no "MM-DD" at all, or no such day
            bad[BIRTHDAY] = ok.pop(BIRTHDAY)
    return ok, bad


def described(facts: dict[str, str]) -> list[tuple[str, str]]:
    """The facts kept, as `assistant memory about` prints them: ("name", "Sam"), ("birthday",
    "March 3"); a key this version does not know, as it is kept."""
    ok, bad = readable(facts)
    said = {key: _said(value) if key == BIRTHDAY else value for key, value in ok.items()}
    return sorted((said | {key: f"{value!r} (unreadable)" for key, value in bad.items()}).items())


def _said(value: str) -> str:
    """ "03-03" → "March 3"."""
    month, day = map(int, value.split("-"))
    return f"{MONTHS[month - 1]} {day}"
