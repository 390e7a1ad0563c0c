"""Sound devices through sounddevice (PortAudio): listing, choosing, playback and capture.

`Player.play` hands a piece to a running output stream, blocks until it has played and returns early
when cancelled; `Capture` runs PortAudio's callback thread plus one worker thread that resamples to
16 kHz, delivers frames and reopens a failed device with exponential back-off. Both are synchronous;
the pipeline wraps them in its stages.

Resampling. Capture runs at the device's native rate (44.1/48 kHz) and is brought to 16 kHz by
`Resampler16k`, which keeps its state across blocks: per-block `scipy.signal.resample_poly` would
zero-pad every block edge (an audible click the VAD and the recognizer would hear 100 times a
second). Every millisecond it holds audio back is a millisecond later that barge-in stops the
answer and the endpoint fires, so it filters with a minimum-phase IIR low-pass (group delay
0.1-0.7 ms) and then interpolates (python-soxr's `ResampleStream`, quality "QQ", which holds
nothing back), instead of soxr's linear-phase "LQ" filter, which held 1.5-21 ms back (11 ms on
average) of every 10 ms block. Playback resamples a whole piece at once with `resample_poly` (no
block edges), and only when the device refuses the voice's rate.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sounddevice as sd

from assistant.audio import AudioDeviceError, DeviceNotFoundError
from assistant.audio.pcm import from_pcm16
from assistant.config import AudioConfig

CAPTURE_RATE = 16_000  # Hz: what Capture delivers (the recognizer's and the VAD's rate)
REFERENCE_RATE = CAPTURE_RATE  # Hz: the echo canceller works on the capture side's rate
ANTI_ALIAS_HZ = 7300  # Hz, passband edge of the capture resampler's low-pass (8 kHz is Nyquist)
NS_PER_S = 1_000_000_000
STALL_S = 1.0  # s without a captured block (or a played one) before a device counts as failed ...
FIRST_BLOCK_S = 3.0  # ... or without its first block after opening (some devices start slowly)
# times one piece's output stream is restarted after a stall before the device counts as failed:
# a server starved of CPU stops calling back for over STALL_S too (three busy loops on two cores)
STALL_RESTARTS = 2

log = logging.getLogger(__name__)


def _alsa_messages_to_log() -> None:
    """alsa-lib writes its own lines to stderr, across the terminal's: "ALSA lib pcm.c:8570:
    (snd_pcm_recover) underrun occurred" when `assistant run` starts while the models load (the
    speaker's stream, opened early, runs dry once). The Player counts its underflows itself; such
    lines go to the debug log instead. Its varargs cannot be read from ctypes: the format is logged."""
    try:
        alsa = ctypes.CDLL(ctypes.util.find_library("asound") or "libasound.so.2")
    except OSError:  # not ALSA (macOS, Windows): nothing to quiet
        return

    def to_log(file: bytes, line: int, function: bytes, err: int, fmt: bytes) -> None:
        name = function.decode(errors="replace") if function else "?"
        log.debug(
            "ALSA %s (%s:%d): %s",
            name,
            (file or b"?").decode(errors="replace"),
            line,
            fmt.decode(errors="replace"),
        )

    global _alsa_handler  # ctypes frees a callback that nothing refers to
    _alsa_handler = _ALSA_ERROR_HANDLER(to_log)
    alsa.snd_lib_error_set_handler(_alsa_handler)
    # alsa-lib's own handler again before the interpreter is torn down (sounddevice's exit handler,
    # which runs after this one, closes PortAudio): no call into a Python that is going away.
    atexit.register(alsa.snd_lib_error_set_handler, None)


# void (*)(const char *file, int line, const char *function, int err, const char *fmt, ...): only the
# fixed arguments are declared, which the C calling conventions of Linux's platforms pass alike.
_ALSA_ERROR_HANDLER = ctypes.CFUNCTYPE(
    None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
)
_alsa_handler = None
_alsa_messages_to_log()


# ---------------------------------------------------------------------------------------------------
# Listing and choosing


def list_devices() -> list[dict]:
    """Every PortAudio device: index, name, hostapi, max_input_channels, max_output_channels,
    default_samplerate, default_input, default_output (the last two: is it the system default)."""
    default_in, default_out = _default_indices()
    hostapis = sd.query_hostapis()
    return [
        {
            "index": d["index"],
            "name": d["name"],
            "hostapi": hostapis[d["hostapi"]]["name"],
            "max_input_channels": d["max_input_channels"],
            "max_output_channels": d["max_output_channels"],
            "default_samplerate": d["default_samplerate"],
            "default_input": d["index"] == default_in,
            "default_output": d["index"] == default_out,
        }
        for d in sd.query_devices()
    ]


def format_devices(devices: list[dict]) -> str:
    """`assistant devices` output: one line per device, `>` marks default input, `<` default output."""
    lines = []
    for d in devices:
        mark = (">" if d["default_input"] else " ") + ("<" if d["default_output"] else " ")
        lines.append(
            f"{mark} {d['index']:3d} {d['name']} ({d['hostapi']}; {d['max_input_channels']} in, "
            f"{d['max_output_channels']} out, {d['default_samplerate']:.0f} Hz)"
        )
    if not lines:
        return "no sound devices found; fix: connect one, or start PulseAudio/PipeWire"
    return "\n".join(lines)


def resolve_device(spec: str | int | None, kind: str = "input") -> int | None:
    """A device index from a config value: "" or None → None (the system default), an index (int or
    digits), or a case-insensitive name substring (an exact name wins; several matches are an error).
    Only devices with channels of `kind` ("input" or "output") count. Raises DeviceNotFoundError."""
    if kind not in ("input", "output"):
        raise ValueError(f"kind must be 'input' or 'output', not {kind!r}")
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return None
    usable = [d for d in list_devices() if d[f"max_{kind}_channels"] > 0]
    if isinstance(spec, int) or spec.strip().isdigit():
        index = int(spec)
        if any(d["index"] == index for d in usable):
            return index
        raise DeviceNotFoundError(_not_found(f"no {kind} device has index {index}", kind, usable))
    wanted = spec.strip().lower()
    exact = [d for d in usable if d["name"].lower() == wanted]
    matches = exact or [d for d in usable if wanted in d["name"].lower()]
    if len(matches) == 1:
        return matches[0]["index"]
    problem = f"{len(matches)} {kind} devices match {spec!r}" if matches else f"no {kind} device matches"
    problem = problem if matches else f"{problem} {spec!r}"
    raise DeviceNotFoundError(_not_found(problem, kind, matches or usable))


def _not_found(problem: str, kind: str, choices: list[dict]) -> str:
    listed = ", ".join(f"{d['index']} {d['name']!r}" for d in choices) or "none"
    return (
        f"{problem}; choices: {listed}; fix: set [audio] {kind}_device to one of these "
        "(index or part of the name; see `assistant devices`)"
    )


def _default_indices() -> tuple[int, int]:
    default_in, default_out = sd.default.device
    if default_in is None or default_in < 0 or default_out is None or default_out < 0:
        try:  # sd.default.device is -1 until queried; PortAudio knows its defaults
            default_in = sd.query_devices(kind="input")["index"]
        except (sd.PortAudioError, ValueError):
            default_in = -1
        try:
            default_out = sd.query_devices(kind="output")["index"]
        except (sd.PortAudioError, ValueError):
            default_out = -1
    return default_in, default_out


def _device_info(index: int | None, kind: str) -> dict:
    try:
        return dict(sd.query_devices(index, kind=None if index is not None else kind))
    except (sd.PortAudioError, ValueError) as err:
        raise AudioDeviceError(f"no default {kind} device ({err}); fix: set [audio] {kind}_device") from None


# ---------------------------------------------------------------------------------------------------
# Playback


@dataclass
class Playback:
    """What happened to the last piece given to `Player.play` (counts are at the piece's own rate)."""

    rate: int  # Hz of the samples given to play()
    total: int  # samples in the piece
    played: int = 0  # samples that reached the speaker (estimated: written minus still buffered)
    first_sample_ns: int | None = None  # perf_counter_ns() when the first block was written
    completed: bool = False  # played to the end without cancel

    @property
    def fraction(self) -> float:
        """Share of the piece that was heard, for clipping the reply in memory."""
        return self.played / self.total if self.total else 1.0


MIN_OUTPUT_LATENCY_S = 0.03  # s of output buffer at least; a stop drops it, a first clause waits on it
POLL_S = 0.005  # s between play()'s looks at cancel and at the stream


@dataclass
class _Piece:
    """What play() hands the callback: the piece at the stream's rate and at the reference rate."""

    out: np.ndarray  # (n,) float32 at the stream's rate
    ref: np.ndarray  # (≈ n * 16000 / rate,) float32, resampled once for the whole piece
    pos: int = 0  # samples of `out` handed to PortAudio so far
    first_ns: int | None = None  # perf_counter_ns() of the callback that took the first samples
    end_ns: int | None = None  # ... and of the one that took the last
    stall_restarts: int = 0  # times the stream was restarted after a stall while this piece played


class Player:
    """Playback on the configured output device through one stream that runs, silent between
    pieces, from `start(rate)` (the pipeline calls it as it loads the models) or else the first
    piece until `close()`.

    Why one running stream: the echo canceller (AEC3) learns the delay from the reference we hand it
    to the echo in the microphone. A stream started for every clause moves the sound against its
    stamps by a few ms each time, now and then by 10 (measured through the tests' loopback), and AEC3
    lets the echo through, up to 0 dB, until it has learnt the new delay: at every clause start
    (offline, shifts of up to 5 ms suffice). A running stream keeps the delay fixed (20-21 ms over
    16 clauses), so each block's reference is stamped by the stream's sample count.

    `play()` hands the piece to the stream's callback and waits until it has played out; when `cancel`
    is set it aborts the stream (dropping what PortAudio and the server have buffered, so the sound
    stops within about a block), starts it again and returns False. The stream opens at the piece's
    rate when the device accepts it, else at the device's default rate with resampling.
    """

    def __init__(
        self,
        cfg: AudioConfig,
        on_first_block: Callable[[int], None] | None = None,
        reference: Callable[[np.ndarray, int], None] | None = None,
    ):
        self.cfg = cfg
        self.on_first_block = on_first_block
        # The echo canceller's far end: every block played (silence too) at 16 kHz with its stamp.
        self.reference = reference
        self.last: Playback | None = None
        self.first_sample_ns: int | None = None  # of the last play(), = self.last.first_sample_ns
        self._stream: sd.OutputStream | None = None
        self._stream_rate = 0
        self._piece_rate = 0
        self._device: int | None = None
        self._resolved = False
        self._name = "default"
        self._lock = threading.Lock()  # the piece and the clock, between play() and the callback
        self._piece: _Piece | None = None
        self._clock = 0  # samples handed to PortAudio since the stream (re)started
        self._base_ns: int | None = None  # stamp of sample 0 of the clock
        self._failure: str | None = None  # what went wrong in the callback
        self._callback_ns = 0  # perf_counter_ns() of the last callback since the stream (re)started
        self._started_ns = 0  # ... and of that (re)start
        self.underflows = 0  # callbacks that found the device had run dry (the stamps re-anchored)
        self.stall_restarts = 0  # stream restarts after a stall (`_restart_after_stall`)

    def start(self, rate: int | None = None) -> Player:
        """Resolve the device (DeviceNotFoundError for a bad name) and, given the rate of the audio to
        come, open the stream now rather than on the first `play`."""
        self._device, self._resolved = resolve_device(self.cfg.output_device, "output"), True
        self._name = _device_info(self._device, "output")["name"]
        if rate:
            self._open(rate)
        return self

    def close(self) -> None:
        stream, self._stream = self._stream, None
        _abort_and_close(stream, "output")

    def __enter__(self) -> Player:
        return self if self._stream is not None else self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def play(self, samples: np.ndarray, rate: int, cancel: threading.Event | None = None) -> bool:
        """Play mono float32 ([-1, 1]) or int16 `samples` at `rate` Hz; block until the sound has
        played out. Returns False when `cancel` was set first. `self.last` says how much was heard and
        when the first block was handed over. Raises AudioDeviceError if the device fails."""
        audio = _as_float32(samples)
        self.last = result = Playback(rate=rate, total=len(audio))
        self.first_sample_ns = None
        stream = self._open(rate)
        out = _resample(audio, rate, self._stream_rate)
        piece = _Piece(out, _resample(out, self._stream_rate, REFERENCE_RATE) if self.reference else out)
        latency_ns = round(stream.latency * 1e9)
        with self._lock:
            self._piece = piece
        try:
            while True:
                if piece.first_ns is not None and result.first_sample_ns is None:
                    self._mark_first(result, piece.first_ns)
                if cancel is not None and cancel.is_set():
                    self._stop_now(stream, piece)
                    result.played = self._heard(piece, result, stream)
                    return False
                if self._failure is not None or not stream.active:
                    raise sd.PortAudioError(self._failure or "the stream stopped")
                if self._stalled():
                    self._restart_after_stall(stream, piece)
                if piece.end_ns is not None and time.perf_counter_ns() >= piece.end_ns + latency_ns:
                    break
                if cancel is not None and hasattr(cancel, "wait"):
                    cancel.wait(POLL_S)
                else:
                    time.sleep(POLL_S)
        except sd.PortAudioError as err:
            self.close()
            raise AudioDeviceError(f"output device {self._name!r} failed during playback: {err}") from None
        finally:
            with self._lock:
                if self._piece is piece:
                    self._piece = None
        result.played, result.completed = result.total, True
        return True

    def _mark_first(self, result: Playback, t_ns: int) -> None:
        result.first_sample_ns = self.first_sample_ns = t_ns
        if self.on_first_block is not None:
            self.on_first_block(t_ns)

    def _stop_now(self, stream: sd.OutputStream, piece: _Piece) -> None:
        """Silence at once: abort drops what is buffered; the stream starts again, re-stamped."""
        with self._lock:
            self._piece = None
        self._restart(stream)

    def _restart(self, stream: sd.OutputStream) -> None:
        """Abort (dropping what is buffered), tell the echo canceller that playback stopped here (the
        stamps move), and start again on a fresh clock."""
        stream.abort()
        if self.reference is not None:
            self.reference(np.zeros(0, np.float32), time.perf_counter_ns())
        self._start(stream)

    def _start(self, stream: sd.OutputStream) -> None:
        """Start the stream (again) on a fresh clock: its first callback stamps sample 0."""
        with self._lock:
            self._clock, self._base_ns = 0, None
        self._started_ns, self._callback_ns = time.perf_counter_ns(), 0
        stream.start()

    def _stalled(self) -> bool:
        """No callback for STALL_S (FIRST_BLOCK_S after a start): the device is gone, or starved."""
        if self._callback_ns:
            return time.perf_counter_ns() - self._callback_ns > STALL_S * NS_PER_S
        return time.perf_counter_ns() - self._started_ns > FIRST_BLOCK_S * NS_PER_S

    def _restart_after_stall(self, stream: sd.OutputStream, piece: _Piece) -> None:
        """A stall is a vanished device or a sound server starved of CPU (the barge-in bench beside
        three busy loops cut an answer so, and the device was there all along). Restart the stream
        from what was still buffered, up to STALL_RESTARTS times a piece; a device that is gone
        fails the restart, or gives no callback within FIRST_BLOCK_S of it."""
        if piece.stall_restarts >= STALL_RESTARTS or not self._callback_ns:
            raise sd.PortAudioError("the stream stopped taking audio")
        piece.stall_restarts += 1
        self.stall_restarts += 1
        log.warning("output device %r took no audio for %g s; restarting its stream", self._name, STALL_S)
        with self._lock:
            piece.pos = max(0, piece.pos - round(stream.latency * self._stream_rate))  # dropped by abort
            piece.end_ns = None
        self._restart(stream)

    def _heard(self, piece: _Piece, result: Playback, stream: sd.OutputStream) -> int:
        """Samples of the piece (at its rate) that left the buffers before the abort."""
        buffered = round(stream.latency * self._stream_rate)
        return min(result.total, round(max(0, piece.pos - buffered) * result.rate / self._stream_rate))

    def _callback(self, outdata: np.ndarray, frames: int, _time, status) -> None:
        """PortAudio's thread: the next samples of the piece (silence when there is none) and their
        reference, stamped by the clock (re-anchored after an underflow: the sound slipped)."""
        try:
            now = self._callback_ns = time.perf_counter_ns()
            with self._lock:
                if self._base_ns is None or status.output_underflow:
                    self.underflows += self._base_ns is not None
                    self._base_ns = now - self._clock * NS_PER_S // self._stream_rate
                stamp = self._base_ns + self._clock * NS_PER_S // self._stream_rate
                ref_len = ((self._clock + frames) * REFERENCE_RATE // self._stream_rate) - (
                    self._clock * REFERENCE_RATE // self._stream_rate
                )
                self._clock += frames
                piece, n, ref = self._piece, 0, None
                if piece is not None and piece.pos < len(piece.out):
                    start = piece.pos
                    n = min(frames, len(piece.out) - start)
                    outdata[:n, 0] = piece.out[start : start + n]
                    piece.pos += n
                    r0 = start * REFERENCE_RATE // self._stream_rate
                    ref = piece.ref[r0 : r0 + ref_len]
                    if piece.first_ns is None:
                        piece.first_ns = now
                    if piece.pos >= len(piece.out):
                        piece.end_ns = now
            outdata[n:, 0] = 0.0
            if self.reference is not None:
                block = np.zeros(ref_len, np.float32)
                if ref is not None:
                    block[: len(ref)] = ref
                self.reference(block, stamp)
        except Exception as err:  # a failure must reach play(), not kill PortAudio's thread silently
            self._failure = f"{type(err).__name__}: {err}"
            raise sd.CallbackAbort from None

    def _open(self, rate: int) -> sd.OutputStream:
        if self._stream is not None and rate == self._piece_rate and self._stream.active:
            return self._stream
        self.close()
        if not self._resolved:
            self._device, self._resolved = resolve_device(self.cfg.output_device, "output"), True
        info = _device_info(self._device, "output")
        self._name = info["name"]
        stream_rate = rate if _output_rate_ok(self._device, rate) else int(info["default_samplerate"])
        block_s = self.cfg.block_ms / 1000
        self._failure, self._piece = None, None
        self._stream_rate = stream_rate
        stream = None
        try:
            stream = sd.OutputStream(
                device=self._device,
                samplerate=stream_rate,
                channels=1,
                dtype="float32",
                blocksize=max(1, round(stream_rate * block_s)),
                # 'low' on a hardware ALSA device can be a few ms: two blocks (and MIN_OUTPUT_LATENCY_S
                # when blocks are short) keep the callback ahead while the models load the cores
                latency=max(info["default_low_output_latency"], 2 * block_s, MIN_OUTPUT_LATENCY_S),
                callback=self._callback,
            )
            self._start(stream)
        except sd.PortAudioError as err:
            if stream is not None:
                stream.close(ignore_errors=True)
            problem = f"cannot open output device {self._name!r} at {stream_rate} Hz: {err}"
            raise AudioDeviceError(problem) from None
        self._stream, self._piece_rate = stream, rate
        return stream


def _abort_and_close(stream: sd.InputStream | sd.OutputStream | None, kind: str) -> None:
    """Drop what is buffered and release the device; a device already gone is not an error here."""
    if stream is None:
        return
    try:
        stream.abort()
        stream.close()
    except sd.PortAudioError as err:
        log.debug("closing %s stream: %s", kind, err)


def _output_rate_ok(device: int | None, rate: int) -> bool:
    try:
        sd.check_output_settings(device=device, samplerate=rate, channels=1, dtype="float32")
        return True
    except (sd.PortAudioError, ValueError):
        return False


def _as_float32(samples: np.ndarray) -> np.ndarray:
    samples = np.asarray(samples)
    if samples.ndim != 1:
        raise ValueError(f"expected mono (n,) audio, got shape {samples.shape}")
    if samples.dtype == np.int16:
        return from_pcm16(samples)
    return samples.astype(np.float32, copy=False)


def _resample(audio: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    if rate_in == rate_out or not len(audio):
        return audio
    from scipy.signal import resample_poly

    g = math.gcd(rate_in, rate_out)
    return resample_poly(audio, rate_out // g, rate_in // g).astype(np.float32)


# ---------------------------------------------------------------------------------------------------
# Capture

FramesCallback = Callable[[np.ndarray, int], None]  # (float32 (n,) at 16 kHz, perf_counter_ns of sample 0)


class Resampler16k:
    """Streaming device-rate → 16 kHz resampler that re-blocks into fixed frames with timestamps.

    Above 16 kHz: an elliptic low-pass (order 10, flat to 7.3 kHz within 0.1 dB, 70 dB down from
    8 kHz, so nothing above 8 kHz folds into speech), then soxr's cubic interpolation ("QQ"), which
    outputs every sample as soon as its input is in: 0.1-0.7 ms of group delay in all, against soxr
    "LQ"'s 11 ms on average. Interpolation error at 44.1 kHz: −62 dB at 4 kHz, −46 dB at 6.5 kHz;
    48 kHz is exact decimation by 3. Below 16 kHz (a telephone headset) soxr "LQ" upsamples: there
    is nothing above the device's band to keep out. The timestamps treat output sample k as input
    sample k * rate_in / 16000 of the same stream.

        >>> r = Resampler16k(48_000, frame=320)
        >>> frames = [f for i in range(5) for f in r.push(np.zeros(960, np.float32), i * 20_000_000)]
        >>> [(len(x), t) for x, t in frames[:2]]
        [(320, 0), (320, 20000000)]
    """

    def __init__(self, rate_in: int, frame: int):
        import soxr
        from scipy.signal import ellip, sosfilt  # here, not at import: scipy.signal is slow to load

        self.rate_in, self.frame = rate_in, frame
        self._sosfilt = sosfilt
        quality = "QQ" if rate_in > CAPTURE_RATE else "LQ"
        self._soxr = None  # a 16 kHz device needs nothing
        if rate_in != CAPTURE_RATE:
            self._soxr = soxr.ResampleStream(rate_in, CAPTURE_RATE, 1, dtype="float32", quality=quality)
        self._sos = None
        if rate_in > CAPTURE_RATE:
            self._sos = ellip(10, 0.1, 70, ANTI_ALIAS_HZ, fs=rate_in, output="sos")
            self._zi = np.zeros((len(self._sos), 2))  # the filter's state across blocks
        self._pending = np.zeros(0, np.float32)
        self._in_count = 0  # input samples pushed before the current block
        self._out_count = 0  # output samples already returned in frames

    def push(self, block: np.ndarray, t_first_ns: int) -> list[tuple[np.ndarray, int]]:
        """One captured block (float32 (n,), its first sample's time) → complete 16 kHz frames."""
        filtered = block
        if self._sos is not None:
            filtered, self._zi = self._sosfilt(self._sos, block, zi=self._zi)
        filtered = np.asarray(filtered, np.float32)
        resampled = filtered if self._soxr is None else self._soxr.resample_chunk(filtered)
        self._pending = np.concatenate([self._pending, resampled])
        frames = []
        while len(self._pending) >= self.frame:
            frame, self._pending = self._pending[: self.frame], self._pending[self.frame :]
            # seconds between this frame's first sample and the block's first sample (usually < 0)
            offset_s = self._out_count / CAPTURE_RATE - self._in_count / self.rate_in
            frames.append((frame, t_first_ns + round(offset_s * 1e9)))
            self._out_count += self.frame
        self._in_count += len(block)
        return frames

    def held_back(self) -> int:
        """16 kHz samples of what has been pushed that no frame or pending sample holds yet (the
        resampler's own delay; `scripts/bench_vad.py` reports it)."""
        return round(self._in_count * CAPTURE_RATE / self.rate_in) - self._out_count - len(self._pending)


class Capture:
    """Microphone frames at 16 kHz, delivered to `on_frames(samples, t_first_ns)` from a worker thread.

    The device opens at its native default rate, mono; each `capture_block_ms` block goes through
    `Resampler16k` and comes out as frames of exactly `capture_block_ms` at 16 kHz (160 samples for 10 ms).
    `t_first_ns` estimates, on the perf_counter_ns() clock, when the frame's first sample was
    captured. If the device fails or goes silent for `STALL_S` (unplugged, server restarted), it is
    reported through `on_error(message)` and the log, then reopened after `reopen_initial_s`, doubling
    up to `reopen_max_s`; nothing is raised to the caller after `start()`. The log warns once per
    problem (the same one again is at debug level) and again when the device is back.
    """

    def __init__(
        self,
        cfg: AudioConfig,
        on_frames: FramesCallback,
        on_error: Callable[[str], None] | None = None,
    ):
        self.cfg = cfg
        self.on_frames = on_frames
        self.on_error = on_error
        self.reopens = 0  # successful reopens after a failure
        self.frames = 0  # frames delivered so far
        self.device_rate = 0
        self._device: int | None = None
        self._stream: sd.InputStream | None = None
        self._generation = 0  # tags queued blocks so a closed stream's leftovers are ignored
        self._blocks: queue.SimpleQueue = queue.SimpleQueue()
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """True while the input stream is open and delivering."""
        return self._stream is not None and self._stream.active

    def start(self) -> Capture:
        """Resolve the device (DeviceNotFoundError for a bad name) and start capturing in the background."""
        self._device = resolve_device(self.cfg.input_device, "input")
        self._stop.clear()
        self._worker = threading.Thread(target=self._run, name="audio-capture", daemon=True)
        self._worker.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._blocks.put((self._generation, None, 0))  # wake the worker
        if self._worker is not None:
            self._worker.join(timeout)
            self._worker = None

    def __enter__(self) -> Capture:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _run(self) -> None:
        """Worker: open, deliver until failure or stop, report, back off, reopen."""
        delay, failed, told = self.cfg.reopen_initial_s, False, ""
        while not self._stop.is_set():
            try:
                resampler = self._open()
                if failed:
                    self.reopens += 1
                    # The user was told it failed (a warning), so is told it is back, at the same level.
                    log.warning("input device %r is back, at %d Hz", self._name(), self.device_rate)
                    told = ""
                delivered = self.frames
                problem = self._deliver(resampler)
                if problem is None:
                    break
                if self.frames > delivered:
                    delay = self.cfg.reopen_initial_s  # it worked: back off afresh
            except AudioDeviceError as err:
                problem = str(err)
            self._close()
            # The same problem again (a microphone that stays away) is said once, not every 8 s.
            self._report(f"{problem}; retrying in {delay:g} s", again=problem == told)
            told = problem
            self._stop.wait(delay)
            delay, failed = min(delay * 2, self.cfg.reopen_max_s), True
        self._close()

    def _deliver(self, resampler: Resampler16k) -> str | None:
        """Hand on frames until stop (None) or failure (its description)."""
        timeout = FIRST_BLOCK_S
        while True:
            try:
                generation, block, t_first_ns = self._blocks.get(timeout=timeout)
            except queue.Empty:
                return f"input device {self._name()!r} delivered nothing for {timeout:g} s"
            if self._stop.is_set():
                return None
            if generation != self._generation:
                continue
            if block is None:
                return f"input device {self._name()!r} stopped"
            timeout = STALL_S
            for frame, t_ns in resampler.push(block, t_first_ns):
                try:
                    self.on_frames(frame, t_ns)
                except Exception:  # a consumer's bug must not silence the microphone
                    log.exception("on_frames failed; capture goes on")
                self.frames += 1

    def _open(self) -> Resampler16k:
        self._generation += 1
        generation = self._generation
        stream = None
        try:
            info = _device_info(self._device, "input")
            self.device_rate = rate = int(info["default_samplerate"])
            stream = sd.InputStream(
                device=self._device,
                samplerate=rate,
                channels=1,
                dtype="float32",
                blocksize=max(1, rate * self.cfg.capture_block_ms // 1000),
                latency="low",
                callback=lambda indata, frames, t, status: self._callback(generation, indata, frames, t),
                finished_callback=lambda: self._blocks.put((generation, None, 0)),
            )
            stream.start()
        except sd.PortAudioError as err:
            if stream is not None:
                stream.close(ignore_errors=True)
            raise AudioDeviceError(f"cannot open input device {self._name()!r}: {err}") from None
        self._stream = stream
        return Resampler16k(rate, CAPTURE_RATE * self.cfg.capture_block_ms // 1000)

    def _callback(self, generation: int, indata: np.ndarray, frames: int, t) -> None:
        now_ns = time.perf_counter_ns()
        # PortAudio's clock need not be ours: take only the block's age from it, sanity-checked.
        age_s = t.currentTime - t.inputBufferAdcTime if t.inputBufferAdcTime > 0 else 0.0
        if not 0.0 < age_s < 1.0:
            age_s = frames / self.device_rate
        self._blocks.put((generation, indata[:, 0].copy(), now_ns - round(age_s * 1e9)))

    def _close(self) -> None:
        stream, self._stream = self._stream, None
        _abort_and_close(stream, "input")

    def _name(self) -> str:
        if self._device is None:
            return "default"
        try:
            return sd.query_devices(self._device)["name"]
        except (sd.PortAudioError, ValueError):
            return str(self._device)

    def _report(self, message: str, again: bool = False) -> None:
        log.log(logging.DEBUG if again else logging.WARNING, message)
        if self.on_error is not None:
            try:
                self.on_error(message)
            except Exception:  # a consumer's bug must not end the reopening
                log.exception("on_error failed; capture goes on")
