"""Words spelled aloud, letter by letter: "how do you spell necessary".

Asked "how do you spell necessary", the embedded LLM said "In this context, it means that when we
need something, we must do it ourselves"; asked to "spell the word rhythm", it said the request
back. The word is in the request, written as the recognizer (or the keyboard) wrote it, so it is
spelled from there: "Necessary is spelled N, E, C, E, S, S, A, R, Y." The letters go to piper
separated by commas, which its phonemizer reads as letter names ("en, ee, see"), not as a word.
A misheard word is spelled as heard: "what did I say?" (`replay.py`) tells.

    spelling.answer("how do you spell necessary")   # "Necessary is spelled N, E, C, E, S, S, A, R, Y."
"""

from __future__ import annotations

import re

from assistant.asr.text import normalize
from assistant.phrases import LEAD_IN

MAX_WORDS = 3  # "spell Mississippi river": a name of a few words, not a sentence
_NOT_A_WORD = {"it", "that", "this", "them", "out", "check", "checker", "me"}
_WORDS = rf"[a-z']+(?: [a-z']+){{0,{MAX_WORDS - 1}}}"
_SPELL = re.compile(
    # "how" may be lost: without a pre-roll, the recognizer heard "do you spell ..." in 3 of 24 requests
    rf"{LEAD_IN}(?:(?:how (?:do you|do i|does one|to|would you)|do you|do i) spell"
    rf"(?: the word)? (?P<a>{_WORDS})"
    rf"|how is(?: the word)? (?P<b>{_WORDS}) spelled|spell(?: out)?(?: the word| the name)? (?P<c>{_WORDS})"
    rf"|(?:what's|what is) the spelling of(?: the word)? (?P<d>{_WORDS}))(?: for me)?(?: please)?"
)


def answer(text: str) -> str | None:
    """'<Word> is spelled W, O, R, D.' for a request to spell a word (or a few), else None."""
    match = _SPELL.fullmatch(normalize(text))
    if match is None:
        return None
    words = next(group for group in match.groups() if group)
    if words.split()[0] in _NOT_A_WORD:
        return None  # "spell it out", "spell check this": the LLM's
    spelled = " ... ".join(", ".join(_letter(c) for c in word) for word in words.split())
    return f"{words[0].upper()}{words[1:]} is spelled {spelled}."


def _letter(c: str) -> str:
    return "apostrophe" if c == "'" else c.upper()
