"""A request that asks for nothing: "never mind", "stop", "be quiet", "that's all", "thank you".

Over an answer, a stop phrase ends it and is not a turn (`bargein.py`, `[bargein] stop_phrases`).
Said when nothing is being answered (a moment after the answer ended, or typed), it reached the
embedded LLM, which said "I'm sorry for your loss." to "cancel" and "wait", "I'm here to support
you." to "stop", and "shut up." back to "shut up" (`assistant chat --mute`, 2026-12-07). Here it
gets a short "Okay." and "thank you" a "You're welcome.", without the LLM. "Pause" alone is not one
of them: with a timer running, "Okay." would say it was paused. Matched whole on
`asr.text.normalize()`d text, as `limits.py` does.

    dismiss.answer("never mind")   # "Okay."
"""

from __future__ import annotations

import re

from assistant import phrases
from assistant.phrases import LEAD_IN

_THEN = r"(?: then| thanks| thank you| please| for now)*"
_PATTERNS = {
    "Okay.": re.compile(
        rf"{LEAD_IN}(?:(?:oh |no )?never ?mind|(?:stop|cancel)(?: it| that| talking)?|forget (?:about )?it"
        r"|(?:that's|that is) (?:all|it|enough)|nothing|no|nope|no thanks|no thank you|shut up|be quiet"
        rf"|quiet|enough|wait|hold on|(?:i'm|i am) (?:good|fine|done)){_THEN}"
    ),
    "You're welcome.": re.compile(rf"{LEAD_IN}(?:thanks|thank you|thank you very much|thanks a lot|cheers)"),
}


def answer(text: str) -> str | None:
    """ "Okay." to a request that asks for nothing, "You're welcome." to thanks; None for any other."""
    return phrases.kind_of(_PATTERNS, text)
