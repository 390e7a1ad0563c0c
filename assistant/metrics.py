"""Per-turn latency: monotonic stage marks → one JSON line per turn; p50/p95 summaries; the plot.

A mark is a name and a `perf_counter_ns` timestamp. Durations are derived here, from pairs of marks,
so every stage boundary is measured on the same clock. A mark missing from a turn (a typed turn has
no speech marks; a muted one no audio) leaves its durations out rather than inventing them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from assistant.frames import Turn

SCHEMA_VERSION = 2  # 2: the asr_final duration is measured from speech_end (1: from endpoint)

# Stage boundaries, in the order a voice turn that starts at its endpoint reaches them. One started
# ahead of the endpoint (`Pipeline.start_ahead`, the usual case) has asr_final and turn_start (and
# often everything up to tts_first_audio) before the endpoint, and playback_start after it.
MARKS = (
    "speech_start",  # VAD: first voiced frame of the user's utterance
    "speech_end",  # VAD: last voiced frame
    "endpoint",  # VAD: end-of-utterance silence elapsed, the answer may be heard
    "asr_final",  # recognizer: final transcript ready
    "turn_start",  # the pipeline takes the user's text
    "prompt_built",  # memory window read, prompt rendered and tokenized
    "llm_first_token",
    "first_clause",  # the first clause is complete and handed to TTS
    "tts_first_audio",  # the first synthesized samples of the turn exist
    "playback_start",  # the first sample was written to the output device
    "llm_done",
    "turn_end",  # the last sample played (or the turn was interrupted)
)

# Derived durations: name → (from mark, to mark).
DURATIONS = {
    "endpointing": ("speech_end", "endpoint"),
    "asr_final": ("speech_end", "asr_final"),
    "prompt_build": ("turn_start", "prompt_built"),
    "llm_ttft": ("prompt_built", "llm_first_token"),
    "clause_wait": ("llm_first_token", "first_clause"),
    "first_clause": ("turn_start", "first_clause"),
    "tts_first_audio": ("first_clause", "tts_first_audio"),
    "playback_start": ("tts_first_audio", "playback_start"),
    "text_to_voice": ("turn_start", "playback_start"),
    "voice_to_voice": ("speech_end", "playback_start"),
    "llm_total": ("prompt_built", "llm_done"),
    "turn_total": ("turn_start", "turn_end"),
}


def durations_ms(marks: dict[str, int]) -> dict[str, float]:
    """Every derivable duration in milliseconds."""
    return {
        name: round((marks[end] - marks[start]) / 1e6, 2)
        for name, (start, end) in DURATIONS.items()
        if start in marks and end in marks
    }


def turn_record(turn: Turn) -> dict:
    """The JSON object written for one turn (the latency log schema)."""
    origin = min(turn.marks.values()) if turn.marks else 0
    return {
        "schema": SCHEMA_VERSION,
        "turn": turn.id,
        "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "interrupted": turn.interrupted,
        "speaker_error": turn.speaker_error or None,  # the answer went on in text only from there
        "error": turn.failed or None,  # the turn ended here, by a crash (not by the user)
        "answered_by": turn.answered_by or None,  # "llm", or what answered without it ("clock", ...)
        "marks_ns": dict(sorted(turn.marks.items(), key=lambda kv: kv[1])),
        "marks_ms": {k: round((v - origin) / 1e6, 2) for k, v in turn.marks.items()},
        "durations_ms": durations_ms(turn.marks),
        "prompt_tokens": int(turn.counters.get("prompt_tokens", 0)),
        "reused_tokens": int(turn.counters.get("reused_tokens", 0)),
        "generated_tokens": int(turn.counters.get("generated_tokens", 0)),
        "tokens_per_s": round(float(turn.counters.get("tokens_per_s", 0.0)), 1),
    }


class LatencyLog:
    """Appends one JSON line per turn; the file is created with its directory on first write."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, record: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()
            os.fsync(f.fileno())


def read_records(path: Path, last: int | None = None) -> tuple[list[dict], int]:
    """(the log's records, newest `last` of them; how many lines were not records). A torn last line
    (a crash mid-write) is one; so is anything else written into the file (a list, a bare number)."""
    if not path.exists():
        return [], 0
    records, skipped = [], 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if isinstance(record, dict) and isinstance(record.get("durations_ms"), dict):
            records.append(record)
        else:
            skipped += bool(line.strip())
    return (records[-last:] if last else records), skipped


def answered_by(record: dict) -> str:
    """What wrote the turn's answer ("llm", "clock", ...); for a line from before the log said so,
    "llm" if the LLM's marks are in it, else "other"."""
    if record.get("answered_by"):
        return record["answered_by"]
    return "llm" if "prompt_built" in record.get("marks_ns", {}) else "other"


def summarize(records: Iterable[dict]) -> dict[str, dict[str, float]]:
    """Per derived duration: count, p50, p95, mean (ms)."""
    values: dict[str, list[float]] = {}
    for record in records:
        for name, ms in record.get("durations_ms", {}).items():
            values.setdefault(name, []).append(ms)
    order = [name for name in DURATIONS if name in values]
    return {
        name: {
            "n": len(values[name]),
            "p50": float(np.percentile(values[name], 50)),
            "p95": float(np.percentile(values[name], 95)),
            "mean": float(np.mean(values[name])),
        }
        for name in order
    }


def format_table(summary: dict[str, dict[str, float]]) -> str:
    """A markdown table of the summary."""
    lines = ["| stage | n | p50 ms | p95 ms | mean ms |", "|---|---:|---:|---:|---:|"]
    for name, s in summary.items():
        lines.append(f"| {name} | {s['n']} | {s['p50']:.1f} | {s['p95']:.1f} | {s['mean']:.1f} |")
    return "\n".join(lines)


# The marks the stacked plot splits the time to first audio at.
_PLOTTED = (
    "asr_final",
    "turn_start",
    "endpoint",
    "prompt_built",
    "llm_first_token",
    "first_clause",
    "tts_first_audio",
    "playback_start",
)


def plot(records: list[dict], out: Path) -> None:
    """Stacked bars: per turn, where the time to first audio went."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(6, len(records) * 0.35), 4))
    draw_breakdown(ax, records)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def draw_breakdown(ax, records: list[dict]) -> None:
    """The stacked bars of `plot` on a matplotlib Axes (for figures with more panels): per turn, the
    time from the end of the user's speech (a typed turn: from its start) to the first sample
    played, cut at each mark in the order the turn reached them; a segment is named by the mark
    that ends it (a turn started ahead of the endpoint reaches `endpoint` after its first clause)."""
    colors = {name: f"C{i}" for i, name in enumerate(_PLOTTED)}
    labelled: set[str] = set()
    for x, record in enumerate(records):
        marks = record.get("marks_ns", {})
        origin = marks.get("speech_end", marks.get("turn_start"))
        end = marks.get("playback_start")
        if origin is None or end is None:
            continue
        chain = sorted((marks[m], m) for m in _PLOTTED if m in marks and origin <= marks[m] <= end)
        for (t0, _), (t1, name) in zip([(origin, ""), *chain[:-1]], chain, strict=True):
            label = None if name in labelled else f"→ {name}"
            ax.bar(x, (t1 - t0) / 1e6, bottom=(t0 - origin) / 1e6, color=colors[name], label=label)
            labelled.add(name)
    ax.set_xlabel("turn")
    ax.set_ylabel("ms from speech end to first audio")
    ax.set_xticks(np.arange(len(records)), [str(r.get("turn", i)) for i, r in enumerate(records)], fontsize=7)
    ax.legend(fontsize=7)
    ax.set_title("Per-stage latency breakdown")
