"""16-bit PCM ↔ float32 samples: the one conversion between the pipeline's samples (float32 in
[-1, 1]) and the int16 that webrtcvad, the echo cancellers, piper and some recordings speak.

The scale is soundfile's (libsndfile's): int16 / 32768 on reading. So a headerless .raw file, a
G.722 decode or piper's int16 reads exactly as the same samples in a WAV or FLAC file would, the
training data included, and int16 → float → int16 gives back every value.
"""

from __future__ import annotations

import numpy as np

PCM16_SCALE = 32768  # float 1.0 ↔ int16 32768 (clipped to 32767)
PCM16_MIN, PCM16_MAX = -32768, 32767


def to_pcm16(samples: np.ndarray) -> np.ndarray:
    """float samples in [-1, 1] → int16 of the same shape, rounded to the nearest step and clipped."""
    scaled = np.rint(np.asarray(samples, dtype=np.float64) * PCM16_SCALE)
    return np.clip(scaled, PCM16_MIN, PCM16_MAX).astype(np.int16)


def from_pcm16(samples: np.ndarray) -> np.ndarray:
    """int16 samples → float32 of the same shape, in [-1, 1)."""
    return np.asarray(samples, dtype=np.float32) / np.float32(PCM16_SCALE)
