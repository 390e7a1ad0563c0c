"""Benchmark piper TTS as the assistant uses it: clause by clause, first audio first.

For each of ten typical replies, the LLM's text is streamed word by word through `ClauseSplitter`;
each clause is synthesized as soon as it completes. Reported per reply:

    first_audio_ms   first clause complete → its first audio array (what the user waits for)
    synth_ms         synthesis time of all clauses of the reply
    audio_s          seconds of speech produced
    rtf              synth time / audio duration (below 1 is faster than real time)
    play_start_ms    with --play: first clause complete → first block written to the device

Usage:
    python scripts/bench_tts.py                  # synthesis only
    python scripts/bench_tts.py --threads 2      # onnxruntime intra-op threads
    python scripts/bench_tts.py --play           # also through the default output device
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np

from assistant.config import AudioConfig, TtsConfig
from assistant.tts import ClauseSplitter, PiperTts

REPLIES = [
    "Sure, the weather tomorrow looks mild, with a high of twenty one degrees and light wind.",
    "It's a quarter past three in the afternoon.",
    "I set a timer for ten minutes. I'll let you know when it's done.",
    "Paris is the capital of France, and it has about two million inhabitants.",
    "Good question! Water boils at one hundred degrees Celsius at sea level.",
    "You asked me earlier about your dentist appointment; it is on Tuesday at nine.",
    "Here's a quick idea for dinner: pasta with tomatoes, garlic and fresh basil.",
    "Sorry, I didn't catch that. Could you say it again?",
    "The meeting notes mention three action items, and the first one is due on Friday.",
    "Take a deep breath, relax your shoulders, and count slowly to four.",
]


def bench_reply(tts: PiperTts, text: str, player=None) -> dict:
    """Stream `text` word by word through the splitter; synthesize (and play) each clause."""
    splitter, row = ClauseSplitter(), {"synth_ms": 0.0, "audio_s": 0.0}
    words = [w + " " for w in text.split()]
    clauses = [c for w in words for c in splitter.feed(w)] + splitter.flush()
    for k, clause in enumerate(clauses):
        start = time.perf_counter_ns()
        pieces = []
        for piece in tts.synthesize(clause):
            if k == 0 and not pieces:
                row["first_audio_ms"] = (time.perf_counter_ns() - start) / 1e6
            pieces.append(piece)
        row["synth_ms"] += (time.perf_counter_ns() - start) / 1e6
        audio = np.concatenate(pieces)
        row["audio_s"] += len(audio) / tts.sample_rate
        if player is not None:
            player.play(audio, tts.sample_rate, threading.Event())
            if k == 0:
                row["play_start_ms"] = (player.first_sample_ns - start) / 1e6
    row["rtf"] = row["synth_ms"] / 1000 / row["audio_s"]
    row["first_clause"] = clauses[0]
    return row


def table(rows: list[dict], keys: list[str]) -> str:
    lines = ["| metric | mean | p50 | p95 |", "|---|---:|---:|---:|"]
    for key in keys:
        values = np.array([r[key] for r in rows])
        fmt = "{:.3f}" if key == "rtf" else "{:.0f}" if key.endswith("_ms") else "{:.2f}"
        stats = [values.mean(), np.percentile(values, 50), np.percentile(values, 95)]
        lines.append(f"| {key} | " + " | ".join(fmt.format(v) for v in stats) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads (default 1)")
    parser.add_argument("--play", action="store_true", help="also play through the default output device")
    parser.add_argument("--output-device", default="", help="device for --play (index or name part)")
    args = parser.parse_args()

    start = time.perf_counter()
    tts = PiperTts(TtsConfig(threads=args.threads)).build()
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    list(tts.synthesize("Warming up."))
    warm_ms = (time.perf_counter() - start) * 1000
    player = None
    if args.play:
        from assistant.audio.devices import Player

        player = Player(AudioConfig(output_device=args.output_device)).start(tts.sample_rate)
    rows = [bench_reply(tts, reply, player) for reply in REPLIES]
    if player is not None:
        player.close()

    voice = TtsConfig().voice_path.name
    print(f"voice {voice}, {args.threads} thread(s): load {load_s:.2f} s, first call {warm_ms:.0f} ms")
    print(f"first clauses, e.g. {rows[0]['first_clause']!r}, {rows[2]['first_clause']!r}\n")
    keys = ["first_audio_ms", "synth_ms", "audio_s", "rtf"] + (["play_start_ms"] if player else [])
    print(table(rows, keys))


if __name__ == "__main__":
    main()
