"""What the assistant cannot do, said plainly instead of pretended by the LLM.

Asked for the weather, the embedded model answered "The weather today is mostly sunny with a light
breeze"; asked to remind, "I'll be calling you at 6 pm tomorrow"; to turn off the lights, "I'm going
to turn off the lights". Told in its system prompt what it cannot do, it went on all the same
(README, "Answers without the LLM"). The assistant never uses the internet and drives no device, so such
a request gets an honest answer here, without the LLM. Matched on `asr.text.normalize()`d text from
its start ("what's the weather like in Paris" is one; "I like rainy weather" is not).

    limits.answer("What's the weather like today?")   # "I can't check the weather: ..."
"""

from __future__ import annotations

import re

from assistant.asr.text import normalize
from assistant.clock import LEAD_IN

OFFLINE = "I don't use the internet, so that nothing you say leaves this computer."
_CANNOT = (  # (what is asked, from the start of the request; the answer)
    (
        r"(?:what's|what is|how's|how is|what will be|tell me) the weather|(?:what's|what is) the forecast"
        r"|weather (?:forecast|today|tomorrow|for)|(?:will|is) it (?:going to )?(?:rain|snow)",
        f"I can't check the weather: {OFFLINE}",
    ),
    (
        r"(?:what's|what is|tell me|read me|give me) (?:the |today's )?(?:news|headlines)"
        r"|(?:what's|what is) in the news",
        f"I can't read the news: {OFFLINE}",
    ),
    (r"remind me\b|set (?:a |an )?reminder", "I can't set reminders yet, but I can set a timer or an alarm."),
    (
        r"(?:turn|switch) (?:on|off) the |(?:turn|switch) the \w+(?: \w+)? (?:on|off)|dim the lights",
        "I can't control devices: I can only talk with you.",
    ),
    (r"play (?:some |me )?(?:music|a song|songs|the radio|a podcast)\b", "I can't play music yet."),
    (
        r"(?:call|phone|text|email) (?:my |\w+$)|send (?:a |an )?(?:message|text|email)",
        "I can't make calls or send messages.",
    ),
)
_PATTERNS = [(re.compile(rf"{LEAD_IN}(?:{asked})"), reply) for asked, reply in _CANNOT]


def answer(text: str) -> str | None:
    """The honest answer to a request the assistant cannot serve, or None for any other text."""
    said = normalize(text)
    return next((reply for pattern, reply in _PATTERNS if pattern.match(said)), None)
