"""How often the local LLM's answers run in loops, and copy its remembered answers in a conversation.

Each prompt is asked alone (an empty memory: a loop is the model's own, not one copied from stored
answers) `--samples` times per penalty, at the configured temperature. An answer loops when some
run of four words comes back three times or more ("it's a city that's both a city and a city. It's
a city that's both a city and a city ..."). Factual questions with one right word check that a
penalty does not cost right answers. Per penalty: looping answers, answers that stopped at
`max_answer_tokens` and those that end mid-sentence, right factual answers, words per answer,
tokens/s.

    python scripts/bench_answers.py                   # [llm] repeat_penalty 1.0 (off) and 1.1
    python scripts/bench_answers.py --penalties 1.0 1.05 1.1 1.2 --samples 5 --show

`--conversation` asks instead within one conversation, as `assistant chat` does: every answer is
remembered in a real SQLite memory and the next prompt carries the `[memory]` window of it, for each
`--windows` value. Each round asks the 30 prompts in a new order (one order per `--seeds` value),
after the user has said their name and city: the name is asked for at once (the last exchange) and
the city one prompt later (two exchanges back). Per window: answers that open with the same three
words as an answer in their window ("The answer to this question in the context of ..."), answers
half of whose four-word runs come from one answer in their window, right factual answers, names and
cities recalled.

    python scripts/bench_answers.py --conversation --windows 8 4 2 --seeds 1 2 3

`--clock` asks why `assistant/clock.py` answers clock questions itself: at random moments of a
year, the LLM is told the local date and time just before the question ("It is 3:56 PM on Sunday,
December 6, 2026.", a system message) and asked for the time, the weekday and the date; per
question, how many of its answers hold the right one, beside the clock's own answer (and the LLM
told nothing, which can only guess).

    python scripts/bench_answers.py --clock --samples 20

`--sums` asks why `assistant/arithmetic.py` and `assistant/units.py` work out sums and conversions
themselves: random sums (a + b, a × b, p percent of q) and conversions (miles, pounds, feet, inches,
fahrenheit), asked as the recognizer spells them ("what is three hundred and forty five plus ...")
and as typed with digits; per kind, how many of the LLM's answers hold the right value (a number
within 1%, or exact for a whole one), beside the module's own answer under the same check.

    python scripts/bench_answers.py --sums --samples 20

`--words` asks why `assistant/dictionary.py` answers opposites and synonyms from WordNet: for common
words, "What is the opposite of hot?" and "What's another word for happy?"; per request, how many of
the LLM's answers name one of WordNet's antonyms (any sense) or one of the words WordNet relates to
the word's first meanings (its synonyms, "similar to" and "see also" words), beside how many of the
20 the dictionary answered with words, with "I don't know another word for ...", or left to the
LLM (an opposite WordNet lacks).

    python scripts/bench_answers.py --words --samples 3

`--places` asks why `assistant/places.py` answers capitals, populations and distances from GeoNames:
for the 40 countries with the most people, "What's the capital of Japan?", "What's the population
of Japan?", "What currency does Japan use?" and "What language do they speak in Japan?"; for 12
pairs of cities, "How far is Paris from London?"; and for the 50 US states, "What's the capital of
Texas?" and "When did Texas become a state?". Per request, how many of the LLM's answers name the
capital GeoNames (or the `us` package) names (or another of its names for it: "Kiev"), a word of
its currency's name ("yen", "dollar"), one of the CLDR's official languages (or the main one where
none is in law), the year the state became one, or hold a number within 25% of its count or 15% of
the great circle (kilometers or miles), beside how many places.py answered.

    python scripts/bench_answers.py --places --samples 2

`--elements` asks why `assistant/elements.py` answers from the periodic table's data: for each of
the 118 elements, "What's the chemical symbol for gold?", "What's the atomic number of gold?",
"What element has the atomic number 79?" and "What's the atomic weight of gold?". Per request, how
many of the LLM's answers hold the symbol (as written: "Au"), the number, the element's name, or a
weight within 1% of NIST's, beside how many elements.py answered.

    python scripts/bench_answers.py --elements --samples 1
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from num2words import num2words  # noqa: E402

from assistant import arithmetic, clock, dictionary, elements, places, units  # noqa: E402
from assistant.asr.text import normalize  # noqa: E402
from assistant.config import LlmConfig, MemoryConfig  # noqa: E402
from assistant.llm import LocalLlm  # noqa: E402
from assistant.memory import Memory  # noqa: E402
from assistant.prompt import build_messages, window  # noqa: E402

OPEN = [
    "Tell me about Paris.",
    "Tell me a story.",
    "Tell me a long story about a dragon and a knight.",
    "What can you do?",
    "Describe the ocean.",
    "Tell me about yourself.",
    "What is your favourite food?",
    "Tell me about the history of Rome.",
    "Explain how a car works.",
    "Describe a sunset.",
    "What is love?",
    "Tell me about dogs.",
    "Tell me something interesting.",
    "What should I do this weekend?",
    "Tell me about the moon.",
    "Give me some advice.",
    "Describe your day.",
    "What is music?",
    "Tell me about London.",
    "Why is the sky blue?",
]
FACTUAL = {
    "What is the capital of France?": "paris",
    "How many days are in a week?": "seven|7",
    "What do bees make?": "honey",
    "Which planet is the largest?": "jupiter",
    "What is the opposite of hot?": "cold",
    "What language do people speak in Brazil?": "portuguese",
    "Who wrote Romeo and Juliet?": "shakespeare",
    "What color is the sky on a clear day?": "blue",
    "How many legs does a dog have?": "four|4",
    "What is the freezing point of water?": "zero|0|32",
}
PEOPLE = [("Sam", "Oslo"), ("Maria", "Lima"), ("Tom", "Cairo"), ("Aisha", "Dublin"), ("Peter", "Kyoto")]
LOOP_WORDS, LOOP_TIMES = 4, 3
OPENING_WORDS = 3  # an answer "opens the same" as another when these first words are equal
COPIED_SHARE = 0.5  # an answer is "copied" when this share of its four-word runs comes from one answer


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def word_runs(text: str) -> list[tuple[str, ...]]:
    """Every run of LOOP_WORDS consecutive words, in order."""
    ws = words(text)
    return [tuple(ws[i : i + LOOP_WORDS]) for i in range(len(ws) - LOOP_WORDS + 1)]


def loops(answer: str) -> bool:
    """Some run of LOOP_WORDS words comes back LOOP_TIMES times or more."""
    runs = Counter(word_runs(answer))
    return bool(runs) and max(runs.values()) >= LOOP_TIMES


def same_opening(answer: str, earlier: list[str]) -> bool:
    """The answer's first OPENING_WORDS words open one of the earlier answers too."""
    opening = words(answer)[:OPENING_WORDS]
    return len(opening) == OPENING_WORDS and any(words(e)[:OPENING_WORDS] == opening for e in earlier)


def copied(answer: str, earlier: list[str]) -> bool:
    """At least COPIED_SHARE of the answer's four-word runs come from one earlier answer."""
    mine = set(word_runs(answer))
    return bool(mine) and any(len(mine & set(word_runs(e))) >= COPIED_SHARE * len(mine) for e in earlier)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--penalties", type=float, nargs="+", default=[1.0, 1.1], help="repeat_penalty values"
    )
    parser.add_argument("--samples", type=int, default=3, help="answers per prompt and setting")
    parser.add_argument("--show", action="store_true", help="print every looping (copied) answer")
    parser.add_argument("--conversation", action="store_true", help="ask within one remembered conversation")
    parser.add_argument("--windows", type=int, nargs="+", default=[8, 2], help="[memory] window_turns values")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="one conversation per seed")
    parser.add_argument("--rounds", type=int, default=3, help="times each prompt is asked per conversation")
    parser.add_argument("--clock", action="store_true", help="the LLM told the time, asked for it")
    parser.add_argument("--sums", action="store_true", help="the LLM asked sums and conversions")
    parser.add_argument("--words", action="store_true", help="the LLM asked opposites and synonyms")
    parser.add_argument(
        "--places", action="store_true", help="the LLM asked capitals, populations, distances"
    )
    parser.add_argument("--elements", action="store_true", help="the LLM asked symbols, numbers, weights")
    return parser.parse_args()


def run(penalty: float, samples: int, show: bool) -> dict:
    cfg = LlmConfig(repeat_penalty=penalty)
    llm = LocalLlm(cfg).build()
    looped, cut, unfinished, right, words, speeds = 0, 0, 0, 0, [], []
    for prompt in [*OPEN, *FACTUAL]:
        for _ in range(samples):
            llm.reset()  # each answer from an empty cache too: nothing carried over
            answer = "".join(llm.stream(build_messages(cfg.system_prompt, [], prompt)))
            stats = llm.last_stats
            speeds.append(stats.tokens_per_s)
            words.append(len(answer.split()))
            cut += stats.stop == "max_tokens"
            unfinished += not answer.rstrip().rstrip("\"')*”’»").endswith((".", "!", "?", "…"))
            if loops(answer):
                looped += 1
                if show:
                    print(f"  [{penalty}] {prompt} → {answer.strip()}")
            if prompt in FACTUAL:
                right += bool(re.search(rf"\b({FACTUAL[prompt]})\b", answer.lower()))
    llm.close()
    n = (len(OPEN) + len(FACTUAL)) * samples
    return dict(penalty=penalty, n=n, looped=looped, cut=cut, unfinished=unfinished, right=right,
                facts=len(FACTUAL) * samples, words=statistics.median(words),
                speed=statistics.median(speeds))  # fmt: skip


def conversation(seed: int, rounds: int) -> list[tuple[str, str]]:
    """(prompt, what a right answer holds: a regex, or "" when any answer will do), in asking order."""
    rng, asked = random.Random(seed), []
    people = rng.sample(PEOPLE, min(rounds, len(PEOPLE)))  # then again from the first
    for name, city in (people[i % len(people)] for i in range(rounds)):
        prompts = [(p, "") for p in OPEN] + [(p, right) for p, right in FACTUAL.items()]
        rng.shuffle(prompts)
        asked += [(f"My name is {name} and I live in {city}.", ""), ("What is my name?", name.lower())]
        asked += [prompts[0], ("Where do I live?", city.lower()), *prompts[1:]]
    return asked


def converse(
    window_turns: int,
    seed: int,
    rounds: int,
    show: bool = False,
    cfg: LlmConfig | None = None,
    turns: int | None = None,
) -> Counter:
    """One conversation (its first `turns`) through a real memory file and the prompt window
    `assistant chat` uses."""
    cfg, counts = cfg or LlmConfig(), Counter()
    llm = LocalLlm(cfg).build()
    with tempfile.TemporaryDirectory() as folder:
        mcfg = MemoryConfig(path=f"{folder}/memory.db", window_turns=window_turns)
        memory = Memory(mcfg).build()
        for prompt, right in conversation(seed, rounds)[:turns]:
            past = window(memory.recent(window_turns), mcfg, llm.count_tokens)
            answer = "".join(llm.stream(build_messages(cfg.system_prompt, past, prompt))).strip()
            memory.add("user", prompt)
            memory.add("assistant", answer)
            earlier = [t.text for t in past if t.role == "assistant"]
            kind = {"What is my name?": "name", "Where do I live?": "city"}.get(prompt, "fact")
            opens_same, copies = same_opening(answer, earlier), copied(answer, earlier)
            counts["answers"] += 1
            counts["same_opening"] += opens_same
            counts["copied"] += copies
            counts[f"{kind}_asked"] += bool(right)
            counts[f"{kind}_right"] += bool(right) and bool(re.search(rf"\b({right})\b", answer.lower()))
            counts["ttft_ms"] += round(1000 * (llm.last_stats.ttft_s or 0))
            if show and (opens_same or copies):
                print(f"  [window {window_turns}, seed {seed}] {prompt} → {answer}")
        memory.close()
    llm.close()
    return counts


def main_conversation(args: argparse.Namespace) -> None:
    started = time.strftime("%Y-%m-%d %H:%M")
    rows = []
    for w in args.windows:
        per_seed = [converse(w, seed, args.rounds, args.show) for seed in args.seeds]
        rows.append((w, per_seed))
    print(f"\n{started}; conversations of {args.rounds} rounds × ({len(OPEN)} open + {len(FACTUAL)} factual "
          f"prompts + 3 about the user), seeds {args.seeds}; temperature {LlmConfig().temperature}; "
          f"cpus={os.cpu_count()}; per seed: a / b / c\n")  # fmt: skip
    print("| window_turns | answers | same opening | copied | factual right | name (last exchange) "
          "| city (two back) | first token ms, mean |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for w, per_seed in rows:
        print(conversation_row(w, per_seed))


def conversation_row(window_turns: int, per_seed: list[Counter]) -> str:
    def each(key: str) -> str:
        return " / ".join(str(c[key]) for c in per_seed)

    def of(key: str) -> str:
        return f"{each(key + '_right')} of {per_seed[0][key + '_asked']}"

    ttft = sum(c["ttft_ms"] for c in per_seed) / sum(c["answers"] for c in per_seed)
    return (f"| {window_turns} | {each('answers')} | {each('same_opening')} | {each('copied')} "
            f"| {of('fact')} | {of('name')} | {of('city')} | {ttft:.0f} |")  # fmt: skip


CLOCK_QUESTIONS = {  # question → the part of the right answer it must hold, from the moment asked
    "What time is it?": lambda t: f"{t.hour % 12 or 12}:{t.minute:02d}",
    "What day is it today?": lambda t: clock.DAYS[t.weekday()],
    "What is the date today?": lambda t: f"{clock.MONTHS[t.month - 1]} {t.day}",
}


def main_clock(args: argparse.Namespace) -> None:
    started = time.strftime("%Y-%m-%d %H:%M")
    cfg = LlmConfig()
    llm = LocalLlm(cfg).build()
    rng = random.Random(5)
    rows = []
    for question, right in CLOCK_QUESTIONS.items():
        counts = Counter()
        for _ in range(args.samples):
            moment = datetime(2026, 1, 1) + timedelta(minutes=rng.randrange(365 * 24 * 60))
            note = {
                "role": "system",
                "content": f"It is {clock.time_of_day(moment)} on {clock.date_of(moment)}.",
            }
            asked = build_messages(cfg.system_prompt, [], question)
            told = "".join(llm.stream([*asked[:-1], note, asked[-1]]))
            untold = "".join(llm.stream(asked))
            counts["told"] += right(moment).lower() in told.lower()
            counts["untold"] += right(moment).lower() in untold.lower()
            counts["clock"] += right(moment).lower() in clock.answer(question, moment).lower()
            if args.show and right(moment).lower() not in told.lower():
                print(f"  [{note['content']}] {question} → {told.strip()}")
        rows.append((question, counts))
    llm.close()
    print(f"\n{started}; {args.samples} random moments of 2026 per question; temperature {cfg.temperature}\n")
    print("| question | LLM told the time | LLM not told | clock.py |")
    print("|---|---:|---:|---:|")
    for question, c in rows:
        print(f"| {question} | {c['told']} of {args.samples} | {c['untold']} | {c['clock']} |")


CONVERSIONS = (  # (from, to, factor or function): asked "how many <to> in <n> <from>"
    ("miles", "kilometers", lambda n: n * 1.609344),
    ("pounds", "kilograms", lambda n: n * 0.45359237),
    ("feet", "meters", lambda n: n * 0.3048),
    ("inches", "centimeters", lambda n: n * 2.54),
    ("fahrenheit", "celsius", lambda n: (n - 32) * 5 / 9),
)


def sum_question(kind: str, rng: random.Random) -> tuple[str, float]:
    """A question of `kind` with digits, and its right value."""
    if kind == "plus":
        a, b = rng.randrange(10, 1000), rng.randrange(10, 1000)
        return f"What is {a} plus {b}?", a + b
    if kind == "times":
        a, b = rng.randrange(2, 100), rng.randrange(2, 100)
        return f"What is {a} times {b}?", a * b
    if kind == "percent":
        p, q = 5 * rng.randrange(1, 20), 20 * rng.randrange(1, 21)
        return f"What is {p} percent of {q}?", p * q / 100
    source, target, convert = CONVERSIONS[rng.randrange(len(CONVERSIONS))]
    n = rng.randrange(2, 100) if source != "fahrenheit" else rng.randrange(0, 400)
    question = (
        f"How many {target} in {n} {source}?"
        if source != "fahrenheit"
        else f"Convert {n} fahrenheit to celsius."
    )
    return question, convert(n)


def spelt(question: str) -> str:
    """The question as the recognizer writes it: numbers in words ("three hundred and forty five")."""
    return re.sub(r"\d+", lambda m: num2words(int(m[0])).replace("-", " ").replace(",", ""), question)


def holds(answer: str, value: float) -> bool:
    """`answer` says `value`: exactly for a whole one, within 1% otherwise (digits, or words)."""
    numbers = [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*(?:\.\d+)?", answer)]
    numbers += [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", arithmetic.in_digits(answer))]
    if float(value).is_integer():
        return any(n == value for n in numbers)
    return any(abs(n - value) <= 0.01 * abs(value) for n in numbers)


def main_sums(args: argparse.Namespace) -> None:
    started = time.strftime("%Y-%m-%d %H:%M")
    cfg = LlmConfig()
    llm = LocalLlm(cfg).build()
    rng = random.Random(7)
    rows = []
    for kind in ("plus", "times", "percent", "convert"):
        counts = Counter()
        for _ in range(args.samples):
            question, value = sum_question(kind, rng)
            for form, asked in (("words", spelt(question)), ("digits", question)):
                said = "".join(llm.stream(build_messages(cfg.system_prompt, [], asked)))
                counts[form] += holds(said, value)
                if args.show and not holds(said, value):
                    print(f"  {asked} ({value:g}) → {said.strip()}")
            ours = arithmetic.answer(spelt(question)) or units.answer(spelt(question)) or ""
            counts["ours"] += holds(ours, value)
        rows.append((kind, counts))
    llm.close()
    print(f"\n{started}; {args.samples} random questions per kind; temperature {cfg.temperature}\n")
    print("| kind | LLM, numbers in words | LLM, in digits | arithmetic.py / units.py |")
    print("|---|---:|---:|---:|")
    for kind, c in rows:
        print(f"| {kind} | {c['words']} of {args.samples} | {c['digits']} | {c['ours']} |")


WORDS = ["hot", "generous", "happy", "increase", "big", "fast", "strong", "brave", "rich", "early", "empty",
         "polite", "heavy", "honest", "cheap", "accept", "remember", "arrive", "win", "smart"]  # fmt: skip


def related_words(word: str) -> tuple[set[str], set[str]]:
    """(WordNet's antonyms of `word` in any sense, the words it relates to each part of speech's
    first meaning: its synonyms, "similar to" and "see also" words), lowercase, spaces for "_"."""
    wordnet = dictionary.WordNet.at(dictionary.wordnet_dir())
    opposites, near = set(), set()
    for entry in wordnet.entries(word):
        for i, sense in enumerate(entry.senses):
            lemmas = [lemma.lower() for lemma in sense.synset.lemmas()]
            opposites |= {t.word for t in wordnet.related(sense.synset, "!", 1 + lemmas.index(sense.word))}
            if i == 0:
                nearby = wordnet.related(sense.synset, "^&")
                near |= {*lemmas, *(w.lower() for synset in nearby for w in synset.lemmas())}
    return {w.replace("_", " ").lower() for w in opposites}, {w.replace("_", " ") for w in near} - {word}


def main_words(args: argparse.Namespace) -> None:
    started = time.strftime("%Y-%m-%d %H:%M")
    cfg = LlmConfig()
    llm = LocalLlm(cfg).build()
    counts = {kind: Counter() for kind in ("opposite", "synonym")}
    for word in WORDS:
        opposites, near = related_words(word)
        for kind, asked, right in (
            ("opposite", f"What is the opposite of {word}?", opposites),
            ("synonym", f"What's another word for {word}?", near),
        ):
            ours = dictionary.answer(asked)
            counts[kind][
                "ours" if ours and not ours.startswith("I don't know") else "none" if ours else "llm"
            ] += 1
            for _ in range(args.samples):
                said = " ".join(words("".join(llm.stream(build_messages(cfg.system_prompt, [], asked)))))
                named = any(re.search(rf"\b{re.escape(w)}\b", said) for w in right)
                counts[kind]["named"] += named
                if args.show and not named:
                    print(f"  {asked} → {said} (WordNet: {', '.join(sorted(right)[:6])})")
    llm.close()
    print(f"\n{started}; {len(WORDS)} words × {args.samples} answers; temperature {cfg.temperature}\n")
    print("| request | LLM named one of WordNet's | dictionary.py: named | knew none | left to the LLM |")
    print("|---|---:|---:|---:|---:|")
    for kind, c in counts.items():
        asked = len(WORDS) * args.samples
        print(f"| the {kind} | {c['named']} of {asked} | {c['ours']} | {c['none']} | {c['llm']} |")


CITY_PAIRS = [("Paris", "London"), ("New York City", "Los Angeles"), ("Tokyo", "Sydney"),
              ("Boston", "Chicago"), ("Berlin", "Rome"), ("Madrid", "Moscow"), ("Cairo", "Nairobi"),
              ("Toronto", "Vancouver"), ("Mumbai", "Delhi"), ("Beijing", "Shanghai"), ("Lima", "Santiago"),
              ("Seattle", "Miami")]  # fmt: skip
_AMOUNT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(billion|million|thousand)?\s*(km|kilomet|mi\b|miles)?")
_SCALE = {"billion": 1e9, "million": 1e6, "thousand": 1e3, None: 1}


def amounts(answer: str) -> list[tuple[float, str | None]]:
    """The numbers an answer says, scaled ("1.4 billion": 1.4e9), each with its unit if one follows
    ("km", "kilomet", "miles")."""
    found = []
    for m in _AMOUNT.finditer(answer.lower()):
        try:
            found.append((float(m[1].replace(",", "")) * _SCALE[m[2]], m[3]))
        except ValueError:  # "1,2,3"
            continue
    return found


def main_places(args: argparse.Namespace) -> None:
    from babel.languages import get_official_languages

    started = time.strftime("%Y-%m-%d %H:%M")
    cfg = LlmConfig()
    llm = LocalLlm(cfg).build()
    atlas = places.atlas()
    countries = sorted(atlas.by_iso.values(), key=lambda c: -c.population)[:40]
    asked: list[tuple[str, str, object, object]] = []  # (kind, question, what is right, GeoNames' figure)
    for country in countries:
        name = country.said  # "the United States"
        capital = atlas.capital_city(country)  # its other names count too: "Kiev" for Kyiv
        spellings = {normalize(country.capital)} | {
            n for n, found in atlas.also_called.items() if capital in found
        }
        asked.append(("capital", f"What's the capital of {name}?", spellings, country.capital))
        asked.append(
            ("population", f"What's the population of {name}?", country.population, country.population)
        )
        currency = normalize(country.currency)  # "yen", "yuan renminbi": either word of it counts
        asked.append(("currency", f"What currency does {name} use?", set(currency.split()), currency))
        spoken = places._language_names(get_official_languages(country.iso, de_facto=True))  # CLDR's
        said = {normalize(language) for language in spoken}  # any one of them counts
        asked.append(("language", f"What language do they speak in {name}?", said, ", ".join(spoken)))
    for code, capital in atlas.state_capitals.items():
        state = atlas.states[code]
        asked.append(("state capital", f"What's the capital of {state}?", {normalize(capital)}, capital))
        year = atlas.statehood[code]
        asked.append(("statehood", f"When did {state} become a state?", {str(year)}, year))
    for a, b in CITY_PAIRS:
        one, other = atlas.cities[normalize(a)][0], atlas.cities[normalize(b)][0]
        km = places.great_circle_km((one.latitude, one.longitude), (other.latitude, other.longitude))
        asked.append(("distance", f"How far is {a} from {b}?", km, round(km)))
    kinds = ("capital", "population", "currency", "language", "distance", "state capital", "statehood")
    counts = {kind: Counter() for kind in kinds}
    for kind, question, right, geonames in asked:
        counts[kind]["ours"] += places.answer(question) is not None
        for _ in range(args.samples):
            said = "".join(llm.stream(build_messages(cfg.system_prompt, [], question)))
            if kind in ("capital", "currency", "language", "state capital"):
                held = any(f" {spelling} " in f" {normalize(said)} " for spelling in right)
            elif kind == "statehood":
                held = any(year in said for year in right)
            elif kind == "population":
                held = any(abs(n - right) <= 0.25 * right for n, _ in amounts(said))
            else:
                held = any(
                    abs(n * (1.609344 if unit in ("mi", "miles") else 1) - right) <= 0.15 * right
                    for n, unit in amounts(said)
                    if unit
                )
            counts[kind]["held"] += held
            counts[kind]["asked"] += 1
            if args.show and not held:
                print(f"  {question} → {' '.join(said.split())} (GeoNames: {geonames})")
    llm.close()
    print(f"\n{started}; {len(countries)} countries, {len(CITY_PAIRS)} pairs of cities,"
          f" {len(atlas.state_capitals)} US states × {args.samples}"
          f" answers; temperature {cfg.temperature}\n")  # fmt: skip
    print("| request | LLM right | places.py answered |")
    print("|---|---:|---:|")
    for kind, c in counts.items():
        print(f"| the {kind} | {c['held']} of {c['asked']} | {c['ours']} of {c['asked'] // args.samples} |")


def main_elements(args: argparse.Namespace) -> None:
    started = time.strftime("%Y-%m-%d %H:%M")
    cfg = LlmConfig()
    llm = LocalLlm(cfg).build()
    table = elements.periodic_table()
    counts = {kind: Counter() for kind in ("symbol", "atomic number", "element by number", "atomic weight")}
    for number, element in table.items():
        name = element.name
        for kind, question in (
            ("symbol", f"What's the chemical symbol for {name}?"),
            ("atomic number", f"What's the atomic number of {name}?"),
            ("element by number", f"What element has the atomic number {number}?"),
            ("atomic weight", f"What's the atomic weight of {name}?"),
        ):
            counts[kind]["ours"] += elements.answer(question) is not None
            for _ in range(args.samples):
                said = "".join(llm.stream(build_messages(cfg.system_prompt, [], question)))
                if kind == "symbol":
                    held = re.search(rf"\b{element.symbol}\b", said) is not None
                elif kind == "atomic number":
                    held = str(number) in re.findall(r"\d+", said)
                elif kind == "element by number":
                    held = f" {name} " in f" {normalize(said)} "
                else:
                    held = any(abs(n - element.mass) <= 0.01 * element.mass for n, _ in amounts(said))
                counts[kind]["held"] += held
                counts[kind]["asked"] += 1
                if args.show and not held:
                    print(f"  {question} → {' '.join(said.split())}")
    llm.close()
    print(f"\n{started}; {len(table)} elements × {args.samples} answers; temperature {cfg.temperature}\n")
    print("| request | LLM right | elements.py answered |")
    print("|---|---:|---:|")
    for kind, c in counts.items():
        print(f"| the {kind} | {c['held']} of {c['asked']} | {c['ours']} of {c['asked'] // args.samples} |")


def main() -> None:
    args = parse_args()
    if args.elements:
        main_elements(args)
        return
    if args.places:
        main_places(args)
        return
    if args.words:
        main_words(args)
        return
    if args.sums:
        main_sums(args)
        return
    if args.conversation:
        main_conversation(args)
        return
    if args.clock:
        main_clock(args)
        return
    started = time.strftime("%Y-%m-%d %H:%M")
    rows = [run(penalty, args.samples, args.show) for penalty in args.penalties]
    print(f"\n{started}; {args.samples} answers per prompt, {len(OPEN)} open prompts and {len(FACTUAL)} "
          f"factual; temperature {LlmConfig().temperature}; cpus={os.cpu_count()}\n")  # fmt: skip
    print("| repeat_penalty | answers | looping | stopped at max tokens | mid-sentence | factual right "
          "| words p50 | tokens/s p50 |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['penalty']:g} | {r['n']} | {r['looped']} | {r['cut']} | {r['unfinished']} "
            f"| {r['right']}/{r['facts']} | {r['words']:.0f} | {r['speed']:.0f} |"
        )


if __name__ == "__main__":
    main()
