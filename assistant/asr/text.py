"""One text normalizer and one character vocabulary, shared by training, evaluation and the recognizer.

Spoken form: lowercase letters, apostrophes and single spaces. Digits, ordinals, times, money,
percentages and common symbols are spelled out, because the recognizer can only emit letters.
"""

from __future__ import annotations

import re
import unicodedata

from num2words import num2words

BLANK = "<blank>"
# Index 0 is the CTC blank; the rest are the characters the recognizer can emit.
VOCAB: tuple[str, ...] = (BLANK, " ", "'", *"abcdefghijklmnopqrstuvwxyz")
CHAR_TO_ID = {c: i for i, c in enumerate(VOCAB)}
BLANK_ID = CHAR_TO_ID[BLANK]

_SYMBOLS = {
    "&": " and ",
    "%": " percent ",
    "+": " plus ",
    "=": " equals ",
    "@": " at ",
    "°": " degrees ",
    "#": " number ",
    "€": " euros ",
    "£": " pounds ",
}
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?", re.IGNORECASE)
_MONEY = re.compile(r"\$(\d+(?:,\d{3})*)(?:\.(\d{2}))?")
_ORDINAL = re.compile(r"\b(\d+)(st|nd|rd|th)\b", re.IGNORECASE)
_DECIMAL = re.compile(r"\b(\d+)\.(\d+)\b")
_NUMBER = re.compile(r"\d+(?:,\d{3})*")
_YEAR = re.compile(r"\b(1[1-9]\d\d|20\d\d)\b")


def _words(n: int) -> str:
    return num2words(n)


def _time(m: re.Match) -> str:
    hour, minute, suffix = int(m[1]), int(m[2]), (m[3] or "").replace(".", "").lower()
    if minute == 0:
        spoken = f"{_words(hour)} o'clock" if not suffix else _words(hour)
    elif minute < 10:
        spoken = f"{_words(hour)} oh {_words(minute)}"
    else:
        spoken = f"{_words(hour)} {_words(minute)}"
    return f" {spoken} {' '.join(suffix)} " if suffix else f" {spoken} "


def _money(m: re.Match) -> str:
    dollars = int(m[1].replace(",", ""))
    spoken = f"{_words(dollars)} dollar{'s' if dollars != 1 else ''}"
    if m[2] and int(m[2]):
        spoken += f" and {_words(int(m[2]))} cents"
    return f" {spoken} "


def _year(m: re.Match) -> str:
    return f" {num2words(int(m[1]), to='year')} "


def spell_numbers(text: str) -> str:
    """Digits to words: '3:15 pm' → 'three fifteen p m', '$5' → 'five dollars', '2nd' → 'second'."""
    text = _TIME.sub(_time, text)
    text = _MONEY.sub(_money, text)
    text = _ORDINAL.sub(lambda m: f" {num2words(int(m[1]), to='ordinal')} ", text)
    text = _DECIMAL.sub(
        lambda m: f" {_words(int(m[1]))} point {' '.join(_words(int(d)) for d in m[2])} ", text
    )
    text = _YEAR.sub(_year, text)
    return _NUMBER.sub(lambda m: f" {_words(int(m[0].replace(',', '')))} ", text)


def normalize(text: str) -> str:
    """Written English → the recognizer's spoken form (lowercase a-z, apostrophe, single spaces)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.replace("’", "'").replace("‘", "'")
    text = spell_numbers(text)
    for symbol, spoken in _SYMBOLS.items():
        text = text.replace(symbol, spoken)
    text = text.lower().replace("-", " ")
    text = re.sub(r"[^a-z' ]+", " ", text)
    # Apostrophes only inside words ("don't"), never as quotes.
    text = re.sub(r"(?<![a-z])'|'(?![a-z])", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def encode(text: str) -> list[int]:
    """Normalized text → token ids (no blanks). Characters outside the vocabulary are dropped."""
    return [CHAR_TO_ID[c] for c in text if c in CHAR_TO_ID and c != BLANK]


def decode(ids: list[int]) -> str:
    """Token ids (already collapsed, blanks removed) → text."""
    return "".join(VOCAB[i] for i in ids if i != 0)
