"""Benchmark the streaming recognizer: compute per chunk, real-time factor, and whether the cost of a
chunk stays flat as the stream grows.

    python scripts/bench_asr.py                      # models/asr/*.pt if present, else a random model
    python scripts/bench_asr.py --chunk-ms 320 --left-chunks 4 --seconds 65 --threads 1 2

A chunk's time covers everything `accept` does for it: features, the network, greedy decoding.
The second table is the final transcript: `peek_final` (what the listener takes 120 ms after the
speech end) on espeak-ng questions of several lengths: the streaming chunks' greedy CTC, the word
language model's beam search over them (the shipped models/asr/lm.bin), and the shipped two-pass
final (`full_context_final`: the whole utterance again at full context, then the beam search), and
that final with the embedded LLM rescoring the beam's best sentences (`[asr] rescore_weight`, off by
default), so the cost of each on the way to the answer is measured, not guessed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from assistant.asr.features import SAMPLE_RATE  # noqa: E402
from assistant.asr.lm_decoder import LexiconDecoder  # noqa: E402
from assistant.asr.model import ConformerConfig, ConformerCTC, load_checkpoint  # noqa: E402
from assistant.asr.recognizer import StreamingRecognizer  # noqa: E402
from assistant.asr.rescorer import DEV_TUNED_WEIGHT, LlmRescorer  # noqa: E402
from assistant.audio.files import read_audio  # noqa: E402
from assistant.config import DEFAULT_ASR_LM, AsrConfig  # noqa: E402

FINAL_QUESTIONS = [
    "What time is it?",
    "Set a timer for twenty five minutes.",
    "What is the weather going to be like in Paris tomorrow afternoon?",
    "Remind me to call my mother on Sunday evening, and add milk, eggs and bread to the shopping list.",
]

WARMUP_CHUNKS = 5


def find_model(directory: Path) -> tuple[ConformerCTC, str]:
    checkpoints = sorted(directory.glob("*.pt"), key=lambda p: p.stat().st_mtime)
    if checkpoints:
        return load_checkpoint(checkpoints[-1]), f"checkpoint {checkpoints[-1]}"
    torch.manual_seed(0)
    return ConformerCTC(ConformerConfig()).eval(), "RANDOMLY INITIALISED shipped config (no checkpoint found)"


def test_audio(seconds: float, seed: int = 0) -> np.ndarray:
    """Tones of random pitch and loudness with a little noise: speech-like spectral variety."""
    rng, pieces, total = np.random.default_rng(seed), [], int(SAMPLE_RATE * seconds)
    while sum(map(len, pieces)) < total:
        n, hz, amp = int(rng.integers(800, 4000)), rng.uniform(100, 3000), rng.uniform(0, 0.4)
        tone = amp * np.sin(2 * np.pi * hz * np.arange(n) / SAMPLE_RATE)
        pieces.append(tone + 0.01 * rng.standard_normal(n))
    return np.concatenate(pieces)[:total].astype(np.float32)


def chunk_times(
    model: ConformerCTC, wave: np.ndarray, chunk_ms: int, left_chunks: int
) -> tuple[np.ndarray, np.ndarray]:
    """Wall-clock and process-CPU seconds spent in accept() per chunk-sized piece, in stream order.
    CPU time is what the chunk costs even when other processes share the cores (wall time then
    also counts waiting for a core)."""
    rec = StreamingRecognizer(model, chunk_ms, left_chunks).build()
    step = SAMPLE_RATE * chunk_ms // 1000
    wall, cpu = [], []
    for start in range(0, len(wave) - step + 1, step):
        w0, c0 = time.perf_counter_ns(), time.process_time_ns()
        rec.accept(wave[start : start + step])
        wall.append((time.perf_counter_ns() - w0) / 1e9)
        cpu.append((time.process_time_ns() - c0) / 1e9)
    return np.array(wall), np.array(cpu)


def at(times: np.ndarray, chunk_ms: int, second: float, span: float = 2.0) -> float:
    """Median chunk time (ms) over `span` seconds of stream from `second` (median: robust to other
    processes stealing the CPU for a moment)."""
    first = int(second * 1000 / chunk_ms)
    return 1000 * float(np.median(times[first : first + int(span * 1000 / chunk_ms)]))


def row(threads: int, times: np.ndarray, cpu: np.ndarray, chunk_ms: int, left: int) -> str:
    steady = times[WARMUP_CHUNKS:]
    mean, median, p95 = (1000 * f(steady) for f in (np.mean, np.median, lambda t: np.percentile(t, 95)))
    rtf = steady.sum() / (len(steady) * chunk_ms / 1000)
    late = at(times, chunk_ms, len(times) * chunk_ms / 1000 - 3)
    early = at(times, chunk_ms, 1)
    cpu_ms = 1000 * cpu[WARMUP_CHUNKS:].mean()
    cells = [threads, chunk_ms, left, *(f"{v:.2f}" for v in (mean, median, p95, cpu_ms)), f"{rtf:.4f}"]
    return "| " + " | ".join(map(str, [*cells, f"{early:.2f}", f"{late:.2f}"])) + " |"


def final_times(
    model: ConformerCTC,
    decoder: LexiconDecoder | None,
    wave: np.ndarray,
    repeats: int,
    full: bool = False,
    rescorer: LlmRescorer | None = None,
) -> tuple[float, str]:
    """Median ms of `peek_final` after the whole utterance went through `accept`, and the final text."""
    rec = StreamingRecognizer(
        model, 320, 4, decoder=decoder, full_context_final=full, rescorer=rescorer
    ).build()
    rec.accept(wave)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        rec.peek_final()
        times.append((time.perf_counter_ns() - t0) / 1e6)
    return float(np.median(times)), rec.finalize()


def final_table(model: ConformerCTC, lm: Path, repeats: int = 7) -> None:
    start = time.perf_counter()
    decoder = LexiconDecoder(lm).build(log_prior=model.log_prior.numpy())  # as shipped
    print(f"\nlanguage model: {lm}, built (lexicon trie, KenLM mmap) in {time.perf_counter() - start:.2f} s")
    asr = AsrConfig()
    start = time.perf_counter()
    rescorer = LlmRescorer(
        asr.rescore_model_path, DEV_TUNED_WEIGHT, asr.rescore_nbest, asr.rescore_margin
    ).build()
    loaded = time.perf_counter() - start
    print(f"rescorer: {asr.rescore_model_path.name}, weight {DEV_TUNED_WEIGHT}, loaded in {loaded:.2f} s")
    print(
        "\n| speech s | streaming final, greedy ms | + LM ms | LM's share ms | text (LM) "
        "| full-context final + LM ms (shipped) | its extra ms | text (shipped) "
        "| + LLM rescoring ms | its extra ms | text (rescored) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, question in enumerate(FINAL_QUESTIONS):
            path = Path(tmp) / f"{i}.wav"
            subprocess.run(["espeak-ng", "-w", str(path), question], check=True, capture_output=True)
            wave = read_audio(path)
            greedy, _ = final_times(model, None, wave, repeats)
            with_lm, text = final_times(model, decoder, wave, repeats)
            two_pass, shipped_text = final_times(model, decoder, wave, repeats, full=True)
            rescored, rescored_text = final_times(model, decoder, wave, repeats, True, rescorer)
            cells = (
                f"{len(wave) / SAMPLE_RATE:.1f}",
                f"{greedy:.1f}",
                f"{with_lm:.1f}",
                f"{with_lm - greedy:.1f}",
                text,
                f"{two_pass:.1f}",
                f"{two_pass - with_lm:.1f}",
                shipped_text,
                f"{rescored:.1f}",
                f"{rescored - two_pass:.1f}",
                rescored_text,
            )
            print("| " + " | ".join(cells) + " |")


def main() -> None:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--model-dir", type=Path, default=Path("models/asr"))
    parser.add_argument("--chunk-ms", type=int, default=320)
    parser.add_argument("--left-chunks", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=65.0, help="length of the continuous stream")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--lm", type=Path, default=DEFAULT_ASR_LM, help="word LM, its lexicon beside it")
    args = parser.parse_args()
    model, source = find_model(args.model_dir)
    wave = test_audio(args.seconds)
    print(
        f"model: {source}; {model.num_parameters() / 1e6:.2f} M parameters; {args.seconds:.0f} s stream;"
        f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n"
    )
    print(
        "| threads | chunk ms | left chunks | wall ms/chunk mean | median | p95 | CPU ms/chunk "
        f"| RTF (wall) | median ms/chunk at 1 s | at {args.seconds - 3:.0f} s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for threads in args.threads:
        torch.set_num_threads(threads)
        wall, cpu = chunk_times(model, wave, args.chunk_ms, args.left_chunks)
        print(row(threads, wall, cpu, args.chunk_ms, args.left_chunks))
    torch.set_num_threads(1)  # as shipped ([asr] threads = 1)
    final_table(model, args.lm)


if __name__ == "__main__":
    main()
