"""Audio files in and out: whatever WAV/FLAC comes in leaves as mono float32 at 16 kHz."""

from __future__ import annotations

import io
import sys
from math import gcd
from pathlib import Path
from typing import BinaryIO

import numpy as np
import soundfile as sf
from scipy.signal import resample_poly

from assistant.asr.features import SAMPLE_RATE
from assistant.errors import gist


class AudioFileError(ValueError):
    """A file that cannot be used as audio; the message is one line naming the file."""


def to_mono(samples: np.ndarray) -> np.ndarray:
    """(n,) or (n, channels) → (n,) by averaging the channels."""
    return samples if samples.ndim == 1 else samples.mean(axis=1)


def resample(samples: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Polyphase resampling (anti-aliased) from rate to target Hz; float32 out."""
    if rate == target:
        return samples.astype(np.float32, copy=False)
    g = gcd(rate, target)
    return resample_poly(samples, target // g, rate // g).astype(np.float32)


STDIN = "-"  # as a file name: standard input


def read_audio(path: str | Path, rate: int = SAMPLE_RATE) -> np.ndarray:
    """Any file libsndfile reads (WAV, FLAC, Ogg, MP3, ...; any rate, mono or multi-channel) → mono
    float32 samples at `rate` Hz in [-1, 1]. "-" is standard input (`espeak-ng --stdout ... | assistant
    transcribe -`): read to its end first, as libsndfile seeks."""
    if str(path) == STDIN:
        if not (data := sys.stdin.buffer.read()):
            raise AudioFileError("standard input is empty: nothing was piped in")
        return _decoded(io.BytesIO(data), None, rate)
    path = Path(path)
    if path.is_dir():
        raise AudioFileError(f"{path} is a folder, not an audio file")
    if not path.is_file():
        raise AudioFileError(f"audio file not found: {path}")
    # Opened here, not by name: libsndfile takes the name as UTF-8, and a name that is not
    # (a Latin-1 "é" from an old archive) was "cannot read audio" of a file that is there.
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, after decoding
    except OSError as err:
        raise AudioFileError(f"cannot read audio from {path} ({err.strerror})") from None
    with f:
        return _decoded(f, path, rate)


def _decoded(f: BinaryIO, path: Path | None, rate: int) -> np.ndarray:
    """The audio of open file `f` as `read_audio` returns it; `path` names it in errors (None: stdin)."""
    try:
        samples, file_rate = sf.read(f, dtype="float32", always_2d=False)
    except Exception as e:  # noqa: BLE001 - libsndfile reports every unreadable format its own way
        # Its words can mislead ("File does not exist ..." of an MP3 it cannot parse), and they name
        # the file object: name the file once, and the fix.
        reason = gist(e).removeprefix(f"Error opening {f!r}: ").rstrip(".")
        if path is None:
            fix = "fix: pipe in WAV (e.g. ffmpeg -i IN -f wav - | assistant transcribe -)"
        else:
            fix = f"fix: convert it to WAV (e.g. ffmpeg -i {path} {path.with_suffix('.wav')})"
        raise AudioFileError(f"cannot read audio from {path or 'standard input'} ({reason}); {fix}") from e
    if samples.size == 0:
        raise AudioFileError(f"audio file {path or 'on standard input'} contains no samples")
    return resample(to_mono(samples), file_rate, rate)


def write_wav(path: str | Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    """Write float samples in [-1, 1] ((n,) or (n, channels)) as 16-bit PCM WAV."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.clip(np.asarray(samples, dtype=np.float32), -1.0, 1.0), rate, subtype="PCM_16")
