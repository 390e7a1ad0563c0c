"""The one int16 ↔ float32 conversion (assistant/audio/pcm.py) and webrtcvad's bytes made from it."""

from __future__ import annotations

import io

import numpy as np
import soundfile as sf

from assistant.audio.pcm import PCM16_MAX, PCM16_MIN, PCM16_SCALE, from_pcm16, to_pcm16
from assistant.vad import pcm16_bytes


def test_int16_reads_as_soundfile_reads_the_same_samples_from_a_wav_file():
    every = np.arange(PCM16_MIN, PCM16_MAX + 1, dtype=np.int16)
    wav = io.BytesIO()
    sf.write(wav, every, 16000, format="WAV", subtype="PCM_16")
    wav.seek(0)
    np.testing.assert_array_equal(from_pcm16(every), sf.read(wav, dtype="float32")[0])


def test_round_trip_gives_back_every_int16_value():
    every = np.arange(PCM16_MIN, PCM16_MAX + 1, dtype=np.int16)
    back = to_pcm16(from_pcm16(every))
    assert back.dtype == np.int16
    np.testing.assert_array_equal(back, every)


def test_to_pcm16_clips_and_rounds_to_the_nearest_step():
    step = 1 / PCM16_SCALE
    x = np.array([1.0, 1.5, -1.0, -1.5, 0.6 * step, -0.6 * step, 0.4 * step], np.float32)
    # truncation (astype alone) would give 0 for ±0.6 of a step; 1.0 has no int16 of its own
    assert to_pcm16(x).tolist() == [PCM16_MAX, PCM16_MAX, PCM16_MIN, PCM16_MIN, 1, -1, 0]


def test_shapes_and_dtypes_are_kept():
    assert to_pcm16(np.zeros((3, 160), np.float32)).shape == (3, 160)
    wave = from_pcm16(np.full(5, PCM16_MIN, np.int16))
    assert wave.dtype == np.float32 and wave.shape == (5,) and wave[0] == -1.0


def test_webrtcvad_gets_little_endian_pcm16_bytes():
    assert pcm16_bytes(np.array([1 / PCM16_SCALE, -1.0], np.float32)) == b"\x01\x00\x00\x80"
