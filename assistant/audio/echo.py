"""Acoustic echo cancellation: the assistant's own voice, taken back out of the microphone.

On laptop speakers the assistant hears itself. The playback side hands every block it is about to
play to `reference(samples, t_ns)`; the capture side passes every mic block through
`process(mic, t_ns)` and gets the cleaned signal, so the assistant's voice neither triggers
barge-in nor reaches the recognizer, while the user's voice still does.

    playback thread ── reference(x, t_ns) ──▶ [reference timeline, lock]
                                                     │ the reference that sounded
                                                     ▼ max(0, delay_ms - LEAD_MS) earlier
    capture thread ─── process(mic, t_ns) ─▶ 10 ms frames ─▶ library(mic frame, ref frame) ─▶ cleaned

Timing contract (both in the `time.perf_counter_ns()` domain):
    reference t_ns  when samples[0] leaves the speaker, or any earlier time (the time it is written
                    is safe). Within one piece stamp blocks by sample count (first stamp + offset),
                    not by when each write returns. From t_ns on this is what plays: a block starting
                    before the end of earlier ones replaces them; an empty block at t_ns says
                    playback stopped there (barge-in: the queued rest never sounds).
    process t_ns    when mic[0] entered the microphone
    delay_ms        a lower bound of how much later than its t_ns a played sample shows up in the
                    mic's timeline: the acoustic path plus whatever device latency the two stamps
                    leave out. With true device times (PortAudio's DAC/ADC times) 0 is right.
Both streams are laid on one sample timeline (index = t_ns at 16 kHz). Consecutive reference
blocks whose stamps disagree with their sample counts by less than RESYNC_MS are taken as contiguous
(callback jitter); a larger jump re-anchors the stream. The mic stream is placed by its sample count
too, and re-anchored only on a jump that lasts (`MicAnchor`): its stamps jitter and drift against
its count while the echo does not move in samples. Each mic frame is paired with the reference from
max(0, delay_ms - LEAD_MS) earlier and the library models the rest of the delay itself (WebRTC AEC3
estimates it: measured fine from 0 to 500 ms more; Speex's filter spans SPEEX_TAIL_MS). An echo can
never be cancelled before its reference, so the error is one-sided: a delay_ms more than LEAD_MS
above the true delay cancels nothing, one below it costs little. The pair goes to the library on the
capture thread, so the library itself is only ever touched by one thread.

`process` returns the cleaned samples of every complete 10 ms frame so far (the remainder waits
for the next call): 10 ms or less of added latency, and output lengths that differ from input
lengths call by call. The "off" mode (`PassThrough`) returns its input as is. `process_both` also
returns the output of a linear filter run on the same frame pairs (`make_linear`, Speex MDF without
its suppressor: `linear_filter`), or None: more echo is left in it, but none of the user's voice is
taken out, which the barge-in onset detector needs (`bargein.OnsetDetector`). That filter has no
delay estimator of its own, so its pairing follows the echo (`DelayTracker`, GCC-PHAT every
TRACK_EVERY_MS): after a reference block that does not follow on from the last (a restarted or
underflowed stream) or a mic re-anchor it rests, and its output is None, until the echo is found
again (TRACK_MIN_WINDOW_MS of audible reference at least, TRACK_GIVE_UP_MS at most); then the echo
sits where it learnt it, and it cancels as before instead of learning the path anew for seconds.

Backends: "webrtc" is WebRTC's audio processing module (AEC3) through the `livekit` package;
"speex" is Xiph's libspeexdsp (echo canceller + residual echo suppressor) through ctypes.
`make_echo_canceller` falls back to `PassThrough` with one warning line when a library does not
load; the pipeline then uses the raised VAD threshold instead (`active` is False). It should keep that
threshold too while `converged` is False: in the first ~2 s of playback after build/reset AEC3 is
still adapting (bench: runs of up to 280 ms of echo webrtcvad calls speech, none afterwards).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading
from typing import Protocol

import numpy as np

from assistant.audio.pcm import from_pcm16, to_pcm16

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000  # Hz, mic and reference
FRAME_MS = 10  # ms per frame, what both libraries process at a time
FRAME = SAMPLE_RATE * FRAME_MS // 1000  # 160 samples per frame
NS_PER_S = 1_000_000_000  # ns per second
RING_S = 2  # s of reference history kept; must exceed delay_ms + the blocks handed over ahead
RESYNC_MS = 20  # ms of timestamp disagreement taken as jitter; beyond it a stream re-anchors
JUMP_BLOCKS = 3  # mic blocks in a row off their stamps' trend by more than RESYNC_MS: a real jump
TREND_BLOCKS = 100  # mic blocks (~1 s) over which the stamps' drift against the count is averaged
MAX_DRIFT_MS = 50  # ms of averaged drift re-anchored: well within AEC3's delay range and the output latency
LEAD_MS = 20  # ms by which delay_ms may overestimate the true delay (the pairing stays this early)
DEFAULT_DELAY_MS = 0  # ms, a lower bound: too low costs WebRTC nothing, LEAD_MS too high cancels nothing
SPEEX_TAIL_MS = 200  # ms of echo path the Speex filter spans (lead + device slack + room reverb)
WARMUP_S = 2.0  # s of audible reference before `converged` (the bench's false VAD frames: first 1.7 s)
AUDIBLE = 10 ** (-60 / 20)  # reference peak above which a frame counts toward the warm-up (-60 dBFS)
MOVE_TOLERANCE = 2  # samples a block may start off the last one's end (stamp rounding) and not count as moved
TRACK_WINDOW_MS = 500  # ms of mic and reference each echo delay estimate correlates
TRACK_EVERY_MS = 250  # ms of mic between two estimates
# ms of echo delay searched beyond delay_ms - LEAD_MS: a starved PulseAudio put the tests' loopback
# echo 153-454 ms behind its stamps (README, "under load"); the barge-in gate follows it too
TRACK_SPAN_MS = 600
TRACK_MIN_PEAK = 0.25  # GCC-PHAT peak (1 = a pure delay) an estimate needs; wrong ones stayed under 0.17
TRACK_SURE_PEAK = 0.3  # ... and one estimate alone after the stamps moved (TRACK_MIN_WINDOW_MS of audio)
TRACK_MIN_WINDOW_MS = 250  # ms of audible reference since the stamps moved before the first estimate
TRACK_RETRY_MS = 50  # ms between estimates until one after a move is taken
TRACK_GIVE_UP_MS = 2000  # ms of audible reference after a move without an estimate: the old pairing again
TRACK_AGREE = 2  # samples two estimates in a row may differ by and still confirm a new delay
TRACK_MIN_RMS = 10 ** (-50 / 20)  # reference and mic RMS over the window below which nothing is estimated

MODES = ("webrtc", "speex", "off")  # `[bargein] echo_cancel`


class EchoCanceller(Protocol):
    """One swap point: `build()` loads the library, then `reference` (playback thread) and
    `process` (capture thread) may be called concurrently."""

    name: str  # "webrtc", "speex" or "off"
    active: bool  # False for the pass-through: barge-in then needs its raised VAD threshold
    echo_delay_ms: float | None  # how far the echo lies behind its stamps, once found (else None)
    mic_reanchors: int  # how often the mic moved against its sample count (`MicAnchor`), since build

    @property
    def converged(self) -> bool:
        """True once WARMUP_S of audible reference went through: until then (the first reply after
        build/reset) residual echo can still look like speech, so keep the raised VAD threshold."""
        ...

    def build(self) -> None: ...
    def reference(self, samples: np.ndarray, t_ns: int) -> None: ...
    def process(self, mic: np.ndarray, t_ns: int) -> np.ndarray: ...
    def process_both(self, mic: np.ndarray, t_ns: int) -> tuple[np.ndarray, np.ndarray | None]:
        """`process`, plus the linear filter's output of the same frames (None without one)."""
        ...

    def reset(self) -> None: ...

    def echo_peak(self, end_ns: int, ms: int = 300) -> float | None:
        """How much the output over the `ms` before mic time `end_ns` is the echo of what played (a
        GCC-PHAT peak, 1: all of it); None where that cannot be told."""
        ...


def sample_index(t_ns: int) -> int:
    """A perf_counter_ns time → its sample on the shared 16 kHz timeline."""
    return t_ns * SAMPLE_RATE // NS_PER_S


def _mono_float32(samples: np.ndarray) -> np.ndarray:
    samples = np.asarray(samples, dtype=np.float32)
    if samples.ndim != 1:
        raise ValueError(f"expected mono samples of shape (n,), got {samples.shape}")
    return samples


class PassThrough:
    """`echo_cancel = "off"` (or a library that failed to load): the mic signal, untouched."""

    active = False
    converged = False  # it never cancels anything
    echo_delay_ms = None  # nothing is tracked
    mic_reanchors = 0

    def __init__(self, name: str = "off") -> None:
        self.name = name

    def build(self) -> None:
        pass

    def reference(self, samples: np.ndarray, t_ns: int) -> None:
        pass

    def process(self, mic: np.ndarray, t_ns: int) -> np.ndarray:
        return _mono_float32(mic)

    def process_both(self, mic: np.ndarray, t_ns: int) -> tuple[np.ndarray, None]:
        return _mono_float32(mic), None

    def reset(self) -> None:
        pass

    def echo_peak(self, end_ns: int, ms: int = 300) -> None:
        return None  # the mic is the user's voice with the whole echo under it: no telling them apart


class ReferenceTimeline:
    """What the speaker played, by timeline sample, over the last `size` samples; unwritten = silence.

    Example (size 8, RESYNC ignored): write([1, 2, 3], at=10) then write([4], at=13):
    read(9, 6) → [0, 1, 2, 3, 4, 0]. A write at 11 would replace 11.. and end the timeline at 11 + n.
    """

    def __init__(self, size: int, resync: int) -> None:
        self.size = size  # samples of history kept
        self.resync = resync  # samples of stamp jitter absorbed
        self.buf = np.zeros(size, dtype=np.float32)
        self.end: int | None = None  # timeline index one past the last sample written
        # Blocks whose stamps moved against the samples before them (a restart, an underflow's slip,
        # a stop): the echo may have moved against the timeline. `_offset`: the last block's stamp
        # minus where it was put (a slip within `resync` stays on: the blocks after it keep it).
        self.moves = 0
        self.moved_at = 0  # timeline index from which the last move applies: what played before it stays put
        self._offset = 0

    def write(self, samples: np.ndarray, at: int) -> None:
        moves = self.moves
        if self.end is not None and abs(at - self.end) <= self.resync:
            self.moves += abs(at - self.end - self._offset) > MOVE_TOLERANCE
            at, self._offset = self.end, at - self.end  # contiguous with what came before
        elif self.end is not None:
            self.moves, self._offset = self.moves + 1, 0
        if self.moves != moves:
            self.moved_at = at
        if self.end is not None and at > self.end:
            self._put(np.zeros(min(at - self.end, self.size), np.float32), at - min(at - self.end, self.size))
        self._put(samples[-self.size :], at + len(samples) - len(samples[-self.size :]))
        self.end = at + len(samples)

    def read(self, start: int, n: int) -> np.ndarray:
        """n samples from timeline index `start`; zeros for anything never written or too old."""
        out = np.zeros(n, dtype=np.float32)
        if self.end is None:
            return out
        lo, hi = max(start, self.end - self.size), min(start + n, self.end)
        if lo < hi:
            out[lo - start : hi - start] = self.buf[np.arange(lo, hi) % self.size]
        return out

    def _put(self, samples: np.ndarray, at: int) -> None:
        self.buf[np.arange(at, at + len(samples)) % self.size] = samples


class MicAnchor:
    """Where each mic block starts on the timeline: at its sample count from an anchor, re-anchored only
    when the stamps jump and stay there (a dropout, a device reopened) or have drifted MAX_DRIFT_MS.

    Why not follow the stamps: through the tests' PulseAudio loopback, the capture stamps (PortAudio's
    ADC times on our clock) jitter by up to 13 ms around the sample count and drift from it by about
    220 ppm, while the echo stays at the same count (28.25 ms against the player's stamps, over 33
    clauses). Re-anchoring every time a stamp was RESYNC_MS off the count (until 2026-11-25) moved the
    echo against its reference 6 to 18 times in a 7-minute barge-in bench run, and each time AEC3 let
    it through until it had learnt the new delay (README, Measured: the mic's clock). Drift larger
    than MAX_DRIFT_MS (a mic and a speaker on different clocks) is re-anchored in one step, at the
    averaged stamps, not at a jittery one.

        deviation = stamp - (anchor + count)     trend = its running mean over ~TREND_BLOCKS
        JUMP_BLOCKS blocks in a row with |deviation - trend| > resync  → anchor at the stamp
        |trend| > max_drift                                             → anchor at count + trend
    Example (resync 320): blocks of 160 stamped 0, 160, 800 (480 late), 480 → placed at 0, 160, 320,
    480: one late stamp moves nothing; three in a row 480 late would have moved the anchor there.
    """

    def __init__(self, resync: int, max_drift: int) -> None:
        self.resync = resync  # samples of deviation from the trend taken as jitter
        self.max_drift = max_drift  # samples of averaged drift tolerated
        self.next: int | None = None  # timeline index of the next sample by count
        self.trend = 0.0  # samples, running mean of the deviation
        self.off = 0  # blocks in a row off the trend by more than resync
        self.reanchors = 0  # after the first anchor: how often the mic moved against its count

    def place(self, stamp: int, n: int) -> int:
        """A block of n samples stamped at timeline index `stamp` → its first sample's index."""
        if self.next is None:
            return self._anchor(stamp, n, count=False)
        deviation = stamp - self.next
        if abs(deviation - self.trend) > self.resync:
            self.off += 1
            if self.off >= JUMP_BLOCKS:
                return self._anchor(stamp, n)
        else:
            self.off = 0
            self.trend += (deviation - self.trend) / TREND_BLOCKS
            if abs(self.trend) > self.max_drift:
                return self._anchor(self.next + round(self.trend), n)
        at, self.next = self.next, self.next + n
        return at

    def _anchor(self, at: int, n: int, count: bool = True) -> int:
        self.reanchors += count
        self.next, self.trend, self.off = at + n, 0.0, 0
        return at


def _audible(samples: np.ndarray) -> bool:
    """Loud enough over its length (TRACK_MIN_RMS) for a correlation with it to mean anything."""
    return bool(np.sqrt(np.mean(samples**2)) >= TRACK_MIN_RMS)


def gcc_phat(mic: np.ndarray, ref: np.ndarray, span: int) -> tuple[int, float]:
    """(j, peak): the lag j in [0, span] where mic[t] best matches ref[t + j], by GCC-PHAT, and its
    peak (1: mic is ref delayed). mic: (n,); ref: (n + span,)."""
    n = 1 << int(np.ceil(np.log2(len(mic) + len(ref))))
    cross = np.conj(np.fft.rfft(mic, n)) * np.fft.rfft(ref, n)
    cc = np.fft.irfft(cross / (np.abs(cross) + 1e-12), n)[: span + 1]  # cc[j]: mic[t] ~ ref[t + j]
    j = int(np.argmax(cc))
    return j, float(cc[j])


class DelayTracker:
    """Where the echo lies behind its reference (mic index - reference index, in samples), estimated
    by GCC-PHAT over `span` samples of lag from `base`, for the linear filter's pairing and the
    barge-in gate's echo tail.

    Why: the stamps only place the echo to within a few ms, and not the same few ms each time. The
    player re-stamps its clock when its stream restarts (after every barge-in) or underflows; the mic
    is placed by its sample count, which drifts against our clock by about 220 ppm through the tests'
    loopback. In a 6-minute barge-in bench run the echo sat 356 samples behind its stamps in the first
    answer, then 1 to 21 ms later after each restart, up to 1,656 (103 ms) before a mic re-anchor
    took it back to 876. AEC3 finds each new delay itself; the linear filter (Speex MDF, the onset
    detector's) cannot: it starts again from nothing and takes 3-10 s to cancel 20 dB. Replayed
    offline with the delay of each answer put back where the filter had learnt it, it cancelled
    20-40 dB from an answer's first second instead of 0-15.

    `sure`: the echo has not moved since the last estimate as far as the stamps tell, so a new delay
    needs two estimates in a row that agree (within TRACK_AGREE samples), each with a peak of at
    least TRACK_MIN_PEAK: the user's voice over the echo lowers the peak, so talking moves nothing,
    and one spurious peak moves nothing either. After a move one estimate with TRACK_SURE_PEAK does.
    """

    def __init__(self, base: int, span: int) -> None:
        self.base = base  # smallest echo delay searched, samples
        self.span = span  # samples of delay searched above it
        self.delay: int | None = None  # the echo delay, once estimated
        self.moves = 0  # how often the delay changed after the first estimate
        self._last: int | None = None  # the previous estimate, taken or not

    def estimate(self, mic: np.ndarray, ref: np.ndarray, sure: bool = True) -> int | None:
        """mic: (n,) from timeline index w; ref: (n + span,) from index w - base - span.
        Returns the echo delay when this estimate is taken (changed or not), else None."""
        if not (_audible(mic) and _audible(ref)):
            self._last = None
            return None
        j, peak = gcc_phat(mic, ref, self.span)
        found, last = self.base + self.span - j, self._last
        self._last = found if peak >= TRACK_MIN_PEAK else None
        if sure:
            taken = self._last is not None and last is not None and abs(found - last) <= TRACK_AGREE
        else:
            taken = peak >= TRACK_SURE_PEAK
        if not taken:
            return None
        if self.delay is None or abs(found - self.delay) > TRACK_AGREE:
            self.moves += self.delay is not None
            self.delay = found
        return self.delay


class _Backend(Protocol):
    def cancel(self, mic: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """One frame: mic (FRAME,) int16, reference (FRAME,) int16 → cleaned (FRAME,) int16."""
        ...

    def close(self) -> None: ...


class WebRtcBackend:
    """WebRTC's audio processing module (AEC3 + high-pass filter) from the `livekit` package."""

    def __init__(self, delay_hint_ms: int = LEAD_MS, noise_suppression: bool = False) -> None:
        from livekit import rtc  # import here: a missing package must only disable this mode

        self._rtc = rtc
        self._delay_hint_ms = delay_hint_ms  # the echo's expected lag behind the paired reference
        self._apm = rtc.AudioProcessingModule(
            echo_cancellation=True,
            noise_suppression=noise_suppression,
            high_pass_filter=True,
            auto_gain_control=False,  # levels stay as they are for the VAD and the recognizer
        )

    def cancel(self, mic: np.ndarray, ref: np.ndarray) -> np.ndarray:
        far = self._rtc.AudioFrame(bytearray(ref.tobytes()), SAMPLE_RATE, 1, FRAME)
        self._apm.process_reverse_stream(far)
        near = self._rtc.AudioFrame(bytearray(mic.tobytes()), SAMPLE_RATE, 1, FRAME)
        self._apm.set_stream_delay_ms(self._delay_hint_ms)  # AEC3 finds the actual delay itself
        self._apm.process_stream(near)  # in place
        return np.frombuffer(near.data, dtype=np.int16).copy()

    def close(self) -> None:
        self._apm = None


# speex_echo.h / speex_preprocess.h request codes
SPEEX_ECHO_SET_SAMPLING_RATE = 24
SPEEX_PREPROCESS_SET_NOISE_SUPPRESS = 18
SPEEX_PREPROCESS_SET_ECHO_SUPPRESS = 20
SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE = 22
SPEEX_PREPROCESS_SET_ECHO_STATE = 24


def load_speexdsp() -> ctypes.CDLL:
    """libspeexdsp: the system's (Debian `libspeexdsp1`), else the copy inside the `speexdsp-ns` wheel."""
    candidates = [ctypes.util.find_library("speexdsp"), "libspeexdsp.so.1"]
    try:
        from pathlib import Path

        import speexdsp_ns  # noqa: F401 - only its bundled library is wanted

        libs = Path(speexdsp_ns.__file__).resolve().parent.parent / "speexdsp_ns.libs"
        candidates += [str(p) for p in sorted(libs.glob("libspeexdsp*.so*"))]
    except ImportError:
        pass
    for name in filter(None, candidates):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        if hasattr(lib, "speex_echo_state_init") and hasattr(lib, "speex_preprocess_state_init"):
            return _declare_speex(lib)
    raise OSError("libspeexdsp not found (apt install libspeexdsp1, or pip install speexdsp-ns)")


def _declare_speex(lib: ctypes.CDLL) -> ctypes.CDLL:
    p, i16 = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int16)
    for fn, args, res in [
        (lib.speex_echo_state_init, [ctypes.c_int, ctypes.c_int], p),
        (lib.speex_echo_state_destroy, [p], None),
        (lib.speex_echo_state_reset, [p], None),
        (lib.speex_echo_cancellation, [p, i16, i16, i16], None),
        (lib.speex_echo_ctl, [p, ctypes.c_int, p], ctypes.c_int),
        (lib.speex_preprocess_state_init, [ctypes.c_int, ctypes.c_int], p),
        (lib.speex_preprocess_state_destroy, [p], None),
        (lib.speex_preprocess_run, [p, i16], ctypes.c_int),
        (lib.speex_preprocess_ctl, [p, ctypes.c_int, p], ctypes.c_int),
    ]:
        fn.argtypes, fn.restype = args, res
    return lib


class SpeexBackend:
    """Xiph's libspeexdsp: the MDF echo canceller, then the preprocessor's residual echo suppressor
    (which only acts through the denoiser's gain, so denoising stays on at its default -15 dB)."""

    def __init__(
        self,
        tail_ms: int = SPEEX_TAIL_MS,
        suppress_residual: bool = True,
        noise_suppress_db: int = -15,
        echo_suppress_db: int = -40,
        echo_suppress_active_db: int = -15,
    ) -> None:
        self._lib = lib = load_speexdsp()
        self._echo = lib.speex_echo_state_init(FRAME, SAMPLE_RATE * tail_ms // 1000)
        rate = ctypes.c_int(SAMPLE_RATE)
        lib.speex_echo_ctl(self._echo, SPEEX_ECHO_SET_SAMPLING_RATE, ctypes.byref(rate))
        self._pre = None
        if suppress_residual:
            self._pre = lib.speex_preprocess_state_init(FRAME, SAMPLE_RATE)
            for request, value in (
                (SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, noise_suppress_db),
                (SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, echo_suppress_db),
                (SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, echo_suppress_active_db),
            ):
                arg = ctypes.c_int(value)
                lib.speex_preprocess_ctl(self._pre, request, ctypes.byref(arg))
            lib.speex_preprocess_ctl(self._pre, SPEEX_PREPROCESS_SET_ECHO_STATE, ctypes.c_void_p(self._echo))
        self._out = np.zeros(FRAME, dtype=np.int16)

    def cancel(self, mic: np.ndarray, ref: np.ndarray) -> np.ndarray:
        i16 = ctypes.POINTER(ctypes.c_int16)
        mic, ref = np.ascontiguousarray(mic), np.ascontiguousarray(ref)
        out = self._out
        self._lib.speex_echo_cancellation(
            self._echo, mic.ctypes.data_as(i16), ref.ctypes.data_as(i16), out.ctypes.data_as(i16)
        )
        if self._pre is not None:
            self._lib.speex_preprocess_run(self._pre, out.ctypes.data_as(i16))
        return out.copy()

    def close(self) -> None:
        if self._pre is not None:
            self._lib.speex_preprocess_state_destroy(self._pre)
            self._pre = None
        if self._echo is not None:
            self._lib.speex_echo_state_destroy(self._echo)
            self._echo = None


BACKENDS = {"webrtc": WebRtcBackend, "speex": SpeexBackend}


class TimedEchoCanceller:
    """An `EchoCanceller` around one library: framing, the reference timeline, alignment, locking."""

    active = True

    def __init__(
        self,
        name: str,
        delay_ms: float = DEFAULT_DELAY_MS,
        make_backend=None,
        make_linear=None,
        track_delay: bool = True,
    ) -> None:
        if make_backend is None and name not in BACKENDS:
            raise ValueError(f"unknown echo canceller {name!r}; expected one of {', '.join(BACKENDS)}")
        self.name = name
        self.delay_ms = delay_ms
        self.make_backend = make_backend or BACKENDS[name]  # () -> backend; the bench passes variants
        # () -> a linear-only backend run on the same frame pairs, or None: its output keeps the
        # user's voice at full level where AEC3's suppressor holds a double-talk onset back
        self.make_linear = make_linear
        lag_ms = max(0, round(delay_ms) - LEAD_MS)  # LEAD_MS short of delay_ms: echoes stay causal
        self._lag = lag_ms * SAMPLE_RATE // 1000  # samples from a reference sample to its echo frame
        self._resync = RESYNC_MS * SAMPLE_RATE // 1000
        self._ref_lock = threading.Lock()  # the timeline: written by playback, read by capture
        self._mic_lock = threading.Lock()  # the library and the mic remainder: capture (and reset)
        # follow the echo's delay (`DelayTracker`): the linear filter pairs by it, the barge-in gate's
        # echo tail lengthens by it
        self.track_delay = track_delay
        self._timeline: ReferenceTimeline | None = None
        self._backend: _Backend | None = None
        self._linear: _Backend | None = None

    def build(self) -> None:
        """Load the library (raises ImportError/OSError when it cannot) and start empty."""
        self._backend = self.make_backend()
        self._linear = self.make_linear() if self.make_linear is not None else None
        self._timeline = ReferenceTimeline(RING_S * SAMPLE_RATE, self._resync)
        self._pending = np.zeros(0, dtype=np.float32)  # mic samples short of a frame
        self.mic_anchor = MicAnchor(self._resync, MAX_DRIFT_MS * SAMPLE_RATE // 1000)
        self._heard = 0  # samples of audible reference processed since build
        # The linear filter's pairing: samples from a mic frame back to its reference (AEC3 keeps
        # self._lag: it finds the echo's delay itself), and whether the echo may have moved since
        # (`_unsure_from`, the mic index where the stamps moved; the linear filter then rests)
        self._linear_pair = self._lag
        self._unsure_from: int | None = None
        self._unsure_heard = 0  # samples of audible reference paired since then
        self._moves_seen = (0, 0)  # (reference moves, mic re-anchors) seen so far
        # timeline index from which the echo may lie elsewhere since the last move (None: all of it,
        # the mic moved); what played before it still fits the linear filter's pairing
        self._moved_ref: int | None = None
        self.tracker = DelayTracker(self._lag, TRACK_SPAN_MS * SAMPLE_RATE // 1000)
        self._mic_history = ReferenceTimeline(RING_S * SAMPLE_RATE, 0) if self.track_delay else None
        # the canceller's output by the same index, for `echo_peak`; (index, mic ns) of the last block
        self._out_history = ReferenceTimeline(RING_S * SAMPLE_RATE, 0) if self.track_delay else None
        self._placed: tuple[int, int] | None = None
        self._since_estimate = 0  # mic samples since the last delay estimate

    @property
    def echo_delay_ms(self) -> float | None:
        """How far the echo lies behind its stamps (ms), as last found (`DelayTracker`); None until
        found. The barge-in gate lengthens its echo tail by it (`bargein.BargeIn`)."""
        delay = self.tracker.delay
        return None if delay is None else delay * 1000 / SAMPLE_RATE

    @property
    def mic_reanchors(self) -> int:
        """How often the mic moved against its sample count since build (`MicAnchor`): each time the
        echo moved against its reference. The barge-in gate takes the echo as loud for a while."""
        return self.mic_anchor.reanchors

    def reference(self, samples: np.ndarray, t_ns: int) -> None:
        samples = _mono_float32(samples)
        if self._timeline is None:
            raise RuntimeError("call build() before reference()")
        with self._ref_lock:
            self._timeline.write(samples, sample_index(t_ns))

    def process(self, mic: np.ndarray, t_ns: int) -> np.ndarray:
        return self.process_both(mic, t_ns)[0]

    def process_both(self, mic: np.ndarray, t_ns: int) -> tuple[np.ndarray, np.ndarray | None]:
        mic = _mono_float32(mic)
        if self._backend is None:
            raise RuntimeError("call build() before process()")
        with self._mic_lock:
            at = self.mic_anchor.place(sample_index(t_ns), len(mic)) - len(self._pending)  # audio[0]
            audio = np.concatenate([self._pending, mic])
            n = len(audio) // FRAME * FRAME
            if self.track_delay:
                self._notice_moves(at)
            out = np.empty(n, dtype=np.float32)
            linear = np.empty(n, dtype=np.float32) if self._linear is not None else None
            for start in range(0, n, FRAME):
                span = slice(start, start + FRAME)
                out[span], lin = self._frame(audio[span], at + start)
                if linear is not None and lin is None:
                    linear = None  # the linear filter rested: no output for the block
                elif linear is not None:
                    linear[span] = lin
            self._pending = audio[n:]
            if self.track_delay and n:
                self._follow_delay(audio[:n], at)
                self._out_history.write(out, at)
                self._placed = (at + len(audio) - len(mic), t_ns)
            return out, linear

    def echo_peak(self, end_ns: int, ms: int = 300) -> float | None:
        """How much of the canceller's output over the `ms` before mic time `end_ns` is the echo of
        what played: its GCC-PHAT peak against the reference over the tracker's lags (0-600 ms);
        None where either is too quiet to tell."""
        if self._placed is None:
            return None
        index, t_ns = self._placed
        n = ms * SAMPLE_RATE // 1000
        end = index + (end_ns - t_ns) * SAMPLE_RATE // 1_000_000_000
        tracker = self.tracker
        with self._mic_lock:
            out = self._out_history.read(end - n, n)
        with self._ref_lock:
            ref = self._timeline.read(end - n - tracker.base - tracker.span, n + tracker.span)
        if not (_audible(out) and _audible(ref)):
            return None
        return gcc_phat(out, ref, tracker.span)[1]

    def _notice_moves(self, at: int) -> None:
        """A reference block that did not follow on (restart, underflow) or a mic re-anchor: the
        echo may have moved, so the linear filter rests from mic index `at` until it is found."""
        with self._ref_lock:
            moves, moved_at = self._timeline.moves, self._timeline.moved_at
        seen = (moves, self.mic_anchor.reanchors)
        if seen != self._moves_seen:
            mic_moved = seen[1] != self._moves_seen[1]
            self._moves_seen, self._unsure_from, self._unsure_heard = seen, at, 0
            self._moved_ref = None if mic_moved else moved_at

    def _follow_delay(self, audio: np.ndarray, at: int) -> None:
        """Keep the mic history and, every TRACK_EVERY_MS, estimate the echo's delay: the linear
        filter's pairing follows it, so the echo stays LEAD_MS behind its paired reference."""
        self._mic_history.write(audio, at)
        self._since_estimate += len(audio)
        ms = SAMPLE_RATE // 1000
        unsure = self._unsure_from is not None
        if unsure and self._unsure_heard < TRACK_MIN_WINDOW_MS * ms:
            return  # too little of the echo yet to find it in
        if self._since_estimate < (TRACK_RETRY_MS if unsure else TRACK_EVERY_MS) * ms:
            return
        self._since_estimate = 0
        tracker, end, window = self.tracker, at + len(audio), TRACK_WINDOW_MS * ms
        if unsure:  # only what came after the move
            window = min(window, end - self._unsure_from)
        start = end - window
        mic = self._mic_history.read(start, window)
        with self._ref_lock:
            ref = self._timeline.read(start - tracker.base - tracker.span, window + tracker.span)
        delay = tracker.estimate(mic, ref, sure=not unsure)
        if delay is not None:
            self._linear_pair, self._unsure_from = max(0, delay - LEAD_MS * ms), None
            if unsure and self._linear is not None:
                self._prime_linear(end)
        elif unsure and self._unsure_heard > TRACK_GIVE_UP_MS * ms:
            self._unsure_from = None  # nothing clear to go by: the pairing it had

    def _prime_linear(self, end: int) -> None:
        """Run the linear filter over the last SPEEX_TAIL_MS of mic before `end`, paired anew, output
        dropped: its history of reference was from before it rested, and for that long after it
        resumed its output would be off (a bench run replayed: over the first 200 ms after each of
        35 resumes it took 10.6 dB of echo out at the median unprimed, 24.2 dB primed)."""
        frames = SPEEX_TAIL_MS * SAMPLE_RATE // 1000 // FRAME
        for start in range(end - frames * FRAME, end, FRAME):
            mic = self._mic_history.read(start, FRAME)
            with self._ref_lock:
                ref = self._timeline.read(start - self._linear_pair, FRAME)
            self._linear.cancel(to_pcm16(mic), to_pcm16(ref))

    @property
    def converged(self) -> bool:
        return self._heard >= WARMUP_S * SAMPLE_RATE

    def _frame(self, mic: np.ndarray, at: int) -> tuple[np.ndarray, np.ndarray | None]:
        """One frame → (cleaned, the linear filter's output or None), float32."""
        with self._ref_lock:
            ref = self._timeline.read(at - self._lag, FRAME)
            linear_ref = self._timeline.read(at - self._linear_pair, FRAME)
        if np.abs(ref).max() > AUDIBLE:
            self._heard += FRAME
            # sound from after the move: a frame across a hold's stop holds the answer before it
            after = ref if self._moved_ref is None else ref[max(0, self._moved_ref - (at - self._lag)) :]
            if after.size and np.abs(after).max() > AUDIBLE:
                self._unsure_heard += FRAME
        # After a move the linear filter rests (no output) once sound from after it plays: its echo
        # may lie elsewhere. Until then the mic holds only the echo of what played before the move,
        # which its pairing still fits; a hold stops and restarts the stream, and what the filter
        # gives through the hold is the user's first words for the recognizer (`BargeIn.heard`).
        resting = self._linear is None or (self._unsure_from is not None and self._unsure_heard > 0)
        mic16 = to_pcm16(mic)
        cleaned = from_pcm16(self._backend.cancel(mic16, to_pcm16(ref)))
        if resting:
            return cleaned, None
        return cleaned, from_pcm16(self._linear.cancel(mic16, to_pcm16(linear_ref)))

    def reset(self) -> None:
        """Forget the reference, the mic remainder and everything the library learnt (new devices)."""
        with self._mic_lock, self._ref_lock:
            for backend in (self._backend, self._linear):
                if backend is not None:
                    backend.close()
            self.build()


def linear_filter() -> SpeexBackend:
    """The linear echo filter beside the canceller: Speex MDF without its residual suppressor."""
    return SpeexBackend(suppress_residual=False)


def make_echo_canceller(
    mode: str, delay_ms: float = DEFAULT_DELAY_MS, onset_detector: bool = False
) -> EchoCanceller:
    """`[bargein] echo_cancel` → a built canceller; a library that fails to load gives a PassThrough
    (`active` False) and one warning line, so the pipeline falls back to the raised VAD threshold.
    `onset_detector` runs `linear_filter` beside it (`process_both`); when libspeexdsp is missing
    the canceller goes on without it, with one warning line."""
    if mode not in MODES:
        raise ValueError(f"echo_cancel must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "off":
        return PassThrough()
    if onset_detector:
        try:
            load_speexdsp()  # what can fail; the filter itself is made in build()
        except OSError as err:
            log.warning("barge-in onset detector unavailable (%s); AEC3's output alone holds playback", err)
            onset_detector = False
    canceller = TimedEchoCanceller(mode, delay_ms, make_linear=linear_filter if onset_detector else None)
    try:
        canceller.build()
    except (ImportError, OSError, RuntimeError) as err:
        log.warning(
            "echo cancellation %r unavailable (%s); barge-in uses the raised VAD threshold", mode, err
        )
        return PassThrough()
    return canceller
