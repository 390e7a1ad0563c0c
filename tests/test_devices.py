"""Devices through real PortAudio → ALSA pulse plugin → the private PulseAudio server (`pulse`)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from conftest import RECORD_RATE

from assistant.audio.devices import (
    CAPTURE_RATE,
    STALL_S,
    AudioDeviceError,
    Capture,
    DeviceNotFoundError,
    Player,
    Resampler16k,
    format_devices,
    list_devices,
    resolve_device,
)
from assistant.config import AudioConfig

SILENT_RMS = 1e-3
WINDOW = RECORD_RATE // 50  # 20 ms analysis windows


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0


def sound_span_s(x: np.ndarray, threshold: float = 0.01) -> float:
    """Seconds from the first to the last 20 ms window with sound in it."""
    windows = x[: len(x) // WINDOW * WINDOW].reshape(-1, WINDOW)
    loud = np.flatnonzero(np.sqrt(np.mean(windows**2, axis=1)) > threshold)
    return (loud[-1] - loud[0] + 1) * WINDOW / RECORD_RATE if len(loud) else 0.0


@pytest.fixture(scope="module")
def clause(piper_tts) -> np.ndarray:
    return np.concatenate(list(piper_tts.synthesize("Hello, this is your assistant speaking clearly.")))


# --- listing and choosing ------------------------------------------------------------------------


def test_devices_are_listed_with_defaults(pulse):
    devices = list_devices()
    names = [d["name"] for d in devices]
    assert "pulse" in names and "default" in names
    assert any(d["default_output"] for d in devices) and any(d["default_input"] for d in devices)
    assert "pulse" in format_devices(devices)
    assert format_devices([]) == "no sound devices found; fix: connect one, or start PulseAudio/PipeWire"


def test_the_devices_command_lists_them_one_a_line_with_the_defaults_marked(pulse):
    argv = [sys.executable, "-m", "assistant.cli", "devices"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    lines = result.stdout.splitlines()
    assert len(lines) == len(list_devices())
    pulse_line = next(line for line in lines if " pulse (" in line)  # "   7 pulse (ALSA; 32 in, 32 out, ...)"
    assert int(pulse_line[2:].split()[0]) == next(d["index"] for d in list_devices() if d["name"] == "pulse")
    assert any(line.startswith(">") for line in lines) and any(line[1] == "<" for line in lines)


def test_resolve_device_by_name_index_or_default(pulse):
    pulse_index = next(d["index"] for d in list_devices() if d["name"] == "pulse")
    assert resolve_device("PULSE", "output") == pulse_index  # case-insensitive, exact name wins
    assert resolve_device("pul", "input") == pulse_index  # substring
    assert resolve_device(pulse_index, "input") == pulse_index
    assert resolve_device(str(pulse_index), "output") == pulse_index
    assert resolve_device("", "input") is None  # the system default


def test_resolve_device_errors_list_the_choices(pulse):
    with pytest.raises(
        DeviceNotFoundError, match=r"no output device matches 'usb headset'.*'pulse'.*output_device"
    ):
        resolve_device("usb headset", "output")
    with pytest.raises(DeviceNotFoundError, match="no input device has index 99"):
        resolve_device(99, "input")
    with pytest.raises(DeviceNotFoundError, match="2 output devices match 'ul'"):
        resolve_device("ul", "output")  # "pulse" and "default"


# --- playback ------------------------------------------------------------------------------------


def test_player_plays_a_piper_clause_to_the_speaker(pulse, piper_tts, clause):
    start = time.perf_counter_ns()
    with Player(AudioConfig(output_device="pulse")) as player:
        assert player.play(clause, piper_tts.sample_rate, threading.Event())
    time.sleep(0.1)
    heard = pulse.speaker.since(start)
    duration = len(clause) / piper_tts.sample_rate
    assert rms(heard) > 0.02
    assert abs(sound_span_s(heard) - duration) < 0.3  # all of it, once (piper trims silence at the ends)
    assert player.last.completed and player.last.played == len(clause)
    assert 0 < (player.first_sample_ns - start) / 1e9 < 0.2


def test_player_accepts_int16_and_resamples_odd_rates(pulse):
    tone = (np.sin(2 * np.pi * 440 * np.arange(8000) / 8000) * 16000).astype(np.int16)  # 1 s at 8 kHz
    start = time.perf_counter_ns()
    with Player(AudioConfig()) as player:
        assert player.play(tone, 8000)
    heard = pulse.speaker.since(start)
    assert rms(heard) > 0.2 and abs(sound_span_s(heard) - 1.0) < 0.1


def test_cancel_stops_the_sound_within_about_a_block(pulse, piper_tts):
    audio = np.concatenate(list(piper_tts.synthesize("One two three four five six seven eight nine ten.")))
    cancel = threading.Event()
    player = Player(AudioConfig(block_ms=20)).start(piper_tts.sample_rate)
    cancelled_at = []
    threading.Timer(0.6, lambda: (cancelled_at.append(time.perf_counter_ns()), cancel.set())).start()
    assert not player.play(audio, piper_tts.sample_rate, cancel)
    returned = time.perf_counter_ns()
    time.sleep(0.3)
    player.close()
    assert (returned - cancelled_at[0]) / 1e6 < 40  # play() noticed within two blocks
    after = pulse.speaker.between(cancelled_at[0] + 80_000_000)  # a block + recording latency later
    assert len(after) > RECORD_RATE // 10 and rms(after) < SILENT_RMS
    played_s = player.last.played / piper_tts.sample_rate
    assert abs(played_s - (cancelled_at[0] - player.first_sample_ns) / 1e9) < 0.1


def test_player_reports_a_device_that_dies_mid_play_and_recovers(pulse):
    tone = np.full(22050 * 3, 0.3, np.float32)
    player = Player(AudioConfig())
    restart = threading.Thread(target=lambda: (time.sleep(0.3), pulse.restart()))
    restart.start()
    with pytest.raises(AudioDeviceError, match="output device 'default' failed during playback"):
        player.play(tone, 22050)
    restart.join()
    assert player.play(tone[:2205], 22050)  # reopened on the new server
    pulse.restart()  # now while the stream runs silent between pieces
    start = time.perf_counter_ns()
    assert player.play(tone[:22050], 22050)  # reopened again
    player.close()
    assert rms(pulse.speaker.since(start)) > 0.1


def test_player_plays_on_through_a_server_starved_of_cpu(pulse):
    """A sound server that stops for longer than STALL_S (SIGSTOP here; three busy loops on two cores
    did it in the barge-in bench) starves the callback, but the device is still there: the piece
    plays to its end instead of failing as a vanished device."""
    tone = np.full(22050 * 3, 0.3, np.float32)
    player = Player(AudioConfig()).start(22050)
    start = time.perf_counter_ns()

    def starve() -> None:
        time.sleep(0.8)
        os.kill(pulse.pid, signal.SIGSTOP)
        time.sleep(STALL_S + 0.5)
        os.kill(pulse.pid, signal.SIGCONT)

    stopper = threading.Thread(target=starve)
    stopper.start()
    try:
        assert player.play(tone, 22050)
    finally:
        os.kill(pulse.pid, signal.SIGCONT)
        stopper.join()
        player.close()
    assert player.stall_restarts >= 1  # the stall happened and was taken for one
    heard = pulse.speaker.since(start)
    assert sound_span_s(heard) > 2.5  # the tone went on after the stall (the stop itself is not recorded)


# --- capture -------------------------------------------------------------------------------------


def test_resampler_keeps_pitch_and_gives_evenly_spaced_frames():
    rate, block = 44_100, 882
    tone = np.sin(2 * np.pi * 1000 * np.arange(rate) / rate).astype(np.float32)
    resampler = Resampler16k(rate, frame=320)
    frames = [
        f for i in range(0, rate, block) for f in resampler.push(tone[i : i + block], i * 10**9 // rate)
    ]
    out = np.concatenate([f for f, _ in frames])
    assert all(len(f) == 320 for f, _ in frames) and len(out) > 0.9 * CAPTURE_RATE
    spectrum = np.abs(np.fft.rfft(out[1000:9000]))
    assert abs(np.argmax(spectrum) * CAPTURE_RATE / 8000 - 1000) <= 2  # no clicks moved the peak
    steps = np.diff([t for _, t in frames])
    assert np.all(np.abs(steps - 20_000_000) <= 1)


@pytest.mark.parametrize("rate", [44_100, 48_000])
def test_resampler_holds_nothing_back_and_keeps_out_what_would_fold_into_speech(rate):
    """Every sample pushed is out after its block (soxr's "LQ" held 11 ms back on average), a 3 kHz
    tone passes unchanged and a 10 kHz one, which would fold to 6 kHz, is kept out."""
    t = np.arange(rate) / rate
    levels = {}
    for hz in (3000, 10000):
        tone = (0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32)
        resampler, out = Resampler16k(rate, frame=160), []
        for i in range(0, rate, rate // 100):
            out += [f for f, _ in resampler.push(tone[i : i + rate // 100], 0)]
            assert resampler.held_back() == 0
        levels[hz] = 20 * np.log10(rms(np.concatenate(out)[1600:]) / rms(tone))
    assert abs(levels[3000]) < 0.5 and levels[10000] < -60


def test_capture_hears_the_virtual_microphone_at_16k(pulse, espeak_wav):
    wav = espeak_wav("Testing the microphone, one two three.")
    frames: list[tuple[np.ndarray, int]] = []
    with Capture(AudioConfig(input_device="pulse", capture_block_ms=20), lambda f, t: frames.append((f, t))):
        time.sleep(0.2)
        played_at = time.perf_counter_ns()
        pulse.play_into_mic(wav)
        time.sleep(0.2)
    audio = np.concatenate([f for f, _ in frames])
    times = np.array([t for _, t in frames])
    assert all(len(f) == CAPTURE_RATE // 50 and f.dtype == np.float32 for f, _ in frames)
    assert np.all(np.diff(times) > 0)
    speech = np.concatenate([f for f, t in frames if t >= played_at])
    assert rms(speech) > 0.02 and rms(audio[: CAPTURE_RATE // 10]) < SILENT_RMS
    assert 1.5 < sound_span_s(speech) < 3.5  # espeak says it in about 2.3 s
    assert 0 < (time.perf_counter_ns() - times[-1]) / 1e9 < 0.5  # timestamps are on our clock


def test_loopback_lets_the_microphone_hear_the_speaker(pulse):
    tone = np.full(22050, 0.4, np.float32) * np.sin(2 * np.pi * 300 * np.arange(22050) / 22050)
    levels = []
    for volume in (0.5, None):
        pulse.loopback(volume is not None, volume or 1.0)
        frames: list[tuple[np.ndarray, int]] = []
        with (
            Capture(AudioConfig(), lambda f, t, frames=frames: frames.append((f, t))),
            Player(AudioConfig()) as player,
        ):
            time.sleep(0.1)
            player.play(tone, 22050)
        levels.append(rms(np.concatenate([f for f, t in frames if t > player.first_sample_ns])))
        if volume:  # capture and playback timestamps share one clock: the echo follows the sound
            onset = next(t for f, t in frames if rms(f) > 0.05)
            assert -0.05 < (onset - player.first_sample_ns) / 1e9 < 0.2
    assert levels[0] == pytest.approx(0.5 * rms(tone), rel=0.3)  # about -6 dB (0.5 linear) of what played
    assert levels[1] < SILENT_RMS


def test_capture_reopens_after_the_server_dies(pulse, caplog):
    errors: list[str] = []
    frames: list[int] = []
    cfg = AudioConfig(reopen_initial_s=0.2, reopen_max_s=0.4)
    with caplog.at_level(logging.WARNING, logger="assistant.audio.devices"):
        with Capture(cfg, lambda f, t: frames.append(t), on_error=errors.append) as capture:
            time.sleep(0.3)
            pulse.restart()
            _wait_for(lambda: capture.reopens >= 1, timeout=10)
            resumed = len(frames)
            time.sleep(0.3)
            assert len(frames) > resumed + 5  # frames flow again
    assert errors and "retrying in 0.2 s" in errors[0]
    assert "is back, at" in caplog.records[-1].getMessage()  # said only at debug level before


def test_capture_backs_off_exponentially_while_the_device_cannot_open(monkeypatch, caplog):
    errors: list[str] = []
    caplog.set_level(logging.WARNING, logger="assistant.audio.devices")

    def refuse(self):
        raise AudioDeviceError("cannot open input device 'x': gone")

    monkeypatch.setattr(Capture, "_open", refuse)
    monkeypatch.setattr("assistant.audio.devices.resolve_device", lambda spec, kind: None)
    capture = Capture(AudioConfig(reopen_initial_s=0.01, reopen_max_s=0.04), print, on_error=errors.append)
    capture.start()
    _wait_for(lambda: len(errors) >= 5, timeout=2)
    capture.stop()
    delays = [e.rsplit("retrying in ", 1)[1] for e in errors[:5]]
    assert delays == ["0.01 s", "0.02 s", "0.04 s", "0.04 s", "0.04 s"]
    # `assistant run` without a microphone warned every 8 s for as long as it ran; now once
    assert [r.getMessage() for r in caplog.records] == [errors[0]]


def _wait_for(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


ALSA_ERROR = """
import ctypes, logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(name)s: %(message)s")
import assistant.audio.devices
pcm = ctypes.c_void_p()
assert ctypes.CDLL("libasound.so.2").snd_pcm_open(ctypes.byref(pcm), b"no_such_pcm", 0, 0) < 0
"""


def test_alsa_lib_lines_go_to_the_debug_log_not_across_the_terminal():
    """ "ALSA lib pcm.c:8570:(snd_pcm_recover) underrun occurred" stood among `assistant run`'s lines."""
    done = subprocess.run([sys.executable, "-c", ALSA_ERROR], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "ALSA lib" not in done.stderr
    assert "assistant.audio.devices: ALSA snd_pcm_open_noupdate (pcm.c:" in done.stdout
