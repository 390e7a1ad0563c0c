"""Requests about the assistant's voice: "speak slower", "talk faster", "speak normally", "louder".

Asked to speak slower, the embedded LLM said "I'm sorry for your loss. I'll make sure to speak
slower and more clearly next time", and nothing changed; asked to speak louder, "I'm here to help
you make your voice sound even louder". The rate is piper's length_scale (how long each phoneme
lasts; above 1 is slower): each request changes it by STEP, between FASTEST and SLOWEST, and the
answer is already said at the new rate. It lasts as long as the assistant runs; `[tts]
length_scale` in config.toml sets the rate it starts with. The volume is not the assistant's to
change: piper's audio is already peak-normalized, so the answer says where it is changed.
Matched whole on `asr.text.normalize()`d text, as `clock.py` does.

    voice.answer("speak slower please", tts, default=1.0)   # "Okay, I'll speak more slowly."
"""

from __future__ import annotations

import re

from assistant import phrases
from assistant.phrases import LEAD_IN
from assistant.tts import PiperTts

STEP = 1.25  # length_scale × or ÷ this per request: heard at once; from 1, three steps to either end
SLOWEST, FASTEST = 2.0, 0.5

_SPEAK = r"(?:speak|talk|say it|read|go)"
_MORE = r"(?: a (?:little|bit|little bit))?(?: more)?"
_TAIL = r"(?: (?:please|for me|than that))*"
_REQUESTS = {
    "slower": rf"(?:{_SPEAK}{_MORE} )?slower|{_SPEAK}{_MORE} slowly|more slowly|slow down|not so fast"
    r"|you(?:'re| are) (?:talking |speaking )?too fast",
    "faster": rf"(?:{_SPEAK}{_MORE} )?(?:faster|quicker)|{_SPEAK}{_MORE} quickly|speed up|hurry up"
    r"|you(?:'re| are) (?:talking |speaking )?too slow(?:ly)?",
    "normal": rf"{_SPEAK} (?:normally|at (?:a |your )?normal (?:speed|pace|rate))|normal speed",
    "volume": rf"{_SPEAK}{_MORE} (?:louder|quieter|softer|softly|loudly)"
    r"|(?:turn|speak) (?:it |yourself )?(?:up|down)|(?:be |make it )?(?:louder|quieter)"
    r"|(?:raise|lower|turn up|turn down|increase|decrease|reduce) (?:the |your )?volume"
    r"|(?:turn |put )?(?:the |your )?volume (?:up|down)|(?:set|change) (?:the |your )?volume(?: to \w+)?",
}
_PATTERNS = {
    kind: re.compile(rf"{LEAD_IN}(?:can you |could you )?(?:{asked}){_TAIL}")
    for kind, asked in _REQUESTS.items()
}


def kind_of(text: str) -> str | None:
    """The kind of request about the voice ("slower", "faster", "normal", "volume"), else None."""
    return phrases.kind_of(_PATTERNS, text)


def answer(text: str, tts: PiperTts | None, default: float) -> str | None:
    """The reply to a request about the voice, having changed `tts`'s rate where asked (`default`:
    the rate it started with); None for any other text."""
    kind = kind_of(text)
    if kind is None:
        return None
    if kind == "volume":
        return "I can't change my volume: your computer's volume control does that."
    if tts is None:
        return "I'm not speaking aloud now: the chat is muted."
    if kind == "normal":
        tts.length_scale = default
        return "Okay, back to my normal speed."
    slower = kind == "slower"
    scale = tts.length_scale * STEP if slower else tts.length_scale / STEP
    if not min(FASTEST, default) - 1e-6 <= scale <= max(SLOWEST, default) + 1e-6:
        return f"That's as {'slowly' if slower else 'fast'} as I can speak."
    tts.length_scale = scale
    return f"Okay, I'll speak {'more slowly' if slower else 'faster'}."
