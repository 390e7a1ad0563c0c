"""Shared fixtures: a private PulseAudio server with virtual speaker and microphone, speech WAVs.

`pulse` (session scope) starts its own PulseAudio daemon, so tests never touch a real sound card
or a desktop's server, and runs the same as root in a container:

    spk       null sink: the default output. What the assistant plays is heard on spk.monitor.
    micsink   null sink that tests play into (paplay --device=micsink file.wav) ...
    mic       ... remapped as a source: the default input, what the assistant hears.

How it is reached. The daemon runs with `-n` (no default.pa) and its own runtime/state/home
directories under a temporary directory; PULSE_SERVER points every client at its socket:
libpulse in this process, PortAudio through ALSA's pulse plugin (Debian libasound2-plugins makes
ALSA's "default" and "pulse" PCMs route to PulseAudio when a server answers), and paplay/parecord.
The native protocol runs with auth-anonymous=1, so no cookie has to be shared.

Root: nothing special is needed; `-n` plus a private runtime dir works (the daemon only warns
"not intended to be run as root"). `--system` is not used: it wants the pulse user and /var/run.

PortAudio lists devices once, when sounddevice is imported; the fixture re-initializes it after
the server starts (sd._terminate(); sd._initialize()), so import order does not matter.

Null sinks start with a 2 s latency and the first stream stalls until the sink's timer fires;
the fixture keeps a low-latency recorder on each monitor for the whole session (which also records
the speaker for `record_speaker`) and waits until audio flows before handing the server over.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

# A test run started in the background by a non-interactive shell (`cmd &` without job control, as
# a CI script may) inherits SIGINT ignored, and so would every `assistant run` the tests start:
# Ctrl-C would do nothing to them. Children of this process get the default SIGINT back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

RECORD_RATE = 16_000  # Hz of `Pulse.record_speaker` / `Recording` audio (float32 mono)
_PULSE_MODULES = [
    "module-null-sink sink_name=spk",
    "module-null-sink sink_name=micsink",
    "module-remap-source master=micsink.monitor source_name=mic",
    "module-native-protocol-unix auth-anonymous=1",
]


def _have(*tools: str) -> bool:
    return all(shutil.which(t) for t in tools)


class Recording:
    """A running `parecord` of a source, timestamped on perf_counter_ns as its data arrives."""

    def __init__(self, device: str, env: dict):
        cmd = [
            "parecord", f"--device={device}", "--raw", "--format=float32le", f"--rate={RECORD_RATE}",
            "--channels=1", "--latency-msec=10",
        ]  # fmt: skip
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self._chunks: list[tuple[int, bytes]] = []  # (perf_counter_ns on arrival, raw float32le)
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while chunk := self._proc.stdout.read1(4096):
            with self._lock:
                self._chunks.append((time.perf_counter_ns(), chunk))

    @property
    def samples(self) -> int:
        with self._lock:
            return sum(len(c) for _, c in self._chunks) // 4

    def since(self, t_ns: int) -> np.ndarray:
        """Audio that arrived after perf_counter_ns `t_ns` (to within the 10 ms recording latency)."""
        with self._lock:
            data = b"".join(c for t, c in self._chunks if t >= t_ns)
        return np.frombuffer(data[: len(data) // 4 * 4], np.float32).copy()

    def timed(self, t_ns: int) -> tuple[np.ndarray, int]:
        """`since(t_ns)` and the perf_counter_ns time its first sample was recorded. Each chunk's
        arrival less the audio before its end bounds that time from above; the tightest bound is
        taken, so the recorder's own latency (the same for every recording here) stays in."""
        with self._lock:
            chunks = [(t, c) for t, c in self._chunks if t >= t_ns]
        if not chunks:
            return np.zeros(0, np.float32), t_ns
        ends = np.cumsum([len(c) for _, c in chunks]) / 4  # samples up to the end of each chunk
        t0 = min(t - round(end * 1e9 / RECORD_RATE) for (t, _), end in zip(chunks, ends, strict=True))
        data = b"".join(c for _, c in chunks)
        return np.frombuffer(data[: len(data) // 4 * 4], np.float32).copy(), t0

    def between(self, t_from: int, t_until: int | None = None) -> np.ndarray:
        """Audio played from perf_counter_ns `t_from` to `t_until` (to the end when None), placed on
        the recording's own clock (`timed`), not on arrival: a sound server stalled for a moment hands
        the recorder what it played meanwhile late and all at once, which `since` would misplace."""
        audio, t0 = self.timed(t_from - 1_000_000_000)
        start = max(0, (t_from - t0) * RECORD_RATE // 1_000_000_000)
        end = None if t_until is None else max(start, (t_until - t0) * RECORD_RATE // 1_000_000_000)
        return audio[start:end]

    def clear(self) -> None:
        with self._lock:
            self._chunks.clear()

    def stop(self) -> np.ndarray:
        self._proc.terminate()
        self._proc.wait(5)
        self._reader.join(5)
        return self.since(0)


class Pulse:
    """A private PulseAudio daemon; see the module docstring. Start with `start()`, end with `stop()`."""

    def __init__(self, root: Path):
        self.root = root
        self.runtime = root / "runtime"
        self.socket = self.runtime / "native"
        self.server = f"unix:{self.socket}"
        self.pid: int | None = None
        self.speaker: Recording | None = None  # always recording spk.monitor
        self._mic_keepalive: Recording | None = None
        self._loopback_module: int | None = None
        self._loopback_adjust_s = 0  # the loaded loopback's adjust_time
        self._loopback_latency_ms = 20  # ... and its latency_msec
        self._speaker_module: int | None = None  # a distorting speaker (module-ladspa-sink), if any

    @property
    def mic(self) -> Recording | None:
        """What the microphone hears (micsink.monitor: injected speech plus any loopback), recorded
        for the whole session like `speaker`."""
        return self._mic_keepalive

    @property
    def env(self) -> dict:
        """Environment for clients (this process is given the same PULSE_SERVER)."""
        return {**os.environ, "PULSE_SERVER": self.server}

    def start(self) -> Pulse:
        for sub in ("runtime", "state", "home"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        daemon_env = {
            **os.environ,
            "HOME": str(self.root / "home"),
            "XDG_RUNTIME_DIR": str(self.root),
            "PULSE_RUNTIME_PATH": str(self.runtime),
            "PULSE_STATE_PATH": str(self.root / "state"),
        }
        daemon_env.pop("PULSE_SERVER", None)
        cmd = ["pulseaudio", "-n", "--daemonize=yes", "--exit-idle-time=-1", "--realtime=no",
               "--high-priority=no", f"--log-target=file:{self.root / 'pulse.log'}"]  # fmt: skip
        for module in _PULSE_MODULES:
            cmd += ["-L", module]
        subprocess.run(cmd, env=daemon_env, check=True, timeout=20)
        self.pid = int((self.runtime / "pid").read_text().split()[0])
        self.pactl("set-default-sink", "spk")
        self.pactl("set-default-source", "mic")
        self._warm_up()
        return self

    def _warm_up(self, timeout: float = 5.0) -> None:
        """Keep both null sinks at low latency for the session and wait until audio flows."""
        self.speaker = Recording("spk.monitor", self.env)
        self._mic_keepalive = Recording("micsink.monitor", self.env)
        deadline = time.monotonic() + timeout
        while self.speaker.samples < RECORD_RATE // 10 or self._mic_keepalive.samples < RECORD_RATE // 10:
            if time.monotonic() > deadline:
                raise RuntimeError(f"PulseAudio null sinks deliver nothing; see {self.root / 'pulse.log'}")
            time.sleep(0.05)
        self.speaker.clear()

    def stop(self) -> None:
        for rec in (self.speaker, self._mic_keepalive):
            if rec is not None:
                rec.stop()
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGTERM)
                for _ in range(100):
                    os.kill(self.pid, 0)
                    time.sleep(0.02)
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.pid = None

    def restart(self) -> None:
        """Kill the server and start it again at the same socket (device failure tests)."""
        self.stop()
        self._loopback_module = self._speaker_module = None
        self.start()

    def pactl(self, *args: str) -> str:
        done = subprocess.run(["pactl", *args], env=self.env, capture_output=True, text=True, timeout=10)
        if done.returncode:
            raise RuntimeError(f"pactl {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout.strip()

    def play_into_mic(self, wav: str | Path, wait: bool = True) -> subprocess.Popen:
        """Play a WAV file into the virtual microphone (what `mic` captures)."""
        proc = subprocess.Popen(
            ["paplay", "--device=micsink", "--latency-msec=20", str(wav)], env=self.env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        if wait:
            _, err = proc.communicate(timeout=60)
            if proc.returncode:
                raise RuntimeError(f"paplay {wav}: {err.decode().strip()}")
        return proc

    def record_speaker(self, seconds: float) -> np.ndarray:
        """The next `seconds` of what is played to the speaker (float32 mono at RECORD_RATE)."""
        start = time.perf_counter_ns()
        time.sleep(seconds)
        return self.speaker.since(start)[: int(seconds * RECORD_RATE)]

    def loopback(self, on: bool = True, volume: float = 1.0, adjust_s: int = 0, latency_ms: int = 20) -> None:
        """Let the microphone hear the speaker (as on laptop speakers), at `volume` times the
        amplitude (0.5 = -6 dB). Off again with `loopback(False)`.

        By default the echo path has a fixed delay, as from a laptop's speaker to its microphone:
        module-loopback's rate adjustment is off (`adjust_time=0`; both null sinks run on the same
        clock, so there is no drift to follow). With `adjust_s` > 0 it re-adjusts every `adjust_s`
        seconds (PulseAudio's default is 10), moving the echo's delay each time; WebRTC AEC3 then
        lets the echo through at up to its full level for ~100 ms while it re-converges (measured
        with barge-in logging instead of holding: 15 echo bursts the gate would have held on in
        140 s of answer, against 2 with a fixed delay). `latency_ms` is the echo's delay (about 25 ms
        behind the player's stamps at the default 20), and the loopback keeps time it lost: a
        PulseAudio starved of CPU for 150 ms (SIGSTOP) moved it from 25 to 153 ms for good, some of
        the times it was done.

        A loopback already on only changes its volume: loading it again would move the echo's delay
        (a new module settles at another latency), which no laptop does when its volume changes, and
        AEC3 would let the echo through for seconds while it re-learnt it."""
        same = (adjust_s, latency_ms) == (self._loopback_adjust_s, self._loopback_latency_ms)
        if self._loopback_module is not None and not (on and same):
            self.pactl("unload-module", str(self._loopback_module))
            self._loopback_module = None
        if not on:
            return
        if self._loopback_module is None:
            args = ["source=spk.monitor", "sink=micsink", f"latency_msec={latency_ms}",
                    f"adjust_time={adjust_s}"]  # fmt: skip
            self._loopback_module = int(self.pactl("load-module", "module-loopback", *args))
            self._loopback_adjust_s, self._loopback_latency_ms = adjust_s, latency_ms
        for stream in json.loads(self.pactl("--format=json", "list", "sink-inputs")):
            if str(stream.get("owner_module")) == str(self._loopback_module):
                # PulseAudio volumes are cubic: raw 65536 * g^(1/3) is a linear gain of g
                raw = round(65536 * max(volume, 0.0) ** (1 / 3))
                self.pactl("set-sink-input-volume", str(stream["index"]), str(raw))

    def distort_speaker(self, drive: float) -> None:
        """Make the speaker distort as a small one played loud does (0: a linear speaker again).

        Players that open the default sink after this play through SWH's fast overdrive
        (`foverdrive_1196`, a memoryless soft saturation, as module-ladspa-sink `spkdist`) into `spk`,
        so the speaker's recording and the loopback's echo both carry the distortion and the
        loopback's volume stays the coupling from speaker to mic, after it. On piper's speech
        drive 1 leaves the sound 28.8 dB over what no linear filter can model (3.6% of the
        amplitude), drive 2 19 dB (`speaker_distortion_db`). Streams already open stay where they are."""
        if self._speaker_module is not None:
            self.pactl("set-default-sink", "spk")
            self.pactl("unload-module", str(self._speaker_module))
            self._speaker_module = None
        if drive > 0:
            args = ["sink_name=spkdist", "sink_master=spk", "plugin=foverdrive_1196", "label=foverdrive",
                    f"control={drive}"]  # fmt: skip
            self._speaker_module = int(self.pactl("load-module", "module-ladspa-sink", *args))
            self.pactl("set-default-sink", "spkdist")


def speaker_distortion_db(pulse: Pulse, reference: np.ndarray, taps: int = 64) -> float:
    """How far what the speaker plays of `reference` (float32 mono at RECORD_RATE, played to the
    default sink with nothing else playing) lies from any linear echo path: the power of what a
    least-squares FIR filter of `taps` taps cannot model, in dB under the played sound's; the median
    over its voiced half seconds, each aligned on its own (a stream that starts late or slips must not
    count as distortion). About -77 dB for the plain null sink; a linear echo canceller cannot take
    the echo further down than this. (The loopback is linear, but its latency settles for seconds
    after it is loaded, so the speaker is measured rather than the echo.)"""
    wav = pulse.root / "distortion-probe.wav"
    sf.write(wav, reference, RECORD_RATE)
    start = time.perf_counter_ns()
    done = subprocess.run(["paplay", str(wav)], env=pulse.env, capture_output=True, timeout=60)
    if done.returncode:
        raise RuntimeError(f"paplay {wav}: {done.stderr.decode().strip()}")
    time.sleep(0.3)
    played = pulse.speaker.since(start)
    block, ratios = RECORD_RATE // 2, []
    loud = 0.1 * np.sqrt(np.mean(reference**2))
    size = 1 << int(np.ceil(np.log2(len(played) + block + 2 * taps)))
    played_spectrum = np.fft.rfft(played, size)  # the same for every half second
    for at in range(taps, len(reference) - block - taps, block):
        x = reference[at - taps : at + block + taps]
        if np.sqrt(np.mean(x**2)) < loud:
            continue
        # where this half second lies in the recording: the peak of the cross-correlation
        corr = np.fft.irfft(played_spectrum * np.conj(np.fft.rfft(x, size)), size)
        lag = int(np.argmax(np.abs(corr[: len(played) - len(x)])))
        # (block, taps): the reference shifted by -taps/2 .. taps/2 - 1 around that lag
        shifted = np.stack([x[taps - k : taps - k + block] for k in range(-taps // 2, taps // 2)], axis=1)
        out = played[lag + taps : lag + taps + block]
        weights, *_ = np.linalg.lstsq(shifted, out, rcond=None)
        residual = out - shifted @ weights
        ratios.append(10 * np.log10(np.sum(residual**2) / max(np.sum(out**2), 1e-20)))
    return float(np.median(ratios))


def _refresh_portaudio() -> None:
    """Make PortAudio enumerate devices again (its list is fixed when it initializes)."""
    import sounddevice as sd

    sd._terminate()
    sd._initialize()


@pytest.fixture(scope="session")
def pulse() -> Iterator[Pulse]:
    """A private PulseAudio server with `spk` (default sink) and `mic` (default source); see above."""
    if not _have("pulseaudio", "pactl", "paplay", "parecord"):
        pytest.skip("PulseAudio tools not installed (apt-get install pulseaudio pulseaudio-utils)")
    root = Path(tempfile.mkdtemp(prefix="assistant-pulse-"))
    server = Pulse(root)
    old = os.environ.get("PULSE_SERVER")
    os.environ["PULSE_SERVER"] = server.server
    try:
        server.start()
        _refresh_portaudio()
        yield server
    finally:
        server.stop()
        if old is None:
            os.environ.pop("PULSE_SERVER", None)
        else:
            os.environ["PULSE_SERVER"] = old
        _refresh_portaudio()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def espeak_wav(tmp_path_factory):
    """`espeak_wav(text, path=None) -> Path`: speech synthesized by espeak-ng (22050 Hz mono WAV)."""
    if not _have("espeak-ng"):
        pytest.skip("espeak-ng not installed")
    folder = tmp_path_factory.mktemp("espeak")

    def make(text: str, path: str | Path | None = None) -> Path:
        path = Path(path) if path else folder / f"{abs(hash(text))}.wav"
        subprocess.run(["espeak-ng", "-w", str(path), text], check=True, capture_output=True, timeout=30)
        return path

    return make


@pytest.fixture(scope="session")
def piper_tts():
    """The shipped piper voice, loaded once per session (about 2 s)."""
    from assistant.config import TtsConfig
    from assistant.tts import PiperTts

    return PiperTts(TtsConfig()).build()


def load_script(name: str):
    """Import scripts/<name>.py as a module (tests reuse the benches' scenes and harnesses)."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parent.parent / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


async def wait_until(condition, timeout: float) -> bool:
    """Poll `condition()` on the event loop until it holds (True) or `timeout` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
