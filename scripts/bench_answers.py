"""How often the local LLM's answers run in loops, with and without its repetition penalty.

Each prompt is asked alone (an empty memory: a loop is the model's own, not one copied from stored
answers) `--samples` times per penalty, at the configured temperature. An answer loops when some
run of four words comes back three times or more ("it's a city that's both a city and a city. It's
a city that's both a city and a city ..."). Factual questions with one right word check that a
penalty does not cost right answers. Per penalty: looping answers, answers that stopped at
`max_answer_tokens` and those that end mid-sentence, right factual answers, words per answer,
tokens/s.

    python scripts/bench_answers.py                   # [llm] repeat_penalty 1.0 (off) and 1.1
    python scripts/bench_answers.py --penalties 1.0 1.05 1.1 1.2 --samples 5 --show
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.config import LlmConfig  # noqa: E402
from assistant.llm import LocalLlm  # noqa: E402
from assistant.prompt import build_messages  # noqa: E402

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
LOOP_WORDS, LOOP_TIMES = 4, 3


def loops(answer: str) -> bool:
    """Some run of LOOP_WORDS words comes back LOOP_TIMES times or more."""
    words = re.findall(r"[a-z0-9']+", answer.lower())
    runs = Counter(tuple(words[i : i + LOOP_WORDS]) for i in range(len(words) - LOOP_WORDS + 1))
    return bool(runs) and max(runs.values()) >= LOOP_TIMES


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--penalties", type=float, nargs="+", default=[1.0, 1.1], help="repeat_penalty values"
    )
    parser.add_argument("--samples", type=int, default=3, help="answers per prompt and setting")
    parser.add_argument("--show", action="store_true", help="print every looping answer")
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


def main() -> None:
    args = parse_args()
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
