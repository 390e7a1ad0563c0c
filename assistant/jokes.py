"""A joke when one is asked for, from pyjokes' one-liners instead of made up by the LLM.

Asked for a joke five times, the embedded LLM said "A: "What's the joke?" The answer is: "Lemon
Balm"", "Why did the cat have a tail? Because it had one.", and one that mocked a man who cannot
walk (first turns through `LocalLlm`, 2026-12-08). pyjokes (BSD-3-Clause) keeps one-liners for
programmers; these are the ones of its "neutral" English set that work said aloud and for anyone:
no code, digits or spelled-out capitals to read, no jokes about dying or users' stupidity. They are
told in a shuffled order, none twice until all have been. Matched whole on `asr.text.normalize()`d
text; a joke about something named ("a joke about cats") is the LLM's.

    jokes.answer("tell me a joke")   # "Why do programmers prefer dark mode? Because light attracts bugs."
"""

from __future__ import annotations

import functools
import random

from assistant import phrases

_ASKED = phrases.requests(
    {
        "joke": r"(?:tell me|say|give me|do you know|know) (?:a|another|one more|any|some)"
        r"(?: good| funny| new)? jokes?|(?:another|one more) joke|joke(?: please)?|make me laugh"
        r"|say something funny"
        r"|(?:tell me|do you have|have you got) (?:a |any )?(?:programming|computer|nerdy|geeky) jokes?"
    },
    tail=r"(?: for me)?(?: please)?",
)
# pyjokes' texts, exactly (its version pinned): each is told only if pyjokes still has it
TOLD = frozenset({
    "To understand recursion you must first understand recursion.",
    "How many programmers does it take to change a lightbulb? None, that's a hardware problem.",
    "What's the object-oriented way to become wealthy? Inheritance.",
    "Two bytes meet. The first byte asks, 'Are you ill?' The second byte replies, 'No, just feeling a bit"
    " off.'",
    "Eight bytes walk into a bar. The bartender asks, 'Can I get you anything?' 'Yeah,' replies the bytes."
    " 'Make us a double.'",
    "Why did the programmer quit his job? Because he didn't get arrays.",
    "Hardware: The part of a computer that you can kick.",
    "Optimist: The glass is half full. Pessimist: The glass is half empty. Programmer: The glass is twice as"
    " large as necessary.",
    "What do you call a programmer from Finland? Nerdic.",
    "Child: Dad, why does the sun rise in the east and set in the west? Dad: Son, it's working, don't touch"
    " it.",
    "Waiter: Would you like coffee or tea? Programmer: Yes.",
    "A product manager walks into a bar, asks for drink. Bartender says no, but will consider adding later.",
    "There are only two hard problems in Computer Science: cache invalidation, naming things and"
    " off-by-one-errors.",
    "The best thing about a Boolean is that even if you are wrong, you are only off by a bit.",
    "A good programmer is someone who always looks both ways before crossing a one-way street.",
    "Why does Waldo only wear stripes? Because he doesn't want to be spotted.",
    "All programmers are playwrights, and all computers are lousy actors.",
    "The generation of random numbers is too important to be left to chance.",
    "I have a joke on programming but it only works on my computer.",
    "A user friendly computer first requires a friendly user.",
    "Bug? That's not a bug, that's a feature.",
    "Computer analyst to programmer: You start coding. I'll go find out what they want.",
    "One person's error is another person's data.",
    "There were computers in Biblical times. Eve had an Apple.",
    "Warning, keyboard not found. Press Enter to continue.",
    "You are making progress if each mistake is a new one.",
    "You never finish a program, you just stop working on it.",
    "Why was the developer bankrupt? He'd used all his cache.",
    "I changed my password to BeefStew but the computer told me it wasn't Stroganoff.",
    "Changed my password to fortnight but apparently that's two week.",
    "Bugs come in through open Windows.",
    "Computers are like air conditioners: they stop working when you open Windows.",
    "My attitude isn't bad. It's in beta.",
    "Programmers are tools for converting caffeine into code.",
    "There are three kinds of people: those who can count and those who can't.",
    "Why do programmers prefer dark mode? Because light attracts bugs.",
    "Why do Java programmers have to wear glasses? Because they don't see sharp.",
    "Debugging: Removing the needles from the haystack.",
    "An SQL query goes into a bar, walks up to two tables and asks, 'Can I join you?'",
})  # fmt: skip


def answer(text: str) -> str | None:
    """The next joke of the shuffled deck for a request for one; None for any other text."""
    if phrases.kind_of(_ASKED, text) is None:
        return None
    deck = _deck()
    if not deck:  # all told: shuffle them again
        deck.extend(_shuffled())
    return deck.pop()


def told() -> list[str]:
    """The jokes told, in pyjokes' order: those of TOLD that its installed version has."""
    import pyjokes

    return [joke for joke in pyjokes.get_jokes(language="en", category="neutral") if joke in TOLD]


@functools.cache
def _deck() -> list[str]:
    """The jokes not yet told, this process's first shuffle to begin with."""
    return _shuffled()


def _shuffled() -> list[str]:
    jokes = told()
    random.shuffle(jokes)
    return jokes
