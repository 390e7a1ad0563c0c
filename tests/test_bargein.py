"""Barge-in end to end, through the `pulse` fixture's virtual devices with the speaker looped back into
the microphone (module-loopback), so the assistant hears itself as on laptop speakers.

The assistant runs in this process (`listen.run_live` as a task; the `Live` harness of
scripts/bench_bargein.py), so the tests can watch its turns, tasks and threads; with the real
recognizer, LLM, voice, echo canceller, SQLite file and latency log. The user is espeak-ng speech
played into the microphone. A storyteller system prompt makes every answer long whatever the
recognizer heard; barge-in itself does not depend on the transcript. Stop latency is measured on the
recordings: the injected speech's onset in the microphone (located by cross-correlation with the WAV)
to the moment the speaker goes silent (see the bench's docstring).

They use the shipped checkpoint (`models/asr/conformer_ctc.pt`) and skip while it does not exist; set
`ASSISTANT_TEST_ASR_CHECKPOINT` to run them on another one (e.g. an interim export of a training run).
About 20 minutes on 2 cores (14 of them the 100 rapid barge-ins).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import load_script, wait_until

from assistant.audio.echo import PassThrough
from assistant.audio.files import write_wav
from assistant.bargein import (
    DELAY_IN_TAIL_MS,
    ECHO_TAIL_MS,
    HEARD_PREROLL_MS,
    INITIAL_COUPLING_DB,
    LEARN_DELAY_MS,
    MIN_HISTORY,
    MS,
    RELEASE_MS,
    START_MS,
    EchoEstimate,
)
from assistant.config import DEFAULT_ASR_CHECKPOINT, BargeinConfig
from assistant.memory import Memory
from assistant.pipeline import resume_point

# Speech onset → speaker silent. The 150 ms is a speed target, measured by
# scripts/bench_bargein.py (README); this bound only tells "stopped at the hold, on the first voiced
# frames" from "stopped at the confirmed interruption", which comes min_speech_ms + 400 ms later.
STOP_MS = 500
MID_ANSWER = 4  # questions injected mid-answer
STARVED_UNDERFLOWS = 10  # output underflows in one run that tell a starved machine (0 on a quiet one)
ECHO_VOLUME = 1.0  # loopback gain while the assistant answers alone: its echo as loud as it plays
TALK_VOLUME = 0.5  # loopback gain when the user talks over it (-6 dB: the user nearer the mic)


@pytest.fixture(scope="module")
def bench():
    return load_script("bench_bargein")


@pytest.fixture(scope="module")
def asr_checkpoint() -> Path:
    path = Path(os.environ.get("ASSISTANT_TEST_ASR_CHECKPOINT") or DEFAULT_ASR_CHECKPOINT)
    if not path.is_file():
        pytest.skip(f"no recognizer checkpoint at {path} (export one; see scripts/train_asr.py --export)")
    return path


@pytest.fixture(scope="module")
def voices(bench, espeak_wav, tmp_path_factory):
    """The user's speech: a request for a long answer, questions that barge in, and a cough."""
    folder = tmp_path_factory.mktemp("bargein-speech")
    return {
        "request": bench.make_speech(bench.LONG_REQUEST, folder),
        "questions": [bench.make_speech(q, folder) for q in bench.QUESTIONS],
        # as long as a real cough, past min_speech_ms: before the pitch check ([vad] min_pitched_ms)
        # 300-400 ms ones cut 12 of 20 answers in the bench (bench_bargein.py --coughs, 2026-12-07)
        "cough": bench.make_cough(folder, ms=400),
    }


@pytest.fixture
def looped(pulse):
    """The pulse fixture with the speaker heard by the microphone; the loopback goes at the end."""
    try:
        yield pulse
    finally:
        pulse.loopback(False)


async def run_live_async(bench, cfg, body, timeout: float = 600.0):
    """Start the assistant in this process, run `body(live)` (a deadlock times out), stop it."""
    live = await bench.Live(cfg).start()
    try:
        return await asyncio.wait_for(body(live), timeout)
    finally:
        await live.stop()


def run_live(bench, cfg, body, timeout: float = 600.0):
    return asyncio.run(run_live_async(bench, cfg, body, timeout))


def stored(cfg) -> list:
    memory = Memory(cfg.memory).build()
    try:
        return memory.recent(10_000)
    finally:
        memory.close()


async def idle(live, timeout: float = 120.0) -> None:
    """Wait until no turn is being answered (its memory and log are written by then)."""
    assert await wait_until(lambda: not live.pipe.busy, timeout), "the answer did not end"


async def answered(live, turn) -> None:
    """Wait for the question that interrupted `turn` to become a turn, then for its answer (for the
    answer itself if the barge-in did not interrupt it: it plays on)."""
    if turn.interrupted:
        assert await wait_until(lambda: live.pipe.current is not turn, 15.0), "the question was lost"
    await idle(live)


# --- (a) its own voice never interrupts it ---------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["webrtc", "off"])
def test_long_answers_heard_back_do_not_interrupt_themselves(
    bench, looped, asr_checkpoint, voices, tmp_path, mode
):
    cfg = bench.make_config(tmp_path, mode, asr_checkpoint, max_tokens=150)
    result, _ = uncut_long_answers(bench, looped, voices, cfg)
    log = [record for record in bench.latency_log(cfg) if record["turn"] in result.answered]
    assert len(log) == 2 and not any(record["interrupted"] for record in log)
    # only the pieces of a request heard as two turns (a stalled PulseAudio) were cut, by the request
    pieces = sum(len(split) for split in result.split_requests)
    assert sum(turn.interrupted for turn in stored(cfg)) <= pieces


@pytest.mark.slow
def test_a_distorting_speaker_does_not_interrupt_itself(bench, looped, asr_checkpoint, voices, tmp_path):
    """Laptop speakers played loud distort, and no linear filter cancels what distortion adds: the
    onset detector's linear filter leaves it all in. Its gate and AEC3's suppressor must keep it
    from cutting the answer."""
    cfg = bench.make_config(tmp_path, "webrtc", asr_checkpoint, max_tokens=150)
    looped.distort_speaker(1.0)
    try:
        distortion_db = bench.speaker_distortion_db(looped, SimpleNamespace(config=None))
        assert -35 < distortion_db < -20, f"the speaker does not distort as meant: {distortion_db:.1f} dB"
        uncut_long_answers(bench, looped, voices, cfg)
    finally:
        looped.distort_speaker(0.0)


@pytest.mark.slow
def test_an_echo_far_behind_its_stamps_does_not_interrupt_itself(
    bench, looped, asr_checkpoint, voices, tmp_path
):
    """The echo ~400 ms behind the player's stamps (a Bluetooth speaker adds 150-300 ms; a starved
    PulseAudio moved the tests' loopback from 25 to 153 ms at once, and bench runs beside three
    busy loops to 276 and 454 ms). With the gate's echo tail and the wait after a hold fixed at 250
    and 400 ms, echo past them held playback 18 times and then confirmed a barge-in: one of the two
    answers was cut. The canceller finds the delay, and both follow it."""
    cfg = bench.make_config(tmp_path, "webrtc", asr_checkpoint, max_tokens=150)
    _, delays = uncut_long_answers(bench, looped, voices, cfg, latency_ms=400)
    assert max(delays) > 350, f"the echo was not found that late: {delays} ms"


@pytest.mark.slow
def test_an_echo_path_that_moves_later_mid_answer_does_not_interrupt_it(
    bench, looped, asr_checkpoint, voices, tmp_path
):
    """The echo's path changes while the assistant speaks: the loopback is loaded again at 400 ms
    six seconds into each answer (and at 20 ms one second in, so the second answer moves too).
    AEC3 lets the echo through whole until it has found the new path, and the gate takes it for the
    user. Before `BargeIn._own_echo`, 8 runs cut 11 of their 16 answers, both answers in 4 of them;
    with it, 5 runs cut 1 of 10. So at most one of the two may be cut."""
    cfg = bench.make_config(tmp_path, "webrtc", asr_checkpoint, max_tokens=150)
    uncut_long_answers(bench, looped, voices, cfg, moves=((1.0, 20), (6.0, 400)), cuts_allowed=1)


@pytest.mark.slow
def test_an_answer_after_a_cut_is_not_held_by_its_own_echo(bench, looped, asr_checkpoint, voices, tmp_path):
    """An answer cut without a barge-in (a crash, a stall, `Pipeline.interrupt` alone) restarts the
    player's stream, and the next answer's sound lies a few ms off the old stream's against its
    stamps: AEC3 leaks while it finds the new delay, most at a clause start. When only a hold's
    restart had the gate's floor, 16 of 22 answers after such a cut were held falsely about 200 ms
    in; with the floor on every restart but not over a clause that begins as it ends, 15 of 68,
    1.6-1.8 s in, as the second clause began; now 2 of 56 (`bench_bargein.py --cuts`, 2026-12-02).
    Until 2026-12-06 four answers were watched and one hold allowed; CI failed that twice (stop 71,
    and a clean-clone run of 2026-12-06: two of four held 1.9-2.1 s in, no underflow), so the
    rate there is above 2 of 56. Six answers after a cut, at most two held in their first 3 s: the
    code that held 16 of 22 fails this nearly always, the one that held 15 of 68 about one run in
    eight (it is `bench_bargein.py --cuts` that measures the rate)."""
    cfg = bench.make_config(tmp_path, "webrtc", asr_checkpoint, max_tokens=150)

    async def body(live):
        looped.loopback(True, ECHO_VOLUME)
        return await bench.cut_answers(live, looped, voices["request"], 6)

    cuts = run_live(bench, cfg, body)
    assert len(cuts) == 6
    assert not any(cut.self_cut for cut in cuts), [cut.details() for cut in cuts]
    assert sum(bool(cut.holds_ms) for cut in cuts) <= 2, [cut.details() for cut in cuts]


def uncut_long_answers(
    bench,
    looped,
    voices,
    cfg,
    latency_ms: int = 20,
    moves: tuple[tuple[float, int], ...] = (),
    cuts_allowed: int = 0,
) -> tuple[object, list[float]]:
    """Two long answers with the loopback on (`latency_ms`, `Pulse.loopback`) and nobody talking:
    no more than `cuts_allowed` is cut or followed by a turn. `moves`: (s into each answer's
    playback, latency_ms) at which the loopback is loaded again. Returns the bench's result and the
    echo delays (ms) the canceller tracked, one a second."""

    async def body(live):
        looped.loopback(True, ECHO_VOLUME, latency_ms=latency_ms)
        delays: list[float] = []

        async def track() -> None:
            while True:
                delays.append(live.listener.bargein.echo.echo_delay_ms or 0.0)
                await asyncio.sleep(1.0)

        async def move() -> None:
            moved = set()
            while True:
                turn = live.pipe.current
                started = turn.marks.get("playback_start") if turn is not None else None
                if started is not None and id(turn) not in moved:
                    moved.add(id(turn))
                    for at_s, latency in moves:
                        await asyncio.sleep(max(0.0, started / 1e9 + at_s - time.perf_counter()))
                        await asyncio.to_thread(looped.loopback, True, ECHO_VOLUME, latency_ms=latency)
                await asyncio.sleep(0.05)

        tasks = [asyncio.create_task(track())] + ([asyncio.create_task(move())] if moves else [])
        try:
            result = await bench.long_answers(live, looped, voices["request"], 2)
            await idle(live)
        finally:
            for task in tasks:
                task.cancel()
        return result, delays

    result, delays = run_live(bench, cfg, body)
    assert result.answers == 2 and result.seconds > 30, "the answers were not long"
    # one case per answer cut or followed by a turn (both at once are one answer)
    assert len(result.cases) <= cuts_allowed, (result.cases, delays)
    return result, delays


@pytest.mark.slow
def test_a_request_heard_as_two_turns_is_measured_on_its_last(bench, pulse, asr_checkpoint, tmp_path):
    """A pause longer than end_silence_ms in the request (a PulseAudio stalled for 400 ms puts 390 ms
    of silence into what the microphone hears) makes two turns, the first cut by the rest of the
    request: the bench reports that and measures the answer to the last, not the cut one.

    Where the first answer starts playing before the rest of the request does (a machine whose LLM
    answers within the pause), the rest is a barge-in on the session's first answer: until
    2026-12-01 the gate took the echo to be as loud as what played there and learnt the user's
    voice as echo, and the rest came out "again and a night" or "and a night" in 13 of 20 runs; it
    is now heard whole in 16 of 18 (README, Barge-in, "What is left"; the two misses lost "tell
    me"; a starved CI run lost "tell me a long" and heard "for" for "story", 2026-12-06), so the
    rest is checked from "about" on: its words say it was not learnt as echo."""
    please, rest = (bench.make_speech(text, tmp_path) for text in ("Please.", bench.LONG_REQUEST[7:]))
    pause = np.zeros(bench.RATE * 4 // 5, np.float32)  # 800 ms
    write_wav(tmp_path / "split.wav", np.concatenate([please.audio, pause, rest.audio]))
    request = bench._speech(tmp_path / "split.wav")
    # Starved (CI, 2026-12-06, 10 underflows): paplay's end came late, so no request seemed heard to its end.
    once_more_if_starved(
        lambda name: _split_request(bench, pulse, asr_checkpoint, request, tmp_path / name), check_split
    )


def check_split(bench, cfg, result, underflows: int) -> None:
    assert len(result.split_requests) == 1, (f"{underflows} output underflows", result)
    log = bench.latency_log(cfg)
    assert [record["turn"] for record in log[1:]] == result.answered, (log, result)
    assert log[0]["interrupted"] and not log[1]["interrupted"]
    users = [turn.text.lower() for turn in stored(cfg) if turn.role == "user"]
    assert len(users) == 2 and users[1].split()[-1] in ("night", "knight"), users
    assert "about a dragon" in users[1], users


def _split_request(bench, pulse, asr_checkpoint, request, root: Path):
    """The request once through a fresh assistant: the bench, its config, its result, output underflows."""
    root.mkdir()
    cfg = bench.make_config(root, "webrtc", asr_checkpoint, max_tokens=40)

    async def body(live):
        result = await bench.long_answers(live, pulse, request, 1)
        await idle(live)
        return result, live.pipe.sink.underflows

    return bench, cfg, *run_live(bench, cfg, body)


def once_more_if_starved(run, check) -> None:
    """`check(*run("first"))`; when it fails on a starved machine (STARVED_UNDERFLOWS output underflows
    or more: the assistant's output ran dry again and again, which a quiet run never does, as on a
    shared CI machine whose LLM ran at a quarter of its speed), the machine fell behind, not the
    barge-in: once more. A second failure fails like any other."""
    outcome = run("first")
    try:
        check(*outcome)
    except AssertionError as failure:
        if outcome[-1] < STARVED_UNDERFLOWS:
            raise
        warnings.warn(f"a starved run failed: {failure}", stacklevel=1)
        check(*run("again"))


# --- (b) a question mid-answer stops it at once and is answered --------------------------------------


def mid_answer_barge_ins(bench, looped, asr_checkpoint, voices, root: Path, onset_detector: bool):
    """MID_ANSWER questions over answers; the config, each barge-in, and the output's underflows."""
    cfg = bench.make_config(root, "webrtc", asr_checkpoint, max_tokens=60)
    bargein = cfg.bargein.model_copy(update={"onset_detector": onset_detector})
    cfg = cfg.model_copy(update={"bargein": bargein})

    async def body(live):
        # the linear filter runs beside AEC3 only when asked for (libspeexdsp comes with PulseAudio)
        assert (live.listener.echo.make_linear is not None) == onset_detector
        looped.loopback(True, TALK_VOLUME)
        results = await bench.barge_ins(live, looped, voices["questions"], MID_ANSWER, delay=(2.5, 3.5))
        await answered(live, results[-1].turn)
        return results, live.pipe.sink.underflows

    return bench, cfg, *run_live(bench, cfg, body)


def stopped_at_hold(results) -> bool:
    """Most, not all: about 5 in 100 barge-ins are held back by the echo gate (e.g. right after a false
    hold) and stop only later or not at all (the bench's p95 and "stopped", README); the bench
    measures those rates, this test that a barge-in does what the issue asks when it fires."""
    at_hold = sorted(r.latency_ms for r in results if r.latency_ms is not None)
    return len(at_hold) >= MID_ANSWER // 2 and at_hold[MID_ANSWER // 2 - 1] <= STOP_MS


@pytest.mark.slow
@pytest.mark.parametrize("onset_detector", [False, True])
def test_a_question_mid_answer_stops_playback_and_is_answered(
    bench, looped, asr_checkpoint, voices, tmp_path, onset_detector
):
    run = (bench, looped, asr_checkpoint, voices)
    once_more_if_starved(
        lambda name: mid_answer_barge_ins(*run, tmp_path / name, onset_detector), check_mid_answer
    )


def check_mid_answer(bench, cfg, results, underflows: int) -> None:
    assert stopped_at_hold(results), (f"{underflows} output underflows", [r.details() for r in results])
    interrupted = [r for r in results if r.turn.interrupted]
    assert len(interrupted) >= MID_ANSWER - 1, [r.turn.user_text for r in results]
    turns = stored(cfg)
    assert [t.role for t in turns] == ["user", "assistant"] * (len(turns) // 2)
    pairs = list(zip(turns[0::2], turns[1::2], strict=True))
    # An answer that ends before the barge-in is due (a short one) is retried with the next question,
    # and now and then an extra turn is cut too (the bench's rare self-interruption), so: each
    # barge-in's reply is among the interrupted ones, cut at the clauses played.
    cut = [(question.text, reply.text) for question, reply in pairs if reply.interrupted]
    for result in interrupted:
        heard = " ".join(result.turn.played_clauses).strip()  # what was heard, no more
        assert (result.turn.user_text.strip(), heard) in cut, cut
        assert len(heard) < len(result.turn.answer_text.strip())
    question, answer = pairs[-1]
    # the last question was answered
    assert question.text and answer.text and not answer.interrupted, (question, answer)
    assert [r["interrupted"] for r in bench.latency_log(cfg)] == [reply.interrupted for _, reply in pairs]


# --- (c) a cough does not cut the reply --------------------------------------------------------------


@pytest.mark.slow
def test_a_cough_during_the_answer_does_not_cut_it(bench, looped, asr_checkpoint, voices, tmp_path):
    """A 400 ms cough 2.5 s into the answer: the answer may pause, and goes on whole."""
    cfg = bench.make_config(tmp_path, "webrtc", asr_checkpoint, max_tokens=60)

    async def body(live):
        looped.loopback(True, TALK_VOLUME)
        turn = await bench.answer_playing(live, looped, voices["request"])
        assert turn is not None
        await asyncio.sleep(2.5)
        assert live.playing() is turn, "the answer ended before the cough"
        coughed = live.say(looped, voices["cough"])
        await idle(live)
        return turn, coughed

    turn, coughed = run_live(bench, cfg, body)
    assert not turn.interrupted
    after = looped.speaker.since(coughed + 1_000_000_000)  # a second after the cough: still talking
    assert np.sqrt(np.mean(after[:16_000] ** 2)) > 0.01, "playback did not go on after the cough"
    turns = stored(cfg)
    assert [(t.role, t.interrupted) for t in turns] == [("user", False), ("assistant", False)]
    assert turns[1].text == turn.answer_text.strip()  # the whole reply, as generated


STOPS_AT_CLAUSE_STARTS = 4  # lone "Stop."s said as a clause of the answer starts, no floor on
TRIES_AT_CLAUSE_STARTS = 12  # at most this many tries to get them: a floor was on at 23 of 72


@pytest.mark.slow
def test_a_stop_phrase_alone_as_a_clause_starts_ends_the_answer(bench, looped, asr_checkpoint, tmp_path):
    """ "Stop." said as a clause of the answer starts, where AEC3 leaks most and the gate stands at
    the echo's level until the word is over: the answer ends (cut in memory) and nothing is asked.
    Before `BargeIn.held_words`, 8 of 11 lone stop phrases that fell at a clause start in the bench
    went on (README, Barge-in).

    Counted where no floor was on as the word began (`GateTrace.at_onset`, as the bench counts):
    under one (a resume after a false hold, a restart) the recognizer loses the word in the echo's
    leak, not the gate. In three runs of the bench's scene (`--modes webrtc --n 0 --m 0 --stops 24
    --stops-at clause --volume 0.5`, 2026-12-07) 48 of 48 stop phrases said with no floor on ended
    (26 of 26 "Stop."), and 7 of 23 under one, held and heard as "shop", "public", "strong" ("wap"
    and "olac" without the language model): the recognizer's limit (issue 4). 3 of 4 counted
    allows a rare miss; the ones under a floor are tried, not counted, and every try must still
    leave memory whole."""
    cfg = bench.make_config(tmp_path, "webrtc", asr_checkpoint)
    stop, request = bench.make_speech("Stop.", tmp_path), bench.make_speech(bench.LONG_REQUEST, tmp_path)

    async def body(live):
        looped.loopback(True, TALK_VOLUME)
        counted, floored, warmup = [], [], bench.WARMUP_S  # the first answer: AEC3 converges, the gate learns
        while len(counted) < STOPS_AT_CLAUSE_STARTS and len(counted) + len(floored) < TRIES_AT_CLAUSE_STARTS:
            turn = await bench.answer_playing(live, looped, request)
            assert turn is not None, "no answer started"
            await asyncio.sleep(warmup)
            # later answers: past the first RESTART_MS of sound after the last hold, where the gates
            # stand higher (a barge-in there must be louder; README, Barge-in)
            warmup = 2.0
            clause = await bench.next_clause_start(live)
            if not clause or live.playing() is not turn:
                continue  # the answer ended first
            finals = len(live.finals)
            started = live.say(looped, stop)
            assert await wait_until(lambda: live.players[-1].poll() is not None, 10.0)
            await asyncio.sleep(bench.HEARD_AFTER_S)
            ended = "turn_end" in turn.marks and turn.interrupted and live.pipe.current is turn
            onset = bench.speech_onset_ns(looped, stop, started)
            under_floor = onset is not None and live.trace.at_onset(onset)["floor"]
            outcome = (ended, [text for _, text in live.finals[finals:]], live.held[-1:])
            (floored if under_floor else counted).append(outcome)
            if live.pipe.busy:
                await live.pipe.interrupt()  # it went on: cut it, so that the next try has its own
            await bench.settled(live, 1.0)
        return counted, floored

    counted, floored = run_live(bench, cfg, body)
    assert len(counted) == STOPS_AT_CLAUSE_STARTS, (counted, floored)
    assert sum(ended for ended, *_ in counted) >= STOPS_AT_CLAUSE_STARTS - 1, (counted, floored)
    turns = stored(cfg)
    tries = len(counted) + len(floored)
    assert [t.role for t in turns] == ["user", "assistant"] * tries  # "stop" asked nothing
    assert all(t.interrupted for t in turns[1::2]), [t.text for t in turns]


def _utterance_end(text: str, ms: int, interrupted=None, says=()):
    """`utterance_ended` after an utterance of `ms` over an answer (not confirmed while it lasted)
    whose clauses began to sound at `says` ((ms from the onset, clause text), ...): (its result,
    whether the answer was interrupted, whether playback was still held)."""
    barge, _ = _converged_barge_in()
    barge.pipe.current = SimpleNamespace(sounded=[(T + at_ms * MS, clause) for at_ms, clause in says])
    calls = []

    async def interrupt():
        calls.append(True)
        return SimpleNamespace()  # the turn

    barge.pipe.interrupt = interrupt
    barge.pipe.hold.set()
    barge.onset_ns, barge.interrupted = T, interrupted
    result = asyncio.run(barge.utterance_ended(text, T + ms * MS))
    return result, bool(calls), barge.pipe.hold.is_set()


def test_a_short_word_over_the_answer_interrupts_when_recognized():
    ms = BargeinConfig().min_speech_ms
    assert _utterance_end("what time is it", ms) == (True, True, True)  # a question: answered
    assert _utterance_end("stop", ms) == (False, True, True)  # ends the answer, asks nothing
    assert _utterance_end("hold on hold on", ms) == (False, True, True)
    assert _utterance_end("", ms) == (False, False, False)  # nothing heard: the answer goes on
    assert _utterance_end("", ms - 20) == (False, False, False)  # too short: a cough, a click
    assert _utterance_end("what", ms - 20) == (False, False, False)
    # a stop phrase it heard is none, however little of it the gate let through
    assert _utterance_end("stop", ms - 20) == (False, True, True)
    assert _utterance_end("stop it now", ms) == (False, True, True)  # as people say one
    assert _utterance_end("stop the timer", ms) == (True, True, True)  # more than a stop phrase


def test_a_stop_phrase_after_words_of_the_answers_echo_ends_the_answer_and_asks_nothing():
    """The recognizer reaches HEARD_PREROLL_MS before the onset, where the echo's leak can come out
    as words ("Wait." as "to wait"): words the clauses sounding then say, before a stop phrase they
    do not, are the echo's, and the phrase ends the answer; any other words make a question."""
    story = ((-4000, "Once upon a time."), (-2000, "There was a dragon, it was said to be strong."))
    assert _utterance_end("to wait", 400, says=story) == (False, True, True)
    assert _utterance_end("there was enough", 400, says=story) == (False, True, True)
    assert _utterance_end("to wait", 400) == (True, True, True)  # the answer never said "to"
    assert _utterance_end("why wait", 400, says=story) == (True, True, True)  # the user's word
    # more words than the reach-back holds: a question that ends so
    assert _utterance_end("it was said to wait", 400, says=story) == (True, True, True)
    # the phrase is the answer's too: all of it may be the echo's, so it is not taken for one
    waits = ((-1500, "It was said to wait."),)
    assert _utterance_end("to wait", 400, says=waits) == (True, True, True)
    # said long before the onset, beyond the reach-back: not what leaked into it
    long_ago = ((-9000, "It was said to be strong."), (-3000, "The dragon slept."), (-1000, "The end."))
    assert _utterance_end("to wait", 400, says=long_ago) == (True, True, True)


def test_an_utterance_that_is_the_answers_own_echo_is_not_a_barge_in():
    """Voice over the answer whose canceller output correlates with what played (`echo_peak`
    at least ECHO_PEAK: a canceller that lost the echo's path) does not interrupt, even once it has
    outlived the hold, and stays the echo's as it dies out; a voice that does not, does."""
    from assistant.bargein import ECHO_PEAK

    barge, _ = _converged_barge_in()
    peaks = iter([ECHO_PEAK + 0.2, ECHO_PEAK - 0.1, 0.05])
    barge.echo = _Echo(peak=lambda t_ns: next(peaks))
    barge.onset_ns = T
    assert barge._is_echo_utterance(T + 500 * MS)
    assert barge._is_echo_utterance(T + 600 * MS)  # its dying tail correlates less: still the echo's
    barge.onset_ns = T + 2000 * MS  # the next utterance is judged afresh
    assert not barge._is_echo_utterance(T + 2500 * MS)

    def ended(peak: float) -> tuple[bool, bool, bool]:
        barge, _ = _converged_barge_in()
        calls = []

        async def interrupt():
            calls.append(True)
            return SimpleNamespace()

        barge.pipe.interrupt, barge.echo = interrupt, _Echo(peak=lambda t_ns: peak)
        barge.pipe.hold.set()
        barge.onset_ns = T
        result = asyncio.run(barge.utterance_ended("the land of", T + 800 * MS))
        return result, bool(calls), barge.pipe.hold.is_set()

    assert ended(ECHO_PEAK + 0.2) == (False, False, False)  # the echo's words: the answer goes on
    assert ended(0.05) == (True, True, True)  # a question: answered


def test_with_barge_in_disabled_talk_over_the_answer_is_not_a_turn():
    """Half duplex: nothing cancels or gates the assistant's own voice then, so whatever is heard
    over the answer (its echo too) must not become a question; after the answer, speech is a turn."""
    from assistant.bargein import BargeIn

    pipe = SimpleNamespace(hold=threading.Event(), busy=True)
    barge = BargeIn(BargeinConfig(enabled=False), pipe, endpointer=None, echo=PassThrough())
    barge.speech_started(T)
    assert not asyncio.run(barge.utterance_ended("tell me a story about a dragon", T + 2000 * MS))
    pipe.busy = False
    barge.speech_started(T + 5000 * MS)
    assert asyncio.run(barge.utterance_ended("what time is it", T + 7000 * MS))


def test_stop_phrases_match_whole_utterances_only():
    from assistant.bargein import BargeIn

    barge = BargeIn(BargeinConfig(stop_phrases=["Stop!", "hold on"]), None, None, echo=PassThrough())
    assert barge.is_stop_phrase("stop") and barge.is_stop_phrase("stop stop")
    assert barge.is_stop_phrase("hold on") and not barge.is_stop_phrase("hold")
    assert not barge.is_stop_phrase("stop the music") and not barge.is_stop_phrase("")


def test_a_stop_phrase_said_as_people_say_it_is_still_one():
    """ "oh wait" (heard so over an answer at a clause start, 2026-12-07: the answer went on),
    "no no stop", "stop it please", "hold on a second"; the words around it alone are not one, nor
    is the phrase inside a request."""
    from assistant.bargein import BargeIn

    barge = BargeIn(BargeinConfig(stop_phrases=["stop", "wait", "hold on"]), None, None, echo=PassThrough())
    for said in ["oh wait", "no no stop", "now stop", "stop it please", "hold on a second", "okay stop now"]:
        assert barge.is_stop_phrase(said), said
    assert barge.is_stop_phrase("wait wait")
    not_stops = ["oh", "no", "now", "please", "a second", "wait for me", "stop the timer", "the stop"]
    for said in not_stops:
        assert not barge.is_stop_phrase(said), said


# --- (d) many rapid barge-ins --------------------------------------------------------------------------


RAPID = 100  # barge-ins in a row, as the issue asks


@pytest.mark.slow
def test_rapid_barge_ins_leave_nothing_behind(bench, looped, asr_checkpoint, voices, tmp_path):
    cfg = bench.make_config(tmp_path, "webrtc", asr_checkpoint, max_tokens=60)
    threads_before = threading.active_count()

    async def body(live):
        looped.loopback(True, TALK_VOLUME)
        results = await bench.barge_ins(live, looped, voices["questions"], RAPID, delay=(0.1, 1.0))
        await answered(live, results[-1].turn)
        return results

    # ~8 min on the 2-core machine in CI (22-33 min while `playback_start` came only at the end of
    # the first clause and the bench waited 60 s for every one-clause answer); the timeout catches a
    # deadlock, not slowness
    async def main():
        results = await run_live_async(bench, cfg, body, timeout=1500.0)
        return results, [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    results, tasks = asyncio.run(main())
    assert len(results) == RAPID and tasks == []
    assert wait_threads(threads_before), f"threads left: {[t.name for t in threading.enumerate()]}"
    assert_consistent(stored(cfg), bench.latency_log(cfg))
    assert sum(bool(r.turn.interrupted) for r in results) >= 0.75 * RAPID  # most interrupted their turn


def wait_threads(count: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while threading.active_count() > count and time.monotonic() < deadline:
        time.sleep(0.05)
    return threading.active_count() <= count


def assert_consistent(turns: list, log: list[dict]) -> None:
    """Every user turn is followed by at most one reply (two when an interrupted one was respoken after
    a false interruption), only replies are marked interrupted, and memory and log agree on how many."""
    assert turns and turns[0].role == "user"
    replies: list = []
    for turn in [*turns[1:], None]:
        if turn is None or turn.role == "user":
            assert len(replies) <= 1 or (len(replies) == 2 and replies[0].interrupted), replies
            replies = []
        else:
            replies.append(turn)
    assert not any(t.interrupted for t in turns if t.role == "user")
    assert sum(t.interrupted for t in turns if t.role == "assistant") == sum(r["interrupted"] for r in log)
    assert sum(t.role == "user" for t in turns) == sum(
        bool(r.get("marks_ns", {}).get("speech_start")) for r in log
    )


# --- the parts, without devices ------------------------------------------------------------------------

T = 10**12  # ns, an arbitrary perf_counter_ns origin


def test_echo_estimate_hears_the_reference_for_the_echo_tail_only():
    est = EchoEstimate(tail_ms=150)
    est.reference(np.full(320, 0.1, np.float32), T)  # -20 dBFS
    assert est.played_db(T - 1) is None  # written ahead of its time: not heard yet
    assert est.played_db(T + 100 * MS) == pytest.approx(-20, abs=0.1)
    assert est.played_db(T + 151 * MS) is None  # older than the tail


def test_echo_estimate_forgets_blocks_a_stop_dropped():
    est = EchoEstimate()
    for i in range(5):  # 100 ms written ahead
        est.reference(np.full(320, 0.1, np.float32), T + i * 20 * MS)
    est.reference(np.zeros(0, np.float32), T + 40 * MS)  # playback stopped: the rest never sounded
    assert est.played_db(T + 100 * MS) == pytest.approx(-20, abs=0.1)  # blocks 0-1, within the tail
    assert est.played_db(T + 20 * MS + ECHO_TAIL_MS * MS + 1) is None


def test_echo_estimate_learns_late_and_a_hold_drops_what_waits():
    est = EchoEstimate()
    assert est.coupling(T) == INITIAL_COUPLING_DB
    for i in range(MIN_HISTORY + LEARN_DELAY_MS // 20):
        est.learn(-50.0, -20.0, T + i * 20 * MS)  # echo 30 dB below what is played
    assert est.coupling(T) == pytest.approx(-30.0)
    for i in range(10):  # louder: the user talking below the gate, then a hold
        est.learn(-25.0, -20.0, T + (100 + i) * 20 * MS)
    est.discard()
    est.learn(-50.0, -20.0, T + 200 * 20 * MS)
    assert est.coupling(T) == pytest.approx(-30.0)


def test_echo_estimate_learns_the_start_of_a_clause_apart():
    est = EchoEstimate()
    block = np.full(320, 0.1, np.float32)
    for clause in range(3):  # 1 s of sound, then 200 ms of silence
        for i in range(50):
            t = T + (clause * 60 + i) * 20 * MS
            est.reference(block, t)
            heard = -30.0 if i * 20 < START_MS else -50.0  # AEC3 leaks more at the start
            est.learn(heard, -20.0, t)
    start, steady = T + 120 * 20 * MS, T + 120 * 20 * MS + START_MS * MS
    assert est.starting(start) and not est.starting(steady)
    assert est.coupling(start) == pytest.approx(-10.0) and est.coupling(steady) == pytest.approx(-30.0)


def test_a_voice_the_gates_missed_is_learnt_no_louder_than_the_median_allows():
    """Nothing held a user as loud as the echo (a clause start at full volume), so their frames are
    learnt as echo: they count as at most LEARN_ABOVE_MEDIAN_DB over the median, and the gate
    does not rise to shut out the next "Stop." (the onset detector's rose from -18 to 0 dB). A
    louder echo (the speaker turned up) still takes the estimate up with it."""
    from assistant.bargein import HISTORY_FRAMES, LEARN_ABOVE_MEDIAN_DB

    est = EchoEstimate()
    rng = np.random.default_rng(0)
    t = T

    def learn(heard: np.ndarray) -> None:
        nonlocal t
        for db in heard:
            est.learn(float(db), -20.0, t)
            t += 20 * MS

    learn(rng.uniform(-65.0, -45.0, HISTORY_FRAMES))  # echo 25-45 dB under what plays
    before = est.coupling(t)
    assert before == pytest.approx(-25.2, abs=0.5)
    learn(np.full(20, -20.0))  # a "Stop." as loud as what plays: 0 dB
    learn(rng.uniform(-65.0, -45.0, LEARN_DELAY_MS // 20))  # what follows it, so that it is learnt
    # unclamped, the 20 frames would put the p99 at 0 dB; each counts as at most the median (about
    # -35 dB, rising with them) + LEARN_ABOVE_MEDIAN_DB
    assert -35.0 + LEARN_ABOVE_MEDIAN_DB - 1.0 < est.coupling(t) < -10.0
    learn(rng.uniform(-50.0, -30.0, 2 * HISTORY_FRAMES))  # the speaker 15 dB louder
    assert est.coupling(t) == pytest.approx(before + 15.0, abs=1.0)


def test_until_anything_is_learnt_frames_are_learnt_at_once_then_late():
    """The gate stands at INITIAL_COUPLING_DB until the first estimate: no hold can come from frames
    at the echo's level then, so they are not kept LEARN_DELAY_MS for one; later frames are."""
    est = EchoEstimate()
    for i in range(MIN_HISTORY):
        est.learn(-50.0, -20.0, T + i * 20 * MS)
    assert est.coupling(T) == pytest.approx(-30.0)  # at once
    for i in range(MIN_HISTORY, MIN_HISTORY + 5):
        est.learn(0.0, -20.0, T + i * 20 * MS)  # louder: may be the user's onset
    est.discard()  # a hold came
    est.learn(-50.0, -20.0, T + 200 * 20 * MS)
    assert est.coupling(T) == pytest.approx(-30.0)  # what waited was dropped


def test_until_it_has_its_own_the_rest_of_a_clause_takes_the_starts_coupling():
    """The first answer of a session: the start phase is learnt first (a clause's first START_MS),
    and the rest of the clause takes its estimate until it has MIN_HISTORY frames of its own, not
    INITIAL_COUPLING_DB, under which a user going on talking was kept out and learnt as echo."""
    est = EchoEstimate()
    block = np.full(320, 0.1, np.float32)
    steps = (START_MS + LEARN_DELAY_MS) // 20 + MIN_HISTORY // 2
    for i in range(steps):
        t = T + i * 20 * MS
        est.reference(block, t)
        est.learn(-30.0 if est.starting(t) else -50.0, -20.0, t)  # AEC3 leaks more at the start
    rest = T + (START_MS + 20) * MS
    assert not est.starting(rest)
    # the start's frames are learnt; the rest's, LEARN_DELAY_MS behind, are not yet MIN_HISTORY
    assert est.coupling(rest) == pytest.approx(-10.0)
    for i in range(steps, steps + MIN_HISTORY + LEARN_DELAY_MS // 20):
        t = T + i * 20 * MS
        est.reference(block, t)
        est.learn(-50.0, -20.0, t)
    assert est.coupling(rest) == pytest.approx(-30.0)  # its own


def test_the_recognizer_gets_the_linear_output_while_the_answer_is_audible():
    """AEC3's suppressor holds a user's first words over the answer down as double talk; the linear
    filter's output keeps them, and HEARD_PREROLL_MS of it before the onset the gate finds on AEC3's.
    Where nothing plays and nothing is held, or without a linear output, AEC3's output."""
    from assistant.config import VadConfig
    from assistant.vad import Endpointer

    barge, _ = _converged_barge_in()
    barge.endpointer = Endpointer(VadConfig()).build()
    default = barge.endpointer.preroll_ms
    cleaned, linear = np.full(160, 0.01, np.float32), np.full(160, 0.2, np.float32)
    assert barge.heard(cleaned, linear, T) is cleaned  # nothing played yet
    barge.reference(np.full(320, 0.1, np.float32), T)
    assert barge.heard(cleaned, linear, T + 10 * MS) is linear
    # the gate judges AEC3's output, which shows the voice late: the utterance reaches further back
    assert barge.endpointer.preroll_ms >= HEARD_PREROLL_MS > default
    assert barge.heard(cleaned, None, T + 10 * MS) is cleaned  # the linear filter resting, or none
    assert barge.heard(cleaned, linear, T + (ECHO_TAIL_MS + 30) * MS) is cleaned  # the echo is over
    assert barge.endpointer.preroll_ms == default
    barge.pipe.hold.set()  # ... but playback is held: the user may be talking, AEC3 may hold them down
    assert barge.heard(cleaned, linear, T + (ECHO_TAIL_MS + 30) * MS) is linear


class _Echo(PassThrough):
    """A pass-through whose tracked delay, mic re-anchors and echo peaks a test sets."""

    def __init__(self, echo_delay_ms: float | None = None, peak=lambda t_ns: None) -> None:
        super().__init__()
        self.echo_delay_ms, self.mic_reanchors, self.peak = echo_delay_ms, 0, peak

    def echo_peak(self, end_ns: int, ms: int = 300) -> float | None:
        return self.peak(end_ns)


def _converged_barge_in(onset_detector: bool = False):
    """A BargeIn over a converged canceller (echo 45 dB below what plays, in both phases), and the
    list its endpointer's reference levels are appended to."""
    from assistant.bargein import BargeIn
    from assistant.config import BargeinConfig
    from assistant.vad import State

    levels = []
    endpointer = SimpleNamespace(
        state=State.SPEECH, set_gate=lambda db: None, set_reference_level=levels.append
    )
    barge = BargeIn(
        BargeinConfig(onset_detector=onset_detector),
        SimpleNamespace(hold=threading.Event(), busy=True, current=SimpleNamespace(sounded=[])),
        endpointer,
        echo=PassThrough(),
    )
    for start in (True, False):
        for _ in range(MIN_HISTORY):
            barge.estimate._add(start, -45.0)
    barge.estimate._sounded = True  # what it learnt from played: a restart from here moves the echo
    return barge, levels


def test_after_a_false_hold_the_gate_takes_the_echo_as_loud_for_a_while():
    """The restarted stream's echo leaks through AEC3: for RESUME_MS after a blip the echo estimate
    uses at least RESUME_COUPLING_DB, whatever was learnt; then the learnt coupling again."""
    from assistant.bargein import RESUME_COUPLING_DB, RESUME_MS

    barge, levels = _converged_barge_in()
    block = np.full(320, 0.1, np.float32)  # -20 dBFS
    for i in range(100):
        barge.estimate.reference(block, T + i * 20 * MS)
    t = T + 99 * 20 * MS
    barge.before(block, t)
    barge.resumed_until_ns = t + RESUME_MS * MS  # what `after` sets when a hold ends as a blip
    barge.before(block, t + 20 * MS)
    barge.resumed_until_ns = t  # the window has passed
    barge.before(block, t + 40 * MS)
    assert levels == pytest.approx([-65.0, -20.0 + RESUME_COUPLING_DB, -65.0], abs=0.1)


def test_after_a_stop_the_first_sound_of_the_restarted_stream_gets_the_floor():
    """A stop aborts the output stream (a hold, or an answer cut without one: `Pipeline.interrupt`,
    a stall); for the first RESTART_MS of sound after that (the next answer, seconds later), AEC3
    leaks while it learns the new stream's delay: the floor applies there, and neither before that
    sound starts nor after it. Without a hold the answer after an interrupted one was held 200 ms
    into its first clause in 8 of 11 (docs/bargein_history.md, fifty-third session)."""
    from assistant.bargein import RESTART_MS, RESUME_COUPLING_DB

    barge, levels = _converged_barge_in()
    block = np.full(320, 0.1, np.float32)  # -20 dBFS

    def sound(first: int, blocks: int) -> None:
        for i in range(first, first + blocks):
            barge.estimate.reference(block, T + i * 20 * MS)

    sound(0, 100)  # an answer plays 2 s ...
    barge.before(block, T + 99 * 20 * MS)
    barge.estimate.reference(np.zeros(0, np.float32), T + 100 * 20 * MS)  # ... its stream is stopped
    steps, written = RESTART_MS // 20, 200  # 2 s later the next answer starts, on the restarted stream
    for i in (0, steps - 1, steps, steps + 10):
        sound(written, 200 + i + 1 - written)  # the player writes just ahead of what the mic hears
        written = 200 + i + 1
        barge.before(block, T + (200 + i) * 20 * MS)
    floor = -20.0 + RESUME_COUPLING_DB
    assert levels == pytest.approx([-65.0, floor, floor, -65.0, -65.0], abs=0.1)


def test_a_clause_that_starts_as_the_restart_floor_ends_keeps_it_for_its_start():
    """AEC3, still finding the restarted stream's delay, leaks most at a clause start: one that
    begins within the first RESTART_MS of sound after a restart keeps the floor for its own
    START_MS, past RESTART_MS; then the learnt estimate again. Without that, 14 of 68 answers after
    a cut were held falsely 1.6-1.8 s in, as their second clause began (`bench_bargein.py --cuts`)."""
    from assistant.bargein import PAUSE_MS, RESTART_MS, RESUME_COUPLING_DB

    barge, levels = _converged_barge_in()
    block, silence = np.full(320, 0.1, np.float32), np.zeros(320, np.float32)  # -20 dBFS; 20 ms
    barge.estimate.reference(np.zeros(0, np.float32), T - 20 * MS)  # a stop: the stream restarts
    clause = RESTART_MS - 100  # ms after the first sound at which the second clause begins
    checks = (RESTART_MS - 200, RESTART_MS + 100, clause + START_MS - 20, clause + START_MS + 20)
    for i in range(checks[-1] // 20 + 3):
        pause = clause - PAUSE_MS <= i * 20 < clause
        barge.estimate.reference(silence if pause else block, T + i * 20 * MS)
        if i * 20 - 40 in checks:  # the player writes 40 ms ahead of what the mic hears
            barge.before(block, T + (i * 20 - 40) * MS)
    assert barge.estimate.last_start_at(T + clause * MS) == T + clause * MS
    floor = -20.0 + RESUME_COUPLING_DB
    assert levels == pytest.approx([floor, floor, floor, -65.0], abs=0.1)


def test_a_hold_outlasts_the_echo_of_what_played_before_it():
    """Just after a hold, the gate still stands at the echo's level and AEC3 still holds the user's
    voice down as double talk: frames under the gate then say nothing. The hold stays until what
    played before it can no longer be heard, and then for RELEASE_MS of silence with the gate off."""
    from assistant.vad import State

    barge, _ = _converged_barge_in()
    ep = barge.endpointer
    ep.state, ep.voiced_until_ns = State.SILENCE, 0
    block = np.full(320, 0.1, np.float32)  # -20 dBFS
    t = T + 99 * 20 * MS
    for i in range(105):  # the player writes ahead of what the mic hears: up to t + 100 ms
        barge.estimate.reference(block, T + i * 20 * MS)
    ep.recent_voicing = (False, False, False, False, True)
    asyncio.run(barge.after(t))
    assert barge.pipe.hold.is_set()  # the first voiced frame holds
    barge.estimate.reference(np.zeros(0, np.float32), t + 120 * MS)  # the player stopped there
    ep.recent_voicing = (False,) * 5  # nothing over the gate any more
    asyncio.run(barge.after(t + (RELEASE_MS + 20) * MS))
    assert barge.pipe.hold.is_set()  # the block written for t + 100 ms can still be heard
    gone = t + (100 + ECHO_TAIL_MS + 20) * MS
    asyncio.run(barge.after(gone))
    assert barge.pipe.hold.is_set()  # its echo is over: from here a voice would get through
    asyncio.run(barge.after(gone + (RELEASE_MS - 20) * MS))
    assert barge.pipe.hold.is_set()  # "Wait, ..." pauses about this long after its first word
    asyncio.run(barge.after(gone + RELEASE_MS * MS))
    assert not barge.pipe.hold.is_set()  # the mic was quiet with the gate off: a blip


def test_an_echo_that_lies_late_lengthens_the_gate_and_the_wait_after_a_hold():
    """The canceller tracked the echo 350 ms behind its stamps (a starved PulseAudio moved the tests'
    loopback that far): the gate hears what played for 300 ms longer than ECHO_TAIL_MS, and voice
    must outlast the hold by 300 ms more before it interrupts; back to the usual once it is near."""
    from assistant.bargein import AFTER_HOLD_MS
    from assistant.vad import State

    barge, _ = _converged_barge_in()
    barge.echo = _Echo(echo_delay_ms=350.0)
    block = np.full(320, 0.1, np.float32)  # -20 dBFS
    barge.estimate.reference(block, T)
    barge.estimate.reference(np.zeros(0, np.float32), T + 20 * MS)  # playback stopped
    late = 350 - DELAY_IN_TAIL_MS
    barge.before(block, T + (ECHO_TAIL_MS + 100) * MS)
    assert barge.late_ms == late
    assert barge.estimate.played_db(T + (ECHO_TAIL_MS + late - 10) * MS) == pytest.approx(-20, abs=0.1)
    assert barge.estimate.played_db(T + (ECHO_TAIL_MS + late + 10) * MS) is None

    ep = barge.endpointer
    barge.onset_ns = barge.hold_ns = T  # voice held playback at T ...
    ep.state, ep.voiced_until_ns = State.SPEECH, T + (AFTER_HOLD_MS + 100) * MS  # ... and went on
    assert not barge._confirmed()  # it may still be the echo of what played before the hold
    ep.voiced_until_ns = T + (AFTER_HOLD_MS + late) * MS
    assert barge._confirmed()
    barge.echo.echo_delay_ms = 30.0  # the echo near its stamps again: the usual tail and wait
    barge.before(block, T + 2000 * MS)
    assert barge.late_ms == 0 and barge.estimate.tail_ns == ECHO_TAIL_MS * MS


def test_a_pause_between_words_does_not_release_a_hold():
    """ "Wait, tell me ...": the pause after "Wait" must not resume the answer under the user."""
    from assistant.vad import State

    barge, _ = _converged_barge_in()  # nothing plays: the echo is gone throughout
    ep = barge.endpointer
    ep.state, ep.voiced_until_ns = State.SILENCE, 0
    ep.recent_voicing = (False, False, False, False, True)
    asyncio.run(barge.after(T))
    assert barge.pipe.hold.is_set()
    ep.recent_voicing = (False,) * 5  # the pause
    asyncio.run(barge.after(T + (RELEASE_MS - 20) * MS))
    assert barge.pipe.hold.is_set()
    asyncio.run(barge.after(T + RELEASE_MS * MS))
    assert not barge.pipe.hold.is_set()


def _held(heard: str, peak: float | None = None, floor_ends_ms: int | None = None, says=()):
    """A hold from T that no utterance was made of, released RELEASE_MS later with the mic quiet,
    the recognizer hearing `heard` in what it got (the canceller's echo peak `peak`; a resume floor
    on the gates until `floor_ends_ms` from T; the answer's clauses `says`, (ms from T each began
    to sound, text)): (whether the answer was interrupted, whether playback is still held, the ms
    of audio the recognizer got)."""
    from assistant.vad import State

    barge, _ = _converged_barge_in()  # nothing plays: the echo is gone throughout
    barge.echo = _Echo(peak=lambda t_ns: peak)
    ep = barge.endpointer
    ep.state, ep.voiced_until_ns = State.SILENCE, 0
    got, calls = [], []

    async def transcribe(samples):
        got.append(len(samples) * 1000 // 16_000)
        return heard

    async def interrupt():
        calls.append(True)

    barge.transcribe, barge.pipe.interrupt = transcribe, interrupt
    barge.pipe.current = SimpleNamespace(sounded=[(T + ms * MS, text) for ms, text in says])
    if floor_ends_ms is not None:
        barge.resumed_until_ns = T + floor_ends_ms * MS
    block = np.full(320, 0.1, np.float32)
    for i in range(-50, RELEASE_MS // 20 + 1):  # 1 s before the hold to the release
        t = T + i * 20 * MS
        barge.before(block, t)
        barge.heard(block, None, t)
        ep.recent_voicing = (False, False, False, False, True) if i == 0 else (False,) * 5
        asyncio.run(barge.after(t))
    return bool(calls), barge.pipe.hold.is_set(), got


def test_a_stop_phrase_held_under_the_gate_ends_the_answer_when_the_hold_would_end():
    """ "Stop." said as a clause starts: held at once, but the gate stood at the echo's level until
    the word was over, so no utterance was made of it. Before the hold is released, the recognizer
    hears what it got from HELD_PREROLL_MS before the hold on; a stop phrase alone there ends the
    answer, anything else lets it go on, and so does the answer's own echo."""
    from assistant.bargein import HELD_PREROLL_MS

    interrupted, held, got = _held("stop")
    assert interrupted and got == [HELD_PREROLL_MS + RELEASE_MS + 20]
    assert _held("wait wait")[:2] == (True, True)
    assert _held("the dragon")[:2] == (False, False)  # not a stop phrase: a blip, the answer goes on
    assert _held("")[:2] == (False, False)
    assert _held("stop", peak=0.9) == (False, False, [])  # its own echo: not even transcribed
    # the echo's words before the phrase, where the recognizer reaches back before the hold
    story = ((-3000, "Once upon a time."), (-1000, "It was said to be strong."))
    assert _held("to wait", says=story)[:2] == (True, True)
    assert _held("to wait")[:2] == (False, False)  # words the answer does not say: not a stop phrase


def test_a_hold_as_a_floor_ends_hears_the_word_the_floor_hid():
    """ "Stop!" said as a clause starts inside the restart floor lies whole under the raised gate;
    the hold comes as the floor ends, 420-450 ms into the word, and from HELD_PREROLL_MS before it
    the recognizer heard "up". Where a floor was on within HELD_FLOORED_PREROLL_MS before the hold,
    `held_words` reaches back that far; elsewhere the hold comes early in the voice, and the
    shorter reach keeps the answer's earlier words out."""
    from assistant.bargein import HELD_FLOORED_PREROLL_MS, HELD_PREROLL_MS

    assert HELD_FLOORED_PREROLL_MS > HELD_PREROLL_MS
    whole, short = (reach + RELEASE_MS + 20 for reach in (HELD_FLOORED_PREROLL_MS, HELD_PREROLL_MS))
    assert _held("stop", floor_ends_ms=20) == (True, True, [whole])  # held under the floor
    assert _held("stop", floor_ends_ms=-HELD_FLOORED_PREROLL_MS + 40)[2] == [whole]
    assert _held("stop", floor_ends_ms=-HELD_FLOORED_PREROLL_MS - 100)[2] == [short]


def _floored(
    heard: str,
    word_db: float,
    peak: float | None = None,
    held: bool = False,
    says: tuple[tuple[int, str], ...] = (),
    turn_ends=False,
    echo_delay_ms: float | None = None,
):
    """The answer plays at -20 dBFS over a converged canceller (learnt gate -55 dBFS), a resume floor
    on the gates for 600 ms from T (raised gate -20 dBFS); a 300 ms word at `word_db` 100 ms
    into the floor, nothing else over -70, no voiced frame (the endpointer never left SILENCE); the
    recognizer hears `heard` in what it got (echo peak `peak`; `held`: playback held throughout; the
    answer's clauses `says`, (ms from T each began to sound, text); `turn_ends`: another turn is
    answered by the time the recognizer is done; the canceller's tracked `echo_delay_ms`):
    (whether the answer was interrupted, the ms of audio the recognizer got)."""
    from assistant.vad import State

    barge, _ = _converged_barge_in()
    barge.echo = _Echo(echo_delay_ms, peak=lambda t_ns: peak)
    ep = barge.endpointer
    ep.state, ep.voiced_until_ns, ep.recent_voicing = State.SILENCE, 0, (False,) * 5
    got, calls = [], []

    async def transcribe(samples):
        got.append(len(samples) * 1000 // 16_000)
        if turn_ends:
            barge.pipe.current = SimpleNamespace(sounded=[])
        return heard

    async def interrupt():
        calls.append(True)

    barge.transcribe, barge.pipe.interrupt = transcribe, interrupt
    barge.pipe.current = SimpleNamespace(sounded=[(T + ms * MS, text) for ms, text in says])
    if held:
        barge.pipe.hold.set()
    played, quiet = np.full(320, 0.1, np.float32), np.full(320, 10 ** (-70 / 20), np.float32)
    word = np.full(320, 10 ** (word_db / 20), np.float32)

    async def blocks():  # one loop: the look back runs beside the blocks that follow
        for i in range(-100, 50):  # 2 s before the floor (past the first RESTART_MS of sound) to 0.4 s after
            t = T + i * 20 * MS
            if i == 0:  # a hold ended as a blip (what `after` sets then)
                barge.resumed_until_ns = T + 600 * MS
            barge.reference(played, t)
            mic = word if 5 <= i < 20 else quiet
            barge.before(mic, t)
            barge.heard(mic, None, t)
            await barge.after(t)
        if barge._looking_back is not None:
            await barge._looking_back

    asyncio.run(blocks())
    return bool(calls), got


def test_a_floor_that_hid_a_stop_phrase_whole_ends_the_answer_as_it_ends():
    """ "Stop!" said as a clause starts inside the restart floor can lie whole under the raised gate
    with no hold after it. As the floor ends, a stretch that stood over the gate the learnt echo
    estimate alone would set goes to the recognizer: a stop phrase alone there ends the answer;
    other words, the answer's own echo (its peak, or words the answer says), a floor nothing stood
    out under, and a hold (which hears it itself) let it go on."""
    assert _floored("stop", -40.0) == (True, [620])  # the floor's stretch: T to the block that ends it
    assert _floored("hold on", -40.0)[0]
    assert _floored("the dragon", -40.0) == (False, [620])  # words of the answer's leak: it goes on
    assert _floored("stop", -40.0, peak=0.9) == (False, [])  # its own echo: not even transcribed
    assert _floored("stop", -60.0) == (False, [])  # under the learnt gate too: nothing was hidden
    assert _floored("stop", -40.0, held=True) == (False, [])
    # the answer says it there: the echo's leak, which GCC-PHAT on AEC3's output often misses
    assert _floored("hold on", -40.0, says=((-1000, "Hold on, let me think."),)) == (False, [620])
    stop_cried = ((-3000, "Stop!"), (-400, "The dragon cried."))  # "Stop!" sounding 400 ms before
    assert _floored("stop stop", -40.0, says=stop_cried) == (False, [620])
    assert _floored("wait", -40.0, says=((-3000, "Go on."), (200, "Wait for it."))) == (False, [620])
    assert _floored("stop", -40.0, turn_ends=True) == (False, [620])  # it ends only the answer it was for
    assert _floored("stop", -40.0, says=((-1000, "The bus stops here."),))[0]  # not the words it says
    # said long before the floor: not what leaks in it
    assert _floored("wait", -40.0, says=((-9000, "Wait and see."), (-1000, "The dragon cried.")))[0]
    # ... unless the echo comes that much later than its stamps (SAID_BEFORE_MS + the tracked delay)
    wait_go_on = ((-900, "Wait."), (-700, "Go on."))
    assert _floored("wait", -40.0, says=wait_go_on)[0]
    assert not _floored("wait", -40.0, says=wait_go_on, echo_delay_ms=300 + DELAY_IN_TAIL_MS)[0]
    # the answer's words before the phrase (`BargeIn._without_echo_words`): the echo's leak, then "Wait."
    assert _floored("a time wait", -40.0, says=((-2000, "Once upon a time."),))[0]
    assert not _floored("a time wait", -40.0)[0]
    assert not _floored("a time wait", -40.0, says=((-2000, "Once upon a time, wait."),))[0]


def test_resume_point_is_the_last_pause_before_the_cut():
    samples = np.r_[np.ones(300), np.zeros(100), np.ones(600)].astype(np.float32)
    assert resume_point(samples, 420, 1000) == 300  # back to the gap
    assert resume_point(samples, 5, 1000) == 0
    assert resume_point(samples, 420, 1000, floor=350) == 350  # never back before where it went on


def test_player_stamps_the_reference_by_sample_count_and_slips_with_an_underrun(monkeypatch):
    from assistant.audio import devices

    clock = iter([0, 1_000_000, 2_000_000, 500_000_000])  # three quick callbacks, then a late one
    monkeypatch.setattr(devices, "time", SimpleNamespace(perf_counter_ns=lambda: T + next(clock)))
    got = []
    player = devices.Player(devices.AudioConfig(), reference=lambda x, t: got.append((x.copy(), t - T)))
    player._stream_rate = 16000
    tone = np.full(500, 0.5, np.float32)
    player._piece = piece = devices._Piece(tone, tone)
    out = np.ones((320, 1), np.float32)
    for underflow in (False, False, False, True):
        player._callback(out, 320, None, SimpleNamespace(output_underflow=underflow))
    assert [t for _, t in got] == [0, 20 * MS, 40 * MS, 500 * MS]  # by count; the underflow slipped
    assert player.underflows == 1
    assert [float(x.sum()) for x, _ in got] == [160.0, 90.0, 0.0, 0.0]  # the piece, then silence
    assert np.all(out == 0) and piece.pos == 500 and piece.end_ns == T + 1_000_000


@pytest.fixture(scope="module")
def spoken(espeak_wav) -> np.ndarray:
    """A question as espeak-ng says it, 16 kHz, from its first sound, at -25 dBFS RMS."""
    from assistant.audio.files import read_audio
    from assistant.vad import level_db

    audio = read_audio(espeak_wav("Wait, what time is it?"), 16000)
    audio = audio[np.flatnonzero(np.abs(audio) > 0.01)[0] :][:8000]
    return (audio * 10 ** ((-25 - level_db(audio)) / 20)).astype(np.float32)


def _onset_detector_hearing(block_db: float = -20.0):
    """An OnsetDetector whose echo estimate learnt -45 dB of coupling, with 2 s of reference playing."""
    from assistant.bargein import HISTORY_FRAMES, OnsetDetector

    detector = OnsetDetector(threshold_db=10.0, tail_ms=ECHO_TAIL_MS)
    for start in (True, False):
        for _ in range(HISTORY_FRAMES):
            detector.estimate._add(start, -45.0)
    block = np.full(320, 10 ** (block_db / 20), np.float32)
    for i in range(100):
        detector.estimate.reference(block, T + i * 20 * MS)
    # 0.5 s of what the linear filter leaves of the echo (-70 dBFS): webrtcvad adapts to its input
    residual = np.random.default_rng(0).standard_normal(8000).astype(np.float32) * 10 ** (-70 / 20)
    detector.accept(residual, T + 74 * 20 * MS, learn=False, floor_db=None)
    assert detector.voiced_until_ns == 0
    return detector


def test_the_onset_detector_hears_voice_above_its_own_echo_estimate(spoken):
    """Gate: played -20 dBFS + coupling -45 dB + threshold 10 dB + ONSET_MARGIN_DB 3 = -52 dBFS. The
    user at -35 dBFS on the linear output passes within its first 50 ms; 40 dB quieter it does not;
    nor under a floor for a moved echo path (coupling at least -10 dB: gate -17 dBFS)."""
    t = T + 99 * 20 * MS  # the last block written; the estimates keep the last 2 tails
    voice = spoken[:3200] * 10 ** (-10 / 20)  # -35 dBFS, its loudest 10 ms frame -27 dBFS
    detector = _onset_detector_hearing()
    detector.accept(voice[:800], t, learn=False, floor_db=None)
    assert t < detector.voiced_until_ns <= t + 50 * MS
    quiet = _onset_detector_hearing()
    quiet.accept(voice * 0.01, t, learn=False, floor_db=None)
    assert quiet.voiced_until_ns == 0
    floored = _onset_detector_hearing()
    floored.accept(voice, t, learn=False, floor_db=-10.0)
    assert floored.voiced_until_ns == 0


def test_the_onset_detector_is_off_while_nothing_plays(spoken):
    from assistant.bargein import OnsetDetector

    detector = OnsetDetector(threshold_db=10.0, tail_ms=ECHO_TAIL_MS)
    detector.accept(spoken[:3200], T, learn=True, floor_db=None)
    assert detector.voiced_until_ns == 0  # the endpointer hears the user unhindered then


def test_an_onset_on_the_linear_output_holds_playback_before_the_gate_opens(spoken):
    """The endpointer hears nothing yet (AEC3's suppressor holds the user down); the onset detector's
    voiced frame holds playback, and is counted as its hold."""
    from assistant.bargein import HISTORY_FRAMES
    from assistant.vad import State

    barge, _ = _converged_barge_in(onset_detector=True)
    ep = barge.endpointer
    ep.state, ep.voiced_until_ns, ep.recent_voicing = State.SILENCE, 0, (False,) * 5
    for start in (True, False):
        for _ in range(HISTORY_FRAMES):
            barge.onset.estimate._add(start, -45.0)
    quiet, playing = np.full(320, 1e-4, np.float32), np.full(320, 0.1, np.float32)  # -80, -20 dBFS
    for step in range(38):  # 0.7 s of echo only on both outputs (past START_MS), then 60 ms of user
        t = T + step * 20 * MS
        for estimate in (barge.estimate, barge.onset.estimate):  # a pass-through: the estimates only
            estimate.reference(playing, t + 60 * MS)  # the player writes ahead of the mic
        barge.before(quiet, t, quiet if step < 35 else spoken[(step - 35) * 320 :][:320])
        asyncio.run(barge.after(t))
        assert barge.pipe.hold.is_set() == (step >= 35 and barge.onset.voiced_until_ns > 0)
    assert barge.pipe.hold.is_set() and barge.onset_holds == 1


def test_the_onset_detector_holds_at_clause_starts_too(spoken):
    """A clause's first START_MS is where AEC3 holds the user back longest: the detector acts there,
    against the estimate it learnt for clause starts (here as for the rest: -45 dB)."""
    detector = _onset_detector_hearing()
    t = T + 99 * 20 * MS
    detector.estimate.reference(np.zeros(320, np.float32), t + 20 * MS)
    detector.estimate.reference(np.full(320, 0.1, np.float32), t + 200 * MS)  # a clause starts
    assert detector.estimate.starting(t + 200 * MS)
    detector.accept(spoken[:800] * 10 ** (-10 / 20), t + 200 * MS, learn=False, floor_db=None)
    assert t + 200 * MS < detector.voiced_until_ns <= t + 250 * MS  # within its first 50 ms


def test_the_onset_detector_waits_for_a_settled_echo_estimate(spoken):
    """With only MIN_HISTORY frames learnt (the first clause after start), its p99 is the loudest of
    a few frames: the detector does not hold yet; the endpointer's gate still does."""
    from assistant.bargein import OnsetDetector

    detector = OnsetDetector(threshold_db=10.0, tail_ms=ECHO_TAIL_MS)
    for start in (True, False):
        for _ in range(MIN_HISTORY):
            detector.estimate._add(start, -45.0)
    for i in range(100):
        detector.estimate.reference(np.full(320, 0.1, np.float32), T + i * 20 * MS)
    detector.accept(spoken[:3200], T + 99 * 20 * MS, learn=False, floor_db=None)
    assert detector.voiced_until_ns == 0 and max(detector.margins) > 0


def test_a_player_clock_re_stamped_after_an_underflow_starts_a_phase_and_the_floor():
    """An underflow re-stamps the player's clock: the sound moved against the echo filters'
    reference. The next sound is a clause start, and the floor applies for RESTART_MS of it."""
    from assistant.bargein import RESTART_MS, RESUME_COUPLING_DB

    barge, levels = _converged_barge_in()
    block = np.full(320, 0.1, np.float32)  # -20 dBFS, contiguous 20 ms blocks
    for i in range(50):
        barge.estimate.reference(block, T + i * 20 * MS)
    barge.before(block, T + 49 * 20 * MS)
    moved = T + 50 * 20 * MS + 7 * MS  # the device ran dry for 7 ms
    for i in range(100):  # the player writes just ahead of what the mic hears
        barge.estimate.reference(block, moved + i * 20 * MS)
        if i in (2, RESTART_MS // 20 + 2):
            barge.before(block, moved + (i - 1) * 20 * MS)
    assert barge.estimate.last_move_at(moved) == moved and barge.estimate.starting(moved)
    assert levels == pytest.approx([-65.0, -20.0 + RESUME_COUPLING_DB, -65.0], abs=0.1)


def test_a_re_stamp_before_anything_sounded_is_no_move():
    """The player's stream runs from the start, silent until the first answer, and may underflow
    while the models load. The echo filters have learnt no delay then, so the first answer gets no
    restart floor (with one, the rest of a request said 260 ms into it was lost: "again and a
    night", 3 runs of 4, 2026-12-06); a re-stamp after sound is a move, as before."""
    est = EchoEstimate()
    silence, sound = np.zeros(320, np.float32), np.full(320, 0.1, np.float32)
    for i in range(10):
        est.reference(silence, T + i * 20 * MS)
    re_stamped = T + 10 * 20 * MS + 108 * MS  # an underflow at startup
    for i in range(10):
        est.reference(silence, re_stamped + i * 20 * MS)
    answer = re_stamped + 10 * 20 * MS
    for i in range(10):
        est.reference(sound, answer + i * 20 * MS)
    assert est.last_move_at(answer + 200 * MS) is None
    re_stamped_again = answer + 10 * 20 * MS + 7 * MS
    est.reference(sound, re_stamped_again)
    assert est.last_move_at(re_stamped_again) == re_stamped_again


def test_a_mic_re_anchored_by_the_canceller_gets_the_floor_for_a_while():
    """The canceller moved the mic against its count (`MicAnchor`): the echo moved against its
    reference, so for RESTART_MS the gate takes the echo as loud as after a restart."""
    from assistant.bargein import RESTART_MS, RESUME_COUPLING_DB

    barge, levels = _converged_barge_in()
    barge.echo = _Echo()
    block = np.full(320, 0.1, np.float32)  # -20 dBFS
    steps = (0, 1, RESTART_MS // 20, RESTART_MS // 20 + 1)
    barge.estimate.reference(block, T)
    for i in range(steps[-1] + 1):
        barge.estimate.reference(block, T + (i + 1) * 20 * MS)  # the player writes ahead
        if i == 1:
            barge.echo.mic_reanchors = 1  # between two mic blocks
        if i in steps:
            barge.before(block, T + i * 20 * MS)
    floor = -20.0 + RESUME_COUPLING_DB
    assert levels == pytest.approx([-65.0, floor, floor, -65.0], abs=0.1)
