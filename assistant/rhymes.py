"""Words that rhyme, found by how they are said instead of made up by the LLM.

Asked what rhymes with cat, the embedded LLM said "The word "cat" is a classic example of rhyming
with itself."; with orange, "Orange is a word that rhymes with orange." (first turns through
`LocalLlm`, 2026-12-08). Two words rhyme when they sound the same from their last stressed vowel on.
Their sounds are espeak-ng's (the phonemizer piper already speaks with: no other pronouncing
dictionary is needed), for the asked word and for the words WordNet's tagged texts use at least
twice (its cntlist.rev, 10,980 words: common enough to be said back), the most used said first.
Working out all their sounds takes 2 s here, so it is done once, at the first rhyme asked, and kept
in $XDG_CACHE_HOME/assistant (`cache_path`); later runs read it back in milliseconds. Matched whole
on `asr.text.normalize()`d text.

    rhymes.answer("what rhymes with cat")     # "Cat rhymes with hat, fat, flat, bat and pat."
    rhymes.answer("what rhymes with orange")  # "Nothing I know rhymes with orange."
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections import Counter
from pathlib import Path

from assistant import phrases
from assistant.asr.text import normalize
from assistant.clock import DAYS, MONTHS
from assistant.dictionary import MISSING, wordnet_dir

log = logging.getLogger(__name__)

MAX_SAID = 5
_NAMES = {name.lower(): name for name in (*MONTHS, *DAYS)}  # WordNet's counts are by lowercase lemma: "june"
MIN_USES = 2  # times a word is tagged in WordNet's texts: those used once are too rare to offer
_WORD = r"(?P<word>[a-z']+)"
_ASKED = phrases.requests(
    {
        "rhyme": r"(?:(?:what|which) (?:words? )?rhymes? with|(?:what's|what is|give me|tell me|find me|find"
        r"|say|what are) (?:a |an |some )?(?:word|words|rhyme|rhymes)(?: that| which)? (?:rhymes? )?(?:with"
        rf"|for)|does anything rhyme with|rhymes? (?:with|for)) {_WORD}"
    }
)


def answer(text: str) -> str | None:
    """Words that rhyme with the one asked about, most used first; None for any other text."""
    kind, m = phrases.first_match(_ASKED, normalize(text))
    if kind is None:
        return None
    word = m["word"]
    if not (wordnet_dir() / "cntlist.rev").is_file():
        return MISSING
    key = rhyme_key(word)
    found = [w for w in _by_rhyme().get(key, []) if w != word and not _same_word(w, word)]
    if not found:
        return f"Nothing I know rhymes with {word}."
    said = [_NAMES.get(w, w) for w in found[:MAX_SAID]]
    return f"{word.capitalize()} rhymes with {phrases.listed(said)}."


def cache_path() -> Path:
    """$XDG_CACHE_HOME/assistant/rhymes.json (default ~/.cache/assistant): what can be worked out again."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "assistant" / "rhymes.json"


def rhyme_key(word: str) -> str:
    """The sounds of `word` from its last stressed vowel on: "cat" → "æt", "moon" → "uːn"."""
    sounds = "".join(_phonemizer().phonemize("en-us", word)[0])
    stress = sounds.rfind("ˈ")
    return sounds[stress + 1 :].replace("ˌ", "") if stress >= 0 else sounds


def _same_word(other: str, word: str) -> bool:
    """ "bobcat" for "cat", "cats": the word itself said again, not a rhyme."""
    return other.endswith(word) or word.endswith(other) or other.rstrip("s") == word.rstrip("s")


@functools.cache
def _by_rhyme() -> dict[str, list[str]]:
    """Rhyme key → the words WordNet's tagged texts use at least MIN_USES times, most used first:
    read from the cache when it was worked out from the same files, else worked out and kept there."""
    counts = wordnet_dir() / "cntlist.rev"
    made_from = (
        f"{counts.resolve()} {counts.stat().st_size} {counts.stat().st_mtime_ns} {MIN_USES} {_espeak()}"
    )
    try:
        kept = json.loads(cache_path().read_text())
        if kept.get("made_from") == made_from:
            return kept["rhymes"]
    except (OSError, ValueError, AttributeError):  # none yet, or not one of ours
        pass
    found = _worked_out(counts)
    try:
        cache_path().parent.mkdir(parents=True, exist_ok=True)
        partial = cache_path().with_suffix(".partial")
        partial.write_text(json.dumps({"made_from": made_from, "rhymes": found}))
        partial.replace(cache_path())  # whole or not at all
    except OSError as err:  # a read-only home: worked out again next run
        log.warning("rhymes not kept in %s: %s", cache_path(), err)
    return found


def _worked_out(counts: Path) -> dict[str, list[str]]:
    uses: Counter[str] = Counter()
    with open(counts) as lines:
        for line in lines:  # "cat%1:05:00:: 1 18": a sense key, its sense number, times tagged
            key, _, tagged = line.split()
            lemma = key.split("%")[0]
            if lemma.isalpha():
                uses[lemma] += int(tagged)
    found: dict[str, list[str]] = {}
    for word, n in uses.most_common():
        if n >= MIN_USES:
            found.setdefault(rhyme_key(word), []).append(word)
    return found


def _espeak() -> str:
    """The phonemizer's version, part of what the cache was made from."""
    from importlib.metadata import version

    return f"piper-tts {version('piper-tts')}"


@functools.cache
def _phonemizer():
    from piper.phonemize_espeak import EspeakPhonemizer

    return EspeakPhonemizer()
