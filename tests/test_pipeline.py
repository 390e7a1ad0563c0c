"""The answering pipeline end to end: real llama.cpp model, real piper voice, real PortAudio device
(the PulseAudio null sink of the `pulse` fixture), real SQLite file and latency log."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sqlite3
import threading
import time
from dataclasses import replace
from datetime import datetime

import numpy as np
import pytest
from conftest import wait_until

from assistant import about_you, clock, dates, forget
from assistant import pipeline as pipeline_mod
from assistant.audio import AudioDeviceError
from assistant.audio.devices import DeviceNotFoundError
from assistant.config import AudioConfig, Config, LlmConfig, MemoryConfig, MetricsConfig
from assistant.console import Console
from assistant.llm import ModelLoadError
from assistant.memory import Memory
from assistant.pipeline import ANSWER_WITHIN_S

SPOKEN_MARKS = {
    "turn_start", "prompt_built", "llm_first_token", "first_clause", "tts_first_audio", "playback_start",
    "llm_done", "turn_end",
}  # fmt: skip


def _config(tmp_path, **llm) -> Config:
    return Config(
        memory=MemoryConfig(path=str(tmp_path / "memory.db")),
        metrics=MetricsConfig(latency_log=str(tmp_path / "latency.jsonl")),
        llm=LlmConfig(temperature=0.0, **{"max_answer_tokens": 48, **llm}),
    )


def _stored(cfg: Config) -> list:
    memory = Memory(cfg.memory).build()
    try:
        return memory.recent(100)
    finally:
        memory.close()


def _log(cfg: Config) -> list[dict]:
    return [json.loads(line) for line in cfg.metrics.latency_log_path.read_text().splitlines()]


async def _session(cfg: Config, body, speak: bool = True, sink=None, observer=None):
    pipe = pipeline_mod.create(cfg, speak=speak, sink=sink, observer=observer)
    await pipe.open()
    try:
        return await body(pipe)
    finally:
        await pipe.stop()


def test_muted_chat_stores_turns_and_logs_latency(tmp_path):
    cfg = _config(tmp_path)

    async def body(pipe):
        return [
            await pipe.ask("What is the largest ocean?"),
            await pipe.ask("Name one famous museum there."),
        ]

    turns = asyncio.run(_session(cfg, body, speak=False))
    assert all(t.answer_text.strip() for t in turns)
    stored = _stored(cfg)
    assert [t.role for t in stored] == ["user", "assistant", "user", "assistant"]
    assert stored[0].text == "What is the largest ocean?" and stored[1].text == turns[0].answer_text.strip()
    records = _log(cfg)
    assert [r["turn"] for r in records] == [1, 2] and not any(r["interrupted"] for r in records)
    assert records[1]["reused_tokens"] > 0  # the KV cache carried over from turn 1
    assert {"prompt_build", "llm_ttft", "turn_total"} <= set(records[0]["durations_ms"])


def test_an_open_that_fails_lets_go_of_the_conversation(tmp_path):
    broken = tmp_path / "notes.gguf"
    broken.write_text("not a model")
    cfg = _config(tmp_path)

    async def open_broken():
        await pipeline_mod.create(
            cfg.model_copy(update={"llm": LlmConfig(model=str(broken))}), speak=False
        ).open()

    with pytest.raises(ModelLoadError, match="not a GGUF"):
        asyncio.run(open_broken())
    Memory(cfg.memory).build().claim().close()  # held by nothing now, in this process or another


def test_the_start_prefills_the_remembered_window_for_the_first_question(tmp_path):
    """Without it the first question after a start prefilled the system prompt and the whole window
    (1.2 s with 8 turns remembered, scripts/bench_llm.py --start); now only its own message."""
    cfg = _config(tmp_path)
    memory = Memory(cfg.memory).build()
    for role, text in [("user", "Hi, my name is Ana."), ("assistant", "Nice to meet you, Ana!")] * 2:
        memory.add(role, text)
    memory.close()

    async def body(pipe):
        await pipe._preparing  # the start's prefill, done while the person reads the prompt
        return await pipe.ask("Remember me?")  # the LLM's ("what is my name" is about_you.py's)

    turn = asyncio.run(_session(cfg, body, speak=False))
    first = _log(cfg)[0]
    assert turn.answer_text.strip() and first["prompt_tokens"] > 40
    own_message = first["prompt_tokens"] - first["reused_tokens"]
    assert 0 < own_message <= 12  # "<|im_start|>user\nRemember me?<|im_end|>..." and no more


def test_a_question_prepared_from_its_partial_transcript_starts_from_the_cache(tmp_path):
    cfg = _config(tmp_path)
    question = "Name one famous museum there."

    async def body(pipe):
        await pipe.ask("What is the largest ocean?")
        for partial in ("Name", "Name one famous", question):  # as the recognizer's partials grow
            pipe.prepare(partial)
            await asyncio.sleep(0)
        await pipe._preparing
        await pipe.ask(question)
        busy = await pipe.submit("Tell me more.")
        pipe.prepare("Something else")  # an answer owns the model: nothing is prefilled
        assert pipe._preparing.done()
        await pipe.wait(busy)

    asyncio.run(_session(cfg, body, speak=False))
    records = _log(cfg)
    assert records[1]["reused_tokens"] == records[1]["prompt_tokens"] - 1  # only the last token again
    assert records[2]["reused_tokens"] < records[2]["prompt_tokens"] - 1


def test_spoken_turn_reaches_the_speaker(tmp_path, pulse):
    cfg = _config(tmp_path)
    start = time.perf_counter_ns()
    turn = asyncio.run(_session(cfg, lambda pipe: pipe.ask("Say hello in one short sentence.")))
    heard = pulse.speaker.since(start)
    assert np.sqrt(np.mean(heard**2)) > 0.01, "no sound came out of the speaker"
    record = _log(cfg)[-1]
    assert SPOKEN_MARKS <= set(record["marks_ns"])
    assert record["durations_ms"]["text_to_voice"] > 0
    assert turn.played_clauses and " ".join(turn.played_clauses).strip()
    # each clause once (nothing held it), stamped as it began to sound: what barge-in checks a
    # floor's words against
    assert [text for _, text in turn.sounded] == turn.played_clauses
    starts = [at for at, _ in turn.sounded]
    assert starts[0] == turn.marks["playback_start"] and starts == sorted(set(starts))


def test_the_speaker_is_open_before_the_first_answer(tmp_path, pulse):
    # Opened at the first answer, the stream cost that answer 270-300 ms that later ones did not pay.
    async def body(pipe):
        return json.loads(pulse.pactl("--format=json", "list", "sink-inputs"))

    streams = asyncio.run(_session(_config(tmp_path), body))
    ours = [s for s in streams if s.get("properties", {}).get("application.process.id") == str(os.getpid())]
    assert len(ours) == 1, streams  # playing silence into `spk` until stop()


def test_a_speaker_name_that_matches_no_device_stops_the_start(tmp_path, pulse):
    cfg = _config(tmp_path).model_copy(update={"audio": AudioConfig(output_device="no such speaker")})
    with pytest.raises(DeviceNotFoundError, match="no such speaker"):
        asyncio.run(_session(cfg, lambda pipe: pipe.ask("hello")))


@pytest.mark.parametrize("server_stalls", [False, True])
def test_interrupt_stops_sound_and_stores_the_clipped_reply(tmp_path, pulse, server_stalls):
    """With `server_stalls`, the sound server is stopped for 400 ms at the cut, as a starved CI machine
    did (its recorder then got the last sound late, stamped past the cut): the flush still holds."""
    cfg = _config(tmp_path, max_answer_tokens=160)

    async def body(pipe):
        turn = await pipe.submit("Tell me a long story about a dragon and a knight, in many sentences.")
        while "playback_start" not in turn.marks:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.8)
        cut = time.perf_counter_ns()
        if server_stalls:
            os.kill(pulse.pid, signal.SIGSTOP)
            threading.Timer(0.4, os.kill, (pulse.pid, signal.SIGCONT)).start()
        await pipe.interrupt()
        await asyncio.sleep(0.7)  # a quiet moment to check that the sound stopped
        return turn, cut, await pipe.ask("Thanks. What is two plus two?")

    turn, cut, after = asyncio.run(_session(cfg, body))
    silent_from = cut + 150_000_000  # one block plus the null sink's and recorder's buffering
    silent_until = min(silent_from + 500_000_000, after.marks["turn_start"])  # before the next answer
    tail = pulse.speaker.between(silent_from, silent_until)
    assert turn.interrupted and len(tail) >= 4_000 and np.sqrt(np.mean(tail**2)) < 0.003
    stored = _stored(cfg)
    reply = stored[1]
    assert reply.role == "assistant" and reply.interrupted
    assert reply.text == " ".join(turn.played_clauses).strip()
    assert len(reply.text) < len(turn.answer_text.strip())  # clipped to what was heard
    assert [t.role for t in stored[2:]] == ["user", "assistant"] and not stored[3].interrupted
    assert after.answer_text.strip()


class _InstantSink:
    first_sample_ns = None

    def play(self, samples, rate, cancel) -> bool:
        self.first_sample_ns = time.perf_counter_ns()
        return True


class _BrokenSink(_InstantSink):
    """A sink with a bug: it crashes on the first clause of the second turn."""

    def __init__(self):
        self.calls = 0

    def play(self, samples, rate, cancel) -> bool:
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("device vanished")
        return super().play(samples, rate, cancel)


def test_a_crash_during_a_turn_keeps_completed_turns_and_goes_on(tmp_path):
    cfg = _config(tmp_path, max_answer_tokens=12)
    sink = _BrokenSink()

    async def body(pipe):
        first = await pipe.ask("What time is it?")  # one clause ("Hello." is two now: courtesy.py)
        broken = await asyncio.wait_for(pipe.ask("And again?"), 60)
        third = await pipe.ask("One more time.")
        return first, broken, third

    console = Console(io.StringIO(), show_latency=False)
    first, broken, third = asyncio.run(_session(cfg, body, sink=sink, observer=console))
    assert not any(t.interrupted for t in (first, broken, third))  # the user cut none of them
    assert broken.failed == "RuntimeError: device vanished" and not first.failed and not third.failed
    lines = console.out.getvalue().splitlines()  # one line for the crash, and the answers go on around it
    assert "assistant: error: RuntimeError: device vanished (the conversation goes on)" in lines
    assert lines[-1] == "assistant: " + third.answer_text
    # Nothing of the failed answer was heard: its question stays, and no empty "[interrupted]" answer
    stored = _stored(cfg)
    assert [t.role for t in stored] == ["user", "assistant", "user", "user", "assistant"]
    assert not any(t.interrupted for t in stored)
    log = _log(cfg)
    assert [r["error"] for r in log] == [None, "RuntimeError: device vanished", None]
    assert not any(r["interrupted"] for r in log)


class _VanishingSpeaker(_InstantSink):
    """A speaker that fails as a vanished device does (AudioDeviceError) once `vanish` is set."""

    def __init__(self):
        self.calls, self.vanish = 0, False

    def play(self, samples, rate, cancel) -> bool:
        self.calls += 1
        if self.vanish:
            self.vanish = False
            raise AudioDeviceError("output device 'spk' failed during playback: the stream stopped")
        return super().play(samples, rate, cancel)


def _a_vanished_speaker_costs_the_sound_not_the_answer(cfg, sink, during):
    """Turn 1 is spoken; during turn 2 `during(turn)` makes the speaker fail; turn 3 is spoken."""
    console = Console(io.StringIO(), show_latency=False)

    async def body(pipe):
        first = await pipe.ask("Say hello.")
        broken = await pipe.submit("Count from one to twenty, in words.")
        await during(broken)
        await pipe.wait(broken, 60)
        third = await pipe.ask("Say goodbye.")
        return first, broken, third

    first, broken, third = asyncio.run(_session(cfg, body, sink=sink, observer=console))
    assert "failed during playback" in broken.speaker_error
    # the terminal: the warning on a line of its own, the answer whole around it
    lines = console.out.getvalue().splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("assistant: warning: ")]
    assert broken.speaker_error in lines[at]
    head = lines[at - 1].removeprefix("assistant: ")
    rest = lines[at + 1] if lines[at + 1].startswith("assistant: …") else ""  # what came after it
    assert (head + rest.removeprefix("assistant: …")).split() == broken.answer_text.split()
    assert not broken.interrupted and "llm_done" in broken.marks  # the LLM was not stopped
    # what was not spoken is shown and remembered whole: the user read it
    stored = _stored(cfg)
    assert [(t.role, t.interrupted) for t in stored] == [("user", False), ("assistant", False)] * 3
    assert stored[3].text == broken.answer_text.strip()
    assert len(" ".join(broken.played_clauses)) < len(broken.answer_text.strip())  # cut mid-answer
    records = _log(cfg)
    assert [r["speaker_error"] is not None for r in records] == [False, True, False]
    assert third.played_clauses and not third.speaker_error  # the next answer speaks again
    return first, broken, third


def test_a_vanished_speaker_costs_the_sound_not_the_answer(tmp_path):
    sink = _VanishingSpeaker()

    async def vanish(turn):
        sink.vanish = True  # before its first clause is synthesized: that clause fails

    first, broken, third = _a_vanished_speaker_costs_the_sound_not_the_answer(_config(tmp_path), sink, vanish)
    assert broken.played_clauses == [] and len(broken.answer_text.split()) > 8
    # turn 2 tried its first clause only: the failed try; the rest were not played
    assert sink.calls == len(first.played_clauses) + 1 + len(third.played_clauses)
    assert broken.marks["first_clause"] < broken.marks["tts_first_audio"]


def test_a_speaker_whose_server_dies_mid_answer_costs_the_sound_not_the_answer(tmp_path, pulse):
    """The real path: PortAudio's stream on a PulseAudio server killed while the answer sounds."""

    async def kill_the_server(turn):
        assert await wait_until(lambda: "playback_start" in turn.marks, 60)
        await asyncio.sleep(0.3)
        await asyncio.to_thread(pulse.restart)  # the server is back before the next answer

    start = time.perf_counter_ns()
    _a_vanished_speaker_costs_the_sound_not_the_answer(
        _config(tmp_path, max_answer_tokens=64), None, kill_the_server
    )
    heard = pulse.speaker.since(start)  # the restarted server's recording: only turn 3 is in it
    assert np.sqrt(np.mean(heard**2)) > 0.01, "the next answer did not come out of the speaker"


class _AbsentSpeaker(_InstantSink):
    """No speaker while `absent` is set: every clause fails as a missing device does."""

    absent = True

    def play(self, samples, rate, cancel) -> bool:
        if self.absent:
            raise AudioDeviceError("no default output device (Error querying device -1)")
        return super().play(samples, rate, cancel)


def test_a_missing_speaker_is_reported_once_until_it_plays_again(tmp_path):
    """`assistant chat` with no speaker warned at every answer; now once, and again only after the
    speaker has come back and failed anew."""
    sink, console = _AbsentSpeaker(), Console(io.StringIO(), show_latency=False)

    async def body(pipe):
        turns = [await pipe.ask("Say hello."), await pipe.ask("Say goodbye.")]
        sink.absent = False
        turns.append(await pipe.ask("Say hello again."))
        sink.absent = True
        turns.append(await pipe.ask("Say goodbye again."))
        return turns

    turns = asyncio.run(_session(_config(tmp_path), body, sink=sink, observer=console))
    assert [bool(t.speaker_error) for t in turns] == [True, True, False, True]
    warnings = [line for line in console.out.getvalue().splitlines() if "warning:" in line]
    assert len(warnings) == 2 and all("no default output device" in w for w in warnings), warnings
    assert [t.role for t in _stored(_config(tmp_path))] == ["user", "assistant"] * 4


def test_a_question_longer_than_the_context_is_read_by_its_start_and_end(tmp_path):
    """A page pasted into `chat` failed its turn: "prompt is 6058 tokens but [llm] n_ctx allows 2047"."""
    cfg, console = _config(tmp_path, n_ctx=512), Console(io.StringIO(), show_latency=False)
    question = "Summarize this: " + "the cat sat on the mat and looked around. " * 100 + "Who sat on the mat?"

    async def body(pipe):
        return await pipe.ask(question), await pipe.ask("Thank you.")

    long, after = asyncio.run(_session(cfg, body, speak=False, observer=console))
    assert long.answer_text.strip() and after.answer_text.strip()
    warnings = [line for line in console.out.getvalue().splitlines() if "warning:" in line]
    assert len(warnings) == 1 and "it reads the start and the end" in warnings[0]  # not for "Thank you."
    first = _log(cfg)[0]
    assert first["prompt_tokens"] + cfg.llm.max_answer_tokens <= 512 - 1  # the answer kept its room
    assert first["prompt_tokens"] > 512 - cfg.llm.max_answer_tokens - 40  # and the question the rest
    assert _stored(cfg)[0].text == question.strip()  # remembered as said


def test_remembered_turns_make_room_for_the_question_before_it_is_cut(tmp_path):
    """A window that [memory] max_tokens allows but n_ctx does not hold failed the turn ("prompt is
    N tokens but [llm] n_ctx allows M"); a long question beside it was cut to fit. The oldest
    remembered turns now go first, and the question is read whole while it fits alone."""
    db = str(tmp_path / "memory.db")
    memory = MemoryConfig(path=db, window_turns=8, max_tokens=4000, max_item_chars=4000)
    cfg = _config(tmp_path, n_ctx=512).model_copy(update={"memory": memory})
    console = Console(io.StringIO(), show_latency=False)
    questions = [f"Question {n}: " + "tell me about cats and their whiskers. " * 22 for n in range(4)]

    async def body(pipe):
        return [await pipe.ask(q) for q in questions]

    turns = asyncio.run(_session(cfg, body, speak=False, observer=console))
    out = console.out.getvalue()
    assert "error" not in out and "warning" not in out, out  # no failed turn, no question cut
    assert all(t.answer_text.strip() and not t.interrupted for t in turns)
    records = _log(cfg)
    alone = records[0]["prompt_tokens"]  # the system prompt and one question
    assert 200 < alone and alone + cfg.llm.max_answer_tokens <= 511
    for record in records[1:]:  # each later one drops turns: two questions would not leave the answer room
        assert record["prompt_tokens"] + cfg.llm.max_answer_tokens <= 511
        assert record["prompt_tokens"] < 2 * alone


def test_a_turn_that_fails_as_it_is_stored_ends_its_line_for_the_next_answer(tmp_path):
    """Console.error after an answer's text left that line open: the next answer was printed
    without its "assistant: ", run on from the error."""
    cfg, console = _config(tmp_path), Console(io.StringIO(), show_latency=False)

    async def body(pipe):
        add, failed = pipe.memory.add, []

        def add_once_failing(role, text, interrupted=False):
            if role == "assistant" and not failed:
                failed.append(text)
                raise sqlite3.OperationalError("disk I/O error")
            return add(role, text, interrupted)

        pipe.memory.add = add_once_failing
        broken = await pipe.submit("Say hello.")
        await pipe.wait(broken, 60)
        return broken, await pipe.ask("Say goodbye.")

    broken, after = asyncio.run(_session(cfg, body, speak=False, observer=console))
    assert console.out.getvalue().splitlines()[-3:] == [
        "assistant: " + broken.answer_text,
        "assistant: error: OperationalError: disk I/O error (the conversation goes on)",
        "assistant: " + after.answer_text,
    ]


def test_a_latency_log_that_cannot_be_written_is_one_warning_and_the_turns_go_on(tmp_path):
    """It failed each turn as a crash: "error: IsADirectoryError ..." after a traceback, and the next
    answer's line lost its "assistant: " (the failed turn never closed its line)."""
    cfg, console = _config(tmp_path), Console(io.StringIO(), show_latency=False)
    log_path = cfg.metrics.latency_log_path

    async def body(pipe):
        turns = [await pipe.ask("Say hello.")]
        log_path.unlink()
        log_path.mkdir()  # as a file replaced by a folder, or a disk gone read-only
        turns += [await pipe.ask("Say goodbye."), await pipe.ask("Say hello again.")]
        log_path.rmdir()
        turns.append(await pipe.ask("Say goodbye again."))
        return turns

    turns = asyncio.run(_session(cfg, body, speak=False, observer=console))
    lines = console.out.getvalue().splitlines()
    warnings = [line for line in lines if "warning:" in line]
    assert warnings == [
        f"assistant: warning: latency log {log_path}: cannot write it (Is a directory); turns go on unlogged"
    ]
    assert "error" not in console.out.getvalue()
    answers = [line for line in lines if line.startswith("assistant: ") and line not in warnings]
    assert len(answers) == 4 and all(t.answer_text.strip() for t in turns)
    assert [t.role for t in _stored(cfg)] == ["user", "assistant"] * 4  # every turn remembered
    assert [r["turn"] for r in _log(cfg)] == [4]  # logged again once it could be


@pytest.mark.parametrize("n", [3])
def test_rapid_interrupts_leave_no_tasks_behind(tmp_path, n):
    cfg = _config(tmp_path, max_answer_tokens=64)

    async def body(pipe):
        for i in range(n):
            await pipe.submit(f"Count from one to twenty, round {i}.")
            await asyncio.sleep(0.3)
            await pipe.interrupt()
        last = await pipe.ask("Say done.")
        return last, len(asyncio.all_tasks())

    last, tasks = asyncio.run(_session(cfg, body, speak=False))
    assert last.answer_text and tasks <= 1 + 2  # the test itself and the two stage tasks
    stored = _stored(cfg)
    assert [t.role for t in stored].count("user") == n + 1


def test_a_reply_ended_as_its_task_is_cancelled_is_in_memory_and_the_log_alike(tmp_path):
    """Shutdown may cancel a barge-in half way through ending the turn: the reply's memory row and
    its latency line are written together (the 100-barge-in test once found a row with no line)."""
    cfg = _config(tmp_path, max_answer_tokens=64)

    async def body(pipe):
        turn = await pipe.submit("Count from one to twenty.")
        assert await wait_until(lambda: "llm_first_token" in turn.marks, 60)
        gate = threading.Event()
        pipe._memory_thread.submit(gate.wait, 30)  # the turn's writes queue behind this job
        ending = asyncio.create_task(pipe.interrupt())
        assert await wait_until(lambda: "turn_end" in turn.marks, 10)
        ending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await ending  # cancelled while its write still waits for the thread (CI once lost it so)
        gate.set()
        await pipe.wait(turn, 10)  # its waiters are woken all the same, once the write is done

    asyncio.run(_session(cfg, body, speak=False))
    assert [(t.role, t.interrupted) for t in _stored(cfg)] == [("user", False), ("assistant", True)]
    assert [(r["turn"], r["interrupted"]) for r in _log(cfg)] == [(1, True)]


class _PieceTimes(pipeline_mod.QuietObserver):
    def __init__(self):
        self.times: list[int] = []

    def answer_piece(self, turn, text: str) -> None:
        self.times.append(time.perf_counter_ns())


def test_the_llm_pauses_while_the_first_clause_is_synthesized(tmp_path):
    """On two cores piper and llama.cpp would halve each other; the first audio comes first."""
    cfg = _config(tmp_path, max_answer_tokens=64)
    seen = _PieceTimes()

    async def body(pipe):
        pipe.observer = seen
        return await pipe.ask("Tell me three facts about the moon.")

    turn = asyncio.run(_session(cfg, body, sink=_InstantSink()))
    start, end = turn.marks["first_clause"], turn.marks["tts_first_audio"]
    during = [t for t in seen.times if start < t < end]
    assert len(during) <= 1, f"{len(during)} pieces generated during the first clause's synthesis"
    assert any(t > end for t in seen.times), "the answer went on after the first clause"


class _HoldingSink(_InstantSink):
    """Stops at a hold like the device player does (`cancel` is set by the turn's cancel or the
    pipeline's hold): returns False with nothing played."""

    def __init__(self):
        self.held = 0

    def play(self, samples, rate, cancel) -> bool:
        if cancel.is_set():
            self.held += 1
            return False
        return super().play(samples, rate, cancel)


def test_a_hold_nobody_releases_does_not_hang_the_answer(tmp_path):
    """A listener that stops hearing mid-hold (a stalled microphone) must not freeze the reply."""
    cfg = _config(tmp_path, max_answer_tokens=16)
    sink = _HoldingSink()

    async def body(pipe):
        pipe.hold.set()  # as if the listener held playback, then went deaf
        started = time.monotonic()
        turn = await asyncio.wait_for(pipe.ask("Say hello."), 30)
        return turn, time.monotonic() - started

    turn, took = asyncio.run(_session(cfg, body, sink=sink))
    assert sink.held == 1 and turn.played_clauses and not turn.interrupted
    assert pipeline_mod.MAX_HOLD_S <= took < pipeline_mod.MAX_HOLD_S + 10


def test_a_turn_started_ahead_is_heard_and_remembered_only_once_confirmed(tmp_path, pulse):
    """The listener starts the answer at its early final (`start_ahead`): until the endpoint
    confirms it, nothing is played, shown, stored or logged; then it plays. One dropped because the
    user went on (`discard`) leaves no trace."""
    cfg = _config(tmp_path)
    shown = _PieceTimes()

    async def body(pipe):
        pipe.observer = shown
        dropped = await pipe.start_ahead("Tell me a long story about a dragon.")
        while "first_clause" not in dropped.marks:
            await asyncio.sleep(0.01)
        await pipe.discard(dropped)
        start = time.perf_counter_ns()
        turn = await pipe.start_ahead("What is the largest ocean?")
        assert await pipe.start_ahead("And the smallest?") is None  # one ahead at a time
        while "tts_first_audio" not in turn.marks:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)  # the first clause is ready to play, and must wait
        held = {
            "shown": list(shown.times),
            "stored": _stored(cfg),
            "log": cfg.metrics.latency_log_path.exists(),
        }
        confirmed = time.perf_counter_ns()
        assert await pipe.confirm(turn, {"endpoint": confirmed})
        await pipe.wait(turn, 60)
        return dropped, turn, held, start, confirmed

    dropped, turn, held, start, confirmed = asyncio.run(_session(cfg, body))
    before = pulse.speaker.between(start, confirmed)
    assert len(before) > 8_000 and np.sqrt(np.mean(before**2)) < 0.003, "played before the endpoint"
    assert np.sqrt(np.mean(pulse.speaker.between(confirmed) ** 2)) > 0.01, "not played after it"
    assert held == {"shown": [], "stored": [], "log": False}
    assert dropped.interrupted and "playback_start" not in dropped.marks
    assert turn.marks["turn_start"] < turn.marks["tts_first_audio"] < confirmed < turn.marks["playback_start"]
    stored = _stored(cfg)
    assert [(t.role, t.interrupted) for t in stored] == [("user", False), ("assistant", False)]
    assert stored[0].text == "What is the largest ocean?" and stored[1].text == turn.answer_text.strip()
    [record] = _log(cfg)
    assert record["turn"] == turn.id and record["durations_ms"]["text_to_voice"] > 0


def test_a_clock_question_is_answered_from_the_clock_not_by_the_llm(tmp_path):
    """The LLM cannot know the time, and made one up ("It's currently 21:59 EST"), nor the weather
    ("mostly sunny with a light breeze"). Typed, and started ahead of the endpoint as a spoken one
    is, the clock answers (and `limits`); the next question goes to the LLM, which has those answers
    in its cache by then."""
    cfg, console = _config(tmp_path), Console(io.StringIO(), show_latency=False)
    sink = _InstantSink()

    async def body(pipe):
        before = datetime.now()
        typed = await pipe.ask("What time is it?")
        weather = await pipe.ask("What's the weather like today?")
        spoken = await pipe.start_ahead("what day is it today")
        await asyncio.sleep(0.3)
        assert await pipe.confirm(spoken, {"endpoint": time.perf_counter_ns()})
        await pipe.wait(spoken, 30)
        after = datetime.now()
        await pipe._preparing  # the cache catching up with the clock's answers
        return before, after, typed, weather, spoken, await pipe.ask("Tell me a story.")

    before, after, typed, weather, spoken, _ = asyncio.run(_session(cfg, body, sink=sink, observer=console))
    assert typed.answer_text in {clock.answer("what time is it", t) for t in (before, after)}
    assert weather.answer_text.startswith("I can't check the weather")  # not "mostly sunny" (limits.py)
    assert spoken.answer_text in {clock.answer("what day is it", t) for t in (before, after)}
    for turn in (typed, weather, spoken):  # spoken, with no LLM mark: none of its time was the LLM's
        assert "tts_first_audio" in turn.marks and "playback_start" in turn.marks
        assert not {"prompt_built", "llm_first_token", "llm_done"} & set(turn.marks)
    answers = [typed.answer_text, weather.answer_text, spoken.answer_text]
    assert console.out.getvalue().splitlines()[:3] == ["assistant: " + a for a in answers]
    stored = _stored(cfg)
    assert [(t.role, t.text) for t in stored[:6]] == [
        ("user", "What time is it?"),
        ("assistant", typed.answer_text),
        ("user", "What's the weather like today?"),
        ("assistant", weather.answer_text),
        ("user", "what day is it today"),
        ("assistant", spoken.answer_text),
    ]
    log = _log(cfg)
    assert [r["generated_tokens"] > 0 for r in log] == [False, False, False, True]
    assert [r["answered_by"] for r in log] == ["clock", "limits", "clock", "llm"]
    assert "llm_ttft" not in log[0]["durations_ms"] and "llm_ttft" in log[3]["durations_ms"]
    # the answers given without the LLM, and their questions, were prefilled before "Thank you." came
    assert log[3]["prompt_tokens"] - log[3]["reused_tokens"] < 12, log[3]


class _SlowSink(_InstantSink):
    """Its first sample is out at once, then each clause takes 0.3 s to play."""

    def play(self, samples, rate, cancel) -> bool:
        self.first_sample_ns = time.perf_counter_ns()
        return not cancel.wait(0.3)


def test_a_timer_is_set_and_said_aloud_when_due_after_the_answer_under_way(tmp_path):
    """Asked to set one, the LLM said "Set a timer for five minutes and have the user take a
    picture of themselves ..." and set nothing. A spoken request is not started ahead of the
    endpoint (the user may go on: "... for ten minutes"); a timer due during an answer waits for
    its end; one not yet due when the assistant stops is kept in the memory file, and the next
    start runs it again."""
    cfg, console = _config(tmp_path, max_answer_tokens=64), Console(io.StringIO(), show_latency=False)

    async def body(pipe):
        assert await pipe.start_ahead("set a timer for five minutes") is None and not pipe.timers.running
        set_at = time.perf_counter_ns()
        timer = await pipe.ask("Set a timer for one second.")
        story = await pipe.ask("Tell me a long story about a dragon.")  # 0.3 s a clause: over 1 s
        while len(pipe.timers.running) or pipe._announcing:
            await asyncio.sleep(0.05)
        done = pipe.current
        await pipe.wait(done, 30)
        await pipe.ask("Set a timer for ten minutes.")
        return set_at, timer, story, done

    set_at, timer, story, done = asyncio.run(_session(cfg, body, sink=_SlowSink(), observer=console))
    assert timer.answer_text == "Timer set for 1 second."
    assert story.marks["turn_end"] - set_at > 1.2e9  # the timer was due while the story played ...
    assert done.answer_text == "Your timer for 1 second is done."
    assert done.marks["turn_start"] >= story.marks["turn_end"]  # ... and waited for its end
    assert "playback_start" in done.marks  # said aloud
    lines = console.out.getvalue().splitlines()
    assert "assistant: Your timer for 1 second is done." in lines
    assert not any("warning" in line for line in lines)
    stored = [(t.role, t.text) for t in _stored(cfg)]
    assert stored[:2] == [("user", "Set a timer for one second."), ("assistant", "Timer set for 1 second.")]
    assert ("assistant", "Your timer for 1 second is done.") in stored

    async def restarted(pipe):  # the ten-minute timer outlived the stop
        return await pipe.ask("How much time is left?")

    left = asyncio.run(_session(cfg, restarted, speak=False))
    assert left.answer_text.startswith("9 minutes and"), left.answer_text


def test_a_timer_asked_back_for_its_time_is_set_by_the_answer_alone(tmp_path):
    """ "For how long?" "Ten minutes." went to the LLM. The answer is not started ahead of its endpoint
    either ("ten minutes ... and thirty seconds")."""
    cfg = _config(tmp_path)

    async def body(pipe):
        asked = await pipe.ask("Set a timer.")
        ahead = await pipe.start_ahead("ten minutes")
        done = await pipe.ask("Ten minutes.")
        return asked, ahead, done, len(pipe.timers.running)

    asked, ahead, done, running = asyncio.run(_session(cfg, body, speak=False))
    assert asked.answer_text == "For how long? Say, for example: five minutes."
    assert ahead is None
    assert done.answer_text == "Timer set for 10 minutes." and running == 1
    assert [r["answered_by"] for r in _log(cfg)] == ["timers", "timers"]


def test_say_that_again_repeats_the_answer_and_go_on_finishes_a_cut_one(tmp_path):
    """Asked to say it again, the LLM said the first sentence of a three-sentence answer; asked to go
    on after a cut, it started anew. The answer is at hand: said again whole, or from the clause
    it was cut in, without the LLM; "go on" after an answer heard whole still goes to the LLM."""
    cfg = _config(tmp_path, max_answer_tokens=96)

    async def body(pipe):
        nothing = await pipe.ask("What did you say?")
        story = await pipe.submit("Tell me a long story about a dragon.")  # 0.3 s a clause
        while len(story.played_clauses) < 2:
            await asyncio.sleep(0.01)
        await pipe.interrupt()
        rest = await pipe.ask("Please go on.")
        again = await pipe.ask("Say that again.")
        more = await pipe.ask("Go on.")  # "Please go on." was heard whole: the LLM goes on
        heard = await pipe.ask("What did I say?")
        return nothing, story, rest, again, more, heard

    nothing, story, rest, again, more, heard = asyncio.run(_session(cfg, body, sink=_SlowSink()))
    assert heard.answer_text == 'You said: "Go on".'
    assert nothing.answer_text == "I haven't said anything yet."
    assert story.interrupted
    heard = " ".join(story.played_clauses).split()
    assert story.answer_text.split()[: len(heard)] == heard
    unheard = " ".join(story.answer_text.split()[len(heard) :])
    # to the end of its last whole sentence: the LLM may not have written all of it by the cut
    assert rest.answer_text and unheard.startswith(rest.answer_text), (unheard, rest.answer_text)
    assert rest.answer_text.rstrip("\"')")[-1] in ".!?"
    assert again.answer_text == rest.answer_text
    for turn in (nothing, rest, again):
        assert "playback_start" in turn.marks and "prompt_built" not in turn.marks
    # what the 135M model writes is its own: CI saw it say the same rest a third time
    assert "prompt_built" in more.marks and more.answered_by == "llm"
    stored = [(t.role, t.text) for t in _stored(cfg)]
    assert stored[4:8] == [
        ("user", "Please go on."),
        ("assistant", rest.answer_text),
        ("user", "Say that again."),
        ("assistant", rest.answer_text),
    ]


def test_a_sum_or_a_conversion_is_worked_out_not_guessed_by_the_llm(tmp_path):
    """The LLM said "345 + 678 = 123" and "1 cuccalar = 283.56 liters". A sum or a conversion alone
    is worked out (`arithmetic.py`, `units.py`); a question that is more still goes to the LLM."""
    cfg = _config(tmp_path)

    async def body(pipe):
        asked = (
            "What is 345 + 678?",
            "How many cups in a gallon?",
            "How do you spell rhythm?",
            "How many days until Christmas?",
            "Flip a coin.",
            "Start the stopwatch.",
            "What does ephemeral mean?",
            "What's the capital of Mongolia?",
            "What is element number 79?",
            "What is two plus two in binary?",
        )
        return [await pipe.ask(q) for q in asked]

    summed, converted, spelled, christmas, coin, watch, meant, capital, element, binary = asyncio.run(
        _session(cfg, body, speak=False)
    )
    assert christmas.answer_text == dates.answer("How many days until Christmas?")  # (unless past midnight)
    assert spelled.answer_text == "Rhythm is spelled R, H, Y, T, H, M."
    assert summed.answer_text == "345 plus 678 is 1023." and "prompt_built" not in summed.marks
    assert converted.answer_text == "A gallon is 16 cups." and "prompt_built" not in converted.marks
    assert coin.answer_text in {"Heads.", "Tails."}  # the LLM: "The coin is flipped."
    assert watch.answer_text == "Stopwatch started."
    assert meant.answer_text.startswith("Ephemeral means lasting a very short time")  # WordNet's
    assert capital.answer_text == "The capital of Mongolia is Ulaanbaatar."  # the LLM: "a country in Asia"
    assert element.answer_text == "Element number 79 is gold, symbol Au, spelled A, U."  # the LLM: "sodium"
    assert "prompt_built" in binary.marks
    answered_by = [record["answered_by"] for record in _log(cfg)]
    assert (
        answered_by
        == "arithmetic units spelling dates chance stopwatch dictionary places elements llm".split()
    )
    stored = [(t.role, t.text) for t in _stored(cfg)]
    assert stored[:2] == [("user", "What is 345 + 678?"), ("assistant", "345 plus 678 is 1023.")]


def test_the_conversation_is_forgotten_by_voice_only_after_a_yes(tmp_path):
    """ "Forget our conversation" asks back; only a "yes" as the next request, within
    ANSWER_WITHIN_S, clears the memory. Anything else, a "no", or a "yes" too late keeps it."""
    cfg = _config(tmp_path)

    async def body(pipe):
        said = {}
        said["empty"] = await pipe.ask("Forget our conversation.")  # nothing remembered yet
        await pipe.ask("What is 345 + 678?")
        said["asked"] = await pipe.ask("Forget our conversation.")
        assert await pipe.start_ahead("yes") is None  # never cleared ahead of the endpoint
        said["done"] = await pipe.ask("Yes.")
        after_yes = [(t.role, t.text) for t in _stored(cfg)]
        await pipe.ask("Forget everything.")
        said["other"] = await pipe.ask("What is 2 + 2?")  # anything else: kept
        said["late_yes"] = await pipe.ask("Yes.")  # no question open: the LLM's
        await pipe.ask("Forget everything.")
        said["no"] = await pipe.ask("No.")
        await pipe.ask("Forget everything.")
        pipe.asked_back = replace(pipe.asked_back, at=pipe.asked_back.at - ANSWER_WITHIN_S - 1)  # too late
        said["expired"] = await pipe.ask("Yes.")
        return said, after_yes

    said, after_yes = asyncio.run(_session(cfg, body, speak=False))
    assert said["empty"].answer_text == forget.NOTHING
    assert said["asked"].answer_text == forget.ASK
    # the first request and its answer, the sum and its answer, the request and its question
    assert said["done"].answer_text == "Done: I've forgotten our conversation, 6 messages."
    assert after_yes == [("user", "Yes."), ("assistant", said["done"].answer_text)]
    assert said["other"].answer_text == "2 plus 2 is 4."
    assert "prompt_built" in said["late_yes"].marks and "prompt_built" in said["expired"].marks
    assert said["no"].answer_text == forget.KEPT
    assert len(_stored(cfg)) == 2 + 2 * 7  # nothing forgotten after the first yes
    assert [r["answered_by"] for r in _log(cfg)][:4] == ["forget", "arithmetic", "forget", "forget"]


def test_a_list_is_kept_by_voice_across_a_restart_and_a_failed_write_is_said(tmp_path):
    """Asked to add milk to the shopping list, the LLM said "I'm sorry for your loss, but I don't have
    the ability to add milk to your shopping list." A list request is done in the memory file (not
    ahead of the endpoint: the user may go on, "... and eggs"), and the next start reads it back."""
    cfg, console = _config(tmp_path), Console(io.StringIO(), show_latency=False)

    async def body(pipe):
        assert await pipe.start_ahead("add milk to my shopping list") is None
        added = await pipe.ask("Add milk and eggs to my shopping list.")
        removed = await pipe.ask("Remove the eggs from the list.")
        asked = await pipe.ask("Add to my shopping list.")
        assert await pipe.start_ahead("Bread.") is None  # the answer alone: not ahead of the endpoint
        bread = await pipe.ask("Bread.")
        return added, removed, asked, bread

    added, removed, asked, bread = asyncio.run(_session(cfg, body, speak=False, observer=console))
    assert added.answer_text == "Added milk and eggs to your shopping list."
    assert removed.answer_text == "Removed eggs from your shopping list."
    assert asked.answer_text == "What should I add to your shopping list?"
    assert bread.answer_text == "Added bread to your shopping list."

    async def restarted(pipe):
        read = await pipe.ask("What's on my shopping list?")
        # the table gone behind the assistant's back: a write that fails is said, and the turn ends
        await pipe._on_memory_thread(lambda: pipe.memory._open().execute("DROP TABLE list_items"))
        failed = await pipe.ask("Add bread to the list.")
        after = await pipe.ask("What is 2 + 2?")
        return read, failed, after

    read, failed, after = asyncio.run(_session(cfg, restarted, speak=False, observer=console))
    assert read.answer_text == "Your shopping list has 2 items: milk and bread."
    assert failed.answer_text.startswith("I can't reach your lists: the memory file failed (")
    assert "no such table: list_items" in failed.answer_text
    assert after.answer_text == "2 plus 2 is 4."
    assert "memory database" in console.out.getvalue()  # and a warning line
    assert [r["answered_by"] for r in _log(cfg)] == ["lists"] * 6 + ["arithmetic"]
    assert ("user", "Add bread to the list.") in [(t.role, t.text) for t in _stored(cfg)]


def test_a_name_is_asked_for_kept_across_a_restart_and_a_failed_write_is_said(tmp_path):
    """Told "my name is Sam", the LLM said "I'm Sam, a helpful voice assistant". "My name is" with
    the name unheard asks for it, and the name alone answers as the next request only; it is kept
    in the memory file, not started ahead of the endpoint (the user may go on)."""
    cfg = _config(tmp_path)

    async def body(pipe):
        assert await pipe.start_ahead("my name is sam") is None
        asked = await pipe.ask("My name is.")
        assert await pipe.start_ahead("Sam.") is None  # the answer to it, neither
        named = await pipe.ask("Sam.")
        alone = await pipe.ask("Kim.")  # not asked for: the LLM's
        greeted = await pipe.ask("Good morning.")
        await pipe.ask("My birthday is March third.")
        counted = await pipe.ask("How many days until my birthday?")
        return asked, named, alone, greeted, counted

    asked, named, alone, greeted, counted = asyncio.run(_session(cfg, body, speak=False))
    assert asked.answer_text == about_you.ASK
    assert named.answer_text == "Nice to meet you, Sam. I'll remember your name."
    assert "prompt_built" in alone.marks
    assert greeted.answer_text == "Good morning, Sam. What can I do for you?"
    birthday = about_you.birthday_on("03-03", datetime.now().date())  # answered by dates.py
    assert counted.answer_text.endswith(f"March 3, {birthday.year}.")

    memory = Memory(cfg.memory).build()  # a birthday edited by hand into no day: said, not used
    memory.set_fact(about_you.BIRTHDAY, "13-40")
    memory.close()
    console = Console(io.StringIO(), show_latency=False)

    async def restarted(pipe):
        hello = await pipe.ask("Hello.")
        said = await pipe.ask("What's my name?")
        await pipe._on_memory_thread(lambda: pipe.memory._open().execute("DROP TABLE facts"))
        failed = await pipe.ask("Call me Alex.")
        return hello, said, failed

    hello, said, failed = asyncio.run(_session(cfg, restarted, speak=False, observer=console))
    assert "a kept birthday is unreadable ('13-40'); ignored" in console.out.getvalue()
    assert hello.answer_text == "Hello, Sam. What can I do for you?"
    assert said.answer_text == "Your name is Sam."
    assert failed.answer_text.startswith("I can't reach your name: the memory file failed (")
    answered_by = ["about_you", "about_you", "llm", "courtesy", "about_you", "dates"]
    answered_by += ["courtesy", "about_you", "about_you"]
    assert [r["answered_by"] for r in _log(cfg)] == answered_by


class _RecordingSink(_InstantSink):
    """Keeps how many seconds of audio each turn played."""

    def __init__(self):
        self.seconds: list[float] = []

    def play(self, samples, rate, cancel) -> bool:
        self.seconds.append(len(samples) / rate)
        return super().play(samples, rate, cancel)


def test_speak_slower_slows_the_voice_and_speak_normally_brings_it_back(tmp_path):
    """Asked to speak slower, the LLM said "I'll make sure to speak slower and more clearly next
    time" and nothing changed. The same answer ("what can you do?", a fixed one) takes longer to say
    after "speak more slowly", and as long as at first after "speak normally"."""
    cfg, sink = _config(tmp_path), _RecordingSink()

    async def body(pipe):
        # a change, as a timer is: not made ahead of the endpoint (the user may go on, or stop)
        assert await pipe.start_ahead("speak more slowly") is None and pipe.tts.length_scale == 1.0
        took = []
        for asked in ("What can you do?", "Speak more slowly.", "What can you do?", "Speak normally.",
                      "What can you do?"):  # fmt: skip
            before = len(sink.seconds)
            turn = await pipe.ask(asked)
            took.append((turn.answer_text, sum(sink.seconds[before:])))
        return took

    took = asyncio.run(_session(cfg, body, sink=sink))
    (first, at_first), (slower, _), (same, slowly), (normal, _), (again, at_last) = took
    assert first == same == again and first.startswith("I can talk with you")
    assert slower == "Okay, I'll speak more slowly." and normal == "Okay, back to my normal speed."
    assert 1.08 < slowly / at_first < 1.4, took  # length_scale 1.25: 1.14 (the pauses stay as they are)
    assert 0.92 < at_last / at_first < 1.08, took

    async def muted(pipe):
        return (await pipe.ask("Speak more slowly.")).answer_text

    assert asyncio.run(_session(cfg, muted, speak=False)) == "I'm not speaking aloud now: the chat is muted."


class _PeakSink(_InstantSink):
    """Keeps the loudest sample each turn played."""

    def __init__(self):
        self.peaks: list[float] = []

    def play(self, samples, rate, cancel) -> bool:
        self.peaks.append(float(np.abs(samples).max()))
        return super().play(samples, rate, cancel)


def test_speak_more_quietly_lowers_what_is_played_and_louder_brings_it_back(tmp_path):
    """Asked to turn the volume up, the LLM said "turn the volume up to 108%"; the voice's answer
    had been "I can't change my volume". Now the samples played are 6 dB lower after "quieter"."""
    cfg, sink = _config(tmp_path), _PeakSink()

    async def body(pipe):
        assert await pipe.start_ahead("speak more quietly") is None  # a change: once the request is final
        peaks = []
        for asked in ("What can you do?", "Speak more quietly.", "What can you do?", "Louder.", "Louder."):
            before = len(sink.peaks)
            turn = await pipe.ask(asked)
            peaks.append((turn.answer_text, max(sink.peaks[before:])))
        return peaks

    (_, loud), (quieter, _), (_, quiet), (louder, back), (loudest, _) = asyncio.run(
        _session(cfg, body, sink=sink)
    )
    assert quieter == "Okay, volume 8 of 10." and louder == "Okay, volume 10 of 10."
    assert loudest.startswith("That's as loud as I can speak")
    assert loud == pytest.approx(1.0, abs=0.01) and back == pytest.approx(1.0, abs=0.01)
    assert quiet == pytest.approx(10 ** (-6 / 20), rel=0.01)


def test_playback_start_is_marked_while_the_first_clause_plays(tmp_path):
    """Whoever watches a turn (terminal, benchmarks) must see a one-clause answer sounding while it
    sounds, not only once it is over."""
    cfg = _config(tmp_path, max_answer_tokens=8)

    async def body(pipe):
        turn = await pipe.submit("Say hi.")
        seen = None
        while "turn_end" not in turn.marks:
            if seen is None and "playback_start" in turn.marks:
                seen = time.perf_counter_ns()
            await asyncio.sleep(0.005)
        return turn, seen

    turn, seen = asyncio.run(_session(cfg, body, sink=_SlowSink()))
    assert seen is not None and seen - turn.marks["playback_start"] < 100_000_000
    assert turn.marks["turn_end"] - seen >= 200_000_000 * len(turn.played_clauses)  # ... while it played
