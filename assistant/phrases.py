"""What the answers given without the LLM share: the words that may open a request, and matching a
request whole against patterns (`clock.py`, `dates.py`, `sky.py`, `timer_requests.py`, `lists.py`,
`about_you.py`, `replay.py`, `voice.py`, `arithmetic.py`, `units.py`, `spelling.py`, `dictionary.py`,
`places.py`, `chance.py`, `courtesy.py`, `forget.py`, `limits.py`; README, "Answers without the
LLM"). Requests are matched on `asr.text.normalize()`d text, the recognizer's own spelling, so typed
and spoken requests alike.
"""

from __future__ import annotations

import re

from assistant.asr.text import normalize

# Words that may open a request without changing it ("hey, could you ...", "i need you to ...").
LEAD_IN = (
    r"(?:(?:hey|hi|ok|okay|so|um|uh|and|excuse me|sorry|please|assistant|can you|could you|would you"
    r"|will you|i need you to|i want you to|i'd like you to|don't forget to)\s+)*"
)

# What people say around a stop phrase ("oh wait", "no, stop", "stop it", "wait a second"): the
# phrase so said is still only a stop (`bargein.py`, over an answer; `courtesy.py`, when nothing
# is). Before the rule, "Wait." with "oh" heard before it went on (`bench_bargein.py --stops 24
# --stops-at clause`, 2026-12-07); "No, stop." was heard "now stop" once. Not "the" or "and": the
# echo's words, which `BargeIn._without_echo_words` drops only when the answer says them.
STOP_WORDS_BEFORE = frozenset({"oh", "uh", "um", "ah", "no", "now", "okay", "ok", "hey", "please", "so"})
STOP_WORDS_AFTER = (
    ("a", "second"),
    ("a", "sec"),
    ("a", "minute"),
    ("a", "moment"),
    ("please",),
    ("now",),
    ("it",),
    ("that",),
    ("talking",),
    ("there",),
)


def requests(patterns: dict[str, str], tail: str = r"(?: please)?") -> dict[str, re.Pattern]:
    """Each kind's pattern compiled as a whole request: after LEAD_IN, before `tail`. Another way to
    ask the same kind is keyed "kind/way" ("planet/which"), as `re` names a group once per pattern;
    `first_match` and `kind_of` name it by its kind."""
    return {kind: re.compile(rf"{LEAD_IN}(?:{asked}){tail}") for kind, asked in patterns.items()}


def first_match(patterns: dict[str, re.Pattern], said: str) -> tuple[str, re.Match] | tuple[None, None]:
    """The first kind whose pattern matches the whole of `said` (already normalized) and its match,
    or (None, None)."""
    return next(
        ((_kind(key), m) for key, pattern in patterns.items() if (m := pattern.fullmatch(said))), (None, None)
    )


def kind_of(patterns: dict[str, re.Pattern], text: str) -> str | None:
    """The first kind whose pattern matches the whole of `text`, normalized; None if none does."""
    said = normalize(text)
    return next((_kind(key) for key, pattern in patterns.items() if pattern.fullmatch(said)), None)


def _kind(key: str) -> str:
    """ "planet/which" → "planet": the kind a way of asking is keyed under (`requests`)."""
    return key.split("/", 1)[0]


# the user's words as said back to them: "remind me to call my mom" → "Reminder: call your mom."
_YOURS = {"my": "your", "me": "you", "i": "you", "i'm": "you're", "mine": "yours", "myself": "yourself",
          "i've": "you've", "i'll": "you'll", "am": "are"}  # fmt: skip


def yours(words: str) -> str:
    """ "call my mom" → "call your mom": normalized words, as the assistant says them back."""
    return " ".join(_YOURS.get(word, word) for word in words.split())


def listed(items: list[str], conjunction: str = "and") -> str:
    """Items as a sentence lists them: a; a and b; a, b and c (or a, b or c)."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


def capitalized(words: str) -> str:
    """ "the UK is ..." → "The UK is ...": the first letter only, the rest as it is."""
    return words[0].upper() + words[1:]
