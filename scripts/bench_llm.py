"""Time to first token with and without the KV cache, across a sliding memory window.

Runs a scripted 30-turn conversation through Memory (a temporary database), the bounded window and
LocalLlm. At the measured turns it also loads the same prompt into a second, cold model (empty
cache) and times its first token, so cached and cold TTFT compare the very same tokens. It also
compares the distribution of the first answer token read from the reused (possibly shifted) cache
with the cold one: same most likely token?, total variation distance. Prefix-only turns give the
floor (batch-size-dependent float rounding); shifted turns add the approximation of the KV shift.

    python scripts/bench_llm.py                      # turns 1, 10, 30; window_turns = 8
    python scripts/bench_llm.py --threads 1 --turns 1 5 10 20 30
    python scripts/bench_llm.py --prepare             # each question prefilled word by word first,
                                                     # as the listener does from partial transcripts
    python scripts/bench_llm.py --start               # the first question after the assistant starts

`--start` runs the pipeline (`assistant chat --mute`'s) over a memory of `--remembered` questions
and their answers: start, wait `--delays` seconds (a person reading the prompt), ask one question,
then a second; `--rounds` times each, a fresh start every time. Reported: the wait from the
question to its first token, and the latency log's `llm_ttft` (prompt built → first token) within
it. The first question pays for prefilling the system prompt and the window unless the start
prefilled them already.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.config import LlmConfig, MemoryConfig  # noqa: E402
from assistant.llm import LlmStats, LocalLlm  # noqa: E402
from assistant.memory import Memory  # noqa: E402
from assistant.prompt import build_messages, window  # noqa: E402

QUESTIONS = [
    "Hi, my name is Ana.",
    "What is the capital of France?",
    "Name a fruit that is yellow.",
    "What colour is the sky on a clear day?",
    "How many legs does a dog have?",
    "What is two plus two?",
    "Tell me a short joke.",
    "What is the weather like on Mars?",
    "Who wrote Romeo and Juliet?",
    "What do bees make?",
    "How many days are in a week?",
    "What is the opposite of hot?",
    "Can you suggest a name for a cat?",
    "What is water made of?",
    "Which planet is the largest?",
    "What language do people speak in Brazil?",
    "How do I boil an egg?",
    "What is a good breakfast?",
    "Why do leaves change colour?",
    "What is the tallest animal?",
    "How far is the Moon?",
    "What is the freezing point of water?",
    "Give me a word that rhymes with cat.",
    "What instrument has black and white keys?",
    "What do you call a baby cow?",
    "How many hours are in a day?",
    "What is the main ingredient of bread?",
    "Which ocean is the biggest?",
    "What is my name?",
    "Thank you, goodbye!",
]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[1, 10, 30], help="turns to measure")
    parser.add_argument("--window-turns", type=int, default=8)
    parser.add_argument("--threads", type=int, default=LlmConfig().threads)
    parser.add_argument("--max-answer-tokens", type=int, default=32)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument(
        "--prepare", action="store_true", help="prefill each question word by word before it is asked"
    )
    parser.add_argument("--cold-repeats", type=int, default=3, help="cold runs per measured turn (median)")
    parser.add_argument("--start", action="store_true", help="time the first questions after a start")
    parser.add_argument("--remembered", type=int, default=8, help="--start: questions answered")
    parser.add_argument("--rounds", type=int, default=5, help="--start: starts per delay")
    parser.add_argument(
        "--delays", type=float, nargs="+", default=[0.0, 2.0], help="--start: s before asking"
    )
    return parser.parse_args()


def first_token(llm: LocalLlm, messages: list[dict]) -> tuple[float, str]:
    """TTFT of one generation, and its whole answer."""
    answer = "".join(llm.stream(messages))
    return llm.last_stats.ttft_s or float("nan"), answer


def cold_ttft(cold: LocalLlm, messages: list[dict], repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        cold.reset()
        runs.append(first_token(cold, messages)[0])
    return statistics.median(runs)


def first_token_probs(llm: LocalLlm, messages: list[dict]) -> np.ndarray:
    """The distribution the first answer token was drawn from, read back from the cache as it stands.

    Diagnostic only (private members): re-evaluates the prompt's last token on top of the cached
    cells, then evaluates the answer tokens again so the next turn finds the cache as before.
    """
    prompt, llama = llm.render(messages), llm._llama
    cached = np.array(llama._input_ids)
    llm._reuse(prompt, LlmStats(prompt_tokens=len(prompt)))  # the prompt is cached: keeps all but one
    llm._prefill(prompt[llama.n_tokens :], threading.Event())
    logits = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(llama.n_vocab(),)).astype(np.float64)
    if len(cached) > len(prompt):
        llama.eval(cached[len(prompt) :].tolist())
    probs = np.exp(logits - logits.max())
    return probs / probs.sum()


def compare(p: np.ndarray, q: np.ndarray) -> tuple[bool, float]:
    """Same most likely token?, total variation distance (0: identical, 1: disjoint)."""
    return int(p.argmax()) == int(q.argmax()), 0.5 * float(np.abs(p - q).sum())


def main() -> None:
    args = parse_args()
    llm_cfg = LlmConfig(
        threads=args.threads, max_answer_tokens=args.max_answer_tokens, temperature=args.temperature
    )
    if args.start:
        return bench_start(args, llm_cfg)
    rows, speeds = [], []
    with tempfile.TemporaryDirectory() as tmp:
        mem_cfg = MemoryConfig(path=str(Path(tmp) / "memory.db"), window_turns=args.window_turns)
        memory = Memory(mem_cfg).build()
        llm, cold = LocalLlm(llm_cfg).build(), LocalLlm(llm_cfg).build()
        for turn, question in enumerate(QUESTIONS[: max(args.turns)], start=1):
            remembered = window(memory.recent(mem_cfg.window_turns), mem_cfg, llm.count_tokens)
            messages = build_messages(llm_cfg.system_prompt, remembered, question)
            if args.prepare:  # what Pipeline.prepare does with the growing partial transcript
                words = question.split()
                for n in range(1, len(words) + 1):
                    llm.prefill(build_messages(llm_cfg.system_prompt, remembered, " ".join(words[:n])))
            ttft, answer = first_token(llm, messages)
            stats = llm.last_stats
            speeds.append(stats.tokens_per_s)
            if turn in args.turns:
                cold_s = cold_ttft(cold, messages, args.cold_repeats)
                same = compare(first_token_probs(llm, messages), first_token_probs(cold, messages))
                rows.append((turn, len(remembered), stats, ttft, cold_s, same))
            memory.add("user", question)
            memory.add("assistant", answer.strip())
        memory.close()
    report(rows, speeds, args)


def report(rows, speeds, args) -> None:
    load = os.getloadavg()[0]
    print(
        f"window_turns={args.window_turns} threads={args.threads} "
        f"max_answer_tokens={args.max_answer_tokens} temperature={args.temperature} prepare={args.prepare} "
        f"cpus={os.cpu_count()} load(1 min)={load:.2f}\n"
    )
    print(
        "| turn | window | prompt tok | reused | shifted | evicted | prefilled | cold TTFT ms "
        "| cached TTFT ms | cached/cold | gen tok/s | top-1 = cold | TV to cold |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|")
    for turn, kept, s, ttft, cold_s, (top1, tv) in rows:
        print(
            f"| {turn} | {kept} | {s.prompt_tokens} | {s.reused_tokens} | {s.shifted_tokens} | "
            f"{s.evicted_tokens} | {s.prefilled_tokens} | {cold_s * 1000:.0f} | {ttft * 1000:.0f} | "
            f"{ttft / cold_s:.2f} | {s.tokens_per_s:.0f} | {'yes' if top1 else 'no'} | {tv:.3f} |"
        )
    print(f"\ngeneration: median {statistics.median(speeds):.0f} tokens/s over {len(speeds)} turns")
    summary("prefix-only turns", [r[5] for r in rows if r[2].reused_tokens and not r[2].shifted_tokens])
    summary("shifted turns", [r[5] for r in rows if r[2].shifted_tokens])
    turn, _, _, ttft, cold_s, _ = rows[-1]
    verdict = "OK" if ttft / cold_s <= 0.2 else "MISSED"
    print(f"cached/cold TTFT at turn {turn}: {ttft / cold_s:.3f} (target <= 0.2: {verdict})")


def bench_start(args, llm_cfg: LlmConfig) -> None:
    from assistant import pipeline as pipeline_mod
    from assistant.config import Config, MetricsConfig

    asked = QUESTIONS[args.remembered : args.remembered + 2]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        seeded = Path(tmp) / "seeded.db"
        remember(seeded, QUESTIONS[: args.remembered], llm_cfg, args.window_turns)
        for delay in args.delays:
            for _ in range(args.rounds):
                shutil.copy(seeded, Path(tmp) / "memory.db")
                cfg = Config(
                    memory=MemoryConfig(path=str(Path(tmp) / "memory.db"), window_turns=args.window_turns),
                    llm=llm_cfg,
                    metrics=MetricsConfig(latency_log=str(Path(tmp) / "latency.jsonl")),
                )
                turns = asyncio.run(_start_and_ask(pipeline_mod.create(cfg, speak=False), delay, asked))
                rows.append((delay, turns))
    load = os.getloadavg()[0]
    print(f"--start: {args.remembered} turns remembered, window_turns={args.window_turns}, "
          f"threads={args.threads}, cpus={os.cpu_count()}, load(1 min)={load:.2f}\n")  # fmt: skip
    print("| delay s | 1st asked → token ms | 1st TTFT ms | prompt tok | reused | 2nd asked → token ms |")
    print("|---:|---:|---:|---:|---:|---:|")
    for delay, (first, second) in rows:
        print(
            f"| {delay:g} | {_wait_ms(first):.0f} | {_ttft_ms(first):.0f} | "
            f"{int(first.counters['prompt_tokens'])} | {int(first.counters['reused_tokens'])} | "
            f"{_wait_ms(second):.0f} |"
        )
    for delay in args.delays:
        firsts = [_wait_ms(t[0]) for d, t in rows if d == delay]
        seconds = [_wait_ms(t[1]) for d, t in rows if d == delay]
        print(f"delay {delay:g} s: asked → first token p50 1st {statistics.median(firsts):.0f} ms, "
              f"2nd {statistics.median(seconds):.0f} ms ({len(firsts)} starts)")  # fmt: skip


def remember(path: Path, questions: list[str], llm_cfg: LlmConfig, window_turns: int) -> None:
    """A memory of `questions` and the model's own answers to them, as a conversation leaves it."""
    mem_cfg = MemoryConfig(path=str(path), window_turns=window_turns)
    memory, llm = Memory(mem_cfg).build(), LocalLlm(llm_cfg).build()
    for question in questions:
        remembered = window(memory.recent(mem_cfg.window_turns), mem_cfg, llm.count_tokens)
        answer = "".join(llm.stream(build_messages(llm_cfg.system_prompt, remembered, question)))
        memory.add("user", question)
        memory.add("assistant", answer.strip())
    memory.close()


async def _start_and_ask(pipe, delay: float, questions: list[str]) -> list:
    await pipe.open()
    try:
        await asyncio.sleep(delay)
        return [await pipe.ask(q) for q in questions]
    finally:
        await pipe.stop()


def _wait_ms(turn) -> float:
    """What the person waited: the question submitted → the first token (memory, prompt, prefill)."""
    return (turn.marks["llm_first_token"] - turn.marks["turn_start"]) / 1e6


def _ttft_ms(turn) -> float:
    return (turn.marks["llm_first_token"] - turn.marks["prompt_built"]) / 1e6


def summary(name: str, comparisons: list[tuple[bool, float]]) -> None:
    if comparisons:
        same = sum(top1 for top1, _ in comparisons)
        worst = max(tv for _, tv in comparisons)
        mean = statistics.mean(tv for _, tv in comparisons)
        print(f"{name}: top-1 equal to cold {same}/{len(comparisons)}, TV mean {mean:.3f} max {worst:.3f}")


if __name__ == "__main__":
    main()
