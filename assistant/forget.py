"""Forgetting the conversation by voice: "forget our conversation" ... "yes".

The assistant keeps every turn in its memory file, and says so when asked whether it is private
(`limits.py`); `assistant memory clear` erases it from a terminal. By voice the same needs a
confirmation, since a misheard request must not cost the user their history: "forget everything"
is answered with a question (ASK), and only a "yes" as the next request, within
`pipeline.ANSWER_WITHIN_S`, clears the memory (`Pipeline.forgetting`; the rows are overwritten on
disk, as `memory clear` does).
Anything else as the next request keeps it. Neither is started ahead of the endpoint.

    forget.kind_of("please forget our conversation")   # "forget"
    forget.kind_of("yes, forget it")                    # "yes"
"""

from __future__ import annotations

import re

from assistant import phrases
from assistant.phrases import LEAD_IN

ASK = "Shall I forget our whole conversation? Say yes to forget it, or anything else to keep it."
KEPT = "Okay, I'll keep it."
NOTHING = "There is nothing to forget: our conversation is empty."
_OUR = r"(?:our|the|this|my|all|all of our|everything in our|your)"
_PATTERNS = {
    "forget": re.compile(
        rf"{LEAD_IN}(?:forget (?:everything(?: we said| i said)?|all of it|what we said|what we talked about"
        rf"|{_OUR} (?:conversation|chat|history))|(?:clear|delete|erase|wipe) {_OUR} (?:conversation|chat"
        r"|history|memory|memories)|erase your memory|wipe your memory)(?: please)?"
    ),
    "yes": re.compile(
        rf"{LEAD_IN}(?:yes|yeah|yep|sure|do it|go ahead|okay|ok)(?: please)?(?: forget (?:it|everything))?"
        r"(?: please)?"
    ),
    "no": re.compile(rf"{LEAD_IN}(?:no|nope|don't|do not|keep it|never mind|cancel)(?: thanks| thank you)?"),
}


def kind_of(text: str) -> str | None:
    """ "forget", "yes" or "no" for a request about forgetting (or its answer), else None."""
    return phrases.kind_of(_PATTERNS, text)


def done(deleted: int) -> str:
    return f"Done: I've forgotten our conversation, {deleted} message{'s' * (deleted != 1)}."
