"""How often a request the assistant answers itself (README, "Answers without the LLM") gets the
same answer said as typed.

Held-out synthetic voices (`make_dataset.py`'s: never trained on) say each request; it is
recognized as the listener's final is (full context, the language model's beam search) and offered
to the answerers in `AnswerStage.process`'s order. Its answer is compared with the typed request's,
at the same moment. Per kind of request:

- right: the same answerer gave the same answer ("Timer set for 25 minutes.");
- asked back: a timer, alarm or reminder whose time was lost ("remind me to call my morning hour":
  "When? ..."), which the user then says again;
- wrong: an answerer gave another answer (heard "fifty" for "fifteen": a timer set for the wrong
  time, the worst case);
- to the LLM: no answerer took it (the user hears the LLM instead, as for any other question).

Timers, alarms and reminders are compared by `timer_requests.parse_request` (what would be set, and when),
lists by `lists.parse` (what would be added, removed or read) and the name by `about_you.parse`, so
that nothing is set or kept.
Replay ("say that again") and the voice ("speak slower") answer from the conversation and the
voice, forgetting asks back, and jokes and chance are drawn at random, so they are not here; wake
phrases and "stop listening" are `bench_wake.py`'s.

    python scripts/bench_requests.py                    # 12 voices
    python scripts/bench_requests.py --voices 4 --show  # and each answer that was not right
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_wake import synthesize, voices  # noqa: E402 (beside this script)

from assistant import (  # noqa: E402
    about_you,
    arithmetic,
    clock,
    computer,
    constants,
    courtesy,
    dates,
    dictionary,
    elements,
    limits,
    lists,
    places,
    rhymes,
    sky,
    spelling,
    units,
)
from assistant.asr.recognizer import StreamingRecognizer  # noqa: E402
from assistant.config import AsrConfig  # noqa: E402
from assistant.lists import ListRequest  # noqa: E402
from assistant.timer_requests import Request, parse_request  # noqa: E402

# (kind, request as said); the words as the recognizer spells them, so that the TTS says them so
REQUESTS = [
    ("time and date", "what time is it"),
    ("time and date", "what's the time"),
    ("time and date", "what day is it today"),
    ("time and date", "what's the date today"),
    ("time and date", "what day is it tomorrow"),
    ("time and date", "how many days until christmas"),
    ("time and date", "when is thanksgiving"),
    ("time and date", "how many weeks until easter"),
    ("time and date", "what time is it in tokyo"),
    ("time and date", "how many days are left in the year"),
    ("time and date", "is it a leap year"),
    ("time and date", "what's the time difference between london and tokyo"),
    ("time and date", "when does the sun set"),
    ("time and date", "what's the moon phase tonight"),
    ("time and date", "how many days until winter"),
    ("time and date", "when is the longest day of the year"),
    ("science", "how far away is the moon"),
    ("science", "what is the speed of light"),
    ("science", "what is element number seventy nine"),
    ("science", "what's the chemical symbol for gold"),
    ("timers", "set a timer for ten minutes"),
    ("timers", "set a timer for twenty five minutes"),
    ("timers", "set a timer for fifteen minutes"),
    ("timers", "set a five minute timer"),
    ("timers", "how much time is left"),
    ("timers", "cancel the timer"),
    ("timers", "set a pasta timer for eight minutes"),
    ("timers", "cancel the timer for ten minutes"),
    ("timers", "pause the timer"),
    ("timers", "add five minutes to the timer"),
    ("alarms", "wake me up at seven"),
    ("alarms", "set an alarm for six thirty tomorrow morning"),
    ("alarms", "when is my alarm"),
    ("alarms", "wake me up tomorrow at six"),
    ("alarms", "cancel my alarm for seven"),
    ("alarms", "snooze"),
    ("alarms", "please snooze"),
    ("alarms", "wake me up at seven on weekdays"),
    ("alarms", "move my alarm to seven thirty"),
    ("reminders", "remind me to call my mom in an hour"),
    ("reminders", "remind me to take out the trash at seven p m"),
    ("reminders", "remind me to water the plants at nine tomorrow"),
    ("reminders", "remind me tomorrow at eight to call the dentist"),
    ("reminders", "what are my reminders"),
    ("reminders", "remind me every day at nine to take my pills"),
    ("reminders", "remind me every hour to drink water"),
    ("reminders", "remind me in two days to call the dentist"),
    ("reminders", "remind me every other day at nine to feed the fish"),
    ("reminders", "remind me on the first of every month at nine to pay the rent"),
    ("sums", "what is twelve times seven"),
    ("sums", "what is three hundred and forty five plus six hundred and seventy eight"),
    ("sums", "what is fifteen percent of eighty"),
    ("sums", "what is the square root of one hundred and forty four"),
    ("sums", "what is ninety divided by six"),
    ("sums", "what is half of two hundred and fifty"),
    ("units", "how many kilometers in five miles"),
    ("units", "how many feet in a mile"),
    ("units", "convert seventy degrees fahrenheit to celsius"),
    ("lists", "add milk to my shopping list"),
    ("lists", "what's on my shopping list"),
    ("lists", "remove eggs from the list"),
    ("lists", "make a note that the car is on level three"),
    ("lists", "add milk"),
    ("lists", "we're out of eggs"),
    ("about you", "my name is anna"),
    ("about you", "what's my name"),
    ("about you", "my birthday is march third"),
    ("courtesies", "never mind"),
    ("courtesies", "thank you"),
    ("courtesies", "good morning"),
    ("spelling", "how do you spell rhythm"),
    ("spelling", "how do you spell necessary"),
    ("spelling", "what rhymes with cat"),
    ("dictionary", "what does ephemeral mean"),
    ("dictionary", "what's another word for happy"),
    ("dictionary", "what's the opposite of generous"),
    ("dictionary", "what does nasa stand for"),
    ("dictionary", "who was isaac newton"),
    ("places", "what's the capital of australia"),
    ("places", "how far is paris from london"),
    ("places", "how many people live in japan"),
    ("limits", "what's the weather like today"),
    ("limits", "turn on the kitchen lights"),
    ("limits", "what can you do"),
    ("limits", "what's the temperature outside"),
]


def answerers(now: datetime) -> list[tuple[str, Callable[[str], object]]]:
    """`AnswerStage.process`'s answerers in its order, less those that answer from the conversation
    or the voice; timers by what they would set."""
    return [
        ("lists", lists.parse),  # what would be done, so that no list changes
        ("about_you", about_you.parse),  # nor what it knows of the user
        ("clock", lambda text: clock.answer(text, now)),
        ("dates", lambda text: dates.answer(text, now)),
        ("sky", lambda text: sky.answer(text, now)),
        ("timers", lambda text: parse_request(text, now)),
        ("arithmetic", arithmetic.answer),
        ("units", units.answer),
        ("spelling", spelling.answer),
        ("rhymes", rhymes.answer),
        ("constants", constants.answer),
        ("dictionary", dictionary.answer),
        ("places", places.answer),
        ("elements", elements.answer),
        ("computer", computer.answer),
        ("courtesy", courtesy.answer),
        ("limits", limits.answer),
    ]


def answered(text: str, now: datetime) -> tuple[str, object]:
    """(the answerer that takes `text`, its answer), or ("llm", None)."""
    for source, answer in answerers(now):
        if (said := answer(text)) is not None:
            return source, said
    return "llm", None


OUTCOMES = ("right", "asked back", "wrong answer", "to the LLM")


def outcome(got: tuple[str, object], expected: tuple[str, object]) -> str:
    if got == expected:
        return "right"
    if got[0] == "llm":
        return "to the LLM"
    asked = got[1]
    if isinstance(asked, Request) and asked.what in ("set", "alarm", "remind") and asked.seconds is None:
        return "asked back"  # "When? Say, for example: ...": nothing set
    if isinstance(asked, ListRequest) and asked.what == "ask":
        return "asked back"  # "add it to the list": "What should I add ...?"
    return "wrong answer"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--voices", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", action="store_true", help="print each wrong answer and what was heard")
    args = ap.parse_args()

    now = datetime.now().replace(second=0, microsecond=0)  # one moment: clock answers compare
    expected = {text: answered(text, now) for _, text in REQUESTS}
    if untaken := [text for text, (source, _) in expected.items() if source == "llm"]:
        sys.exit(f"typed, no answerer takes {untaken}: the list is out of date")
    recognizer = StreamingRecognizer.from_settings(AsrConfig()).build()
    chosen = voices(args.voices, args.seed)
    counts: dict[str, Counter] = {kind: Counter() for kind, _ in REQUESTS}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for voice in chosen:
            for kind, text in REQUESTS:
                heard = recognizer.transcribe_apart(synthesize(voice, text, tmp))
                got = answered(heard, now)
                said = outcome(got, expected[text])
                counts[kind][said] += 1
                if args.show and said != "right":
                    print(f"{voice}: {text!r} heard {heard!r} → {said}, {got[0]}: {got[1]!r}")
    n = len(chosen) * len(REQUESTS)
    print(f"\n{len(chosen)} held-out voices: {', '.join(chosen)}")
    print(f"{n} requests recognized in {time.perf_counter() - started:.0f} s, answered as at {now:%H:%M}\n")
    print(f"| requests | said | {' | '.join(OUTCOMES)} |\n|---|---|{'---|' * len(OUTCOMES)}")
    counts["all"] = sum(counts.values(), Counter())
    for kind, c in counts.items():
        said = c.total()
        cells = [f"{c['right']} ({c['right'] / said:.0%})", *(str(c[o]) for o in OUTCOMES[1:])]
        print(f"| {kind} | {said} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
