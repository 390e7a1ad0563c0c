"""What the answers given without the LLM share: the words that may open a request, and matching
a request whole against patterns (`clock.py`, `dates.py`, `timers.py`, `replay.py`, `voice.py`,
`arithmetic.py`, `units.py`, `spelling.py`, `forget.py`, `limits.py`; README, "Answers without the
LLM"). Requests are matched on `asr.text.normalize()`d text, the recognizer's own spelling, so
typed and spoken requests alike.
"""

from __future__ import annotations

import re

from assistant.asr.text import normalize

# Words that may open a request without changing it ("hey, could you ...", "i need you to ...").
LEAD_IN = (
    r"(?:(?:hey|hi|ok|okay|so|um|uh|and|excuse me|sorry|please|assistant|can you|could you|would you"
    r"|will you|i need you to|i want you to|i'd like you to|don't forget to)\s+)*"
)


def kind_of(patterns: dict[str, re.Pattern], text: str) -> str | None:
    """The first kind whose pattern matches the whole of `text`, normalized; None if none does."""
    said = normalize(text)
    return next((kind for kind, pattern in patterns.items() if pattern.fullmatch(said)), None)
