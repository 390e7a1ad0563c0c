"""The last answer said again, or gone on with after a cut: "say that again", "what did you say?",
"go on"; and the user's own last words: "what did I say?".

Asked "say that again" after a three-sentence answer, the embedded LLM said its first sentence
only; asked to go on after the user's "stop", it starts a new answer. The answer is at hand
(`Pipeline.last_answer`), so it is said again word for word, or from the clause the user cut it at.
"Go on" after an answer that was not cut goes to the LLM ("go on" after a story: more of it).
Matched on `asr.text.normalize()`d text, as `clock.py` does.

    replay.answer("say that again", last)   # last.answer_text, whole
    replay.answer("go on", last)            # what `last` had still to say when it was cut
    replay.answer("what did I say", last, "what is the capital of spain")   # 'You said: "..."'
"""

from __future__ import annotations

import re

from assistant.asr.text import normalize
from assistant.frames import Turn
from assistant.phrases import LEAD_IN

NOTHING_YET = "I haven't said anything yet."
_REPEAT = re.compile(
    rf"{LEAD_IN}(?:(?:say|play) (?:that|it|this) again"
    r"|repeat(?: that| it| this| yourself| the answer| what you said)?(?: again)?|what did you (?:just )?say"
    r"|what was that|come again|pardon(?: me)?|sorry what"
    r"|i (?:didn't|did not) (?:catch|hear|get|understand) (?:that|you|it)|i missed (?:that|it)"
    r"|one more time)(?: again)?(?: please)?"
)
_GO_ON = re.compile(
    rf"{LEAD_IN}(?:go on|continue|keep going|carry on|you were saying|where were we|go ahead|and then)"
    r"(?: please)?"
)
_HEARD = re.compile(
    rf"{LEAD_IN}(?:what did (?:i|you hear me) (?:just )?say|what did you (?:just )?hear"
    r"|what was my (?:last )?question)(?: please)?"
)
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)]*(?=\s|$)")


def answer(text: str, last: Turn | None, last_heard: str = "") -> str | None:
    """The reply to "say that again" or to "go on" after `last` (this run's last answer, or None)
    was cut, or to "what did I say?" (`last_heard`: the user's last words before `text`, as the
    recognizer wrote them: a way to see what it hears); None for any other text, and for "go on"
    after an answer that was heard whole."""
    said = normalize(text)
    if _HEARD.fullmatch(said):
        words = last_heard.strip().rstrip(".!?")
        return f'You said: "{words}".' if words else "You haven't said anything yet."
    if _REPEAT.fullmatch(said):
        said_before = last.answer_text if last is not None else ""
        return _whole_sentences(said_before) or NOTHING_YET
    if _GO_ON.fullmatch(said) and last is not None and last.interrupted:
        return _whole_sentences(unheard(last)) or None
    return None


def unheard(turn: Turn) -> str:
    """What the turn's answer had still to say when it was cut: its text from the clause it was cut
    in (counted in words: clauses are the answer text with markup removed, so words line up)."""
    heard_words = len(" ".join(turn.played_clauses).split())
    return " ".join(turn.answer_text.split()[heard_words:])


def _whole_sentences(text: str) -> str:
    """`text` to its last sentence end: an answer cut while the LLM wrote it stops mid-sentence
    ("... and the dragon"); one with no sentence end at all is kept whole."""
    text = text.strip()
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    return text[: ends[-1]] if ends else text
