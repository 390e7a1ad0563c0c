"""Listening, end to end and in parts.

Unit tests drive the `Listener` (real webrtcvad endpointing on espeak speech) with a small fake
recognizer and a fake pipeline: partials while the user speaks, one final at the endpoint, and no
turn for an empty transcript.

End-to-end tests run `assistant run` as a subprocess on the `pulse` fixture's virtual devices,
with the real recognizer, LLM, voice, SQLite file and latency log: questions synthesized by
espeak-ng go into the virtual microphone, the answers are recorded from the virtual speaker, and
Ctrl-C (SIGINT) must end the process cleanly without losing a turn. They use the shipped checkpoint
(`models/asr/conformer_ctc.pt`) and skip while it does not exist; set `ASSISTANT_TEST_ASR_CHECKPOINT`
to run them on another one (e.g. an interim export of a training run).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import jiwer
import numpy as np
import pytest
from conftest import load_script

from assistant import wake
from assistant.asr.text import normalize
from assistant.audio.files import read_audio, write_wav
from assistant.config import DEFAULT_ASR_CHECKPOINT, BargeinConfig, Config, MemoryConfig, VadConfig
from assistant.listen import EARLY_FINAL_MS, Listener
from assistant.memory import Memory
from assistant.metrics import MARKS

REPO = Path(__file__).resolve().parents[1]
RATE = 16_000  # Hz, what the listener consumes
BLOCK = RATE // 50  # 20 ms blocks, like the capture callback
NS_PER_SAMPLE = 1_000_000_000 // RATE
# Per question. Loose while the recognizer is an early checkpoint; tighten when a better one lands.
WER_TOLERANCE = 0.5
SPEECH_RMS = 0.01  # an answer louder than this (-40 dBFS) was heard; the null sink is exactly 0 else
# Questions the LLM answers (not a sum, a conversion or the clock, answered without it since
# 2026-12-06: "how many days are in a week" was one), so that every stage is in their turns.
QUESTIONS = ["What is the largest ocean?", "What do bees make?", "What color is the sky?"]


# --- unit: the Listener with a fake recognizer -------------------------------------------------------
class FakeRecognizer:
    """Says one more word of `text` per 0.25 s of audio; the next of `finals` is the final text, from
    `peek_final()` (taken once reset() starts the next utterance) or from `finalize()`."""

    def __init__(self, finals: list[str], text: str = "what time is it") -> None:
        self.finals, self.words = list(finals), text.split()
        self.received = 0  # samples of the current utterance
        self.peeked = 0  # peek_final calls
        self.finalized = 0  # finalize calls

    def build(self) -> FakeRecognizer:
        return self

    def reset(self) -> None:
        if self.received and self.peeked:
            self.finals.pop(0)  # the utterance ended on its peeked final
        self.received = self.peeked = 0

    def accept(self, samples: np.ndarray) -> str:
        self.received += len(samples)
        return " ".join(self.words[: self.received // (RATE // 4)])

    def peek_final(self, flush_ms: int) -> str:
        self.peeked += 1
        return self.finals[0]

    def finalize(self) -> str:
        self.received = self.peeked = 0
        self.finalized += 1
        return self.finals.pop(0)


@dataclass
class FakePipeline:
    """Records the turns the listener starts, and which block it was handling when it did: at the
    endpoint (`submitted`), or ahead of it (`started`), then `confirmed` or `discarded`."""

    listener: Listener | None = None
    submitted: list[tuple[str, dict, int]] = field(default_factory=list)  # (text, marks, blocks left)
    started: list[tuple[str, int]] = field(default_factory=list)  # (text, blocks left)
    confirmed: list[tuple[str, dict, int]] = field(default_factory=list)  # (text, marks, blocks left)
    discarded: list[str] = field(default_factory=list)
    hold: threading.Event = field(default_factory=threading.Event)
    busy: bool = False
    current: object = None  # the turn answered last (`Listener` reads its end for `[wake]`)
    prepared: list[str] = field(default_factory=list)  # partial transcripts handed on to the LLM

    def prepare(self, partial: str) -> None:
        self.prepared.append(partial)

    async def submit(self, text: str, marks: dict) -> str:
        self.submitted.append((text, dict(marks), self.listener.blocks.qsize()))
        return text

    async def start_ahead(self, text: str):
        if self.busy or not text.strip():
            return None
        self.started.append((text.strip(), self.listener.blocks.qsize()))
        self.prepared_at_start = list(self.prepared)
        return SimpleNamespace(user_text=text.strip())

    async def confirm(self, turn, marks: dict) -> bool:
        self.confirmed.append((turn.user_text, dict(marks), self.listener.blocks.qsize()))
        return True

    async def discard(self, turn) -> None:
        self.discarded.append(turn.user_text)

    @property
    def turns(self) -> list[str]:
        """The texts of the turns that went ahead: confirmed or submitted."""
        return [text for text, _, _ in self.confirmed + self.submitted]


@dataclass
class FakeConsole:
    """The terminal, as a list of (event, text, samples the recognizer had heard by then)."""

    recognizer: FakeRecognizer
    events: list[tuple[str, str, int]] = field(default_factory=list)

    def partial(self, text: str) -> None:
        self.events.append(("partial", text, self.recognizer.received))

    def final(self, text: str) -> None:
        self.events.append(("final", text, self.recognizer.received))

    def state(self, name: str) -> None:
        self.events.append(("state", name, self.recognizer.received))


def _listen(audio: np.ndarray, finals: list[str], t0_ns: int = 10**12):
    """Feed 16 kHz audio in 20 ms blocks (block i stamped t0 + 20 ms * i) through a Listener."""
    cfg = Config(vad=VadConfig(), bargein=BargeinConfig(enabled=False))
    recognizer = FakeRecognizer(finals)
    pipe, console = FakePipeline(), FakeConsole(recognizer)
    listener = Listener(cfg, pipe, console)
    listener.recognizer, pipe.listener = recognizer, listener
    blocks = [audio[i : i + BLOCK] for i in range(0, len(audio), BLOCK)]

    async def main():
        await listener.build()
        for i, block in enumerate(blocks):
            listener.blocks.put_nowait((block, t0_ns + i * BLOCK * NS_PER_SAMPLE))
        listener.blocks.put_nowait(None)
        await listener.run()
        listener.close()

    asyncio.run(main())
    return pipe, console, len(blocks)


def _speech(espeak_wav, text: str) -> tuple[np.ndarray, int]:
    """espeak speech at 16 kHz, and the sample after its last audible one."""
    audio = read_audio(espeak_wav(text))
    loud = np.flatnonzero(np.abs(audio) > 0.01)
    return audio, int(loud[-1]) + 1


def _silence(seconds: float) -> np.ndarray:
    return np.zeros(int(RATE * seconds), np.float32)


def test_partials_while_speaking_and_one_final_at_the_endpoint(espeak_wav):
    speech, end = _speech(espeak_wav, "what time is it in Tokyo right now")
    lead, t0 = len(_silence(0.5)), 10**12
    final = "what time is it in tokyo right now"
    pipe, console, n_blocks = _listen(np.concatenate([_silence(0.5), speech, _silence(1.5)]), [final])

    [(text, marks, left)] = pipe.confirmed
    assert text == final and not pipe.submitted and not pipe.discarded
    assert [e for e in console.events if e[0] == "final"] == [("final", final, 0)]
    partials = [e for e in console.events if e[0] == "partial"]
    spoken = (marks["speech_end"] - marks["speech_start"]) // NS_PER_SAMPLE
    assert partials and partials[0][2] < spoken / 2, "the first partial came only after the speech"
    texts = [p[1] for p in partials]
    assert all(b.startswith(a) for a, b in zip(texts, texts[1:], strict=False))  # each extends the last
    assert set(texts) <= set(pipe.prepared)  # the LLM may read the question while it is asked
    # ... and the answer starts on the final, EARLY_FINAL_MS after the speech end: once (the partials
    # of the silence after it would undo it), and the endpoint confirms it end_silence_ms later.
    [(started, started_left)] = pipe.started
    assert started == final and final not in pipe.prepared[len(pipe.prepared_at_start) :]
    early_ms = (started_left - left) * BLOCK * 1000 // RATE
    assert (
        VadConfig().end_silence_ms - EARLY_FINAL_MS - 100
        <= early_ms
        <= VadConfig().end_silence_ms - EARLY_FINAL_MS
    )
    assert pipe.listener.recognizer.finalized == 0  # that early final was the final
    # The marks follow the audio: speech ends where the speech in the file ends, the endpoint fires
    # end_silence_ms later, and the turn is submitted while the listener handles that very block.
    true_end_ns = t0 + (lead + end) * NS_PER_SAMPLE
    assert abs(marks["speech_end"] - true_end_ns) < 120_000_000
    end_silence_ns = VadConfig().end_silence_ms * 1_000_000
    assert abs(marks["endpoint"] - marks["speech_end"] - end_silence_ns) <= 40_000_000
    assert marks["speech_start"] < marks["speech_end"] < marks["endpoint"] and "asr_final" in marks
    handled = n_blocks - left  # blocks taken from the queue (the None sentinel is still queued)
    block_end_ns = t0 + handled * BLOCK * NS_PER_SAMPLE
    assert abs(block_end_ns - marks["endpoint"]) <= BLOCK * NS_PER_SAMPLE


def test_a_pause_mid_question_gives_an_early_final_that_the_user_talks_past(espeak_wav):
    first, end = _speech(espeak_wav, "what time is it")
    rest, _ = _speech(espeak_wav, "in Tokyo right now")
    pause = _silence((EARLY_FINAL_MS + 100) / 1000)  # longer than that, shorter than end_silence_ms
    audio = np.concatenate([_silence(0.5), first[:end], pause, rest, _silence(1.5)])
    final = "what time is it in tokyo right now"
    pipe, _, _ = _listen(audio, [final])

    assert pipe.turns == [final]  # the pause did not end the question
    # An answer started in the pause, dropped when the user went on, and one after the question.
    assert [text for text, _ in pipe.started] == [final, final] and pipe.discarded == [final]
    assert [text for text, _, _ in pipe.confirmed] == [final]
    (_, in_pause), (_, after) = pipe.started
    assert in_pause - after > 10  # blocks between: the rest of the question
    assert pipe.prepared[-1] != final  # partials again after the pause


def test_an_empty_transcript_starts_no_turn(espeak_wav):
    cough, _ = _speech(espeak_wav, "hmm")
    question, _ = _speech(espeak_wav, "what is the weather like today")
    audio = np.concatenate([_silence(0.5), cough, _silence(1.2), question, _silence(1.2)])
    pipe, console, _ = _listen(audio, [" ", "what is the weather"])  # blank, as an early checkpoint says

    assert pipe.turns == ["what is the weather"] and not pipe.discarded  # the second utterance only
    finals = [e[1] for e in console.events if e[0] == "final"]
    assert finals == ["what is the weather"]
    first_final = next(i for i, e in enumerate(console.events) if e[0] == "final")
    assert ("state", "listening", 0) in console.events[:first_final]  # back to listening after the blank


def test_a_cough_is_not_an_utterance_and_the_question_after_it_is(espeak_wav):
    """A cough as loud as the question and longer than `min_speech_ms` (400 ms of the benches' noise
    burst): webrtcvad calls it voice, but it has no pitch, so nothing is recognized or asked."""
    cough = load_script("bench_vad").cough_noise(400, db=-20.0)
    question, _ = _speech(espeak_wav, "what is the weather like today")
    audio = np.concatenate([_silence(0.5), cough, _silence(1.2), question, _silence(1.2)])
    pipe, console, _ = _listen(audio, ["what is the weather"])

    assert [text for text, _, _ in pipe.confirmed] == ["what is the weather"] and not pipe.discarded
    assert [e[1] for e in console.events if e[0] == "final"] == ["what is the weather"]


# --- end to end: `assistant run` on the virtual devices ----------------------------------------------
def _checkpoint() -> Path:
    path = Path(os.environ.get("ASSISTANT_TEST_ASR_CHECKPOINT") or DEFAULT_ASR_CHECKPOINT)
    if not path.is_file():
        pytest.skip(f"no recognizer checkpoint at {path} (export one; see scripts/train_asr.py --export)")
    return path


def _write_config(folder: Path, max_answer_tokens: int = 32) -> Path:
    """A config with its own memory and latency log; the recognizer from `_checkpoint()`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(
        f'[asr]\ncheckpoint = "{_checkpoint()}"\n'
        f'[memory]\npath = "{folder / "memory.db"}"\n'
        f'[metrics]\nlatency_log = "{folder / "latency.jsonl"}"\n'
        f"[llm]\ntemperature = 0.0\nmax_answer_tokens = {max_answer_tokens}\n"
    )
    return path


class Assistant:
    """`assistant --config CFG run` as a subprocess on the pulse fixture's devices."""

    def __init__(self, pulse, folder: Path, max_answer_tokens: int = 32) -> None:
        self.pulse, self.folder = pulse, folder
        self.config = _write_config(folder, max_answer_tokens)
        self.out, self.err = folder / "stdout.txt", folder / "stderr.txt"
        cmd = [sys.executable, "-m", "assistant.cli", "--config", str(self.config), "run"]
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.proc = subprocess.Popen(
                cmd, cwd=REPO, stdout=out, stderr=err,
                env={**pulse.env, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"},  # stacks on SIGABRT
            )  # fmt: skip
        self._wait(self._listening, 120, "start listening")

    def _listening(self) -> bool:
        """Its capture stream is open on the server (the outside view of "models loaded, mic on")."""
        streams = json.loads(self.pulse.pactl("--format=json", "list", "source-outputs"))
        return any(
            s.get("properties", {}).get("application.process.id") == str(self.proc.pid) for s in streams
        )

    def _wait(self, ready, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                pytest.fail(
                    f"assistant exited ({self.proc.returncode}) before it could {what}: {self.stderr()}"
                )
            if time.monotonic() > deadline:
                pytest.fail(f"assistant did not {what} within {timeout:.0f} s; stderr: {self.stderr()}")
            time.sleep(0.05)

    def stderr(self) -> str:
        return self.err.read_text()[-2000:]

    def records(self) -> list[dict]:
        log = self.folder / "latency.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def finals(self) -> int:
        """Final transcripts the console has printed."""
        return sum(line.startswith("you: ") for line in self.out.read_text().splitlines())

    def ask(self, question: str, wav: Path) -> tuple[int, int]:
        """Play a question into the mic; wait for it to be recognized and answered. Returns the
        perf_counter_ns after it was played and when the answer's turn ended."""
        finals, turns = self.finals(), len(self.records())
        self.pulse.play_into_mic(wav)
        played = time.perf_counter_ns()
        self._wait(lambda: self.finals() > finals, 20, f"recognize {question!r} (an empty transcript?)")
        self._wait(lambda: len(self.records()) > turns, 120, f"answer {question!r}")
        return played, self.records()[-1]["marks_ns"]["turn_end"]

    def interrupt(self, timeout: float = 30) -> int:
        """Ctrl-C; the exit code."""
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:  # SIGABRT: faulthandler writes every thread's stack to stderr
            self.proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            self.proc.kill()
            pytest.fail(f"assistant did not exit within {timeout} s of SIGINT; stderr: {self.stderr()}")

    def stored(self) -> list:
        return _stored(self.folder / "memory.db")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def _stored(path: Path) -> list:
    """Every turn in a memory file, oldest first."""
    memory = Memory(MemoryConfig(path=str(path))).build()
    try:
        return memory.recent(100)
    finally:
        memory.close()


def _rms(audio: np.ndarray) -> float:
    return float(np.sqrt(np.mean(audio.astype(np.float64) ** 2))) if len(audio) else 0.0


@dataclass
class Session:
    questions: list[str]
    heard_rms: list[float]  # what the speaker played between each question and its turn's end
    records: list[dict]
    stored: list
    exit_code: int
    stderr: str


@pytest.fixture(scope="module")
def live_session(pulse, espeak_wav, tmp_path_factory) -> Session:
    """Three spoken questions, with pauses, to `assistant run`; then Ctrl-C while it listens."""
    app = Assistant(pulse, tmp_path_factory.mktemp("live"))
    try:
        heard = []
        for question in QUESTIONS:
            played, turn_end = app.ask(question, espeak_wav(question))
            speaker = pulse.speaker.since(played)
            heard.append(_rms(speaker[: int((turn_end - played) / 1e9 * RATE)]))
            time.sleep(0.7)  # a pause between questions
        code = app.interrupt()
        return Session(QUESTIONS, heard, app.records(), app.stored(), code, app.stderr())
    finally:
        app.kill()


# WER_TOLERANCE per question: the shipped checkpoint (step 23,000, models/asr/HISTORY.md) had at
# most 0.29 on its questions then in 4 sessions ("how many days are ina week") with greedy finals; the
# one before it up to 0.6 ("wha coller is the ski"). Finals now go through the word language model
# (bench_e2e's 22 questions: WER 14.6% against 33.8% greedy); not yet re-measured here over
# several sessions, so the tolerance stays.
@pytest.mark.slow
def test_live_transcripts_are_stored(live_session):
    users = [t.text for t in live_session.stored if t.role == "user"]
    assert len(users) == len(live_session.questions), users
    for question, heard in zip(live_session.questions, users, strict=True):
        error = jiwer.wer(normalize(question), normalize(heard) or "<nothing>")
        assert error <= WER_TOLERANCE, f"{question!r} was recognized as {heard!r} (WER {error:.2f})"


@pytest.mark.slow
def test_live_answers_are_heard(live_session):
    assert all(rms > SPEECH_RMS for rms in live_session.heard_rms), live_session.heard_rms
    answers = [t for t in live_session.stored if t.role == "assistant"]
    assert len(answers) == len(live_session.questions) and all(a.text and not a.interrupted for a in answers)


@pytest.mark.slow
def test_live_turns_log_every_stage(live_session):
    assert len(live_session.records) == len(live_session.questions)
    for record in live_session.records:
        marks = record["marks_ns"]
        assert set(MARKS) <= set(marks), set(MARKS) - set(marks)
        assert record["durations_ms"]["voice_to_voice"] > 0 and not record["interrupted"]
        order = ("speech_start", "speech_end", "asr_final", "turn_start", "playback_start", "turn_end")
        assert [marks[m] for m in order] == sorted(marks[m] for m in order)
        assert marks["speech_end"] < marks["endpoint"] < marks["playback_start"]  # heard after the endpoint
    # ... and started before it, at the early final (`Pipeline.start_ahead`)
    assert any(r["marks_ns"]["turn_start"] < r["marks_ns"]["endpoint"] for r in live_session.records)


@pytest.mark.slow
def test_ctrl_c_while_listening_exits_cleanly(live_session):
    assert live_session.exit_code in (0, 130), live_session.stderr
    assert "Traceback" not in live_session.stderr, live_session.stderr
    roles = [t.role for t in live_session.stored]
    assert roles == ["user", "assistant"] * len(live_session.questions)


@pytest.mark.slow
def test_a_microphone_lost_mid_question_answers_what_was_heard_and_goes_on(pulse, espeak_wav, tmp_path):
    """The sound server dies 1.8 s into a question and stays down: the question is answered from
    what was heard (it waited for the device to come back, forever if it did not); the answer goes
    on in text, since the speaker died too; once the server is back, the next question is heard."""
    question = "Tell me about the history of the city of Paris and its old bridges over the river"
    app = Assistant(pulse, tmp_path)
    try:
        pulse.play_into_mic(espeak_wav(question), wait=False)
        time.sleep(1.8)
        pulse.stop()  # paplay, the microphone and the speaker with it
        app._wait(lambda: len(app.records()) == 1, 60, "answer the cut question")
        pulse.start()
        app._wait(app._listening, 60, "reopen the microphone")
        app.ask(QUESTIONS[0], espeak_wav(QUESTIONS[0]))
        code = app.interrupt()
    finally:
        app.kill()
        if pulse.pid is None:
            pulse.start()
    assert code in (0, 130) and "Traceback" not in app.stderr(), app.stderr()
    cut, _, again, _ = app.stored()
    heard = normalize(cut.text).split()
    assert 2 <= len(heard) < len(normalize(question).split()), cut.text  # the start of it
    first, second = app.records()
    assert first["speaker_error"] and not first["interrupted"]
    assert first["marks_ns"]["endpoint"] < first["marks_ns"]["turn_end"]
    assert jiwer.wer(normalize(QUESTIONS[0]), normalize(again.text) or "<nothing>") <= WER_TOLERANCE
    assert second["speaker_error"] is None and "playback_start" in second["marks_ns"]


@pytest.mark.slow
def test_ctrl_c_mid_answer_keeps_the_turn_clipped(pulse, espeak_wav, tmp_path):
    app = Assistant(pulse, tmp_path, max_answer_tokens=96)
    try:
        pulse.play_into_mic(espeak_wav("Tell me a long story about a dragon."))
        start = time.perf_counter_ns()
        app._wait(lambda: _rms(pulse.speaker.since(start)) > SPEECH_RMS, 120, "start answering")
        time.sleep(0.5)
        code, stopped = app.interrupt(), time.perf_counter_ns()
    finally:
        app.kill()
    assert code in (0, 130) and "Traceback" not in app.stderr(), app.stderr()
    assert _rms(pulse.speaker.between(stopped + 100_000_000)) < 0.003  # the voice stopped with it
    user, reply = app.stored()
    assert user.role == "user" and user.text
    assert reply.role == "assistant" and reply.interrupted  # stored, clipped to what was played
    [record] = app.records()
    assert record["interrupted"] and "turn_end" in record["marks_ns"]


# --- end to end: `assistant run --input q.wav --output a.wav --fast` ---------------------------------
FileRun = namedtuple("FileRun", "question done answer stored offline latency")
# Character error rate allowed between the file run's transcript and `assistant transcribe` of the
# same WAV: the run's recognizer starts at the VAD's pre-roll, not at the file's first sample, and
# takes its final through `peek_final`, so a letter may differ; a lost word (e.g. a dropped pre-roll
# or a final taken too early) is 4+ letters of the 26 here.
FILE_RUN_CER = 0.1


@pytest.fixture(scope="module")
def file_run(espeak_wav, tmp_path_factory):
    folder = tmp_path_factory.mktemp("file-run")
    question = QUESTIONS[1]
    config, wav, answer = _write_config(folder), espeak_wav(question), folder / "a.wav"
    cli = [sys.executable, "-m", "assistant.cli", "--config", str(config)]
    cmd = [*cli, "run", "--input", str(wav), "--output", str(answer), "--fast"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    offline = subprocess.run([*cli, "transcribe", "--json", str(wav)], cwd=REPO, capture_output=True,
                             text=True, timeout=120, check=True)  # fmt: skip
    latency = [json.loads(line) for line in (folder / "latency.jsonl").read_text().splitlines()]
    stored = _stored(folder / "memory.db")
    return FileRun(question, done, answer, stored, json.loads(offline.stdout)["text"], latency)


@pytest.mark.slow
def test_run_on_files(file_run):
    assert file_run.done.returncode == 0, file_run.done.stderr
    assert f"wrote {file_run.answer}" in file_run.done.stdout
    audio = read_audio(file_run.answer)
    assert len(audio) > RATE // 2 and _rms(audio) > SPEECH_RMS
    user, reply = file_run.stored
    assert user.role == "user" and user.text
    assert reply.role == "assistant" and reply.text and not reply.interrupted


def test_a_file_with_no_question_writes_no_answers_file(tmp_path):
    """It wrote an empty a.wav and said "wrote a.wav (0.00 s of answers)", then "no question recognized"."""
    write_wav(tmp_path / "quiet.wav", np.zeros(RATE * 2, np.float32))
    cli = [sys.executable, "-m", "assistant.cli", "--config", str(_write_config(tmp_path))]
    cmd = [*cli, "run", "--input", str(tmp_path / "quiet.wav"), "--output", str(tmp_path / "a.wav"), "--fast"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and done.stdout == "" and not (tmp_path / "a.wav").exists()
    assert done.stderr == f"assistant: no question recognized in {tmp_path / 'quiet.wav'}\n"


@pytest.mark.slow
def test_a_file_fed_faster_than_real_time_claims_no_voice_to_voice(file_run):
    """Its speech marks would time a person who was not there: on the file's clock, which ran ahead,
    they made voice to voice ~990 ms against ~470 ms for the same file at real-time pace."""
    [record] = file_run.latency
    assert not {"speech_start", "speech_end", "endpoint", "asr_final"} & set(record["marks_ns"])
    assert "voice_to_voice" not in record["durations_ms"] and "voice_to_voice" not in file_run.done.stdout
    assert record["durations_ms"]["text_to_voice"] > 0  # what it did time is real


@pytest.mark.slow
def test_run_on_files_stores_what_the_recognizer_hears_in_the_file(file_run):
    """Endpointing, pre-roll and the early final lose nothing: the stored question is what the
    recognizer makes of the whole WAV offline. (How well it recognizes is for `scripts/eval_asr.py`
    and models/asr/MODEL_CARD.md; the live test below checks it against the spoken words.)"""
    user, _ = file_run.stored
    offline = normalize(file_run.offline)
    assert offline, f"the recognizer heard nothing in {file_run.question!r}"
    assert jiwer.cer(offline, normalize(user.text) or "<nothing>") <= FILE_RUN_CER, (user.text, offline)


def _run_said(espeak_wav, folder: Path, said: list[tuple[float, str]], config_extra: str = ""):
    """`assistant run --input --fast` on what `said` lists ((pause before it in s, text), espeak-ng
    speech), with its own memory and log in `folder` (`config_extra` appended to its config)."""
    parts = []
    for pause_s, text in said:
        parts += [_silence(pause_s), _speech(espeak_wav, text)[0]]
    write_wav(folder / "q.wav", np.concatenate(parts))
    config = _write_config(folder)
    config.write_text(config.read_text() + config_extra)
    cli = [sys.executable, "-m", "assistant.cli", "--config", str(config)]
    cmd = [*cli, "run", "--input", str(folder / "q.wav"), "--output", str(folder / "a.wav"), "--fast"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
def test_with_a_wake_phrase_only_what_is_said_to_it_is_answered(espeak_wav, tmp_path):
    """`[wake] phrases = ["computer"]`, `follow_up_s = 2`, through `assistant run --input --fast`
    (the real recognizer, answerers, memory and log): a request without the phrase is let go; with
    it, answered without the phrase; the next one, 1 s after the answer, needs none; one 4 s after
    does; the phrase alone is answered "Yes?", which is logged but not remembered."""
    said = [
        (0.5, "Tell me a joke."),  # nobody said the phrase: let go
        (1.5, "Computer, what time is it?"),
        (1.0, "What day is it tomorrow?"),  # within follow_up_s of the answer
        (4.0, "What is two plus two?"),  # after it: let go
        (2.5, "Computer."),
        (1.0, "What is two plus two?"),
    ]
    done = _run_said(espeak_wav, tmp_path, said, '[wake]\nphrases = ["computer"]\nfollow_up_s = 2.0\n')
    let_go = [line for line in done.stdout.splitlines() if line.startswith("(not to me: ")]
    assert len(let_go) == 2, done.stdout
    assert "joke" in let_go[0].lower() and "plus" in let_go[1].lower(), let_go
    records = [json.loads(line) for line in (tmp_path / "latency.jsonl").read_text().splitlines()]
    assert [r["answered_by"] for r in records] == ["clock", "dates", "wake", "arithmetic"], done.stdout
    stored = [(turn.role, turn.text) for turn in _stored(tmp_path / "memory.db")]
    asked = [normalize(text) for role, text in stored if role == "user"]
    assert asked == ["what time is it", "what day is it tomorrow", "what is two plus two"], stored
    assert "Yes?" not in [text for _, text in stored]
    assert stored[-1][1] == "2 plus 2 is 4."


@pytest.mark.slow
def test_asked_to_stop_listening_it_answers_nothing_until_woken(espeak_wav, tmp_path):
    """No wake phrase set, through `assistant run --input --fast`: "Stop listening." is answered, and
    what follows is let go, the follow-up window too, until "Wake up."; then requests are answered
    again. Going to sleep and waking are logged, not remembered."""
    said = [
        (0.5, "What time is it?"),
        (1.0, "Stop listening."),
        (1.0, "Tell me a joke."),  # within what would be the follow-up window: let go all the same
        (1.0, "Wake up."),
        (1.0, "What is two plus two?"),
    ]
    done = _run_said(espeak_wav, tmp_path, said)
    let_go = [line for line in done.stdout.splitlines() if line.startswith("(asleep: ")]
    assert len(let_go) == 1 and "joke" in let_go[0].lower(), done.stdout
    assert wake.ASLEEP in done.stdout and wake.AWAKE in done.stdout, done.stdout
    records = [json.loads(line) for line in (tmp_path / "latency.jsonl").read_text().splitlines()]
    assert [r["answered_by"] for r in records] == ["clock", "wake", "wake", "arithmetic"], done.stdout
    stored = [(turn.role, turn.text) for turn in _stored(tmp_path / "memory.db")]
    asked = [normalize(text) for role, text in stored if role == "user"]
    assert asked == ["what time is it", "what is two plus two"], stored
    assert stored[-1][1] == "2 plus 2 is 4."
