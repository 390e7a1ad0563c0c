"""Courtesies: a greeting, thanks, "how are you", "never mind", "stop", "be quiet", "goodbye".

Said to the embedded LLM, they came back as echoes or worse (`assistant chat --mute`, 2026-12-07):
"hello." to "hello", "good night." to "good night", 'A: "How are you?"' to "how are you", "I'm
sorry for your loss." to "cancel" and "wait", "I'm here to support you." to "stop", and "shut up."
back to "shut up". Here a greeting is returned, by the user's name when they gave it (`about_you.py`),
thanks get "You're welcome.", and a request that asks for nothing a short "Okay.", without the LLM.

Over an answer, a stop phrase ends it and is not a turn (`bargein.py`, `[bargein] stop_phrases`);
said when nothing is being answered (a moment after the answer ended, or typed), it comes here.
"Pause" alone is not one of them: with a timer running, "Okay." would say it was paused. Matched
whole on `asr.text.normalize()`d text, as `limits.py` does.

    courtesy.answer("never mind")                 # "Okay."
    courtesy.answer("good morning", name="Sam")   # "Good morning, Sam. What can I do for you?"
"""

from __future__ import annotations

from datetime import date

from assistant import phrases
from assistant.asr.text import normalize

_THEN = r"(?: then| thanks| thank you| please| for now)*"
# a stop phrase as people say one ("oh wait", "no stop"; `phrases.STOP_WORDS_BEFORE`): "please" is
# `LEAD_IN`'s and `_THEN`'s here, and the words after are only those that go with each verb
_STOP = (
    rf"(?:(?:{'|'.join(sorted(phrases.STOP_WORDS_BEFORE - {'please'}))}) )*"
    r"(?:(?:stop|cancel)(?: it| that| talking| there)?|shut up"
    r"|be quiet|quiet|enough|wait|hold on)(?: a (?:second|sec|minute|moment)| now)?"
)
_PATTERNS = phrases.requests(
    {
        "okay": rf"(?:oh |no )?never ?mind|{_STOP}|forget (?:about )?it"
        r"|(?:that's|that is) (?:all|it|enough)|nothing|no|nope|no thanks|no thank you"
        r"|(?:i'm|i am) (?:good|fine|done)",
        "thanks": r"thanks|thank you|thank you very much|thanks a lot|cheers",
        "hello": r"(?:hello|hi|hey|hiya|howdy|greetings)(?: there| assistant| again)?",
        "good": r"good (?P<part>morning|afternoon|evening|day)",
        "night": r"good ?night|night night",
        "bye": r"(?:good ?bye|bye|bye bye|see you|see you later|see ya)(?: for now)?",
        "how": r"how are you(?: doing| today)?|how's it going|how are things|how do you do",
    },
    tail=_THEN,
)


def answer(
    text: str, name: str | None = None, birthday: str | None = None, today: date | None = None
) -> str | None:
    """The reply to a courtesy (by `name`, the user's, where one is known; a greeting on their
    `birthday`, "03-03", wishes them a happy one); None for any other text."""
    kind, m = phrases.first_match(_PATTERNS, normalize(text))
    if kind is None:
        return None
    to = f", {name}" if name else ""
    if kind in ("hello", "good", "how"):
        greeting = {"hello": "Hello", "how": "I'm fine, thank you"}.get(kind) or f"Good {m['part']}"
        wish = " Happy birthday!" if birthday == f"{today or date.today():%m-%d}" else ""
        return f"{greeting}{to}.{wish} What can I do for you?"
    return {
        "okay": "Okay.",
        "thanks": f"You're welcome{to}.",
        "night": f"Good night{to}.",
        "bye": f"Goodbye{to}.",
    }[kind]
