import os
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from assistant.audio.files import AudioFileError, read_audio, write_wav


def _tone(rate: int, seconds: float, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def _peak_hz(x: np.ndarray, rate: int = 16000) -> float:
    spectrum = np.abs(np.fft.rfft(x))
    return np.fft.rfftfreq(len(x), 1 / rate)[spectrum.argmax()]


def test_stereo_44k_wav_becomes_mono_16k(tmp_path):
    tone = _tone(44100, 1.0)
    path = tmp_path / "stereo.wav"
    sf.write(path, np.stack([tone, tone], axis=1), 44100, subtype="PCM_16")
    x = read_audio(path)
    assert x.dtype == np.float32 and x.ndim == 1 and len(x) == 16000
    assert abs(_peak_hz(x) - 440) < 2
    assert 0.45 < np.abs(x[1000:-1000]).max() < 0.55


def test_flac_8k_is_upsampled(tmp_path):
    path = tmp_path / "tone.flac"
    sf.write(path, _tone(8000, 0.5), 8000)
    x = read_audio(path)
    assert len(x) == 8000 and abs(_peak_hz(x) - 440) < 3


def test_write_then_read_roundtrip(tmp_path):
    tone = _tone(16000, 0.25)
    write_wav(tmp_path / "a" / "b.wav", tone)
    np.testing.assert_allclose(read_audio(tmp_path / "a" / "b.wav"), tone, atol=1e-4)


def test_garbage_file_is_one_clear_line(tmp_path):
    path = tmp_path / "notes.wav"
    path.write_bytes(b"this is not audio at all" * 10)
    with pytest.raises(AudioFileError) as e:
        read_audio(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)
    assert "fix: convert it to WAV" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_empty_and_missing_files(tmp_path):
    empty = tmp_path / "empty.wav"
    sf.write(empty, np.zeros(0, np.float32), 16000)
    with pytest.raises(AudioFileError, match="no samples"):
        read_audio(empty)
    with pytest.raises(AudioFileError, match="not found"):
        read_audio(tmp_path / "missing.wav")
    with pytest.raises(AudioFileError, match="is a folder, not an audio file"):
        read_audio(tmp_path)  # said "not found" of a folder that is there


@pytest.mark.parametrize(("fmt", "subtype"), [("OGG", "VORBIS"), ("OGG", "OPUS"), ("MP3", "MPEG_LAYER_III")])
def test_compressed_files_are_read_too(tmp_path, fmt, subtype):
    """The help said WAV/FLAC; the soundfile wheel's libsndfile reads these as well (a phone's memo)."""
    tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(48000) / 48000)).astype(np.float32)
    path = tmp_path / f"memo.{subtype.lower()}"
    sf.write(path, tone, 48000, format=fmt, subtype=subtype)
    x = read_audio(path)
    assert abs(len(x) - 16000) < 1600 and 0.15 < np.sqrt(np.mean(x**2)) < 0.3  # 1 s of the tone at 16 kHz


def test_a_file_whose_name_is_not_utf8_is_read(tmp_path):
    """libsndfile takes a name as UTF-8: a Latin-1 "é" in it was "cannot read audio" of a file there."""
    tone = (0.3 * np.sin(np.arange(1600) / 5)).astype(np.float32)
    path = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.wav"))  # as the file system hands it over
    write_wav(tmp_path / "plain.wav", tone)
    (tmp_path / "plain.wav").rename(path)
    np.testing.assert_allclose(read_audio(path), tone, atol=1e-4)
