"""End-to-end voice-to-voice latency of `assistant run`, measured from outside, on virtual devices.

A private PulseAudio server (the test suite's `Pulse`, from tests/conftest.py) gives the assistant a
virtual microphone and speaker; `assistant run` runs on them as a subprocess, as a user would start
it. Synthesized questions (espeak-ng, or the piper voice) are played into the microphone one at a
time, each after the previous answer has ended; the fixture records both sides all along (the
microphone's feed, `micsink.monitor`, and the speaker, `spk.monitor`). Voice to voice, from outside,
is the end of the question on the microphone (its last 10 ms frame above -50 dBFS) → the first such
frame on the speaker after it, on the perf_counter_ns clock of the assistant's own latency log
(CLOCK_MONOTONIC, shared between processes). Sample times come from sample counts: a recording is a
continuous stream, anchored by its least-delayed chunk (`Recording.timed`), to within ~10 ms.

Prints a p50/p95 markdown table of the outside measurement and of every duration in the latency log,
then the first answer after start against the others, and writes a PNG: the per-stage breakdown per
turn beside the outside distribution.

    python scripts/bench_e2e.py                       # all questions, default config
    python scripts/bench_e2e.py --n 3 --config my.toml --voice piper
    python scripts/bench_e2e.py --wake computer       # "Computer, what is ...?", [wake] phrases set,
                                                      # no follow-up window: each needs the phrase
    python scripts/bench_e2e.py --ask "Good morning." --ask "When does the sun set?"
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from assistant import metrics  # noqa: E402
from assistant.audio.files import write_wav  # noqa: E402
from assistant.audio.pcm import from_pcm16  # noqa: E402
from tests.conftest import RECORD_RATE, Pulse, Recording  # noqa: E402

QUESTIONS = [
    "What is the capital of France?",
    "How many days are in a week?",
    "What color is the sky?",
    "What is two plus two?",
    "Who wrote Romeo and Juliet?",
    "How many legs does a spider have?",
    "What is the largest ocean?",
    "What do bees make?",
    "How many hours are in a day?",
    "What is the opposite of hot?",
    "Which planet is closest to the sun?",
    "What language is spoken in Spain?",
    "How many minutes are in an hour?",
    "What animal says moo?",
    "What is frozen water called?",
    "What season comes after winter?",
    "How many wheels does a bicycle have?",
    "What is the capital of Japan?",
    "What do you use to write on paper?",
    "What is the tallest animal?",
    "Name a fruit that is yellow.",
    "What is the boiling point of water?",
]
FRAME = RECORD_RATE // 100  # 10 ms analysis frames
AUDIBLE_DB = -50.0  # dBFS: a frame above this is sound (the null sinks are exactly 0 otherwise)
NS = 1_000_000_000


# --- when sound starts and ends, on the pulse fixture's recordings --------------------------------------
def audible_frames(audio: np.ndarray) -> np.ndarray:
    """Indexes of the 10 ms frames above AUDIBLE_DB."""
    n = len(audio) // FRAME
    frames = audio[: n * FRAME].reshape(n, FRAME).astype(np.float64)
    db = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-20)
    return np.flatnonzero(db > AUDIBLE_DB)


def last_sound_ns(rec: Recording, since_ns: int) -> int | None:
    """The end of the last audible frame recorded after `since_ns`."""
    audio, t0 = rec.timed(since_ns)
    loud = audible_frames(audio)
    return None if not len(loud) else t0 + (int(loud[-1]) + 1) * FRAME * NS // RECORD_RATE


def first_sound_ns(rec: Recording, since_ns: int) -> int | None:
    """The start of the first audible frame recorded after `since_ns`."""
    audio, t0 = rec.timed(since_ns)
    loud = audible_frames(audio)
    return None if not len(loud) else t0 + int(loud[0]) * FRAME * NS // RECORD_RATE


# --- the assistant under test -----------------------------------------------------------------------
class Assistant:
    """`assistant --config CFG run` on the private server, watched through its files."""

    def __init__(self, pulse: Pulse, config: Path, out: Path) -> None:
        self.pulse, self.out = pulse, out
        self.log = Path(tomllib.loads(config.read_text())["metrics"]["latency_log"])
        self.stdout = out / "assistant.stdout.txt"
        cmd = [sys.executable, "-m", "assistant.cli", "--config", str(config), "run"]
        env = {**pulse.env, "PYTHONUNBUFFERED": "1"}
        with open(self.stdout, "w") as so, open(out / "assistant.stderr.txt", "w") as se:
            self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=so, stderr=se, env=env)

    def wait(self, ready, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                raise SystemExit(f"assistant exited with {self.proc.returncode}; see {self.out}")
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def listening(self) -> bool:
        streams = json.loads(self.pulse.pactl("--format=json", "list", "source-outputs"))
        pid = str(self.proc.pid)
        return any(s.get("properties", {}).get("application.process.id") == pid for s in streams)

    def finals(self) -> list[str]:
        return [line[5:] for line in self.stdout.read_text().splitlines() if line.startswith("you: ")]

    def records(self) -> list[dict]:
        return metrics.read_records(self.log)[0]

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


@dataclass
class Result:
    question: str
    heard: str | None  # the final transcript, None when nothing was recognized
    record: dict | None  # the turn's latency-log line
    question_end_ns: int | None = None  # the question's last sound on the microphone
    answer_start_ns: int | None = None  # the answer's first sound on the speaker after it

    @property
    def outside_ms(self) -> float | None:
        """Voice to voice, from outside: the question's end → the answer's first sound."""
        if self.question_end_ns is None or self.answer_start_ns is None:
            return None
        return (self.answer_start_ns - self.question_end_ns) / 1e6

    def offsets_ms(self) -> tuple[float, float] | None:
        """How the log's marks sit against the outside times: the VAD's speech end after the
        question's end (capture path, VAD estimate), the speaker's first sound after playback_start
        (output path, the answer's quiet start)."""
        if self.outside_ms is None:
            return None
        marks = self.record["marks_ns"]
        return (
            (marks["speech_end"] - self.question_end_ns) / 1e6,
            (self.answer_start_ns - marks["playback_start"]) / 1e6,
        )


def ask(app: Assistant, question: str, wav: Path) -> Result:
    finals, turns = len(app.finals()), len(app.records())
    start = time.perf_counter_ns()
    app.pulse.play_into_mic(wav)
    if not app.wait(lambda: len(app.finals()) > finals, 20):
        return Result(question, None, None)
    if not app.wait(lambda: len(app.records()) > turns, 180):
        raise SystemExit(f"no answer to {question!r} within 180 s; see {app.out}")
    record = app.records()[-1]
    time.sleep(0.1)  # let the recorders catch up with the turn's end
    q_end = last_sound_ns(app.pulse.mic, start)
    a_start = first_sound_ns(app.pulse.speaker, q_end) if q_end else None
    return Result(question, app.finals()[-1], record, q_end, a_start)


# --- questions, config, report ------------------------------------------------------------------------
def synthesize(questions: list[str], voice: str, folder: Path) -> list[Path]:
    paths = [folder / f"q{i:02d}.wav" for i in range(len(questions))]
    if voice == "espeak":
        for text, path in zip(questions, paths, strict=True):
            subprocess.run(["espeak-ng", "-w", str(path), text], check=True, capture_output=True, timeout=30)
        return paths
    from assistant.config import TtsConfig
    from assistant.tts import PiperTts

    tts = PiperTts(TtsConfig()).build()
    for text, path in zip(questions, paths, strict=True):
        pieces = [from_pcm16(p) if p.dtype == np.int16 else p for p in tts.synthesize(text)]
        write_wav(path, np.concatenate(pieces), tts.sample_rate)
    return paths


def bench_config(base: Path | None, out: Path, wake: str | None = None) -> Path:
    """The given config (or the defaults) with the memory and latency log in `out`; with `wake`,
    that phrase is needed before every question (no follow-up window)."""
    data = tomllib.loads(base.read_text()) if base else {}
    if wake:
        data["wake"] = {"phrases": [wake], "follow_up_s": 0.0}
    data.setdefault("memory", {})["path"] = str(out / "memory.db")
    data.setdefault("metrics", {})["latency_log"] = str(out / "latency.jsonl")
    for name in ("memory.db", "latency.jsonl"):
        (out / name).unlink(missing_ok=True)
    path = out / "config.toml"
    sections = (
        f"[{name}]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in keys.items()) for name, keys in data.items()
    )
    path.write_text("".join(sections))
    return path


def _toml(value) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


def _times(result: Result) -> str:
    outside = f"{result.outside_ms:.0f} ms" if result.outside_ms is not None else "-"
    logged = (result.record or {}).get("durations_ms", {}).get("voice_to_voice")
    text = f"voice to voice: outside {outside}, logged {f'{logged:.0f} ms' if logged is not None else '-'}"
    if offsets := result.offsets_ms():
        text += f" (speech_end {offsets[0]:+.0f} ms, speaker {offsets[1]:+.0f} ms after playback_start)"
    return text


def table(results: list[Result]) -> str:
    outside = [r.outside_ms for r in results if r.outside_ms is not None]
    rows = metrics.summarize(r.record for r in results if r.record)
    if outside:
        stats = {"n": len(outside), "p50": np.percentile(outside, 50), "p95": np.percentile(outside, 95)}
        rows = {"**outside: question end → answer heard**": {**stats, "mean": np.mean(outside)}, **rows}
    return metrics.format_table(rows)


def first_answer(results: list[Result]) -> str:
    """The first answer after start against the rest: what a user meets first, and where one-off
    costs of starting (a stream opened, a cache cold) would show."""

    def stage(r: Result, name: str) -> float | None:
        return (r.record or {}).get("durations_ms", {}).get(name)

    def ms(value: float | None) -> str:
        return f"{value:.0f} ms" if value is not None else "-"

    def p50(values: list[float | None]) -> float | None:
        values = [v for v in values if v is not None]
        return float(np.percentile(values, 50)) if values else None

    first, rest = results[0], results[1:]
    return (
        f"\nfirst answer after start: outside {ms(first.outside_ms)}, "
        f"TTS audio → playback start {ms(stage(first, 'playback_start'))}; "
        f"the other {len(rest)}: p50 {ms(p50([r.outside_ms for r in rest]))} and "
        f"{ms(p50([stage(r, 'playback_start') for r in rest]))}"
    )


def plot(results: list[Result], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = [r.record for r in results if r.record]
    fig, (left, right) = plt.subplots(1, 2, figsize=(max(10, len(records) * 0.5), 4.5), width_ratios=[3, 1])
    metrics.draw_breakdown(left, records)
    outside = [r.outside_ms for r in results if r.outside_ms is not None]
    logged = [r.record["durations_ms"]["voice_to_voice"] for r in results if r.outside_ms is not None]
    right.boxplot([outside, logged], tick_labels=["outside", "logged"])
    jitter = np.random.default_rng(0)
    for i, values in enumerate((outside, logged), start=1):
        right.scatter(i + jitter.uniform(-0.1, 0.1, len(values)), values, s=8)
    right.set_ylabel("voice-to-voice, ms")
    right.set_title("Voice to voice")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--n", type=int, default=len(QUESTIONS), help=f"questions to ask (default all {len(QUESTIONS)})"
    )
    p.add_argument("--config", type=Path, help="assistant config to run with (memory and log go to --out)")
    p.add_argument("--voice", choices=["espeak", "piper"], default="espeak", help="voice of the questions")
    p.add_argument(
        "--pause", type=float, default=1.0, help="seconds between an answer's end and the next question"
    )
    p.add_argument(
        "--wake", metavar="PHRASE", help="say PHRASE before each question, with [wake] phrases = [PHRASE]"
    )
    p.add_argument(
        "--ask",
        action="append",
        metavar="QUESTION",
        help="ask this instead of the built-in questions (repeatable, in order): an answerer's requests",
    )
    p.add_argument(
        "--out", type=Path, default=REPO / "runs" / "bench_e2e", help="folder for logs and the PNG"
    )
    return p.parse_args()


def main() -> int:
    args = parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    questions = args.ask or QUESTIONS[: args.n]
    said = [f"{args.wake.capitalize()}, {q[0].lower()}{q[1:]}" for q in questions] if args.wake else questions
    wavs = synthesize(said, args.voice, args.out)
    config = bench_config(args.config, args.out, args.wake)
    pulse = Pulse(Path(tempfile.mkdtemp(prefix="bench-e2e-pulse-"))).start()
    app = Assistant(pulse, config, args.out)
    try:
        if not app.wait(app.listening, 180):
            raise SystemExit(f"assistant did not start listening within 180 s; see {args.out}")
        results = []
        for question, wav in zip(questions, wavs, strict=True):
            results.append(result := ask(app, question, wav))
            print(f"{len(results):2d}. {question!r} → heard {result.heard!r}; {_times(result)}", flush=True)
            time.sleep(args.pause)
        code = app.stop()
    finally:
        if app.proc.poll() is None:
            app.proc.kill()
        pulse.stop()
        shutil.rmtree(pulse.root, ignore_errors=True)
    answered = sum(r.record is not None for r in results)
    print(f"\n{len(results)} questions, {answered} answered; assistant exit code {code}\n")
    if not answered:
        print(f"nothing was recognized: is the recognizer trained? see {args.out}/assistant.*.txt")
        return 1
    # Sums, conversions (...) are answered without the LLM, and sooner: apart, so that the LLM's
    # figures stay comparable with runs from before they were (all 22 went to the LLM until 2026-12-06).
    by_llm, others = [], []
    for r in results:
        (by_llm if r.record is None or metrics.answered_by(r.record) == "llm" else others).append(r)
    print(f"answered by the LLM: {len(by_llm)}\n{table(by_llm)}")
    if others:
        sources = ", ".join(f"{r.question!r} ({metrics.answered_by(r.record)})" for r in others)
        print(f"\nanswered without the LLM: {len(others)}, {sources}\n{table(others)}")
    print(first_answer(results))
    png = args.out / "bench_e2e.png"
    plot(results, png)
    print(f"\nwrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
