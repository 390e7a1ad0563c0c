"""Voice activity detection and endpointing: webrtcvad decisions → utterances, streamed.

Audio comes in as mono float32 blocks of any length, each stamped with the monotonic time
(`time.perf_counter_ns()` domain) of its first sample. The `Endpointer` cuts the stream into webrtcvad
frames (the remainder waits for the next block), asks webrtcvad about each frame, smooths the raw
decisions over a short window, and drives a small state machine:

    SILENCE ──(window mostly voiced)──▶ MAYBE ──(min_speech_ms voiced)──▶ SPEECH
       ▲                                  │                                  │
       ├──(a whole window unvoiced: blip)─┘                                  │
       └───────(end_silence_ms after the last voiced frame, or max_utterance_s)┘

Events, in the order the recognizer needs them while the user is still talking:
    SpeechStart   once speech is confirmed: onset time + pre-roll + every frame so far
    SpeechAudio   each later frame, trailing silence included, up to the endpoint
    SpeechEnd     end of the last voiced frame, the endpoint time, and why it fired
The audio of one utterance (SpeechStart.audio, then each SpeechAudio) is gapless and ends at the
endpoint. Every time is derived from the t_ns of the block plus sample offsets, never a wall clock.

While the assistant speaks, `set_gate(threshold_db)` + `set_reference_level(db)` make a frame count as
voiced only when it is `threshold_db` louder than the echo estimate (barge-in's fallback when no echo
canceller runs).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Literal

# The C extension shipped by both `webrtcvad` and `webrtcvad-wheels`. We call it directly because the
# `webrtcvad` 2.0.10 wrapper imports pkg_resources, which setuptools ≥ 81 no longer provides.
import _webrtcvad
import numpy as np

from assistant.config import VadConfig

SAMPLE_RATE = 16000  # Hz, the rate the recognizer listens at
WEBRTC_RATES = (8000, 16000, 32000, 48000)  # Hz, the rates webrtcvad accepts
NS_PER_S = 1_000_000_000  # ns per second
SMOOTH_MS = 100  # ms of raw decisions in the smoothing window (at least 3 frames)
INT16_MAX = 32767  # float [-1, 1] → 16-bit PCM for webrtcvad
SILENCE_DB = -120.0  # dBFS reported for digital silence
FLOOR_TAU_MS = 250  # ms, time constant of the noise-floor average over unvoiced frames
FLOOR_MARGIN_DB = 6.0  # dB above the noise floor that a frame needs to count as sound
# Frames webrtcvad keeps saying "speech" after a long run ends (kOverHangMax2 in WebRTC's vad_core.c),
# by frame_ms, indexed by aggressiveness: 140 ms for modes 0-1, 90-100 ms for modes 2-3.
HANGOVER_FRAMES = {10: (14, 14, 9, 9), 20: (7, 7, 5, 5), 30: (5, 5, 3, 3)}


class State(Enum):
    SILENCE = "silence"
    MAYBE = "maybe"  # voiced, not yet long enough to be speech
    SPEECH = "speech"


# Mic-side messages: they survive an interruption (the lead may move them into frames.py).
@dataclass(frozen=True, eq=False)
class SpeechStart:
    """Speech confirmed. `t_ns`: start of the first voiced frame (the onset). `audio`: float32 pre-roll
    plus every frame up to the confirming one, its first sample at `audio_t_ns` (≤ `t_ns`)."""

    t_ns: int
    audio: np.ndarray
    audio_t_ns: int


@dataclass(frozen=True, eq=False)
class SpeechAudio:
    """One more frame of the current utterance: float32 `samples`, the first at `t_ns`."""

    samples: np.ndarray
    t_ns: int


@dataclass(frozen=True)
class SpeechEnd:
    """The utterance is over. `t_ns_speech_end`: end of the last voiced frame; `t_ns_endpoint`: end of
    the frame that fired the endpoint (= end of the last audio sent); `reason`: what fired it."""

    t_ns_speech_end: int
    t_ns_endpoint: int
    reason: Literal["silence", "max_length"]


VadEvent = SpeechStart | SpeechAudio | SpeechEnd


@dataclass(frozen=True)
class _Frame:
    samples: np.ndarray  # (frame_len,) float32
    t_ns: int  # first sample
    end_ns: int  # one past the last sample
    db: float  # RMS level, dBFS
    voiced: bool  # webrtcvad's decision, after the energy gate


def level_db(samples: np.ndarray) -> float:
    """RMS level in dBFS (a full-scale square wave is 0 dB); `SILENCE_DB` for digital silence."""
    x = np.asarray(samples, dtype=np.float64)
    rms = math.sqrt(float(np.mean(x * x))) if x.size else 0.0
    return 20.0 * math.log10(rms) if rms > 10 ** (SILENCE_DB / 20) else SILENCE_DB


def passes_energy_gate(frame_db: float, reference_db: float | None, threshold_db: float | None) -> bool:
    """True when the gate is off (no threshold or no reference) or the frame is `threshold_db` above
    the reference: passes_energy_gate(-20, -35, 10) → True; passes_energy_gate(-30, -35, 10) → False."""
    if threshold_db is None or reference_db is None:
        return True
    return frame_db >= reference_db + threshold_db


def to_pcm16(samples: np.ndarray) -> bytes:
    """float32 in [-1, 1] → little-endian 16-bit PCM bytes, clipped."""
    return np.rint(np.clip(samples, -1.0, 1.0) * INT16_MAX).astype("<i2").tobytes()


class Endpointer:
    """Streaming webrtcvad + endpointing. `build()` before `accept()`; one instance per audio stream."""

    def __init__(self, cfg: VadConfig, sample_rate: int = SAMPLE_RATE):
        if sample_rate not in WEBRTC_RATES:
            raise ValueError(f"webrtcvad needs a sample rate in {WEBRTC_RATES} Hz, got {sample_rate}")
        self.cfg = cfg
        self.sample_rate = sample_rate
        self.frame_len = sample_rate * cfg.frame_ms // 1000  # samples per webrtcvad frame
        self.window_frames = max(3, round(SMOOTH_MS / cfg.frame_ms))
        self.preroll_frames = math.ceil(cfg.preroll_ms / cfg.frame_ms)
        self._end_silence_ns = cfg.end_silence_ms * 1_000_000
        self._max_ns = round(cfg.max_utterance_s * NS_PER_S)
        self._vad = None
        self._gate_db: float | None = None
        self._reference_db: float | None = None
        self._rest = np.zeros(0, dtype=np.float32)
        self._clear_utterance()

    def build(self) -> Endpointer:
        """Create the webrtcvad instance (and forget any earlier stream)."""
        self._vad = _webrtcvad.create()
        _webrtcvad.init(self._vad)
        _webrtcvad.set_mode(self._vad, self.cfg.aggressiveness)
        self._rest = np.zeros(0, dtype=np.float32)
        self._clear_utterance()
        return self

    def reset(self) -> None:
        """Drop the partial frame, any utterance in progress and webrtcvad's adaptation; keep the gate."""
        self.build()

    @property
    def state(self) -> State:
        return self._state

    # --- barge-in fallback: the energy gate -------------------------------------------------------
    def set_gate(self, threshold_db: float | None) -> None:
        """While the assistant speaks: a frame is voiced only `threshold_db` above the reference.
        None turns the gate off (nothing playing)."""
        self._gate_db = threshold_db

    def set_reference_level(self, db: float | None) -> None:
        """The echo estimate in dBFS (e.g. `level_db` of the playback reference), updated by the caller."""
        self._reference_db = db

    # --- streaming ---------------------------------------------------------------------------------
    def accept(self, samples: np.ndarray, t_ns: int) -> list[VadEvent]:
        """Feed mono float32 samples whose first sample was captured at monotonic `t_ns`."""
        if self._vad is None:
            raise RuntimeError("Endpointer.accept() before build()")
        x = np.asarray(samples, dtype=np.float32)
        if x.ndim != 1:
            raise ValueError(f"expected mono samples of shape (n,), got {x.shape}")
        buf = np.concatenate([self._rest, x])
        first = -len(self._rest)  # offset of buf[0] relative to the sample stamped t_ns
        n = len(buf) // self.frame_len * self.frame_len
        events: list[VadEvent] = []
        for start in range(0, n, self.frame_len):
            frame = buf[start : start + self.frame_len]
            events += self._step(self._frame(frame, t_ns + self._ns(first + start)))
        self._rest = buf[n:].copy()
        return events

    def _ns(self, n_samples: int) -> int:
        return n_samples * NS_PER_S // self.sample_rate

    def _frame(self, samples: np.ndarray, t_ns: int) -> _Frame:
        voiced = _webrtcvad.process(self._vad, self.sample_rate, to_pcm16(samples), self.frame_len)
        if voiced and self._gate_db is not None:
            voiced = passes_energy_gate(level_db(samples), self._reference_db, self._gate_db)
        return _Frame(samples.copy(), t_ns, t_ns + self._ns(self.frame_len), bool(voiced))

    def _step(self, frame: _Frame) -> list[VadEvent]:
        self._window.append(frame.voiced)
        if self._state is State.SILENCE:
            return self._in_silence(frame)
        if self._state is State.MAYBE:
            return self._in_maybe(frame)
        return self._in_speech(frame)

    def _smoothed(self) -> bool:
        """At least half of the smoothing window is voiced (a missing frame counts as unvoiced)."""
        return 2 * sum(self._window) >= self.window_frames

    def _clear_utterance(self) -> None:
        self._state = State.SILENCE
        self._window: deque[bool] = deque(maxlen=self.window_frames)
        # Unsent frames: enough for the pre-roll before an onset that lies anywhere in the window.
        self._recent: deque[_Frame] = deque(maxlen=self.preroll_frames + self.window_frames)
        self._pending: list[_Frame] = []  # MAYBE: the frames from the onset on
        self._onset_ns = 0
        self._voiced_ms = 0
        self._last_voiced_end = 0

    # --- the state machine -------------------------------------------------------------------------
    def _in_silence(self, frame: _Frame) -> list[VadEvent]:
        self._recent.append(frame)
        if not (frame.voiced and self._smoothed()):
            return []
        recent = list(self._recent)
        tail = len(recent) - min(len(recent), self.window_frames)
        onset = next(i for i in range(tail, len(recent)) if recent[i].voiced)
        self._pending = recent[onset:]
        self._recent = deque(recent[max(0, onset - self.preroll_frames) : onset], maxlen=self._recent.maxlen)
        self._onset_ns = self._pending[0].t_ns
        self._voiced_ms = self.cfg.frame_ms * sum(f.voiced for f in self._pending)
        self._last_voiced_end = frame.end_ns
        self._state = State.MAYBE
        return self._confirm_if_long_enough(frame)

    def _in_maybe(self, frame: _Frame) -> list[VadEvent]:
        self._pending.append(frame)
        if frame.voiced and self._smoothed():
            self._voiced_ms += self.cfg.frame_ms
            self._last_voiced_end = frame.end_ns
        elif not any(self._window):  # a whole window without voice: it was a blip (a cough, a click)
            self._recent.extend(self._pending)
            self._pending = []
            self._state = State.SILENCE
            return []
        return self._confirm_if_long_enough(frame)

    def _confirm_if_long_enough(self, frame: _Frame) -> list[VadEvent]:
        if self._voiced_ms < self.cfg.min_speech_ms:
            return []
        frames = [*self._recent, *self._pending]
        start = SpeechStart(self._onset_ns, np.concatenate([f.samples for f in frames]), frames[0].t_ns)
        self._recent.clear()
        self._pending = []
        self._state = State.SPEECH
        return [start, *self._check_end(frame)]

    def _in_speech(self, frame: _Frame) -> list[VadEvent]:
        if frame.voiced and self._smoothed():
            self._last_voiced_end = frame.end_ns
        return [SpeechAudio(frame.samples, frame.t_ns), *self._check_end(frame)]

    def _check_end(self, frame: _Frame) -> list[VadEvent]:
        if frame.end_ns - self._onset_ns >= self._max_ns:
            reason = "max_length"
        elif frame.end_ns - self._last_voiced_end >= self._end_silence_ns:
            reason = "silence"
        else:
            return []
        end = SpeechEnd(self._last_voiced_end, frame.end_ns, reason)
        self._clear_utterance()
        return [end]
