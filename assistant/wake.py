"""Wake phrases: whether an utterance is said to the assistant.

With `[wake] phrases` empty (the default) every utterance is a request. With phrases set
(`phrases = ["computer"]`), an utterance is a request only when it begins with one ("Computer, what
time is it?" asks "What time is it?"), is said over an answer (a barge-in: the user is talking to
it), or begins within `follow_up_s` of the end of the last answer ("... and tomorrow?"). Anything
else is heard and let go: a television, people talking to each other. The phrase alone ("Computer.")
is answered "Yes?" and opens the follow-up window.

The phrase is matched on the recognizer's words, which may spell a name their own way ("computor",
"hey assist and"): the utterance's first words, joined, against the phrase by letters (difflib's
ratio at least MATCH_RATIO, from the same first letter, about as long), one greeting allowed
before it ("hey", "okay"); a phrase that opens with a greeting is also found without it, after
any short word ("i jarvis" for "hey jarvis").

"Stop listening" (or "go to sleep") puts the assistant to sleep, phrases or none: it says so, and
from then on lets every utterance go but one that begins with a wake phrase or with "wake up",
which wakes it; what follows the phrase is asked ("Wake up, what time is it?"), the phrase alone
is answered "I'm listening." Timers and alarms still ring while it sleeps. It wakes with every
start of `assistant run`.
"""

from __future__ import annotations

import difflib
import re

from assistant import phrases
from assistant.asr.text import normalize
from assistant.config import Config, WakeConfig
from assistant.phrases import LEAD_IN

# Letters in common between a wake phrase and the utterance's first words (difflib's ratio) from
# which they are the phrase: "computer" against "computor" 0.88, "commuter" 0.93, "come to her" 0.71,
# "compute" 0.93 (`scripts/bench_wake.py` measures what the recognizer makes of the phrase)
MATCH_RATIO = 0.8
LENGTH_SLACK = 0.2  # and as long, in letters, give or take this share of the phrase's
SHORT_LETTERS = 3  # a word this short may stand for the greeting that opens a phrase ("i" for "hey")
GREETINGS = ("hey", "hi", "ok", "okay", "oh", "hello")  # may come before the phrase: "hey computer"
REPLY = "Yes?"  # to the phrase alone
# wakes it from sleep, as a wake phrase does ("start listening" is too near "stop listening" by letters)
WAKE_UP = ("wake up",)
ASLEEP = "Okay, I'll stop listening. Say wake up when you need me."
AWAKE = "I'm listening."  # to "wake up" alone
_SLEEP = {
    "sleep": re.compile(
        # "stop listen": how the recognizer heard one of twelve voices (`scripts/bench_wake.py`)
        rf"{LEAD_IN}(?:stop listen(?:ing)?(?: to (?:me|us))?|go to sleep|don't listen|do not listen)"
        r"(?: now| please| for (?:a while|now))*"
    )
}
NS_PER_S = 1_000_000_000


def unknown_words(cfg: Config) -> list[str]:
    """The wake phrases' words the recognizer cannot write, so never hears: with the language model
    on, its finals hold only the words of its lexicon (`[asr] lm`'s `_words.txt`)."""
    if not cfg.wake.phrases or not cfg.asr.language_model:
        return []
    from assistant.asr.lm_decoder import words_path_for  # (flashlight: only where phrases are set)

    lexicon = set(words_path_for(cfg.asr.lm_path).read_text().split())
    return [word for phrase in cfg.wake.phrases for word in normalize(phrase).split() if word not in lexicon]


def describe_unknown(cfg: Config, words: list[str]) -> str:
    """One line for `unknown_words`: `assistant run` warns it, `assistant doctor` fails on it."""
    from assistant.asr.lm_decoder import words_path_for

    listed = ", ".join(repr(word) for word in words)
    return (
        f"[wake] phrases: {listed} not in the recognizer's words ({words_path_for(cfg.asr.lm_path)}), "
        "so never heard; fix: choose a phrase of words in that list"
    )


def is_sleep(text: str) -> bool:
    """Whether `text` asks the assistant to stop listening ("stop listening", "go to sleep")."""
    return phrases.kind_of(_SLEEP, text) is not None


def _spelt(texts: list[str] | tuple[str, ...]) -> list[tuple[str, int, bool]]:
    """(each phrase as the recognizer spells it, without spaces: it may split or join words; its
    length in words; whether any short word may stand before it): a phrase that opens with a
    greeting also without it, after any short word, which is how the recognizer heard many a
    "hey": "assistant ...", "i jarvis ..." (`scripts/bench_wake.py`)"""
    spelt = [normalize(text).split() for text in texts]
    found = [("".join(words), len(words), False) for words in spelt]
    greeted = [words for words in spelt if len(words) > 1 and words[0] in GREETINGS]
    return found + [("".join(words[1:]), len(words) - 1, True) for words in greeted]


class WakeGate:
    """Decides, per final transcript, whether it is a request, and takes the wake phrase off it.
    `asleep`: the user asked it to stop listening (`is_sleep`); the listener sets it, and clears it
    on the final that `request` took while asleep."""

    def __init__(self, cfg: WakeConfig) -> None:
        self.follow_up_ns = int(cfg.follow_up_s * NS_PER_S)
        self._phrases = _spelt(cfg.phrases)
        self._waking = self._phrases + _spelt(WAKE_UP)
        self.asleep = False

    @property
    def enabled(self) -> bool:
        return bool(self._phrases)

    def request(self, text: str, spoken_ns: int, answer_end_ns: int | None, answering: bool) -> str | None:
        """What `text` (a final transcript, its speech begun at `spoken_ns`) asks, the wake phrase
        taken off; "" for the phrase alone; None where it is not said to the assistant. Without
        phrases, `text` itself. `answer_end_ns`: when the last answer ended (None: none yet);
        `answering`: an answer is under way. Asleep, only what begins with a wake phrase or
        WAKE_UP is taken, the phrase off."""
        if self.asleep:
            return self.strip(text, self._waking)
        if not self.enabled:
            return text
        rest = self.strip(text)
        if rest is not None:
            return rest
        if answering:
            return text
        if answer_end_ns is not None and spoken_ns - answer_end_ns <= self.follow_up_ns:
            return text
        return None

    def strip(self, text: str, among: list[tuple[str, int, bool]] | None = None) -> str | None:
        """`text` without the wake phrase it begins with (its first letter made a capital); None
        where it does not begin with one. `among`: `_spelt` phrases instead of `[wake] phrases`."""
        among = self._phrases if among is None else among
        words = text.split()
        # each word as the recognizer spells it, once: a partial transcript comes every block
        longest = max((length for _, length, _ in among), default=0)
        spelt = [normalize(word) for word in words[: longest + 2]]
        best: tuple[float, int] | None = None  # (ratio, words the phrase took)
        first = spelt[0] if spelt else ""
        for phrase, length, after_any_short in among:
            for start in (0, 1):
                if start and not (first in GREETINGS or (after_any_short and len(first) <= SHORT_LETTERS)):
                    continue
                # the recognizer may split a word in two or join two: one word more or fewer
                for n in (length, length + 1, length - 1):
                    if n < 1 or start + n > len(words):
                        continue
                    said = "".join(spelt[start : start + n]).replace(" ", "")
                    # from its first letter, as long give or take LENGTH_SLACK: not "a computer is
                    # slow" (which "the computer is slow today" was heard as), nor "assist"
                    if said[:1] != phrase[:1] or abs(len(said) - len(phrase)) > LENGTH_SLACK * len(phrase):
                        continue
                    ratio = difflib.SequenceMatcher(None, said, phrase).ratio()
                    if ratio >= MATCH_RATIO and (best is None or ratio > best[0]):
                        best = (ratio, start + n)
        if best is None:
            return None
        rest = " ".join(words[best[1] :]).lstrip(" ,.!?;:")
        return rest[:1].upper() + rest[1:]
