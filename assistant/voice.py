"""Requests about the assistant's voice: "speak slower", "talk faster", "speak normally", "speak
more quietly", "louder", "set the volume to five", "what's your volume".

Asked to speak slower, the embedded LLM said "I'm sorry for your loss. I'll make sure to speak
slower and more clearly next time", and nothing changed; asked to speak louder, "I'm here to help
you make your voice sound even louder", and to turn the volume up, "turn the volume up to 108%".
The rate is piper's length_scale (how long each phoneme lasts; above 1 is slower): each request
changes it by STEP, between FASTEST and SLOWEST, and the answer is already said at the new rate.
The volume is a level from 1 to 10 (`tts.gain`: 10 is the peak-normalized voice, each step 3 dB
quieter): "quieter" takes VOLUME_STEP levels off, "louder" puts them back, up to 10, beyond which
only the computer's volume control goes. Both last as long as the assistant runs; `[tts]
length_scale` and `[tts] volume` in config.toml set what it starts with. Matched whole on
`asr.text.normalize()`d text, as `clock.py` does.

    voice.answer("speak slower please", tts, default=1.0)   # "Okay, I'll speak more slowly."
    voice.answer("volume down", tts, default=1.0)           # "Okay, volume 8 of 10."
"""

from __future__ import annotations

import re

from assistant.asr.text import normalize
from assistant.phrases import LEAD_IN
from assistant.tts import PiperTts

STEP = 1.25  # length_scale × or ÷ this per request: heard at once; from 1, three steps to either end
SLOWEST, FASTEST = 2.0, 0.5
VOLUME_STEP = 2  # levels per "louder" or "quieter": 6 dB, heard at once
MAX_VOLUME = 10  # the voice at full scale (`tts.gain`)

_SPEAK = r"(?:speak|talk|say it|read|go)"
_MORE = r"(?: a (?:little|bit|little bit))?(?: more)?"
_TAIL = r"(?: (?:please|for me|than that))*"
_REQUESTS = {
    "slower": rf"(?:{_SPEAK}{_MORE} )?slower|{_SPEAK}{_MORE} slowly|more slowly|slow down|not so fast"
    r"|you(?:'re| are) (?:talking |speaking )?too fast",
    "faster": rf"(?:{_SPEAK}{_MORE} )?(?:faster|quicker)|{_SPEAK}{_MORE} quickly|speed up|hurry up"
    r"|you(?:'re| are) (?:talking |speaking )?too slow(?:ly)?",
    "normal": rf"{_SPEAK} (?:normally|at (?:a |your )?normal (?:speed|pace|rate))|normal speed",
    "louder": rf"{_SPEAK}{_MORE} (?:louder|loudly|up)|(?:turn|speak) (?:it |yourself )?up"
    r"|(?:be |make it )?louder|(?:raise|turn up|increase) (?:the |your )?volume"
    r"|(?:turn |put )?(?:the |your )?volume up|i can't hear you|i cannot hear you",
    "quieter": rf"{_SPEAK}{_MORE} (?:quieter|softer|softly|quietly)|turn (?:it |yourself )?down"
    r"|(?:be |make it )?(?:quieter|softer)|(?:lower|turn down|decrease|reduce) (?:the |your )?volume"
    r"|(?:turn |put )?(?:the |your )?volume down|you(?:'re| are) (?:talking |speaking )?too loud(?:ly)?",
    "set volume": r"(?:set|change|put|turn) (?:the |your )?volume (?:to|at) (?P<level>[a-z ]+?)"
    r"(?: out of ten)?|volume (?P<bare>[a-z ]+?)(?: out of ten)?",
    "volume?": r"(?:what's|what is|how loud is) (?:the |your )?volume|how loud are you",
}
_LEVELS = {normalize(str(n)): n for n in range(1, 11)} | {
    "max": 10, "maximum": 10, "full": 10, "min": 1, "minimum": 1, "the max": 10, "the maximum": 10,
}  # fmt: skip
_PERCENTS = {f"{normalize(str(n * 10))} percent": n for n in range(1, 11)}  # "fifty percent": 5
_PATTERNS = {
    kind: re.compile(rf"{LEAD_IN}(?:can you |could you )?(?:{asked}){_TAIL}")
    for kind, asked in _REQUESTS.items()
}


def kind_of(text: str) -> str | None:
    """The kind of request about the voice ("slower", "faster", "normal", "louder", "quieter",
    "set volume", "volume?"), else None."""
    said = normalize(text)
    for kind, pattern in _PATTERNS.items():
        if (m := pattern.fullmatch(said)) is not None:
            if kind == "set volume" and _level(m) is None and m["bare"] is not None:
                continue  # "volume" then words that are not a level: not a request about it
            return kind
    return None


def _level(m) -> int | None:
    """The level "set the volume to five" names (1 to 10, "max"; "fifty percent": 5), else None."""
    said = m["level"] or m["bare"] or ""
    return _LEVELS.get(said) or _PERCENTS.get(said)


def answer(text: str, tts: PiperTts | None, default: float) -> str | None:
    """The reply to a request about the voice, having changed `tts`'s rate where asked (`default`:
    the rate it started with); None for any other text."""
    kind = kind_of(text)
    if kind is None:
        return None
    if tts is None:
        return "I'm not speaking aloud now: the chat is muted."
    if kind in ("louder", "quieter", "set volume", "volume?"):
        return _volume(kind, text, tts)
    if kind == "normal":
        tts.length_scale = default
        return "Okay, back to my normal speed."
    slower = kind == "slower"
    scale = tts.length_scale * STEP if slower else tts.length_scale / STEP
    if not min(FASTEST, default) - 1e-6 <= scale <= max(SLOWEST, default) + 1e-6:
        return f"That's as {'slowly' if slower else 'fast'} as I can speak."
    tts.length_scale = scale
    return f"Okay, I'll speak {'more slowly' if slower else 'faster'}."


def _volume(kind: str, text: str, tts: PiperTts) -> str:
    """The reply to a request about the volume, having set `tts.volume` where asked."""
    if kind == "volume?":
        return f"My volume is {tts.volume} of 10."
    if kind == "set volume":
        level = _level(_PATTERNS[kind].fullmatch(normalize(text)))
        if level is None:
            return "I can set my volume from 1 to 10. Say, for example: set the volume to five."
    elif kind == "louder":
        if tts.volume == MAX_VOLUME:
            return "That's as loud as I can speak: your computer's volume control goes higher."
        level = min(MAX_VOLUME, tts.volume + VOLUME_STEP)
    else:
        if tts.volume == 1:
            return "That's as quietly as I can speak."
        level = max(1, tts.volume - VOLUME_STEP)
    tts.volume = level
    return f"Okay, volume {level} of 10."
