"""Echo cancellation: framing and alignment with a recording fake library, then the real libraries on
the synthetic laptop scene of scripts/bench_aec.py (piper through a simulated speaker, espeak-ng
barging in). Floors are set below what the bench measured (webrtc: ERLE 44 dB, longest false VAD run
120 ms, 87 % of the user's voiced frames kept in double talk; speex: ERLE 32 dB)."""

from __future__ import annotations

import logging
import threading

import numpy as np
import pytest
from conftest import load_script

from assistant.audio import echo
from assistant.audio.echo import FRAME, NS_PER_S, SAMPLE_RATE
from assistant.audio.pcm import PCM16_SCALE, from_pcm16, to_pcm16

NS_PER_SAMPLE = NS_PER_S // SAMPLE_RATE
T0 = 10**12  # ns, an arbitrary perf_counter_ns time for sample 0


def stamp(sample: int) -> int:
    return T0 + sample * NS_PER_SAMPLE


class Recorder:
    """A fake library: returns the mic frame as is and keeps every (mic, ref) pair it was given."""

    def __init__(self) -> None:
        self.pairs: list[tuple[np.ndarray, np.ndarray]] = []

    def cancel(self, mic: np.ndarray, ref: np.ndarray) -> np.ndarray:
        self.pairs.append((mic.copy(), ref.copy()))
        return mic

    def close(self) -> None:
        pass


def recording_canceller(delay_ms: float = 0) -> tuple[echo.TimedEchoCanceller, Recorder]:
    recorder = Recorder()
    canceller = echo.TimedEchoCanceller("fake", delay_ms, make_backend=lambda: recorder)
    canceller.build()
    return canceller, recorder


def ramp(n: int) -> np.ndarray:
    """Distinct values per sample (exact in int16 after to_pcm16) so pairings can be checked."""
    return (np.arange(n) % 20000 / PCM16_SCALE).astype(np.float32)


def feed(canceller, mic: np.ndarray, sizes) -> np.ndarray:
    """Feed `mic` in blocks of the given sizes (cycled), stamped by sample position."""
    out, pos, i = [], 0, 0
    while pos < len(mic):
        n = sizes[i % len(sizes)]
        out.append(canceller.process(mic[pos : pos + n], stamp(pos)))
        pos, i = pos + n, i + 1
    return np.concatenate(out)


# ---- the pass-through and the factory ---------------------------------------------------------


def test_off_is_a_pass_through():
    canceller = echo.make_echo_canceller("off")
    x = np.random.default_rng(0).standard_normal(1234).astype(np.float32) * 0.1
    canceller.reference(x, stamp(0))
    assert canceller.active is False
    np.testing.assert_array_equal(canceller.process(x, stamp(0)), x)


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="echo_cancel"):
        echo.make_echo_canceller("nlms")


def test_a_library_that_fails_to_load_falls_back_with_one_warning(monkeypatch, caplog):
    def missing():
        raise ImportError("No module named 'livekit'")

    monkeypatch.setitem(echo.BACKENDS, "webrtc", missing)
    with caplog.at_level(logging.WARNING, logger="assistant.audio.echo"):
        canceller = echo.make_echo_canceller("webrtc")
    assert isinstance(canceller, echo.PassThrough) and not canceller.active
    [record] = caplog.records
    assert "webrtc" in record.getMessage() and "\n" not in record.getMessage()


# ---- the reference timeline, framing, alignment -----------------------------------------------


def test_timeline_docstring_example():
    timeline = echo.ReferenceTimeline(size=8, resync=0)
    timeline.write(np.array([1, 2, 3], np.float32), 10)
    timeline.write(np.array([4], np.float32), 13)
    np.testing.assert_array_equal(timeline.read(9, 6), [0, 1, 2, 3, 4, 0])


def test_timeline_forgets_what_is_older_than_its_size():
    timeline = echo.ReferenceTimeline(size=4, resync=0)
    timeline.write(np.arange(1, 7, dtype=np.float32), 0)
    np.testing.assert_array_equal(timeline.read(0, 6), [0, 0, 3, 4, 5, 6])


def test_an_empty_reference_block_ends_playback_there():
    timeline = echo.ReferenceTimeline(size=100, resync=0)
    timeline.write(np.ones(50, np.float32), 0)
    timeline.write(np.zeros(0, np.float32), 20)  # barge-in: what was queued after 20 never sounds
    np.testing.assert_array_equal(timeline.read(0, 50), [1] * 20 + [0] * 30)


@pytest.mark.parametrize("sizes", [[1], [77], [333, 5, 160], [1000]])
def test_framing_with_odd_blocks_keeps_every_sample_in_order(sizes):
    canceller, _ = recording_canceller()
    mic = ramp(5000)
    out = feed(canceller, mic, sizes)
    assert len(out) == len(mic) // FRAME * FRAME  # the remainder waits for the next block
    np.testing.assert_array_equal(out, from_pcm16(to_pcm16(mic[: len(out)])))


@pytest.mark.parametrize("delay_ms", [0, 20, 60])
def test_each_mic_frame_gets_the_reference_from_delay_minus_lead_earlier(delay_ms):
    canceller, recorder = recording_canceller(delay_ms)
    ref = ramp(4000)
    for start in range(0, len(ref), 333):  # odd blocks, handed over before they sound
        canceller.reference(ref[start : start + 333], stamp(start))
    feed(canceller, np.zeros(4000, np.float32), [250])
    lag = max(0, delay_ms - echo.LEAD_MS) * SAMPLE_RATE // 1000
    delayed = np.concatenate([np.zeros(lag, np.float32), ref])  # what the mic timeline should see
    for k, (_, got) in enumerate(recorder.pairs):
        np.testing.assert_array_equal(got, to_pcm16(delayed[k * FRAME : (k + 1) * FRAME]))


def test_jittery_stamps_are_taken_as_contiguous():
    canceller, recorder = recording_canceller()
    ref, rng = ramp(3200), np.random.default_rng(1)
    for start in range(0, len(ref), 320):
        jitter = int(rng.integers(-5, 6)) * 1_000_000 if start else 0  # ±5 ms after the anchors
        canceller.reference(ref[start : start + 320], stamp(start) + jitter)
        canceller.process(np.zeros(320, np.float32), stamp(start) - jitter)
    got = np.concatenate([r for _, r in recorder.pairs])
    np.testing.assert_array_equal(got, to_pcm16(ref))


def test_mic_anchor_docstring_example():
    anchor = echo.MicAnchor(resync=320, max_drift=800)
    assert [anchor.place(at, 160) for at in (0, 160, 800, 480)] == [0, 160, 320, 480]
    assert anchor.reanchors == 0


def test_mic_anchor_follows_a_jump_that_lasts():
    anchor = echo.MicAnchor(resync=320, max_drift=800)
    placed = [anchor.place(at, 160) for at in (0, 160, 3520, 3680, 3840, 4000)]  # a 200 ms dropout
    assert placed == [0, 160, 320, 480, 3840, 4000] and anchor.reanchors == 1


def test_mic_anchor_keeps_the_count_through_jitter_and_slow_drift():
    """Stamps 300 ppm slow with ±12 ms of jitter (what the tests' PulseAudio gives, and more): the
    blocks stay contiguous until the averaged drift passes max_drift, then move once by about that."""
    anchor, rng = echo.MicAnchor(resync=320, max_drift=800), np.random.default_rng(0)
    placed = []
    for k in range(20_000):  # 200 s of 10 ms blocks
        drift = -3e-4 * k * 160
        placed.append(anchor.place(k * 160 + round(drift + rng.uniform(-192, 192)), 160))
    steps = np.diff(placed)
    jumps = np.flatnonzero(steps != 160)
    assert anchor.reanchors == len(jumps) == 1  # 50 ms of drift after ~170 s
    assert -900 < steps[jumps[0]] - 160 < -700 and jumps[0] > 15_000


def test_the_canceller_pairs_by_mic_count_despite_a_late_stamp():
    canceller, recorder = recording_canceller()
    ref = ramp(3200)
    canceller.reference(ref, stamp(0))
    for start in range(0, len(ref), 320):
        late = 30_000_000 if start == 1600 else 0  # one callback 30 ms late (it used to re-anchor)
        canceller.process(np.zeros(320, np.float32), stamp(start) + late)
    got = np.concatenate([r for _, r in recorder.pairs])
    np.testing.assert_array_equal(got, to_pcm16(ref))
    assert canceller.mic_reanchors == 0


def test_the_canceller_counts_the_mic_moving_against_its_count():
    """`mic_reanchors`, which the barge-in gate watches (the echo moved against its reference): a
    200 ms dropout in the mic's stamps that lasts counts once; the pass-through never counts."""
    canceller, _ = recording_canceller()
    silence = np.zeros(320, np.float32)
    for k in range(12):
        dropout = 200_000_000 if k >= 6 else 0
        canceller.process(silence, stamp(k * 320) + dropout)
        assert canceller.mic_reanchors == (k >= 6 + echo.JUMP_BLOCKS - 1)
    assert echo.PassThrough().mic_reanchors == 0


def test_converged_after_warmup_of_audible_reference():
    canceller, _ = recording_canceller()
    n = int(echo.WARMUP_S * SAMPLE_RATE)
    feed(canceller, np.zeros(n, np.float32), [320])  # nothing played: silence does not count
    assert not canceller.converged
    canceller.reference(np.full(n, 0.1, np.float32), stamp(n))
    for start in range(n, 2 * n - 320, 320):
        canceller.process(np.zeros(320, np.float32), stamp(start))
    assert not canceller.converged
    canceller.process(np.zeros(320, np.float32), stamp(2 * n - 320))
    assert canceller.converged and not echo.PassThrough().converged


def test_reference_and_process_from_two_threads():
    canceller, recorder = recording_canceller()
    n, block = SAMPLE_RATE, 320

    def playback():
        for start in range(0, n, block):
            canceller.reference(np.full(block, 0.1, np.float32), stamp(start))

    player = threading.Thread(target=playback)
    player.start()
    out = feed(canceller, np.zeros(n, np.float32), [block])
    player.join()
    assert len(out) == n and len(recorder.pairs) == n // FRAME


# ---- the real libraries on the synthetic scene ------------------------------------------------


@pytest.fixture(scope="module")
def bench():
    return load_script("bench_aec")


@pytest.fixture(scope="module")
def scene(bench):
    pytest.importorskip("pyroomacoustics")
    return bench.make_scene(path_delay_ms=40, echo_db=6)


def measured(bench, scene, mode: str, delay_ms: float = 0) -> dict:
    canceller = echo.TimedEchoCanceller(mode, delay_ms)
    try:
        canceller.build()
    except (ImportError, OSError) as err:
        pytest.skip(f"{mode} unavailable: {err}")
    out, _ = bench.run(canceller, scene)
    return bench.measure(scene, out)


def test_the_scene_would_interrupt_itself_without_cancellation(bench, scene):
    m = bench.measure(scene, bench.run(echo.PassThrough(), scene)[0])
    assert m["run_in_ms"] >= 1000 and m["false_in"] > 0.8 * m["far_frames"]


@pytest.mark.parametrize("delay_ms", [0, 40, 60])  # true path: 40 ms + the room; 60 is within LEAD_MS
def test_webrtc_removes_the_echo_and_keeps_the_user(bench, scene, delay_ms):
    m = measured(bench, scene, "webrtc", delay_ms)
    assert m["erle"] >= 30
    assert m["run_out_ms"] < 300  # no self-interruption at [bargein] min_speech_ms
    assert m["dt_vad"] >= 0.7 and m["st_vad"] >= 0.95
    assert m["dt_trigger_ms"] < 800  # the user still interrupts, within 0.8 s of their first word
    assert abs(m["st_gain_db"]) < 1


def test_speex_removes_most_of_the_echo_and_keeps_the_user(bench, scene):
    m = measured(bench, scene, "speex")
    assert m["erle"] >= 20
    assert m["dt_vad"] >= 0.9 and m["st_vad"] >= 0.95


def test_overestimating_the_delay_beyond_the_lead_cancels_nothing(bench, scene):
    """The documented one-sided error: echoes before their reference cannot be cancelled."""
    m = measured(bench, scene, "webrtc", delay_ms=120)
    assert m["erle"] < 10


def test_the_linear_filter_keeps_the_double_talk_onset_that_aec3_holds_back(bench, scene):
    """`process_both`: beside AEC3, the linear filter (Speex MDF, no suppressor) on the same frame
    pairs. Over the first 100 ms of the user talking over the answer, AEC3's output holds the user
    20+ dB down (its suppressor takes the onset for echo); the linear output keeps them at their
    level, and still takes 10+ dB of echo out where only the assistant plays."""
    canceller = echo.TimedEchoCanceller("webrtc", 0, make_linear=echo.linear_filter)
    try:
        canceller.build()
    except (ImportError, OSError) as err:
        pytest.skip(f"webrtc or libspeexdsp unavailable: {err}")
    block, ahead = SAMPLE_RATE * bench.BLOCK_MS // 1000, SAMPLE_RATE * bench.PLAY_AHEAD_MS // 1000
    cleaned, linear, fed = [], [], 0
    for start in range(0, len(scene.mic), block):
        while fed < min(start + ahead, len(scene.far)):
            canceller.reference(scene.far[fed : fed + block], stamp(fed))
            fed += block
        out, lin = canceller.process_both(scene.mic[start : start + block], stamp(start))
        assert len(lin) == len(out)
        cleaned.append(out)
        linear.append(lin)
    cleaned, linear = np.concatenate(cleaned), np.concatenate(linear)
    onset = scene.near_spans[0][0]
    first = slice(onset, onset + SAMPLE_RATE // 10)
    user = bench.energy_db(scene.near[first])
    assert bench.energy_db(linear[first]) >= user - 3
    assert bench.energy_db(cleaned[first]) <= user - 10  # why the onset detector exists
    alone = slice(3 * SAMPLE_RATE, onset - SAMPLE_RATE // 10)
    assert bench.energy_db(linear[alone]) <= bench.energy_db(scene.echo[alone]) - 10


def test_without_a_linear_filter_process_both_gives_none():
    canceller, _ = recording_canceller()
    out, linear = canceller.process_both(ramp(480), stamp(0))
    assert len(out) == 480 and linear is None
    assert echo.PassThrough().process_both(ramp(320), stamp(0))[1] is None


def test_the_onset_detector_is_dropped_with_one_warning_without_libspeexdsp(monkeypatch, caplog):
    def missing():
        raise OSError("libspeexdsp not found")

    monkeypatch.setattr(echo, "load_speexdsp", missing)
    with caplog.at_level(logging.WARNING):
        canceller = echo.make_echo_canceller("webrtc", onset_detector=True)
    if isinstance(canceller, echo.PassThrough):
        pytest.skip("webrtc unavailable here")
    assert canceller.make_linear is None
    assert len([r for r in caplog.records if "onset detector" in r.getMessage()]) == 1


# ---- following the echo's delay (the linear filter's pairing) -----------------------------------


def test_a_reference_block_that_does_not_follow_on_counts_as_a_move():
    timeline = echo.ReferenceTimeline(10000, resync=320)
    timeline.write(np.ones(160, np.float32), 0)
    timeline.write(np.ones(160, np.float32), 160 + echo.MOVE_TOLERANCE)  # stamp rounding: no move
    assert timeline.moves == 0
    timeline.write(np.ones(160, np.float32), timeline.end + 40)  # an underflow's slip, within resync
    timeline.write(np.ones(160, np.float32), timeline.end + 40)  # ... the blocks after it keep it
    assert timeline.moves == 1 and timeline.end == 640
    assert timeline.moved_at == 320  # from the slipped block on (placed on after the last)
    timeline.write(np.zeros(0, np.float32), 500)  # playback stopped
    assert timeline.moved_at == 640  # within resync: placed on after the last, as blocks are
    timeline.write(np.ones(160, np.float32), 4000)  # the stream restarted
    assert timeline.moves == 3 and timeline.moved_at == 4000


def test_after_a_move_the_linear_filter_rests_only_once_sound_plays_again():
    """A hold stops the stream and restarts it: moves, after which the echo may lie elsewhere. Until
    sound plays again the mic holds only the echo of what played before, which the filter's pairing
    still fits, so it gives its output (the user's first words, for the recognizer); then it rests."""
    canceller = echo.TimedEchoCanceller("fake", 0, make_backend=Recorder, make_linear=Recorder)
    canceller.build()
    block, ahead, tone = 160, 3, np.full(160, 0.1, np.float32)  # the player writes 3 blocks ahead
    for i in range(20):  # 200 ms of an answer: the filter gives its output
        canceller.reference(tone, stamp((i + ahead) * block))
        assert canceller.process_both(tone * 0.3, stamp(i * block))[1] is not None
    canceller.reference(np.zeros(0, np.float32), stamp(21 * block))  # the hold drops what was ahead
    # the user talks through the hold: over the echo of what played before it (block 20, handled
    # after the stop: the mic lags the player), then alone
    for i in range(20, 40):
        assert canceller.process_both(ramp(block), stamp(i * block))[1] is not None
    canceller.reference(tone, stamp(40 * block + 37))  # the restarted stream, off its old count
    assert canceller.process_both(tone * 0.3, stamp(40 * block))[1] is None  # rests: echo elsewhere


def test_a_frame_across_a_holds_stop_plays_the_answer_before_it():
    """The player's blocks need not end on a frame: the frame across the stop holds audible answer
    from before it and silence after. That is no sound from after the move, so no rest."""
    canceller = echo.TimedEchoCanceller("fake", 0, make_backend=Recorder, make_linear=Recorder)
    canceller.build()
    for i in range(23):  # 2,300 samples of an answer in blocks of 100
        canceller.reference(np.full(100, 0.1, np.float32), stamp(i * 100))
    for i in range(14):  # mic frames up to sample 2,240
        assert canceller.process_both(np.full(160, 0.03, np.float32), stamp(i * 160))[1] is not None
    canceller.reference(np.zeros(0, np.float32), stamp(2300))  # the hold stops it at 2,300
    for i in range(14, 30):  # from the frame 2,240-2,400 on: the user alone
        assert canceller.process_both(ramp(160), stamp(i * 160))[1] is not None


def test_the_delay_tracker_finds_the_echo_delay_and_confirms_it_only_when_sure():
    rng = np.random.default_rng(0)
    base, span, n, delay = 0, 4000, 8000, 1234
    ref = rng.standard_normal(n + span).astype(np.float32) * 0.1  # from index w - base - span
    # mic[t] (index w + t) hears the reference from index w + t - delay, at half amplitude
    mic = 0.5 * ref[span - delay + base : span - delay + base + n] + rng.standard_normal(n) * 0.005
    sure = echo.DelayTracker(base, span)
    assert sure.estimate(mic, ref) is None  # one estimate is not enough while nothing moved
    assert sure.estimate(mic, ref) == delay
    unsure = echo.DelayTracker(base, span)
    assert unsure.estimate(mic, ref, sure=False) == delay  # after a move one clear peak is
    talking = rng.standard_normal(n).astype(np.float32) * 0.1  # a voice that is not the echo
    assert unsure.estimate(talking, ref, sure=False) is None
    assert unsure.estimate(talking, ref) is None and unsure.delay == delay and unsure.moves == 0


def test_the_echo_delay_is_found_far_behind_the_stamps_without_a_linear_filter():
    """The barge-in gate lengthens its echo tail by the tracked delay, with or without the onset
    detector's linear filter: 400 ms (a starved PulseAudio put the tests' loopback echo 276 ms
    behind its stamps) is found, where the search once stopped at 250."""
    canceller, _ = recording_canceller()
    assert canceller.echo_delay_ms is None and echo.PassThrough().echo_delay_ms is None
    rng = np.random.default_rng(1)
    delay, block, n = 400 * SAMPLE_RATE // 1000, 320, 4 * SAMPLE_RATE
    played = (rng.standard_normal(n) * 0.1).astype(np.float32)
    mic = np.concatenate([np.zeros(delay, np.float32), 0.3 * played[: n - delay]])
    mic += (rng.standard_normal(n) * 1e-3).astype(np.float32)
    for start in range(0, n - block + 1, block):
        canceller.reference(played[start : start + block], stamp(start))
        canceller.process(mic[start : start + block], stamp(start))
    assert canceller.echo_delay_ms == pytest.approx(400, abs=0.2)


def test_echo_peak_tells_echo_let_through_from_a_voice():
    """The canceller's output (here the mic as is: a canceller that lost the echo's path) is the
    echo of what played 400 ms before: a high peak. A voice unrelated to it: a low one. Nothing
    audible: no answer."""
    rng = np.random.default_rng(3)
    block, n, late = 320, 3 * SAMPLE_RATE, 400 * SAMPLE_RATE // 1000
    played = (rng.standard_normal(n) * 0.1).astype(np.float32)
    voice = (rng.standard_normal(n) * 0.1).astype(np.float32)

    def peak(mic: np.ndarray, ref: np.ndarray) -> float | None:
        canceller, _ = recording_canceller()
        for start in range(0, n - block + 1, block):
            canceller.reference(ref[start : start + block], stamp(start))
            canceller.process(mic[start : start + block], stamp(start))
        return canceller.echo_peak(stamp(n))

    echo_of_played = np.concatenate([np.zeros(late, np.float32), 0.5 * played[: n - late]])
    assert peak(echo_of_played, played) > 0.3
    assert peak(voice, played) < 0.1
    assert peak(np.zeros(n, np.float32), played) is None
    assert echo.PassThrough().echo_peak(stamp(n)) is None


def test_the_linear_filter_follows_an_echo_that_moved_against_its_stamps(bench):
    """A second answer on a restarted stream whose stamps are 15 ms early (the player re-stamps at
    each restart; the bench measured moves of 1-21 ms): with the delay followed, the linear filter
    rests until it has found the echo again, then cancels it as it learnt to in the first answer;
    without, it must learn it anew and leaves most of it for seconds."""
    pytest.importorskip("pyroomacoustics")
    speech = bench.piper_speech(bench.FAR_TEXT) * 0.5
    ir_speaker, _ = bench.room_irs()
    block, ahead = SAMPLE_RATE * bench.BLOCK_MS // 1000, SAMPLE_RATE * bench.PLAY_AHEAD_MS // 1000
    path, moved = 40 * SAMPLE_RATE // 1000, 15 * SAMPLE_RATE // 1000  # samples
    first = SAMPLE_RATE // 2
    stop = -(-(first + len(speech)) // block) * block  # the first answer ends, the stream stops ...
    second = stop + SAMPLE_RATE  # ... and the next answer starts on a stream restarted before it
    restart = second - 10 * block
    n = second + len(speech) + SAMPLE_RATE // 2
    played = np.zeros(n, np.float32)
    played[first : first + len(speech)] = played[second : second + len(speech)] = speech
    heard = np.convolve(bench.laptop_speaker(played), ir_speaker)[: n - path]
    mic = np.concatenate([np.zeros(path, np.float32), heard]).astype(np.float32) * 0.3
    mic[second + path :] = np.concatenate([np.zeros(moved, np.float32), mic[second + path : n - moved]])
    mic += np.random.default_rng(0).standard_normal(n).astype(np.float32) * 10 ** (-70 / 20)

    def run(track: bool) -> tuple[np.ndarray, np.ndarray]:
        canceller = echo.TimedEchoCanceller("webrtc", 0, make_linear=echo.linear_filter, track_delay=track)
        try:
            canceller.build()
        except (ImportError, OSError) as err:
            pytest.skip(f"webrtc or libspeexdsp unavailable: {err}")
        linear, rested, fed = np.zeros(n, np.float32), np.zeros(n, bool), 0
        for start in range(0, n - block + 1, block):
            while fed < min(start + ahead, n - block + 1):
                if fed == stop:
                    canceller.reference(np.zeros(0, np.float32), stamp(fed))
                if not stop <= fed < restart:  # the restarted stream's stamps are `moved` early
                    canceller.reference(played[fed : fed + block], stamp(fed if fed < stop else fed - moved))
                fed += block
            _, lin = canceller.process_both(mic[start : start + block], stamp(start))
            if lin is None:
                rested[start : start + block] = True
            else:
                linear[start : start + block] = lin
        return linear, rested

    def erle_db(linear: np.ndarray, a: float, b: float) -> float:
        span = slice(second + int(a * SAMPLE_RATE), second + int(b * SAMPLE_RATE))
        return bench.energy_db(mic[span]) - bench.energy_db(linear[span])

    followed, rested = run(track=True)
    assert rested[second : second + SAMPLE_RATE // 8].all()  # found again only after some echo
    assert not rested[second + SAMPLE_RATE :].any()
    assert erle_db(followed, 1, 3) >= 20
    # primed on what it rested through, it cancels from its first frame back (not after its tail)
    back = (second + int(np.argmin(rested[second:]))) / SAMPLE_RATE - second / SAMPLE_RATE
    assert erle_db(followed, back, back + 0.2) >= 10  # unprimed: 3 dB
    stamped, rested = run(track=False)
    assert not rested.any()
    assert erle_db(stamped, 1, 3) <= erle_db(followed, 1, 3) - 10
