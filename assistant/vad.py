"""Voice activity detection and endpointing: webrtcvad decisions → utterances, streamed.

Audio comes in as mono float32 blocks of any length, each stamped with the monotonic time
(`time.perf_counter_ns()` domain) of its first sample. The `Endpointer` cuts the stream into webrtcvad
frames (the remainder waits for the next block), asks webrtcvad about each frame, smooths the raw
decisions over a short window, and drives a small state machine:

    SILENCE ──(window mostly voiced)──▶ MAYBE ──(min_speech_ms voiced, min_pitched_ms of them
       ▲                                  │           pitched)──▶ SPEECH
       ├──(a whole window unvoiced: blip; │                         │
       │   or max_utterance_s unpitched)──┘                         │
       └──────────(end_silence_ms after the speech end, or max_utterance_s)┘

webrtcvad calls a cough, a clap or a door voice as readily as a word; a voice has a pitch and they
have none (`PitchDetector`), so an utterance needs `min_pitched_ms` of pitched frames besides its
`min_speech_ms` of voiced ones. Whispers have no pitch either: `min_pitched_ms = 0` hears them.

Events, in the order the recognizer needs them while the user is still talking:
    SpeechStart   once speech is confirmed: onset time + pre-roll + every frame so far (the pre-roll
                  counted back from a blip that ended within end_silence_ms before the onset)
    SpeechAudio   each later frame, trailing silence included, up to the endpoint
    SpeechEnd     the speech end, the endpoint time, and why it fired
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

import numpy as np

# From `webrtcvad-wheels`: the same module as `webrtcvad`, prebuilt, without the pkg_resources import
# that breaks the original 2.0.10 wrapper on current setuptools.
import webrtcvad
from scipy.signal import butter, sosfilt

from assistant.audio.pcm import to_pcm16
from assistant.config import VadConfig

SAMPLE_RATE = 16000  # Hz, the rate the recognizer listens at
WEBRTC_RATES = (8000, 16000, 32000, 48000)  # Hz, the rates webrtcvad accepts
NS_PER_S = 1_000_000_000  # ns per second
SMOOTH_MS = 100  # ms of raw decisions in the smoothing window (at least 3 frames)
SILENCE_DB = -120.0  # dBFS reported for digital silence
FLOOR_TAU_MS = 250  # ms, time constant of the noise-floor average (of unvoiced frames between utterances)
FLOOR_MARGIN_DB = 3.0  # dB above the noise floor that a frame needs to count as sound
# A frame below this never counts as sound, whatever the floor: over digital silence (a virtual or
# muted device) the floor sits at SILENCE_DB and every filter's decaying tail (the echo canceller's
# high-pass: -56 → -98 dBFS over 150 ms) would otherwise stretch the speech end by up to 190 ms.
SOUND_MIN_DB = -60.0
# A frame below this is never voiced. webrtcvad's hangover (below) goes on calling frames "speech"
# when they are exact zeros: measured on the tests' virtual mic, runs of up to 6 voiced frames at
# -120 dBFS after each question, ~40 per 100 s; and with the echo canceller off, an utterance once
# started in the digital silence right after an answer's echo. Speech is 30-50 dB louder than this.
VOICE_MIN_DB = -70.0
# Frames webrtcvad keeps saying "speech" after a long run ends (kOverHangMax2 in WebRTC's vad_core.c),
# by frame_ms, indexed by aggressiveness: 140 ms for modes 0-1, 90-100 ms for modes 2-3.
HANGOVER_FRAMES = {10: (14, 14, 9, 9), 20: (7, 7, 5, 5), 30: (5, 5, 3, 3)}
# A frame is pitched when the normalized autocorrelation (NCCF) of the last PITCH_WINDOW_MS, low-passed
# at PITCH_LOWPASS_HZ (a voice's lower harmonics lie below it; hiss and broadband noise mostly above),
# peaks at PITCHED_NCCF or more at a lag of a voice's pitch (PITCH_HZ). `scripts/bench_vad.py
# --pitch-only` (2026-12-07): of 60 cough-like bursts (300-500 ms) none is an utterance, clean or in
# noise, against 60 without the check; every short word and ALSA recording webrtcvad makes an
# utterance of still is one. A 1 kHz low-pass let a burst pitch for 40 ms now and then, and one
# cough in 20 cut an answer in the barge-in bench.
PITCH_WINDOW_MS = 40  # two periods of the lowest pitch
PITCH_LOWPASS_HZ = 2000
PITCH_HZ = (70, 500)
PITCHED_NCCF = 0.5


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
    """One more frame of the current utterance: float32 `samples`, the first at `t_ns`;
    `speech_end_ns`: where the speech stopped as heard so far (the SpeechEnd's t_ns_speech_end,
    unless the user goes on)."""

    samples: np.ndarray
    t_ns: int
    speech_end_ns: int


@dataclass(frozen=True)
class SpeechEnd:
    """The utterance is over. `t_ns_speech_end`: where the speech stopped (the last voiced frame, with
    webrtcvad's hangover removed); `t_ns_endpoint`: end of the frame that fired the endpoint (= end of
    the last audio sent); `reason`: what fired it."""

    t_ns_speech_end: int
    t_ns_endpoint: int
    reason: Literal["silence", "max_length", "input_lost"]


VadEvent = SpeechStart | SpeechAudio | SpeechEnd


@dataclass(frozen=True)
class _Frame:
    samples: np.ndarray  # (frame_len,) float32: what the recognizer gets
    t_ns: int  # first sample
    end_ns: int  # one past the last sample
    db: float  # RMS level of the samples endpointed (not `samples` where they differ), dBFS
    voiced: bool  # webrtcvad's decision, after the energy gate
    pitched: bool  # voiced and `PitchDetector.pitched`: a voice, not a cough or a clap


def level_db(samples: np.ndarray) -> float:
    """RMS level in dBFS (a full-scale square wave is 0 dB); `SILENCE_DB` for digital silence."""
    x = np.asarray(samples, dtype=np.float64)
    rms = math.sqrt(float(np.mean(x * x))) if x.size else 0.0
    return 20.0 * math.log10(rms) if rms > 10 ** (SILENCE_DB / 20) else SILENCE_DB


class PitchDetector:
    """Whether the audio ending with each frame has a voice's pitch (see PITCHED_NCCF): stateful,
    one per stream; every frame goes through `low_pass`, only voiced ones are judged."""

    def __init__(self, sample_rate: int) -> None:
        self._sos = butter(4, PITCH_LOWPASS_HZ, fs=sample_rate, output="sos")
        self._zi = np.zeros((len(self._sos), 2))  # the filter's state: silence before the stream
        self._window = np.zeros(sample_rate * PITCH_WINDOW_MS // 1000)  # (W,) low-passed, newest last
        self._lags = np.arange(sample_rate // PITCH_HZ[1], sample_rate // PITCH_HZ[0] + 1)  # (L,)
        self._n_fft = 1 << (2 * len(self._window) - 1).bit_length()  # no circular wrap of the lags

    def low_pass(self, samples: np.ndarray) -> None:
        """Take a frame into the window (kept filtered, so the filter never restarts mid-stream)."""
        y, self._zi = sosfilt(self._sos, np.asarray(samples, dtype=np.float64), zi=self._zi)
        w = len(self._window)
        self._window = np.concatenate([self._window, y])[-w:]

    def pitched(self) -> bool:
        """NCCF(lag) = Σ x[n] x[n+lag] / √(Σ x[n]² · Σ x[n+lag]²) over the window, at its best lag."""
        x = self._window - self._window.mean()  # (W,)
        w, lags = len(x), self._lags
        spectrum = np.fft.rfft(x, self._n_fft)
        r = np.fft.irfft(spectrum * np.conj(spectrum), self._n_fft)[lags]  # (L,) Σ x[n] x[n+lag]
        energy = np.concatenate([[0.0], np.cumsum(x * x)])  # (W+1,) energy[k] = Σ_{n<k} x[n]²
        head, tail = energy[w - lags], energy[w] - energy[lags]  # the two overlapping parts' energies
        nccf = r / np.sqrt(np.maximum(head * tail, 1e-20))
        return bool(nccf.max() >= PITCHED_NCCF)


def passes_energy_gate(frame_db: float, reference_db: float | None, threshold_db: float | None) -> bool:
    """True when the gate is off (no threshold or no reference) or the frame is `threshold_db` above
    the reference: passes_energy_gate(-20, -35, 10) → True; passes_energy_gate(-30, -35, 10) → False."""
    if threshold_db is None or reference_db is None:
        return True
    return frame_db >= reference_db + threshold_db


def pcm16_bytes(samples: np.ndarray) -> bytes:
    """float32 in [-1, 1] → little-endian 16-bit PCM bytes, clipped: what webrtcvad reads."""
    return to_pcm16(samples).astype("<i2", copy=False).tobytes()


class Endpointer:
    """Streaming webrtcvad + endpointing. `build()` before `accept()`; one instance per audio stream.

    Boundaries are refined with a noise floor: the running level of the unvoiced frames between
    utterances; a frame is "sound" when FLOOR_MARGIN_DB above it. The onset is the first voiced frame
    of the window that started the utterance, moved back over at most one window of sound frames (a
    soft "s" that webrtcvad hears late in noise). The speech end is the end of the last voiced frame,
    moved forward to the last sound frame up to one window later (a soft final "s" it misses), or else
    back over the trailing voiced frames that are not sound: webrtcvad's own hangover, at most
    HANGOVER_FRAMES of them. The endpoint fires end_silence_ms after that speech end.
    """

    def __init__(self, cfg: VadConfig, sample_rate: int = SAMPLE_RATE):
        if sample_rate not in WEBRTC_RATES:
            raise ValueError(f"webrtcvad needs a sample rate in {WEBRTC_RATES} Hz, got {sample_rate}")
        self.cfg = cfg
        self.sample_rate = sample_rate
        self.frame_len = sample_rate * cfg.frame_ms // 1000  # samples per webrtcvad frame
        self.window_frames = max(3, round(SMOOTH_MS / cfg.frame_ms))
        self.preroll_frames = math.ceil(cfg.preroll_ms / cfg.frame_ms)
        self.hangover_frames = HANGOVER_FRAMES[cfg.frame_ms][cfg.aggressiveness]
        self._frame_ns = self._ns(self.frame_len)
        self._window_ns = self.window_frames * self._frame_ns
        self._end_silence_ns = cfg.end_silence_ms * 1_000_000
        self._max_ns = round(cfg.max_utterance_s * NS_PER_S)
        self._floor_alpha = min(1.0, cfg.frame_ms / FLOOR_TAU_MS)
        self._vad = None
        self._pitch = PitchDetector(sample_rate)
        self._gate_db: float | None = None
        self._reference_db: float | None = None
        self._preroll_frames = self.preroll_frames  # `set_preroll`
        self._reset_stream()

    def build(self) -> Endpointer:
        """Create the webrtcvad instance (and forget any earlier stream)."""
        self._vad = webrtcvad.Vad(self.cfg.aggressiveness)
        self._pitch = PitchDetector(self.sample_rate)
        self._reset_stream()
        return self

    def reset(self) -> None:
        """Drop the partial frame, any utterance in progress, the noise floor and webrtcvad's
        adaptation; the gate settings stay."""
        self.build()

    @property
    def state(self) -> State:
        return self._state

    @property
    def voiced_until_ns(self) -> int:
        """End of the last voiced frame (smoothed, webrtcvad's hangover included) of the utterance in
        progress, from MAYBE on; 0 in SILENCE. Barge-in measures how long talk over an answer lasts."""
        return self._last_voiced_end

    @property
    def recent_voicing(self) -> tuple[bool, ...]:
        """webrtcvad's decisions (after the energy gate) on the frames of the smoothing window, oldest
        first: barge-in holds playback on fewer voiced frames than an onset needs."""
        return tuple(self._window)

    @property
    def noise_floor_db(self) -> float | None:
        """The running level of the unvoiced frames between utterances, dBFS; None before the first."""
        return self._floor_db

    # --- barge-in fallback: the energy gate -------------------------------------------------------
    def set_gate(self, threshold_db: float | None) -> None:
        """While the assistant speaks: a frame is voiced only `threshold_db` above the reference.
        None turns the gate off (nothing playing)."""
        self._gate_db = threshold_db

    def set_preroll(self, ms: int | None) -> None:
        """How much before an onset the utterance carries to the recognizer; None: `preroll_ms`.
        Barge-in asks for more while the gate judges a signal that lags the user's voice."""
        frames = self.preroll_frames if ms is None else math.ceil(ms / self.cfg.frame_ms)
        if frames != self._preroll_frames:
            self._preroll_frames = frames
            self._recent = deque(self._recent, maxlen=self._recent_maxlen)

    @property
    def _recent_maxlen(self) -> int:
        """Unsent frames kept: the pre-roll before an onset anywhere in (or a window before) the window."""
        return self._preroll_frames + 2 * self.window_frames

    @property
    def preroll_ms(self) -> int:
        """The pre-roll in force (`set_preroll`), whole frames."""
        return self._preroll_frames * self.cfg.frame_ms

    def set_reference_level(self, db: float | None) -> None:
        """The echo estimate in dBFS (e.g. `level_db` of the playback reference), updated by the caller."""
        self._reference_db = db

    @property
    def gate_level_db(self) -> float | None:
        """The level in dBFS a frame must reach to count as voiced; None while the gate is off."""
        if self._gate_db is None or self._reference_db is None:
            return None
        return self._reference_db + self._gate_db

    # --- streaming ---------------------------------------------------------------------------------
    def accept(self, samples: np.ndarray, t_ns: int, heard: np.ndarray | None = None) -> list[VadEvent]:
        """Feed mono float32 samples whose first sample was captured at monotonic `t_ns`. `heard`:
        the same stretch as the events should carry it to the recognizer (default: `samples`), where
        another signal keeps the user's voice better than the one endpointed (`BargeIn.heard`)."""
        if self._vad is None:
            raise RuntimeError("Endpointer.accept() before build()")
        x = np.asarray(samples, dtype=np.float32)
        y = x if heard is None else np.asarray(heard, dtype=np.float32)
        if x.ndim != 1 or y.shape != x.shape:
            raise ValueError(f"expected mono samples of shape (n,) heard as such, got {x.shape}, {y.shape}")
        buf, heard_buf = np.concatenate([self._rest, x]), np.concatenate([self._rest_heard, y])
        first = -len(self._rest)  # offset of buf[0] from the sample stamped t_ns
        n = len(buf) // self.frame_len * self.frame_len
        events: list[VadEvent] = []
        for start in range(0, n, self.frame_len):
            span = slice(start, start + self.frame_len)
            events += self._step(self._frame(buf[span], heard_buf[span], t_ns + self._ns(first + start)))
        self._rest, self._rest_heard = buf[n:].copy(), heard_buf[n:].copy()
        return events

    def _ns(self, n_samples: int) -> int:
        return n_samples * NS_PER_S // self.sample_rate

    def _frame(self, samples: np.ndarray, heard: np.ndarray, t_ns: int) -> _Frame:
        db = level_db(samples)
        voiced = self._vad.is_speech(pcm16_bytes(samples), self.sample_rate, self.frame_len)
        voiced = (
            bool(voiced) and db >= VOICE_MIN_DB and passes_energy_gate(db, self._reference_db, self._gate_db)
        )
        pitched = False
        if self.cfg.min_pitched_ms > 0:  # off: no filter to run on every frame
            self._pitch.low_pass(samples)
            pitched = voiced and self._pitch.pitched()
        return _Frame(heard.copy(), t_ns, t_ns + self._frame_ns, db, voiced, pitched)

    def input_lost(self) -> list[VadEvent]:
        """The input stopped (its device failed or vanished): an utterance in progress ends where its
        speech did (reason "input_lost") instead of waiting for audio that may never come; an onset
        not yet confirmed is dropped. The next block starts a fresh stream, its noise floor too."""
        events: list[VadEvent] = []
        if self._state is State.SPEECH:
            events.append(SpeechEnd(self._speech_end(), self._last_end_ns, "input_lost"))
        self._reset_stream()
        return events

    def _step(self, frame: _Frame) -> list[VadEvent]:
        self._last_end_ns = frame.end_ns
        self._window.append(frame.voiced)
        if self._state is State.SILENCE:
            return self._in_silence(frame)
        if self._state is State.MAYBE:
            return self._in_maybe(frame)
        return self._in_speech(frame)

    def _smoothed(self) -> bool:
        """At least half of the smoothing window is voiced (a missing frame counts as unvoiced)."""
        return 2 * sum(self._window) >= self.window_frames

    def _above_floor(self, frame: _Frame) -> bool:
        return self._floor_db is not None and frame.db >= max(self._floor_db + FLOOR_MARGIN_DB, SOUND_MIN_DB)

    def _reset_stream(self) -> None:
        self._rest = self._rest_heard = np.zeros(0, dtype=np.float32)
        self._last_end_ns = 0  # end of the last frame stepped
        self._floor_db: float | None = None
        self._clear_utterance()

    def _clear_utterance(self) -> None:
        self._state = State.SILENCE
        self._window: deque[bool] = deque(maxlen=self.window_frames)
        self._recent: deque[_Frame] = deque(maxlen=self._recent_maxlen)  # unsent frames
        self._pending: list[_Frame] = []  # MAYBE: the frames from the onset on
        # MAYBE: frames before the pre-roll that a blip just before the onset adds (`_reach_back`)
        self._joined: list[_Frame] = []
        # the last blip: its onset, the end of its last voiced frame, and its frames with the pre-roll
        self._blip: tuple[int, int, list[_Frame]] | None = None
        self._tail: deque[_Frame] = deque(maxlen=self.hangover_frames)  # the last voiced frames
        self._onset_ns = 0
        self._voiced_ms = 0
        self._pitched_ms = 0
        self._last_voiced_end = 0
        self._sound_end = 0  # end of the last frame above the floor, within a window after the last voiced

    def _mark_voiced(self, frame: _Frame) -> None:
        self._last_voiced_end = frame.end_ns
        self._sound_end = 0
        self._tail.append(frame)

    def _track(self, frame: _Frame) -> bool:
        """Follow the end of speech through one frame; True when the frame is voiced (smoothed)."""
        if frame.voiced and self._smoothed():
            self._mark_voiced(frame)
            return True
        if frame.end_ns - self._last_voiced_end <= self._window_ns and self._above_floor(frame):
            self._sound_end = frame.end_ns
        return False

    # --- the state machine -------------------------------------------------------------------------
    def _in_silence(self, frame: _Frame) -> list[VadEvent]:
        self._remember(frame)
        if not (frame.voiced and self._smoothed()):
            return []
        recent = list(self._recent)
        onset = self._onset_index(recent)
        first = max(0, onset - self._preroll_frames)
        self._joined = self._reach_back(recent, first, onset)
        self._pending = recent[onset:]
        self._recent = deque(recent[first:onset], maxlen=self._recent.maxlen)
        self._onset_ns = self._pending[0].t_ns
        for f in self._pending:
            if f.voiced:
                self._voiced_ms += self.cfg.frame_ms
                self._pitched_ms += self.cfg.frame_ms * f.pitched
                self._mark_voiced(f)
        self._state = State.MAYBE
        return self._confirm_if_long_enough(frame)

    def _remember(self, frame: _Frame) -> None:
        """Keep an unsent frame for the pre-roll. The noise floor follows the unvoiced frames that leave
        it without becoming part of an utterance (so a soft onset, an "s" before webrtcvad wakes up,
        never raises the floor)."""
        old = self._recent[0] if len(self._recent) == self._recent.maxlen else None
        if old is not None and not old.voiced:
            floor = self._floor_db
            self._floor_db = old.db if floor is None else floor + self._floor_alpha * (old.db - floor)
        self._recent.append(frame)

    def _reach_back(self, recent: list[_Frame], first: int, onset: int) -> list[_Frame]:
        """The frames before `recent[first]` (the pre-roll's start) that the utterance starting at
        `recent[onset]` also carries: where a blip ended within end_silence_ms before this onset, it
        was this speech's start, too short to confirm alone, and the pre-roll counts back from the
        blip's onset instead. "Stop." said over the answer, its first 200 ms held under the echo
        gate, then the question: the question's own pre-roll began inside the word ("op what is
        the capital of spain", README, Barge-in). As far back as the frames kept reach."""
        blip, self._blip = self._blip, None
        if blip is None or recent[onset].t_ns - blip[1] > self._end_silence_ns:
            return []
        blip_onset, _, kept = blip
        span = [f for f in kept if f.t_ns < recent[0].t_ns] + recent[:onset]  # up to the onset, oldest first
        blip_at = next((i for i, f in enumerate(span) if f.t_ns >= blip_onset), 0)
        before_preroll = len(span) - (onset - first)
        return span[max(0, blip_at - self._preroll_frames) : before_preroll]

    def _onset_index(self, recent: list[_Frame]) -> int:
        """The first voiced frame in the window, moved back over at most a window of frames above
        the noise floor."""
        first = len(recent) - min(len(recent), self.window_frames)
        onset = next(i for i in range(first, len(recent)) if recent[i].voiced)
        stop = max(0, onset - self.window_frames)
        while onset > stop and self._above_floor(recent[onset - 1]):
            onset -= 1
        return onset

    def _in_maybe(self, frame: _Frame) -> list[VadEvent]:
        self._pending.append(frame)
        if self._track(frame):
            self._voiced_ms += self.cfg.frame_ms
            self._pitched_ms += self.cfg.frame_ms * frame.pitched
        elif not any(self._window):  # a whole window without voice: it was a blip (a cough, a click)
            return self._drop_blip()
        if frame.end_ns - self._onset_ns >= self._max_ns:
            # as long as an utterance may be and never pitched: a noise, not the start of what follows
            return self._drop_blip(reach_back=False)
        return self._confirm_if_long_enough(frame)

    def _drop_blip(self, reach_back: bool = True) -> list[VadEvent]:
        """What MAYBE held was no utterance: back to SILENCE, its frames kept as a blip that speech
        right after it reaches back over (`_reach_back`), unless `reach_back` is False."""
        frames = [*self._recent, *self._pending]
        self._blip = (self._onset_ns, self._last_voiced_end, frames) if reach_back else None
        self._joined = []
        for f in self._pending:
            self._remember(f)
        self._pending = []
        self._voiced_ms = self._pitched_ms = 0
        self._tail.clear()
        self._sound_end = 0
        self._state = State.SILENCE
        return []

    def _confirm_if_long_enough(self, frame: _Frame) -> list[VadEvent]:
        if self._voiced_ms < self.cfg.min_speech_ms or self._pitched_ms < self.cfg.min_pitched_ms:
            return []
        frames = [*self._joined, *self._recent, *self._pending]
        start = SpeechStart(self._onset_ns, np.concatenate([f.samples for f in frames]), frames[0].t_ns)
        self._recent.clear()
        self._joined = []
        self._pending = []
        self._state = State.SPEECH
        return [start, *self._check_end(frame, self._speech_end())]

    def _in_speech(self, frame: _Frame) -> list[VadEvent]:
        self._track(frame)
        speech_end = self._speech_end()
        return [SpeechAudio(frame.samples, frame.t_ns, speech_end), *self._check_end(frame, speech_end)]

    def _speech_end(self) -> int:
        """End of the last voiced frame, moved forward to the last frame above the floor within a
        window after it (a soft final "s" webrtcvad misses in noise), or else back over the trailing
        voiced frames no louder than the floor (webrtcvad's hangover), at most `hangover_frames`."""
        if self._sound_end:
            return self._sound_end
        end = self._last_voiced_end
        if self._floor_db is None:
            return end
        for f in reversed(self._tail):
            if self._above_floor(f):
                return f.end_ns
            end = f.t_ns
        return max(end, self._last_voiced_end - self.hangover_frames * self._frame_ns)

    def _check_end(self, frame: _Frame, speech_end: int) -> list[VadEvent]:
        if frame.end_ns - self._onset_ns >= self._max_ns:
            reason = "max_length"
        elif frame.end_ns - speech_end >= self._end_silence_ns:
            reason = "silence"
        else:
            return []
        end = SpeechEnd(speech_end, frame.end_ns, reason)
        self._clear_utterance()
        return [end]
